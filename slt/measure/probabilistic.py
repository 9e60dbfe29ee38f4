"""Failure rates of probabilistic statements ("with probability >= 1 - eps", theorems.md §10) and calibration of C.

A statement module provides ``trial(seed, C, **params) -> Case``: ONE independent random source (seeded), the
ticket built by the proof's construction at the widths ``bounds`` requires for that C, and the measured error
against the bound; ``Case.violated`` marks a failure. Trials with seeds ``seed, seed+1, ...`` are independent.

Calibration (``calibrate_point``): over an ascending grid of C, the failure count of ``trials`` fixed seeds
(common random numbers across C). Two estimates per grid point:
- ``C_point``: the smallest grid C whose observed failure rate is <= eps;
- ``C_upper``: the smallest grid C whose one-sided 95% Clopper-Pearson upper bound on the rate is <= eps
  (the C the observations SUPPORT; the value used, with ``C_point`` as its lower uncertainty end).
"""
from __future__ import annotations

from slt.measure.stats import CONFIDENCE, excess_test, upper_bound

C_GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0)


def failure_rate(trial, C: float, params: dict, trials: int, seed: int):
    """``(RateTest against eps, cases)`` of ``trials`` independent sources at constant C."""
    cases = [trial(seed + k, C, **params) for k in range(trials)]
    failures = sum(c.violated for c in cases)
    return excess_test(failures, trials, params["eps"]), cases


def trials_needed(eps: float, confidence: float = CONFIDENCE) -> int:
    """Smallest number of trials for which zero failures give a Clopper-Pearson upper bound <= eps."""
    n = 1
    while upper_bound(0, n, confidence) > eps:
        n += 1
    return n


def calibrate_point(trial, params: dict, trials: int, seed: int, grid=C_GRID, progress=None) -> dict:
    """Smallest grid C meeting each criterion, by bisection over the ascending grid (failure counts of the
    same seeds are non-increasing in C up to noise); every evaluated C is kept in ``grid`` of the result."""
    eps = params["eps"]
    rows = {}

    def row(i):
        if i not in rows:
            C = grid[i]
            cases = [trial(seed + k, C, **params) for k in range(trials)]
            failures = sum(c.violated for c in cases)
            rows[i] = {"C": C, "failures": failures, "trials": trials, "upper": upper_bound(failures, trials),
                       "worst_ratio": max(c.ratio for c in cases), "widths": cases[0].widths}
            if progress:
                progress(f"C={C}: {failures}/{trials} failures (Clopper-Pearson upper {rows[i]['upper']:.3g})")
        return rows[i]

    def smallest(ok):
        lo, hi = 0, len(grid) - 1
        if not ok(row(hi)):
            return None
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(row(mid)) else (mid + 1, hi)
        return grid[lo]

    upper = smallest(lambda r: r["upper"] <= eps)
    point = smallest(lambda r: r["failures"] <= eps * r["trials"])
    return {**params, "trials": trials, "seed": seed, "C_point": point, "C_upper": upper,
            "grid": [rows[i] for i in sorted(rows)]}


def summarise(points: list[dict]) -> dict:
    """Statement-level constant: C = max over grid points of C_upper; C_low = max of C_point."""
    ups = [p["C_upper"] for p in points]
    if not points or any(u is None for u in ups):
        return {"C": None, "C_low": None, "C_high": None, "points": points,
                "note": "some grid point never met the criterion within the C grid"}
    lows = [p["C_point"] for p in points if p["C_point"] is not None]
    return {"C": max(ups), "C_low": max(lows) if lows else None, "C_high": max(ups), "points": points}


def assert_rate(statement: str, C: float, params: dict, trial, trials: int, seed: int) -> None:
    """The check: no significant excess of failures over eps at constant C (message carries the evidence)."""
    test, cases = failure_rate(trial, C, params, trials, seed)
    if not test.passed:
        failed = [c for c in cases if c.violated]
        worst = max(failed, key=lambda c: c.ratio)
        raise AssertionError(f"{statement} at C={C}: {test.describe()}\n  worst failing trial:\n" + worst.describe())

