"""Every step of every encoded proof (every statement with proof steps, found from the catalogue) is certified:
symbolic or interval on the whole declared domain (one test per step, so a failure names the step); refuted and
not proved both fail, with their own message."""
import pytest

import bounds
from bounds.core import Step
from bounds.facts import SCALAR, STRUCTURAL
from bounds.prove.verify import verify_facts, verify_step

PROVED = bounds.proved()  # every statement with proof steps, found from the catalogue
STEPS = [(name, step) for name in PROVED for step in bounds.proof(name)]


@pytest.mark.parametrize("name, step", STEPS, ids=[f"{n}-{s.name}" for n, s in STEPS])
def test_step_verifies(name, step):
    st = bounds.get(name)
    r = verify_step(name, step, st.params)
    assert r.verdict != "refuted", f"{name} step {step.name} REFUTED ({r.method}): counterexample {r.counterexample}"
    assert r.verdict == "certified", f"{name} step {step.name} NOT PROVED ({r.method}, {r.domain}): {r.detail}"
    assert r.ok and r.method in ("symbolic", "interval") and r.domain == "whole"


def test_elementary_facts_verify():
    for r in verify_facts():
        assert r.verdict == "certified", r


def relied_names_problems(name: str, proof) -> list[str]:
    """What is wrong with the names the steps of ``name``'s proof rely on: a name that is neither a statement of
    the catalogue, nor a scalar fact (``bounds.facts.SCALAR``), nor a structural fact (``bounds.facts.STRUCTURAL``);
    a statement that is not earlier in the catalogue's order than ``name``; a proof that relies on nothing."""
    statements = bounds.names()
    known = set(statements) | {f.name for f in SCALAR} | set(STRUCTURAL)
    problems = [f"{name} {s.name}: relies on unknown {dep!r}" for s in proof for dep in s.relies_on if dep not in known]
    problems += [f"{name} {s.name}: relies on {dep}, which is not earlier than {name}" for s in proof
                 for dep in s.relies_on if dep in statements and statements.index(dep) >= statements.index(name)]
    if not any(s.relies_on for s in proof):
        problems.append(f"{name}: the proof relies on no statement or fact")
    return problems


@pytest.mark.parametrize("name", PROVED)
def test_steps_rely_on_known_earlier_names(name):
    """Steps that use a statement are built from its expressions: every name a step relies on is a statement
    (earlier in the catalogue) or a named fact, and every proof relies on at least one of them."""
    assert relied_names_problems(name, bounds.proof(name)) == []


def test_relied_names_check_fails_on_an_unknown_name():
    proof = bounds.proof("lemma13")
    planted = proof + [Step("planted", 1, 2, ("nosuch",))]
    assert relied_names_problems("lemma13", planted) == ["lemma13 planted: relies on unknown 'nosuch'"]
    later = proof + [Step("planted", 1, 2, ("theorem14",))]
    assert relied_names_problems("lemma13", later) == ["lemma13 planted: relies on theorem14, which is not earlier "
                                                       "than lemma13"]
    bare = [Step(s.name, s.lhs, s.rhs) for s in proof]
    assert relied_names_problems("lemma13", bare) == ["lemma13: the proof relies on no statement or fact"]


def test_verify_returns_one_result_per_step():
    res = bounds.verify("Theorem 3")
    assert [r.step for r in res] == [s.name for s in bounds.proof("theorem9")]
    assert {r.statement for r in res} == {"theorem9"}
