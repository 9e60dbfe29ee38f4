"""Unit tests of the checks' machinery: statistics, evidence, exact covering radius, strategies, re-run parsing,
and that a deliberately weakened construction makes the checks FAIL."""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slt.measure import stats
from slt.measure.statements.lueker import covering_radius
from slt.measure.evidence import Case, exceeds, report_failures
from slt.measure.rerun import parse_value


def test_clopper_pearson_known_values():
    lo, hi = stats.clopper_pearson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.30849710, rel=1e-6)
    lo, hi = stats.clopper_pearson(5, 10)
    assert (lo, hi) == pytest.approx((0.18708603, 0.81291397), rel=1e-6)
    assert stats.upper_bound(0, 59) < 0.05 < stats.upper_bound(0, 58)


def test_excess_test_fails_only_on_significant_excess():
    assert stats.excess_test(0, 50, 0.1).passed
    assert stats.excess_test(8, 50, 0.1).passed          # 16% observed, not significant at 1%
    assert not stats.excess_test(20, 50, 0.1).passed     # 40% observed
    with pytest.raises(ValueError, match="failures"):
        stats.excess_test(11, 10, 0.1)


@given(trials=st.integers(5, 400), p0=st.floats(0.01, 0.39), level=st.sampled_from([0.01, 8.47e-4, 1e-5]))
def test_a_check_stops_where_its_failures_reject_whatever_the_rest_give(trials, p0, level):
    """``stopping_failures``: one failure fewer passes, that count rejects, and so does every larger count (the
    p-value only falls), so a check stopped there has the full run's verdict."""
    try:
        k = stats.stopping_failures(trials, p0, level)
    except stats.Unrejectable:
        assert p0 ** trials > level
        return
    assert stats.excess_test(k - 1, trials, p0, level).passed if k > 0 else True
    assert not any(stats.excess_test(f, trials, p0, level).passed for f in range(k, trials + 1))
    if k < trials:
        stopped = stats.excess_test(k, trials, p0, level, run=k)
        assert not stopped.passed and stopped.verdict == "fails"
        assert f"in the first {k} of {trials} trials" in stopped.describe() and "p <= " in stopped.describe()


def test_a_stopped_test_that_has_not_rejected_is_refused():
    assert stats.stopping_failures(50, 0.1) == 11  # at level 0.01: 10 of 50 pass
    with pytest.raises(ValueError, match="must have rejected already"):
        stats.excess_test(10, 50, 0.1, run=30)


def test_a_failing_rate_check_stops_with_the_full_runs_verdict():
    """Lemma 7 at a tenth of its checked C: the check stops at the trial whose failure rejects; the whole block of
    the same seeds also fails, with at least as many failures; at the checked C the same point runs every trial."""
    from slt.measure import calibration, probabilistic, trial_cache
    from slt.measure.statements import lemma7

    point, C = {"d1": 2, "d2": 2, "eps": 0.2}, calibration.check_constant("lemma7")
    with pytest.raises(AssertionError, match="significant excess") as info:
        probabilistic.assert_rate("lemma7", C / 10, point, lemma7.trial, 78, 1, 0.01)
    failures, run = map(int, re.search(r"(\d+)/(\d+) failures in the first \2 of 78 trials", str(info.value)).groups())
    assert failures == stats.stopping_failures(78, 0.2, 0.01) and run < 78
    whole = trial_cache.block(lemma7.trial, 1, C / 10, point, 78)
    assert not stats.excess_test(sum(c.violated for c in whole), 78, 0.2, 0.01).passed
    test = probabilistic.assert_rate("lemma7", C, point, lemma7.trial, 78, 1, 0.01)
    assert test.run is None and test.trials == 78 and test.passed


def test_critical_counts_of_five_trials():
    """5 trials: at eps = 0.1 the test needs 3 failures; above eps = 0.01^(1/5) = 0.398 even 5/5 cannot reject."""
    assert stats.critical_failures(5, 0.1) == 3
    assert stats.critical_failures(5, 0.398) == 5
    with pytest.raises(stats.Unrejectable, match="cannot reject"):
        stats.critical_failures(5, 0.4)
    with pytest.raises(stats.Unrejectable, match="cannot reject"):
        stats.excess_test(5, 5, 0.5)
    assert stats.min_trials(0.5) == 7 and stats.min_trials(0.9) == 44


@pytest.mark.parametrize("trials,p0", [(5, 0.1), (26, 0.48), (37, 0.1), (82, 0.05), (13, 0.7), (200, 0.3)])
def test_detectable_rate_is_the_exact_power_threshold(trials, p0):
    """detectable_rate is where the exact binomial power P(Bin(n, p) >= k) crosses 0.8, k the critical count
    computed independently here from binomtest's p-values."""
    from scipy.stats import binom, binomtest

    k = next(k for k in range(trials + 1) if binomtest(k, trials, p0, alternative="greater").pvalue <= stats.LEVEL)
    assert stats.critical_failures(trials, p0) == k
    d = stats.detectable_rate(trials, p0)
    assert binom.sf(k - 1, trials, d) == pytest.approx(stats.POWER, abs=1e-9)
    assert binom.sf(k - 1, trials, d - 1e-6) < stats.POWER < binom.sf(k - 1, trials, d + 1e-6)
    assert stats.power_at(trials, p0, d + 1e-6) >= stats.POWER


