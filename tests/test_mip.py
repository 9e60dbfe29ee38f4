"""slt.mip: the mixed-integer baselines return real subsets whose TRUE error is never below the optimum."""
import math
import sys

import numpy as np
import pytest

from slt import mip, subset_sum


def instances(seed, m, n):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (m, n)) * rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, m)


def check_against_exact(c, t, masks, errors, times):
    _, opt = subset_sum.solve(c, t)
    slack = 1e-15 * (np.abs(t) + np.abs(c).sum(axis=1))
    assert masks.shape == c.shape and masks.dtype == np.bool_
    np.testing.assert_array_equal(errors, [abs(math.fsum([ti] + list(-ci[mi]))) for ci, ti, mi in zip(c, t, masks)])
    # a MIP subset can match the optimum but never beat it: a smaller true error would refute the exact solver
    assert np.all(errors >= opt - slack), (errors, opt)
    assert np.all(times > 0)
    return opt


def test_scipy_highs_small():
    c, t = instances(0, 6, 8)
    masks, errors, times = mip.solve(c, t, backend="highs")
    opt = check_against_exact(c, t, masks, errors, times)
    # with 2^8 subset sums spread over ~2 the optimum is isolated far beyond HiGHS's 1e-6 tolerances
    np.testing.assert_allclose(errors, opt, rtol=0, atol=1e-5)


def test_scipy_highs_medium_true_error_at_least_optimum():
    c, t = instances(1, 3, 16)
    check_against_exact(c, t, *mip.solve(c, t, backend="highs"))


@pytest.mark.parametrize("backend, package", [("highspy", "highspy"), ("gurobi", "gurobipy")])
def test_optional_backends(backend, package):
    pytest.importorskip(package, reason=f"{package} not installed (optional [mip] extra)")
    c, t = instances(2, 3, 12)
    check_against_exact(c, t, *mip.solve(c, t, backend=backend))


@pytest.mark.parametrize("backend, package", [("highspy", "highspy"), ("gurobi", "gurobipy")])
def test_missing_package_names_the_extra(monkeypatch, backend, package):
    monkeypatch.setitem(sys.modules, package, None)  # makes `import package` raise ImportError
    with pytest.raises(ImportError, match=r"pip install -e \.\[mip\]"):
        mip.solve(np.ones((1, 3)), np.zeros(1), backend=backend)


def test_bad_input():
    with pytest.raises(ValueError, match="unknown backend"):
        mip.solve(np.ones((1, 3)), np.zeros(1), backend="cplex")
    with pytest.raises(ValueError, match="items must be finite"):
        mip.solve(np.array([[1.0, np.nan]]), np.zeros(1))
    with pytest.raises(ValueError, match="empty item rows"):
        mip.solve(np.zeros((1, 0)), np.zeros(1))
    with pytest.raises(ValueError, match="targets must have shape"):
        mip.solve(np.ones((2, 3)), np.zeros(3))
