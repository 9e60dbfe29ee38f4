"""The verifier on steps whose truth is known: equalities, certified inequalities, false steps, edits."""
import mpmath
import pytest
import sympy as sp

from bounds import Edit, Param, Step, get
from bounds.symbols import alpha, d1, d2, eps, x
from bounds.prove.verify import verify_step

D = (Param("d1", lo=(1,), integer=True, box=(1, 64), log=True), Param("d2", lo=(1,), integer=True, box=(1, 64), log=True),
     Param("alpha", lo=(sp.sqrt(d1), sp.sqrt(d2)), box=(1, 64), log=True),
     Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True, box=(2**-20, 1), log=True))


def test_equality_is_symbolic():
    r = verify_step("t", Step("eq", eps / (2 * d1) + eps / (2 * d1), eps / d1), D)
    assert r.ok and r.method == "symbolic"


def test_inequality_needing_the_dependent_bound_is_certified_on_the_whole_domain():
    # sqrt(d1)/alpha + sqrt(d2)/(4 alpha) <= 3/2 needs alpha >= max(sqrt d1, sqrt d2) (5/4 is attained)
    r = verify_step("t", Step("dep", sp.sqrt(d1) / alpha + sp.sqrt(d2) / (4 * alpha), sp.Rational(3, 2)), D)
    assert r.ok and r.method == "interval" and r.domain == "whole", r
    assert "2 cases of the Max" in r.detail


def test_step_true_only_on_a_bounded_box_states_the_box_and_where_it_fails():
    """d1 eps <= 1 on d1 <= 64, eps <= 1/64 (a declared upper bound: the whole domain IS the box)."""
    params = (Param("d1", lo=(1,), hi=(64,), integer=True, box=(1, 64), log=True),
              Param("eps", lo=(0,), hi=(sp.Rational(1, 64),), lo_open=True, box=(2**-20, 2**-6), log=True))
    r = verify_step("t", Step("bounded", d1 * eps, 1), params)
    assert r.ok and r.domain == "whole", r


def test_false_step_fails_with_a_counterexample_that_violates_it():
    step = Step("false", sp.sqrt(d1) / alpha + sp.sqrt(d2) / (4 * alpha), sp.Rational(9, 8))
    r = verify_step("t", step, D)
    assert not r.ok and r.counterexample
    cex = r.counterexample
    assert cex["alpha"] >= max(cex["d1"], cex["d2"]) ** 0.5 * (1 - 1e-12)
    lhs, rhs = step.evaluate(**{k: v for k, v in cex.items() if k not in ("lhs", "rhs")})
    assert lhs > rhs


def test_tight_at_zero_fact_is_certified_on_all_of_zero_one():
    """exp(x) - 1 <= 2x is tight at x = 0: the monotonicity test (d/dx (2x - expm1 x) >= 0 near 0, and the face
    x = 0) closes the boxes touching 0, so the certificate covers [0, 1], not [2^-30, 1]."""
    r = verify_step("t", Step("fact", sp.exp(x) - 1, 2 * x),
                    (Param("x", lo=(0,), hi=(1,), box=(2**-30, 1), log=True),))
    assert r.ok and r.method == "interval" and r.domain == "whole" and "monotonicity" in r.detail, r


def test_false_fact_fails():
    r = verify_step("t", Step("fact", sp.exp(x) - 1, x), (Param("x", lo=(0,), hi=(1,), box=(2**-30, 1), log=True),))
    assert not r.ok and r.counterexample["lhs"] > r.counterexample["rhs"]


def test_by_fact_needs_the_argument_in_the_domain():
    params = (Param("x", lo=(0,), box=(2**-10, 4), log=True),)
    r = verify_step("t", Step("s", 3 * (sp.exp(x) - 1), 6 * x, ("exp(x)-1 <= 2x on [0,1]",)), params)
    assert not r.ok  # x up to 4: exp(4)-1 > 8


def test_edit_must_change_something():
    with pytest.raises(ValueError, match="does not occur"):
        Edit("lemma7", "conclusion", 17, 3).apply(get("lemma7"))
    edited = Edit("lemma7", "conclusion", d2, d2**2).apply(get("lemma7"))
    assert edited.conclusion == eps / (d1 * d2**2) and get("lemma7").conclusion == eps / (d1 * d2)


def test_step_evaluate_high_precision():
    lhs, rhs = Step("s", sp.exp(eps) - 1, eps).evaluate(eps=mpmath.mpf("1e-30"), dps=60)
    assert lhs > rhs
