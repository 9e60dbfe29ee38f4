"""One truth per claim: records with every outcome rendered, and every place of the page that states a verdict, a
count or a trend -- the banner, the contents line, the summary, the proof map, the proof section, the findings and
the "does C grow?" section -- checked against the one function of ``slt.claims`` that makes it, and so against
each other. Each outcome is planted in a copy of the proof-only record of this tree (with a quick run's empirical
sample), so a section that counted on its own would disagree here."""
from __future__ import annotations

import copy
import html as htmllib
import json
import re
from pathlib import Path

import pytest

from slt import claims
from slt.measure import findings

SAMPLE = Path(__file__).with_name("data") / "empirical-record-sample.json"
FINDINGS = Path(__file__).with_name("data") / "findings-sample.json"
TAG = re.compile(r"<[^>]+>")


def _text(fragment: str) -> str:
    return " ".join(htmllib.unescape(TAG.sub(" ", fragment)).split())


def _base(proofs_record) -> dict:
    rec = copy.deepcopy(proofs_record)
    rec["empirical"] = json.loads(SAMPLE.read_text())
    sample = json.loads(FINDINGS.read_text())
    rec["empirical"]["findings_data"] = sample["findings_data"]
    rec["variants"] = sample["variants"]
    rec["profile"] = "quick"
    return rec


def _step(rec, statement):
    return next(s for s in rec["steps"] if s["statement"] == statement and s["supported"])


def _refuted(rec):
    _step(rec, "lemma7").update(ok=False, verdict="refuted", counterexample={"d1": 2.0, "lhs": 3.0, "rhs": 1.0})


def _not_proved(rec):
    _step(rec, "theorem9").update(ok=False, verdict="not proved", counterexample=None)


def _fails(rec):
    rec["empirical"]["verdicts"]["theorem10"] = "fails"


def _holds(rec):
    for k, v in list(rec["empirical"]["verdicts"].items()):
        if v == "undecided at this power":
            rec["empirical"]["verdicts"][k] = "holds"


