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


def test_printed_lemma13_clean_pattern_is_worst_at_five_tokens():
    """The numbers of the COUNTEREXAMPLE comment: one token -1 and T - 1 tokens +1, each pulled towards 0 by eps_max;
    over T = 2..12 the printed-form ratio is largest at T = 5: 1.0382 at eps_max = 1e-3, 1.0400 at 1e-4 (mpmath)."""
    from slt.measure.statements.lemma13 import COUNTEREXAMPLE, counterexample_values

    for eps_max, worst in ((1e-3, 1.0382), (1e-4, 1.0400)):
        ratios = {}
        for T in range(2, 13):
            cx = dict(COUNTEREXAMPLE, eps_max=eps_max, X=[[-1.0]] + [[1.0]] * (T - 1),
                      X_prime=[[-(1 - eps_max)]] + [[1 - eps_max]] * (T - 1))
            _, lhs, printed, _ = counterexample_values(cx)
            ratios[T] = float(lhs / printed)
        assert max(ratios, key=ratios.get) == 5
        assert round(ratios[5], 4) == worst
