"""Unit tests of the checks' machinery: statistics, evidence, exact covering radius, strategies, re-run parsing,
and that a deliberately weakened construction makes the checks FAIL."""
from __future__ import annotations

import itertools

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
