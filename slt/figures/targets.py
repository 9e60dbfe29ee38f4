"""Targets, test data, tickets and per-source errors of the figure sweeps (the numerics every figure shares).

Error (*choice*, docs/statements.md#theorem9's quantity): for one source and one test sequence, the largest
``||Out_S(x_i) - Out_T(x_i)||`` over all T + 1 tokens (the regression token included), full attention mask;
per source the mean of that over a fixed seeded batch of test sequences (``err``; its maximum is kept as
``err_worst``, and the error at the regression token alone as ``err_reg``).

Worker side: a task carries its target (the MHA weights themselves, or the transformer's seed and tag), so any
Dask worker rebuilds it; targets, test batches and target outputs are memoised per process.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from slt import construct
from slt.cache import fingerprint
from slt.data import angular_velocity
from slt.figures.plans import D1, D_K, INITS, MIP_TIME_LIMIT, TOL
from slt.models import MHAWeights, block, mha
from slt.samplers import source_mha, source_transformer, target_transformer

__all__ = ["mha_target", "transformer_target", "weights_hash", "evaluation_inputs", "target_outputs",
           "per_sequence", "mha_item", "transformer_item", "source_rng"]


def weights_hash(model) -> str:
    """The fingerprint of a model's weight arrays: part of the target tag, so items follow the weights themselves."""
    pairs = [(model, ())] if isinstance(model, MHAWeights) else [(b.mha, b.fc.layers) for b in model.blocks]
    return fingerprint(*(np.ascontiguousarray(a, dtype=np.float64).tobytes() for w, fc in pairs
                         for a in (w.WQ, w.WK, w.WV, w.WO, np.float64(w.scale), *fc)))[:10]


def mha_target(results_dir, train=True, seed=0, log=None, regression_token="zero"):
    """Figures 4-5's target and a description of it (``slt.train.mha_target``, cached under ``results_dir``);
    ``regression_token``: "zero" or "learned" (``info["regression_token"]`` records the reading and the vector)."""
    from slt import train as training  # (Numba, SciPy: imported by the sweeps that need them, not by `slth diff`)

    weights, info = training.mha_target(seed, cache_dir=results_dir, train=train, log=log,
                                        regression_token=regression_token)
    tag = f"mha-paper-dK{D_K}-seed{seed}-" + ("trained" if info["trained"] else "untrained")
    if regression_token != "zero":
        tag += f"-{regression_token}-token"
    return weights, dict(info, tag=f"{tag}-{weights_hash(weights)}")


def mha_params(weights, tag, token=None) -> dict:
    """The target as task parameters (JSON): its weights and tag, and the learned regression token when there is
    one (placed in row 0 of every test input; absent: the zero token)."""
    params = {"tag": tag, "WQ": weights.WQ.tolist(), "WK": weights.WK.tolist(), "WV": weights.WV.tolist(),
              "WO": weights.WO.tolist(), "scale": float(weights.scale)}
    if token is not None:
        params["token"] = [float(v) for v in token]
    return params


_TARGETS: dict = {}


def _mha_from_params(target: dict):
    if target["tag"] not in _TARGETS:
        _TARGETS[target["tag"]] = MHAWeights(*(np.asarray(target[k], dtype=np.float64) for k in ("WQ", "WK", "WV", "WO")),
                                             scale=target["scale"])
    return _TARGETS[target["tag"]]


@functools.lru_cache(maxsize=None)
def transformer_target(blocks, seed=0):
    target = target_transformer(np.random.default_rng([seed, 6]), blocks, D1, 1, D_K, D_K, L=1, init="paper")
    return target, {"trained": False,
                    "tag": f"transformer-paper-B{blocks}-dK{D_K}-L1-seed{seed}-{weights_hash(target)}"}


@functools.lru_cache(maxsize=32)
def evaluation_inputs(T, batch, seed=0, token=None):
    """The fixed, seeded test batch of length-T sequences (plus the regression token: zero, or ``token``)."""
    return angular_velocity(batch, T, np.random.default_rng([seed, 1000 + T]), token=token)[0]


