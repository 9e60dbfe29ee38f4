"""Checks of Theorem 14 / Theorem 6: the statement held against tickets built by its proof's construction.

The measurement lives in ``slt.measure.statements.theorem14``; this module only states what must hold."""
from __future__ import annotations

import pytest
from hypothesis import given
from slt.measure import calibration
from slt.measure import strategies
from slt.measure.probabilistic import assert_rate
from slt.measure.statements.theorem14 import STATEMENT, WINDOWS, trial


@strategies.examples(2)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_theorem14_failure_rate_at_calibrated_widths(point):
    params = {k: point[k] for k in ("d1", "H", "L", "alpha", "eps", "B")}
    assert_rate(STATEMENT, calibration.check_constant(STATEMENT), params, trial, 5, point["seed"])


@pytest.mark.slow
@strategies.examples(6)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_theorem14_failure_rate_many_trials(point):
    params = {k: point[k] for k in ("d1", "H", "L", "alpha", "eps", "B")}
    assert_rate(STATEMENT, calibration.check_constant(STATEMENT), params, trial, 20, point["seed"])
