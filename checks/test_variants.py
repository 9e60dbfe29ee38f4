"""The printed forms (variants) of the paper's discrepancies: each refutes exactly the steps it declares (it
"breaks" them), with a counterexample, while the supported form verifies.  A step a variant leaves true but no
longer certifiable is "not proved": no break (listed by `slth proofs --variants`)."""
import math

import pytest
import sympy as sp

import bounds
from bounds.prove import readings
from bounds.catalogue import canonical
from bounds.core import Edit
from bounds.prove.mutations import catalogue_with, verify_all
from bounds.theorem14 import BLOCK_STEPS, READINGS

VARIANTS = [(st.name, v) for st in map(bounds.get, bounds.names()) for v in st.variants.values()]


def _step(cat, statement, name):
    return next(s for s in cat[statement].steps(lambda n: cat[canonical(n)]) if s.name == name)


@pytest.mark.parametrize("owner, variant", VARIANTS, ids=[f"{o}:{v.name}" for o, v in VARIANTS])
def test_variant_breaks_exactly_the_declared_steps(owner, variant):
    cat = variant.apply(catalogue_with())
    broken = [r for r in verify_all(cat) if r.verdict == "refuted"]
    assert {(r.statement, r.step) for r in broken} == set(variant.breaks)
    for r in broken:
        point = {k: v for k, v in r.counterexample.items() if k not in ("lhs", "rhs")}
        lhs, rhs = _step(cat, r.statement, r.step).evaluate(**point)
        assert lhs > rhs, (r.step, point)


def test_expected_variants_exist():
    assert {(o, v.name) for o, v in VARIANTS} >= {("lemma8", "d1"), ("lemma12", "printed"), ("lemma13", "printed"),
                                                  ("lemma12", "perturbed"), ("theorem14", "printed"),
                                                  ("theorem14", "exact-exp"), ("theorem14", "perturbed-logit"),
                                                  ("theorem14", "norm-beta")}


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


# Theorem 14's constant under each reading: (smallest integer kappa closing the block step T14d-x/i/ii,
# smallest closing every step of the reading or None).  docs/findings.md#theorem14-kappa states these.
THRESHOLDS = {"printed": (65, 65), "exact-exp": (33, 33), "perturbed-logit": (9, 16), "norm-beta": (17, None)}


def _violates(reading, kappa_value, r):
    """Re-evaluate the step ``r`` names at its counterexample, at 60 digits, in the reading's catalogue."""
    cat = readings.catalogue(reading, kappa_value)
    step = (readings.exact_block_step(reading, kappa_value) if r.step == "T14d-exact"
            else _step(cat, r.statement, r.step))
    point = {k: v for k, v in r.counterexample.items() if k not in ("lhs", "rhs")}
    lhs, rhs = step.evaluate(dps=60, **point)
    return lhs > rhs


def test_every_reading_has_a_threshold():
    assert set(THRESHOLDS) == set(READINGS) == {n for n in bounds.get("theorem14").variants}


@pytest.mark.parametrize("reading", sorted(THRESHOLDS))
def test_reading_block_kappa_is_certified(reading):
    """The bisection on [kappa - 1, kappa] returns kappa: the block step verifies at kappa (certified) and fails at
    kappa - 1 with a counterexample that really violates it."""
    kappa_value = THRESHOLDS[reading][0]
    th = readings.smallest_kappa(reading, BLOCK_STEPS, lo=kappa_value - 1, hi=kappa_value)
    assert th.kappa == kappa_value and th.below, th
    assert "T14d-ii" in {r.step for r in th.below}
    for r in th.below:
        assert r.counterexample and _violates(reading, kappa_value - 1, r), r


@pytest.mark.parametrize("reading, exact_holds", [("printed", True), ("exact-exp", False), ("perturbed-logit", False),
                                                  ("norm-beta", True)])
def test_exact_block_inequality_one_below_the_threshold(reading, exact_holds):
    """At kappa - 1 the block inequality with the exact exponential fails too in (b) and (c); in the linear
    readings (a) and (d) it holds (certified through exp(x)-1 <= 1.02 x on [0, 1/32]): 64 and 16 fail there only
    because exp(x) - 1 <= 2x doubles the leading term."""
    kappa_value = THRESHOLDS[reading][0] - 1
    e = readings.exact(reading, kappa_value)
    assert e.holds == exact_holds, e
    if not exact_holds:
        (r,) = e.results
        assert r.step == "T14d-exact" and _violates(reading, kappa_value, r), r


def test_reading_proof_thresholds():
    """(a) is the encoded statement (every step verified by test_proofs); (b) closes every step at 33;
    (c) closes every step at 16 (the variant test) and fails U2a at 15 (every factor of P_j >= 16 needs
    kappa >= 16 at H = d1 = alpha = 1); (d) fails T14c (beta_b + delta_b <= beta_b) at every kappa."""
    assert readings.catalogue("printed", 65) == dict(bounds.STATEMENTS)
    assert readings.closes("exact-exp", 33) == (True, [])
    ok, failed = readings.closes("perturbed-logit", 15, ("U2a",))
    assert not ok and [r.step for r in failed] == ["U2a"] and _violates("perturbed-logit", 15, failed[0])
    ok, failed = readings.closes("norm-beta", readings.KAPPA_MAX, ("T14c",))
    assert not ok and _violates("norm-beta", readings.KAPPA_MAX, failed[0])


def test_block_threshold_of_the_linear_readings_by_hand():
    """Independent derivation for (a) and (d): after exp(x)-1 <= 2x the block step reads
    2 H sqrt(d1)(n beta (8 n beta delta) + 2 delta) <= kappa H sqrt(d1) beta^2 delta (n beta_b the input norm),
    i.e. kappa >= 16 n^2 + 4/beta^2 with beta = beta_b >= 4: ceil(16 n^2 + 1/4)."""
    for reading, n in (("printed", 2), ("norm-beta", 1)):
        assert THRESHOLDS[reading][0] == math.ceil(16 * n**2 + sp.Rational(1, 4))


def test_block_threshold_of_the_exact_reading_at_the_worst_corner():
    """Independent derivation for (b): the exact block step at b = B = 2, H = d1 = alpha = 1 (beta_b = 4, the
    largest delta_b = eps/(2 kappa 16)), eps -> 1: 2(8 (exp(32 delta) - 1) + 2 delta) <= 16 kappa delta holds at
    kappa = 33 and fails at 32 (about 32 + 1/4 + higher order)."""
    import mpmath
    mpmath.mp.dps = 40

    def holds(k):
        delta = mpmath.mpf(1) / (2 * k * 16)
        return 2 * (8 * mpmath.expm1(32 * delta) + 2 * delta) <= 16 * k * delta
    assert holds(33) and not holds(32)


@pytest.mark.slow
@pytest.mark.thorough
@pytest.mark.parametrize("reading", sorted(THRESHOLDS))
def test_reading_verdict_by_full_bisection(reading):
    """The whole search: verdict at 16, bisection on [1, KAPPA_MAX] for the block and for every step."""
    v = readings.verdict(reading)
    assert (v.block.kappa, v.proof.kappa) == THRESHOLDS[reading]
    assert {(r.statement, r.step) for r in v.printed} == set(READINGS[reading][3])
    if v.proof.kappa is None:
        assert v.proof.never
