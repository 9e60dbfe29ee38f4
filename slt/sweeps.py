"""The sweeps of Figures 4, 5 and 6 (Section 4.2, Appendix B.1) on the angular-velocity task.

Protocol (experiments.md; the choices the paper leaves open are marked *choice*):

- Fig. 4: single-head MHA target (d1 = 2, d2 = 1, *choice* d_K = d_V = 8 as in the transformer experiment),
  the paper's target initialisation, trained by ``slt.train`` when PyTorch is installed (else untrained, and
  every summary says so); sources with n_K = n_V = n (n a multiple of d1 for Lemma 7's block-diagonal mask),
  T = 4. Fig. 5: the same target at n = 20 and 40, T = 2^3 .. 2^13. Fig. 6: untrained transformer target
  (``init="paper"``, d1 = 2, d_K = d_V = 8, single head, *choice* one target FC layer / two source FC layers as
  in Theorem 6), n_MHA = n_FC = n; ONE 4-block ticket per source, the error read after each block b = 1..4
  (Theorem 14's masks of block b depend only on block b, so its first b blocks are the b-block ticket).
  *Extension*: Fig. 6 also runs n = 20..90, below the paper's 100..224, so that the decay is seen before the
  errors reach the subset sums' tolerance floor.
- Every sweep runs with both source initialisations, ``theory`` and ``xavier`` (Section 4.1 vs Appendix B.1).
- Tickets: ``slt.construct`` (Lemma 7 / Theorem 9 / 14 construction), every subset sum solved by
  ``slt.subset_sum.solve`` to the absolute tolerance ``TOL`` per entry (it returns the exact optimum whenever
  that is above ``TOL``; n' > 40 goes through the solver's windowed best-effort search). The mixed-integer
  variant solves the same subset sums with ``slt.mip.solve`` at the solver's default tolerances, with a
  per-entry time limit ``MIP_TIME_LIMIT`` (HiGHS otherwise spends minutes on single entries at n' = 30; the
  summaries count the entries that hit it).
- Cache: one file per (configuration, source seed); the configuration holds every parameter, the target's tag
  (with a hash of its weights), ``VERSION`` (bumped when this module's computation changes) and
  ``code_fingerprint`` (a hash of the solver, construction, model, sampler and data sources), so results of
  changed code or another target are recomputed, never mixed in.
- Error (*choice*, theorems.md §5's quantity): for one source and one test sequence, the largest
  ``||Out_S(x_i) - Out_T(x_i)||`` over all T + 1 tokens (the regression token included), full attention mask;
  per source the mean of that over a fixed seeded batch of test sequences (``err``; its maximum is kept as
  ``err_worst``, and the error at the regression token alone as ``err_reg``); per width the mean and standard
  deviation of ``err`` over the sources.
"""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from slt.cache import ResultCache, run as run_cached

__all__ = ["TOL", "MIP_TIME_LIMIT", "FIT_FLOOR", "PLANS", "Plan", "plan", "evaluation_inputs", "code_fingerprint",
           "items", "sweep", "mip_sweep", "summarise", "fits", "length_trend", "reproduce", "summary_path"]

#: Absolute per-entry tolerance of the subset sums (far below a mixed-integer solver's ~1e-7 floor).
TOL = 1e-9
#: Per-entry time limit (s) of the mixed-integer solver (HiGHS can take minutes per entry at n' = 30).
MIP_TIME_LIMIT = 10.0
#: Errors at or below this are at the tolerance floor of ``TOL`` and are left out of the fits (see ``fits``).
FIT_FLOOR = 1e-7
D1, D_K = 2, 8
INITS = ("theory", "xavier")
VERSION = 1


@dataclasses.dataclass(frozen=True)
class Plan:
    """What one figure's sweep computes."""

    figure: str
    widths: tuple
    lengths: tuple
    sources: int
    test_batch: int
    blocks: int = 1
    inits: tuple = INITS
    mip_widths: tuple = ()
    mip_sources: int = 0
    mip_inits: tuple = ("theory",)


def _even(lo, hi, step):
    return tuple(range(lo, hi + 1, step))


