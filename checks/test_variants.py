"""The printed forms (variants) of the paper's discrepancies: each breaks exactly the steps it declares,
with a counterexample, while the supported form verifies."""
import math

import pytest
import sympy as sp

import bounds
from bounds.catalogue import canonical
from bounds.core import Edit
from bounds.mutations import catalogue_with, verify_all

VARIANTS = [(st.name, v) for st in map(bounds.get, bounds.names()) for v in st.variants.values()]


def _step(cat, statement, name):
    return next(s for s in cat[statement].steps(lambda n: cat[canonical(n)]) if s.name == name)


@pytest.mark.parametrize("owner, variant", VARIANTS, ids=[f"{o}:{v.name}" for o, v in VARIANTS])
def test_variant_breaks_exactly_the_declared_steps(owner, variant):
    cat = variant.apply(catalogue_with())
    broken = [r for r in verify_all(cat) if not r.ok]
    assert {(r.statement, r.step) for r in broken} == set(variant.breaks)
    for r in broken:
        point = {k: v for k, v in r.counterexample.items() if k not in ("lhs", "rhs")}
        lhs, rhs = _step(cat, r.statement, r.step).evaluate(**point)
        assert lhs > rhs, (r.step, point)


def test_expected_variants_exist():
    assert {(o, v.name) for o, v in VARIANTS} >= {("lemma8", "d1"), ("lemma12", "printed"), ("lemma13", "printed"),
                                                  ("theorem14", "printed")}


@pytest.mark.parametrize("d1", range(1, 65))
def test_lemma8_with_d1_breaks_theorem9_S2c_for_every_d1_at_least_2(d1):
    """S2c-ii after exp(x)-1 <= 2x reads d1 alpha * 4 eps/(8 H alpha sqrt(d1)) <= eps/(2H), i.e. sqrt(d1) <= 1."""
    cat = bounds.get("lemma8").variants["d1"].apply(catalogue_with())
    step = _step(cat, "theorem9", "S2c-ii")
    for H, eps, r in [(1, 0.5, 1.0), (3, 1e-6, 7.0), (64, 0.99, 1.5)]:
        lhs, rhs = step.evaluate(d1=d1, H=H, eps=eps, alpha=r * math.sqrt(d1))
        assert (lhs > rhs) == (d1 >= 2), (d1, H, eps, float(lhs), float(rhs))
        assert float(lhs / rhs) == pytest.approx(math.sqrt(d1), rel=1e-12)


@pytest.mark.parametrize("eps_max", [1e-8, 1e-3, 0.5, 1.0])
def test_lemma12_printed_logit_step_fails_for_every_perturbation(eps_max):
    cat = bounds.get("lemma12").variants["printed"].apply(catalogue_with())
    lhs, rhs = _step(cat, "lemma12", "L12a").evaluate(alpha=2.0, eps_max=eps_max)
    assert lhs - rhs == pytest.approx(eps_max**2, rel=1e-12)  # (2 alpha + eps_max) eps_max vs 2 alpha eps_max


def test_lemma13_printed_is_half_the_proofs_last_line():
    l13 = bounds.get("lemma13")
    printed = l13.variants["printed"].apply(catalogue_with())["lemma13"]
    p = dict(d1=4, H=2, alpha=2.0, eps_max=0.01)
    assert printed.evaluate(**p) == pytest.approx(l13.evaluate(**p) / 2, rel=1e-14)


def test_theorem14_printed_kappa_needs_printed_lemma13_and_norm_beta_b():
    """kappa = 16 closes the block step only if Lemma 13 is used without its factor 2 AND at input norm beta_b
    (not the 2 beta_b a perturbed input can have), and then the norm step T14c fails."""
    l13 = bounds.get("lemma13").conclusion
    combo = catalogue_with(Edit("theorem14", "constants.kappa", 65, 16),
                           Edit("theorem14", "constants.perturbed_norm", 2, 1),
                           Edit("lemma13", "conclusion", l13, l13 / 2))
    broken = {r.step: r for r in bounds.verify("theorem14", combo) if not r.ok}
    assert set(broken) == {"T14c"}
    only_kappa = catalogue_with(Edit("theorem14", "constants.kappa", 65, 16),
                                Edit("lemma13", "conclusion", l13, l13 / 2))
    assert "T14d-ii" in {r.step for r in bounds.verify("theorem14", only_kappa) if not r.ok}


def test_smallest_integer_kappa_is_65():
    for kappa, ok in [(64, False), (65, True)]:
        cat = catalogue_with(Edit("theorem14", "constants.kappa", 65, kappa)) if kappa != 65 else catalogue_with()
        res = {r.step: r for r in bounds.verify("theorem14", cat)}
        assert res["T14d-ii"].ok == ok, (kappa, res["T14d-ii"])
    assert bounds.get("theorem14").constants["kappa"] == sp.Integer(65)
