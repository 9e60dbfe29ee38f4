"""Every step names what it rests on (``Step.relies_on`` and ``Step.premises``), identities are said as such
(``bounds.core.step_kind``), and ``slth proofs --axioms`` lists the premises per statement."""
import dataclasses

import pytest
import sympy as sp

import bounds
from bounds import premises
from bounds.prove.axioms import axioms
from bounds.catalogue import STATEMENTS
from bounds.core import IDENTITY, INEQUALITY, Step, step_kind
from bounds.symbols import alpha, d1, d2, eps

STEPS = [(name, s) for name in bounds.proved() for s in bounds.proof(name)]


def uncited(steps) -> list[str]:
    """The steps that prove an inequality but cite nothing (no statement, fact or premise)."""
    return [s.name for s in steps if s.kind != IDENTITY and not s.cites]


def test_every_step_that_is_not_an_identity_cites_something():
    assert uncited([s for _, s in STEPS]) == []


def test_the_check_fails_on_a_step_that_cites_nothing():
    planted = bounds.proof("lemma7") + [Step("L7z", eps, 1)]
    assert uncited(planted) == ["L7z"]
    # an identity citing nothing is allowed; the same step made an inequality is not
    assert uncited([Step("id", 2 * d1 * d2, d2 * d1 * 2)]) == []
    assert uncited([Step("ineq", d1 * d2, 2 * d1 * d2)]) == ["ineq"]
    assert uncited([Step("cited", d1 * d2, 2 * d1 * d2, premises=(premises.ENTRY_BOUND,))]) == []


def test_every_premise_a_step_names_is_declared_once():
    used = {p for _, s in STEPS for p in s.premises}
    assert used <= set(premises.ALL)
    assert len({p.name for p in premises.ALL}) == len(premises.ALL)
    assert set(premises.ALL) - used == set()  # none declared and never used


UNCHECKED_PREMISES = {  # the premises the written proofs use that nothing checks
    "Lueker's item distribution", "Lueker for every z at once", "|W_ij| <= ||W||", "softmax perturbation identity",
    "Hoelder step", "induction over layers", "uniformity over inputs", "n = d1 n' when d1 does not divide n",
    "Lemma 12's ||x'_i|| <= alpha",
}


def test_theorem14_rests_on_every_named_premise():
    got = {a.name: a for a in axioms("theorem14") if a.kind == "premise"}
    assert UNCHECKED_PREMISES <= set(got)
    assert ("lemma2", "L2b") in got["Lueker's item distribution"].cited_by
    assert ("lemma8", "L8b") in got["Hoelder step"].cited_by
    assert ("lemma12", "L12a") in got["Lemma 12's ||x'_i|| <= alpha"].cited_by
    assert ("theorem10", "T10c") in got["induction over layers"].cited_by
    from bounds.prove import coq_math
    proved = set(coq_math.proved_premises())
    assert proved and set(got) - proved, "some premises proved in Coq and some not"
    for name, a in got.items():  # the list says what Premises.v says: proved there, or assumed
        assert a.detail.startswith("proved in Coq (" if name in proved else "assumed, not checked"), (name, a.detail)


def test_a_premise_not_proved_in_coq_reads_assumed(monkeypatch):
    from bounds.prove import coq_text
    monkeypatch.setattr(coq_text, "proved_premises", lambda text=None: [])
    got = {a.name: a for a in axioms("theorem14") if a.kind == "premise"}
    assert all(a.detail.startswith("assumed, not checked") for a in got.values())


def test_premises_follow_the_steps_that_name_them():
    """A statement that does not use Lemma 8 does not rest on its softmax identity; one that drops the premise from
    its steps no longer lists it."""
    assert "softmax perturbation identity" not in {a.name for a in axioms("theorem10")}
    l8 = STATEMENTS["lemma8"]
    bare = dataclasses.replace(l8, builder=lambda st, get: [dataclasses.replace(s, premises=())
                                                             for s in l8.builder(st, get)])
    names = {a.name for a in axioms("lemma5", {**STATEMENTS, "lemma8": bare})}
    assert "Hoelder step" not in names and "Hoelder step" in {a.name for a in axioms("lemma5")}


def test_cli_axioms_theorem14_lists_the_premises(capsys):
    from reports import cli

    assert cli.main(["proofs", "--axioms", "theorem14"]) == 0
    out = capsys.readouterr().out
    for name in UNCHECKED_PREMISES:
        assert f"premise: {name}: " in out, name
    assert "Z = sum_k p_k exp(e_k) lies in [exp(-eps_max), exp(eps_max)]" in out


# ----- identities ---------------------------------------------------------------------------------------------
def test_identities_are_classified_by_their_sides():
    kind = {(n, s.name): s.kind for n, s in STEPS}
    for key in (("lemma2", "L2a"), ("lemma2", "L2c"), ("theorem10", "T10e"), ("theorem10", "T10c"),
                ("theorem14", "U4"), ("lemma13", "L13b")):
        assert kind[key] == IDENTITY, key
    for key in (("theorem10", "T10b"), ("theorem10", "T10d"), ("theorem14", "T14d-ii"), ("lemma2", "L2d")):
        assert kind[key] == INEQUALITY, key
    assert step_kind(sp.Integer(1), sp.Integer(2)) == INEQUALITY
    assert step_kind(alpha * (1 + eps), alpha + alpha * eps) == IDENTITY
    assert step_kind(sp.log(1 + eps), eps) == INEQUALITY


