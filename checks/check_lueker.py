"""Lueker / Pensia subset sum (theorems.md §1), the "for every z at once" quantifier measured exactly.

For n' iid products ``V*U`` of two U[-1,1] variables, the covering radius
``sup_{z in [-1,1]} min_S |z - sum_{k in S} X_k|`` is computed exactly from all 2^n' sorted subset sums
(n' <= 22). The statement fails for one draw when the radius exceeds eps; with n' = width("n", C, eps) the
failure rate must not exceed eps (one-sided binomial test, checks.stats.LEVEL).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from checks import calibration, strategies
from checks.evidence import Case
from checks.stats import excess_test

STATEMENT = "lueker"
MAX_ITEMS = 22
TRIALS = 200


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


def measure(C: float, eps: float, trials: int, seed: int) -> dict:
    """Covering radii of ``trials`` independent draws at n' = width(C, eps); seeds ``seed + k``."""
    n = width(C, eps)
    if n > MAX_ITEMS:
        raise ValueError(f"width n'={n} for C={C}, eps={eps} exceeds the exact limit {MAX_ITEMS}")
    radii = np.array([covering_radius(draw_items(seed + k, n)) for k in range(trials)])
    failures = int(np.sum(radii > eps))
    return {"C": C, "eps": eps, "n": n, "trials": trials, "seed": seed, "radii": radii,
            "failures": failures, "test": excess_test(failures, trials, eps)}


def minimal_width(eps: float, seed: int) -> int:
    """Smallest n' at which the draw with this seed (nested prefixes of one sequence) covers [-1,1] within eps."""
    items = draw_items(seed, MAX_ITEMS)
    for n in range(1, MAX_ITEMS + 1):
        if covering_radius(items[:n]) <= eps:
            return n
    return MAX_ITEMS + 1


def rerun(seed: int, C: float, eps: float) -> list[Case]:
    n = width(C, eps)
    radius = covering_radius(draw_items(seed, n))
    return [Case(STATEMENT, {"C": C, "eps": eps, "n": n}, seed, radius, eps, what="covering radius",
                 violated=radius > eps, detail="one draw fails with probability <= eps; a single failure is allowed")]


def test_covering_radius_is_exact_on_a_known_set():
    # items {0.5, 0.25}: sums {0, .25, .5, .75}; on [-1, 1] the farthest target is z = -1 (distance 1).
    assert covering_radius(np.array([0.5, 0.25])) == 1.0


@settings(max_examples=6)
@given(point=strategies.probabilistic(STATEMENT))
def test_failure_rate_at_calibrated_width(point):
    C = calibration.check_constant(STATEMENT)
    eps = point["eps"]
    result = measure(C, eps, TRIALS, seed=strategies.seed_of(point))
    test = result["test"]
    assert test.passed, (
        f"lueker at C={C} (calibrated x safety {calibration.SAFETY}), eps={eps}, n'={result['n']}: {test.describe()}\n"
        f"  re-run one draw: {rerun(strategies.seed_of(point), C, eps)[0].command}")