PLANS = {
    ("fig4", False): Plan("fig4", _even(4, 100, 2), (4,), 100, 256, mip_widths=(20, 40, 60), mip_sources=6),
    ("fig4", True): Plan("fig4", _even(4, 100, 8), (4,), 20, 64, mip_widths=(20, 28), mip_sources=3),
    ("fig5", False): Plan("fig5", (20, 40), tuple(2 ** k for k in range(3, 14)), 100, 2),
    ("fig5", True): Plan("fig5", (20, 40), tuple(2 ** k for k in range(3, 12)), 10, 2),
    ("fig6", False): Plan("fig6", _even(20, 90, 10) + (100, 126, 150, 176, 200, 224), (4,), 100, 256, blocks=4),
    ("fig6", True): Plan("fig6", (20, 40, 60, 80, 100, 150), (4,), 8, 64, blocks=4),
}


def plan(figure: str, quick: bool = False) -> Plan:
    try:
        return PLANS[(figure, bool(quick))]
    except KeyError:
        raise ValueError(f"unknown figure {figure!r}; expected one of fig4, fig5, fig6") from None


# ------------------------------------------------------------------------------------------- targets, data

def mha_target(results_dir, train=True, seed=0, log=None):
    """Figures 4-5's target and a description of it (``slt.train.mha_target``, cached under ``results_dir``)."""
    from slt.train import mha_target as make

    weights, info = make(seed, cache_dir=results_dir, train=train, log=log)
    tag = f"mha-paper-dK{D_K}-seed{seed}-" + ("trained" if info["trained"] else "untrained")
    return weights, dict(info, tag=f"{tag}-{_weights_hash(weights)}")


def _weights_hash(model) -> str:
    """Short hash of a model's weight arrays: part of the target tag, so items follow the weights themselves."""
    import hashlib

    from slt.models import MHAWeights

    digest = hashlib.sha256()
    for mha_weights, fc in ([(model, ())] if isinstance(model, MHAWeights) else [(b.mha, b.fc.layers) for b in model.blocks]):
        for array in (mha_weights.WQ, mha_weights.WK, mha_weights.WV, mha_weights.WO, np.float64(mha_weights.scale), *fc):
            digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return digest.hexdigest()[:10]


def transformer_target(blocks, seed=0):
    from slt.samplers import target_transformer

    target = target_transformer(np.random.default_rng([seed, 6]), blocks, D1, 1, D_K, D_K, L=1, init="paper")
    return target, {"trained": False,
                    "tag": f"transformer-paper-B{blocks}-dK{D_K}-L1-seed{seed}-{_weights_hash(target)}"}


def evaluation_inputs(T, batch, seed=0):
    """The fixed, seeded test batch of length-T sequences (plus the regression token)."""
    from slt.data import angular_velocity

    return angular_velocity(batch, T, np.random.default_rng([seed, 1000 + T]))[0]


def _source_rng(config, seed):
    code = {"fig4": 4, "fig5": 5, "fig6": 6}[config["figure"]]
    return np.random.default_rng([seed, code, INITS.index(config["init"]), config["n"]])


# ------------------------------------------------------------------------------------------------ errors

def _per_sequence(diff_norms):
    """(batch, T+1) token error norms -> per-source record (see the module docstring)."""
    worst = diff_norms.max(axis=1)
    return {"err": float(worst.mean()), "err_worst": float(worst.max()), "err_reg": float(diff_norms[:, 0].mean())}


def _mha_errors(X, target_out, pruned, long=False):
    if long:
        from slt._sweep_kernels import merged_attention

        PQK, PVO = pruned.merged()
        out = np.stack([merged_attention(x, PQK[0], PVO[0]) for x in X])
    else:
        from slt.models import mha

        out = mha(X, pruned)
    return _per_sequence(np.linalg.norm(out - target_out, axis=-1))


def target_outputs(X, target, long=False):
    if long:
        from slt._sweep_kernels import merged_attention

        WQK, WVO = target.merged()
        return np.stack([merged_attention(x, WQK[0], WVO[0]) for x in X])
    from slt.models import mha

    return mha(X, target)


