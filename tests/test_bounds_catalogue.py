"""The catalogue is the one list of statements: what is verified, the mutation suite and the slack table are
found from it (each statement declares its own mutations and slack constants), so a statement added to a
catalogue is verified and mutated with no second list to keep in sync."""
import ast
import dataclasses
import pathlib

import sympy as sp

import bounds
from bounds.catalogue import STATEMENTS, constants, dependents, mutations, proved
from bounds.core import Constant, Mutation, Param, Statement, Step
from bounds.prove.mutations import MUTATIONS, run, verify_all
from bounds.prove.slack import CONSTANTS
from bounds.symbols import d1, d2, eps

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _toy(rhs=2 * eps, name="toylemma"):
    """A toy statement: lhs = eps <= rhs on eps in (0, 1), declaring one mutation and one slack constant."""
    def proof(st, get):
        return [Step("TOY1", get("lemma7").conclusion.xreplace({d2: 1}) * d1, st.conclusion, ("lemma7",), "toy step")]
    return Statement(name=name, title="toy", numbering={}, params=(Param("eps", lo=(0,), hi=(1,), lo_open=True,
                     hi_open=True, box=(2**-20, 1), log=True), Param("d1", lo=(1,), integer=True, box=(1, 64))),
                     conclusion=rhs, quantity="toy", builder=proof,
                     mutations=(Mutation("toy: 2 -> 1/4", "conclusion", 2, sp.Rational(1, 4), "TOY1"),),
                     slack=(Constant("the 2", ("conclusion",), 2),))


def test_proved_is_every_statement_with_steps():
    assert proved() == [n for n, st in STATEMENTS.items() if bounds.proof(n)]
    assert set(proved()) == {"lemma2", "lemma7", "lemma8", "lemma5", "theorem9", "theorem10", "theorem11", "lemma12",
                             "lemma13", "theorem14"}
    assert set(STATEMENTS) - set(proved()) == {"lueker"}  # the one cited result (slth proofs --axioms)
    assert all(not bounds.proof(n) for n in set(STATEMENTS) - set(proved()))  # cited, no proof encoded


def test_a_new_statement_is_verified_mutated_and_slacked_without_a_second_list():
    cat = {**STATEMENTS, "toylemma": _toy()}
    assert proved(cat)[-1] == "toylemma"
    res = [r for r in verify_all(cat) if r.statement == "toylemma"]
    assert [(r.step, r.ok) for r in res] == [("TOY1", True)]
    (m,) = [m for m in mutations(cat) if m.statement == "toylemma"]
    assert m.edit.statement == "toylemma" and m.caught_by == ("toylemma", "TOY1")
    assert [c.statement for c in constants(cat)][-1] == "toylemma"
    assert "toylemma" in dependents(["lemma7"], cat)  # its proof uses lemma7


def test_a_false_step_of_a_new_statement_fails_the_whole_verification():
    cat = {**STATEMENTS, "toylemma": _toy(rhs=eps / 2)}
    failed = [r for r in verify_all(cat) if not r.ok]
    assert [(r.statement, r.step) for r in failed] == [("toylemma", "TOY1")] and failed[0].counterexample


def test_declared_mutations_and_constants_are_bound_to_their_statement():
    assert MUTATIONS == mutations() and CONSTANTS == constants()
    for st in STATEMENTS.values():
        assert all(m.statement == st.name for m in st.mutations)
        assert all(c.statement == st.name for c in st.slack)
    # an edited statement (dataclasses.replace) keeps its declarations bound to it
    l7 = dataclasses.replace(STATEMENTS["lemma7"], conclusion=eps)
    assert [m.edit.statement for m in l7.mutations] == ["lemma7", "lemma7"]


def test_no_module_outside_the_catalogue_lists_statement_names():
    """No tuple or list of two or more statement names in bounds/ except in bounds/catalogue.py (a step names the
    statements it relies on, and a proof gets them through ``get``: that is its content, not a registry)."""
    names = set(STATEMENTS)
    offenders = []
    for path in sorted((ROOT / "bounds").rglob("*.py")):
        if path.name == "catalogue.py":
            continue
        tree = ast.parse(path.read_text())
        relies_on = {id(a) for call in ast.walk(tree) if isinstance(call, ast.Call)
                     and getattr(call.func, "id", "") == "Step"
                     for a in call.args[3:4] + [k.value for k in call.keywords if k.arg == "relies_on"]}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and id(node) not in relies_on:
                strings = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                # a registry lists statement names only (a tuple of Coq theorem names that happen to be called
                # lemma8 and lemma5 beside softmax_shift is not one)
                if sum(s in names for s in strings) >= 2 and all(s in names for s in strings) \
                        and len(strings) == len(node.elts):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {strings}")
    assert offenders == []


def test_users_is_the_transitive_closure_of_relies_on():
    """``bounds.catalogue.users``: one closure for the catalogue's ``dependents`` and slt.diff's relying statements."""
    from bounds.catalogue import dependents, users

    uses = {"a": {"x"}, "b": {"a"}, "c": {"y"}, "d": {"b", "c"}}
    assert users(uses, {"x"}) == {"x", "a", "b", "d"}
    assert users(uses, {"y"}) == {"y", "c", "d"}
    assert users(uses, {"z"}) == {"z"}
    assert "theorem14" in dependents(["lueker"]) and "lemma8" not in dependents(["lueker"])


def test_the_mutation_run_without_search_refutes_a_subset_of_the_full_run_and_can_miss_a_catch():
    """``run(m, search=False)`` (what checks/test_mutations.py asks) refutes only what the full run refutes, with the
    full run's results; an edit that leaves every step true (Lemma 5's 4 -> 8: a weaker conclusion) survives it, so
    that test can fail."""
    m = next(m for m in MUTATIONS if m.name == "lemma5: 4 -> 2")
    quick, full = run(m, search=False), run(m)
    assert quick and all(q in full for q in quick), (quick, full)
    assert m.caught_by in {(r.statement, r.step) for r in quick}
    assert run(dataclasses.replace(m, name="weaker", new=8), search=False) == []
