"""A committed full-power empirical record (``slt.measure.committed``): more trials decide an
undecided point, the default (quick) report uses the committed record only when it was made at this run's
constants, and the page says which measurements the reader is looking at."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from slt.measure import committed, stats, verdicts
from slt.measure import empirical as measuring
from slt.measure import calibration

SAMPLE = Path(__file__).with_name("data") / "empirical-record-sample.json"


def _rate(failures, trials, eps=0.2, statement="theorem9", ratio=0.5):
    test = stats.excess_test(failures, trials, eps)
    out = {"id": f"rate:{statement}:eps={eps}", "statement": statement, "kind": "rate", "params": {"eps": eps},
           "C": 2.1, "widths": {}, "failures": failures, "trials": trials, "rate": test.rate,
           "interval": list(test.interval), "pvalue": test.pvalue, "level": test.level, "power": None,
           "passed": test.passed, "worst": 0.1, "bound": eps, "ratio": ratio, "command": "cmd",
           "failing_commands": []}
    out["decision"] = verdicts.rate_decision(out)
    out["verdict"] = out["decision"]["word"]
    return out


def test_more_trials_on_fresh_seeds_decide_an_undecided_point():
    first = _rate(0, 6)  # [0, 0.46]: undecided at eps = 0.2
    assert first["verdict"] == verdicts.UNDECIDED
    merged = committed.merge_rate(first, _rate(0, 30, ratio=0.9))
    assert (merged["failures"], merged["trials"], merged["verdict"]) == (0, 36, verdicts.HOLDS)
    assert merged["ratio"] == 0.9 and merged["interval"][1] <= 0.2
    failing = committed.merge_rate(first, _rate(20, 30))
    assert failing["verdict"] == verdicts.FAILS


def test_extend_runs_disjoint_seeds_until_decided_or_the_cap():
    emp = {"checks": [_rate(0, 6), _rate(0, 6, eps=0.05, statement="lemma7")], "tightness": [],
           "verdicts": {}, "decisions": {}}
    calls = []

    def run(tasks):
        calls.append([(t.seed, t.params["trials"]) for t in tasks])
        return [{**_rate(0, t.params["trials"], t.params["params"]["eps"], t.params["statement"])} for t in tasks]

    out = committed.extend(emp, 1000, 60, run, log=lambda m: None)
    by = {c["statement"]: c for c in out["checks"]}
    assert by["theorem9"]["verdict"] == verdicts.HOLDS and by["theorem9"]["trials"] == 24  # 6 + 6 + 12
    assert by["lemma7"]["trials"] == 48 and by["lemma7"]["verdict"] == verdicts.UNDECIDED  # 96 > 60: stops
    assert out["verdicts"]["lemma7"] == verdicts.UNDECIDED
    seeds = [s for call in calls for s, _ in call]
    assert seeds == sorted(seeds) or len(set(seeds)) == len(seeds)  # each round on seeds after the last


def _write(tmp_path, constants, checks=None, targets=None):
    emp = json.loads(SAMPLE.read_text())
    if checks is not None:
        emp["checks"] = checks
    if targets is None:
        targets = {k: v for k, v in measuring.worst_targets(calibration.load()).items() if v}
    doc = committed.document(emp, constants, "python -m slt.measure.committed", 0, 1.0, targets)
    path = tmp_path / "empirical-full.json"
    committed.write(path, doc)
    return path


def test_the_quick_default_uses_the_committed_record_at_the_same_constants(tmp_path):
    calib = calibration.load()
    own = json.loads(SAMPLE.read_text())
    path = _write(tmp_path, measuring.constants(calib))
    data, source = committed.select(own, "quick", calib, path)
    assert source["kind"] == "committed" and source["file"] and source["command"].startswith("python -m")
    shipped = [c for c in json.loads(path.read_text())["empirical"]["checks"] if c["kind"] == "rate"]
    assert [c for c in data["checks"] if c["kind"] == "rate"] == shipped  # the failure rates: committed
    assert [c for c in data["checks"] if c["kind"] != "rate"] == [c for c in own["checks"] if c["kind"] != "rate"]
    rated = {c["statement"] for c in own["checks"] if c["kind"] == "rate"}
    assert source["own_quick"] == verdicts.counts(v for k, v in own["verdicts"].items() if k in rated)
    assert data["verdicts"]["lemma13:printed"] == own["verdicts"]["lemma13:printed"]
    # a full run shows its own measurements
    assert committed.select(own, "full", calib, path)[1]["kind"] == "this run"
    # other constants: not used, and the reason names the statement and both constants
    other = {**measuring.constants(calib), "theorem9": 99.0}
    data, source = committed.select(own, "quick", calib, _write(tmp_path, other))
    assert data is own and source["kind"] == "this run" and "theorem9: 99.0 then, 2.1 now" in source["why"].replace(
        str(measuring.constants(calib)["theorem9"]), "2.1")
    # other target families: not used, and the reason names the statement and both families
    moved = {**{k: v for k, v in measuring.worst_targets(calib).items() if v}, "lemma7": "identity"}
    data, source = committed.select(own, "quick", calib, _write(tmp_path, measuring.constants(calib), targets=moved))
    assert data is own and "lemma7: identity then, sign_matrix now" in source["why"]
    # none at all
    assert "no committed" in committed.select(own, "quick", calib, tmp_path / "none.json")[1]["why"]


def test_a_committed_record_whose_verdict_disagrees_with_its_counts_is_refused(tmp_path):
    calib = calibration.load()
    bad = json.loads(SAMPLE.read_text())["checks"]
    rate = next(c for c in bad if c["kind"] == "rate")
    rate["verdict"] = verdicts.HOLDS if rate["verdict"] != verdicts.HOLDS else verdicts.FAILS
    with pytest.raises(committed.CommittedError, match=r"checks\[\d+\]\.verdict"):
        _write(tmp_path, measuring.constants(calib), bad)
    path = tmp_path / "forged.json"
    doc = committed.document(json.loads(SAMPLE.read_text()), measuring.constants(calib), "x", 0, 1.0)
    doc["empirical"]["checks"] = bad
    path.write_text(json.dumps(doc))
    data, source = committed.select(json.loads(SAMPLE.read_text()), "quick", calib, path)
    assert source["kind"] == "this run" and "forged.json" in source["why"] and "disagrees" in source["why"]


def test_the_page_says_which_measurements_it_shows(proofs_record, tmp_path):
    from reports.build import render_html, render_sections

    calib = calibration.load()
    own = json.loads(SAMPLE.read_text())
    data, source = committed.select(own, "quick", calib, _write(tmp_path, measuring.constants(calib)))
    rec = copy.deepcopy(proofs_record)
    rec.update(empirical=data, empirical_source=source, profile="quick")
    html = render_html(render_sections(rec), rec)
    assert "committed full-power record" in html and source["command"] in html
    assert "This is a quick run" not in html
    rec["empirical_source"] = {**source, "kind": "this run", "profile": "quick", "why": "no committed record here"}
    html = render_html(render_sections(rec), rec)
    assert "this run&#39;s own (quick profile)" in html and "No committed record here" in html


def test_the_shipped_record_is_valid_current_and_decides_or_the_page_says_why():
    calib = calibration.load()
    own = json.loads(SAMPLE.read_text())
    doc = committed.load()
    data, source = committed.select(own, "quick", calib)
    if doc is None:
        assert "no committed full-power record" in source["why"]
        return
    if doc["provenance"]["constants"] != measuring.constants(calib):
        assert "other constants" in source["why"]  # said on the page, not hidden
        return
    assert source["kind"] == "committed"
    assert {c["statement"] for c in doc["empirical"]["checks"] if c["kind"] == "rate"} >= {
        c["statement"] for c in own["checks"] if c["kind"] == "rate"}  # every probabilistic statement
    planned = {(t.kind, json.dumps(t.params["params"], sort_keys=True), t.params["trials"])
               for t in committed.rate_tasks(doc["provenance"]["seed"], calib)}
    shipped = {(f"empirical:rate:{c['statement']}", json.dumps(c["params"], sort_keys=True)) for c in
               doc["empirical"]["checks"] if c["kind"] == "rate"}
    assert {p[:2] for p in planned} == shipped  # the points of today's plan, at today's constants
    left = committed.undecided(data)
    # every probabilistic statement decided, or the record says why not (points that reached the trial cap)
    assert len(source["undecided"]) == len(left)  # each named on the page with its counts
    for c in left:
        assert c["trials"] * 2 > 2000 or "--max-trials" in doc["provenance"]["command"], c["id"]
