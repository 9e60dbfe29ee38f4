"""Theorem 14's per-block requirements, derived from the block recursion: exponents quadratic in (b, B)."""
import math

import pytest
import sympy as sp

import bounds
from bounds.symbols import B, b
from bounds.theorem14 import KAPPA, exponents, recursion


def degree(expr) -> int:
    return sp.Poly(expr, b, B).total_degree()


@pytest.mark.parametrize("kappa", [None, 16, int(KAPPA)])
@pytest.mark.parametrize("first", [False, True])
def test_exponents_are_polynomials_of_degree_at_most_two(kappa, first):
    for width, ex in exponents(kappa, first).items():
        assert all(degree(e) <= 2 for e in ex.values()), (width, ex)
        # f1 (base 2), f2 (H), f3 (d1) are genuinely quadratic; alpha's exponent is linear
        assert degree(ex["2"]) == degree(ex["H"]) == degree(ex["d1"]) == 2, (width, ex)
        assert degree(ex["alpha"]) == 1 and ex["eps"] == -1


def test_printed_kappa_exponents():
    """kappa = 16 (the paper's P_b): the requirement of block b >= 2 is
    d1 C log(2^f1 alpha^(2(B-b)+3) H^f2 d1^f3 / eps) with the polynomials below."""
    mha = exponents(16)["n_MHA"]
    assert sp.expand(mha["2"] - (2 * B**2 + 3 * B - 2 * b**2 + 3 * b + 3)) == 0
    assert sp.expand(mha["H"] - (B**2 - b**2 + 3 * b - 2)) == 0
    assert sp.expand(mha["d1"] - (B**2 - b**2 + 3 * b) / 2) == 0
    assert sp.expand(mha["alpha"] - (2 * B - 2 * b + 3)) == 0
    fc = exponents(16)["n_FC"]
    assert sp.expand(fc["2"] - (2 * B**2 + 3 * B - 2 * b**2 - b + 3)) == 0 and fc["3"] == 1 and fc["L"] == 1


@pytest.mark.parametrize("bb, BB", [(2, 2), (2, 5), (3, 4), (4, 4), (1, 3), (1, 2)])
@pytest.mark.parametrize("width", ["n_MHA", "n_FC"])
def test_exponents_reproduce_the_width(bb, BB, width):
    """The exponent form evaluated by hand equals Statement.width (C = 1 times the log argument)."""
    ex = exponents(None, first=(bb == 1))[width]
    vals = dict(d1=3, H=2, L=2, alpha=2.0, eps=0.3)
    sym = {"kappa": int(KAPPA), "alpha": vals["alpha"], "H": vals["H"], "d1": vals["d1"], "L": vals["L"],
           "eps": vals["eps"]}
    log_arg = sum(float(e.subs({b: bb, B: BB})) * math.log(sym.get(base, 0) or int(base)) for base, e in ex.items())
    st = bounds.get("theorem14")
    params = {k: v for k, v in vals.items() if width == "n_FC" or k != "L"}
    exact = st._eval(st.widths[width], {**params, "b": bb, "B": BB, "C": 1}, width, exact=True)
    assert float(exact) == pytest.approx(vals["d1"] * log_arg, rel=1e-12)


def test_recursion_closed_form_matches_the_product():
    r = recursion(16)
    vals = {sp.Symbol("H", positive=True, integer=True): 2, sp.Symbol("d1", positive=True, integer=True): 4,
            sp.Symbol("alpha", positive=True): 3, B: 5}
    beta = lambda j: 3 * (4 * 2 * 2) ** (j - 1)  # noqa: E731
    for j in range(2, 6):
        direct = math.prod(16 * 2 * 2 * beta(i) ** 2 for i in range(j, 6))
        assert int(r["P"](j).subs(vals)) == direct
    assert r["P"](6).subs(vals) == 1


def test_union_constant():
    c = bounds.get("theorem6").constants
    assert c["first_share"] + c["later_share"] == c["union"] == sp.Rational(1055, 1984)


# ----- the closed forms (docs/findings.md#theorem14-kappa) against the block recursion -------------------------------------------
def _log_argument_exponents(width_expr) -> dict:
    from bounds.symbols import C, d1
    from bounds.theorem14 import _log_exponents
    return _log_exponents(width_expr / (d1 * C))


