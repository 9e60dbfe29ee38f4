"""The cited results proved too (Lemma 2 and Theorem 10 as steps from Lueker's corollary), Theorem 10's
reading of alpha, and every statement's axioms (``bounds.prove.axioms``, ``slth proofs --axioms``)."""
from __future__ import annotations

import dataclasses
import math

import pytest
import sympy as sp

import bounds
from bounds.prove.axioms import axioms
from bounds.catalogue import STATEMENTS, mutations
from bounds.core import Edit, Step
from bounds.prove.mutations import catalogue_with, run
from bounds.symbols import NAME
from bounds.prove.verify import verify, verify_step


@pytest.mark.parametrize("name, count", [("lemma2", 6), ("theorem10", 7)])
def test_the_cited_proofs_are_certified_on_the_whole_domain(name, count):
    res = verify(name)
    assert len(res) == count
    assert all(r.ok and r.method in ("symbolic", "interval") and r.domain == "whole" for r in res), \
        [(r.step, r.method, r.domain, r.detail) for r in res]


def test_the_steps_are_built_from_the_other_statements():
    """Editing Lueker's width (or Lemma 2's conclusion) changes Lemma 2's (Theorem 10's) steps: nothing retyped."""
    cat = catalogue_with(Edit("lueker", "widths.n", 1 / sp.Symbol("epsilon", positive=True),
                              2 / sp.Symbol("epsilon", positive=True)))
    assert [r.step for r in verify("lemma2", cat) if not r.ok] == ["L2b"]
    cat = catalogue_with(Edit("lemma2", "widths.n", 2, 3))
    assert [r.step for r in verify("theorem10", cat) if not r.ok] == ["T10a"]


@pytest.mark.parametrize("statement", ["lemma2", "theorem10"])
def test_planted_mutations_of_the_new_proofs_are_caught_where_declared(statement):
    ms = [m for m in mutations() if m.statement == statement]
    assert len(ms) >= 2
    for m in ms:
        caught = {(r.statement, r.step) for r in run(m)}
        assert m.caught_by in caught, (m.name, caught)


def _check_counterexample(step: Step, cex: dict):
    lhs, rhs = step.evaluate(dps=60, **{k: v for k, v in cex.items() if k in {n for n in NAME.values()}})
    assert lhs > rhs


def test_printed_theorem10_with_alpha_below_one_breaks_T10b_with_a_counterexample():
    """The finding: the printed exp(alpha eps/2) - 1 for ||x|| <= alpha follows from the proof only for alpha >= 1."""
    st = bounds.get("theorem10")
    v = st.variants["printed"]
    cat = v.apply(catalogue_with())
    failed = [r for r in verify("theorem10", cat) if not r.ok]
    assert [(r.statement, r.step) for r in failed] == list(v.breaks) == [("theorem10", "T10b")]
    cex = failed[0].counterexample
    assert 0 < cex["alpha"] < 1
    step = next(s for s in bounds.proof("theorem10", cat) if s.name == "T10b")
    _check_counterexample(step, cex)
    # by homogeneity the printed bound for alpha < 1 asks the unit ball's error to be <= eps/2, strictly less than
    # its own instance at alpha = 1 (exp(eps/2) - 1): the alpha < 1 part does not follow from the alpha = 1 part
    printed = cat["theorem10"]
    for eps in (0.05, 0.5, 0.99):
        at_one = printed.evaluate(alpha=1, eps=eps)
        assert printed.evaluate(alpha=0.1, eps=eps) / 0.1 < at_one
        assert math.isclose(printed.evaluate(alpha=1e-9, eps=eps) / 1e-9, eps / 2, rel_tol=1e-6)


def test_the_encoded_alpha_hypothesis_and_the_printed_variant_used_by_the_empirical_check():
    st = bounds.get("theorem10")
    with pytest.raises(ValueError, match="alpha >= 1"):
        st.evaluate(alpha=0.5, eps=0.5)
    assert st.variant("printed").evaluate(alpha=0.5, eps=0.5) == pytest.approx(math.exp(0.125) - 1)
    assert st.variant("printed").evaluate(alpha=2, eps=0.5) == st.evaluate(alpha=2, eps=0.5)


