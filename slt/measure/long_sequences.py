"""Theorem 9 at very long inputs on the CPU (T up to 2^16 and beyond), without a (T, T) matrix.

The multi-head output is the sum over heads of single-head attention in merged form, each computed by the Numba
kernel of ``slt._sweep_kernels`` (two passes per query: row maximum, then exponentials; full mask, d1 = 2):
memory O(T), time O(H T^2). At T = 2^16 a dense logit matrix would take 34 GB per head; here a sequence costs
seconds to minutes. Before any long evaluation the kernel's sum is compared with ``slt.models.mha`` on a short
input (the agreement the long cases rest on, returned with them).
"""
from __future__ import annotations

import numpy as np

from slt.measure.evidence import Case, exceeds

__all__ = ["long_mha", "theorem9_long_cases"]


def long_mha(X, weights) -> np.ndarray:
    """``slt.models.mha(X, weights)`` with the full mask for d1 = 2, in O(T) memory."""
    from slt._sweep_kernels import merged_attention

    QK, VO = weights.merged()
    return sum(merged_attention(X, QK[h], VO[h]) for h in range(QK.shape[0]))


def theorem9_long_cases(seed: int, d2: int, H: int, eps: float, lengths, C: float | None = None):
    """Theorem 9 tickets (d1 = 2, alpha = sqrt(max(d1, d2)), built by its proof's construction at ``C``, default the
    checks' constant) evaluated on unit-sphere inputs scaled to alpha at every T in ``lengths``; returns
    ``(cases, agreement)`` (agreement: the largest difference from ``slt.models.mha`` on a T = 16 input)."""
    from slt.measure import calibration
    from slt.measure.statements.theorem9 import build
    from slt.models import mha
    from slt.samplers import inputs

    d1 = 2
    alpha = float(np.sqrt(max(d1, d2)))
    C = calibration.check_constant("theorem9") if C is None else float(C)
    target, ticket, widths = build(seed, C, d1, d2, H, alpha, eps)
    short = inputs(seed, 16, d1, alpha)
    agreement = float(max(np.abs(long_mha(short, w) - mha(short, w)).max() for w in (target, ticket.pruned)))
    cases = []
    for T in lengths:
        X = inputs(seed + T, T, d1, alpha, sphere=True)
        err = float(np.linalg.norm(long_mha(X, ticket.pruned) - long_mha(X, target), axis=-1).max())
        cases.append(Case("theorem9", {"C": C, "d1": d1, "d2": d2, "H": H, "alpha": alpha, "eps": eps, "T": int(T),
                                       "mask": "full"}, seed, err, eps, what="max_i ||Attn_S - Attn_T|| (long input)",
                          violated=exceeds(err, eps), widths=widths))
    return cases, agreement
