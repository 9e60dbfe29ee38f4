"""Checks of Lemma 2: the statement held against tickets built by its proof's construction.

The measurement lives in ``slt.measure.statements.lemma2``; this module only states what must hold. Each drawn
point runs as many independent trials as detect ``stats.target_rate(eps)`` with power 0.8 at level 0.01
(``RATE``, validated at import)."""
from __future__ import annotations

from hypothesis import given
from slt.measure import calibration
from slt.measure import strategies
from slt.measure.statements.lemma2 import RATE, STATEMENT, WINDOWS, trial


@strategies.examples(2)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_lemma2_failure_rate_at_calibrated_width(point):
    params = {k: point[k] for k in ("d1", "d2", "eps")}
    RATE.run(calibration.check_constant(STATEMENT), params, trial, point["seed"])
