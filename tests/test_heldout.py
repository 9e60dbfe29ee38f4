"""The held-out test of the law (``slt.measure.heldout``): the design lies outside every grid, is committed with the
calibration's hash, and the verdict function never reads an unfinished or failing point as a pass."""
import copy
import json

import pytest

from slt.measure import heldout, stats


@pytest.fixture(scope="module")
def design():
    return heldout.load_design()


def test_the_committed_design_is_the_one_the_code_makes_from_the_committed_calibration(design):
    assert design == json.loads(json.dumps(heldout.make_design()))
    assert design["calibration"]["sha256"] == heldout.sha256(heldout.CALIBRATION_FILE)


def test_every_held_out_point_lies_outside_every_grid_by_the_stated_ratio(design):
    for p in design["points"]:
        ratio = heldout.outside(p["statement"], p["factor"], p["value"])
        need = heldout.RATIOS.get(p["factor"], 1.0)
        assert ratio >= need and (p["factor"] != "eps" or ratio > 1), (p["id"], ratio, need)
    eps = {p["statement"]: min(q["value"] for q in design["points"] if q["statement"] == p["statement"]
                               and q["factor"] == "eps") for p in design["points"]}
    assert all(e <= 0.001 or p in design["notes"] for p, e in eps.items()), eps


def test_each_point_has_power_at_least_0_8_against_2_eps_at_the_strictest_holm_level(design):
    level = design["family_wise"] / design["points_total"]
    for p in design["points"]:
        eps = p["point"]["eps"]
        assert stats.power_at(p["trials"], eps, 2 * eps, level) >= stats.POWER, p["id"]


def test_the_frozen_C_and_target_are_the_committed_calibrations(design):
    data = json.loads(heldout.CALIBRATION_FILE.read_text())
    for p in design["points"]:
        rec = data["statements"][p["statement"]]
        assert p["C"] == rec["C"] and p["target"] == rec.get("worst_target"), p["id"]


def _result(design, fill):
    """A result with ``fill(point) -> (failures, trials)`` trials per point, in one block."""
    blocks = {}
    for p in design["points"]:
        got = fill(p)
        if got:
            blocks[p["id"]] = {"0": {"failures": got[0], "trials": got[1]}}
    return {"blocks": blocks}


def test_nothing_run_is_never_a_pass(design):
    v = heldout.verdicts(design, None)
    assert all(a["word"] in ("undecided", "excluded") for a in v.values())
    assert all(a["sentence"].startswith("not run (0 of") for a in v.values() if a["word"] == "undecided")


def test_every_point_complete_with_rates_at_eps_holds(design):
    res = _result(design, lambda p: (int(p["point"]["eps"] * p["trials"]), p["trials"]))
    v = heldout.verdicts(design, res)
    assert {a["word"] for n, a in v.items() if a["total"]} == {"holds"}
    C = next(p["C"] for p in design["points"] if p["statement"] == "theorem9")
    assert v["theorem9"]["sentence"].startswith(f"the calibrated C = {C:g} holds at every held-out point")


def test_one_point_missing_leaves_its_statement_undecided_not_passed(design):
    name = "theorem14"  # a statement of several points; one of them not run
    last = [p["id"] for p in design["points"] if p["statement"] == name][-1]
    res = _result(design, lambda p: None if p["id"] == last else (0, p["trials"]))
    v = heldout.verdicts(design, res)
    assert v[name]["word"] == "undecided" and "not run at 1 of" in v[name]["sentence"]
    assert v["lueker"]["word"] == "holds"


def test_a_failing_point_fails_its_statement_with_its_counts_even_before_its_trials_finish(design):
    p = next(q for q in design["points"] if q["id"] == "theorem9:d1=64")
    crit = stats.critical_failures(p["trials"], p["point"]["eps"], design["family_wise"] / design["points_total"])
    res = _result(design, lambda q: (crit, crit) if q is p else None)
    v = heldout.verdicts(design, res)
    assert v["theorem9"]["word"] == "fails"
    assert f"d1 = 64 (eps = 0.3, identity target): {crit}/{crit} failures of 39 planned" in v["theorem9"]["sentence"]
    assert v["lemma7"]["word"] == "undecided"