def _mha_ticket(target, source, solver):
    """Theorem 9 ticket with the subset sums solved by ``slt.subset_sum`` (to TOL) or by ``slt.mip``."""
    from slt import construct

    if solver == "exact":
        return construct.mha(target, source, tol=TOL, best_effort=True), {}
    from slt import mip

    limits = {"highs": "time_limit", "highspy": "time_limit", "gurobi": "TimeLimit"}
    spent = {"solver_s": 0.0, "timeouts": 0}

    def by_mip(items, targets):
        masks, _, times = mip.solve(items, targets, backend=solver, **{limits[solver]: MIP_TIME_LIMIT})
        spent["solver_s"] += float(np.sum(times))
        spent["timeouts"] += int(np.sum(np.asarray(times) >= 0.99 * MIP_TIME_LIMIT))
        return np.asarray(masks, dtype=bool)

    return construct.mha(target, source, solver=by_mip), spent


# ------------------------------------------------------------------------------------------------ sweeps

class _Context:
    """Targets and test data shared by every item of a sweep (computed once per process)."""

    def __init__(self, plan: Plan, results_dir, train, log):
        self.plan = plan
        if plan.figure == "fig6":
            self.target, self.target_info = transformer_target(plan.blocks)
        else:
            self.target, self.target_info = mha_target(results_dir, train=train, log=log)
        self._data = {}

    def data(self, T):
        if T not in self._data:
            X = evaluation_inputs(T, self.plan.test_batch)
            if self.plan.figure == "fig6":
                outs, Y = [], X
                from slt.models import block

                for blk in self.target.blocks:
                    Y = block(Y, blk)
                    outs.append(Y)
                self._data[T] = (X, outs)
            else:
                self._data[T] = (X, target_outputs(X, self.target, long=self.plan.figure == "fig5"))
        return self._data[T]

    def compute(self, config, seed):
        from slt.samplers import source_mha, source_transformer

        start = time.perf_counter()
        rng = _source_rng(config, seed)
        X, target_out = self.data(config["T"])
        if config["figure"] == "fig6":
            from slt import construct
            from slt.models import block

            source = source_transformer(rng, self.plan.blocks, D1, 1, config["n"], config["n"], L=1, init=config["init"])
            ticket = construct.transformer(self.target, source, tol=TOL, best_effort=True)
            per_block, Y = [], X
            for blk, out in zip(ticket.pruned.blocks, target_out):
                Y = block(Y, blk)
                per_block.append(_per_sequence(np.linalg.norm(Y - out, axis=-1)))
            record = {k: [b[k] for b in per_block] for k in per_block[0]}
            record["entry_max_error"] = float(max(max(b.mha.qk_max_error.max(), b.mha.vo_max_error.max(),
                                                      b.fc.max_errors.max()) for b in ticket.blocks))
        else:
            source = source_mha(rng, D1, 1, 1, config["n"], config["n"], init=config["init"])
            ticket, extra = _mha_ticket(self.target, source, config["solver"])
            record = _mha_errors(X, target_out, ticket.pruned, long=config["figure"] == "fig5")
            record.update(extra, qk_max_error=float(ticket.qk_max_error.max()),
                          vo_max_error=float(ticket.vo_max_error.max()))
        record["seconds"] = time.perf_counter() - start
        return record


#: The modules an item's result depends on, besides this one (whose changes bump ``VERSION``), per solver.
_CODE = {"common": ("slt.construct._batch", "slt.construct.attention", "slt.construct.linear", "slt.models",
                    "slt.samplers", "slt.data", "slt._sweep_kernels"),
         "exact": ("slt.subset_sum", "slt._subset_sum_kernels"), "mip": ("slt.mip",)}


def code_fingerprint(solver="exact") -> str:
    """A short hash of the source files an item computed with ``solver`` depends on: part of every configuration,
    so a changed solver or construction never mixes with cached results of the old one."""
    import hashlib
    import importlib.util

    digest = hashlib.sha256()
    for name in _CODE["common"] + _CODE["exact" if solver == "exact" else "mip"]:
        digest.update(Path(importlib.util.find_spec(name).origin).read_bytes())
    return digest.hexdigest()[:12]


