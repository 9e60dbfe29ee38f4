"""Theorems 10, 11 and 14 in Coq about the real objects (``proofs/coq/math/Theorem10.v``, ``Theorem11.v``,
``Theorem14.v``, ``ChainModels.v``).

- They compile and rest only on Coq's standard axioms (``Print Assumptions``); the model of ``ChainModels.v`` meets
  every hypothesis of each (and of its probabilistic form), so none holds because its hypotheses contradict.
- Theorem 14 is about ``block`` and cites Lemma 13 as ``lemma13_block`` proves it: no per-block conclusion is
  assumed (the old ``theorem11_conclusion`` / ``lemma13_conclusion`` are not used), and the perturbed tokens' bound
  comes from the chain: the hypothesis ``beta_b + delta_b <= c_b`` weakened to ``beta_b <= c_b`` (the unrepaired
  reading, Lemma 13 at input norm 2 beta_b with no bound on the perturbed tokens) breaks the proof.
- Planted defects break the proofs: Lemma 13's factor 2 -> 1.99, the target block's growth 2 (H beta + beta) halved,
  Theorem 10's layer budget eps/(2L) -> eps/L, Theorem 11's input norm without ||x_i||, Theorem 11's error without
  the factor 2 of ||y' - y||, and each union bound's budget split wrong (a layer, the MHA, a block left out)."""
from __future__ import annotations

import re
import shutil

import pytest

from bounds.prove import coq_math

STEMS = ("Objects", "Sums", "Attention", "Blocks", "Softmax", "Matrix", "Triangle", "Induction", "Deep", "Lemma12",
         "Mha", "Perturbation", "Transformer", "Probability", "Theorem10", "Theorem11", "Theorem14", "ChainModels")
"""The files the compositions need, in no particular order (``coq_math.compile`` orders them)."""

NAMES = {"Theorem10": ("theorem10_of_lemma2", "theorem10_whp"),
         "Theorem11": ("block_gap", "theorem11_of_theorem9_lemma2", "theorem11_whp"),
         "Theorem14": ("block_norm", "theorem14_of_theorem11_lemma13", "theorem14_whp"),
         "ChainModels": ("theorem10_model", "theorem11_model", "theorem14_model", "theorem10_whp_model",
                         "theorem11_whp_model", "theorem14_whp_model")}


