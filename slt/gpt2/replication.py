"""The confirmatory replication of Figure 8 at n_K = 16, the width the two-look design left undecided.

The design was registered (committed in ``DESIGN_FILE``, made by ``design``) before any of its seeds ran; every
result names that file's SHA-256, and ``tests/test_gpt2_replication.py`` checks that the file is what this module
makes from the committed pilot, so the design cannot drift after the data:

- the width: n_K = 16 (d_model 64, 4 heads, 2 blocks), Figure 8's CPU recipe and every scale of ``SCALES``;
- fresh seeds ``SEED0 .. SEED0 + SEEDS - 1``, disjoint from the pilot's 0 .. 47, so the replication is
  independent of the data that chose it;
- one look at ``ALPHA`` = 5% per test: the difference test is the paired 95% t-interval, the equivalence test two
  one-sided t-tests at 5% each (the 90% interval) with the pilot's margin of 0.01 nats;
- the verdict rules of Figure 8 unchanged (``slt.gpt2.figures.verdict``);
- the number of seeds from the pilot (the 48 committed seeds of n_K = 16): ``power`` resamples the pilot's seeds
  (whole rows, every scale of a seed together) to N seeds, decides each resample by these rules, and counts the
  resamples with a decided verdict (supported, contradicted, or no effect larger than the margin).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np

from slt.gpt2 import figures as gpt2

__all__ = ["ALPHA", "SEED0", "SEEDS", "DESIGN_FILE", "PLAN", "plan", "design", "power", "pilot_finals",
           "design_sha256", "DECIDED"]

ALPHA = 0.05
SEED0 = 1000
SEEDS = 144
N_K = 16
DESIGN_FILE = Path(__file__).resolve().parents[1] / "figures" / "designs" / "fig8-replication.json"
#: Figure 8's CPU plan (``slt.gpt2.figures.PLANS``) with its n_K = 16 width only, the fresh seeds and their count.
PLAN = dataclasses.replace(gpt2.PLANS[False], widths=gpt2.PLANS[False].widths[:1], seeds=SEEDS, seed0=SEED0)
DECIDED = ("supported", "contradicted", gpt2.NO_EFFECT)
#: The N compared in the design file's power analysis (``SEEDS`` is one of them).
POWER_AT = (96, 144, 192)
POWER_DRAWS = 2000


def plan(quick: bool = False) -> gpt2.Plan:
    """The registered plan; ``quick``: two seeds of three scales and the quick recipe (tests of the path)."""
    if quick:
        return dataclasses.replace(PLAN, scales=(1.0, 3.0, 5.0), seeds=2, recipe=gpt2.PLANS[True].recipe)
    return PLAN


def pilot_finals(pilot: dict) -> tuple[list, float, np.ndarray]:
    """``(scales, n_K^{1/4}, finals)`` of the pilot's n_K = 16 width: ``finals[i, k]`` is scale i's final loss at
    seed k (the pilot's seeds in order)."""
    width = next(w for w in pilot["summary"] if w["n_K"] == N_K)
    scales = [r["s"] for r in width["scales"]]
    return scales, width["theory_scale"], np.array([r["final"] for r in width["scales"]], dtype=float)


def _decide(scales, star, finals, alpha=ALPHA) -> str:
    ref = finals[scales.index(star)]
    per = [{"s": s, "theory": s == star, "seeds": finals.shape[1], "mean": float(f.mean()),
            **gpt2.paired_stats(list(f - ref), alpha)} for s, f in zip(scales, finals)]
    return gpt2.verdict("fig8", per, star, finals.shape[1], alpha, (finals.shape[1],))[0]


def power(pilot: dict, n: int, draws: int = POWER_DRAWS, seed: int = 1) -> dict:
    """The share of ``draws`` resamples of ``n`` pilot seeds (with replacement, whole seeds) that each verdict takes."""
    scales, star, finals = pilot_finals(pilot)
    rng = np.random.default_rng(seed)
    counts: dict = {}
    for _ in range(draws):
        word = _decide(scales, star, finals[:, rng.integers(0, finals.shape[1], n)])
        counts[word] = counts.get(word, 0) + 1
    return {word: counts[word] / draws for word in sorted(counts)}


def design(pilot: dict) -> dict:
    """The registered design (as JSON reads it back): the plan, the tests and the power analysis from the pilot
    ``pilot`` (the committed Figure 8 summary)."""
    scales, star, finals = pilot_finals(pilot)
    by_n = {str(n): power(pilot, n) for n in POWER_AT}
    return json.loads(json.dumps({"figure": "fig8", "width": {"n_K": N_K, **PLAN.widths[0]}, "plan": dataclasses.asdict(PLAN),
            "seeds": list(range(SEED0, SEED0 + SEEDS)), "pilot_seeds": list(range(finals.shape[1])),
            "alpha": ALPHA, "difference_test": f"paired {1 - ALPHA:.0%} t-interval excludes 0",
            "equivalence_test": f"TOST at {ALPHA:.0%} each side: paired {1 - 2 * ALPHA:.0%} t-interval inside "
                                f"+-{gpt2.MARGIN:g} nats", "margin": gpt2.MARGIN,
            "rules": "slt.gpt2.figures.verdict (Figure 8's rules), one look",
            "pilot_finals_sha256": hashlib.sha256(json.dumps(finals.tolist()).encode()).hexdigest(),
            "power": {"method": f"{POWER_DRAWS} resamples of N pilot seeds (whole seeds, with replacement), each "
                                "decided by these rules; the share of each verdict", "by_n": by_n,
                      "decided_at_seeds": sum(v for k, v in by_n[str(SEEDS)].items() if k in DECIDED)}}))


def design_sha256(path: Path = DESIGN_FILE) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