def items(plan: Plan, target_tag: str, solver="exact", widths=None, sources=None, inits=None):
    """The (configuration, seed) items of a sweep, in the order they run."""
    code = code_fingerprint(solver)
    out = []
    for init in plan.inits if inits is None else inits:
        for n in plan.widths if widths is None else widths:
            for T in plan.lengths:
                config = {"figure": plan.figure, "init": init, "n": int(n), "T": int(T), "tol": TOL,
                          "solver": solver, "test_batch": plan.test_batch, "target": target_tag, "version": VERSION, "code": code}
                if solver != "exact":
                    config["time_limit"] = MIP_TIME_LIMIT
                out += [(config, s) for s in range(plan.sources if sources is None else sources)]
    return out


def sweep(figure, quick=False, results_dir="results", train=True, log=None, stream=None):
    """Run (or resume) a figure's sweep; returns ``(plan, target_info, [(config, seed, record), ...])``."""
    p = plan(figure, quick)
    ctx = _Context(p, results_dir, train, log)
    todo = items(p, ctx.target_info["tag"])
    cache = ResultCache(results_dir, "reproduction/items")
    records = run_cached(cache, todo, ctx.compute, label=f"{figure}{' quick' if quick else ''}", stream=stream)
    return p, ctx.target_info, [(c, s, r) for (c, s), r in zip(todo, records)]


def mip_sweep(quick=False, results_dir="results", train=True, backend="highs", log=None, stream=None):
    """Figure 4's mixed-integer variant at ``plan.mip_widths`` for the theory initialisation (the same sources as
    the exact sweep; Xavier sources are limited by the reach of their small items, not by the solver)."""
    p = plan("fig4", quick)
    ctx = _Context(p, results_dir, train, log)
    todo = items(p, ctx.target_info["tag"], solver=backend, widths=p.mip_widths, sources=p.mip_sources,
                 inits=p.mip_inits)
    cache = ResultCache(results_dir, "reproduction/items")
    records = run_cached(cache, todo, ctx.compute, label=f"fig4 {backend}{' quick' if quick else ''}", stream=stream)
    return p, ctx.target_info, [(c, s, r) for (c, s), r in zip(todo, records)]


# ------------------------------------------------------------------------------------------- summaries

def summarise(rows, key="err"):
    """Mean and standard deviation over sources of ``record[key]``, per (init, solver, n, T) (per block for Fig. 6)."""
    groups = {}
    for config, _, record in rows:
        groups.setdefault((config["init"], config["solver"], config["n"], config["T"]), []).append(record[key])
    out = []
    for (init, solver, n, T), values in sorted(groups.items()):
        v = np.asarray(values, dtype=float)  # (sources,) or (sources, blocks)
        out.append({"init": init, "solver": solver, "n": n, "T": T, "sources": int(v.shape[0]),
                    "mean": v.mean(axis=0).tolist(), "median": np.median(v, axis=0).tolist(), "std": v.std(axis=0, ddof=1).tolist() if len(v) > 1 else
                    np.zeros(v.shape[1:]).tolist(), "min": v.min(axis=0).tolist(), "max": v.max(axis=0).tolist()})
    return out


def fits(summary, figure, floor=FIT_FLOOR):
    """Per initialisation, ``eps = gamma exp(-delta n)`` on the mean curve (Fig. 4), or one delta from block 1 and a
    gamma per block (Fig. 6), fitted three ways: ``log`` (log space, only means above ``floor``: the tolerance floor
    is left out), ``linear`` (eps itself, every width: the naive SciPy fit) and ``log_median`` (log space on the
    median over sources, above ``floor``: the typical source, without the rare sources whose target entry lies
    outside the reach of their items). A fit that cannot be made is reported as the reason instead."""
    from slt.fit import fit_exponential, fit_shared_delta

    out = {}
    for init in INITS:
        rows = [r for r in summary if r["init"] == init and r["solver"] == "exact"]
        if not rows:
            continue
        n = [r["n"] for r in rows]
        out[init] = {}
        for name, stat, space, fl in (("log", "mean", "log", floor), ("linear", "mean", "linear", None),
                                      ("log_median", "median", "log", floor)):
            try:
                if figure == "fig6":
                    curves = np.asarray([r[stat] for r in rows]).T
                    out[init][name] = [f.as_dict() for f in fit_shared_delta(n, curves, floor=fl, space=space)]
                else:
                    out[init][name] = fit_exponential(n, [r[stat] for r in rows], floor=fl, space=space).as_dict()
            except (ValueError, RuntimeError) as exc:
                out[init][name] = {"error": str(exc)}
    return out


