"""Certificates on the whole hypothesis domain, facts certified wherever applied, a counterexample
search that sees every scale, and the structure of ``bounds`` (no import circle, one evaluator)."""
import ast
import pathlib

import pytest
import sympy as sp

import bounds
from bounds import Param, Step
from bounds.facts import EXP_LINEAR, SCALAR
from bounds.symbols import H, alpha, d1, eps, x
from bounds.prove.verify import verify_facts, verify_step

PROVED = bounds.proved()

ROOT = pathlib.Path(__file__).resolve().parents[1]
EPS = Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True, box=(2**-20, 1), log=True)
DIM = Param("d1", lo=(1,), integer=True, box=(1, 64), log=True)


# ----- a counterexample search that sees every scale ----------------------------------------------------
@pytest.mark.parametrize("scale", [sp.Rational(1, 10**40), sp.Integer(10)**40])
def test_planted_violation_is_found_at_every_scale(scale):
    """3 s eps <= s eps fails everywhere, with both sides of size s (1e-40 or 1e+40)."""
    r = verify_step("planted", Step("planted", 3 * scale * eps, scale * eps), (EPS,))
    assert not r.ok and r.counterexample
    assert r.counterexample["lhs"] > r.counterexample["rhs"] > 0
    assert 1e-60 < r.counterexample["rhs"] / float(scale) <= 1


def test_planted_relative_violation_far_below_the_old_tolerance():
    """(1 + 1e-25) 1e40 eps <= 1e40 eps: a relative violation of 1e-25 at the scale 1e40."""
    big = sp.Integer(10)**40
    r = verify_step("planted", Step("planted-rel", big * (1 + sp.Rational(1, 10**25)) * eps, big * eps), (EPS,))
    assert not r.ok and r.counterexample


def test_step_failing_only_below_the_box_is_not_certified():
    """2^-21 <= eps holds on the old box eps >= 2^-20 but fails for eps < 2^-21: the step FAILS, with a
    counterexample outside the box."""
    r = verify_step("planted", Step("planted-box", sp.Rational(1, 2**21), eps), (EPS,))
    assert not r.ok, r
    assert r.counterexample["eps"] < 2**-21


def test_step_failing_only_for_large_dimensions_is_not_certified():
    r = verify_step("planted", Step("planted-d1", d1, 100), (DIM,))
    assert not r.ok and r.counterexample["d1"] > 100


# ----- domains ------------------------------------------------------------------------------------------
def test_true_step_on_unbounded_parameters_is_certified_on_the_whole_domain():
    """sqrt(d1)/alpha + sqrt(d2)/(4 alpha) <= 5/4 for every d1, d2 >= 1 and alpha >= max(sqrt d1, sqrt d2)."""
    from bounds.symbols import d2
    params = (DIM, Param("d2", lo=(1,), integer=True, box=(1, 64), log=True),
              Param("alpha", lo=(sp.sqrt(d1), sp.sqrt(d2)), box=(1, 64), log=True))
    r = verify_step("t", Step("dep", sp.sqrt(d1) / alpha + sp.sqrt(d2) / (4 * alpha), sp.Rational(5, 4)), params)
    assert r.ok and r.domain == "whole" and r.method == "interval", r


def test_every_step_states_its_domain():
    for name in PROVED:
        for r in bounds.verify(name):
            assert r.domain == "whole" or r.domain.startswith("box: ") or r.domain == "sampled", r
            if r.domain.startswith("box: "):
                assert "not certified beyond the box" in r.detail or "fact" in r.detail, r


def test_constant_proved_by_intervals_is_not_labelled_symbolic():
    r = verify_step("t", Step("const", sp.exp(1), 3), ())
    assert r.ok and r.method == "interval" and r.domain == "whole"


# ----- facts certified wherever they are applied ---------------------------------------------------------
@pytest.mark.parametrize("fact", SCALAR, ids=[f.name for f in SCALAR])
def test_facts_are_certified_on_their_whole_domain(fact):
    r = verify_step("facts", Step(fact.name, fact.lhs, fact.rhs), (fact.domain,))
    assert r.ok and r.domain == "whole", r


def test_fact_on_all_of_zero_one_including_arguments_far_below_2_to_minus_30():
    r = next(r for r in verify_facts() if r.step == EXP_LINEAR.name)
    assert r.ok and r.domain == "whole"
    lhs, rhs = Step("f", EXP_LINEAR.lhs, EXP_LINEAR.rhs).evaluate(x="1e-300", dps=40)
    assert 0 < lhs < rhs


