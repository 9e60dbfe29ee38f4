"""Checks of Theorem 9 / Theorem 3: the statement held against tickets built by its proof's construction.

The measurement lives in ``slt.measure.statements.theorem9``; this module only states what must hold."""
from __future__ import annotations

import pytest
from hypothesis import given
from slt.measure import calibration
from slt.measure import strategies
from slt.measure.evidence import report_failures
from slt.measure.probabilistic import assert_rate
from slt.measure.statements.theorem9 import STATEMENT, WINDOWS, _params, chain_cases, trial


@strategies.examples(3)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_theorem9_failure_rate_at_calibrated_widths(point):
    assert_rate(STATEMENT, calibration.check_constant(STATEMENT), _params(point), trial, 24, point["seed"])


@strategies.examples(4)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_theorem9_a_posteriori_chain_holds_for_every_input(point):
    found = chain_cases(point["seed"], calibration.check_constant(STATEMENT), **_params(point))
    assert not report_failures(found), report_failures(found)


@pytest.mark.slow
@strategies.examples(4)
@given(point=strategies.parameters(STATEMENT, d1=(2, 8), d2=(2, 8), H=[1, 2, 4], alpha=strategies.Scaled(1.0, 2.0),
                                   eps=strategies.LogUniform(0.05, 0.5)))
def test_theorem9_long_inputs_up_to_4096(point):
    C = calibration.check_constant(STATEMENT)
    assert_rate(STATEMENT, C, _params(point), lambda s, c, **p: trial(s, c, lengths=(1024, 4096), **p), 12,
                point["seed"])
