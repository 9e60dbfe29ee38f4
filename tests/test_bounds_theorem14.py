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
