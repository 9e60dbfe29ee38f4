"""theorem9.long_mha: Theorem 9 at long inputs in O(T) memory (the thorough profile's T = 2^16 check)."""
from __future__ import annotations

import numpy as np


def test_long_mha_matches_the_dense_forward_pass():
    from slt.measure.statements.theorem9 import long_mha
    from slt.models import mha
    from slt.samplers import inputs, target_mha

    w = target_mha(3, 2, 3, H=3)
    X = inputs(4, 200, 2, 2.0)
    np.testing.assert_allclose(long_mha(X, w), mha(X, w), rtol=0, atol=1e-13)


def test_the_long_check_fails_on_a_too_narrow_ticket():
    """The check the thorough profile runs can fail: at C = 0.1 (widths n_K = n_V = 2) and eps = 0.02 the ticket
    misses the bound; at the checks' constant it holds (short T here; the thorough check goes to 2^16)."""
    from slt.measure.evidence import report_failures
    from slt.measure.statements.theorem9 import long_cases as theorem9_long_cases

    weak, agreement = theorem9_long_cases(seed=5, d2=2, H=2, eps=0.02, lengths=(64, 256), C=0.1)
    assert agreement <= 1e-12 and all(c.violated for c in weak) and report_failures(weak)
    good, _ = theorem9_long_cases(seed=5, d2=2, H=2, eps=0.2, lengths=(64, 256))
    assert not report_failures(good)
