"""``bounds.prove.verify_search``: counterexamples at any scale, confirmed at high precision; none for a true step."""
from fractions import Fraction

import mpmath
import sympy as sp

from bounds.core import Param, Step
from bounds.symbols import d1, eps
from bounds.prove.verify_domain import Domain
from bounds.prove.verify_search import check_point, sample_box, sample_whole, smallest_ratio

EPS = Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True, box=(2**-20, 1), log=True)
D1 = Param("d1", lo=(1,), integer=True, box=(1, 64), log=True)


def _dom(lhs, rhs, *params):
    return Domain(Step("s", lhs, rhs), params)


def test_check_point_sees_a_relative_violation_at_tiny_scale_and_confirms_it():
    tiny = sp.Rational(1, 10**40)
    lhs, rhs = eps * tiny * (1 + sp.Rational(1, 10**30)), eps * tiny
    cex = check_point(lhs, rhs, _dom(lhs, rhs, EPS), [mpmath.mpf("0.5")])
    assert cex and cex["eps"] == 0.5 and Fraction(str(cex["lhs"])) > Fraction(str(cex["rhs"]))  # (digits that differ)
    assert check_point(rhs, lhs, _dom(rhs, lhs, EPS), [mpmath.mpf("0.5")]) is None


def test_box_sample_finds_the_worst_violation_and_nothing_on_a_true_step():
    cex = sample_box(d1, 8 + 0 * d1, _dom(d1, 8 + 0 * d1, D1), 32)
    assert cex and cex["d1"] == 64
    assert sample_box(d1, d1**2, _dom(d1, d1**2, D1), 32) is None


def test_whole_domain_sample_reaches_beyond_the_box():
    lhs, rhs = d1, 10**6 + 0 * d1  # false only for d1 > 10^6, far beyond the box [1, 64]
    assert sample_box(lhs, rhs, _dom(lhs, rhs, D1), 64) is None
    cex = sample_whole(lhs, rhs, _dom(lhs, rhs, D1), 200)
    assert cex and cex["d1"] > 10**6


def test_smallest_ratio():
    step = Step("s", eps, 2 * eps)
    assert smallest_ratio(step, _dom(eps, 2 * eps, EPS), "") == 2.0
    assert smallest_ratio(Step("s", eps, eps), _dom(eps, eps, EPS), "simplify(rhs - lhs) == 0") == 1.0
