"""Measurements of Theorem 9 (docs/statements.md#theorem9) on a built ticket: output error over random and adversarial inputs
and masks, and the a-posteriori proof chain S2b..S3c from the ticket's measured ΔQK and ΔVO.

The masks are chosen once from the weights (``slt.construct.mha``); inputs and attention masks are drawn AFTER
pruning (docs/checks.md).
"""
from __future__ import annotations

import numpy as np

import bounds
from slt.measure.adversarial import ball, maximise
from slt.models import masked_softmax, mha
from slt.samplers import attention_mask, inputs

MASK_KINDS = ("full", "causal", "random")
CHAIN = ("S2b", "S2c", "S3a", "S3b", "head", "S3c")


def output_error(source, target, X, mask=None, forward=None) -> float:
    """``max_{i, batch} ||F_S(x_i) - F_T(x_i)||`` for a forward pass ``forward`` (default ``slt.models.mha``)."""
    forward = forward or mha
    return float(np.linalg.norm(forward(X, source, mask) - forward(X, target, mask), axis=-1).max())


def input_battery(rng, T: int, d1: int, alpha: float, batch: int = 2):
    """Random inputs with ``||x_i|| <= alpha`` (on and inside the sphere) paired with each mask kind."""
    rng = np.random.default_rng(rng)
    for kind in MASK_KINDS:
        for sphere in (True, False):
            yield kind, inputs(rng, T, d1, alpha, sphere=sphere, batch=batch), attention_mask(rng, T, kind, batch=batch)


def worst_random(source, target, rng, Ts, d1: int, alpha: float, batch: int = 2, forward=None,
                 label: str = "random inputs"):
    """``(error, description)`` of the worst random case over lengths ``Ts`` and every mask kind (the description
    begins with ``label``)."""
    best = (-np.inf, None)
    for T in Ts:
        for kind, X, M in input_battery(np.random.default_rng([rng, T]), T, d1, alpha, batch):
            err = output_error(source, target, X, M, forward)
            if err > best[0]:
                best = (err, f"{label} T={T} mask={kind}")
    return best


def worst_adversarial(source, target, rng, T: int, d1: int, alpha: float, restarts: int = 2, maxiter: int = 30,
                      forward=None):
    """``(error, X, kind)``: inputs in the alpha-ball optimised (L-BFGS, seeded restarts) for the output error."""
    best = (-np.inf, None, None)
    for kind in ("full", "causal"):
        M = attention_mask(0, T, kind)

        def objective(theta):
            return output_error(source, target, ball(theta.reshape(T, d1), alpha), M, forward)

        found = maximise(objective, T * d1, np.random.default_rng([rng, len(kind)]), restarts=restarts,
                         maxiter=maxiter, scale=2.0)
        if found.value > best[0]:
            best = (found.value, ball(found.theta.reshape(T, d1), alpha), kind)
    return best


def chain_terms(ticket, target, alpha: float, d2: int) -> list[dict]:
    """Per head h, ``bounds.get("theorem9").term(step, dQK_max=||ΔQK_h||_max, dVO_max=||ΔVO_h||_max, ...)``."""
    st = bounds.get("theorem9")
    return [{s: st.term(s, d1=target.d1, d2=d2, alpha=alpha, dQK_max=float(ticket.qk_max_error[h]),
                        dVO_max=float(ticket.vo_max_error[h])) for s in CHAIN[:-1]} for h in range(target.H)]


def chain(ticket, target, X, mask, terms):
    """Per step of the a-posteriori chain: ``(measured, bound)`` at the worst head (largest ratio), maximised over
    queries and batch; ``terms`` from ``chain_terms``. S3c compares the total error with the sum over heads of the
    ``head`` terms."""
    WQK, WVO = target.merged()
    PQK, PVO = ticket.pruned.merged()
    X = np.asarray(X, dtype=float)
    out = {step: (0.0, 1.0) for step in CHAIN}
    for h in range(target.H):
        p = masked_softmax(X @ WQK[h] @ np.swapaxes(X, -1, -2), mask)
        q = masked_softmax(X @ PQK[h] @ np.swapaxes(X, -1, -2), mask)
        measured = {
            "S2b": np.abs(X @ ticket.dQK[h] @ np.swapaxes(X, -1, -2)).max(),
            "S2c": np.linalg.norm((p - q) @ X, axis=-1).max(),
            "S3a": np.linalg.norm((p - q) @ X @ WVO[h], axis=-1).max(),
            "S3b": np.linalg.norm(q @ X @ ticket.dVO[h], axis=-1).max(),
            "head": np.linalg.norm(q @ X @ PVO[h] - p @ X @ WVO[h], axis=-1).max(),
        }
        for s, v in measured.items():
            if v / terms[h][s] > out[s][0] / out[s][1]:
                out[s] = (float(v), terms[h][s])
    total = float(np.linalg.norm(mha(X, ticket.pruned, mask) - mha(X, target, mask), axis=-1).max())
    out["S3c"] = (total, sum(t["head"] for t in terms))
    return out
