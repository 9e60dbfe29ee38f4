"""Readable numbers: the summary flags a statement whose checks build below its large-grid C,
notation is rendered, rate plots run against a parameter, build constants and commands carry no float noise,
tightness above 1 of a probabilistic statement is explained, booleans read yes/no, and no absolute path of the
machine that built the record reaches the page."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from reports.render import fmt, notation
from reports.sections import empirical, evidence, summary
from slt.measure import calibration
from slt.measure import empirical as measuring

SAMPLE = Path(__file__).with_name("data") / "empirical-record-sample.json"


def _record(proofs_record):
    rec = copy.deepcopy(proofs_record)
    rec["empirical"] = json.loads(SAMPLE.read_text())
    rec["profile"] = "quick"
    return rec


def test_the_summary_flags_checks_built_below_the_large_grid_C(proofs_record):
    rec = _record(proofs_record)
    large = rec["calibration"]["large"]["statements"]
    large["theorem9"]["checks"] = {"C": 1.4, "safety": 1.5, "build_C": 2.1, "covers": False}
    large["theorem9"]["C"] = 3.0
    large["lemma7"]["checks"] = {"C": 4.0, "safety": 1.5, "build_C": 6.0, "covers": True}
    html = summary.render(rec).html
    row9 = re.search(r'<tr id="summary-theorem9">(.*?)</tr>', html, re.S).group(1)
    row7 = re.search(r'<tr id="summary-lemma7">(.*?)</tr>', html, re.S).group(1)
    assert "checks build at 2.1, below the large grid's C = 3" in row9 and 'href="#calibration-trend"' in row9
    assert "below the large grid" not in row7


def test_build_constants_and_commands_without_float_noise(monkeypatch):
    assert 1.5 * 1.4 == 2.0999999999999996  # the float noise a command would show (the old safety factor 1.5)
    with monkeypatch.context() as m:
        m.setattr(calibration, "SAFETY", 1.5)
        assert calibration.build_constant(1.4) == 2.1
    assert calibration.build_constant(1.4) == calibration.SAFETY * 1.4
    C = measuring.constants(calibration.load())
    tasks = measuring.tasks("quick", 0, C)
    for t in tasks:
        if isinstance(t.params.get("C"), float):
            assert len(repr(t.params["C"])) <= 12, (t.kind, t.params["C"])  # 2.1, not 2.0999999999999996
    lueker = [t.params["params"]["eps"] for t in tasks if t.kind == "empirical:rate:lueker"]
    assert lueker and all(len(repr(e)) <= 6 for e in lueker), lueker  # the eps floor to 3 decimals


def test_notation_is_rendered_and_escaped():
    assert str(notation("n_K^{1/4}")) == "n<sub>K</sub><sup>1/4</sup>"
    assert str(notation("|1 - exp(e_j)/Z|")) == "|1 - exp(e<sub>j</sub>)/Z|"
    assert str(notation("eps_max <b>")) == "eps_max &lt;b&gt;"  # long names kept; markup from a record escaped
    assert fmt(True) == "yes" and fmt(False) == "no" and fmt({"violated": False}) == "violated=no"


def test_rate_plots_run_against_a_parameter(proofs_record):
    html = empirical.render(_record(proofs_record)).html
    assert "check number" not in html
    assert "failure rate at the checked width against eps" in html  # e.g. Lueker's points differ in eps only


def test_tightness_above_one_is_explained(proofs_record):
    rec = _record(proofs_record)
    over = next(t for t in rec["empirical"]["tightness"] if t["check"] == "rate:lueker")
    over["ratio"] = 1.4
    emp_html = empirical.render(rec).html
    assert "above 1 at some source: the bound holds with probability 1 - eps" in emp_html
    assert "Above 1 for lueker" in evidence.render(rec).html
    html = summary.render(rec).html
    row = re.search(r'<tr id="summary-lueker">(.*?)</tr>', html, re.S).group(1)
    assert 'href="#summary-above-one"' in row  # the row links to the one explanation, stated once
    note = re.search(r'<span id="summary-above-one">(.*?)</span>', html, re.S).group(1)
    assert "may be exceeded at a fraction eps of sources" in note


def test_no_absolute_path_of_the_building_machine(proofs_record):
    from reports.build import render_html, render_sections
    from reports.record.provenance import ROOT

    rec = _record(proofs_record)
    html = render_html(render_sections(rec), rec)
    assert str(ROOT) not in html and not rec["calibration"]["file"].startswith("/")


def test_the_summary_flags_a_constant_calibrated_on_random_targets_only(proofs_record):
    """A statement with a target matrix and no worst-target C in the record's calibration carries
    "random targets only" in its empirical and C cells; one with a worst-target C does not."""
    from slt.measure import findings

    rec = _record(proofs_record)
    cal = rec["calibration"]["statements"]
    cal["theorem9"].update(C_random=1.4, worst_target="identity")
    for key in ("C_random", "worst_target"):
        cal["theorem11"].pop(key, None)
    rec["findings"] = findings.decide(rec)
    html = summary.render(rec).html
    row9 = re.search(r'<tr id="summary-theorem9">(.*?)</tr>', html, re.S).group(1)
    row11 = re.search(r'<tr id="summary-theorem11">(.*?)</tr>', html, re.S).group(1)
    cells = re.findall(r"<td.*?</td>", row11, re.S)
    assert "random targets only" in cells[2] and "random targets only" in cells[4]  # empirical and C cells
    assert 'href="#findings-worst-targets"' in row11
    cells9 = re.findall(r"<td.*?</td>", row9, re.S)
    assert "random targets only" not in cells9[2] + cells9[4]  # (its findings cell links the finding's title)
    cal["theorem11"].update(C_random=2.0, worst_target="identity")  # recalibrated: the flag goes
    rec["findings"] = findings.decide(rec)
    row11 = re.search(r'<tr id="summary-theorem11">(.*?)</tr>', summary.render(rec).html, re.S).group(1)
    cells = re.findall(r"<td.*?</td>", row11, re.S)
    assert "random targets only" not in cells[2] + cells[4]


def test_the_calibration_blocks_show_the_failures_per_target_family(proofs_record):
    """Each calibrated statement's block shows the failures per target family stored in the
    record (``calibration.statements.<name>.targets``), and no table where none is stored."""
    rec = _record(proofs_record)
    cal = rec["calibration"]["statements"]
    html = evidence.render(rec).html
    shown = [n for n, c in cal.items() if c.get("targets")]
    assert shown
    for name in shown:
        t = cal[name]["targets"]
        start = html.index(f'id="evidence-{name}-targets"')
        table = html[start:html.index("</table>", start)]
        for f in t["families"]:
            assert f"<td>{f['family']}</td><td>{f['failures']}/{f['trials']}</td>" in table
    assert all(f'id="evidence-{n}-targets"' not in html for n, c in cal.items() if not c.get("targets"))
    cal[shown[0]].pop("targets")
    assert f'id="evidence-{shown[0]}-targets"' not in evidence.render(rec).html