def test_trials_for_power_is_the_smallest_count_reaching_the_target():
    for eps in (0.05, 0.1, 0.2, 0.5):
        target = stats.target_rate(eps)
        assert target == pytest.approx(min(2 * eps, 1.0))  # power against twice the allowed rate
        n = stats.trials_for_power(eps)
        assert stats.power_at(n, eps, target) >= 0.8
        assert all(k < stats.min_trials(eps) or stats.power_at(k, eps, target) < 0.8 for k in range(1, n))
    assert stats.trials_for_power(0.05, level=0.0025) == 343  # eps = 0.05 at Holm's 0.05 / 20
    assert stats.target_rate(0.9) == 1.0


@pytest.mark.parametrize("level", [0.01, 0.05 / 29, 0.05])
def test_trials_for_power_is_the_first_count_of_the_one_at_a_time_scan(level):
    """The vectorised scan agrees with counting up one trial at a time through ``power_at`` (the bisection of
    ``critical_failures``), where the power saws."""
    for p0 in (0.5, 0.35, 0.2, 0.16, 0.1, 0.05):
        n = stats.min_trials(p0, level)
        while stats.power_at(n, p0, stats.target_rate(p0), level) < stats.POWER:
            n += 1
        assert stats.trials_for_power(p0, level=level) == n, p0


def test_rate_tests_carry_their_power():
    n = stats.trials_for_power(0.1)
    test = stats.excess_test(3, n, 0.1)
    assert test.detectable_rate == pytest.approx(stats.detectable_rate(n, 0.1)) and test.meets_target
    assert f"detects a failure rate of {test.detectable_rate:.3g} or more with probability 0.8" in test.describe()
    assert not stats.excess_test(0, 10, 0.1).meets_target


def test_a_rate_check_that_cannot_fail_is_refused_when_defined():
    """Configurations that cannot fail (Theorem 14: 5 trials up to eps = 0.5; Lueker: 50 trials up to 0.99) raise at
    definition; the default count follows the level the test is run at (the checks run's Holm level)."""
    from slt.measure.probabilistic import RateCheck

    with pytest.raises(stats.Unrejectable, match="theorem14 .*5 trials cannot reject"):
        RateCheck("theorem14", (0.1, 0.5), trials=5)
    with pytest.raises(stats.Unrejectable, match="lueker .*50 trials cannot reject"):
        RateCheck("lueker", (0.487, 0.99), trials=50)
    check = RateCheck("theorem14", (0.1, 0.5))
    assert check.trials_at(0.1, 0.0025) == 159 > check.trials_at(0.1, 0.01)
    assert stats.power_at(check.trials_at(0.5, 0.0025), 0.5, stats.target_rate(0.5), 0.0025) >= 0.8


def test_every_check_of_a_ci_run_has_power_against_2_eps_at_the_holm_level():
    """In both profiles, every rate check's trials at both ends of its eps window detect a failure
    rate of 2 eps with power >= 0.8 at FAMILY_WISE / m, m the number of rate tests of the run; the plan says so."""
    from slt.measure import calibration, catalogue, checking

    for profile in ("ci", "thorough"):
        level = checking.rate_level(profile)
        assert level == pytest.approx(stats.FAMILY_WISE / checking.rate_tests(profile))
        for name in catalogue.probabilistic():
            check = catalogue.get(name).rate_check(calibration.check_constant(name))
            for eps in check.eps:
                assert stats.power_at(check.trials_at(eps, level), eps, stats.target_rate(eps), level) >= 0.8
    plan = "\n".join(checking.plan())
    assert "[ci] %d rate tests" % checking.rate_tests("ci") in plan and "[thorough]" in plan and "Holm" in plan


def test_assert_rate_refuses_before_running_a_trial():
    from slt.measure.probabilistic import assert_rate

    def trial(*args, **kwargs):
        raise RuntimeError("must not run")

    with pytest.raises(stats.Unrejectable):
        assert_rate("theorem14", 1.0, {"eps": 0.5}, trial, 5, seed=0)


def test_lueker_window_is_drawn_from_the_exact_range():
    """eps is drawn from [eps_floor(C), EPS_MAX]: every draw has an exact width, no draw is clamped."""
    from hypothesis import find

    from slt.measure import calibration, strategies
    from slt.measure.statements import lueker

    C = calibration.check_constant("lueker")
    floor = lueker.eps_floor(C)
    assert lueker.width(C, floor) <= lueker.MAX_ITEMS < lueker.width(C, floor * (1 - 1e-9))
    low = find(strategies.parameters("lueker", eps=lueker.window(C)), lambda p: p["eps"] < floor * 1.01)
    assert floor <= low["eps"] and lueker.feasible(C, low["eps"])
    with pytest.raises(ValueError, match="no eps"):
        lueker.window(200.0)


