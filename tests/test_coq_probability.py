"""Probabilities in the kernel: Lemma 2, Lemma 7, Theorems 9, 10, 11 and 14 as the paper states them, from Lueker's
corollary.

- ``Probability.v``'s outer probability has a model (the Dirac probability), and ``Model.v`` instantiates every
  hypothesis of each probabilistic statement theorem (the corollary included) and applies it: no theorem holds
  because its hypotheses contradict one another.  A model with a hypothesis that fails is rejected.
- Lueker's corollary is a hypothesis (``lueker_cited``) of each probabilistic theorem, never the conclusion of one:
  each theorem's closed type quantifies over it, and without it the proof fails.
- Each hypothesis, count and constant is printed from ``bounds/``: the universal constant halved in a printed width,
  Lemma 5's ``eps_max <= 1/2`` raised, Theorem 9's ``alpha >= sqrt(d2)`` lowered each make the theorem fail inside its
  Section (the counts and budgets: ``test_coq_math.py::test_a_planted_mutation_of_a_printed_field_fails_its_coq_theorem``).
- ``Print Assumptions`` of every statement's theorem lists Coq's standard axioms only (and CoqInterval's)."""
from __future__ import annotations

import re

import pytest
import sympy as sp

from bounds.core import Edit
from bounds.prove import coq_math, coq_model
from bounds.symbols import C, d2

PROBABILISTIC = ("lemma7", "lemma2", "theorem9")
"""The probabilistic statements proved from Lueker's corollary directly."""
COMPOSED = ("theorem10", "theorem11", "theorem14")
"""The probabilistic statements composed from those (the deterministic compositions and their union bounds' lifts are
also applied to a model of their own in ``ChainModels.v``, tests/test_coq_compositions.py)."""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The committed files and the generated ``Statements.v``, compiled once per session (``tests/coq_shared.py``),
    in a private copy this module may write into (a model, a mutated model)."""
    from tests.coq_shared import private_copy

    return private_copy(tmp_path_factory, "coq_probability")


@pytest.fixture(scope="module")
def chain(folder, tmp_path_factory):
    """The committed Statements.v compiled as a chain of its chunks, once per session (``tests/coq_shared.py``)."""
    from tests.coq_shared import statements_chain

    return statements_chain(tmp_path_factory)


def _fails_in(chain, tmp_path, name, text) -> str:
    """``text`` as Statements.v compiled beside the library (``coq_shared.fails_in``): Coq's error, inside Section
    ``name``."""
    from tests.coq_shared import fails_in

    return fails_in(chain, tmp_path, text, f"Section {name}.", name)


def test_the_model_instantiates_every_hypothesis_of_each_statement_theorem(tmp_path_factory):
    from tests.coq_shared import shared_model

    result = shared_model(tmp_path_factory)  # coq_model.model_check of the committed Model.v, once per session
    assert result["ok"], result["error"]
    assert set(result["applied"]) == set(coq_math.FORMAL)  # every statement theorem, the deterministic ones too
    assert set(PROBABILISTIC) | set(COMPOSED) == {
        n for n, (_, prem, _) in coq_math.FORMAL.items() if coq_math.LUEKER_PREMISE in prem}
    # what the ten applications rest on together: Coq's standard axioms only (so each one's own list is too)
    assert result["axioms"] and coq_math.unexpected(result["axioms"]) == [], result["axioms"]
    assert "classical reals" in coq_math.families(result["axioms"])
    assert result["instances"] == {}  # asked one by one only when the list together names an odd axiom


def test_an_application_resting_on_an_odd_axiom_is_named(folder):
    """A model whose Lemma 7 application is an axiom of its own: the list together names it, so each application is
    asked alone, and only Lemma 7's names it."""
    odd = "Axiom slth_odd : forall x : nat, x = 0.\n" + "".join(
        f"Definition {d} := {'slth_odd' if n == 'lemma7' else 'tt'}.\n" for n, d in coq_model.INSTANCES.items())
    result = coq_model.model_check(folder, odd)
    assert result["ok"], result["error"]
    assert [a.split(".")[-1] for a in coq_math.unexpected(result["axioms"])] == ["slth_odd"]
    assert set(result["instances"]) == set(coq_model.INSTANCES)
    named = {n for n, axioms in result["instances"].items() if coq_math.unexpected(axioms)}
    assert named == {"lemma7"}, result["instances"]


