"""The report opened in a real browser (headless Chromium): no console errors, every section and every figure
rendered with a size, MathML present and laid out, every internal link resolving, and a screenshot saved
(``$SLTH_SCREENSHOT_DIR`` or the test's temporary folder).

Marker ``browser``; skipped, with the reason, when no Chromium or Chrome is installed (Debian:
``apt-get install chromium``; ``$SLTH_BROWSER`` names another binary). The page is checked by a small script
appended to a copy of the report that writes its findings into the DOM, which ``--dump-dom`` returns; console
messages come from Chromium's log on stderr. Nothing leaves the machine: the page is a file URL and the browser
runs with networking features off.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars"]
SAMPLE = Path(__file__).with_name("data") / "empirical-record-sample.json"
FINDINGS = Path(__file__).with_name("data") / "findings-sample.json"
WIDTH = 1400

PROBE = r"""
<script>
(function () {
  var errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });
  function size(el) { var r = el.getBoundingClientRect(); return [r.width, r.height]; }
  window.addEventListener('load', function () {
    var out = {errors: errors, sections: [], figures: [], images: [], math: 0, math_sized: 0, broken_links: [],
               links: 0, tip: !!document.getElementById('tip')};
    document.querySelectorAll('section').forEach(function (s) {
      var wh = size(s); out.sections.push({id: s.id, w: wh[0], h: wh[1]});
    });
    document.querySelectorAll('svg.plot').forEach(function (s) {
      var wh = size(s); out.figures.push({id: s.id || s.getAttribute('aria-label'), w: wh[0], h: wh[1],
                                          marks: s.querySelectorAll('[data-tip]').length});
    });
    document.querySelectorAll('img').forEach(function (i) {
      out.images.push({alt: i.alt, ok: i.complete && i.naturalWidth > 0});
    });
    var maths = document.querySelectorAll('math');
    out.math = maths.length;
    maths.forEach(function (m) { var wh = size(m); if (wh[0] > 0 && wh[1] > 0) out.math_sized += 1; });
    out.mathml_namespace = maths.length ? maths[0].namespaceURI : null;
    document.querySelectorAll('a[href^="#"]').forEach(function (a) {
      out.links += 1;
      var id = decodeURIComponent(a.getAttribute('href').slice(1));
      if (!document.getElementById(id)) out.broken_links.push(a.getAttribute('href'));
    });
    out.external = Array.prototype.filter.call(document.querySelectorAll('[src],[href]'), function (e) {
      var u = e.getAttribute('src') || e.getAttribute('href');
      return /^(https?:)?\/\//.test(u);
    }).length;
    var page = document.documentElement.clientWidth;
    var body = document.body.getBoundingClientRect();
    out.page_width = page;
    out.overflow = [];
    var closed = Array.prototype.filter.call(document.querySelectorAll('details'), function (d) { return !d.open; });
    closed.forEach(function (d) { d.open = true; });  // a collapsed table must fit too once opened
    document.querySelectorAll('table').forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.width > 0 && (r.right > Math.min(page, body.right) + 1 || r.left < body.left - 1)) {
        out.overflow.push({text: (t.textContent || '').slice(0, 60), left: r.left, right: r.right});
      }
    });
    out.scroll_width = document.documentElement.scrollWidth;
    closed.forEach(function (d) { d.open = false; });
    var banner = document.getElementById('banner');
    out.banner = banner ? {text: banner.textContent, top: banner.getBoundingClientRect().top} : null;
    out.height = document.documentElement.scrollHeight;  // every <details> closed, as the page opens
    out.map_nodes = Array.prototype.map.call(document.querySelectorAll('#proof-map a.node'), function (a) {
      return {node: a.getAttribute('data-node'), kind: a.getAttribute('data-kind'),
              verdict: a.getAttribute('data-verdict'), href: a.getAttribute('href')};
    });
    closed.forEach(function (d) { d.open = true; });
    var hidden = document.body.cloneNode(true);  // visible text: everything but code, scripts, styles, MathML
    hidden.querySelectorAll('code, pre, script, style, math').forEach(function (e) { e.remove(); });
    out.visible = hidden.textContent;
    out.broken = [];
    document.querySelectorAll('table.summary td, table.steps td, #proofs table td').forEach(function (td) {
      var walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      for (var n = walker.nextNode(); n; n = walker.nextNode()) {
        if (n.parentElement.closest('math, code')) continue;
        var re = /[^\s,;()]+/g, m;
        while ((m = re.exec(n.textContent))) {
          if (m[0].length > 20 || !/\d|certified|refuted|proved|holds|fails|undecided/.test(m[0])) continue;
          var r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
          var tops = {}; Array.prototype.forEach.call(r.getClientRects(), function (c) {
            if (c.width > 0) tops[Math.round(c.top)] = 1; });
          if (Object.keys(tops).length > 1) out.broken.push(m[0]);
        }
      }
    });
    closed.forEach(function (d) { d.open = false; });
    out.findings = Array.prototype.map.call(document.querySelectorAll('ol.findings > li'), function (li) {
      return {id: li.id, top: li.getBoundingClientRect().top, text: li.textContent.slice(0, 120)};
    });
    var pre = document.createElement('pre'); pre.id = 'browser-probe';
    pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
  });
})();
</script>
"""


MAX_HEIGHT = 20_000
STATEMENTS = ("lueker", "lemma2", "lemma7", "lemma8", "lemma5", "theorem9", "theorem10", "theorem11", "lemma12",
              "lemma13", "theorem14")
INTERNAL = re.compile(r"\b(?:lemma|theorem)\d+:[\w-]+|\b(?:rate|search|stored|chain|length|empirical):\w+"
                      r"|\b(?:True|False|None)\b|(?<![\w.~])/(?:work|tmp|home|root|usr)/\S+|(?<![\w/#.-])(?:lemma|theorem)\d+(?![\w-]|\.\w)")


def internal_ids(text: str) -> list[str]:
    """The harness's internal names in ``text``: check ids, reading and step keys, bare statement names, Python
    literals and absolute paths."""
    return INTERNAL.findall(text)


def test_the_internal_id_check_can_fail():
    assert internal_ids("lemma13:printed is violated; stored:lemma13:printed; significantly above: False; "
                        "/work/runs/tasks; C varies for lemma2") == [
        "lemma13:printed", "stored:lemma13", "False", "/work/runs/tasks;", "lemma2"]
    assert not internal_ids("Lemma 13 as printed; failure rate of Lemma 2; 1/eps; slt/measure/calibration.json")


def _browser() -> str | None:
    env = os.environ.get("SLTH_BROWSER")
    if env:
        return shutil.which(env) or (env if Path(env).exists() else None)
    return next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)


@pytest.fixture(scope="module")
def browser():
    found = _browser()
    if not found:
        pytest.skip("no Chromium/Chrome found (apt-get install chromium, or set SLTH_BROWSER)")
    return found


def _run(browser: str, tmp: Path, *args: str, timeout: int = 180) -> subprocess.CompletedProcess:
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    profile.mkdir()
    return subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def report(proofs_record, tmp_path_factory):
    """The report of a run record: the proof part of this tree, with a quick run's empirical part."""
    from reports.build import render_html, render_sections

    from slt.measure import findings

    rec = dict(proofs_record)
    rec["empirical"] = json.loads(SAMPLE.read_text())
    sample = json.loads(FINDINGS.read_text())
    rec["empirical"]["findings_data"] = sample["findings_data"]
    rec["variants"] = sample["variants"]
    rec["profile"] = "quick"
    rec["findings"] = findings.decide(rec)
    html = render_html(render_sections(rec), rec)
    path = tmp_path_factory.mktemp("browser") / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def test_the_report_renders_in_a_real_browser(browser, report, tmp_path):
    probe = tmp_path / "probe.html"
    text = report.read_text(encoding="utf-8")
    assert "</body>" in text
    probe.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    done = _run(browser, tmp_path, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000",
                f"--window-size={WIDTH},1000", "--dump-dom", probe.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    m = re.search(r'<pre id="browser-probe">(.*?)</pre>', done.stdout, re.S)
    assert m, "the probe did not run (no result in the DOM)"
    import html as htmllib

    out = json.loads(htmllib.unescape(m.group(1)))
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not out["errors"] and not console, (out["errors"], console)
    ids = [s["id"] for s in out["sections"]]
    assert ids[:2] == ["findings", "summary"] and {"statements", "proofs", "empirical", "evidence"} <= set(ids), ids
    # the page opens with the count banner and the findings, and no table is wider than the page at 1400 px
    assert out["banner"] and "certified" in out["banner"]["text"] and "undecided at this power" in out["banner"]["text"]
    assert len(out["findings"]) >= 6 and all(f["top"] > out["banner"]["top"] for f in out["findings"])
    assert "Lemma 13 as printed is false" in out["findings"][0]["text"], out["findings"][0]
    assert out["page_width"] <= WIDTH and not out["overflow"], out["overflow"][:5]
    assert out["scroll_width"] <= out["page_width"] + 1, (out["scroll_width"], out["page_width"])
    assert all(s["w"] > 0 and s["h"] > 0 for s in out["sections"]), out["sections"]
    assert out["figures"], "no figure in the report"
    assert all(f["w"] > 100 and f["h"] > 50 and f["marks"] > 0 for f in out["figures"]), out["figures"]
    assert all(i["ok"] for i in out["images"]), out["images"]
    assert out["math"] > 50 and out["mathml_namespace"] == "http://www.w3.org/1998/Math/MathML"
    assert out["math_sized"] >= 0.95 * out["math"], (out["math_sized"], out["math"])
    assert out["links"] > 20 and not out["broken_links"], out["broken_links"]
    assert out["external"] == 0 and out["tip"]
    # short and readable: at most 20,000 px at 1400 px with the collapsed parts closed; a proof map at the top with
    # one node per statement, each linking to its section; no internal id, Python literal or machine path in the
    # visible text (commands in code excepted); no number or verdict word broken across lines in the summary and
    # the proof tables
    assert out["height"] <= MAX_HEIGHT, out["height"]
    statements = [n for n in out["map_nodes"] if n["kind"] == "statement"]
    assert sorted(n["node"] for n in statements) == sorted(STATEMENTS), out["map_nodes"]
    assert all(n["href"] == f"#st-{n['node']}" for n in statements)
    assert {n["verdict"] for n in out["map_nodes"] if n["kind"] != "premise"} <= {"certified", "refuted", "not proved",
                                                                                 "cited", "proved in Coq"}
    premises = [n for n in out["map_nodes"] if n["kind"] == "premise"]  # proved in Coq or assumed, each linked
    assert premises and {n["verdict"] for n in premises} <= {"proved", "assumed"}
    assert all(n["href"].startswith("#premise-") for n in premises)
    assert not internal_ids(out["visible"]), internal_ids(out["visible"])[:10]
    assert not out["broken"], out["broken"][:10]


def test_a_screenshot_of_the_report(browser, report, tmp_path):
    folder = Path(os.environ.get("SLTH_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / "report-screenshot.png"
    done = _run(browser, tmp_path, f"--window-size={WIDTH},2200", f"--screenshot={shot}", "--virtual-time-budget=5000",
                report.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a rendered page, not a blank one


def _probe(browser: str, tmp: Path, page: Path) -> tuple[dict, list[str]]:
    done = _run(browser, tmp, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                f"--window-size={WIDTH},1000", "--dump-dom", page.as_uri())
    m = re.search(r'<pre id="browser-probe">(.*?)</pre>', done.stdout, re.S)
    import html as htmllib

    return (json.loads(htmllib.unescape(m.group(1))) if m else {},
            [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line])


def test_the_probe_catches_a_broken_page(browser, tmp_path):
    """The checks above can fail: a dangling link, an image that does not decode and a script error are seen."""
    page = tmp_path / "broken.html"
    page.write_text("<html><body style='max-width:1000px'><section id='s'><a href='#nowhere'>x</a>"
                    "<img src='data:image/png;base64,AAAA' alt='bad'><script>undefinedFunction();</script>"
                    "<div style='overflow-x:auto'><table><tr><td style='white-space:nowrap'>" + "wide " * 600
                    + "</td></tr></table></div></section>" + PROBE + "</body></html>")
    out, console = _probe(browser, tmp_path, page)
    assert len(out["overflow"]) == 1 and out["overflow"][0]["text"].startswith("wide")  # cut by its scroll box
    assert out["broken_links"] == ["#nowhere"]
    assert out["images"] == [{"alt": "bad", "ok": False}]
    assert out["math"] == 0 and not out["figures"]
    assert any("undefinedFunction" in line for line in console), console


INJECTION_PROBE = """
<script>
window.addEventListener('load', function () {
  setTimeout(function () {
    var pre = document.createElement('pre'); pre.id = 'injection-probe';
    pre.textContent = JSON.stringify({ran: window.__injected || 0});
    document.body.appendChild(pre);
  }, 500);
});
</script>
"""


def _injection_count(browser: str, tmp: Path, html: str) -> int:
    page = tmp / "injected.html"
    page.write_text(html.replace("<head>", "<head>" + INJECTION_PROBE, 1), encoding="utf-8")
    done = _run(browser, tmp, "--virtual-time-budget=5000", "--dump-dom", page.as_uri())
    m = re.search(r'<pre id="injection-probe">(.*?)</pre>', done.stdout, re.S)
    assert m, "the injection probe did not run"
    return json.loads(m.group(1).replace("&quot;", '"'))["ran"]


def test_no_string_of_a_record_runs_as_script(browser, proofs_record, tmp_path):
    """A script appended to every string field of a record (its MathML included) renders as
    text: nothing runs in Chromium. The probe counts what does run: the same payload outside the escaping runs."""
    from reports.build import render_html, render_sections
    from reports.record import validate
    from tests._inject import PAYLOAD, injected_record

    rec = validate(injected_record(proofs_record, tmp_path))
    html = render_html(render_sections(rec), rec)
    assert _injection_count(browser, tmp_path, html) == 0
    assert _injection_count(browser, tmp_path, html.replace("</body>", PAYLOAD + "</body>")) > 0  # the probe sees it
