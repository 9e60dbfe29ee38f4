"""Figures 7 and 8 (Section 4.3): edge-popup tickets of a small GPT-2 with the query/key weights scaled by ``s``.

Paper (experiments.md): GPT-2 mini/small/medium on WikiText-103, edge-popup keeping the top 30% of scores, 50
epochs x 227 steps, AdamW 1e-4 -> 1e-5 cosine with one warm-up epoch, GPT-2 initialisation, 3 seeds. Fig. 7:
tickets whose query/key weights are scaled by n_K^{1/4} (about 2.8 at n_K = 64) reach a lower validation loss than
unscaled ones. Fig. 8: over s = 1..5 the final validation loss is lowest near n_K^{1/4}.

Here (CPU, scaled down; every deviation is a *choice* recorded in each summary):

- corpus: the Python standard library's source, byte tokens (``slt.gpt2.corpus``), not WikiText-103;
- model: 2 blocks, d_model = 64, context 32 bytes, with n_head = 4 (n_K = 16, n_K^{1/4} = 2) and n_head = 1 (n_K = 64,
  n_K^{1/4} = 2.83): two widths n_K at the same model size, so that only the query/key dimension changes;
- initialisation: GPT-2's N(0, sigma^2) with residual projections scaled by (2 x blocks)^{-1/2}, but with
  ``sigma = 0.02 sqrt(768 / d_model)`` (0.069): the per-coordinate scale of every pre-activation, and at n_K = 64
  of every attention logit, is then GPT-2 small's. With the paper's sigma = 0.02 at d_model = 64 the masked
  weights are too small to express even the byte unigram distribution (measured: validation loss 3.94 nats after
  300 steps against the unigram model's 3.10) and s moved the loss by < 0.01 nats;
- schedule: the paper's shape (linear warm-up over one epoch, cosine to a tenth of the peak), peak 1e-2 instead
  of 1e-4, for 12 epochs of 10 steps of 16 windows (quick: 6 x 8): at a few hundred steps the paper's 1e-4 barely
  moves the scores (measured at sigma = 0.02, context 64, 300 steps, n_K = 64, s = 1: peak 1e-4 -> 4.30,
  1e-3 -> 4.03, 1e-2 -> 3.94 nats); the paper trains 11,350 steps;
- float32 on the CPU (twice as fast as float64; the validation losses of a 50-step run agreed to 2e-8);
- ``--device cuda``: the paper's sizes (GPT-2 mini and small, n_K = 64), sigma = 0.02 and 1e-4 -> 1e-5,
  context 256, on the same corpus (``GPU_PLAN``).

Statistics: per (width, s), the mean and standard deviation (ddof = 1) over seeds of the final validation loss and
a 95% t-interval of the mean; since seed k gives the same weights, score initialisation and batches at every s,
differences to s = n_K^{1/4} are paired per seed. The verdict is tested at the looks ``STAGES`` (12 paired seeds,
then 48 where 12 leave it undecided), each look at ``LOOK_ALPHA`` = 2.5% (Bonferroni across the two looks, so both
looks together read a false verdict with probability at most 5%): the difference test is the paired 97.5%
t-interval of the mean difference. Verdict per width
(Fig. 8): ``supported`` when the loss at n_K^{1/4} is significantly below the loss at both ends of the grid
(s = 1 and s = 5) and no scale is significantly below it; ``contradicted`` when a scale at least 1.5x away from
n_K^{1/4} (s <= s*/1.5 or s >= 1.5 s*) is significantly below it; otherwise the equivalence test or the seed count
decides (below). Fig. 7: ``supported`` when the final loss with n_K^{1/4} is significantly below the unscaled one,
``contradicted`` when significantly above.

Equivalence (two one-sided tests, TOST, at ``LOOK_ALPHA`` each, beside the difference test): ``MARGIN`` nats,
stated before the seeds were run, is the smallest loss difference that counts as an effect at this scale. When
neither of the verdicts above holds and the paired 95% t-interval (``TOST_CONF``) lies inside (-MARGIN, +MARGIN)
-- for Fig. 8 at every scale -- the figure reads "no effect larger than the margin at this scale". A width whose
scales have fewer paired seeds than the look's count reads "undecided: k of N seeds" whatever its intervals say (the
verdict is decided at a look, never by peeking between looks); at a look with neither a difference nor an
equivalence, "undecided: more seeds needed" with the intervals (never "inconclusive"), and ``slth reproduce`` runs
the next look's seeds (``next_look``) until the last look. Where every scale is decided on its own but none of the
three figure verdicts holds (Fig. 8: the loss within the margin at one end and above it at the other), the width
reads ``SPLIT`` with each scale's outcome, and no next look is planned.
"""
from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
from scipy import stats

