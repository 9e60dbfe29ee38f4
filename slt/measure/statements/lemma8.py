"""Lemma 8 (docs/statements.md#lemma8): ``||σ(z;a)X - σ(z+e;a)X|| <= sqrt(d1) alpha (exp(2 eps_max) - 1)`` for EVERY T.

Deterministic: random and adversarially optimised logits, perturbations, tokens and masks
(``slt.measure.softmax_perturbation``), T = 2 .. 2^14; any violation is a counterexample.
"""
from __future__ import annotations

from slt.measure.softmax_perturbation import numerics

STATEMENT = "lemma8"
ORDER = 80
NUMERICS = numerics(STATEMENT, eps_max_most=2.0, examples=10)
