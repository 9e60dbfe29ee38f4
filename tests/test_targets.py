"""Targets as adversaries: the families lie in each statement's hypothesis set, a family changes the target
and nothing else (common random numbers), the worst-target search finds the identity-type targets of Lemma 7 and
Theorem 9 from the harness's random start, and the C search reads non-monotone counts through an antitonic fit."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from slt import targets
from slt.measure import adversaries, stats
from slt.measure.sources import lemma7_pair
from slt.samplers import as_rng, spectral_matrices, target_mha

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("hypothesis", ["spectral", "max"])
def test_every_family_lies_in_the_hypothesis_set_and_is_what_it_says(hypothesis):
    rng = np.random.default_rng(0)
    fams = [f for f in targets.FAMILIES if f != "random" and (hypothesis == "max" or f not in targets.MAX_ONLY)]
    for shape in ((2, 2), (3, 2), (2, 4)):
        for f in fams:
            M = targets.family_matrix(f, rng, shape, hypothesis)
            norm = np.abs(M).max() if hypothesis == "max" else np.linalg.norm(M, 2)
            assert norm <= 1 + 1e-12 and (hypothesis == "max" or norm == pytest.approx(1.0)), (f, shape, M)
            if f in ("identity", "signed_permutation"):
                assert targets.classify(M) == ("signed_permutation" if min(shape) > 1 else "single_entry")
                assert targets.identity_type(M)
            if f in ("single_entry", "sign_matrix", "orthogonal"):
                assert targets.classify(M) == f, (f, M)
    with pytest.raises(targets.TargetError, match="outside the spectral ball"):
        targets.family_matrix("sign_matrix", rng, (2, 2), "spectral")
    with pytest.raises(targets.TargetError, match="unknown target family"):
        targets.family_matrix("nope", rng, (2, 2))


def test_a_family_replaces_the_target_and_keeps_the_sources():
    W0, A0, B0 = lemma7_pair(5, 2, 3, 12)
    W, A, B = lemma7_pair(5, 2, 3, 12, "identity")
    assert np.array_equal(A, A0) and np.array_equal(B, B0)
    assert np.array_equal(W, np.eye(3, 2)) and not np.array_equal(W0, W)
    mha = targets.apply(target_mha(as_rng(1), 2, 2, 2), "signed_permutation", 1)
    assert all(targets.classify(M) == "signed_permutation" for M in targets.matrices(mha))
    with pytest.raises(targets.TargetError, match="outside the spectral unit ball"):
        targets.apply(np.zeros((2, 2)), [[[2.0, 0.0], [0.0, 0.0]]], 0)
    assert targets.named("identity") == {"target": "identity"} and targets.named(None) == {}


def test_worst_target_search_finds_identity_type_targets_for_lemma7():
    """From the harness's random draw (seed 3) at the old calibrated C = 4, eps = 0.3, 2 x 2: in Lemma 4's set
    (||W|| <= 1) the search ends at a signed permutation up to a small rotation; in Lemma 7's (entries in [-1, 1]) at
    a matrix with every entry +-1. Both fail far more often than the random start on the same 40 sources."""
    from slt.measure.statements import lemma7

    draw = adversaries.random_draw("lemma7", {"d1": 2, "d2": 2})
    for hypothesis, found in (("spectral", targets.identity_type), ("max", lambda M: targets.classify(M) == "sign_matrix")):
        r = targets.search(lemma7.trial, 4.0, {"d1": 2, "d2": 2, "eps": 0.3}, range(100, 140), start_seed=3, steps=40,
                           hypothesis=hypothesis, draw=draw, rng=1)
        start = r["history"][0]["failures"]
        assert all(found(np.array(M)) for M in r["target"]), (hypothesis, r["target"])
        assert r["failures"] >= start + 10, (hypothesis, start, r["failures"])


def test_worst_target_search_finds_identity_type_targets_for_theorem9():
    """Theorem 9 at its old calibrated C = 1.4 (d1 = d2 = 2, H = 1, eps = 0.3): from the random draw every weight
    matrix (W_Q, W_K, W_V, W_O) ends orthogonal with one entry near +-1 per row, and fails on most of the seeds."""
    from slt.measure.statements import theorem9

    params = {"d1": 2, "d2": 2, "H": 1, "alpha": 2 ** 0.5, "eps": 0.3}
    r = targets.search(theorem9.trial, 1.4, params, range(100, 108), start_seed=3, steps=16,
                       draw=adversaries.random_draw("theorem9", params), rng=1)
    assert all(targets.identity_type(np.array(M), tol=0.1) for M in r["target"]), r["kinds"]
    assert r["failures"] >= 6 > r["history"][0]["failures"]


def test_antitonic_fit_pools_non_monotone_counts_and_reads_C_from_every_larger_C():
    rows = [{"C": 2.0, "failures": 20, "trials": 50}, {"C": 2.5, "failures": 11, "trials": 50},
            {"C": 3.0, "failures": 12, "trials": 50}, {"C": 4.0, "failures": 4, "trials": 60},
            {"C": 5.0, "failures": 0, "trials": 60}]
    fit = adversaries.antitonic(rows)
    assert fit[1]["fit_rate"] == fit[2]["fit_rate"] == pytest.approx(23 / 100)
    assert all(a["fit_rate"] >= b["fit_rate"] for a, b in zip(fit, fit[1:]))
    est = adversaries.antitonic_C(rows, 0.1)
    assert est["C_point"] == 4.0 and est["C_upper"] == 5.0  # 4/60: rate 0.067 <= 0.1 but upper 0.15 > 0.1
    # a failing C above passing ones moves C_upper above it (each C's own interval; no pooling across C)
    est = adversaries.antitonic_C(rows[:3] + [{"C": 4.0, "failures": 0, "trials": 60},
                                             {"C": 5.0, "failures": 5, "trials": 60},
                                             {"C": 6.0, "failures": 0, "trials": 60}], 0.1)
    assert est["C_upper"] == 6.0 and est["C_point"] == 4.0
    # a pass below a fail does not count: the smallest C from which every larger C passes
    est = adversaries.antitonic_C([{"C": 1.0, "failures": 0, "trials": 60}] + rows, 0.1)
    assert est["C_point"] == 4.0


def _committed_grids():
    """Every stored antitonic fit of the committed calibration files: grids of rows carrying ``fit_rate``."""
    found = []

    def walk(o):
        if isinstance(o, dict):
            grid = o.get("grid")
            if isinstance(grid, list) and grid and isinstance(grid[0], dict) and "fit_rate" in grid[0]:
                found.append(grid)
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    for path in sorted((ROOT / "slt" / "measure").glob("calibration*.json")):
        walk(json.loads(path.read_text()))
    return found


def _scipy_fit(rows):
    from scipy.optimize import isotonic_regression

    rates = [r["failures"] / r["trials"] for r in rows]
    return isotonic_regression(rates, weights=[r["trials"] for r in rows], increasing=False)


def test_the_antitonic_fit_is_scipys_isotonic_regression_on_the_committed_grids():
    """The hand-written pool-adjacent-violators fit stays (docs/dependencies.md): its fitted rates are SciPy's
    ``isotonic_regression(weights=trials, increasing=False)`` bit for bit on every committed grid, and it re-derives
    the stored fits; SciPy's blocks pool tied neighbours, which the stored ``pooled_*`` fields do not."""
    grids = _committed_grids()
    assert len(grids) >= 50
    tied = 0
    for grid in grids:
        rows = [{k: v for k, v in g.items() if k not in ("fit_rate", "pooled_failures", "pooled_trials")}
                for g in grid]
        fit = adversaries.antitonic(rows)
        assert fit == grid
        library = _scipy_fit(rows)
        assert [r["fit_rate"] for r in fit] == list(library.x)
        blocks = [(sum(r["failures"] for r in rows[a:b]), sum(r["trials"] for r in rows[a:b]))
                  for a, b in zip(library.blocks[:-1], library.blocks[1:]) for _ in range(a, b)]
        tied += blocks != [(r["pooled_failures"], r["pooled_trials"]) for r in fit]
    assert tied > 0  # the reason the hand-written fit stays: SciPy would store other pooled blocks