def test_a_model_with_a_false_hypothesis_is_rejected(folder, tmp_path_factory):
    """The model's width for Lemma 7 cut from 96 to 16 units: C log(d1 d2/eps) = 30 log 2 > 16, so the width
    hypothesis has no proof and the model does not compile."""
    from tests.coq_shared import shared_model

    text = coq_model.MODEL.read_text()
    assert text.count("n_lemma7 30 1 1 (1 / 2) <= INR 96.") == 1
    wrong = text.replace("n_lemma7 30 1 1 (1 / 2) <= INR 96.", "n_lemma7 30 1 1 (1 / 2) <= INR 16.")
    result = coq_model.model_check(folder, wrong)
    assert not result["ok"] and result["error"].startswith("Model.v line"), result
    # A copy of the same build accepts the committed model: the session's one compile of it (``shared_model``, in
    # another private copy of the shared build), not a second one here.
    assert shared_model(tmp_path_factory)["ok"]


@pytest.mark.parametrize("old, new", [
    ("n_MHA_first_theorem14 4 1 1 2 1 (1 / 2) <= INR 64.", "n_MHA_first_theorem14 4 1 1 2 1 (1 / 2) <= INR 32."),
    ("assert (exp 16 <= 2 ^ 30) by interval.", "assert (exp 16 <= 2 ^ 20) by interval."),
    ("else if Nat.leb k m then (/ 2) ^ k else 0.", "else if Nat.leb k m then (/ 3) ^ k else 0."),
], ids=["theorem14 width 64 cut to 32", "binary items too coarse", "items 1/3^k"])
def test_the_composed_theorems_model_fails_on_a_false_hypothesis(folder, old, new):
    """Theorem 14's first block at width 32: C log(...) = 4 log(2^10 65 2) > 47 > 32, no proof.  The items
    -1, 1/2, ..., 1/2^20 are too coarse for the budgets exp(-16) the width 64 allows at C = 4 (exp 16 > 2^20).  The items
    -1, 1/3, 1/9, ... sum to at most 1/2 above 0, so they cover no z near 1: the cover lemma has no proof."""
    text = coq_model.MODEL.read_text()
    assert text.count(old) == 1
    result = coq_model.model_check(folder, text.replace(old, new))
    assert not result["ok"] and result["error"].startswith("Model.v line"), result


def test_lueker_is_a_hypothesis_of_each_probabilistic_theorem_and_the_conclusion_of_none(chain, tmp_path,
                                                                                          tmp_path_factory):
    from tests.coq_shared import shared_rests

    stated = shared_rests(tmp_path_factory)  # coq_math.rests_on of the compiled Statements.v, once per session
    for name in PROBABILISTIC + COMPOSED:
        assert stated[name][0] == [coq_math.LUEKER_PREMISE, coq_math.LUEKER_ITEMS], name
    assert "lueker" not in coq_math.FORMAL  # the corollary is stated (lueker_cited), proved nowhere
    text = coq_math.statements_file()
    assert not re.search(r"(Theorem|Lemma|Corollary)\s+\w+\s*:\s*lueker_cited\b", text)
    hyp = "Hypothesis lueker : lueker_cited P lueker_class C.\n"
    assert text.count(hyp) == len(PROBABILISTIC + COMPOSED)
    cut = text.replace(hyp, "", 1)  # Lemma 7's Section comes first among them
    assert text.index(hyp) > text.index("Section lemma7.")
    assert "lueker" in _fails_in(chain, tmp_path, "lemma7", cut)


@pytest.mark.parametrize("name, edit", [
    ("lemma7", Edit("lemma7", "widths.n", C, C / 2)),
    ("lemma2", Edit("lemma2", "widths.n", C, C / 2)),
    ("theorem9", Edit("theorem9", "widths.n_K", C, C / 2)),
    ("lemma5", Edit("lemma5", "params.eps_max.hi", sp.Rational(1, 2), 1)),
    ("theorem9", Edit("theorem9", "params.alpha.lo", sp.sqrt(d2), sp.sqrt(d2) / 2)),
], ids=["lemma7 C halved", "lemma2 C halved", "theorem9 n_K C halved", "lemma5 eps_max <= 1", "theorem9 alpha >= sqrt(d2)/2"])
def test_a_mutated_hypothesis_in_bounds_fails_its_coq_theorem(chain, tmp_path, name, edit):
    from bounds.catalogue import STATEMENTS
    mutated = {**STATEMENTS, name: edit.apply(STATEMENTS[name])}
    text = coq_math.statements_file(mutated)
    assert text != coq_math.statements_file()
    _fails_in(chain, tmp_path, name, text)


def test_print_assumptions_lists_only_the_standard_axioms(folder, tmp_path_factory):
    from tests.coq_shared import shared_rests

    stated = shared_rests(tmp_path_factory)
    assert set(stated) == set(coq_math.FORMAL)
    for name, (_, axioms) in stated.items():
        assert coq_math.unexpected(axioms) == [], name
        assert set(coq_math.families(axioms)) <= {"classical reals", "primitive 63-bit integers",
                                                  "primitive floats"}, name
    assert coq_math.unexpected(stated["lemma7"][1] + ["Statements.lueker_axiom"]) == ["Statements.lueker_axiom"]
