"""The report's summary, plots, formulas and layout (rendering only; the browser test opens the whole page)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sympy as sp

from reports import layout, plots
from reports.sections import summary

SAMPLE = Path(__file__).with_name("data") / "empirical-record-sample.json"


def _rate(failures, trials, eps, interval, passed=True):
    return {"params": {"eps": eps}, "failures": failures, "trials": trials, "interval": interval, "pvalue": 0.5,
            "passed": passed, "power": None}


def test_a_verdict_is_stated_only_when_its_interval_decides_it():
    from slt.measure.empirical import rate_decision  # decided by the library, stored in the record, rendered

    assert rate_decision(_rate(0, 20, 0.1, [0.0, 0.168]))["word"] == "undecided at this power"
    assert rate_decision(_rate(0, 200, 0.1, [0.0, 0.018]))["word"] == "holds"
    assert rate_decision(_rate(9, 20, 0.1, [0.23, 0.68], passed=False))["word"] == "fails"
    rendered = summary.rate_verdict({"decision": rate_decision(_rate(0, 200, 0.1, [0.0, 0.018]))})
    assert rendered["word"] == "holds" and rendered["css"] == "pass"


@pytest.mark.parametrize("numbering, expected", [
    ({"main": "(appendix only)", "appendix": "Lemma 12"}, "Lemma 12 (appendix only)"),
    ({"main": "Theorem 11 (appendix only)", "appendix": "Theorem 11"}, "Theorem 11 (appendix only)"),
    ({"main": "Theorem 3", "appendix": "Theorem 9"}, "Theorem 9 (main text: Theorem 3)"),
    ({"main": "Lemma 2", "appendix": "Lemma 2"}, "Lemma 2"),
])
def test_headings_have_no_doubled_parentheses(numbering, expected):
    assert summary.heading(numbering, "x") == expected


def test_piecewise_renders_as_cases_in_mathml():
    from slt.mathml import mathml

    b = sp.Symbol("b")
    out = mathml(sp.Piecewise((2 * b, b > 1), (1, True)))
    assert "piecewise" not in out.lower() and out.count("<mtr>") == 2 and "otherwise" in out
    import bounds

    for w, expr in bounds.get("theorem14").widths.items():
        assert "piecewise" not in mathml(expr).lower(), w


def test_plots_mark_the_bound_and_carry_values_on_hover():
    svg = plots.svg_plot([{"label": "a <b>", "x": [1, 2, 4], "y": [0.1, 0.0, 2.0], "line": True}],
                         title="t & u", xlabel="n", ylabel="ratio", ylog=True, hlines=[(1.0, "bound", "#000")],
                         vlines=[(3, "required n", "#f00")], plot_id="p")
    assert "a &lt;b&gt;" in svg and "t &amp; u" in svg and "<b>" not in svg
    assert svg.count('data-tip="a &lt;b&gt;') == 2  # y = 0 cannot be drawn on a log axis; the others are
    assert "bound: 1" in svg and "required n: 3" in svg and 'class="plot zoom"' in svg
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", svg)


def test_zero_failures_plot_the_upper_bound_not_error_bars():
    cal = {"C": 2.0, "C_low": 1.0, "C_high": 2.0, "curves": [
        {"point": {"eps": 0.1}, "C_point": 1.0, "C_upper": 2.0, "required": {"n": 20},
         "grid": [{"C": 1.0, "failures": 0, "trials": 30, "upper": 0.095, "worst_ratio": 0.5, "widths": {"n": 10}},
                  {"C": 2.0, "failures": 0, "trials": 30, "upper": 0.095, "worst_ratio": 0.1, "widths": {"n": 20}}]}]}
    from reports.sections.evidence import calibration_plots

    block = calibration_plots("lemma7", cal)
    width_plot, rate_plot = block["plots"]
    assert "required n at C = 2" in width_plot and "eps: the bound" in width_plot
    assert "0/30 failures, 95% upper bound 0.095" in rate_plot and "calibrated C = 2" in rate_plot


def test_long_tables_are_collapsed_with_their_columns_named():
    rows = "".join(f"<tr><td>{i}</td></tr>" for i in range(30))
    html = f"<p>30 rows</p><table><tr><th>step</th><th>status</th></tr>{rows}</table>"
    out = layout.collapse_long_tables(html)
    assert out.startswith("<p>30 rows</p><details") and "table of 30 rows (step, status)" in out
    short = "<table><tr><th>a</th></tr><tr><td>1</td></tr></table>"
    assert layout.collapse_long_tables(short) == short


def test_the_summary_lists_every_statement_first(proofs_record):
    """The findings open the page (tests/test_report_findings.py); the summary of every statement follows."""
    from reports.build import render_html, render_sections

    rec = dict(proofs_record, empirical=json.loads(SAMPLE.read_text()), profile="quick")
    sections = render_sections(rec)
    assert [s.id for s in sections[:2]] == ["findings", "summary"]
    html = sections[1].html
    for st in rec["statements"]:
        assert f'id="summary-{st["name"]}"' in html and f'href="#st-{st["name"]}"' in html
    assert "undecided at this power" in html and "quick profile" in html
    page = render_html(sections, rec)
    headings = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<h[23][^>]*>(.*?)</h[23]>", page, re.S)]
    assert len(headings) > len(rec["statements"]) and not [h for h in headings if "((" in h or "))" in h]
    ids = set(re.findall(r'id="([^"]+)"', page))
    assert {h[1:] for h in re.findall(r'href="(#[^"]+)"', page)} <= ids


def test_contents_entries_are_escaped_once():
    """A heading with an apostrophe or escaped markup reads the same in the table of contents: escaped once by the
    template (the fresh-clone report showed "Lueker&#39;s" there), and markup stays text."""
    from reports.layout import subsections
    from reports.render import environment

    html = '<h3 id="a">Lueker&#39;s corollary</h3><h4 id="b">&lt;img src=x onerror=alert(1)&gt; <i>x</i></h4>'
    assert subsections(html) == [("a", "Lueker's corollary"), ("b", "<img src=x onerror=alert(1)> x")]
    # the contents line of reports/templates/report.html, rendered in the report's own environment
    line = next(l for l in (Path(layout.__file__).parent / "templates" / "report.html").read_text().splitlines()
                if "toc[s.id]" in l)
    rendered = environment().from_string(line).render(s={"id": "x"}, toc={"x": subsections(html)})
    assert "Lueker&#39;s corollary" in rendered and "&amp;#39;" not in rendered
    assert "<img" not in rendered and "&lt;img src=x onerror=alert(1)&gt;" in rendered


def test_internal_names_read_as_words_and_labels_stay_text():
    from reports.layout import in_words

    labels = {"lemma13": "Lemma 13", "lemma2": "Lemma 2", "lueker": "<script>x()</script>"}
    page = ('<p id="st-lemma2">stored:lemma13:printed; rate:lemma2; lemma13:printed; lemma5:L5b; above: False; '
            '/work/runs/tasks; lemma2 and lueker</p><code>rerun lemma13 stored=True</code>'
            '<a href="#variant-lemma13-printed" data-node="lemma2">x</a>')
    out = in_words(page, labels, {"printed"})
    assert ("stored counterexample of Lemma 13 as printed; failure rate of Lemma 2; Lemma 13 as printed; "
            "lemma5, step L5b; above: no; .../tasks; Lemma 2 and &lt;script&gt;") in out
    assert "<code>rerun lemma13 stored=True</code>" in out  # a command stays one to copy
    assert 'id="st-lemma2"' in out and 'href="#variant-lemma13-printed" data-node="lemma2"' in out
    assert "<script>x()" not in out
