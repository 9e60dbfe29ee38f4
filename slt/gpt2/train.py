"""One edge-popup training run of Figures 7 and 8: scores trained, weights fixed, validation loss per epoch.

The recipe (experiments.md, Fig. 7/8): AdamW on the scores, learning rate warmed up linearly over the first epoch
to ``lr``, then a cosine decay to ``lr_min`` at the last step; the paper's values are ``lr = 1e-4``,
``lr_min = 1e-5`` and 50 epochs of 227 steps. *Choices*: AdamW's weight decay 0.01 (PyTorch's default; the paper
does not give one); an "epoch" is ``steps_per_epoch`` steps of ``batch`` windows of ``context + 1`` tokens drawn
uniformly (seeded) from the training text; the validation loss is the mean next-token cross-entropy (nats per
token) over ``val_windows`` fixed windows spread evenly over the validation text, measured before training and
after every epoch.

Runs on one torch thread by default (as ``slt.train``: small models on a shared machine are far faster that way).
"""
from __future__ import annotations

import math
import time

import numpy as np

from slt.gpt2 import corpus as corpus_mod
from slt.tasks import returns

__all__ = ["RECIPE", "lr_at", "windows", "train_run", "run_item", "TASK_DEPENDS"]

#: Modules a cached ``run_item`` result depends on (besides this one); see ``slt.tasks``.
TASK_DEPENDS = ("slt.gpt2.model", "slt.gpt2.corpus")

#: The paper's optimiser schedule with this harness's CPU-sized step counts (see the module docstring).
RECIPE = dict(lr=1e-4, lr_min=1e-5, weight_decay=0.01, epochs=50, steps_per_epoch=10, batch=16, val_windows=128)


def lr_at(step: int, total: int, warmup: int, lr: float, lr_min: float) -> float:
    """Learning rate of (0-based) ``step``: linear warm-up to ``lr`` over ``warmup`` steps, then cosine to ``lr_min``."""
    if step < warmup:
        return lr * (step + 1) / warmup
    span = max(total - warmup - 1, 1)
    progress = min((step - warmup) / span, 1.0)
    return lr_min + 0.5 * (lr - lr_min) * (1.0 + math.cos(math.pi * progress))


def windows(tokens: np.ndarray, starts: np.ndarray, length: int) -> np.ndarray:
    return tokens[starts[:, None] + np.arange(length)[None, :]].astype(np.int64)


def train_run(cfg, seed: int, recipe: dict | None = None, corpus=None, device: str = "cpu", dtype: str = "float64",
              threads: int | None = 1, log=None) -> dict:
    """Train the scores of ``EdgePopupGPT(cfg, seed)``; returns the validation-loss curve and the run's facts.

    The weights (seed ``seed``), the score initialisation and the batches (seeded by ``seed``) are fixed by
    ``seed``, so a configuration's runs differ only in the quantity being compared (for Fig. 8, the scale).
    """
    import torch  # optional [torch] extra (heavy)

    from slt.gpt2.model import EdgePopupGPT  # imports torch

    r = dict(RECIPE, **(recipe or {}))
    corpus = corpus_mod.load() if corpus is None else corpus
    old_threads = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        start = time.perf_counter()
        model = EdgePopupGPT(cfg, seed).to(device=device, dtype=getattr(torch, dtype))
        weights_before = [m.w.clone() for m in model.masked_modules()]
        params = [m.scores for m in model.masked_modules()]
        opt = torch.optim.AdamW(params, lr=r["lr"], weight_decay=r["weight_decay"])
        rng = np.random.default_rng([int(seed), 7])
        L = cfg.context + 1
        val_starts = np.linspace(0, corpus.val.size - L, r["val_windows"]).astype(np.int64)
        val = torch.from_numpy(windows(corpus.val, val_starts, L)).to(device)

        def val_loss():
            with torch.no_grad():
                total = 0.0
                for chunk in val.split(64):
                    total += float(model.loss(chunk[:, :-1], chunk[:, 1:])) * len(chunk)
            return total / len(val)

        total_steps = r["epochs"] * r["steps_per_epoch"]
        curve = [val_loss()]
        train_curve = []
        step = 0
        for epoch in range(r["epochs"]):
            running = 0.0
            for _ in range(r["steps_per_epoch"]):
                for group in opt.param_groups:
                    group["lr"] = lr_at(step, total_steps, r["steps_per_epoch"], r["lr"], r["lr_min"])
                starts = rng.integers(0, corpus.train.size - L, size=r["batch"])
                batch = torch.from_numpy(windows(corpus.train, starts, L)).to(device)
                loss = model.loss(batch[:, :-1], batch[:, 1:])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                running += float(loss.detach())
                step += 1
            train_curve.append(running / r["steps_per_epoch"])
            curve.append(val_loss())
            if log:
                log(f"[gpt2] s={cfg.qk_scale:g} n_K={cfg.n_K} seed={seed} epoch {epoch + 1}/{r['epochs']}: "
                    f"train {train_curve[-1]:.4f}, val {curve[-1]:.4f}")
        unchanged = all(torch.equal(a, m.w) for a, m in zip(weights_before, model.masked_modules()))
        return {"val_loss": curve, "train_loss": train_curve, "final_val_loss": curve[-1],
                "best_val_loss": min(curve), "weights_unchanged": bool(unchanged), "steps": step,
                "seconds": time.perf_counter() - start, "torch": torch.__version__, "device": str(device),
                "dtype": dtype}
    finally:
        torch.set_num_threads(old_threads)


@returns(final_val_loss=float, best_val_loss=float, val_loss=list, train_loss=list, weights_unchanged=bool,
         seconds=float, corpus_sha256=str)
def run_item(seed: int, model: dict, recipe: dict, corpus_sha256: str, device: str = "cpu",
             dtype: str = "float32") -> dict:
    """One (configuration, seed) item of Figures 7-8 as an ``slt.tasks`` task: ``model`` holds the ``GPTConfig``
    fields, ``recipe`` the training recipe; ``corpus_sha256`` must be the loaded corpus's (results on another
    corpus are never produced under this configuration)."""
    from slt.gpt2.model import GPTConfig  # imports torch

    corpus = corpus_mod.load()
    if corpus.sha256 != corpus_sha256:
        raise ValueError(f"corpus SHA-256 {corpus.sha256} differs from the configuration's {corpus_sha256}")
    out = train_run(GPTConfig(**model), seed, recipe, corpus=corpus, device=device, dtype=dtype)
    return dict(out, corpus_sha256=corpus.sha256)
