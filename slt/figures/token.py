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

__all__ = ["Fig4LearnedToken", "Fig5LearnedToken"]


class Fig4LearnedToken(Fig4):
    name = "fig4-learned-token"
    title = "Figure 4 with the learned regression token: MHA, error against the source width (T = 4)"
    regression_token = "learned"


class Fig5LearnedToken(Fig5):
    name = "fig5-learned-token"
    title = "Figure 5 with the learned regression token: MHA, error against the input length"
    regression_token = "learned"


FIG4 = register(Fig4LearnedToken())
FIG5 = register(Fig5LearnedToken())
