"""Targets and sources for the probabilistic checks, drawn with ``slt.samplers`` from one seed per trial."""
from __future__ import annotations

import numpy as np


def block_widths(statement: str, C: float, d1: int, **params) -> dict:
    """Every width requirement of ``statement`` at C, rounded up to a multiple of d1 (n = d1 n')."""
    import bounds

    st = bounds.get(statement)
    out = {}
    for name in st.widths:
        n = st.width(name, C=C, d1=d1, **params)
        out[name] = d1 * -(-n // d1)
    return out


def lemma7_pair(rng, d1: int, d2: int, n: int):
    """Target W (d2, d1) with ||W|| <= 1 (hence entries in [-1, 1]) and iid U[-1,1] sources W1 (n, d1), W2 (d2, n)."""
    from slt.samplers import as_rng, spectral_matrices

    rng = as_rng(rng)
    W = spectral_matrices(rng, (d2, d1))
    return W, rng.uniform(-1, 1, (n, d1)), rng.uniform(-1, 1, (d2, n))


def unit_ball(rng, n: int, d: int, sphere_fraction: float = 0.5) -> np.ndarray:
    """``n`` points in the closed unit ball of R^d (a fraction on the sphere)."""
    from slt.samplers import inputs

    rng = np.random.default_rng(rng)
    k = int(n * sphere_fraction)
    return np.concatenate([inputs(rng, k, d, 1.0, sphere=True), inputs(rng, n - k, d, 1.0)])
