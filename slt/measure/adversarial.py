"""Adversarial search for deterministic inequalities: maximise a left side over its constrained inputs.

Constraints are removed by smooth parametrisations (``box``: ``||e||_max <= r``; ``ball``: every row
``||x_i|| <= r``), then ``scipy.optimize.minimize`` (L-BFGS-B, finite-difference gradients) climbs from several
seeded random starts. The best point ever evaluated is kept, not only the optimiser's final iterate.
"""
from __future__ import annotations

import dataclasses

import numpy as np


def box(u: np.ndarray, radius: float) -> np.ndarray:
    """Map R^n onto the open box ``||e||_max < radius``."""
    return radius * np.tanh(u)


def ball(v: np.ndarray, radius: float) -> np.ndarray:
    """Map rows of ``v`` (…, d) into the ball of ``radius``: direction kept, norm ``radius * tanh(||v_i||)``."""
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    safe = np.where(norms > 0, norms, 1.0)
    return v * (radius * np.tanh(norms) / safe)


@dataclasses.dataclass
class SearchResult:
    value: float
    theta: np.ndarray


def maximise(objective, dim: int, rng, restarts: int = 4, maxiter: int = 60, scale: float = 1.0,
             starts=()) -> SearchResult:
    """Largest value of ``objective(theta)`` found from ``starts`` plus ``restarts`` random starts.

    ``theta`` is unconstrained (use ``box``/``ball`` inside ``objective``); ``rng`` a numpy Generator or seed.
    """
    rng = np.random.default_rng(rng)
    best = SearchResult(-np.inf, np.zeros(dim))

    def negative(theta):
        value = float(objective(theta))
        if not np.isfinite(value):
            raise ValueError(f"objective returned {value} at theta={theta.tolist()}")
        if value > best.value:
            best.value, best.theta = value, theta.copy()
        return -value

    points = [np.asarray(s, dtype=float) for s in starts]
    points += [rng.normal(scale=scale, size=dim) for _ in range(restarts)]
    from scipy.optimize import minimize  # on first use: the statement catalogue imports this module

    for theta0 in points:
        negative(theta0)
        minimize(negative, theta0, method="L-BFGS-B", options={"maxiter": maxiter, "maxfun": maxiter * (dim + 1)})
    return best
