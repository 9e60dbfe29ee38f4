"""Checks of Lueker / Pensia subset sum: the statement held against tickets built by its proof's construction.

The measurement lives in ``slt.measure.statements.lueker``; this module only states what must hold."""
from __future__ import annotations

import numpy as np
from hypothesis import given
from slt.measure import calibration
from slt.measure import strategies
from slt.measure.probabilistic import assert_rate
from slt.measure.probabilistic import trials_needed
from slt.measure.statements.lueker import STATEMENT, TRIALS, covering_radius, eps_floor, trial


def test_covering_radius_is_exact_on_a_known_set():
    # items {0.5, 0.25}: sums {0, .25, .5, .75}; on [-1, 1] the farthest target is z = -1 (distance 1).
    assert covering_radius(np.array([0.5, 0.25])) == 1.0


@strategies.examples(3)
@given(point=strategies.parameters(STATEMENT, eps=strategies.LogUniform(1e-3, 0.99)))
def test_lueker_failure_rate_at_calibrated_width(point):
    C = calibration.check_constant(STATEMENT)
    eps = max(point["eps"], eps_floor(C))  # below the floor the width exceeds the exact limit MAX_ITEMS
    assert_rate(STATEMENT, C, {"eps": eps}, trial, max(TRIALS, trials_needed(eps)), point["seed"])
