"""Lemma 8 with eps_max <= 1/2 (main text: Lemma 5; docs/statements.md#lemma5): for ``eps_max <= 1/2``, ``||σ(z;a)X - σ(z+e;a)X|| <= 4 sqrt(d1) alpha eps_max``.

Same left side and searches as Lemma 8 (``slt.measure.softmax_perturbation``); deterministic, T = 2 .. 2^14.
"""
from __future__ import annotations

import functools

from slt.measure import strategies
from slt.measure.numerics import Numerics
from slt.measure.softmax_perturbation import cases, drawn_cases, length_search

STATEMENT = "lemma5"
LENGTHS = [2**k for k in range(1, 15)]
WINDOWS = dict(d1=(1, 8), alpha=(0.1, 10.0), eps_max=strategies.LogUniform(1e-3, 0.5), T=LENGTHS)


def rerun(seed: int, d1: int, alpha: float, eps_max: float, T: int, search: str = "both"):
    """The case(s) a printed re-run command names: ``search`` is random, adversarial or both."""
    found = cases(STATEMENT, T, d1, alpha, eps_max, seed, adversarial=search != "random")
    return [c for c in found if search in ("both", c.parameters["search"])]


ORDER = 90
"""The place of these numerics in the measuring catalogue (``slt.measure.catalogue``)."""
NUMERICS = Numerics(
    STATEMENT, windows=WINDOWS, holds=functools.partial(drawn_cases, STATEMENT), rerun=rerun,
    searches=(length_search(STATEMENT),),
    examples={"holds": 8},
)
