"""Lemma 8 (docs/statements.md#lemma8): ``||σ(z;a)X - σ(z+e;a)X|| <= sqrt(d1) alpha (exp(2 eps_max) - 1)`` for EVERY T.

Deterministic: random and adversarially optimised logits, perturbations, tokens and masks
(``slt.measure.softmax_perturbation``), T = 2 .. 2^14; any violation is a counterexample.
"""
from __future__ import annotations

import functools

from slt.measure import strategies
from slt.measure.numerics import Numerics
from slt.measure.softmax_perturbation import cases, drawn_cases, length_search

STATEMENT = "lemma8"
LENGTHS = [2**k for k in range(1, 15)]
WINDOWS = dict(d1=(1, 8), alpha=(0.1, 10.0), eps_max=strategies.LogUniform(1e-3, 2.0), T=LENGTHS)


def rerun(seed: int, d1: int, alpha: float, eps_max: float, T: int, search: str = "both"):
    """The case(s) a printed re-run command names: ``search`` is random, adversarial or both."""
    found = cases(STATEMENT, T, d1, alpha, eps_max, seed, adversarial=search != "random")
    return [c for c in found if search in ("both", c.parameters["search"])]


ORDER = 80
"""The place of these numerics in the measuring catalogue (``slt.measure.catalogue``)."""
NUMERICS = Numerics(
    STATEMENT, windows=WINDOWS, holds=functools.partial(drawn_cases, STATEMENT), rerun=rerun,
    searches=(length_search(STATEMENT),),
    examples={"holds": 10},
)