def test_the_homogeneous_reading_closes_theorem10():
    cat = bounds.get("theorem10").variants["alpha-factor"].apply(catalogue_with())
    assert all(r.ok and r.method in ("symbolic", "interval") for r in verify("theorem10", cat))
    t11 = {r.step: r for r in verify("theorem11", cat)}
    assert all(r.ok for step, r in t11.items() if step != "B3b")
    # K (exp(eps/(4K)) - 1) <= exp(eps/4) - 1, K = 3 alpha H sqrt(d1) >= 3: true (convexity), tight as K -> oo and
    # eps -> 0 together: no interval certificate, no counterexample; not proved is not ok
    assert t11["B3b"].verdict == "not proved" and not t11["B3b"].ok


def test_edit_of_a_parameter_hypothesis_must_change_it():
    st = bounds.get("theorem10")
    with pytest.raises(ValueError, match="does not occur"):
        Edit("theorem10", "params.alpha.lo", 7, 0).apply(st)
    with pytest.raises(ValueError, match="lo, hi, lo_open, hi_open or box"):
        Edit("theorem10", "params.alpha.integer", False, True).apply(st)


def test_the_forced_width_constant_of_theorem10_edited_is_refuted_with_a_counterexample():
    """The slack table shows the 4 of n_l forced (T10a); 4 -> 3 is refuted with a counterexample."""
    (c,) = [c for c in bounds.get("theorem10").slack if c.where == ("widths.n_l",)]
    assert c.value == 4
    cat = catalogue_with(*c.edits(3))
    failed = [r for r in verify("theorem10", cat) if not r.ok]
    assert [r.step for r in failed] == ["T10a"] and failed[0].counterexample
    step = next(s for s in bounds.proof("theorem10", cat) if s.name == "T10a")
    _check_counterexample(step, failed[0].counterexample)


# ----- axioms ---------------------------------------------------------------------------------------
def _by_kind(name, catalogue=None):
    out = {}
    for a in axioms(name, catalogue):
        out.setdefault(a.kind, set()).add(a.name)
    return out


def test_theorem14_rests_on_lueker_and_the_facts_it_uses():
    got = _by_kind("theorem14")
    assert got["statement"] == {"lueker"}
    assert got["scalar fact"] == {"exp(x)-1 <= 2x on [0,1]", "1-exp(-x) <= exp(x)-1 for x >= 0",
                                  "log(1+x) <= x for x >= 0"}  # not the chords: only Theorem 14's readings use them
    assert {"triangle", "union bound", "positive homogeneity", "ReLU decomposition"} <= got["structural fact"]
    (lk,) = [a for a in axioms("theorem14") if a.kind == "statement"]
    assert "C" in lk.detail and "C*log(1/eps)" in lk.says
    assert ("lemma2", "L2b") in lk.cited_by and ("lemma7", "L7a") in lk.cited_by
    facts = {a.name: a for a in axioms("theorem14") if a.kind == "scalar fact"}
    assert "x >= 0, x <= 1" in facts["exp(x)-1 <= 2x on [0,1]"].detail and "certified" in \
        facts["exp(x)-1 <= 2x on [0,1]"].detail


def test_a_cited_statement_is_its_own_axiom_and_a_proved_one_is_entered():
    assert [(a.kind, a.name) for a in axioms("lueker")] == [("statement", "lueker")]
    assert "statement" not in _by_kind("lemma8")  # no subset sum behind the softmax lemma
    assert _by_kind("lemma2")["statement"] == {"lueker"}


def test_a_new_dependency_on_an_unproved_statement_appears():
    l8 = STATEMENTS["lemma8"]
    extra = dataclasses.replace(l8, builder=lambda st, get: l8.builder(st, get) + [Step("L8z", 0, 1, ("lueker",))])
    cat = {**STATEMENTS, "lemma8": extra}
    assert "statement" not in _by_kind("lemma5")
    assert _by_kind("lemma5", cat)["statement"] == {"lueker"}  # through lemma8, which lemma5 relies on
    # a proved statement made unproved becomes an axiom of its users
    cat = {**STATEMENTS, "lemma7": dataclasses.replace(STATEMENTS["lemma7"], builder=None)}
    assert _by_kind("theorem9", cat)["statement"] == {"lemma7"}


