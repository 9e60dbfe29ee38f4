"""``bounds.prove.verify_symbolic``: SymPy proves a step or says nothing (never a wrong proof)."""
import sympy as sp

from bounds.core import Param, Step
from bounds.symbols import H, alpha, d1, eps
from bounds.prove.verify_domain import Domain
from bounds.prove.verify_symbolic import simplify, small, symbolic

EPS = Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True, box=(2**-20, 1), log=True)
D1 = Param("d1", lo=(1,), integer=True, box=(1, 64), log=True)
H_ = Param("H", lo=(1,), integer=True, box=(1, 64), log=True)


def _sym(lhs, rhs, *params):
    return symbolic(sp.sympify(lhs), sp.sympify(rhs), Domain(Step("s", lhs, rhs), params))


def test_identity_and_assumption_proofs():
    assert _sym(eps / (d1 * H) * d1, eps / H, EPS, D1, H_) == "simplify(rhs - lhs) == 0"
    assert _sym(eps / (2 * H), eps / H, EPS, H_).startswith("SymPy assumptions")
    assert _sym(d1, d1**2, D1).startswith("SymPy assumptions")  # needs d1 >= 1: the shift d1 = 1 + t


def test_false_or_undecided_steps_get_no_proof():
    assert _sym(eps / H, eps / (2 * H), EPS, H_) == ""  # false
    assert _sym(d1**2, d1, D1) == ""  # false for d1 >= 2
    assert _sym(sp.Integer(1), sp.Rational(3, 2)) == ""  # constants are left to the intervals


def test_normal_form_of_large_expressions_combines_powers():
    big = sp.Add(*(alpha**k * d1**sp.Rational(k, 2) for k in range(1, 40)))
    assert not small(big)
    assert simplify(big - big) == 0
    assert simplify(sp.log(d1 * alpha) - sp.log(d1) - sp.log(alpha)) == 0
