"""The public API of ``bounds``: names, aliases, evaluate/width/term against numbers computed by hand from
docs/statements.md, hypothesis errors, domains."""
import math

import pytest
import sympy as sp

import bounds

CANONICAL = ["lueker", "lemma2", "lemma7", "lemma8", "lemma5", "theorem9", "theorem10", "theorem11",
             "lemma12", "lemma13", "theorem14"]


def test_names_are_canonical():
    assert bounds.names() == CANONICAL


@pytest.mark.parametrize("alias, name", [("lemma4", "lemma7"), ("Lemma 4", "lemma7"), ("theorem3", "theorem9"),
                                         ("Theorem 3", "theorem9"), ("THEOREM 6", "theorem14"), ("Theorem 14", "theorem14"),
                                         ("lemma_8", "lemma8")])
def test_aliases(alias, name):
    assert bounds.get(alias).name == name


def test_unknown_name():
    with pytest.raises(KeyError, match="unknown statement"):
        bounds.get("theorem99")


def test_numbering():
    assert bounds.get("lemma7").numbering == {"main": "Lemma 4", "appendix": "Lemma 7"}
    assert bounds.get("theorem9").numbering["main"] == "Theorem 3"
    assert bounds.get("theorem14").numbering == {"main": "Theorem 6", "appendix": "Theorem 14"}


@pytest.mark.parametrize("name", CANONICAL)
def test_declaration_is_sympy(name):
    st = bounds.get(name)
    assert isinstance(st.conclusion, sp.Expr)
    assert all(isinstance(h.relation, sp.Basic) and h.label for h in st.hypotheses)
    assert all(isinstance(w, sp.Expr) and sp.Symbol("C", positive=True) in w.free_symbols for w in st.widths.values())
    assert (st.probability is None) == (name in ("lemma8", "lemma5", "lemma12", "lemma13"))
    assert set(st.domain) == set(st.parameters) == set(st.symbols)


def test_alpha_domain_is_the_hypothesis():
    dom = bounds.get("theorem9").domain
    assert dom["alpha"]["lo"] == sp.Max(sp.sqrt(sp.Symbol("d1", positive=True, integer=True)),
                                        sp.sqrt(sp.Symbol("d2", positive=True, integer=True)))
    assert dom["eps"]["lo"] == 0 and dom["eps"]["hi"] == 1 and dom["eps"]["hi_open"]
    assert dom["d1"]["integer"] and dom["d1"]["lo"] == 1


@pytest.mark.parametrize("name, width, params, expected", [
    ("lueker", "n", dict(eps=0.01), math.log(100)),
    ("lemma2", "n", dict(d1=2, d2=3, eps=0.1), 2 * math.log(2 * 2 * 3 / 0.1)),
    ("lemma7", "n", dict(d1=2, d2=3, eps=0.1), 2 * math.log(60)),
    ("theorem9", "n_K", dict(d1=4, d2=9, H=2, alpha=3, eps=0.1), 4 * math.log(8 * 2 * 27 * 8 / 0.1)),
    ("theorem9", "n_V", dict(d1=4, d2=9, H=2, alpha=3, eps=0.1), 4 * math.log(2 * 2 * 3 * 4 * 3 / 0.1)),
    ("theorem10", "n_l", dict(d1=4, d2=5, L=3, eps=0.1), 4 * math.log(4 * 3 * 4 * 5 / 0.1)),
    ("theorem11", "n_MHA", dict(d1=4, H=2, alpha=2, eps=0.5), 4 * math.log(32 * 8 * 2 * 8 / 0.5)),
    ("theorem11", "n_FC", dict(d1=4, H=2, L=3, alpha=2, eps=0.5), 4 * math.log(24 * 2 * 3 * 2 * 32 / 0.5)),
    # block 2 of B = 2 (d1 = H = alpha = 1): Theorem 11 at input norm 2 beta_2 = 8 and eps_2 = eps/2
    ("theorem14", "n_MHA", dict(d1=1, H=1, alpha=1, eps=0.5, B=2, b=2), math.log(32 * 8**3 / 0.25)),
    # block 1: input norm alpha, eps_1 = eps/(2^(B-1) P_2) with P_2 = 65 H sqrt(d1) beta_2^2 = 65 * 16
    ("theorem14", "n_MHA", dict(d1=1, H=1, alpha=1, eps=0.5, B=2, b=1), math.log(32 / (0.5 / (2 * 65 * 16)))),
    ("theorem14", "n_FC", dict(d1=1, H=1, L=2, alpha=1, eps=0.5, B=2, b=2), math.log(24 * 8 * 2 / 0.25)),
])
@pytest.mark.parametrize("C", [1.0, 7.5])
def test_width_values(name, width, params, expected, C):
    assert bounds.get(name).width(width, C=C, **params) == max(1, math.ceil(C * expected))