def test_exceeds_decides_near_ties_in_high_precision():
    b = 0.1
    assert not exceeds(b * (1 - 1e-9), b)
    assert exceeds(b * (1 + 1e-9), b)
    near = np.nextafter(b, 1.0)
    assert exceeds(near, b, exact=lambda: (2, 1))
    assert not exceeds(near, b, exact=lambda: (1, 2))
    with pytest.raises(ValueError, match="NaN"):
        exceeds(float("nan"), 1.0)


def test_failures_carry_their_evidence():
    case = Case("lemma8", {"d1": 2, "T": 4096}, 7, 2.0, 1.0, violated=True)
    text = report_failures([case])
    assert "lemma8" in text and "seed=7" in text and "python -m slt.measure.rerun lemma8 --seed 7 d1=2 T=4096" in text
    assert report_failures([Case("lemma8", {}, 1, 0.5, 1.0)]) == ""


def test_rerun_parses_values():
    assert parse_value("3") == 3 and parse_value("0.5") == 0.5 and parse_value("1,2") == (1, 2)
    assert parse_value("True") is True and parse_value("full") == "full"


@given(st.lists(st.floats(-1, 1), min_size=1, max_size=8))
def test_covering_radius_matches_brute_force(items):
    sums = np.array([sum(c) for r in range(len(items) + 1) for c in itertools.combinations(items, r)])
    z = np.linspace(-1, 1, 4001)
    brute = np.abs(z[:, None] - sums[None, :]).min(axis=1).max()
    exact = covering_radius(np.array(items))
    assert brute <= exact + 1e-12               # the exact sup is at least the value at every grid point
    assert exact <= brute + 0.5 * 2 / 4000 + 1e-12  # and at most half a grid step above it


def test_strategies_respect_the_statement_hypotheses():
    import bounds
    from hypothesis import find

    from slt.measure import strategies

    point = find(strategies.parameters("theorem9", d1=(2, 8), d2=(2, 8), H=[1, 2, 4],
                                       alpha=strategies.Scaled(1.0, 2.0), eps=strategies.LogUniform(0.01, 0.5)),
                 lambda p: p["d2"] > p["d1"])
    assert point["alpha"] >= max(point["d1"], point["d2"]) ** 0.5 * (1 - 1e-12)
    bounds.get("theorem9").check(**{k: point[k] for k in ("d1", "d2", "H", "alpha", "eps")})


def test_weakened_lemma7_construction_fails_the_check():
    """A solver that stops early (tol = 0.05, far above eps/(d1 d2)) must make the failure-rate check FAIL,
    while the exact construction at the same seeds passes."""
    from slt.measure.statements.lemma7 import trial
    from slt.measure.probabilistic import assert_rate

    params = {"d1": 3, "d2": 3, "eps": 0.1}
    assert_rate("lemma7", 6.0, params, trial, 30, seed=11)
    weakened = lambda seed, C, **p: trial(seed, C, tol=0.05, **p)  # noqa: E731
    with pytest.raises(AssertionError, match="significant excess"):
        assert_rate("lemma7", 6.0, params, weakened, 30, seed=11)


def test_weakened_theorem9_construction_fails_the_check():
    from slt.measure.statements.theorem9 import trial
    from slt.measure.probabilistic import assert_rate

    params = {"d1": 2, "d2": 2, "H": 2, "alpha": 2**0.5, "eps": 0.05}
    weakened = lambda seed, C, **p: trial(seed, C, tol=0.3, lengths=(4, 16), **p)  # noqa: E731
    with pytest.raises(AssertionError, match="significant excess"):
        assert_rate("theorem9", 6.0, params, weakened, 6, seed=3)


def test_slth_rate_prints_power_and_refuses_bad_input(capsys):
    from reports import cli

    assert cli.main(["rate", "--plan"]) == 0
    plan = capsys.readouterr().out
    # per profile: the family-wise level (Holm), m and each test's level; per check and end of its eps window the
    # trials and the power against 2 eps (test_every_check_of_a_ci_run_has_power_... holds the numbers)
    assert plan.count("[ci]") == 1 and plan.count("[thorough]") == 1 and "family-wise error 0.05 (Holm)" in plan
    assert plan.count("trials, power") == 2 * 2 * 7
    assert cli.main(["rate", "lemma7", "d1=2", "d2=2", "eps=0.2", "--C", "0.4", "--trials", "6"]) == 1
    out = capsys.readouterr().out
    assert "-> fails (a significant excess" in out and "detects a failure rate of" in out
    for argv, message in [(["lemma8", "eps=0.1"], "not a probabilistic statement"),
                          (["lemma7", "d1=2", "d2=2", "eps=0.5", "--trials", "5"], "cannot reject"),
                          (["lemma7", "d1=2", "d2=2"], "missing parameter eps"),
                          (["nosuch", "eps=0.1"], "unknown statement")]:
        assert cli.main(["rate", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
