"""Figures 7 and 8 (Section 4.3) as registered figure definitions: edge-popup tickets of a small GPT-2 with the
query/key weights scaled by s, on the offline standard-library corpus. The protocol, the deviations from the
paper's (CPU-sized) and the verdict rules are in ``slt.gpt2.figures``; this module only adapts them to the
registry. PyTorch (the ``[torch]`` extra) is required: without it ``target`` raises ``ModuleNotFoundError``
naming the extra (``slth reproduce`` exits 2 with that line).

``device``: "cpu" (default) or "cuda" (the paper's GPT-2 sizes and recipe, ``slt.gpt2.figures.GPU_PLAN``); the
``slth reproduce --device`` option sets it on the registered object before running.
"""
from __future__ import annotations

from slt.figures import Figure, register
from slt.gpt2 import corpus, figures as gpt2, replication
from slt.gpt2.train import run_item

__all__ = ["GPT2Figure", "FIG7", "FIG8", "FIG8_REPLICATION", "FIG8_CONFIRMATION"]


class GPT2Figure(Figure):
    """Figure 7 or 8 (``figure``; default: ``name``) registered as ``name``, compared with the paper's claim."""
    task_fn = staticmethod(run_item)
    render = {"kind": "gpt2", "xlabel": "query/key scale s", "ylabel": "final validation loss (nats per byte)"}
    device = "cpu"
    devices = ("cpu", "cuda")

    def __init__(self, name: str, title: str, figure: str | None = None):
        self.name, self.title, self.figure = name, title, figure or name
        self.paper = {"claim": gpt2.PAPER_CLAIM[self.figure]}

    def preflight(self) -> None:
        """``ModuleNotFoundError`` naming the ``[torch]`` extra when PyTorch is absent (before any work starts)."""
        gpt2.require_torch(self.name)

    def plan(self, quick: bool = False):
        return gpt2.plan(quick, self.device)

    def target(self, plan, results_dir, train, log):
        gpt2.require_torch(self.name)
        c = corpus.load()
        return {}, {"tag": f"gpt2-edge-popup-stdlib-{c.sha256[:12]}", "trained": False,
                    "reason": "edge-popup trains scores only; the weights stay at their random initialisation",
                    "corpus": c.describe(), "device": plan.device}

    def tasks(self, plan, target_params, info) -> list:
        return gpt2.tasks(self.figure, plan)

    def summarise(self, plan, rows, info) -> dict:
        return {"summary": gpt2.summarise(self.figure, rows, plan.seeds), "scales": list(gpt2.SCALES),
                "margin": gpt2.MARGIN, "seeds_planned": plan.seeds, "alpha": gpt2.LOOK_ALPHA,
                "looks": list(gpt2.STAGES)}

    def next_plan(self, plan, payload):
        """The next look's plan (``slt.gpt2.figures.next_look``) when this look left a width undecided."""
        return gpt2.next_look(plan, payload["summary"])

    findings = staticmethod(gpt2.findings)
    format_summary = staticmethod(gpt2.format_summary)


FIG7 = register(GPT2Figure(
    "fig7", "Figure 7: GPT-2 tickets, validation loss with and without the n_K^{1/4} query/key scaling"))
FIG8 = register(GPT2Figure("fig8", "Figure 8: GPT-2 tickets, final validation loss against the query/key scale s"))


class Fig8Replication(GPT2Figure):
    """Figure 8's confirmatory runs at n_K = 16 (``slt.gpt2.replication``): fresh seeds, one look at 5%, the
    design (seeds, rule) registered in a committed file before its seeds ran; ``name`` is the design's."""
    devices = ("cpu",)

    def __init__(self, name: str, title: str):
        super().__init__(name, title, "fig8")

    def plan(self, quick: bool = False):
        return replication.plan(self.name, quick)

    def summarise(self, plan, rows, info) -> dict:
        rule = replication.DESIGNS[self.name].rule
        return {"summary": gpt2.summarise("fig8", rows, plan.seeds, replication.ALPHA, (plan.seeds,), rule),
                "scales": list(plan.scales), "margin": gpt2.MARGIN, "seeds_planned": plan.seeds,
                "alpha": replication.ALPHA, "looks": [plan.seeds],
                **({} if rule == gpt2.RULE else {"rule": rule, "rule_text": gpt2.RULES[rule]}),
                "design": {"file": replication.DESIGNS[self.name].file.name,
                           "sha256": replication.design_sha256(self.name)}}

    def next_plan(self, plan, payload):
        return None  # one look


FIG8_REPLICATION = register(Fig8Replication(
    "fig8-replication",
    "Figure 8, replication at n_K = 16: final validation loss against the query/key scale s (fresh seeds)"))
FIG8_CONFIRMATION = register(Fig8Replication(
    "fig8-confirmation",
    "Figure 8, confirmation at n_K = 16 under the one-side rule: final validation loss against the query/key scale s "
    "(fresh seeds)"))
