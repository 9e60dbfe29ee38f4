"""The MHA sweeps' shared definition (Figures 4 and 5): the target of ``targets.mha_target`` and one task per
(initialisation, width n, length T, source seed)."""
from __future__ import annotations

from slt.figures import Figure
from slt.figures.plans import MIP_TIME_LIMIT, TOL, VERSION
from slt.figures.summaries import summarise
from slt.figures.targets import mha_params, mha_target
from slt.tasks import Task

#: Modules an item's result depends on besides its figure module (fingerprinted into every task).
DEPENDS = ("slt.figures.targets", "slt.figures.plans", "slt.construct", "slt.models", "slt.samplers", "slt.data",
           "slt._sweep_kernels", "slt.subset_sum", "slt._subset_sum_kernels")


class MHAFigure(Figure):
    """A sweep over sources of a single-head MHA target (d1 = 2, d2 = 1, d_K = d_V = 8)."""
    #: Appendix B.1's regression token: "zero" (constant) or "learned" (trained with the target, then shared).
    regression_token = "zero"

    def target(self, plan, results_dir, train, log):
        weights, info = mha_target(results_dir, train=train, log=log, regression_token=self.regression_token)
        token = info["regression_token"]["vector"] if self.regression_token != "zero" else None
        return mha_params(weights, info["tag"], token), info

    def tasks(self, plan, target_params, info, solver="exact", widths=None, sources=None, inits=None) -> list:
        out = []
        for init in plan.inits if inits is None else inits:
            for n in plan.widths if widths is None else widths:
                for T in plan.lengths:
                    params = {"init": init, "n": int(n), "T": int(T), "tol": TOL, "solver": solver,
                              "test_batch": plan.test_batch, "target": target_params, "version": VERSION}
                    if solver != "exact":
                        params["time_limit"] = MIP_TIME_LIMIT
                    out += [Task(f"figure:{self.name}", self.task_fn, params, s, deps=() if solver == "exact" else ("slt.mip",))
                            for s in range(plan.sources if sources is None else sources)]
        return out

    def entry_errors(self, rows) -> dict:
        return {"regression_token": summarise(rows, "err_reg"), "worst_sequence": summarise(rows, "err_worst"),
                "qk_entry_error": summarise(rows, "qk_max_error"), "vo_entry_error": summarise(rows, "vo_max_error")}