from slt.gpt2 import corpus as corpus_mod
from slt.gpt2.train import run_item
from slt.tasks import Task
from slt import train

__all__ = ["Plan", "PLANS", "GPU_PLAN", "SCALES", "STAGES", "plan", "tasks", "summarise", "next_look", "findings",
           "format_summary", "PAPER_CLAIM", "theory_scale", "require_torch"]

SCALES = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0)
STAGES = (12, 48)
"""The looks of the CPU plan (paired seeds per (width, scale); see the module docstring), stated before any seed
beyond the first look ran."""
SEEDS = STAGES[0]
"""Paired seeds per (width, scale) of the CPU plan's first look."""
ALPHA = 0.05
LOOK_ALPHA = ALPHA / len(STAGES)
DIFF_CONF = 1 - LOOK_ALPHA
"""The paired difference test at each look: a two-sided t-test at ``LOOK_ALPHA``, i.e. its ``DIFF_CONF`` interval."""
TOST_CONF = 1 - 2 * LOOK_ALPHA
"""The equivalence test at each look: two one-sided t-tests at ``LOOK_ALPHA`` each, i.e. its ``TOST_CONF`` interval."""
MARGIN = 0.01
"""The equivalence margin in nats per byte, stated before the seeds ran (see the module docstring)."""
NO_EFFECT = "no effect larger than the margin at this scale"
SPLIT = "undecided: every scale decided, no figure verdict fits"
"""Fig. 8 when each scale is decided on its own but no figure verdict fits (see the module docstring): more seeds
resolve only effects smaller than the margin, so no next look is planned."""
RULES = {
    "two-ends": "the loss at s = 1 and at s = 5 significantly above the loss at n_K^1/4, no scale significantly below it",
    "one-side": ("a scale at least 1.5x away from n_K^1/4 significantly above it by an effect the equivalence test "
                 "does not put inside the margin, no scale significantly below it"),
}
"""Figure 8's rules for ``supported`` (``contradicted`` and no effect are the same under both): ``two-ends``, the
rule of Figures 7-8's two-look design and of the replication; ``one-side``, the confirmation's (``slt.gpt2.replication``
says why)."""
RULE = "two-ends"
_SHORT = {"two-ends": "both ends above", "one-side": "a scale 1.5x away above beyond the margin, none below"}
PAPER_CLAIM = {
    "fig7": "query/key weights scaled by n_K^{1/4} (about 2.8) reach a lower validation loss than unscaled ones",
    "fig8": "over query/key scales 1..5 the final validation loss is lowest near n_K^{1/4}",
}
KIND = "gpt2-qk"


def theory_scale(n_K: int) -> float:
    return float(n_K) ** 0.25


@dataclasses.dataclass(frozen=True)
class Plan:
    widths: tuple          # model dicts (GPTConfig fields other than vocab, qk_scale)
    scales: tuple
    seeds: int
    recipe: dict
    device: str = "cpu"
    dtype: str = "float32"
    seed0: int = 0
    """The first seed: the plan runs seeds ``seed0 .. seed0 + seeds - 1`` (a replication's seeds are fresh)."""


def _small(n_head):
    return dict(context=32, n_layer=2, d_model=64, n_head=n_head, keep=0.3, init_std=0.02 * math.sqrt(768 / 64))


