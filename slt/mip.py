"""The same subset sums as `slt.subset_sum`, solved as mixed-integer programs (what the paper used).

Per entry: binary x_k, continuous e >= 0, minimise e subject to ``c.x + e >= t`` and ``c.x - e <= t``
(i.e. e >= |t - c.x|). Backends, each at its default tolerances unless ``options`` say otherwise:

- ``"highs"``: HiGHS through ``scipy.optimize.milp`` (always available);
- ``"highspy"``: HiGHS through its own Python API (optional, ``pip install -e .[mip]``);
- ``"gurobi"``: Gurobi through gurobipy (optional, ``pip install -e .[mip]``; the pip package's
  size-limited license suffices for one entry at a time).

A solver's reported objective hides its feasibility and integrality tolerances (Gurobi typically reports
0 while the subset it returns misses by ~1e-6), so the returned errors are TRUE errors: the solver's x
rounded to a subset (x_k > 0.5), then |t - sum(c[mask])| exactly rounded (``math.fsum``). The returned
times are the wall-clock seconds of each entry's solver call (model building and, for Gurobi, the
one-off environment start excluded).
"""
from __future__ import annotations

import math
import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from slt.subset_sum import _validate

BACKENDS = ("highs", "highspy", "gurobi")
__all__ = ["solve", "BACKENDS"]


def _missing(package, backend):
    return ImportError(f"backend {backend!r} needs the optional package {package}, which is not installed: "
                       f"install the [mip] extra with `pip install -e .[mip]` (or `pip install {package}`)")


def _scipy_highs(c, t, options):
    n = c.size
    cost = np.r_[np.zeros(n), 1.0]
    rows = LinearConstraint(np.vstack([np.r_[c, 1.0], np.r_[c, -1.0]]), [t, -np.inf], [np.inf, t])
    bounds = Bounds(np.zeros(n + 1), np.r_[np.ones(n), np.inf])
    start = time.perf_counter()
    res = milp(cost, constraints=rows, integrality=np.r_[np.ones(n), 0], bounds=bounds, options=options)
    elapsed = time.perf_counter() - start
    if res.x is None:
        raise RuntimeError(f"scipy.optimize.milp found no solution: {res.message}")
    return res.x[:n] > 0.5, elapsed, float(res.fun)


def _highspy(c, t, options):
    try:
        import highspy  # optional [mip] extra
    except ImportError:
        raise _missing("highspy", "highspy") from None
    n = c.size
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for name, value in options.items():
        h.setOptionValue(name, value)
    inf = highspy.kHighsInf
    idx = np.arange(n + 1, dtype=np.int32)
    h.addVars(n + 1, np.zeros(n + 1), np.r_[np.ones(n), inf])
    h.changeColsCost(n + 1, idx, np.r_[np.zeros(n), 1.0])
    h.changeColsIntegrality(n, idx[:n], np.array([highspy.HighsVarType.kInteger] * n))
    h.addRow(t, inf, n + 1, idx, np.r_[c, 1.0])
    h.addRow(-inf, t, n + 1, idx, np.r_[c, -1.0])
    start = time.perf_counter()
    h.run()
    elapsed = time.perf_counter() - start
    x = np.asarray(h.getSolution().col_value)
    if x.size != n + 1:
        raise RuntimeError(f"highspy found no solution: {h.modelStatusToString(h.getModelStatus())}")
    return x[:n] > 0.5, elapsed, float(h.getInfo().objective_function_value)


_GUROBI_ENV = None


def _gurobi(c, t, options):
    global _GUROBI_ENV
    try:
        import gurobipy as gp  # optional [mip] extra
    except ImportError:
        raise _missing("gurobipy", "gurobi") from None
    if _GUROBI_ENV is None:
        env = gp.Env(empty=True)
        env.setParam("OutputFlag", 0)
        env.start()
        _GUROBI_ENV = env
    n = c.size
    with gp.Model(env=_GUROBI_ENV) as model:
        for name, value in options.items():
            model.setParam(name, value)
        x = model.addMVar(n, vtype=gp.GRB.BINARY)
        e = model.addVar(lb=0.0)
        model.addConstr(c @ x + e >= t)
        model.addConstr(c @ x - e <= t)
        model.setObjective(e, gp.GRB.MINIMIZE)
        start = time.perf_counter()
        model.optimize()
        elapsed = time.perf_counter() - start
        if model.SolCount == 0:
            raise RuntimeError(f"gurobi found no solution (status {model.Status})")
        return np.asarray(x.X) > 0.5, elapsed, float(model.ObjVal)


_SOLVERS = {"highs": _scipy_highs, "highspy": _highspy, "gurobi": _gurobi}


def solve(items, targets, backend="highs", *, return_reported=False, **options):
    """Solve each row's subset sum with a mixed-integer solver.

    items (m, n'), targets (m,) as in `slt.subset_sum.solve`; ``options`` go to the solver unchanged
    (scipy's ``milp(options=...)``, highspy's ``setOptionValue``, gurobi's ``setParam``).
    Returns ``(masks, true_errors, times)``: bool (m, n'), float64 (m,) recomputed from the masks,
    float64 (m,) seconds per entry; with ``return_reported=True`` also the objective each solver REPORTED, float64
    (m,) (finding 6: it can read 0 for a subset whose true error is not). Raises ImportError naming the ``[mip]`` extra when the backend's
    package is missing, ValueError on an unknown backend or bad input.
    """
    if backend not in _SOLVERS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {BACKENDS}")
    items, targets, _ = _validate(items, targets, None, True, np.inf)
    m = items.shape[0]
    masks = np.zeros(items.shape, np.bool_)
    errors = np.empty(m)
    times = np.empty(m)
    reported = np.empty(m)
    for i in range(m):
        masks[i], times[i], reported[i] = _SOLVERS[backend](items[i], float(targets[i]), options)
        errors[i] = abs(math.fsum([targets[i]] + [-x for x in items[i][masks[i]]]))  # the true error, exactly rounded
    return (masks, errors, times, reported) if return_reported else (masks, errors, times)