def _grows(rec):
    g = rec["calibration"]["statements"]["lemma7"]["growth"]
    low = min(g["rows"], key=lambda r: r["eps"])
    low.update(failures=low["trials"] // 10, passed=False)


OUTCOMES = {"as measured": [], "a refuted step": [_refuted], "a step not proved": [_not_proved],
            "an empirical failure": [_fails], "every statement holds": [_holds], "C grows at a fixed C": [_grows],
            "all at once": [_refuted, _not_proved, _fails, _grows]}


@pytest.fixture(scope="module", params=list(OUTCOMES))
def page(request, proofs_record):
    from reports.build import render_html, render_sections

    rec = _base(proofs_record)
    for plant in OUTCOMES[request.param]:
        plant(rec)
    rec["findings"] = findings.decide(rec)
    return request.param, rec, render_html(render_sections(rec), rec)


def _row(html: str, name: str) -> str:
    return re.search(rf'<tr id="summary-{name}">(.*?)</tr>', html, re.S).group(1)


def _contents(html: str, section: str) -> str:
    m = re.search(rf'<li><a href="#{section}">[^<]*</a>: (.*?)(?:\n|<details)', html, re.S)
    return _text(m.group(1))


def test_the_banner_the_contents_line_and_the_findings_state_the_same_counts(page):
    outcome, rec, html = page
    banner = _text(re.search(r'<div class="banner" id="banner">(.*?)</div>\s*<figure', html, re.S).group(1))
    proofs, emp = claims.proof_sentence(rec), claims.empirical_sentence(rec)
    assert proofs in banner and emp in banner, (outcome, banner)
    line = _contents(html, "findings")
    assert proofs in line and emp in line, (outcome, line)
    assert rec["findings"]["banner"]["proofs"]["counts"] == claims.proof_counts(rec)  # stored = rendered
    assert claims.step_sentence(rec) == _contents(html, "proofs")


def test_the_summary_the_proof_map_and_the_proof_section_agree_per_statement(page):
    outcome, rec, html = page
    words = claims.proof_verdicts(rec)
    counts = claims.proof_counts(rec)
    for name, word in words.items():
        row = _row(html, name)
        shown = re.search(r'<td><span class="[^"]*tok">([^<]+)</span>', row).group(1)
        assert shown == word, (outcome, name, shown, word)
        node = re.search(rf'<a href="#st-{name}" class="node" data-node="{name}" data-kind="statement" '
                         r'data-verdict="([^"]+)"', html)
        assert node and node.group(1) == word, (outcome, name)
        group = re.search(rf'<details class="long" id="proofs-{name}"><summary>.*?<span class="[^"]*">([^<]+)</span>',
                          html, re.S)
        if word == "cited":
            assert group is None  # no proof to show
        else:
            assert group.group(1) == word, (outcome, name)
        emp = (rec["empirical"] or {}).get("verdicts", {}).get(name)
        if emp:
            assert re.search(rf'<span class="[^"]*">{re.escape(emp)}', row), (outcome, name, emp)
    # the counts are the rows counted: the banner's number of each word is the number of rows showing it
    for word, n in counts.items():
        rows = sum(bool(re.search(rf'<td><span class="[^"]*tok">{word}</span>', _row(html, s))) for s in words)
        assert rows == n, (outcome, word, rows, n)
    assert counts["cited"] >= 1 and words["lueker"] == "cited"  # Lueker's corollary: cited, never "not proved"
    if outcome in ("a refuted step", "all at once"):
        assert words["lemma7"] == "refuted" and "1 refuted" in claims.proof_sentence(rec)
    if outcome in ("a step not proved", "all at once"):
        assert words["theorem9"] == "not proved" and "1 not proved" in claims.proof_sentence(rec)


def test_does_c_grow_has_one_answer_per_statement_everywhere(page):
    outcome, rec, html = page
    answers = claims.growth(rec)
    assert answers, "the record carries fixed-C tests and large grids"
    finding = next(f for f in rec["findings"]["items"] if f["id"] == "fixed-c-growth")
    assert claims.growth_sentence(rec) in finding["title"].lower() or \
        claims.growth_sentence(rec)[1:] in finding["title"]
    assert _contents(html, "calibration-trend") == _text(claims.growth_sentence(rec)) or \
        _text(claims.growth_sentence(rec)) in _contents(html, "calibration-trend")
    section = html[html.index('<section id="calibration-trend">'):]
    for name, a in answers.items():
        li = _text(re.search(rf'<li id="growth-{name}"[^>]*>(.*?)</li>', section, re.S).group(1))
        assert "over eps at a fixed C" in a["sentence"] and "large grid" in a["sentence"]
        assert "neither shows" in a["sentence"]
        assert a["sentence"] in finding["sentences"]  # the finding and the section: the same sentence
        assert li.startswith(claims.label(rec, name))
    rejected = [n for n, a in answers.items() if a["fixed"] and a["fixed"]["rejected"]]
    if outcome in ("C grows at a fixed C", "all at once"):
        assert rejected == ["lemma7"] and "the test rejects for Lemma 7" in claims.growth_sentence(rec)
        assert finding["status"] == "C grows"
    else:
        assert not rejected and "no test rejects" in claims.growth_sentence(rec)
        assert finding["status"] == "no growth seen"


def test_the_checks_above_can_fail(proofs_record):
    """A section that counted on its own would be caught: a summary row edited to another word disagrees with the
    banner's count, and a contents line with another count is not the banner's sentence."""
    from reports.build import render_html, render_sections

    rec = _base(proofs_record)
    rec["findings"] = findings.decide(rec)
    html = render_html(render_sections(rec), rec)
    bad = html.replace('<td><span class="pass tok">certified</span>', '<td><span class="warn tok">not proved</span>', 1)
    words = claims.proof_verdicts(rec)
    rows = sum(bool(re.search(r'<td><span class="[^"]*tok">not proved</span>', _row(bad, s))) for s in words)
    assert rows != claims.proof_counts(rec)["not proved"]
    rec2 = copy.deepcopy(rec)
    _refuted(rec2)
    assert claims.proof_sentence(rec2) not in _contents(html, "findings")
