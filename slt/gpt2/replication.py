"""The confirmatory runs of Figure 8 at n_K = 16, the width the two-look design left undecided: each a design
registered (committed in its ``Design.file``, made by ``design``) before any of its seeds ran. Every result names
its file's SHA-256, and ``tests/test_gpt2_replication.py`` checks that each file is what this module makes from its
committed pilot, so no design can drift after its data:

- ``fig8-replication``: the pilot is Figures 7-8's two-look run (its 48 seeds of n_K = 16), the rule Figure 8's
  ``two-ends`` (``slt.gpt2.figures.RULES``), 144 fresh seeds from 1000;
- ``fig8-confirmation``: the pilot is that replication (its 144 seeds), the rule ``one-side`` (no scale
  significantly below n_K^{1/4}, and one at least 1.5x away significantly above it by more than the equivalence test
  puts inside the margin), fresh seeds from 2000, registered before they ran. The replication's seeds chose the
  rule, so they are the pilot only: its verdict comes from the fresh seeds alone.

Common to both: the width n_K = 16 (d_model 64, 4 heads, 2 blocks), Figure 8's CPU recipe and every scale of
``SCALES``; seeds disjoint from every earlier run's; one look at ``ALPHA`` = 5% per test (the difference test the
paired 95% t-interval, the equivalence test two one-sided t-tests at 5% each, the 90% interval, with the margin of
0.01 nats); the number of seeds from the pilot: ``power`` resamples the pilot's seeds (whole rows, every scale of a
seed together) to N seeds, decides each resample by the design's rule, and counts the resamples with a decided
verdict (supported, contradicted, or no effect larger than the margin).
"""
from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np

from slt.gpt2 import figures as gpt2

__all__ = ["ALPHA", "N_K", "Design", "DESIGNS", "plan", "design", "power", "pilot_finals", "design_sha256",
           "DECIDED"]

ALPHA = 0.05
N_K = 16
DECIDED = ("supported", "contradicted", gpt2.NO_EFFECT)
POWER_DRAWS = 2000
_FOLDER = Path(__file__).resolve().parents[1] / "figures" / "designs"


@dataclasses.dataclass(frozen=True)
class Design:
    name: str          # the registered figure that runs it
    pilot: str         # the committed figure summary whose n_K = 16 seeds chose it
    seed0: int         # its fresh seeds: seed0 .. seed0 + seeds - 1
    seeds: int
    rule: str          # slt.gpt2.figures.RULES
    power_at: tuple    # the N compared in its power analysis (``seeds`` is one of them)

    @property
    def file(self) -> Path:
        return _FOLDER / f"{self.name}.json"

    @property
    def plan(self) -> gpt2.Plan:
        """Figure 8's CPU plan (``slt.gpt2.figures.PLANS``) with its n_K = 16 width only, the fresh seeds."""
        base = gpt2.PLANS[False]
        return dataclasses.replace(base, widths=base.widths[:1], seeds=self.seeds, seed0=self.seed0)


DESIGNS = {d.name: d for d in (
    Design("fig8-replication", "fig8", 1000, 144, "two-ends", (96, 144, 192)),
    Design("fig8-confirmation", "fig8-replication", 2000, 48, "one-side", (24, 48, 96)),
)}


def plan(name: str, quick: bool = False) -> gpt2.Plan:
    """The registered plan of design ``name``; ``quick``: two seeds of three scales and the quick recipe (tests of
    the path)."""
    p = DESIGNS[name].plan
    if quick:
        return dataclasses.replace(p, scales=(1.0, 3.0, 5.0), seeds=2, recipe=gpt2.PLANS[True].recipe)
    return p


def pilot_finals(pilot: dict) -> tuple[list, float, np.ndarray]:
    """``(scales, n_K^{1/4}, finals)`` of the pilot's n_K = 16 width: ``finals[i, k]`` is scale i's final loss at
    seed k (the pilot's seeds in order)."""
    width = next(w for w in pilot["summary"] if w["n_K"] == N_K)
    scales = [r["s"] for r in width["scales"]]
    return scales, width["theory_scale"], np.array([r["final"] for r in width["scales"]], dtype=float)


def _decide(scales, star, finals, rule, alpha=ALPHA) -> str:
    ref = finals[scales.index(star)]
    per = [{"s": s, "theory": s == star, "seeds": finals.shape[1], "mean": float(f.mean()),
            **gpt2.paired_stats(list(f - ref), alpha)} for s, f in zip(scales, finals)]
    return gpt2.verdict("fig8", per, star, finals.shape[1], alpha, (finals.shape[1],), rule)[0]


def power(pilot: dict, n: int, rule: str = gpt2.RULE, draws: int = POWER_DRAWS, seed: int = 1) -> dict:
    """The share of ``draws`` resamples of ``n`` pilot seeds (with replacement, whole seeds) that each verdict of
    ``rule`` takes."""
    scales, star, finals = pilot_finals(pilot)
    rng = np.random.default_rng(seed)
    counts = collections.Counter(_decide(scales, star, finals[:, rng.integers(0, finals.shape[1], n)], rule)
                                 for _ in range(draws))
    return {word: counts[word] / draws for word in sorted(counts)}


def design(pilot: dict, d: Design) -> dict:
    """The registered design ``d`` (as JSON reads it back): the plan, the tests and the power analysis from its pilot
    ``pilot`` (the committed summary named ``d.pilot``). A design under the default rule (``two-ends``) names no rule
    in its file, so the replication's registered file is what this makes."""
    scales, star, finals = pilot_finals(pilot)
    by_n = {str(n): power(pilot, n, d.rule) for n in d.power_at}
    seed0 = pilot.get("plan", {}).get("seed0", 0)
    rule = {} if d.rule == "two-ends" else {"rule": d.rule, "supported_when": gpt2.RULES[d.rule],
                                            "pilot": d.pilot}
    return json.loads(json.dumps({"figure": "fig8", "width": {"n_K": N_K, **d.plan.widths[0]},
            "plan": dataclasses.asdict(d.plan),
            "seeds": list(range(d.seed0, d.seed0 + d.seeds)), "pilot_seeds": list(range(seed0, seed0 + finals.shape[1])),
            "alpha": ALPHA, "difference_test": f"paired {1 - ALPHA:.0%} t-interval excludes 0",
            "equivalence_test": f"TOST at {ALPHA:.0%} each side: paired {1 - 2 * ALPHA:.0%} t-interval inside "
                                f"+-{gpt2.MARGIN:g} nats", "margin": gpt2.MARGIN,
            "rules": "slt.gpt2.figures.verdict (Figure 8's rules), one look", **rule,
            "pilot_finals_sha256": hashlib.sha256(json.dumps(finals.tolist()).encode()).hexdigest(),
            "power": {"method": f"{POWER_DRAWS} resamples of N pilot seeds (whole seeds, with replacement), each "
                                "decided by these rules; the share of each verdict", "by_n": by_n,
                      "decided_at_seeds": sum(v for k, v in by_n[str(d.seeds)].items() if k in DECIDED)}}))


def design_sha256(name: str) -> str:
    return hashlib.sha256(DESIGNS[name].file.read_bytes()).hexdigest()
