"""Far-corner counterexamples (bounds.prove.corners): edits false only beyond what sampling reaches are refuted."""
import mpmath
import pytest
import sympy as sp

import bounds
from bounds import Edit, Param
from bounds.prove import corners
from bounds.evaluate import evaluate
from bounds.prove.mutations import catalogue_with
from bounds.symbols import B, C, alpha, b, d1, d2, eps

L7 = bounds.get("lemma7").params


def _value(v):
    return mpmath.mpf(v) if isinstance(v, str) else mpmath.mpf(v)


def _violates(step, cex):
    """The counterexample violates the step at 60 digits (sides re-evaluated from the step itself)."""
    point = {k: _value(v) for k, v in cex.items() if k not in ("lhs", "rhs")}
    with mpmath.workdps(60):
        lhs, rhs = step.evaluate(dps=60, **point)
    return lhs > rhs


def _refuted(name, edit, step_name):
    cat = catalogue_with(edit)
    result = next(r for r in bounds.verify(name, cat) if r.step == step_name)
    step = next(s for s in bounds.proof(name, cat) if s.name == step_name)
    assert not result.ok and result.method == "corner", result
    assert result.counterexample and _violates(step, result.counterexample), result
    assert "confirmed by Arb (rigorous)" in result.detail, result.detail
    return result.counterexample


def test_lemma7_conclusion_times_min_1_1e40_over_d1_is_refuted_beyond_1e40():
    """A bound false far out: false for every d1 > 10^40 (at d1 = 10^41 the sides are 5e-42 > 5e-43)."""
    cex = _refuted("lemma7", Edit("lemma7", "conclusion", eps, eps * sp.Min(1, sp.Integer(10)**40 / d1)), "L7b")
    assert cex["d1"] > 1e40


def test_an_edit_false_only_below_eps_1e_320_is_refuted():
    cex = _refuted("lemma7", Edit("lemma7", "conclusion", eps, eps * sp.Min(1, eps * sp.Integer(10)**320)), "L7b")
    assert _value(cex["eps"]) < mpmath.mpf("1e-320")


def test_an_edit_false_only_for_alpha_beyond_1e35_sqrt_d1_is_refuted():
    edit = Edit("theorem11", "terms.attn_norm", alpha, alpha * sp.Min(1, sp.Integer(10)**35 * sp.sqrt(d1) / alpha))
    cex = _refuted("theorem11", edit, "B2a")
    assert cex["alpha"] > 1e35 * cex["d1"] ** 0.5


def test_a_width_false_only_for_d1_beyond_e100_is_refuted():
    cex = _refuted("theorem9", Edit("theorem9", "widths.n_K", C, C * sp.Min(1, 100 / sp.log(d1))), "S2a")
    assert cex["d1"] > mpmath.e ** 100
    assert cex["alpha"] >= max(cex["d1"], cex["d2"]) ** 0.5  # the hypothesis alpha >= max(sqrt d1, sqrt d2)


def test_the_leading_behaviour_carries_the_search_beyond_the_scan():
    """-log eps <= 70000 fails only for eps < e^-70000 (about 2^-100988): beyond the scan's 2^-16384, reached
    because the limit of rhs - lhs along eps -> 0 is -oo."""
    r = corners.search(-sp.log(eps), sp.Integer(70000), L7)
    assert r is not None and r.leading.startswith("fails"), r
    value = _value(r.counterexample["eps"])
    assert value < mpmath.e ** -70000 and -mpmath.log(value) > 70000
    assert r.confirmed == "Arb (rigorous)"


@pytest.mark.parametrize("lhs, rhs", [
    (eps / (d1 * d2), eps / d1),  # true on the whole domain
    (sp.sqrt(d1), alpha),  # true by the hypothesis alpha >= max(sqrt d1, sqrt d2)
    (b, B),  # true by the hypothesis b <= B: b -> oo alone leaves the domain
])
def test_true_steps_are_not_refuted(lhs, rhs):
    params = bounds.get("theorem9").params + bounds.get("theorem14").params
    assert corners.search(lhs, rhs, params) is None


def test_a_counterexample_respects_a_hypothesis_between_parameters():
    """2b <= B + 10 fails once b > 10 with b close to B: only the ray moving b and B together reaches it inside
    the domain (b -> oo alone breaks b <= B)."""
    params = bounds.get("theorem14").params
    r = corners.search(b * 2, B + 10, params)
    assert r is not None
    cex = r.counterexample
    assert cex["b"] <= cex["B"] and 2 * cex["b"] > cex["B"] + 10


def test_an_undeclared_parameter_is_not_searched():
    assert corners.search(sp.Symbol("zz", positive=True), 1, L7) is None