def target_outputs(X, target, long=False):
    """The single-head MHA ``target`` on the test batch ``X``: through the merged-attention kernel for long
    sequences (``slt._sweep_kernels``), else ``slt.models.mha``."""
    if long:
        from slt._sweep_kernels import merged_attention

        WQK, WVO = target.merged()
        return np.stack([merged_attention(x, WQK[0], WVO[0]) for x in X])
    return mha(X, target)


@functools.lru_cache(maxsize=32)
def _mha_data(tag, T, batch, long, token=None):
    X = evaluation_inputs(T, batch, token=token)
    return X, target_outputs(X, _TARGETS[tag], long=long)


@functools.lru_cache(maxsize=32)
def _transformer_data(blocks, T, batch):
    target, _ = transformer_target(blocks)
    X = evaluation_inputs(T, batch)
    outs, Y = [], X
    for blk in target.blocks:
        Y = block(Y, blk)
        outs.append(Y)
    return X, outs


def source_rng(code, init, n, seed):
    return np.random.default_rng([seed, code, INITS.index(init), n])


def per_sequence(diff_norms):
    """(batch, T+1) token error norms -> per-source record (see the module docstring)."""
    worst = diff_norms.max(axis=1)
    return {"err": float(worst.mean()), "err_worst": float(worst.max()), "err_reg": float(diff_norms[:, 0].mean())}


def _mha_ticket(target, source, solver, time_limit):
    """Theorem 9 ticket with the subset sums solved by ``slt.subset_sum`` (to TOL) or by ``slt.mip``."""
    from slt import mip

    if solver == "exact":
        return construct.mha(target, source, tol=TOL, best_effort=True), {}
    limits = {"highs": "time_limit", "highspy": "time_limit", "gurobi": "TimeLimit"}
    spent = {"solver_s": 0.0, "timeouts": 0}

    def by_mip(items, targets):
        masks, _, times = mip.solve(items, targets, backend=solver, **{limits[solver]: time_limit})
        spent["solver_s"] += float(np.sum(times))
        spent["timeouts"] += int(np.sum(np.asarray(times) >= 0.99 * time_limit))
        return np.asarray(masks, dtype=bool)

    return construct.mha(target, source, solver=by_mip), spent


def mha_item(code, long, seed, init, n, T, test_batch, target, solver="exact", time_limit=MIP_TIME_LIMIT, **_):
    """One source of an MHA sweep (Figures 4 and 5): ticket, errors on the test batch, worst entry errors."""
    start = time.perf_counter()
    weights = _mha_from_params(target)
    token = target.get("token")
    X, target_out = _mha_data(target["tag"], T, test_batch, long, None if token is None else tuple(token))
    source = source_mha(source_rng(code, init, n, seed), D1, 1, 1, n, n, init=init)
    ticket, extra = _mha_ticket(weights, source, solver, time_limit)
    record = per_sequence(np.linalg.norm(target_outputs(X, ticket.pruned, long=long) - target_out, axis=-1))
    record.update(extra, qk_max_error=float(ticket.qk_max_error.max()), vo_max_error=float(ticket.vo_max_error.max()))
    record["seconds"] = time.perf_counter() - start
    return record


def transformer_item(code, seed, init, n, T, test_batch, blocks, target_tag, **_):
    """One source of Figure 6: ONE ``blocks``-block ticket, the error read after each block b = 1..blocks."""
    start = time.perf_counter()
    target, info = transformer_target(blocks)
    if info["tag"] != target_tag:
        raise ValueError(f"this worker builds target {info['tag']}, the task asks for {target_tag}")
    X, target_out = _transformer_data(blocks, T, test_batch)
    source = source_transformer(source_rng(code, init, n, seed), blocks, D1, 1, n, n, L=1, init=init)
    ticket = construct.transformer(target, source, tol=TOL, best_effort=True)
    per_block, Y = [], X
    for blk, out in zip(ticket.pruned.blocks, target_out):
        Y = block(Y, blk)
        per_block.append(per_sequence(np.linalg.norm(Y - out, axis=-1)))
    record = {k: [b[k] for b in per_block] for k in per_block[0]}
    record["entry_max_error"] = float(max(max(b.mha.qk_max_error.max(), b.mha.vo_max_error.max(),
                                              b.fc.max_errors.max()) for b in ticket.blocks))
    record["seconds"] = time.perf_counter() - start
    return record