def test_an_edit_that_makes_an_identity_an_inequality_is_seen():
    """T10e is an identity by the definition of growth; with the layer budget eps/L (a planted error) it is an
    inequality, and a false one."""
    edited = bounds.Edit("theorem10", "constants.budget", sp.Rational(1, 2), 1).apply(STATEMENTS["theorem10"])
    t10e = next(s for s in edited.steps(lambda n: STATEMENTS[n]) if s.name == "T10e")
    assert t10e.kind == INEQUALITY


def test_every_step_states_what_it_proves_in_named_terms():
    """Lemma 2's L2a and L2c say what they check (not only 1 <= 1 and 2 d1 d2 <= 2 d1 d2)."""
    for _, s in STEPS:
        assert s.claim, s.name
    forms = {s.name: s.form() for n, s in STEPS if n == "lemma2"}
    assert forms["L2a"].startswith("identity: stacked_norm <= input_norm")
    assert "2 halves" in forms["L2c"]
    assert str(STATEMENTS["lemma2"].constants["problems"]) not in forms["L2c"]


def test_slth_proofs_counts_identities_apart(capsys):
    from reports import proofs
    from reports.cli import main

    assert main(["proofs", "--statement", "lemma2"]) == 0
    out = capsys.readouterr().out
    results = bounds.verify("lemma2")
    c = proofs.counts(results)
    identities = sum(s.kind == IDENTITY for s in bounds.proof("lemma2"))
    assert c["kind"] == {INEQUALITY: len(results) - identities, IDENTITY: identities} and identities >= 3
    assert (f"of the certified: {len(results) - identities} prove an inequality, {identities} are identities"
            in out)
    assert "proves: identity: stacked_norm <= input_norm" in out
    assert "proves: sqrt(problems) * lueker.error(eps := per_problem) * stacked_norm <= eps" in out


@pytest.mark.parametrize("field", ["kind", "form", "premises"])
def test_the_record_row_carries_kind_form_and_premises(field):
    from reports.record.assemble import _step_row

    (r,) = [r for r in bounds.verify("lemma2") if r.step == "L2b"]
    step = next(s for s in bounds.proof("lemma2") if s.name == "L2b")
    row = _step_row(r, step)
    want = {"kind": IDENTITY, "form": step.form(), "premises": [p.name for p in step.premises]}[field]
    assert row[field] == want


def test_the_report_proof_table_shows_forms_identities_and_premises(proofs_record):
    from reports.sections import proofs as section

    rows = {(s["statement"], s["step"]): s for s in proofs_record["steps"]}
    assert rows[("lemma2", "L2a")]["kind"] == IDENTITY and rows[("lemma2", "L2d")]["kind"] == INEQUALITY
    out = section.render(proofs_record)
    identities = sum(s["kind"] == IDENTITY and s["verdict"] == "certified" for s in proofs_record["steps"])
    assert f"(of the certified: {len(rows) - identities} prove an inequality, {identities} are identities)" in out.summary
    assert "<b>identity</b>: <code>stacked_norm &lt;= input_norm" in out.html
    assert "premises: Lueker&#39;s item distribution" in out.html or "premises: Lueker's item distribution" in out.html


def test_slth_diff_shows_what_a_changed_step_proves(proofs_record):
    import copy

    from reports.diff import format_text
    from slt import diff

    new = copy.deepcopy(proofs_record)
    step = next(s for s in new["steps"] if (s["statement"], s["step"]) == ("theorem10", "T10e"))
    step.update(verdict="refuted", ok=False, counterexample={"alpha": 1.0}, text="exp(alpha*eps) - 1 <= exp(alpha*eps/2) - 1")
    text = format_text(diff.compare(proofs_record, new, 0.01), "old", "new")
    assert "theorem10:T10e  certified -> refuted" in text
    assert "proves: identity: scale (exp(L growth) - 1) <= conclusion  [e_(L+1) <= scale" in text
    assert "after:  exp(alpha*eps) - 1 <= exp(alpha*eps/2) - 1" in text


def test_theorem9_rests_on_the_merge_and_the_rescaling_of_its_targets():
    """S2a and S2d apply Lemma 7 to the merged products W_QK = W_Q W_K^T / sqrt(d_K) and W_VO = W_V W_O, with the
    sources rescaled to U[-1, 1]: both premises are listed, cited by both steps."""
    got = {a.name: a for a in axioms("theorem9") if a.kind == "premise"}
    for name in ("merged attention targets", "rescaled sources in U[-1, 1]"):
        assert {("theorem9", "S2a"), ("theorem9", "S2d")} <= set(got[name].cited_by), name
    assert "W_QK = W_Q W_K^T / sqrt(d_K)" in got["merged attention targets"].says
    assert "U[-1, 1]" in got["rescaled sources in U[-1, 1]"].says


def test_theorem10_rests_on_the_glue_from_the_product_to_the_exponential():
    got = {a.name: a for a in axioms("theorem10") if a.kind == "premise"}
    glue = got["(1 + g)^L = exp(L log(1 + g)) and exp increasing"]
    assert {("theorem10", "T10d"), ("theorem10", "T10e")} <= set(glue.cited_by)
    assert "exp is increasing" in glue.says


def test_cli_axioms_lists_the_new_premises(capsys):
    from reports import cli

    assert cli.main(["proofs", "--axioms", "theorem9"]) == 0
    out = capsys.readouterr().out
    assert "premise: merged attention targets: " in out and "premise: rescaled sources in U[-1, 1]: " in out
