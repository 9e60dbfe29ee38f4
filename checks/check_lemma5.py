"""Checks of Lemma 5: the statement held against what the harness measures.

The measurement lives in ``slt.measure.statements.lemma5``; this module only states what must hold."""
from __future__ import annotations

from hypothesis import given
from slt.measure import strategies
from slt.measure.softmax_perturbation import assert_holds
from slt.measure.statements.lemma5 import STATEMENT, WINDOWS


@strategies.examples(8)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_lemma5_holds_for_random_and_adversarial_inputs(point):
    assert_holds(STATEMENT, point)
