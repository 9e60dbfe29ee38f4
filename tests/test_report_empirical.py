"""The report's "Bound versus empirical" section rendered from the empirical part of a real quick run record
(tests/data/empirical-record-sample.json: `slt.measure.empirical.measure("quick", 0, ...)`), and the decisions
of slt.measure.empirical (verdicts, tightness) that the record stores."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from reports.sections import empirical
from slt.measure import empirical as measuring
from slt.measure import catalogue
from slt.tasks import Task, resolve

SAMPLE = Path(__file__).with_name("data") / "empirical-record-sample.json"


@pytest.fixture
def rec(proofs_record):
    out = copy.deepcopy(proofs_record)
    out["empirical"] = json.loads(SAMPLE.read_text())
    return out


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
    from slt.measure import calibration

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
