"""The report's "Bound versus empirical" section rendered from the empirical part of a real quick run record
(tests/data/empirical-record-sample.json: `slt.measure.empirical.measure("quick", 0, ...)`), and the decisions
of slt.measure.empirical (verdicts, tightness) that the record stores."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import markupsafe
import pytest

from reports.sections import empirical
from slt.measure import empirical as measuring
from slt.measure import calibration, catalogue
from slt.tasks import Task, resolve

SAMPLE = Path(__file__).with_name("data") / "empirical-record-sample.json"


TITLES = {  # the report's headings before they moved into the statements' Numerics
    "length:lemma8": "Lemma 8: length independence", "length:lemma5": "Lemma 8 with eps_max <= 1/2: length independence",
    "length:theorem9": "Theorem 9: length independence of one ticket",
    "chain:theorem9": "Theorem 9: a-posteriori chain (per step, worst ratio over inputs)",
    "search:lemma12": "Lemma 12 (||x'|| <= alpha): adversarial search",
    "search:lemma12:printed": "Lemma 12 as printed (||x'|| up to alpha + eps_max)",
    "search:lemma13": "Lemma 13, proof's form (factor 2): adversarial search",
    "search:lemma13:printed": "Lemma 13 as printed (no factor 2): adversarial search",
    "stored:lemma13:printed": "Lemma 13 as printed: the stored counterexample (mpmath)",
}


def _decided(sample: dict) -> dict:
    """The sample's measurements decided again by ``slt.measure.empirical.decide`` under the kinds the quick plan
    gives them: the empirical part ``slth run`` writes today (with each search's title from the catalogue)."""
    plan = {t.kind for t in measuring.tasks("quick", 0, measuring.constants(calibration.load()))}
    pairs = []
    for c in sample["checks"]:
        if c["kind"] == "rate":
            res = {k: v for k, v in c.items() if k not in ("id", "statement", "kind", "verdict", "decision")}
            pairs.append((f"empirical:rate:{c['statement']}", res))
        elif c["kind"] == "length":
            pairs.append((f"empirical:{c['id']}", sample["length_sweeps"][c["statement"]]))
        else:
            pairs.append((f"empirical:{c['id']}", {"cases": c["cases"]}))
    assert {kind for kind, _ in pairs} <= plan  # every measurement is one the run plans
    out = measuring.decide([_task(kind) for kind, _ in pairs], [res for _, res in pairs])
    return {**sample, **{k: out[k] for k in ("checks", "tightness", "length_sweeps", "verdicts", "decisions")}}


@pytest.fixture
def old(proofs_record):
    """A record written before the headings were stored in it (the committed sample)."""
    out = copy.deepcopy(proofs_record)
    out["empirical"] = json.loads(SAMPLE.read_text())
    return out


@pytest.fixture
def rec(old):
    return {**old, "empirical": _decided(old["empirical"])}


def test_the_record_stores_each_search_title_and_the_report_shows_it_escaped(rec):
    stored = {c["id"]: c["title"] for c in rec["empirical"]["checks"] if "title" in c}
    assert stored == TITLES
    for name, sweep in rec["empirical"]["length_sweeps"].items():
        assert sweep["title"] == TITLES[f"length:{name}"]
    html = empirical.render(rec).html
    for title in TITLES.values():
        assert f">{markupsafe.escape(title)}</h3>" in html, title
    assert "<= alpha" not in html  # plain text, escaped


def test_a_record_without_titles_shows_the_ids(old):
    html = empirical.render(old).html
    for check_id in TITLES:
        assert f">{check_id}</h3>" in html, check_id
    for title in TITLES.values():
        assert f">{markupsafe.escape(title)}</h3>" not in html


def test_a_title_is_rendered_as_text(old):
    check = next(c for c in old["empirical"]["checks"] if "cases" in c)
    check["title"] = "<script>alert(1)</script>"
    old["empirical"]["length_sweeps"]["lemma8"]["title"] = "<b>sweep</b>"
    html = empirical.render(old).html
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>sweep" not in html and "&lt;b&gt;sweep&lt;/b&gt;" in html


def test_every_measured_statement_gets_a_plot_a_table_and_a_verdict(rec):
    section = empirical.render(rec)
    rates = [c for c in rec["empirical"]["checks"] if c["kind"] == "rate"]
    names = {c["statement"] for c in rates}
    assert names >= {"lueker", "lemma7", "lemma2", "theorem9", "theorem10", "theorem11", "theorem14"}
    for name in names:
        assert re.search(f"<h3>{name}</h3>(<img|<figure)", section.html), name  # its plot right below
    for name in rec["calibration"]["statements"]:
        assert f"<td>{name}</td>" in section.html
    for title in ("Lemma 8: length independence", "Theorem 9: length independence of one ticket",
                  "Lemma 13 as printed", "Tightness"):
        assert title in section.html
    for word in ("holds", "undecided at this power", "fails"):  # each row shows its own verdict, styled by it
        shown = len(re.findall(f'<td><span class="[a-z]+">{word}</span>(?:</td>|<br><small>)', section.html))
        assert shown == sum(c["verdict"] == word for c in rates) + sum(
            v == word for v in rec["empirical"]["verdicts"].values()), word
    assert ">pass<" not in section.html
    assert "Counterexample" in section.html  # Lemma 13 as printed: the stored counterexample


def test_a_failed_rate_is_shown_as_a_failure_with_its_rerun_command(rec):
    first = next(c for c in rec["empirical"]["checks"] if c["kind"] == "rate")
    first.update(passed=False, verdict="fails")
    section = empirical.render(rec)
    assert '<span class="fail">fails</span>' in section.html
    assert first["command"].split(" --seed")[0] in section.html


def test_a_proof_only_record_says_it_measured_nothing(proofs_record):
    section = empirical.render(proofs_record)
    assert "holds no empirical measurements" in section.html and "<img" not in section.html


def _task(kind):
    return Task(kind, measuring.rate, {}, 0)


def test_decisions_verdicts_and_tightness():
    rate = {"statement": "lemma7", "params": {"d1": 2, "eps": 0.1}, "C": 6.0, "widths": {"n": 8}, "failures": 9,
            "trials": 10, "rate": 0.9, "interval": [0.55, 0.99], "pvalue": 1e-8, "level": 0.01, "power": None,
            "passed": False, "worst": 0.5, "bound": 0.1, "ratio": 5.0, "command": "cmd", "failing_commands": []}
    case = {"parameters": {"T": 3}, "seed": 0, "measured": 2.0, "bound": 1.0, "ratio": 2.0, "violated": True,
            "command": "cmd2", "detail": "", "counterexample": {"X": [[1.0]]}}
    sweep = {"info": {"d1": 2}, "rows": [{"T": 2, "random": 0.1, "adversarial": 0.2, "bound": 1.0, "lipschitz": 1.0,
                                          "violated": False}]}
    out = measuring.decide([_task("empirical:rate:lemma7"), _task("empirical:search:lemma12:printed"),
                            _task("empirical:length:lemma8")], [rate, {"cases": [case]}, sweep])
    assert out["verdicts"] == {"lemma7": "fails", "lemma12:printed": "fails", "lemma8": "holds"}
    assert [c["verdict"] for c in out["checks"]] == ["fails", "fails", "holds"]
    assert {t["statement"]: t["ratio"] for t in out["tightness"]} == {"lemma7": 5.0, "lemma12:printed": 2.0,
                                                                      "lemma8": 0.2}


def test_the_plan_uses_the_catalogue_and_each_task_names_a_function():
    C = measuring.constants(calibration.load())
    quick = measuring.tasks("quick", 0, C)
    assert {t.kind.split(":")[2] for t in quick if ":rate:" in t.kind} == {
        name for name in catalogue.names() if catalogue.get(name).rate_points}
    for t in quick:
        assert callable(resolve(t.fn)) and t.seed == 0
    full = measuring.tasks("full", 0, C)
    assert sum(t.params.get("trials", 0) for t in full) > sum(t.params.get("trials", 0) for t in quick)
    with pytest.raises(ValueError, match="profile"):
        measuring.tasks("huge", 0, C)


def test_a_rate_task_runs_in_process_and_records_the_test():
    out = measuring.rate(seed=0, statement="lemma7", C=6.0, params={"d1": 2, "d2": 2, "eps": 0.3}, trials=5)
    assert out["trials"] == 5 and 0 <= out["failures"] <= 5 and out["command"].startswith("python -m slt.measure")
    assert out["interval"][0] <= out["rate"] <= out["interval"][1]
    assert 0.3 < out["power"]["detectable_rate"] <= 1 and out["power"]["meets_target"] is False  # 5 trials: weak
    json.dumps(out)  # JSON-able, as the task API requires


def test_every_planned_rate_check_can_reject():
    from slt.measure.stats import LEVEL

    from slt.measure import calibration

    for profile in ("quick", "full"):
        for t in measuring.tasks(profile, 0, measuring.constants(calibration.load())):
            if ":rate:" in t.kind:
                assert t.params["params"]["eps"] ** t.params["trials"] <= LEVEL, t