_FULL = dict(lr=1e-2, lr_min=1e-3, weight_decay=0.01, epochs=12, steps_per_epoch=10, batch=16, val_windows=48)
_QUICK = dict(_FULL, epochs=6, steps_per_epoch=8, val_windows=32)
PLANS = {
    False: Plan((_small(4), _small(1)), SCALES, SEEDS, _FULL),
    True: Plan((_small(4), _small(1)), (1.0, 3.0, 5.0), 2, _QUICK),
}
#: ``--device cuda``: the paper's sizes and recipe (n_K = 64 for both), on the same corpus.
GPU_PLAN = Plan(
    tuple(dict(context=256, keep=0.3, init_std=0.02, **size) for size in
          (dict(n_layer=4, d_model=256, n_head=4), dict(n_layer=12, d_model=768, n_head=12))),
    SCALES, 3, dict(lr=1e-4, lr_min=1e-5, weight_decay=0.01, epochs=50, steps_per_epoch=227, batch=32,
                    val_windows=512), device="cuda")


def plan(quick: bool = False, device: str = "cpu") -> Plan:
    if device == "cpu":
        return PLANS[bool(quick)]
    if quick:  # the paper's sizes, a few steps: checks that the GPU path runs
        return dataclasses.replace(GPU_PLAN, widths=GPU_PLAN.widths[:1], scales=(1.0, 5.0), seeds=1,
                                   recipe=dict(GPU_PLAN.recipe, epochs=2, steps_per_epoch=5, val_windows=64),
                                   device=device)
    return dataclasses.replace(GPU_PLAN, device=device)


