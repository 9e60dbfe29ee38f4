"""Large-scale checks on a CUDA device (marker ``gpu``): Theorem 9 at d1 = d2 = 16, H = 8 and T up to 2^14. The tickets are built on the CPU by ``slt.construct``; only the forward passes run on the GPU, in
float64 PyTorch, after agreeing with ``slt.models.mha`` on a short input."""
from __future__ import annotations

import numpy as np
import pytest

from checks import calibration
from checks.evidence import Case, exceeds, report_failures

pytestmark = pytest.mark.gpu


def _torch_mha(X, w, mask):
    import torch

    dev = torch.device("cuda")
    X = torch.as_tensor(X, device=dev)
    out = 0
    for h in range(w.H):
        Q, K = X @ torch.as_tensor(w.WQ[h], device=dev), X @ torch.as_tensor(w.WK[h], device=dev)
        logits = (w.scale * Q @ K.T).masked_fill(~torch.as_tensor(mask, device=dev), float("-inf"))
        V = X @ torch.as_tensor(w.WV[h], device=dev) @ torch.as_tensor(w.WO[h], device=dev)
        out = out + torch.softmax(logits, dim=-1) @ V
    return out.cpu().numpy()


def test_theorem9_large_dimensions_and_length_on_gpu():
    from checks.check_theorem9 import build
    from slt.models import mha
    from slt.samplers import attention_mask, inputs

    d1 = d2 = 16
    H, eps, seed = 8, 0.2, 5
    alpha = float(np.sqrt(d1))
    C = calibration.check_constant("theorem9")
    target, ticket, widths = build(seed, C, d1, d2, H, alpha, eps)
    Xs = inputs(seed, 8, d1, alpha)
    full = np.ones((8, 8), dtype=bool)
    assert np.allclose(_torch_mha(Xs, target, full), mha(Xs, target, full), rtol=1e-10, atol=1e-12)
    cases = []
    for T in (2**10, 2**12, 2**14):
        for kind in ("full", "causal", "random"):
            X = inputs(seed + T, T, d1, alpha, sphere=True)
            M = attention_mask(seed, T, kind)
            err = float(np.linalg.norm(_torch_mha(X, ticket.pruned, M) - _torch_mha(X, target, M), axis=-1).max())
            cases.append(Case("theorem9", {"C": C, "d1": d1, "d2": d2, "H": H, "alpha": alpha, "eps": eps, "T": T,
                                           "mask": kind}, seed, err, eps, violated=exceeds(err, eps), widths=widths))
    assert not report_failures(cases), report_failures(cases)

