"""Lueker / Pensia subset sum (docs/statements.md#lueker), the "for every z at once" quantifier measured exactly.

For n' iid products ``V*U`` of two U[-1,1] variables, the covering radius
``sup_{z in [-1,1]} min_S |z - sum_{k in S} X_k|`` is computed exactly from all 2^n' sorted subset sums
(n' <= 22). The statement fails for one draw when the radius exceeds eps; with n' = width("n", C, eps) the
failure rate must not exceed eps (one-sided binomial test at the level the checks run holds it to).

The check's eps window (``window(C)``) is drawn, never clamped: it starts at ``eps_floor(C)``, the smallest eps
whose width n' = width(C, eps) is within the exact limit MAX_ITEMS, and ends at ``EPS_MAX`` = 0.7 (against the power
target 2 eps, from eps = 0.5 on the test can only detect a rate of 1, and at eps >= 0.91 50 trials cannot fail).
"""
from __future__ import annotations

import numpy as np

import bounds
from slt.measure import strategies
from slt.measure.evidence import Case
from slt.measure.numerics import Numerics, Property, trials
from slt.measure.probabilistic import RateCheck

STATEMENT = "lueker"
MAX_ITEMS = 22
EPS_MAX = 0.7


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
    return bounds.get(STATEMENT).width("n", C=C, eps=eps)


def eps_floor(C: float) -> float:
    """Smallest eps (to 1e-12, by bisection on ``feasible``, which is monotone in eps) whose width at C is exact
    (<= MAX_ITEMS): the check's eps window starts there."""
    lo, hi = 0.0, 1.0 - 1e-12  # width -> infinity as eps -> 0; hi is feasible for any C > 0
    if not feasible(C, hi):
        raise ValueError(f"no eps < 1 has an exact width at C={C}")
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if mid > 0 and feasible(C, mid) else (mid, hi)
    return hi


def window(C: float) -> strategies.LogUniform:
    """The eps window of the check at constant C: ``[eps_floor(C), EPS_MAX]`` (drawn, never clamped)."""
    floor = eps_floor(C)
    if floor > EPS_MAX:
        raise ValueError(f"at C={C} no eps <= {EPS_MAX} has an exact width (<= {MAX_ITEMS} items): floor {floor:.4g}")
    return strategies.LogUniform(floor, EPS_MAX)


def rate_check(C: float):
    """The failure-rate check at constant C over ``window(C)`` (validated when built)."""
    return RateCheck(STATEMENT, window(C))


def trial(seed: int, C: float, eps: float, solver=None) -> Case:
    """One draw at n' = width(C, eps): fails when the covering radius of [-1, 1] exceeds eps.

    ``solver(items, lo, hi) -> radius`` replaces the exact ``covering_radius`` (a weakened solver in the tests
    that show the check failing)."""
    n = width(C, eps)
    if n > MAX_ITEMS:
        raise ValueError(f"width n'={n} for C={C}, eps={eps} exceeds the exact limit {MAX_ITEMS}")
    radius = (solver or covering_radius)(draw_items(seed, n), -1.0, 1.0)
    return Case(STATEMENT, {"C": C, "eps": eps}, seed, radius, eps, what="covering radius",
                violated=radius > eps, widths={"n": n})


CALIBRATION_GRID = [{"eps": e} for e in (0.5, 0.3, 0.2)]


def feasible(C: float, eps: float) -> bool:
    """Whether the width at (C, eps) is within the exact limit MAX_ITEMS (the calibration's C grid stops there)."""
    return width(C, eps) <= MAX_ITEMS


def covering_radius_is_exact_on_a_known_set():
    """Items {0.5, 0.25}: sums {0, .25, .5, .75}; on [-1, 1] the farthest target is z = -1 (distance 1)."""
    assert covering_radius(np.array([0.5, 0.25])) == 1.0


ORDER = 10
NUMERICS = Numerics(
    STATEMENT, trial=trial, rate_at=rate_check, feasible=feasible,
    rate_points=tuple({"eps": e} for e in (0.9, 0.7, 0.5, 0.4, 0.3)),
    rate_trials=trials(quick=20, full=200),
    rate_floor=eps_floor,
    calibration=CALIBRATION_GRID,
    examples={"rate": 3},
    properties=(Property(covering_radius_is_exact_on_a_known_set),),
)
