"""Numba kernel of Figure 5's long sequences: single-head attention in merged form with the full mask, d1 = 2.

``out_i = σ(x_i^T A X^T) X V`` for every token i (eq. 10-11 with ``A = W_QK``, ``V = W_VO``), computed pair by
pair in two passes per query (row maximum, then exponentials), so no (T, T) matrix is ever stored: at
T = 2^13 that matrix would take half a gigabyte per sequence. Specialised to the task's d1 = 2 and compiled with
``fastmath`` (reassociated sums: agrees with ``slt.models.mha`` to about 1e-15, which the tests check).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(parallel=True, fastmath=True, cache=True)
def _merged_attention_2d(x0, x1, A, V):
    T = x0.shape[0]
    d2 = V.shape[1]
    out = np.empty((T, d2))
    for i in prange(T):
        q0 = x0[i] * A[0, 0] + x1[i] * A[1, 0]
        q1 = x0[i] * A[0, 1] + x1[i] * A[1, 1]
        top = -np.inf
        for k in range(T):
            top = max(top, q0 * x0[k] + q1 * x1[k])
        total = 0.0
        a0 = 0.0
        a1 = 0.0
        for k in range(T):
            w = np.exp(q0 * x0[k] + q1 * x1[k] - top)
            total += w
            a0 += w * x0[k]
            a1 += w * x1[k]
        for c in range(d2):
            out[i, c] = (a0 * V[0, c] + a1 * V[1, c]) / total
    return out


def merged_attention(X, A, V):
    """``X`` (T, 2), ``A`` (2, 2), ``V`` (2, d2), finite float64; returns (T, d2)."""
    X, A, V = (np.ascontiguousarray(a, dtype=np.float64) for a in (X, A, V))
    if X.ndim != 2 or X.shape[1] != 2 or A.shape != (2, 2) or V.ndim != 2 or V.shape[0] != 2:
        raise ValueError(f"merged_attention needs X (T, 2), A (2, 2), V (2, d2); got {X.shape}, {A.shape}, {V.shape}")
    if not (np.isfinite(X).all() and np.isfinite(A).all() and np.isfinite(V).all()):
        raise ValueError("merged_attention needs finite X, A and V")
    return _merged_attention_2d(X[:, 0].copy(), X[:, 1].copy(), A, V)