def length_trend(summary):
    """Figure 5: per (init, n), the slope of log(mean error) against log T (0 = bounded in T; a Lipschitz bound
    through ||X|| would allow 1/2) with its 95% interval, and the largest over smallest mean error across T."""
    from scipy import stats

    out = []
    for init in INITS:
        for n in sorted({r["n"] for r in summary if r["init"] == init}):
            rows = [r for r in summary if r["init"] == init and r["n"] == n and r["solver"] == "exact"]
            if len(rows) < 3:
                continue
            T = np.array([r["T"] for r in rows], dtype=float)
            m = np.array([r["mean"] for r in rows], dtype=float)
            res = stats.linregress(np.log(T), np.log(m))
            half = stats.t.ppf(0.975, len(T) - 2) * res.stderr
            out.append({"init": init, "n": n, "slope": float(res.slope),
                        "slope_ci": (float(res.slope - half), float(res.slope + half)),
                        "max_over_min": float(m.max() / m.min()), "T_max": int(T.max())})
    return out


def compute_seconds(rows):
    return float(sum(r["seconds"] for _, _, r in rows))


def write_summary(path, payload):
    import json

    from slt.cache import write_atomic

    write_atomic(Path(path), json.dumps(payload, indent=1, sort_keys=True))


def summary_path(results_dir, figure, quick):
    return Path(results_dir) / "reproduction" / f"{figure}{'-quick' if quick else ''}.json"


def reproduce(figure, quick=False, results_dir="results", train=True, mip_backend="highs", log=None, stream=None):
    """Run (or resume) one figure and write its summary (``summary_path``) atomically; returns the summary."""
    from slt.fit import PAPER

    start = time.perf_counter()
    p, target_info, rows = sweep(figure, quick, results_dir, train, log, stream)
    summary = summarise(rows)
    payload = {
        "figure": figure, "quick": bool(quick), "plan": dataclasses.asdict(p), "target": target_info,
        "tol": TOL, "fit_floor": FIT_FLOOR, "paper": PAPER, "summary": summary, "code": code_fingerprint(),
        "regression_token": summarise(rows, "err_reg"), "worst_sequence": summarise(rows, "err_worst"),
        "compute_s": compute_seconds(rows),
    }
    if figure == "fig5":
        payload["length_trend"] = length_trend(summary)
    else:
        payload["fits"] = fits(summary, figure)
    if figure != "fig6":
        payload["qk_entry_error"] = summarise(rows, "qk_max_error")
        payload["vo_entry_error"] = summarise(rows, "vo_max_error")
    if figure == "fig4" and mip_backend:
        try:
            _, _, mip_rows = mip_sweep(quick, results_dir, train, mip_backend, log, stream)
        except (ImportError, ValueError, RuntimeError) as exc:
            payload["mip"] = {"backend": mip_backend, "error": f"{type(exc).__name__}: {exc}"}
        else:
            same = [(c, seed, r) for c, seed, r in rows
                    if c["n"] in p.mip_widths and c["init"] in p.mip_inits and seed < p.mip_sources]
            payload["mip"] = {"backend": mip_backend, "summary": summarise(mip_rows), "exact_same_sources": summarise(same),
                              "exact_qk_same_sources": summarise(same, "qk_max_error"),
                              "qk_entry_error": summarise(mip_rows, "qk_max_error"),
                              "vo_entry_error": summarise(mip_rows, "vo_max_error"),
                              "solver_s": float(sum(r.get("solver_s", 0.0) for _, _, r in mip_rows)),
                              "time_limit": MIP_TIME_LIMIT,
                              "timeouts": int(sum(r.get("timeouts", 0) for _, _, r in mip_rows)),
                              "compute_s": compute_seconds(mip_rows)}
    payload["wall_s"] = time.perf_counter() - start
    write_summary(summary_path(results_dir, figure, quick), payload)
    return payload
