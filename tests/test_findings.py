"""README findings 5 and 6, each reproduced by a test (the other findings' tests are named in the README).

Finding 5: Theorem 11's split. One constant ``split = 1/4`` budgets both the MHA error (Theorem 9 at eps/4) and the
FC error ``exp(eps/4) - 1``; step B4 adds them. The variant ``theorem11:mha-eps/3`` raises the MHA budget alone to
eps/3: every step still verifies (B4: exp(eps/4) - 1 + 2 eps/3 <= eps on (0, 1]). The mutation eps/4 -> eps/3 of the
shared constant is caught by B4 only because the FC budget moves with it.

Finding 6: mixed-integer solvers hide their tolerances. A solver's reported objective (the continuous error
variable e >= |t - c.x|) is not the true error of the subset it returns (x rounded to {0, 1}, the sum recomputed
exactly): HiGHS reports 0 for subsets that miss by 1e-7 .. 1e-6, where the exact optimum (``slt.subset_sum``) is
~1e-12. HiGHS through scipy is always available; Gurobi and highspy (the ``[mip]`` extra) are skipped with the
reason when absent.
"""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
import sympy as sp

import bounds
from bounds.core import Edit
from bounds.prove.mutations import catalogue_with
from slt import mip


def _failed(catalogue, *names):
    return {(r.statement, r.step) for name in names for r in bounds.verify(name, catalogue) if not r.ok}


def test_finding5_theorem11_mha_budget_alone_at_eps_over_3_leaves_a_valid_proof():
    variant = bounds.get("theorem11").variants["mha-eps/3"]
    assert variant.breaks == ()
    assert _failed(variant.apply(catalogue_with()), "theorem11", "theorem14") == set()
    shared = catalogue_with(Edit("theorem11", "constants.split", sp.Rational(1, 4), sp.Rational(1, 3)))
    assert ("theorem11", "B4") in _failed(shared, "theorem11")
    # B4 at eps = 1, the worst case: MHA alone at eps/3 fits, both budgets at eps/3 do not.
    assert math.expm1(1 / 4) + 2 / 3 <= 1 < math.expm1(1 / 3) + 2 / 3


def lemma7_instances(seed: int, m: int, n: int):
    """Lemma 7's subset sums as in scripts/compare_mip.py: items v u (v, u iid U[-1, 1]), targets U[-1, 1]."""
    rng = np.random.default_rng([seed, n])
    return rng.uniform(-1, 1, (m, n)) * rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, m)


def test_finding6_highs_reports_zero_for_subsets_that_miss():
    """n' = 40, seed 0, entries 1 and 3 (the first entries where scipy 1.17's HiGHS reports 0): true errors 4.4e-7
    and 6.1e-8 against exact optima of 2.8e-12 and 1.2e-12."""
    from slt.subset_sum import solve

    c, t = lemma7_instances(0, 4, 40)
    _, exact = solve(c, t)
    _, true, _, reported = mip.solve(c[[1, 3]], t[[1, 3]], backend="highs", return_reported=True)
    for k, i in enumerate((1, 3)):
        assert reported[k] == 0.0, (i, reported[k], true[k])
        assert true[k] > 1e-8 > 1e3 * exact[i], (i, true[k], exact[i])


@pytest.mark.parametrize("backend, package", [("gurobi", "gurobipy"), ("highspy", "highspy")])
def test_finding6_optional_mip_solvers_hide_their_tolerances(backend, package):
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed (the [mip] extra: pip install -e .[mip])")
    from slt.subset_sum import solve

    c, t = lemma7_instances(0, 4, 40)
    _, exact = solve(c, t)
    _, true, _, reported = mip.solve(c, t, backend=backend, return_reported=True)
    # every returned subset is far from the optimum, and on some entry the objective reported understates the
    # true error of the subset returned with it
    assert all(true > 1e3 * exact), (true, exact)
    assert any(true - reported > 1e-8), (true, reported)


def test_the_mip_tolerance_task_runs():
    """The finding's task solves with HiGHS (scipy's, always installed): the module's own ``mip(record)`` must not
    shadow the solver (it did once, and the default `slth report` stopped with an AttributeError)."""
    from slt.measure import findings

    out = findings.mip_tolerance(seed=0, **findings.MIP_POINT)
    assert out["rows"] and all(r["true"] >= r["exact"] >= 0 for r in out["rows"])


