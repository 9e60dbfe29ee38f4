"""Checks of Lemma 7 / Lemma 4: the statement held against tickets built by its proof's construction.

The measurement lives in ``slt.measure.statements.lemma7``; this module only states what must hold."""
from __future__ import annotations

from hypothesis import given
from slt.measure import calibration
from slt.measure import strategies
from slt.measure.probabilistic import assert_rate
from slt.measure.probabilistic import trials_needed
from slt.measure.statements.lemma7 import STATEMENT, WINDOWS, trial


@strategies.examples(6)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_lemma7_failure_rate_at_calibrated_width(point):
    params = {k: point[k] for k in ("d1", "d2", "eps")}
    assert_rate(STATEMENT, calibration.check_constant(STATEMENT), params, trial,
                max(40, trials_needed(params["eps"])), point["seed"])
