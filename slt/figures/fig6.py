"""Figure 6 (Appendix B.1): error against the source width for a transformer target, read after each block.

Untrained transformer target (``init="paper"``, d1 = 2, d_K = d_V = 8, single head, *choice* one target FC layer /
two source FC layers as in Theorem 6), n_MHA = n_FC = n; ONE 4-block ticket per source, the error read after each
block b = 1..4 (Theorem 14's masks of block b depend only on block b, so its first b blocks are the b-block ticket).
*Extension*: n = 20..90 as well as the paper's 100..224, so that the decay is seen before the errors reach the
subset sums' tolerance floor. Fit: one delta from block 1, a gamma per block (``fits.decay_fits(shared_delta)``).
"""
from __future__ import annotations

from slt.figures import Figure, register
from slt.figures.fits import decay_fits, drop
from slt.figures.plans import Plan, TOL, VERSION, even
from slt.figures.summaries import summarise
from slt.figures.targets import transformer_item, transformer_target
from slt.tasks import Task

TASK_DEPENDS = ("slt.figures.targets", "slt.figures.plans", "slt.construct", "slt.models", "slt.samplers", "slt.data",
                "slt.subset_sum", "slt._subset_sum_kernels")
RNG_CODE = 6


def item(seed: int, **params) -> dict:
    """One (initialisation, width, source seed) of Figure 6: the error after every block."""
    return transformer_item(RNG_CODE, seed, **params)


class Fig6(Figure):
    name = "fig6"
    title = "Figure 6: transformer, error after each block against the source width"
    task_fn = staticmethod(item)
    paper = {"range": [100, 224], "claim": "the error decays exponentially in n and grows with the number of blocks"}
    plans = {False: Plan("fig6", even(20, 90, 10) + (100, 126, 150, 176, 200, 224), (4,), 100, 256, blocks=4),
             True: Plan("fig6", (20, 40, 60, 80, 100, 150), (4,), 8, 64, blocks=4)}
    render = {"kind": "blocks", "x": "n", "xlabel": "source hidden dimension n = n_MHA = n_FC", "log_y": True,
              "paper_range": [100, 225]}

    def target(self, plan, results_dir, train, log):
        _, info = transformer_target(plan.blocks)
        return {"blocks": plan.blocks, "tag": info["tag"]}, dict(info)

    def tasks(self, plan, target_params, info) -> list:
        return [Task(f"figure:{self.name}", self.task_fn,
                     {"init": init, "n": int(n), "T": int(T), "tol": TOL, "solver": "exact",
                      "test_batch": plan.test_batch, "blocks": plan.blocks, "target_tag": target_params["tag"],
                      "version": VERSION}, s)
                for init in plan.inits for n in plan.widths for T in plan.lengths for s in range(plan.sources)]

    def summarise(self, plan, rows, info) -> dict:
        summary = summarise(rows)
        return {"summary": summary, "fits": decay_fits(summary, shared_delta=True),
                "regression_token": summarise(rows, "err_reg"), "worst_sequence": summarise(rows, "err_worst")}

    def findings(self, p6) -> tuple[dict, list]:
        """Per initialisation: does the error grow with the number of blocks at every width, how far block 1's
        fitted curve falls, and the per-block gammas with the shared delta."""
        verdict, items = {}, []
        for init in ("theory", "xavier"):
            six = p6["fits"].get(init, {}).get("log")
            rows = [r for r in p6["summary"] if r["init"] == init and r["solver"] == "exact"]
            if isinstance(six, list) and rows:
                grows = all(all(a < b for a, b in zip(r["mean"], r["mean"][1:])) for r in rows)
                verdict[init] = {"grows_with_blocks": bool(grows), "block1_drop": drop(six[0])}
                items.append(f"Fig. 6, {init}: the error {'grows' if grows else 'does not always grow'} with the number "
                             f"of blocks at every width; block 1's fitted curve falls to {drop(six[0]):.2g} of its value "
                             f"over n = {int(min(six[0]['n_used']))}..{int(max(six[0]['n_used']))}; per-block gammas "
                             "with the shared delta: " + ", ".join(f"{f['gamma']:.3g}" for f in six) + ".")
        return verdict, items


FIGURE = register(Fig6())