def test_finding7_theorem10_alpha_below_one():
    """Finding 7: Theorem 10 as printed (alpha > 0). Step T10b of the written proof fails at a point its own recursion
    reaches (L = 2, alpha = eps = 1/2, e_2 = alpha eps/(2L)); the bound the proof does give exceeds the printed one
    exactly below alpha*(L, eps) for L >= 2 (never at L = 1); with C doubled the printed bound follows for every
    alpha > 0 (every step certified), and without the doubling it does not (T10a refuted)."""
    from bounds.prove import theorem10_alpha as t10
    from bounds.subset_sum import DOUBLED_C, recursion_bound
    from bounds.symbols import L, alpha, eps
    from slt.measure import findings

    cx = t10.reachable_counterexample()
    assert cx["e_l"] == sp.Rational(1, 16) and cx["admissible"]
    assert f"{float(cx['lhs']):.4f}" == "0.0703" and f"{float(cx['rhs']):.4f}" == "0.0664"
    with pytest.raises(ValueError, match="alpha >= 1"):  # the encoded statement excludes the point
        bounds.get("theorem10").check(alpha=0.5)
    at_one = t10.reachable_counterexample({"L": 2, "alpha": 1, "eps": sp.Rational(1, 2)})
    assert at_one["lhs"] <= at_one["rhs"]  # at alpha = 1 the step holds
    # the proof's own bound at the point is below the printed one: 0.1328 < 0.1331
    st, get = t10.printed()
    at = {alpha: sp.Rational(1, 2), eps: sp.Rational(1, 2), L: 2}
    own, printed = (float(e.xreplace(at)) for e in (recursion_bound(st, get), st.conclusion))
    assert (f"{own:.4f}", f"{printed:.4f}") == ("0.1328", "0.1331") and t10.excess(0.5, 0.5, 2) < 0
    # the region: below alpha* the proof's bound exceeds the printed one, above it does not; never at L = 1
    for layers, e in ((2, 0.5), (3, 0.01), (100, 0.1)):
        a = t10.threshold(layers, e)
        assert 0 < a < 1 and t10.excess(a * (1 - 1e-6), e, layers) > 0 > t10.excess(a * (1 + 1e-6), e, layers)
    assert t10.threshold(1, 0.5) is None and all(r.verdict == "certified" for r in t10.l1_step())
    # with C doubled every step is certified; the same proof without doubling C fails at the width step
    assert [r.verdict for r in t10.doubled_c()] == ["certified"] * len(t10.doubled_c())
    undoubled = [r for r in t10.doubled_c(tuple(e for e in DOUBLED_C if e.where != "widths.n_l"))
                 if r.verdict != "certified"]
    assert [(r.step, r.verdict) for r in undoubled] == [("T10a", "refuted")]
    # the report's finding, from a record holding the printed variant (and none without it)
    rec = {"statements": [], "steps": [], "empirical": None, "profile": "quick",
           "variants": [{"statement": "theorem10", "variant": "printed", "broken": []}]}
    f = findings.theorem10_alpha(rec)
    assert f["status"] == "proof step fails" and "not a counterexample to the theorem" in " ".join(f["sentences"])
    assert "with C doubled it follows for every alpha > 0" in f["title"]
    assert f["counterexample"]["rows"] == [["2", "0.5", "0.5", "0.0625", "0.0703125", "0.0664062"]]
    assert findings.theorem10_alpha({**rec, "variants": None})["status"] == "not in this record"


def test_finding11_lueker_as_cited_allows_one_item_and_a_wider_form_is_not_refuted(monkeypatch):
    """Decided from bounds/' printed width: n >= C log(1/eps) is 1 at eps = exp(-1/C) for every C (refuted, with the
    table at three C); the check can fail: with the width C log(2/eps) it is not 1 there, and the finding says
    "not reproduced"."""
    import dataclasses

    from bounds.catalogue import STATEMENTS
    from bounds.symbols import C, eps
    from slt.measure import findings

    f = findings.lueker_printed({"statements": []})
    assert f["status"] == "refuted" and f["test"].endswith("test_lueker_as_printed_fails_for_one_item_and_coq_proves_it")
    assert [row[2] for row in f["counterexample"]["rows"]] == ["1"] * len(findings.LUEKER_CS)
    st = STATEMENTS["lueker"]
    monkeypatch.setitem(STATEMENTS, "lueker", dataclasses.replace(st, widths={"n": C * sp.log(2 / eps)}))
    assert findings.lueker_printed({"statements": []})["status"] == "not reproduced"
