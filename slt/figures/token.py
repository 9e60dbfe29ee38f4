"""Figures 4 and 5 under the second reading of Appendix B.1's regression token: a learned vector, initialised to
zero, trained with the target (``slt.train``, ``regression_token="learned"``) and then placed in row 0 of every
source's and target's test input (the paper: "source and target share the same regression token").

The definitions are Figures 4 and 5's own (plans, tasks, fits, findings); only the target differs. Their
summaries (``fig4-learned-token[-quick].json``, ...) record the reading and the trained token under
``target.regression_token``, next to the zero-token summaries of ``fig4`` and ``fig5``.
"""
from __future__ import annotations

from slt.figures import register
from slt.figures.fig4 import Fig4
from slt.figures.fig5 import Fig5

__all__ = ["Fig4LearnedToken", "Fig5LearnedToken", "training_finding", "LEARNS"]

#: The target "learns the task" when its validation MSE is below this fraction of the constant predictor's
#: (the variance of omega); the same criterion as the reproduction section's zero-token statement.
LEARNS = 0.95


def training_finding(target: dict) -> tuple[dict, str]:
    """Does the trained target learn the task? Decided from ``target`` (the summary's target description)."""
    token = target.get("regression_token", {"reading": "zero", "vector": [0.0, 0.0]})
    if not target.get("trained"):
        return ({"learns": None}, f"Target untrained ({target.get('reason', 'not requested')}); its "
                f"{token['reading']} regression token is the zero vector.")
    val, base = target["val_mse"], target["baseline_mse"]
    learns = bool(val < LEARNS * base)
    vec = ", ".join(f"{v:.4f}" for v in token["vector"])
    return ({"learns": learns, "val_mse": val, "baseline_mse": base, "token": token["vector"]},
            f"Target training with the {token['reading']} regression token ({vec}): validation MSE {val:.4f} against "
            f"{base:.4f} for the constant predictor (ratio {val / base:.4f}): the target "
            + ("learns the task." if learns else f"does not learn the task (criterion: below {LEARNS} of the constant "
                                                 "predictor's)."))


class _Learned:
    regression_token = "learned"

    def findings(self, payload):
        verdict, lines = super().findings(payload)
        train_verdict, line = training_finding(payload.get("target", {}))
        return dict(verdict, training=train_verdict), [line, *lines]


class Fig4LearnedToken(_Learned, Fig4):
    name = "fig4-learned-token"
    title = "Figure 4 with the learned regression token: MHA, error against the source width (T = 4)"


class Fig5LearnedToken(_Learned, Fig5):
    name = "fig5-learned-token"
    title = "Figure 5 with the learned regression token: MHA, error against the input length"


FIG4 = register(Fig4LearnedToken())
FIG5 = register(Fig5LearnedToken())
