"""Every step of every encoded proof verifies (one test per step, so a failure names the step), and every
step is certified (symbolic, or interval on its stated box), not only sampled."""
import pytest

import bounds
from bounds.mutations import PROVED
from bounds.verify import verify_facts, verify_step

STEPS = [(name, step) for name in PROVED for step in bounds.proof(name)]


@pytest.mark.parametrize("name, step", STEPS, ids=[f"{n}-{s.name}" for n, s in STEPS])
def test_step_verifies(name, step):
    st = bounds.get(name)
    r = verify_step(name, step, st.params)
    assert r.ok, f"{name} step {step.name} FAILED ({r.method}): {r.detail}; counterexample {r.counterexample}"
    assert r.method in ("symbolic", "interval"), f"{name} {step.name} is only sampled (evidence): {r.detail}"
    if r.method == "interval":
        assert r.box, f"{name} {step.name}: an interval certificate must state its box"


def test_elementary_facts_verify():
    for r in verify_facts():
        assert r.ok and r.method in ("symbolic", "interval"), r


def test_steps_compose_the_statements_they_rely_on():
    """Steps that use a statement are built from its expressions: every statement a step relies on exists,
    and every proof relies on at least one earlier statement or fact."""
    for name in PROVED:
        proof = bounds.proof(name)
        relied = {dep for s in proof for dep in s.relies_on}
        assert relied, name
        for dep in relied & set(bounds.names()):
            assert bounds.names().index(dep) != bounds.names().index(name)


def test_verify_returns_one_result_per_step():
    res = bounds.verify("Theorem 3")
    assert [r.step for r in res] == [s.name for s in bounds.proof("theorem9")]
    assert {r.statement for r in res} == {"theorem9"}