def test_the_refutation_says_where_and_how():
    r = corners.search(eps / (d1 * d2), eps * sp.Min(1, sp.Integer(10)**40 / d1) / (d1 * d2), L7)
    assert "d1 ~ X" in r.ray and r.leading.startswith("fails") and r.confirmed == "Arb (rigorous)"
    assert corners.refute(eps / (d1 * d2), eps * sp.Min(1, sp.Integer(10)**40 / d1) / (d1 * d2), L7) == \
        r.counterexample


def test_a_violation_needing_two_ends_at_once_is_found():
    """min(d1, 1/eps) <= 10^35 fails only where d1 and 1/eps are both beyond 10^35: no single end reaches it."""
    lhs, rhs = sp.Min(d1, 1 / eps), sp.Integer(10)**35
    r = corners.search(lhs, rhs, L7)
    assert r is not None
    assert "d1 ~" in r.ray and "eps ~" in r.ray
    cex = r.counterexample
    assert cex["d1"] > 1e35 and _value(cex["eps"]) < 1e-35
    # each end alone finds nothing: the other parameter bounded (d1 <= 64, or eps >= 2^-20)
    bounded_d1 = (Param("d1", lo=(1,), hi=(64,), integer=True, box=(1, 64), log=True),
                  Param("eps", lo=(0,), hi=(1,), lo_open=True, box=(2**-20, 1), log=True))
    bounded_eps = (Param("d1", lo=(1,), integer=True, box=(1, 64), log=True),
                   Param("eps", lo=(sp.Rational(1, 2**20),), hi=(1,), box=(2**-20, 1), log=True))
    assert corners.search(lhs, rhs, bounded_d1) is None and corners.search(lhs, rhs, bounded_eps) is None


def test_a_parameter_bounded_below_by_another_moves_off_its_bound():
    """B >= b (additive): the ray B - b -> oo; B <= b + 10^50 is false there, b <= B never."""
    params = (Param("b", lo=(1,), integer=True, box=(1, 10)), Param("B", lo=(b,), integer=True, box=(0, 10)))
    r = corners.search(B, b + sp.Integer(10)**50, params)
    assert r is not None and "B - b ~ X" in r.ray
    assert r.counterexample["B"] - r.counterexample["b"] > 1e50
    assert corners.search(b, B, params) is None


def test_a_violation_by_a_relative_1e_45_beyond_1e40_is_refuted():
    """rhs = lhs (1 - 10^-45 max(0, 1 - 10^40/d1)): false only for d1 > 10^40, and there only by 10^-45 of its size."""
    lhs = eps / (d1 * d2)
    rhs = lhs * (1 - sp.Rational(1, 10**45) * sp.Max(0, 1 - sp.Integer(10)**40 / d1))
    r = corners.search(lhs, rhs, L7)
    assert r is not None and r.counterexample["d1"] > 1e40 and r.confirmed == "Arb (rigorous)"
    point = {k: _value(v) for k, v in r.counterexample.items() if k not in ("lhs", "rhs")}
    l, rr = evaluate(lhs, point, 80), evaluate(rhs, point, 80)
    assert l > rr and (l - rr) / l < 1e-44


def test_the_search_is_bounded_by_work_and_reads_the_same_throttled(monkeypatch):
    """The search's budgets are counts of work (``PHASE_CALLS``, ``SLOW_CALLS``, ``LIMIT_CALLS``), not CPU seconds:
    throttled (a busy sibling thread makes this process's CPU clock run about twice as fast as its work) it reaches
    the same refutation by the same leading behaviour; with the SymPy limit's budget below any limit's cost the
    leading behaviour is undecided, and the refutation beyond the scan is lost, every time (the check can fail)."""
    from tests.test_work_budget import throttled

    def run():
        sp.core.cache.clear_cache()
        r = corners.search(-sp.log(eps), sp.Integer(70000), L7)
        return None if r is None else (r.leading, r.counterexample["eps"], r.ray)

    plain = run()
    assert plain is not None and plain[0].startswith("fails")
    with throttled():
        assert run() == plain
    monkeypatch.setattr(corners, "LIMIT_CALLS", 50)
    starved = run()
    with throttled():
        assert run() == starved is None


def test_arb_work_is_charged_to_the_meter_and_a_charge_over_budget_cuts_the_stage(monkeypatch):
    """Arb's confirmation runs in C, unseen by the call counter: ``_try`` charges its precisions times the sides'
    operations (``ARB_BITS_PER_CALL``), and a charge beyond a stage's budget cuts the stage like counted calls."""
    from bounds.prove import verify_domain

    charged = []
    monkeypatch.setattr(corners, "charge", lambda n: charged.append(n))
    params = (Param("d1", lo=(1,), integer=True),)
    found = corners.search(d1, sp.Integer(10) ** 40, params)  # false from d1 > 10^40 on: confirmed by Arb
    assert found is not None and charged and all(n > 0 for n in charged)
    with pytest.raises(verify_domain.TimeLimit):
        with verify_domain.time_limit(seconds=60, stage="test", calls=10_000):
            verify_domain.charge(10**6)
            sum(range(10))  # any call after the charge meets the cut