def test_the_comparison_with_scipy_fails_on_a_wrong_fit():
    rows = [{"C": 1.0, "failures": 3, "trials": 10}, {"C": 2.0, "failures": 5, "trials": 10}]
    raw = [r["failures"] / r["trials"] for r in rows]  # not antitonic: what an unfitted "fit" would store
    assert list(_scipy_fit(rows).x) != raw and list(_scipy_fit(rows).x) == [r["fit_rate"]
                                                                               for r in adversaries.antitonic(rows)]


def test_holm_controls_the_family_wise_error():
    assert stats.holm([0.001, 0.03, 0.04], 0.05) == [True, False, False]
    assert stats.holm([0.001, 0.02, 0.024], 0.05) == [True, True, True]
    assert stats.holm([0.2, 0.001], 0.01) == [False, True]


def test_family_rates_and_fixed_C_run_through_tasks(tmp_path):
    rows = adversaries.family_rates("lemma7", 4.0, {"d1": 2, "d2": 2, "eps": 0.3}, 20, 0,
                                    families=["random", "sign_matrix"], cache_dir=tmp_path, workers=0, progress=False)
    assert {r["family"] for r in rows} == {"random", "sign_matrix"} and rows[0]["family"] == "sign_matrix"
    assert rows[0]["failures"] > rows[1]["failures"]
    fixed = adversaries.fixed_C("lemma7", 4.0, {"d1": 2, "d2": 2, "target": "identity"}, [0.3, 0.1], 3.0, 0,
                                cache_dir=tmp_path, workers=0, progress=False)
    assert [r["trials"] for r in fixed] == [10, 30]


