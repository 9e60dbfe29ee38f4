"""slt.subset_sum against brute force (all 2^n' subset sums), plus its modes, bounds and bad input.

Rounding slack. The solver is exact on a fixed-point grid of spacing 2^-s <= S 2^-59 (S = |t| + sum |c|),
so its error is at most optimum + (n'+1) 2^-s; the float brute force is within n' u S of the optimum
(u = 2^-53). ``slack`` below is the sum of the two, a few 1e-16 S: far below any real gap between
subset sums at n' <= 20 (about 1e-6 S).
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from slt.subset_sum import MAX_EXACT, default_tol, release_buffers, solve


def all_sums(c):
    """All 2^n subset sums of each row of c (m, n), by doubling: shape (m, 2^n)."""
    sums = np.zeros((c.shape[0], 1))
    for k in range(c.shape[1]):
        sums = np.concatenate([sums, sums + c[:, k:k + 1]], axis=1)
    return sums


def brute_force(c, t):
    rows = max(1, 2**21 >> c.shape[1])  # chunks of at most 2^21 sums
    return np.concatenate([np.abs(t[i:i + rows, None] - all_sums(c[i:i + rows])).min(axis=1)
                           for i in range(0, c.shape[0], rows)])


def slack(c, t):
    n = c.shape[1]
    return (2 * n + 2) * 2.0**-53 * (np.abs(t) + np.abs(c).sum(axis=1))


def fsum_errors(c, t, masks):
    return np.array([abs(math.fsum([ti] + [-x for x in ci[mi]])) for ci, ti, mi in zip(c, t, masks)])


def lemma7_instances(rng, m, n):
    """Items v u with v, u iid U[-1,1] and targets U[-1,1], as in Lemma 7 (docs/statements.md#lemma7)."""
    return rng.uniform(-1, 1, (m, n)) * rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, m)


@st.composite
def instances(draw):
    n = draw(st.integers(1, 20))
    m = draw(st.integers(1, 16 if n <= 14 else 2))
    kind = draw(st.sampled_from(["uniform", "integers", "wide", "tiny"]))
    if kind == "uniform":
        elems = st.floats(-1, 1, allow_nan=False)
    elif kind == "integers":  # many exact ties between subset sums
        elems = st.integers(-5, 5).map(float)
    elif kind == "wide":
        elems = st.floats(-1e6, 1e6, allow_nan=False)
    else:
        elems = st.floats(-1e-200, 1e-200, allow_nan=False)
    c = draw(arrays(np.float64, (m, n), elements=elems))
    hull = np.abs(c).sum(axis=1).max() + 1.0
    t = draw(arrays(np.float64, (m,), elements=st.floats(-1.2 * hull, 1.2 * hull, allow_nan=False)))
    if kind == "tiny":
        t = t * 1e-200
    return c, t


@settings(max_examples=400)
@given(instances())
def test_exact_equals_brute_force(inst):
    c, t = inst
    masks, errors, lower = solve(c, t, return_lower_bound=True)
    opt = brute_force(c, t)
    tol = slack(c, t)
    assert masks.shape == c.shape and masks.dtype == np.bool_
    np.testing.assert_array_equal(errors, fsum_errors(c, t, masks))
    assert np.all(errors <= opt + tol), (errors - opt, tol)
    assert np.all(errors >= opt - tol)
    assert np.all(lower <= opt + tol) and np.all(lower <= errors)
    assert np.all(lower >= errors - 2 * tol)  # the exact path's bound is tight


def test_exact_equals_brute_force_lemma7_sweep():
    """2000 seeded Lemma 7 instances with n' = 1..20 (the distribution the constructions use)."""
    rng = np.random.default_rng(20251107)
    for n in range(1, 21):
        m = 100
        c, t = lemma7_instances(rng, m, n)
        masks, errors = solve(c, t)
        opt = brute_force(c, t)
        assert np.all(np.abs(errors - opt) <= slack(c, t)), n
        np.testing.assert_array_equal(errors, fsum_errors(c, t, masks))