def test_holm_across_all_points_decides_a_borderline_point_only_when_all_are_complete(design):
    p = next(q for q in design["points"] if q["id"] == "lemma7:eps=0.01")
    m, alpha = design["points_total"], design["family_wise"]
    # the smallest count whose p-value is <= alpha (Holm's last step) but above alpha / m (its first)
    k = next(k for k in range(p["trials"]) if stats.excess_test(k, p["trials"], 0.01).pvalue <= alpha)
    assert stats.excess_test(k, p["trials"], 0.01).pvalue > alpha / m
    others_fail = _result(design, lambda q: (k, q["trials"]) if q is p else (q["trials"], q["trials"]))
    assert heldout.point_decisions(design, others_fail)[p["id"]]["decision"] == "fails"  # Holm's later steps
    clean = _result(design, lambda q: (k, q["trials"]) if q is p else (0, q["trials"]))
    assert heldout.point_decisions(design, clean)[p["id"]]["decision"] == "not rejected"
    partial = _result(design, lambda q: (k, q["trials"]) if q is p else None)
    assert heldout.point_decisions(design, partial)[p["id"]]["decision"] == "pending"


def test_a_result_of_another_design_or_with_impossible_counts_is_refused(tmp_path, design):
    path = tmp_path / "r.json"
    res = heldout.empty_result()
    res["blocks"] = {design["points"][0]["id"]: {"0": {"failures": 1, "trials": 10}}}
    heldout.write_result(path, res)
    assert heldout.load_result(path)["blocks"]
    for bad, words in ((lambda r: r["design"].update(sha256="0" * 64), "another design"),
                       (lambda r: r["blocks"][design["points"][0]["id"]]["0"].update(failures=11), "failures 11"),
                       (lambda r: r["blocks"].update({"nope": {}}), "names no point"),
                       (lambda r: r["blocks"][design["points"][0]["id"]].update(
                           {"10": {"failures": 0, "trials": 10 ** 6}}), "holds")):
        broken = copy.deepcopy(res)
        bad(broken)
        heldout.write_result(path, broken)
        with pytest.raises(heldout.HeldoutError, match=words):
            heldout.load_result(path)


def test_the_committed_result_if_any_is_valid_and_its_verdicts_come_from_the_one_function():
    res = heldout.load_result()
    v = heldout.verdicts()
    assert set(v) >= {"theorem9", "lemma7", "lueker"}
    if res is None:
        assert all(a["word"] != "holds" for a in v.values())


def _slth(capsys, *argv):
    from reports import cli

    rc = cli.main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_slth_targets_heldout_reruns_one_point_as_designed(capsys, tmp_path):
    rc, out, err = _slth(capsys, "targets", "heldout", "theorem10:L=6", "--trials", "10", "--workers", "0",
                         "--cache-dir", str(tmp_path))
    assert rc == 0, err
    assert out.startswith("theorem10:L=6 at C = 12 (orthogonal target)") and "/10 failures" in out


@pytest.mark.parametrize("argv, words", [
    (["theorem10:L=7"], "did you mean 'theorem10:L=6'"),
    (["theorem10:L=6", "--trials", "40"], "expected 1 .. 39"),
    ([], "name a point"),
])
def test_slth_targets_heldout_refuses_bad_input_in_one_line(capsys, argv, words):
    rc, out, err = _slth(capsys, "targets", "heldout", *argv)
    assert rc == 2 and words in err and len(err.strip().splitlines()) == 1


def test_theorem9s_checks_build_at_the_worst_target_large_grids_C_and_keep_the_checks_grids():
    from slt.measure import calibration

    rec = calibration.calibrated("theorem9")
    large = json.loads(heldout.LARGE_FILES[0].read_text())["statements"]["theorem9"]
    assert rec["C"] == large["C"] < rec["C_checks_grid"] and "calibration-large-worst.json" in rec["C_source"]
    data = {"statements": {"theorem9": {"C": 8.0, "worst_target": "identity", "points": [{}]}}}
    with pytest.raises(ValueError, match="target"):
        calibration.adopt_large(copy.deepcopy(data), "theorem9", {**large, "target": "random"}, "x")
    with pytest.raises(ValueError, match="not below"):
        calibration.adopt_large(copy.deepcopy(data), "theorem9", {**large, "C": 10.0}, "x")


def test_lueker_is_held_out_where_its_exact_radius_reaches_below_the_grid_and_excluded_where_not(design):
    """At the frozen C = 12 its exact covering radius (22 items) reaches eps = 0.16 < 0.2; at C = 20 (the 14-trial
    grid's C_upper) it reaches only 0.333, and the design would hold no Lueker point, with the reason."""
    assert [p["id"] for p in design["points"] if p["statement"] == "lueker"] == ["lueker:eps=0.16"]
    assert not design["excluded"] and "eps >= 0.16" in design["notes"]["lueker"]
    out = heldout.excluded({"statements": {"lueker": {"C": 20.0}}})
    assert "limits eps to >= 0.333" in out["lueker"]
    assert heldout.verdicts({**design, "excluded": out}, None)["lueker"]["word"] == "excluded"
