"""Theorem 9 at large d1, H and T with the forward passes in PyTorch (float64), on any device.

The tickets are built on the CPU by ``slt.construct``; ``torch_mha`` evaluates the target and the ticket on
``device`` ("cpu" or "cuda") after agreeing with ``slt.models.mha`` on a short input. The same code runs in the
default test run on the CPU at small sizes and behind the ``gpu`` marker on CUDA at d1 = 16, H = 8, T = 2^14.
Needs the optional ``[torch]`` extra; ``require_torch`` says so in one line when it is missing.
"""
from __future__ import annotations

import numpy as np

from slt.measure import calibration
from slt.measure.evidence import Case, exceeds
from slt.measure.statements.theorem9 import build
from slt.models import mha
from slt.samplers import attention_mask, inputs


def require_torch():
    """The torch module, or an ImportError naming the extra that provides it."""
    try:
        import torch  # optional [torch] extra (heavy)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("PyTorch is not installed: pip install -e .[torch]") from exc
    return torch


def torch_mha(X, w, mask, device: str = "cpu") -> np.ndarray:
    """``slt.models.mha(X, w, mask)`` computed by PyTorch on ``device`` in float64."""
    torch = require_torch()
    dev = torch.device(device)
    Xt = torch.as_tensor(np.asarray(X, dtype=np.float64), device=dev)
    M = torch.as_tensor(np.asarray(mask, dtype=bool), device=dev)
    out = torch.zeros((Xt.shape[0], w.WO[0].shape[1]), dtype=torch.float64, device=dev)
    for h in range(w.H):
        Q, K = Xt @ torch.as_tensor(w.WQ[h], device=dev), Xt @ torch.as_tensor(w.WK[h], device=dev)
        logits = (w.scale * Q @ K.T).masked_fill(~M, float("-inf"))
        V = Xt @ torch.as_tensor(w.WV[h], device=dev) @ torch.as_tensor(w.WO[h], device=dev)
        out = out + torch.softmax(logits, dim=-1) @ V
    result = out.cpu().numpy()
    if not np.all(np.isfinite(result)):
        raise FloatingPointError(f"torch_mha on {device}: non-finite output (logits or values overflow)")
    return result


def length_cases(seed: int, d1: int, d2: int, H: int, eps: float, lengths, device: str = "cpu",
                 masks=("full", "causal", "random")) -> tuple[list[Case], float]:
    """Theorem 9 tickets at the checked C, evaluated on unit-sphere inputs scaled to alpha = sqrt(d1) for every
    T in ``lengths`` and every mask kind; returns the cases and the largest torch-vs-numpy difference on a short
    input (the agreement the long evaluations rest on)."""
    alpha = float(np.sqrt(max(d1, d2)))
    C = calibration.check_constant("theorem9")
    target, ticket, widths = build(seed, C, d1, d2, H, alpha, eps)
    Xs = inputs(seed, 8, d1, alpha)
    full = np.ones((8, 8), dtype=bool)
    agreement = float(np.abs(torch_mha(Xs, target, full, device) - mha(Xs, target, full)).max())
    cases = []
    for T in lengths:
        for kind in masks:
            X = inputs(seed + T, T, d1, alpha, sphere=True)
            M = attention_mask(seed, T, kind)
            err = float(np.linalg.norm(torch_mha(X, ticket.pruned, M, device) - torch_mha(X, target, M, device),
                                       axis=-1).max())
            cases.append(Case("theorem9", {"C": C, "d1": d1, "d2": d2, "H": H, "alpha": alpha, "eps": eps, "T": T,
                                           "mask": kind}, seed, err, eps, violated=exceeds(err, eps), widths=widths))
    return cases, agreement