@pytest.mark.parametrize("first", [False, True])
def test_closed_form_equals_the_recursion(first):
    """The typed closed form (f1..f3, g1..g3; block 1's own formula) has exactly the exponents SymPy derives
    from Theorem 11 at the block's norm and budget."""
    from bounds.symbols import kappa
    from bounds.theorem14 import closed_form
    typed = {w: _log_argument_exponents(e.args[0 if first else 1].expr) for w, e in closed_form(kappa).items()}
    assert typed == exponents(None, first)


def test_closed_form_exponents_are_the_readme_polynomials():
    from bounds.theorem14 import F1, F2, F3, G1, G2, G3
    mha, fc = exponents()["n_MHA"], exponents()["n_FC"]
    assert [sp.expand(mha[k] - f) for k, f in (("2", F1), ("H", F2), ("d1", F3))] == [0, 0, 0]
    assert [sp.expand(fc[k] - g) for k, g in (("2", G1), ("H", G2), ("d1", G3))] == [0, 0, 0]
    assert sp.expand(F1 - (2 * B**2 - B - 2 * b**2 + 7 * b + 3)) == 0
    assert sp.expand(G3 - (B**2 - b**2 + b + 4) / 2) == 0
    assert sp.expand(mha["kappa"] - (B - b)) == 0 and sp.expand(mha["alpha"] - (2 * (B - b) + 3)) == 0
    assert sp.expand(fc["alpha"] - (2 * (B - b) + 1)) == 0 and fc["3"] == 1 and fc["L"] == 1


def test_block_one_formula_differs_from_the_later_blocks():
    """Block 1 (input norm beta_1 = alpha, budget eps/(2^(B-1) P_2)), derived by SymPy:
    n_MHA >= d1 C log(2^(2B^2-B+4) kappa^(B-1) alpha^(2B+1) H^(B^2) d1^((B^2+2)/2) / eps),
    n_FC >= d1 C log(3 2^(2B^2-B+2) kappa^(B-1) alpha^(2B-1) H^(B^2) d1^((B^2+4)/2) L / eps):
    the 2 <= b <= B formula at b = 1 would have 2^(f1(1)) = 2^(2B^2-B+8) and 2^(g1(1)) = 2^(2B^2-B+4)."""
    first, later = exponents(None, first=True), exponents(None)
    assert first["n_MHA"] == {"2": 2 * B**2 - B + 4, "kappa": B - 1, "alpha": 2 * B + 1, "H": B**2,
                              "d1": B**2 / 2 + 1, "eps": -1}
    assert first["n_FC"] == {"2": 2 * B**2 - B + 2, "3": 1, "kappa": B - 1, "alpha": 2 * B - 1, "H": B**2,
                             "d1": B**2 / 2 + 2, "L": 1, "eps": -1}
    at1 = {w: {k: sp.expand(e.subs(b, 1)) for k, e in ex.items()} for w, ex in later.items()}
    assert {k: sp.expand(first["n_MHA"][k] - at1["n_MHA"][k]) for k in at1["n_MHA"]} == {
        "2": -4, "kappa": 0, "alpha": 0, "H": 0, "d1": 0, "eps": 0}
    assert {k: sp.expand(first["n_FC"][k] - at1["n_FC"][k]) for k in at1["n_FC"]} == {
        "2": -2, "3": 0, "kappa": 0, "alpha": 0, "H": 0, "d1": 0, "L": 0, "eps": 0}


def _width_step(cat, name):
    from bounds.catalogue import lookup
    get = lookup(cat)
    return next(s for s in get("theorem14").steps(get) if s.name == name)


@pytest.mark.parametrize("where, old, new, step", [
    ("widths.n_MHA", "F1", -1, "T14w-n_MHA"),
    ("widths.n_FC", "G1", -1, "T14w-n_FC"),
    ("widths.n_MHA", "FIRST_F1", -1, "T14w-n_MHA-1"),
    ("widths.n_FC", "FIRST_G1", -1, "T14w-n_FC-1"),
])
def test_width_step_fails_when_the_closed_form_is_off_by_one(where, old, new, step):
    """T14w compares the typed closed form with Theorem 11 substituted at the block: f1 - 1 (a width too small by a
    factor 2 inside the log) fails with a counterexample; f1 + 1 (a looser, still sufficient width) verifies."""
    import bounds.theorem14 as t14
    from bounds.core import Edit
    from bounds.prove.mutations import catalogue_with
    from bounds.prove.verify import verify_step
    poly = getattr(t14, old)
    st = bounds.get("theorem14")
    for delta, ok in ((new, False), (1, True)):
        cat = catalogue_with(Edit("theorem14", where, 2**poly, 2**(poly + delta)))
        s = _width_step(cat, step)
        r = verify_step("theorem14", s, st.params)
        assert r.ok == ok, (delta, r)
        if not ok:
            point = {k: v for k, v in r.counterexample.items() if k not in ("lhs", "rhs")}
            lhs, rhs = s.evaluate(**point)
            assert lhs > rhs
    assert verify_step("theorem14", _width_step(catalogue_with(), step), st.params).ok


