"""``bounds.prove.verify_interval``: certificates on the whole (compactified) domain and on the box, each able to
fail: a false step is never certified, and the box search reports a violating point when it hits one."""
import sympy as sp

from bounds.core import Param, Step
from bounds.symbols import alpha, d1, d2, eps
from bounds.prove.verify_domain import Domain
from bounds.prove.verify_interval import on_box, on_whole, whole_cases

EPS = Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True, box=(2**-20, 1), log=True)
D1 = Param("d1", lo=(1,), integer=True, box=(1, 64), log=True)
D2 = Param("d2", lo=(1,), integer=True, box=(1, 64), log=True)
ALPHA = Param("alpha", lo=(sp.sqrt(d1), sp.sqrt(d2)), box=(1, 64), log=True)


def _dom(lhs, rhs, *params):
    return Domain(Step("s", lhs, rhs), params)


def test_whole_domain_certificate_through_the_compactified_infinite_end():
    lhs, rhs = sp.log(d1) + 1, d1 + 1  # holds for all d1 >= 1, up to infinity
    ok, how, certs = on_whole(lhs, rhs, _dom(lhs, rhs, D1))
    assert ok and "whole declared domain" in how and len(certs) == 1 and certs[0].cover


def test_whole_domain_refuses_a_step_false_far_out():
    lhs, rhs = d1, 10**6 + 0 * d1
    assert not on_whole(lhs, rhs, _dom(lhs, rhs, D1))[0]


def test_the_max_of_the_alpha_hypothesis_is_split_into_its_two_cases():
    lhs, rhs = sp.sqrt(d1 * d2), alpha**2
    cases = whole_cases(lhs, rhs, _dom(lhs, rhs, D1, D2, ALPHA))
    assert len(cases) == 2
    assert on_whole(lhs, rhs, _dom(lhs, rhs, D1, D2, ALPHA))[0]
    assert not on_whole(alpha**2, sp.sqrt(d1 * d2), _dom(alpha**2, sp.sqrt(d1 * d2), D1, D2, ALPHA))[0]


def test_box_certificate_and_box_counterexample():
    ok, detail, cex, box = on_box(eps**2, eps, _dom(eps**2, eps, EPS))
    assert ok and cex is None and "certified" in detail and box
    ok, detail, cex, box = on_box(eps, eps**2, _dom(eps, eps**2, EPS))
    assert not ok and cex and cex["lhs"] > cex["rhs"] and "violating point" in detail