def test_fact_applied_outside_its_domain_somewhere_in_the_step_domain_fails():
    """exp(x) - 1 <= 2x applied at x = eps * d1: inside [0, 1] on the box d1 <= 64, eps <= 1/64 only."""
    params = (DIM, Param("eps", lo=(0,), hi=(sp.Rational(1, 64),), lo_open=True, box=(2**-20, 2**-6), log=True))
    arg = eps * d1
    r = verify_step("t", Step("s", 3 * (sp.exp(arg) - 1), 6 * arg, (EXP_LINEAR.name,)), params)
    assert not r.ok


def test_fact_application_inherits_the_domain_of_its_argument_check():
    """The fact at x = eps/(4 H alpha): the argument is in [0, 1] on the whole domain (alpha >= 1)."""
    params = (EPS, Param("H", lo=(1,), integer=True, box=(1, 64), log=True),
              Param("alpha", lo=(1,), box=(1, 64), log=True))
    arg = eps / (4 * H * alpha)
    r = verify_step("t", Step("s", sp.exp(arg) - 1, 2 * arg, (EXP_LINEAR.name,)), params)
    assert r.ok and r.domain == "whole" and EXP_LINEAR.name in r.detail, r


def test_every_fact_application_in_the_proofs_checks_its_argument():
    applied = [(name, r) for name in PROVED for r in bounds.verify(name) if "instance of fact" in r.detail]
    assert {(n, r.step) for n, r in applied} >= {("lemma5", "L5a"), ("theorem9", "S2c-i"), ("theorem14", "T14d-i")}
    for _, r in applied:
        assert "the argument stays in the fact's domain on" in r.detail and r.ok


# ----- structure: no import circle, one evaluator --------------------------------------------------------
def _imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            yield ("." * node.level) + (node.module or "")
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_no_import_circle_in_bounds():
    """The statements and the modules below them (core, symbols, evaluate, facts) never import the catalogue
    or anything above it (verify, mutations, the package): the catalogue is passed explicitly."""
    from bounds.catalogue import DECLARES  # the statement modules: those the catalogue discovers
    statements = {p.name for p in (ROOT / "bounds").glob("*.py") if DECLARES.search(p.read_text())} - {"catalogue.py"}
    below = statements | {"core.py", "symbols.py", "evaluate.py", "facts.py"}
    assert {"core.py", "attention.py", "theorem14.py"} <= below
    for name in sorted(below):
        mods = set(_imports(ROOT / "bounds" / name))
        assert not mods & {".catalogue", "bounds.catalogue", ".verify", ".mutations", "bounds", ".slack"}, (name, mods)


def _prover_imports(path):
    """The imports of ``path`` (a module directly in bounds/) that reach the prover, ``bounds.prove``."""
    return sorted(m for m in _imports(path) if m == ".prove" or m.startswith(".prove.") or m == "bounds.prove"
                  or m.startswith("bounds.prove."))


def test_the_paper_never_imports_the_prover():
    """The arrows point one way: no module of bounds/ outside the prover (the statements, core, symbols, facts,
    premises, plants, evaluate, the catalogue) imports ``bounds.prove``, anywhere in it; only the package's
    ``__init__`` re-exports the verifier for its users."""
    paper = sorted(p for p in (ROOT / "bounds").glob("*.py") if p.name != "__init__.py")
    assert {"attention.py", "core.py", "catalogue.py", "theorem14.py"} <= {p.name for p in paper}
    offenders = {p.name: _prover_imports(p) for p in paper if _prover_imports(p)}
    assert offenders == {}, offenders


def test_the_arrow_check_sees_a_planted_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def f():\n    from .prove.verify import verify_step\n    return verify_step\n")
    assert _prover_imports(planted) == [".prove.verify"]


def test_one_numeric_evaluator():
    """No module outside bounds/evaluate.py turns a SymPy expression into numbers (lambdify / evalf / N)."""
    offenders = []
    for folder in ("bounds", "slt", "reports", "checks"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "evaluate.py" and path.parent.name == "bounds":  # the one evaluator stays beside the data
                continue
            text = path.read_text()
            if "lambdify" in text or ".evalf(" in text or "sp.N(" in text:
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders


def test_step_certified_only_on_the_box_is_not_proved_and_says_why():
    """log(d1 + 1) - log(d1) <= 1 holds for every d1 >= 1, but the difference of two unbounded logs has no
    interval certificate at d1 -> oo in these forms: certified on the box only, so NOT PROVED (never ok), stating
    the box and that the seeded search of the whole domain found no violation."""
    r = verify_step("t", Step("box-only", sp.log(d1 + 1) - sp.log(d1), 1), (DIM,))
    assert not r.ok and r.verdict == "not proved" and r.counterexample is None, r
    assert r.method == "interval" and r.domain.startswith("box: d1 in [1, 64]"), r
    assert "on the box only, not on the whole declared domain" in r.detail and "no violation at" in r.detail