def test_width_steps_compare_two_derivations():
    """Each T14w step's sides are built separately: the closed form (statement widths) and the recursion
    (block_widths); they are different SymPy expressions that verify equal."""
    from bounds.prove.mutations import catalogue_with
    for name in ("T14w-n_MHA", "T14w-n_MHA-1", "T14w-n_FC", "T14w-n_FC-1"):
        s = _width_step(catalogue_with(), name)
        assert s.lhs != s.rhs, name


def test_the_kept_recursion_is_a_fresh_dict_per_call_and_follows_its_arguments():
    """``recursion`` is kept per (kappa, growth): a caller that edits the dict it got leaves the next caller's alone,
    and another kappa or growth is another recursion, not the kept one."""
    from bounds.symbols import H, d1
    from bounds.theorem14 import _recursion

    first = recursion(16)
    first["P"] = None
    again = recursion(16)
    assert again["P"] is not None and again is not first
    assert again == _recursion.__wrapped__(sp.Integer(16), 4 * H * sp.sqrt(d1))  # the kept one is the one computed
    assert recursion(32)["P"](B) != again["P"](B)
    assert recursion(16, 2 * H * sp.sqrt(d1))["beta"](2) != again["beta"](2)


def test_a_kept_fact_application_is_the_replacement_of_each_expression():
    """``Fact.apply`` is kept per (fact, expression): two expressions, each replaced as a fresh pattern match, and
    another fact applied to the same expression is that fact's replacement, not the kept one."""
    from bounds.facts import EXP_LINEAR, EXP_RATIO
    from bounds.symbols import alpha, eps

    one, two = sp.exp(eps) - 1, alpha * (sp.exp(4 * alpha * eps) - 1)
    assert EXP_LINEAR.apply(one) == EXP_LINEAR.rhs.xreplace({bounds.core.PARAMETER["x"]: eps})
    assert EXP_LINEAR.apply(two) == alpha * EXP_LINEAR.rhs.xreplace({bounds.core.PARAMETER["x"]: 4 * alpha * eps})
    assert EXP_RATIO.apply(one) == one and EXP_LINEAR.apply(alpha) == alpha  # no instance of their lhs


def test_kappa_64_2_breaks_exactly_the_block_step_and_the_rest_stay_certified():
    """kappa 65 -> 64.2 (321/5, a rational constant): the block step T14d-ii is refuted with a counterexample that
    satisfies every hypothesis, and T14c, T14d-x, T14d-i stay certified on the whole domain.  Their sides carry
    5^(B-b) beside (321 ...)^(b-B-1): in log space (B-b) ln 5 and -(B-b) ln 321 with B - b unbounded are bounded as
    one constant per monomial (``verify_interval._log_form``), where apart they bound the form by (-oo, oo) and the
    three were not proved."""
    from bounds.core import Edit
    from bounds.prove.mutations import catalogue_with
    from bounds.prove.verify import verify_step

    cat = catalogue_with(Edit("theorem14", "constants.kappa", KAPPA, sp.Rational(321, 5)))
    steps = {s.name: s for s in (_width_step(cat, n) for n in ("T14c", "T14d-x", "T14d-i", "T14d-ii"))}
    st = bounds.get("theorem14")
    for name in ("T14c", "T14d-x", "T14d-i"):
        r = verify_step("theorem14", steps[name], st.params)
        assert r.ok and r.domain == "whole", (name, r.detail)
    r = verify_step("theorem14", steps["T14d-ii"], st.params)
    assert r.verdict == "refuted"
    point = {k: v for k, v in r.counterexample.items() if k not in ("lhs", "rhs")}
    assert point["B"] >= point["b"] >= 2 and 0 < point["eps"] < 1 and point["alpha"] >= math.sqrt(point["d1"])
    lhs, rhs = steps["T14d-ii"].evaluate(**point)
    assert lhs > rhs
