"""Checks of Lemma 12: the statement held against what the harness measures.

The measurement lives in ``slt.measure.statements.lemma12``; this module only states what must hold."""
from __future__ import annotations

from hypothesis import given
from slt.measure import strategies
from slt.measure.evidence import report_failures
from slt.measure.statements.lemma12 import STATEMENT, WINDOWS, measure


@strategies.examples(3)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_lemma12_holds_under_adversarial_search(point):
    case = measure(point["seed"], point["d1"], point["H"], point["alpha"], point["eps_max"], point["T"])
    assert not report_failures([case]), report_failures([case])
