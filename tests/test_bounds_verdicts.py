"""Three verdicts per step: certified on the whole declared domain, refuted with a
counterexample, or not proved; and the soundness holes closed: exact constants, no forced rewriting of radicals
of unknown sign, a complex side at a sampled point is a counterexample.  Each planted false step must come out
refuted or not proved, never certified."""
import mpmath
import pytest
import sympy as sp

import bounds
from bounds import Param, Step
from bounds.core import Edit
from bounds.evaluate import compile_expr
from bounds.prove.mutations import catalogue_with
from bounds.symbols import H, alpha, d1, d2, eps
from bounds.prove.verify import CERTIFIED, NOT_PROVED, REFUTED, StepResult, exact, verify_step
from bounds.prove.verify_symbolic import positive_args, simplify
from reports.cli import main

EPS = Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True, box=(2**-20, 1), log=True)
D1 = Param("d1", lo=(1,), integer=True, box=(1, 64), log=True)
H_ = Param("H", lo=(1,), integer=True, box=(1, 64), log=True)
# a positive expression of more than 60 operations: the verifier's cheaper normal form (with the rewriting) applies
BIG = sp.Add(*(eps**k * d1**sp.Rational(k, 2) * H**k for k in range(1, 12)))


def test_verdicts_of_the_three_kinds():
    assert verify_step("t", Step("ok", eps / 2, eps), (EPS,)).verdict == CERTIFIED
    r = verify_step("t", Step("bad", eps, eps / 2), (EPS,))
    assert r.verdict == REFUTED and not r.ok and r.counterexample
    # true on the box d1 <= 64 and up to 10^30, false beyond 10^40: no certificate, no counterexample found
    lhs, rhs = eps / d1, eps / d1 * sp.Min(1, sp.Integer(10)**40 / d1)
    r = verify_step("t", Step("far", lhs, rhs), (EPS, D1))
    assert r.verdict in (NOT_PROVED, REFUTED) and not r.ok


def test_lemma7_times_min_is_never_ok():
    """Lemma 7's conclusion times Min(1, 10^40/d1): L7b is false for every d1 > 10^40."""
    l7 = bounds.get("lemma7")
    edit = Edit("lemma7", "conclusion", l7.conclusion, l7.conclusion * sp.Min(1, sp.Integer(10)**40 / d1))
    res = {r.step: r for r in bounds.verify("lemma7", catalogue_with(edit))}
    assert res["L7b"].verdict in (NOT_PROVED, REFUTED) and not res["L7b"].ok
    assert res["L7a"].verdict == res["L7c"].verdict == CERTIFIED


def test_a_float_is_evaluated_as_the_exact_rational_it_stores_and_no_step_holds_one():
    third, below = sp.Float(1 / 3), sp.Float(0.3333333333333331)
    assert str(third) == str(below)  # their 15-digit strings agree: the old conversion certified third <= below
    enclosure = compile_expr(third, mpmath.iv)({})
    assert enclosure.a == enclosure.b == mpmath.mpf(1 / 3)
    assert exact(third) == sp.Rational(1 / 3) and exact(third * eps).atoms(sp.Float) == set()
    with pytest.raises(ValueError, match=r"Float .* write the exact rational meant, Rational\(1, 3\)"):
        Step("float", third, below)
    r = verify_step("t", Step("float", sp.Rational(1 / 3), sp.Rational(0.3333333333333331)))
    assert r.verdict == REFUTED and r.counterexample["lhs"] > r.counterexample["rhs"]


def test_no_forced_merging_of_radicals_of_unknown_sign():
    merged, product = sp.sqrt((eps - 2) * (eps - 3)), sp.sqrt(eps - 2) * sp.sqrt(eps - 3)
    assert not positive_args(product) and positive_args(sp.sqrt(eps) * sp.sqrt(d1) + sp.log(alpha * H))
    assert simplify(BIG + product - BIG - merged) != 0  # the large-expression normal form keeps them apart
    # false on (0, 1): the product of the two imaginary roots is -sqrt((2 - eps)(3 - eps)) < 0. Not certified: the
    # first pass answers that as the full verifier does (search=False; the counterexample search spends half a
    # minute to end not proved on the same definedness)
    r = verify_step("t", Step("radicals", BIG + merged, BIG + product), (EPS, D1, H_), search=False)
    assert r.verdict in (REFUTED, NOT_PROVED) and not r.ok and "undefined at eps" in r.detail


def test_a_complex_side_at_a_sampled_point_is_a_counterexample():
    r = verify_step("t", Step("complex", sp.sqrt(eps - 2), 1 + 0 * eps), (EPS,))
    assert r.verdict == REFUTED and "j" in r.counterexample["lhs"]


def test_slth_proofs_exits_1_and_says_not_proved_or_refuted(monkeypatch, capsys):
    """A step left not proved (here: as a true step certified on the box only would be) fails `slth proofs` with
    "not proved", distinct from a refuted one (here: Lemma 7's error eps/(d1 d2^2), refuted by the verifier)."""
    not_proved = StepResult("lemma7", "L7b", "interval", False, "not proved: certified on the box only", {}, None,
                            "box: d1 in [1, 64]")
    assert not_proved.verdict == NOT_PROVED and not_proved.status == "not proved"
    monkeypatch.setattr(bounds, "verify", lambda name, catalogue=None, on_step=None: [not_proved])
    assert main(["proofs", "--statement", "lemma7"]) == 1
    captured = capsys.readouterr()
    assert "1 proof steps (1 steps of the encoded proofs and 0 scalar facts): 0 certified, 0 refuted, 1 not proved" \
        in captured.out
    assert "NOT PROVED: 1 step(s) not proved: lemma7:L7b" in captured.err and "REFUTED" not in captured.err
    monkeypatch.undo()
    edited = catalogue_with(Edit("lemma7", "conclusion", d2, d2**2))
    real = bounds.verify
    monkeypatch.setattr(bounds, "verify", lambda name, catalogue=None, on_step=None: real(name, edited, on_step=on_step))
    assert main(["proofs", "--statement", "lemma7"]) == 1
    captured = capsys.readouterr()
    assert "REFUTED: 1 step(s) refuted: lemma7:L7b" in captured.err and "NOT PROVED" not in captured.err
