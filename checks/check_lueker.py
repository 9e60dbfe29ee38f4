"""Checks of Lueker / Pensia subset sum: the statement held against tickets built by its proof's construction.

The measurement lives in ``slt.measure.statements.lueker``; this module only states what must hold. eps is drawn
from ``lueker.window(C)`` (the range the exact covering radius supports at the checked C), never clamped."""
from __future__ import annotations

import numpy as np
from hypothesis import given
from slt.measure import calibration
from slt.measure import strategies
from slt.measure.statements.lueker import STATEMENT, covering_radius, rate_check, trial, window

C = calibration.check_constant(STATEMENT)
RATE = rate_check(C)


def test_covering_radius_is_exact_on_a_known_set():
    # items {0.5, 0.25}: sums {0, .25, .5, .75}; on [-1, 1] the farthest target is z = -1 (distance 1).
    assert covering_radius(np.array([0.5, 0.25])) == 1.0


@strategies.examples(3)
@given(point=strategies.parameters(STATEMENT, eps=window(C)))
def test_lueker_failure_rate_at_calibrated_width(point):
    RATE.run(C, {"eps": point["eps"]}, trial, point["seed"])