def test_a_misspelt_dependency_is_an_error():
    l8 = STATEMENTS["lemma8"]
    bad = dataclasses.replace(l8, builder=lambda st, get: [Step("L8z", 0, 1, ("triangel",))])
    with pytest.raises(ValueError, match="triangel"):
        axioms("lemma8", {**STATEMENTS, "lemma8": bad})


def test_cli_axioms(capsys):
    from reports import cli
    assert cli.main(["proofs", "--axioms", "Theorem 6"]) == 0
    out = capsys.readouterr().out
    assert "== what the written proof of theorem14 cites: " in out and "statement: lueker" in out
    assert "log(1+x) <= x" in out
    assert "exp(x)-1 <= (51/50)x" not in out
    assert cli.main(["proofs", "--axioms", "nope"]) == 2
    assert "unknown statement" in capsys.readouterr().err


def test_the_record_and_the_statements_section_show_the_same_axioms(proofs_record):
    from reports.sections import statements

    rec = {st["name"]: st for st in proofs_record["statements"]}
    assert rec["theorem14"]["axioms"] == [a.as_dict() for a in axioms("theorem14")]
    html = statements.render(proofs_record).html
    section = html[html.index('id="st-theorem14"'):]
    assert "slth proofs --axioms theorem14" in section and "<code>lueker</code>" in section
    assert "log(1+x) &lt;= x for x &gt;= 0" in section or "log(1+x) <= x for x >= 0" in section
    # a record of older code (no axioms field) still renders
    old = {**proofs_record, "statements": [{k: v for k, v in st.items() if k != "axioms"}
                                           for st in proofs_record["statements"]]}
    assert "slth proofs --axioms" not in statements.render(old).html


@pytest.mark.slow
def test_editing_theorem10s_forced_width_constant_is_named_by_slth_diff_against_head(tmp_path, tmp_path_factory):
    """The 4 of n_l (forced in the slack table) edited to 3 in bounds/subset_sum.py is
    refuted by the verifier (T10a, with a counterexample) and named by `slth diff --against HEAD` (exit 1).

    CI's slow tier (a clone, the edited steps verified, the others read back from a copy of the session's verdict
    store, ``tests.coq_shared.seeded_verdicts``): in the default run the verifier refutes T10a
    under the n_l edit 4 -> 2 (``test_planted_mutations_of_the_new_proofs_are_caught_where_declared[theorem10]``) and
    `slth diff --against HEAD` names an edited constant's refuted step and requirement
    (tests/test_diff.py::test_edit_a_constant_then_diff_against_head)."""
    from tests.coq_shared import seeded_build_env, seeded_verdicts
    from tests.test_diff import _clone, _slth

    clone = _clone(tmp_path)
    source = clone / "bounds" / "subset_sum.py"
    text = source.read_text()
    old = "sp.log(4 * L * d1 * d2 / eps)"
    assert text.count(old) == 1, "the edit site of this test moved; update the test"
    source.write_text(text.replace(old, "sp.log(3 * L * d1 * d2 / eps)"))
    done = _slth(clone, "diff", "--against", "HEAD", env={**seeded_build_env(tmp_path_factory, "cited-coq-build"),
                                                          **seeded_verdicts(tmp_path_factory, "cited")})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "theorem10:T10a  certified -> refuted" in done.stdout and "counterexample:" in done.stdout
    assert "theorem10.n_l  at" in done.stdout
    assert "downgrade(s) of a supported form: theorem10:T10a certified -> refuted" in done.stdout


def test_the_summary_no_longer_shows_lemma2_or_theorem10_as_unproved(proofs_record):
    from reports.sections import summary

    cells = {r["name"]: r["proof"]["text"] for r in summary.rows(proofs_record)}
    assert cells["lueker"] == "a cited result: no proof to encode"  # counted as cited, never as not proved
    for name, count in (("lemma2", 6), ("theorem10", 7)):
        assert cells[name].startswith(f"{count} steps") and "not proved" not in cells[name], cells[name]
        assert {r["name"]: r["proof"]["word"] for r in summary.rows(proofs_record)}[name] == "certified"