@pytest.mark.parametrize("name, params, expected", [
    ("lemma7", dict(d1=2, d2=3, eps=0.1), 0.1 / 6),
    ("lemma8", dict(d1=4, alpha=2, eps_max=0.1), 2 * 2 * (math.exp(0.2) - 1)),
    ("lemma5", dict(d1=4, alpha=2, eps_max=0.1), 4 * 2 * 2 * 0.1),
    ("theorem9", dict(d1=4, d2=9, H=2, alpha=3, eps=0.1), 0.1),
    ("theorem10", dict(alpha=2, eps=0.5), math.exp(0.5) - 1),
    ("lemma12", dict(d1=4, H=2, alpha=2, eps_max=0.01), 2 * 2 * (2 * (math.exp(0.08) - 1) + 0.01)),
    ("lemma13", dict(d1=4, H=2, alpha=2, eps_max=0.01), 2 * 2 * 2 * (2 * (math.exp(0.08) - 1) + 0.02)),
])
def test_evaluate_values(name, params, expected):
    assert bounds.get(name).evaluate(**params) == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("term, params, expected", [
    ("S2b", dict(alpha=3, d1=4, dQK_max=0.01), 9 * 4 * 0.01),
    ("S2c", dict(alpha=3, d1=4, dQK_max=0.01), 2 * 3 * (math.exp(0.72) - 1)),
    ("S3a", dict(alpha=3, d1=4, dQK_max=0.01), 2 * 3 * (math.exp(0.72) - 1)),
    ("S3b", dict(alpha=3, d1=4, d2=9, dVO_max=0.001), 2 * 3 * 6 * 0.001),
    ("head", dict(alpha=3, d1=4, d2=9, dQK_max=0.01, dVO_max=0.001), 6 * (math.exp(0.72) - 1) + 0.036),
    ("lipschitz", dict(alpha=3, d1=4, dQK_max=0.01, T=16), (math.exp(0.72) - 1) * 4 * 3),
])
def test_theorem9_terms(term, params, expected):
    assert bounds.get("theorem3").term(term, **params) == pytest.approx(expected, rel=1e-13)


def test_lipschitz_grows_like_sqrt_T_while_lemma8_does_not_depend_on_T():
    l8 = bounds.get("lemma8")
    lip = [l8.term("lipschitz", alpha=2, eps_max=0.1, T=t) for t in (1, 4, 16)]
    assert lip[1] == pytest.approx(2 * lip[0]) and lip[2] == pytest.approx(4 * lip[0])
    assert "T" not in {str(s) for s in l8.conclusion.free_symbols}
    assert lip[0] == pytest.approx(l8.evaluate(d1=1, alpha=2, eps_max=0.1))


@pytest.mark.parametrize("name, call, params, label", [
    ("theorem9", "evaluate", dict(eps=0.5, d1=4, alpha=1.9), "alpha >= sqrt(d1)"),
    ("theorem9", "evaluate", dict(eps=0.5, d1=1, d2=9, alpha=2), "alpha >= sqrt(d2)"),
    ("theorem9", "evaluate", dict(eps=1.0), "eps < 1"),
    ("theorem9", "evaluate", dict(eps=0.0), "eps > 0"),
    ("theorem9", "evaluate", dict(eps=-0.1), "eps > 0"),
    ("lemma7", "evaluate", dict(d1=0, d2=3, eps=0.1), "d1 >= 1"),
    ("lemma7", "evaluate", dict(d1=2.5, d2=3, eps=0.1), "d1 is an integer"),
    ("lemma7", "evaluate", dict(d1=2, d2=-3, eps=0.1), "d2 >= 1"),
    ("lemma7", "evaluate", dict(d1=2, d2=3, eps=float("nan")), "eps is nan"),
    ("lemma5", "evaluate", dict(d1=2, alpha=1, eps_max=0.6), "eps_max <= 1/2"),
    ("lemma8", "evaluate", dict(d1=2, alpha=1, eps_max=-0.1), "eps_max >= 0"),
    ("theorem14", "evaluate", dict(eps=0.5, B=1), "B >= 2"),
    ("theorem14", "evaluate", dict(eps=0.5, B=3, b=4), "b <= B"),
    ("theorem11", "evaluate", dict(eps=0.5, H=0), "H >= 1"),
])
def test_hypothesis_violations_name_the_hypothesis(name, call, params, label):
    with pytest.raises(ValueError, match=label.replace("(", r"\(").replace(")", r"\)")):
        getattr(bounds.get(name), call)(**params)


def test_width_errors():
    t9 = bounds.get("theorem9")
    with pytest.raises(ValueError, match="needs the universal constant C"):
        t9.width("n_K", d1=4, H=1, alpha=2, eps=0.1)
    with pytest.raises(ValueError, match="no width"):
        t9.width("n", C=1, d1=4, H=1, alpha=2, eps=0.1)
    with pytest.raises(ValueError, match="needs parameters"):
        t9.width("n_K", C=1, d1=4, alpha=2, eps=0.1)
    with pytest.raises(ValueError, match="unknown parameter"):
        t9.width("n_K", C=1, d1=4, H=1, alpha=2, eps=0.1, gamma=3)
    with pytest.raises(ValueError, match="C > 0"):
        t9.width("n_K", C=-1, d1=4, H=1, alpha=2, eps=0.1)


def test_alpha_exactly_sqrt_d1_is_accepted():
    assert bounds.get("theorem9").width("n_K", C=1, d1=2, H=1, alpha=math.sqrt(2), eps=0.5) >= 1