def test_slth_targets_usage_errors_exit_2():
    run = subprocess.run([sys.executable, "-m", "reports.cli", "targets", "families", "--statements", "lueker"],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "no target family" in run.stderr


def test_the_committed_worst_target_calibration_records_both_constants():
    from slt.measure import calibration

    data = json.loads(calibration.DEFAULT.read_text())
    for name, rec in data["statements"].items():
        if "worst_target" not in rec:
            continue
        assert rec["C_random"] is not None and rec["targets"]["worst"] == rec["worst_target"]
        assert all(p["target"] == rec["worst_target"] for p in rec["points"])


@pytest.mark.parametrize("c, word", [(1.6, "no growth"), (0.4, "grows")])
def test_failure_glm_recovers_a_planted_exponent_of_eps(c, word):
    """Counts drawn from logit p = 6 - 1.5 C + c log eps: the fitted exponent's bootstrap interval reads growth
    exactly when c < 1 (the GLM can fail: a planted growth is called growth)."""
    rng = np.random.default_rng(0)
    rows = []
    for eps in (0.3, 0.1, 0.03, 0.01, 0.003):
        for C in (4.0, 6.0, 8.0):
            p = 1 / (1 + np.exp(-(6 - 1.5 * C + c * np.log(eps))))
            n = int(300 / eps ** 0.5)
            rows.append({"C": C, "eps": eps, "failures": int(rng.binomial(n, p)), "trials": n})
    glm = adversaries.failure_glm(rows, bootstrap=60)
    lo, hi = glm["coefficients"]["log eps"]["ci"]
    assert lo <= c <= hi or abs(glm["coefficients"]["log eps"]["estimate"] - c) < 0.15
    assert glm["verdict"].startswith(word), glm["verdict"]


def test_rate_plan_states_the_family_wise_level_and_the_power_against_2_eps():
    from slt.measure import checking

    run = subprocess.run([sys.executable, "-m", "reports.cli", "rate", "--plan"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    m = checking.rate_tests("ci")
    assert f"[ci] {m} rate tests per run; family-wise error 0.05 (Holm)" in run.stdout
    assert f"{0.05 / m:.3g}" in run.stdout and "[thorough]" in run.stdout
    powers = [float(x) for x in re.findall(r"trials, power ([0-9.]+)", run.stdout)]
    assert powers and min(powers) >= 0.8, run.stdout


def test_the_worst_target_walk_gallops_up_confirms_and_fills_down():
    """Rows fail below index 5 and pass from 5 on: from index 1 the walk visits 1, 2, 4, 8 (first pass), 9
    (confirmation), then 7, 6, 5 (passes) down to 4 (the last failure, already seen): it stops there."""
    gen = adversaries._walk(12, 1, lambda r: r["i"] >= 5, passes=2)
    seen, i = [], next(gen)
    try:
        while True:
            seen.append(i)
            i = gen.send({"i": i})
    except StopIteration:
        pass
    assert seen == [1, 2, 4, 8, 9, 7, 6, 5]


def test_slth_rate_reports_the_failure_rate_per_target_family():
    """At the old Lemma 7 constant C = 4 the every-entry-+-1 target fails its rate test (exit 1) while the random
    targets pass, on the same 60 seeds."""
    run = subprocess.run([sys.executable, "-m", "reports.cli", "rate", "lemma7", "d1=2", "d2=2", "eps=0.1", "--C", "4",
                          "--trials", "60", "--families"], capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    lines = {line.split("target ")[1].split(":")[0]: line for line in run.stdout.splitlines() if "target " in line}
    assert set(lines) == set(targets.families("lemma7"))
    assert "-> fails" in lines["sign_matrix"] and "-> fails" not in lines["random"]


def test_the_run_record_carries_the_random_target_C_and_the_rate_per_family():
    from reports.record.assemble import _target_columns

    rec = {"C": 8.0, "C_random": 4.0, "worst_target": "sign_matrix", "worst_command": "slth targets calibrate",
           "targets": {"C": 4.0, "point": {"d1": 2, "d2": 2, "eps": 0.1}, "trials": 200, "worst": "sign_matrix",
                       "families": [{"family": "sign_matrix", "failures": 79, "trials": 200, "rate": 0.395,
                                     "pvalue": 1e-28, "passed": False, "cpu_s": 1.0}]}}
    out = _target_columns(rec)
    assert out["C_random"] == 4.0 and out["worst_target"] == "sign_matrix"
    assert out["targets"]["families"] == [{"family": "sign_matrix", "failures": 79, "trials": 200, "rate": 0.395,
                                           "pvalue": 1e-28, "passed": False}]
    assert _target_columns({"C": 20.0}) == {}


def test_lemma7_at_its_committed_constant_shows_no_excess_at_any_target_family():
    """The committed (worst-target) Lemma 7 constant holds at every family on 60 fresh seeds (the same seeds at the
    old random-target constant 4 fail at every entry +-1: test_slth_rate_reports_the_failure_rate_per_target_family)."""
    from slt.measure import calibration
    from slt.measure.probabilistic import failure_rate
    from slt.measure.statements import lemma7

    C = calibration.calibrated("lemma7")["C"]
    assert C > calibration.calibrated("lemma7")["C_random"]
    for fam in targets.families("lemma7"):
        test, _ = failure_rate(lemma7.trial, C, {"d1": 2, "d2": 2, "eps": 0.1, "target": fam}, 60, 500)
        assert test.verdict != "fails", (fam, test.describe())


REPRODUCED = ("lemma7", "lemma2", "theorem10", "theorem11")
"""The statements whose stored family table is re-run here (the cheap ones; Theorems 9 and 14 cost minutes)."""


@pytest.mark.parametrize("statement", REPRODUCED)
def test_a_worst_target_family_reproduces_its_stored_failures(statement, tmp_path):
    """The finding "worst-targets" (slt.measure.findings.worst_targets): at the random-target C the family table
    was measured at (committed calibration file, ``targets``), the worst family's and the random targets' stored
    failure counts are reproduced exactly on the same seeds, and the worst family's is the larger."""
    from slt.measure import calibration

    t = json.loads(calibration.DEFAULT.read_text())["statements"][statement]["targets"]
    stored = {f["family"]: f for f in t["families"]}
    rows = adversaries.family_rates(statement, t["C"], t["point"], t["trials"], t["seed"],
                                    families=[t["worst"], "random"], cache_dir=tmp_path, workers=0, progress=False)
    got = {r["family"]: r for r in rows}
    for fam in (t["worst"], "random"):
        assert got[fam]["failures"] == stored[fam]["failures"], (fam, got[fam], stored[fam])
        assert got[fam]["passed"] == stored[fam]["passed"]
    assert got[t["worst"]]["failures"] > got["random"]["failures"]


@pytest.mark.parametrize("statement", ["lemma7", "theorem10"])
def test_a_stored_fixed_C_row_reproduces(statement, tmp_path):
    """The finding "fixed-c-growth" (slt.measure.findings.fixed_c_growth): the two largest-eps rows of the stored
    fixed-C tests (committed calibration file, ``growth``) are reproduced exactly by ``adversaries.fixed_C`` on the
    same seeds (the cheap statements; the smaller eps rows cost minutes)."""
    from slt.measure import calibration

    g = json.loads(calibration.DEFAULT.read_text())["statements"][statement]["growth"]
    stored = sorted(g["rows"], key=lambda r: -r["eps"])
    eps = [r["eps"] for r in g["rows"]]  # the stored order: the row index fixes the seed
    per = stored[0]["trials"] * stored[0]["eps"]
    rows = adversaries.fixed_C(statement, g["C"], {**g["params"], "target": g["target"]}, eps[:2], round(per),
                               seed=int(g["command"].split("--seed ")[1].split()[0]) if "--seed " in g["command"]
                               else 20260121, cache_dir=tmp_path, workers=0, progress=False)
    for got, want in zip(rows, stored[:2]):
        assert (got["eps"], got["failures"], got["trials"]) == (want["eps"], want["failures"], want["trials"])


def test_failure_glm_says_c_is_not_identified_when_failures_sit_at_one_eps():
    """Theorem 9's case: failures only in the calibration rows at eps = 0.3, none at the fixed C over eps = 0.3 ..
    0.003: the likelihood separates and the fitted c (11-21 there) means nothing; the verdict must not read it."""
    rows = [{"C": C, "eps": 0.3, "failures": k, "trials": 30} for C, k in ((1.4, 28), (2.0, 20), (5.0, 3), (8.0, 0))]
    rows += [{"C": 8.0, "eps": e, "failures": 0, "trials": int(14 / e) + 1} for e in (0.1, 0.03, 0.01)]
    glm = adversaries.failure_glm(rows, bootstrap=20)
    assert glm["verdict"].startswith("undecided: failures occur at one eps only (0.3)"), glm["verdict"]
