"""Training of the MHA target of Figures 4 and 5 on the angular-velocity task (Appendix B.1), with PyTorch.

PyTorch is an optional extra (``pip install -e .[torch]``); it is imported only inside the functions here, and
:func:`torch_available` says whether it is there. The recipe is Appendix B.1's: AdamW, batch 1024, learning rate
0.1, 25 epochs, weight decay 0.01, 10,000 training and 10,000 validation samples whose lengths vary uniformly in
4..256 (padded, with the padding masked out of the attention), mean squared error of the prediction read at the
regression token. Autodiff is PyTorch's; float64 throughout.

A property of this setting worth knowing: the regression token is the zero vector, so its query is zero, all its
logits vanish and it attends uniformly to the sequence. Its output ``mean(X) W_V W_O`` does not depend on
``W_Q, W_K``: they receive no gradient and training changes them only through the weight decay.

The regression token, read two ways (Appendix B.1: "initialised to zero", shared by source and target):
``regression_token="zero"`` (default) keeps it the constant zero vector; ``regression_token="learned"`` makes it
a parameter of the target, initialised to zero and trained with the target's weights by the same optimiser (weight
decay included); the trained vector is returned (``info["regression_token"]``) and the sweeps put it in row 0 of
every source's and target's input (``slt.data``'s ``token=``). A nonzero token has a nonzero query, so ``W_Q``
and ``W_K`` then do receive gradients.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from slt.cache import load_npz, save_npz
from slt.data import angular_velocity_lengths
from slt.models import MHAWeights
from slt.samplers import as_rng, target_mha

__all__ = ["RECIPE", "TOKEN_READINGS", "torch_available", "train_mha", "mha_target"]

#: Appendix B.1's training recipe (plus the choices the paper leaves open: d_K = d_V = 8, lengths 4..256).
RECIPE = dict(d1=2, d2=1, dK=8, dV=8, n_train=10_000, n_val=10_000, T_min=4, T_max=256,
              batch=1024, lr=0.1, epochs=25, weight_decay=0.01, regression_token="zero")
#: The two readings of Appendix B.1's regression token (see the module docstring).
TOKEN_READINGS = ("zero", "learned")


def torch_available() -> bool:
    try:
        import torch  # noqa: F401  (optional [torch] extra: is it there?)
    except ImportError:
        return False
    return True


def _forward_regression(torch, params, X, key_mask, scale, token=None):
    """Output at the regression token (row 0) of the single-head target, padding masked out of the softmax;
    ``token`` (a learned (d1,) vector) replaces row 0 when given."""
    WQ, WK, WV, WO = params
    if token is not None:
        X = torch.cat([token.expand(X.shape[0], 1, X.shape[2]), X[:, 1:, :]], dim=1)
    query = (X[:, :1, :] @ WQ) @ WK.T                  # (b, 1, d1): x_0^T W_Q W_K^T, associated to skip (b, T, dK)
    logits = scale * query @ X.transpose(1, 2)         # (b, 1, T+1)
    logits = logits.masked_fill(~key_mask[:, None, :], float("-inf"))
    p = torch.softmax(logits, dim=-1)
    return ((p @ X) @ WV @ WO)[:, 0, 0]


def train_mha(initial: MHAWeights, rng, recipe: dict | None = None, log=None) -> tuple[MHAWeights, dict]:
    """Train a single-head MHA target (d2 = 1) from ``initial`` with Appendix B.1's recipe; returns the trained
    weights and a record of the run (losses per epoch, the variance of omega as the constant-predictor baseline)."""
    import torch  # optional [torch] extra (heavy)

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the model is tiny: on a shared machine more threads only spin (70x slower measured)
    try:
        return _train(torch, initial, rng, dict(RECIPE, **(recipe or {})), log)
    finally:
        torch.set_num_threads(threads)


def _train(torch, initial, rng, r, log):
    if initial.H != 1 or initial.d2 != 1 or initial.d1 != 2:
        raise ValueError(f"the angular-velocity target is single-head with d1=2, d2=1, got H={initial.H}, "
                         f"d1={initial.d1}, d2={initial.d2}")
    rng = as_rng(rng)
    Xtr, Mtr, ytr = angular_velocity_lengths(r["n_train"], r["T_min"], r["T_max"], rng)
    Xva, Mva, yva = angular_velocity_lengths(r["n_val"], r["T_min"], r["T_max"], rng)
    as_t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
    Xtr, Mtr, ytr, Xva, Mva, yva = map(as_t, (Xtr, Mtr, ytr, Xva, Mva, yva))
    if r["regression_token"] not in TOKEN_READINGS:
        raise ValueError(f"regression_token must be one of {TOKEN_READINGS}, got {r['regression_token']!r}")
    params = [torch.nn.Parameter(as_t(getattr(initial, k)[0].copy())) for k in ("WQ", "WK", "WV", "WO")]
    token = (torch.nn.Parameter(torch.zeros(initial.d1, dtype=torch.float64))
             if r["regression_token"] == "learned" else None)
    opt = torch.optim.AdamW(params + ([token] if token is not None else []), lr=r["lr"], weight_decay=r["weight_decay"])
    history = []
    for epoch in range(r["epochs"]):
        order = torch.from_numpy(rng.permutation(r["n_train"]))
        total = 0.0
        for start in range(0, r["n_train"], r["batch"]):
            idx = order[start:start + r["batch"]]
            loss = torch.mean((_forward_regression(torch, params, Xtr[idx], Mtr[idx], initial.scale, token) - ytr[idx]) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        with torch.no_grad():
            val = float(torch.mean((_forward_regression(torch, params, Xva, Mva, initial.scale, token) - yva) ** 2))
        history.append({"epoch": epoch + 1, "train_mse": total / r["n_train"], "val_mse": val})
        if log:
            log(f"[train] epoch {epoch + 1}/{r['epochs']}: train MSE {total / r['n_train']:.4f}, val MSE {val:.4f}")
    vector = None if token is None else token.detach().numpy()
    return (MHAWeights(*(p.detach().numpy()[None].copy() for p in params), scale=initial.scale),
            {"trained": True, "torch": torch.__version__, "history": history,
             "baseline_mse": float(np.var(yva.numpy())), "recipe": r,
             "regression_token": _token_record(r["regression_token"], vector)})


def _token_record(reading: str, vector) -> dict:
    """How the regression token is read, and its vector (the zero vector for the "zero" reading)."""
    vec = [0.0, 0.0] if vector is None else [float(v) for v in np.asarray(vector, dtype=np.float64).ravel()]
    return {"reading": reading, "vector": vec}


def mha_target(seed: int, cache_dir=None, train: bool = True, log=None,
               regression_token: str = "zero") -> tuple[MHAWeights, dict]:
    """The MHA target of Figures 4-5: the paper's initialisation (seeded), trained with :func:`train_mha` when
    ``train`` and PyTorch is installed, else untrained (``info["trained"]`` says which).

    ``regression_token``: "zero" or "learned" (see the module docstring); ``info["regression_token"]`` records the
    reading and the vector the sweeps must put in row 0 of every input. An untrained target's token is zero under
    either reading (it is initialised to zero and not trained).

    Trained weights are cached in ``cache_dir/targets/`` as a small .npz (written atomically), so sweeps train once.
    """
    if regression_token not in TOKEN_READINGS:
        raise ValueError(f"regression_token must be one of {TOKEN_READINGS}, got {regression_token!r}")
    r = RECIPE
    initial = target_mha(np.random.default_rng([seed, 0]), r["d1"], r["d2"], 1, r["dK"], r["dV"], init="paper")
    if not (train and torch_available()):
        reason = "not requested" if not train else "PyTorch not installed"
        return initial, {"trained": False, "reason": reason, "regression_token": _token_record(regression_token, None)}
    suffix = "" if regression_token == "zero" else "_learned_token"
    path = None if cache_dir is None else Path(cache_dir) / "targets" / f"mha_target_seed{seed}_dK{r['dK']}{suffix}.npz"
    if path is not None and path.exists():
        data = load_npz(path)
        weights = MHAWeights(data["WQ"], data["WK"], data["WV"], data["WO"], scale=float(data["scale"]))
        token = data["token"] if "token" in data else None
        if regression_token == "learned" and token is None:
            raise ValueError(f"{path}: a learned-token target without its token; delete the file to retrain")
        return weights, {"trained": True, "cached": str(path), "val_mse": float(data["val_mse"]),
                         "baseline_mse": float(data["baseline_mse"]), "torch": str(data["torch"]),
                         "regression_token": _token_record(regression_token, token)}
    weights, info = train_mha(initial, np.random.default_rng([seed, 1]), {"regression_token": regression_token}, log=log)
    if path is not None:
        extra = {} if regression_token == "zero" else {"token": np.asarray(info["regression_token"]["vector"])}
        save_npz(path, WQ=weights.WQ, WK=weights.WK, WV=weights.WV, WO=weights.WO, scale=weights.scale,
                 val_mse=info["history"][-1]["val_mse"], baseline_mse=info["baseline_mse"], torch=info["torch"], **extra)
    return weights, {"trained": True, "val_mse": info["history"][-1]["val_mse"],
                     "baseline_mse": info["baseline_mse"], "torch": info["torch"],
                     "regression_token": info["regression_token"]}
