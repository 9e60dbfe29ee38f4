"""Checks of Lemma 8: the statement held against what the harness measures.

The measurement lives in ``slt.measure.statements.lemma8``; this module only states what must hold."""
from __future__ import annotations

from hypothesis import given
from slt.measure import strategies
from slt.measure.softmax_perturbation import assert_holds
from slt.measure.statements.lemma8 import STATEMENT, WINDOWS


@strategies.examples(10)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_lemma8_holds_for_random_and_adversarial_inputs(point):
    assert_holds(STATEMENT, point)
