"""Lueker / Pensia subset sum (theorems.md §1), the "for every z at once" quantifier measured exactly.

For n' iid products ``V*U`` of two U[-1,1] variables, the covering radius
``sup_{z in [-1,1]} min_S |z - sum_{k in S} X_k|`` is computed exactly from all 2^n' sorted subset sums
(n' <= 22). The statement fails for one draw when the radius exceeds eps; with n' = width("n", C, eps) the
failure rate must not exceed eps (one-sided binomial test, slt.measure.stats.LEVEL).
"""
from __future__ import annotations

import numpy as np

from slt.measure.evidence import Case
from slt.measure.stats import excess_test

STATEMENT = "lueker"
MAX_ITEMS = 22
TRIALS = 50


def subset_sums(items: np.ndarray) -> np.ndarray:
    """All 2^n subset sums of ``items``, sorted (n <= MAX_ITEMS)."""
    items = np.asarray(items, dtype=float)
    if items.ndim != 1 or items.size > MAX_ITEMS:
        raise ValueError(f"items must be a 1-d array of at most {MAX_ITEMS} numbers, got shape {items.shape}")
    if not np.all(np.isfinite(items)):
        raise ValueError("items contain NaN or infinity")
    sums = np.zeros(1)
    for c in np.sort(items):
        sums = np.sort(np.concatenate([sums, sums + c]), kind="stable")
    return sums


def covering_radius(items: np.ndarray, lo: float = -1.0, hi: float = 1.0) -> float:
    """``sup_{z in [lo, hi]} min_S |z - sum_S|``: the largest distance from a target to the best subset sum."""
    s = subset_sums(items)

    def distance(z):
        k = np.searchsorted(s, z)
        return min(abs(z - s[max(k - 1, 0)]), abs(s[min(k, s.size - 1)] - z))

    mid = 0.5 * (s[:-1] + s[1:])
    inside = (mid >= lo) & (mid <= hi)
    gaps = 0.5 * (s[1:] - s[:-1])[inside]
    return float(max(distance(lo), distance(hi), gaps.max(initial=0.0)))


def draw_items(rng, n: int) -> np.ndarray:
    """n products V*U of independent U[-1,1] pairs (the items of Lemma 7's subset sums)."""
    rng = np.random.default_rng(rng)
    return rng.uniform(-1, 1, n) * rng.uniform(-1, 1, n)


def width(C: float, eps: float) -> int:
    import bounds

    return bounds.get(STATEMENT).width("n", C=C, eps=eps)


def rate_versus_eps(C: float, eps_values, trials: int, seed: int) -> list[dict]:
    """Failure rate (with its test against eps) of ``trials`` independent draws per eps, at n' = width(C, eps)."""
    rows = []
    for eps in eps_values:
        cases = [trial(seed + k, C, eps) for k in range(trials)]
        failures = sum(c.violated for c in cases)
        rows.append({"eps": eps, "n": cases[0].widths["n"], "failures": failures, "trials": trials,
                     "worst": max(c.measured for c in cases), "test": excess_test(failures, trials, eps)})
    return rows


def rerun(seed: int, C: float, eps: float) -> list[Case]:
    return [trial(seed, C, eps)]


def eps_floor(C: float) -> float:
    """Smallest eps (on a fine log grid) whose width at C is exact (<= MAX_ITEMS): the check's eps window starts there."""
    return float(next(e for e in np.geomspace(1e-3, 0.99, 400) if feasible(C, e)))


def trial(seed: int, C: float, eps: float) -> Case:
    """One draw at n' = width(C, eps): fails when the covering radius of [-1, 1] exceeds eps."""
    n = width(C, eps)
    if n > MAX_ITEMS:
        raise ValueError(f"width n'={n} for C={C}, eps={eps} exceeds the exact limit {MAX_ITEMS}")
    radius = covering_radius(draw_items(seed, n))
    return Case(STATEMENT, {"C": C, "eps": eps}, seed, radius, eps, what="covering radius",
                violated=radius > eps, widths={"n": n})


CALIBRATION_GRID = [{"eps": e} for e in (0.5, 0.3, 0.2)]


def feasible(C: float, eps: float) -> bool:
    """Whether the width at (C, eps) is within the exact limit MAX_ITEMS (the calibration's C grid stops there)."""
    return width(C, eps) <= MAX_ITEMS
