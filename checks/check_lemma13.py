"""Checks of Lemma 13: the statement held against what the harness measures.

The measurement lives in ``slt.measure.statements.lemma13``; this module only states what must hold."""
from __future__ import annotations

from hypothesis import given
from slt.measure import strategies
from slt.measure.evidence import report_failures
from slt.measure.statements.lemma13 import COUNTEREXAMPLE, STATEMENT, WINDOWS, counterexample_values, measure


@strategies.examples(3)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_lemma13_holds_under_adversarial_search(point):
    case = measure(point["seed"], point["d1"], point["H"], point["alpha"], point["eps_max"], point["T"])
    assert not report_failures([case]), report_failures([case])


def test_printed_lemma13_is_violated_and_the_proof_form_holds_at_the_counterexample():
    """FINDING: Lemma 13 as printed (without the proof's factor 2) is false; the proof's form holds here."""
    import numpy as np

    cx = COUNTEREXAMPLE
    assert max(np.linalg.norm(np.array(cx["X"]), axis=1)) <= cx["alpha"]
    assert max(np.linalg.norm(np.array(cx["X"]) - np.array(cx["X_prime"]), axis=1)) <= cx["eps_max"] + 1e-15
    lhs, lhs_mp, printed, proof = counterexample_values()
    assert abs(lhs - float(lhs_mp)) < 1e-12
    assert lhs_mp > printed, (lhs_mp, printed)
    assert lhs_mp <= proof, (lhs_mp, proof)
