"""Checks of Theorem 9 / Theorem 3: the statement held against tickets built by its proof's construction.

The measurement lives in ``slt.measure.statements.theorem9``; this module only states what must hold. Each drawn
point runs as many independent trials as detect ``stats.target_rate(eps)`` with power 0.8 at level 0.01
(``RATE``, validated at import)."""
from __future__ import annotations

import pytest
from hypothesis import given
from slt.measure import calibration
from slt.measure import strategies
from slt.measure.evidence import report_failures
from slt.measure.statements.theorem9 import (LONG_RATE, LONG_WINDOWS, RATE, STATEMENT, WINDOWS, _params, chain_cases,
                                             trial)


@strategies.examples(3)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_theorem9_failure_rate_at_calibrated_widths(point):
    RATE.run(calibration.check_constant(STATEMENT), _params(point), trial, point["seed"])


@strategies.examples(4)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_theorem9_a_posteriori_chain_holds_for_every_input(point):
    found = chain_cases(point["seed"], calibration.check_constant(STATEMENT), **_params(point))
    assert not report_failures(found), report_failures(found)


@pytest.mark.slow
@strategies.examples(4)
@given(point=strategies.parameters(STATEMENT, **LONG_WINDOWS))
def test_theorem9_long_inputs_up_to_4096(point):
    C = calibration.check_constant(STATEMENT)
    LONG_RATE.run(C, _params(point), lambda s, c, **p: trial(s, c, lengths=(1024, 4096), **p), point["seed"])


@pytest.mark.slow
def test_theorem9_length_up_to_2_16_on_the_cpu(request):
    """Thorough profile: T = 2^12, 2^14, 2^16 on the CPU in O(T) memory (``slt.measure.long_sequences``; minutes)."""
    if request.config.getoption("--slth-profile") != "thorough":
        pytest.skip("thorough profile only (SLTH_PROFILE=thorough): T = 2^16 takes minutes on 2 cores")
    from slt.measure.long_sequences import theorem9_long_cases

    cases, agreement = theorem9_long_cases(seed=5, d2=2, H=2, eps=0.2, lengths=(2**12, 2**14, 2**16))
    assert agreement <= 1e-12, f"the long-sequence kernel and slt.models.mha differ by {agreement:.3g}"
    assert not report_failures(cases), report_failures(cases)
