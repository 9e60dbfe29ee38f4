"""Lemma 8 with eps_max <= 1/2 (main text: Lemma 5; docs/statements.md#lemma5): for ``eps_max <= 1/2``, ``||σ(z;a)X - σ(z+e;a)X|| <= 4 sqrt(d1) alpha eps_max``.

Same left side and searches as Lemma 8 (``slt.measure.softmax_perturbation``); deterministic, T = 2 .. 2^14.
"""
from __future__ import annotations

from slt.measure.softmax_perturbation import numerics

STATEMENT = "lemma5"
ORDER = 90
NUMERICS = numerics(STATEMENT, eps_max_most=0.5, examples=8)