@pytest.mark.parametrize("n", [32, 40])
def test_exact_large_against_sorted_reference(n):
    """Large lists (the interleaved merge-path kernels) against a full-sort meet in the middle in numpy."""
    rng = np.random.default_rng(n)
    c, t = lemma7_instances(rng, 3, n)
    _, errors = solve(c, t)
    for i in range(3):
        a = np.sort(all_sums(c[i:i + 1, : n // 2])[0])
        b = all_sums(c[i:i + 1, n // 2:])[0]
        pos = np.clip(np.searchsorted(a, t[i] - b), 1, a.size - 1)
        ref = np.minimum(np.abs(t[i] - b - a[pos]), np.abs(t[i] - b - a[pos - 1])).min()
        assert abs(errors[i] - ref) <= 4 * slack(c[i:i + 1], t[i:i + 1])[0], (errors[i], ref)


@settings(max_examples=150)
@given(instances(), st.floats(0.0, 4.0))
def test_tolerance_mode(inst, factor):
    c, t = inst
    opt = brute_force(c, t)
    tol = opt * factor  # both sides of the optimum
    masks, errors = solve(c, t, tol=tol)
    np.testing.assert_array_equal(errors, fsum_errors(c, t, masks))
    # stopped early: error <= tol; ran through: the optimum
    assert np.all(errors <= np.maximum(tol, opt + slack(c, t)))
    assert np.all(errors[opt <= tol] <= tol[opt <= tol] + slack(c, t)[opt <= tol])


def test_tolerance_mode_default_tol_stops_early():
    rng = np.random.default_rng(7)
    c, t = lemma7_instances(rng, 50, 40)
    tol = default_tol(c)
    _, errors = solve(c, t, tol=tol)
    _, exact = solve(c, t)
    assert np.all(errors <= tol)
    assert np.all(exact <= errors)
    assert np.mean(errors > exact) > 0.9  # it did stop before the optimum


@settings(max_examples=100)
@given(instances(), st.integers(2, 8))
def test_best_effort_lower_bound_brute_force(inst, window):
    """The n' > window path, with the window lowered so that brute force can check it."""
    c, t = inst
    opt = brute_force(c, t)
    for tol in (None, 0.5 * opt):
        masks, errors, lower = solve(c, t, tol, best_effort=True, return_lower_bound=True, _window=window)
        np.testing.assert_array_equal(errors, fsum_errors(c, t, masks))
        assert np.all(lower <= opt + slack(c, t)) and np.all(lower <= errors)
        assert np.all(errors >= opt - slack(c, t))


def test_beyond_forty():
    rng = np.random.default_rng(48)
    c, t = lemma7_instances(rng, 8, 48)
    t[:2] = [100.0, -100.0]  # outside the hull: the optimum is the nearest end point
    with pytest.raises(ValueError, match="exceeds the exact path's maximum of 40"):
        solve(c, t)
    masks, errors, lower = solve(c, t, best_effort=True, return_lower_bound=True)
    assert np.all(lower <= errors)
    np.testing.assert_array_equal(masks[0], c[0] > 0)
    np.testing.assert_array_equal(masks[1], c[1] < 0)
    assert np.all(lower[:2] == errors[:2]) and np.all(lower[2:] == 0.0)
    # round 1 alone is the exact search over the 40 largest items; later rounds only improve on it
    top = np.argsort(-np.abs(c), axis=1, kind="stable")[:, :MAX_EXACT]
    _, err40 = solve(np.take_along_axis(c, top, axis=1), t)
    assert np.all(errors <= err40)
    _, tol_errors = solve(c, t, tol=default_tol(c))
    assert np.all(tol_errors[2:] <= default_tol(c)[2:])


def test_deterministic_and_thread_independent():
    rng = np.random.default_rng(3)
    c, t = lemma7_instances(rng, 64, 30)
    m1, e1 = solve(c, t, threads=1)
    m2, e2 = solve(c, t, threads=2)
    m3, e3 = solve(c, t)
    np.testing.assert_array_equal(m1, m2)
    np.testing.assert_array_equal(m1, m3)
    np.testing.assert_array_equal(e1, e2)
    # an entry's result does not depend on the other entries of the batch
    m4, e4 = solve(c[5:6], t[5:6])
    np.testing.assert_array_equal(m4[0], m1[5])
    assert e4[0] == e1[5]


def test_empty_batch():
    masks, errors = solve(np.zeros((0, 5)), np.zeros(0))
    assert masks.shape == (0, 5) and errors.shape == (0,)


@pytest.mark.parametrize(
    "items, targets, kwargs, message",
    [
        ([[1.0, np.nan]], [0.0], {}, "items must be finite"),
        ([[1.0, np.inf]], [0.0], {}, "items must be finite"),
        ([[1.0, 2.0]], [np.nan], {}, "targets must be finite"),
        ([[1.0, 2.0]], [-np.inf], {}, "targets must be finite"),
        (np.zeros((3, 0)), np.zeros(3), {}, "empty item rows"),
        ([1.0, 2.0], [0.0], {}, "must be 2-D"),
        (np.zeros((2, 2, 2)), np.zeros(2), {}, "must be 2-D"),
        ([[1.0, 2.0]], [0.0, 1.0], {}, "targets must have shape"),
        ([[1.0, 2.0]], [[0.0]], {}, "targets must have shape"),
        (np.ones((1, 41)), [0.0], {}, "exceeds the exact path's maximum"),
        ([[1.0, 2.0]], [0.0], {"tol": -1.0}, "tol must be finite and >= 0"),
        ([[1.0, 2.0]], [0.0], {"tol": np.nan}, "tol must be finite and >= 0"),
        ([[1.0, 2.0]], [0.0], {"tol": [1.0, 2.0]}, "tol must be None"),
        ([[1.0, 2.0]], [0.0], {"threads": 0}, "threads must be in"),
        ([[1.0, 2.0]], [0.0], {"threads": 1.5}, "threads must be a positive integer"),
        ([[1e308, 1e308]], [0.0], {}, "overflows float64"),
        ([["a", "b"]], [0.0], {}, "must be real arrays"),
        ([[1.0 + 1j, 2.0]], [0.0], {}, "must be real arrays"),
    ],
)
def test_bad_input(items, targets, kwargs, message):
    with pytest.raises(ValueError, match=message):
        solve(items, targets, **kwargs)


def test_buffers_reused_and_released():
    rng = np.random.default_rng(11)
    c, t = lemma7_instances(rng, 4, 30)
    first = solve(c, t)
    solve(*lemma7_instances(rng, 2, 36))  # grows the kept lists
    release_buffers()
    again = solve(c, t)
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])
