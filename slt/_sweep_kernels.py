"""Numba kernel of Figure 5's long sequences: single-head attention in merged form with the full mask.

``out_i = σ(x_i^T A X^T) X V`` for every token i (eq. 10-11 with ``A = W_QK``, ``V = W_VO``), computed pair by
pair in two passes per query (row maximum, then exponentials), so no (T, T) matrix is ever stored: at
T = 2^13 that matrix would take half a gigabyte per sequence. Tested against ``slt.models.mha``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def merged_attention(X, A, V):
    """``X`` (T, d1), ``A`` (d1, d1), ``V`` (d1, d2), float64; returns (T, d2)."""
    T, d1 = X.shape
    d2 = V.shape[1]
    out = np.empty((T, d2))
    for i in prange(T):
        q = np.zeros(d1)
        for a in range(d1):
            for b in range(d1):
                q[b] += X[i, a] * A[a, b]
        top = -np.inf
        for k in range(T):
            z = 0.0
            for b in range(d1):
                z += q[b] * X[k, b]
            top = max(top, z)
        total = 0.0
        acc = np.zeros(d1)
        for k in range(T):
            z = 0.0
            for b in range(d1):
                z += q[b] * X[k, b]
            w = np.exp(z - top)
            total += w
            for b in range(d1):
                acc[b] += w * X[k, b]
        for c in range(d2):
            s = 0.0
            for b in range(d1):
                s += acc[b] * V[b, c]
            out[i, c] = s / total
    return out