def files() -> dict[str, str]:
    return {k: v for k, v in coq_math.sources().items() if k in STEMS}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The compiled library (once per session, ``tests/coq_shared.py``), in a private copy."""
    from tests.coq_shared import private_copy

    return private_copy(tmp_path_factory, "compositions", record=True)


def test_the_compositions_are_reported_and_rest_only_on_the_standard_axioms(built, tmp_path_factory):
    for stem, names in NAMES.items():
        assert coq_math.THEOREMS[stem] == names
    from tests.coq_shared import assumption_groups, shared_assumptions

    rests = shared_assumptions(tmp_path_factory)  # coq_math.assumptions of THEOREMS in groups, once per session
    assert {n for names in NAMES.values() for n in names} <= set(assumption_groups()["every"])
    assert coq_math.unexpected(rests["every"]) == []  # asked together: an odd axiom of any one is in it


def test_every_composition_is_applied_to_a_model_of_its_hypotheses():
    """Each theorem of Theorem10.v, Theorem11.v, Theorem14.v whose hypotheses could contradict is applied in
    ChainModels.v to terms (not to hypotheses of its own): an Example per theorem, with no Variable or Hypothesis."""
    text = coq_math.strip_comments(coq_math.sources()["ChainModels"])
    assert not re.search(r"\b(Variable|Variables|Hypothesis|Hypotheses|Context)\b", text)
    for theorem in ("theorem10_of_lemma2", "theorem11_of_theorem9_lemma2", "theorem14_of_theorem11_lemma13",
                    "theorem10_whp", "theorem11_whp", "theorem14_whp"):
        assert re.search(rf"Example \w+ := {theorem} ", text), theorem


def test_theorem14_cites_no_per_block_conclusion_it_does_not_prove():
    text = coq_math.strip_comments(coq_math.sources()["Theorem14"])
    assert "theorem11_conclusion" not in text and "lemma13_conclusion" not in text
    assert "lemma13_block" in text and "block H T d1" in coq_math.sources()["Theorem11"]


MUTATIONS = {  # name -> (file, text, its mutation)
    "lemma 13's factor 2 -> 1.99": (
        "Theorem14", "2 * INR H * sqrt (INR d1) * (alpha * (exp (4 * alpha * eps) - 1) + 2 * eps).",
        "199 / 100 * INR H * sqrt (INR d1) * (alpha * (exp (4 * alpha * eps) - 1) + 2 * eps)."),
    "the perturbed tokens' bound assumed away (T14c)": (
        "Theorem14", "beta O <= c O -> (forall b, (1 <= b < B)%nat -> beta b + delta b <= c b) ->\n"
                     "  (forall b, (b < B)%nat -> theorem11_masks",
        "beta O <= c O -> (forall b, (1 <= b < B)%nat -> beta b <= c b) ->\n"
        "  (forall b, (b < B)%nat -> theorem11_masks"),
    "the target block's growth halved": (
        "Theorem14", "(forall b, (b < B)%nat -> 2 * (INR H * beta b + beta b) <= beta (S b)) ->\n"
                     "  beta O <= c O -> (forall b, (1 <= b < B)%nat -> beta b + delta b <= c b) ->\n"
                     "  (forall b, (b < B)%nat -> theorem11_masks",
        "(forall b, (b < B)%nat -> (INR H * beta b + beta b) <= beta (S b)) ->\n"
        "  beta O <= c O -> (forall b, (1 <= b < B)%nat -> beta b + delta b <= c b) ->\n"
        "  (forall b, (b < B)%nat -> theorem11_masks"),
    "theorem 10's layer budget eps/(2L) -> eps/L": (
        "Theorem10", "(W l) (eps / (2 * INR L))) ->\n  exists m", "(W l) (eps / INR L)) ->\n  exists m"),
    "theorem 11's input norm without ||x_i||": (
        "Theorem11", "1 <= c -> 0 <= eps_fc -> alpha + e_mha + INR H * alpha <= c ->\n  (forall k",
        "1 <= c -> 0 <= eps_fc -> e_mha + INR H * alpha <= c ->\n  (forall k"),
    "theorem 11's error without the factor 2 of ||y' - y||": (
        "Theorem11", "W X a i)) <= exp (c * eps_fc / 2) - 1 + 2 * e_mha.",
        "W X a i)) <= exp (c * eps_fc / 2) - 1 + e_mha."),
    "theorem 10's union bound over one layer too few": (
        "Theorem10", "<= exp (alpha * eps / 2) - 1)\n    (sum L fail).", "<= exp (alpha * eps / 2) - 1)\n    (sum (pred L) fail)."),
    "theorem 11's union bound without the MHA": (
        "Theorem11", "    (fail_mha + sum L fail).", "    (sum L fail)."),
    "theorem 14's union bound over one block too few": (
        "Theorem14", "        (delta B))\n    (sum B fail).", "        (delta B))\n    (sum (pred B) fail)."),
}


ONE_PER_FILE = ("lemma 13's factor 2 -> 1.99", "theorem 10's layer budget eps/(2L) -> eps/L",
                "theorem 11's error without the factor 2 of ||y' - y||")
"""The default run plants one defect in each of Theorem10.v, Theorem11.v and Theorem14.v; the other planted defects
(each about 12 s of coqc) are in CI's slow tier (``slow``): the same test, the same assertion, at more points."""


def _tier(mutation):
    return pytest.param(mutation, marks=() if mutation in ONE_PER_FILE else pytest.mark.slow)


def test_one_default_defect_per_composed_file():
    assert sorted(MUTATIONS[m][0] for m in ONE_PER_FILE) == ["Theorem10", "Theorem11", "Theorem14"]


@pytest.mark.parametrize("mutation", [_tier(m) for m in sorted(MUTATIONS)])
def test_a_planted_defect_breaks_the_composition(built, tmp_path, mutation):
    """The defects of ``ONE_PER_FILE`` run by default; the others are in CI's slow tier, covered in the default run by
    this test_a_planted_defect_breaks_the_composition at the defect of the same file."""
    stem, old, new = MUTATIONS[mutation]
    fs = files()
    assert fs[stem].count(old) == 1, f"{stem}.v no longer contains {old!r}"
    fs[stem] = fs[stem].replace(old, new)
    for f in built.iterdir():  # with the build record: the unchanged files are not compiled again
        if f.is_file():
            shutil.copy(f, tmp_path)
    ok, why = coq_math.compile(tmp_path, fs)
    assert not ok and why.startswith(f"{stem}.v"), why