def tasks(figure: str, p: Plan):
    """The ``slt.tasks.Task`` items of a figure: Fig. 7 needs s = 1 and s = n_K^{1/4}, Fig. 8 every scale too."""
    from slt.gpt2.model import GPTConfig  # imports torch (optional [torch] extra)

    if figure not in ("fig7", "fig8"):
        raise ValueError(f"unknown figure {figure!r}; expected fig7 or fig8")
    sha = corpus_mod.load().sha256
    out = []
    for model in p.widths:
        star = theory_scale(model["d_model"] // model["n_head"])
        scales = (1.0, star) if figure == "fig7" else tuple(sorted(set(p.scales) | {star}))
        for s in scales:
            cfg = dataclasses.asdict(GPTConfig(vocab=corpus_mod.VOCAB, qk_scale=float(s), **model))
            for seed in range(p.seed0, p.seed0 + p.seeds):
                out.append(Task(KIND, run_item, {"model": cfg, "recipe": dict(p.recipe), "corpus_sha256": sha,
                                           "device": p.device, "dtype": p.dtype}, seed))
    return out


def _t_interval(values, confidence=0.95):
    v = np.asarray(values, dtype=float)
    mean = float(v.mean())
    if v.size < 2:
        return mean, float("nan"), (float("nan"), float("nan"))
    std = float(v.std(ddof=1))
    half = float(_t_quantile(0.5 + confidence / 2, v.size - 1) * std / math.sqrt(v.size))
    return mean, std, (mean - half, mean + half)


@functools.lru_cache(maxsize=256)
def _t_quantile(q: float, df: int):
    """Student's t quantile (``scipy.stats.t.ppf``), kept per (q, df): a power analysis asks the same few thousands
    of times."""
    return stats.t.ppf(q, df)


def _pct(conf) -> str:
    return f"{100 * conf:.4g}%"


def paired_stats(paired, alpha=LOOK_ALPHA) -> dict:
    """The paired differences to n_K^{1/4} of one scale: mean, the difference test's interval (``1 - alpha``,
    ``DIFF_CONF`` by default), the equivalence test's interval (``1 - 2 alpha``, ``TOST_CONF``) and its outcome:
    ``equivalent`` when two one-sided t-tests at ``alpha`` each (TOST) put the mean inside (-MARGIN, +MARGIN), i.e.
    that interval lies inside it (never with fewer than two seeds)."""
    dmean, _, dci = _t_interval(paired, 1 - alpha)
    tost = _t_interval(paired, 1 - 2 * alpha)[2] if len(paired) > 1 else (float("nan"), float("nan"))
    return {"diff_to_theory": dmean, "diff_ci": list(dci), "diff_ci_tost": list(tost),
            "equivalent": len(paired) > 1 and -MARGIN < tost[0] and tost[1] < MARGIN}


def _sig(ci, side):
    """True when the difference test's interval lies entirely below (side=-1) or above (side=+1) zero."""
    lo, hi = ci
    return not math.isnan(lo) and (hi < 0 if side < 0 else lo > 0)


def summarise(figure, rows, planned: int | None = None, alpha=LOOK_ALPHA, looks=STAGES, rule=RULE):
    """Per width: per scale the final-loss statistics and mean curve, paired differences to n_K^{1/4}, the verdict.
    ``rows``: ``[(params, seed, result), ...]`` as ``slt.figures.run_tasks`` returns them; ``planned``: the plan's
    paired seeds (fewer at any scale: "undecided: k of N seeds"); ``alpha``, ``looks`` and ``rule``: the design's level
    per look, its looks and its Figure 8 rule (``LOOK_ALPHA``, ``STAGES`` and ``RULE`` by default)."""
    groups = {}
    for params, seed, result in rows:
        model = params["model"]
        key = (model["d_model"], model["n_head"], model["n_layer"])
        groups.setdefault(key, {}).setdefault(model["qk_scale"], {})[seed] = result
    widths = []
    for (d_model, n_head, n_layer), by_scale in sorted(groups.items(), key=lambda kv: kv[0][0] // kv[0][1]):
        n_K = d_model // n_head
        star = theory_scale(n_K)
        ref = by_scale[star]
        per_scale = []
        for s in sorted(by_scale):
            seeds = sorted(by_scale[s])
            final = [by_scale[s][k]["final_val_loss"] for k in seeds]
            mean, std, ci = _t_interval(final)
            paired = [by_scale[s][k]["final_val_loss"] - ref[k]["final_val_loss"] for k in seeds if k in ref]
            curves = np.asarray([by_scale[s][k]["val_loss"] for k in seeds], dtype=float)
            per_scale.append({"s": s, "theory": s == star, "seeds": len(seeds), "final": final, "mean": mean,
                              "std": std, "ci": list(ci), **paired_stats(paired, alpha),
                              "curve_mean": curves.mean(axis=0).tolist(),
                              "curve_std": (curves.std(axis=0, ddof=1) if len(seeds) > 1
                                            else np.zeros(curves.shape[1])).tolist(),
                              "weights_unchanged": all(by_scale[s][k]["weights_unchanged"] for k in seeds),
                              "seconds": float(sum(by_scale[s][k]["seconds"] for k in seeds))})
        best = min(per_scale, key=lambda r: r["mean"])
        entry = {"n_K": n_K, "d_model": d_model, "n_head": n_head, "n_layer": n_layer, "theory_scale": star,
                 "scales": per_scale, "argmin_scale": best["s"], "argmin_mean": best["mean"]}
        entry["verdict"], entry["reason"] = verdict(figure, per_scale, star, planned, alpha, looks, rule)
        widths.append(entry)
    return widths


def verdict(figure, per_scale, star, seeds: int | None = None, alpha=LOOK_ALPHA, looks=STAGES,
            rule=RULE) -> tuple[str, str]:
    """``(verdict, reason)`` of one width: the one function deciding Fig. 7 and Fig. 8 (module docstring), at level
    ``alpha`` per test of a design whose looks are ``looks``, Figure 8 by its design's ``rule`` (``RULES``)."""
    if rule not in RULES:
        raise ValueError(f"unknown Figure 8 rule {rule!r}; expected one of {', '.join(RULES)}")
    word, text = _verdict7(per_scale, star, alpha) if figure == "fig7" else _verdict8(per_scale, star, alpha, rule)
    have = min(r["seeds"] for r in per_scale)
    if seeds is not None and have < seeds:
        return f"undecided: {have} of {seeds} seeds", text + f"; decided at {seeds} paired seeds, not before"
    if word in ("supported", "contradicted"):
        return word, text
    others = [r for r in per_scale if not r["theory"]]
    if others and all(r.get("equivalent") for r in others):
        return NO_EFFECT, text + (f"; every paired {_pct(1 - 2 * alpha)} interval inside +-{MARGIN:g} nats "
                                  f"(TOST at {_pct(alpha)})")
    if others and all(r.get("equivalent") or _sig(r["diff_ci"], -1) or _sig(r["diff_ci"], +1) for r in others):
        return SPLIT, text + "; " + _split(others, alpha, rule)
    later = [n for n in looks if n > have] if seeds in looks else []
    return "undecided: more seeds needed", text + (
        f"; a paired {_pct(1 - 2 * alpha)} interval reaches beyond +-{MARGIN:g} nats, so neither an effect nor its "
        "absence is shown" + (f"; the next look is at {later[0]} paired seeds" if later else ""))


def _split(others, alpha, rule=RULE) -> str:
    """Each scale's own outcome, when every scale is decided but no figure verdict fits (``SPLIT``)."""
    def scales(rows):
        return ", ".join(f"{r['s']:g}" for r in rows) or "none"
    below = [r for r in others if _sig(r["diff_ci"], -1)]
    above = [r for r in others if _sig(r["diff_ci"], +1)]
    beyond = [r for r in above if not r.get("equivalent")]
    inside = [r for r in others if r.get("equivalent")]
    return (f"every scale is decided at these seeds: significantly below n_K^1/4 (paired {_pct(1 - alpha)} CI): "
            f"{scales(below)}; significantly above: {scales(above)}, by more than the margin (its "
            f"{_pct(1 - 2 * alpha)} interval not inside +-{MARGIN:g} nats): {scales(beyond)}; within the margin "
            f"(TOST at {_pct(alpha)}): {scales(inside)}; so neither supported ({_SHORT[rule]}), contradicted (a scale "
            "1.5x away below) nor no effect (every scale within the margin) holds")


def next_look(plan: Plan, widths) -> Plan | None:
    """The plan of the next look (``STAGES``) when a width of this look reads "undecided: more seeds needed" and the
    plan's seed count is a look before the last; else None."""
    later = [n for n in STAGES if n > plan.seeds] if plan.seeds in STAGES else []
    if later and any(w["verdict"] == "undecided: more seeds needed" for w in widths):
        return dataclasses.replace(plan, seeds=later[0])
    return None


def redecide(payload: dict, seeds: int | None = None) -> dict:
    """``payload`` (a stored Fig. 7 / Fig. 8 summary) with every width's verdict decided again from its stored
    per-seed final losses (paired by seed order: seed k of every scale is the same seed) at the look it was
    planned for (``seeds``, default the payload's ``seeds_planned``) at the payload's level and looks (``alpha``,
    ``looks``; the two-look design's when absent), ``findings`` and ``verdict`` rewritten."""
    seeds = payload.get("seeds_planned", SEEDS) if seeds is None else seeds
    alpha, looks = payload.get("alpha", LOOK_ALPHA), tuple(payload.get("looks", STAGES))
    rule = payload.get("rule", RULE)
    out = dict(payload, summary=[])
    for w in payload["summary"]:
        ref = next(r for r in w["scales"] if r["theory"])["final"]
        scales = [{**{k: v for k, v in r.items() if k != "diff_ci90"},
                   **paired_stats([a - b for a, b in zip(r["final"], ref)], alpha)} for r in w["scales"]]
        word, text = verdict(payload["figure"], scales, w["theory_scale"], seeds, alpha, looks, rule)
        out["summary"].append(dict(w, scales=scales, verdict=word, reason=text))
    out["verdict"], out["findings"] = findings(out)
    out["margin"], out["seeds_planned"], out["alpha"], out["looks"] = MARGIN, seeds, alpha, list(looks)
    if "rule" in payload:
        out["rule"] = rule
    return out


def _verdict7(per_scale, star, alpha=LOOK_ALPHA):
    one = next(r for r in per_scale if r["s"] == 1.0)
    d, ci = -one["diff_to_theory"], [-one["diff_ci"][1], -one["diff_ci"][0]]
    text = (f"loss(n_K^1/4 = {star:.3g}) - loss(1) = {d:+.4f} nats, {_pct(1 - alpha)} CI [{ci[0]:+.4f}, "
            f"{ci[1]:+.4f}] over {one['seeds']} paired seeds")
    return ("supported" if _sig(ci, -1) else "contradicted" if _sig(ci, +1) else "open"), text


def _far(r, star) -> bool:
    """A scale at least 1.5x away from n_K^{1/4}."""
    return r["s"] <= star / 1.5 or r["s"] >= 1.5 * star


def _verdict8(per_scale, star, alpha=LOOK_ALPHA, rule=RULE):
    others = [r for r in per_scale if not r["theory"]]
    below = [r for r in others if _sig(r["diff_ci"], -1)]   # scales significantly better than s*
    far_below = [r for r in below if _far(r, star)]
    best = min(per_scale, key=lambda r: r["mean"])
    text = (f"lowest mean loss at s = {best['s']:.3g} ({best['mean']:.4f}); n_K^1/4 = {star:.3g}; scales "
            f"significantly below n_K^1/4 (paired {_pct(1 - alpha)} CI): {[round(r['s'], 3) for r in below] or 'none'}; ")
    if rule == "two-ends":
        ends = [r for r in others if r["s"] in (min(SCALES), max(SCALES))]  # the paper's grid ends, 1 and 5
        rises = len(ends) == 2 and all(_sig(r["diff_ci"], +1) for r in ends)
        text += f"s = 1 and s = 5 significantly above: {rises}"
    else:  # "one-side": a scale 1.5x away above by an effect the equivalence test does not put inside the margin
        rising = [r for r in others if _far(r, star) and _sig(r["diff_ci"], +1) and not r.get("equivalent")]
        rises = bool(rising)
        text += (f"scales 1.5x away significantly above and not within the margin: "
                 f"{[round(r['s'], 3) for r in rising] or 'none'}")
    return ("contradicted" if far_below else "supported" if rises and not below else "open"), text


def require_torch(figure: str) -> None:
    """``ModuleNotFoundError`` naming the extra when PyTorch is not installed (the CLI turns it into exit 2)."""
    if not train.torch_available():
        raise ModuleNotFoundError(f"{figure} trains a GPT-2 with PyTorch, the optional [torch] extra: "
                                  f"pip install -e .[torch]")


LABELS = {"fig7": "Fig. 7", "fig8": "Fig. 8", "fig8-replication": "Fig. 8 (replication, fresh seeds)",
          "fig8-confirmation": "Fig. 8 (confirmation under the one-side rule, fresh seeds)"}


def findings(payload) -> tuple[dict, list]:
    """The verdict per width and one sentence per width, decided from the summary's numbers."""
    figure = payload["figure"]
    verdict = {f"n_K={w['n_K']}": w["verdict"] for w in payload["summary"]}
    return verdict, [f"{LABELS[figure]} at n_K = {w['n_K']} (n_K^1/4 = {w['theory_scale']:.3g}): {w['verdict']} "
                     f"({w['reason']})." for w in payload["summary"]]


def format_summary(payload) -> str:
    """Plain-text table of a Fig. 7 / Fig. 8 summary (what ``slth reproduce`` prints)."""
    lines = [f"{payload['figure']}{' (quick)' if payload['quick'] else ''} on {payload['plan']['device']}: "
             f"{payload['target']['corpus']['source']}, corpus SHA-256 {payload['target']['corpus']['sha256'][:12]}",
             f"paper: {payload['paper']['claim']}"]
    for w in payload["summary"]:
        lines.append(f"n_K = {w['n_K']} (d_model {w['d_model']}, {w['n_head']} heads, {w['n_layer']} blocks), "
                     f"n_K^1/4 = {w['theory_scale']:.3g}")
        lines.append(f"  {'s':>6s}  {'final val loss (nats/byte)':>28s}  {'minus loss at n_K^1/4 (paired)':>36s}")
        for r in w["scales"]:
            mark = " *" if r["theory"] else "  "
            lines.append(f"  {r['s']:6.3f}{mark}{r['mean']:8.4f} +- {r['std']:.4f} [{r['ci'][0]:.4f}, {r['ci'][1]:.4f}]"
                         f"  {r['diff_to_theory']:+.4f} [{r['diff_ci'][0]:+.4f}, {r['diff_ci'][1]:+.4f}]")
        lines.append(f"  verdict: {w['verdict']}: {w['reason']}")
    lines.append(f"compute time of all items {payload['compute_s']:.0f} s; wall time this run {payload.get('wall_s', 0):.0f} s")
    return "\n".join(lines)
