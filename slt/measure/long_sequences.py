"""Theorem 9 at very long inputs on the CPU (T up to 2^16 and beyond), without a (T, T) matrix.

The multi-head output is the sum over heads of single-head attention in merged form, each computed by the Numba
kernel of ``slt._sweep_kernels`` (two passes per query: row maximum, then exponentials; full mask, d1 = 2):
memory O(T), time O(H T^2). At T = 2^16 a dense logit matrix would take 34 GB per head; here a sequence costs
seconds to minutes. Before any long evaluation the kernel's sum is compared with ``slt.models.mha`` on a short
input (the agreement the long cases rest on, returned with them: ``slt.measure.statements.theorem9.long_cases``).
"""
from __future__ import annotations

import numpy as np


__all__ = ["long_mha"]


def long_mha(X, weights) -> np.ndarray:
    """``slt.models.mha(X, weights)`` with the full mask for d1 = 2, in O(T) memory."""
    QK, VO = weights.merged()
    from slt._sweep_kernels import merged_attention  # Numba: imported when a long sequence is evaluated

    return sum(merged_attention(X, QK[h], VO[h]) for h in range(QK.shape[0]))
