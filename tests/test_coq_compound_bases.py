"""Powers of a sum in Coq: Theorem 14's growth 4 H sqrt(d1) -> 2 H sqrt(d1) + 2 (true for every B) makes its
block steps powers of ``2 + 2 H sqrt(d1)``, whose ``ln`` Coq's rewriting cannot expand.  The cascade names such a
sum (``set (cb0 := ...) in *``) with a lower bound proved by interval arithmetic, so the log-space forms reach it;
both judges then certify the edit's steps, and a false variant is refuted and not kernel-checked."""
from __future__ import annotations


import pytest
import sympy as sp

from bounds import Edit
from bounds.core import Step
from bounds.prove.coq import cascade, check, export
from bounds.prove.coq.cascade import COMPOUND
from bounds.prove.coq.export import lemma
from bounds.prove.mutations import catalogue_with
from bounds.prove.verify import verify_step
from bounds.prove.verify_domain import Domain
from bounds.symbols import H, d1, eps

from tests.test_coq import needs_coq  # noqa: E402 (skips without Coq, fails under CI=true)

GROWTH = 2 * H * sp.sqrt(d1) + 2
FOUR = ("T14d-x", "T14d-i", "U1", "U2b")  # pre-checked by the first pass; each a power of 2 + 2 H sqrt(d1)


def _edited(growth):
    cat = catalogue_with(Edit("theorem14", "constants.growth", 4 * H * sp.sqrt(d1), growth))
    st = cat["theorem14"]
    return st, {s.name: s for s in st.steps(lambda n: cat[n])}


def _with(lem, cands: tuple):
    export._CANDIDATES[lem.key] = cands
    return lem


def test_the_sum_is_named_where_the_plain_log_space_form_gives_up():
    """The logarithm of U1's sides keeps ln(2 + 2 H sqrt(d1)): the plain log-space form has no candidate; the named
    form has one, proving its lower bound 4 <= cb0 and ln 4 <= ln cb0 in Coq (nothing assumed)."""
    st, steps = _edited(GROWTH)
    s = steps["U1"]
    lhs, rhs = export.exact(s.lhs), export.exact(s.rhs)
    dom = Domain(Step(s.name, lhs, rhs, params=s.params), st.params)
    assert cascade._log_difference(lhs, rhs, dom) is None
    forms = cascade._named_forms(lhs, rhs, dom)
    assert len(forms) == 2 and forms[0][0] == ""
    pre = forms[1][0]
    assert f"set ({COMPOUND}0 := (2 + (2 * H * (sqrt d1)))) in *" in pre
    assert f"assert (4 <= {COMPOUND}0) by (unfold {COMPOUND}0; slth_lo)" in pre
    assert f"assert (ln 4 <= ln {COMPOUND}0)" in pre
    assert [c for c in cascade._log_space(lhs, rhs, dom) if f"{COMPOUND}0" in c]


def test_a_step_with_a_power_of_a_sum_is_kernel_checked_and_its_false_twin_rejected():
    """U1 under the edit (fast: one lemma): pre-checked by the first pass; the cascade's search finds a proof through
    the named sum; the lemma compiled, its definedness lemma proved and its constant checked against the exported
    statement: kernel-checked.  Its false twin (eps/10^6 for eps/64, violated at B = 2, H = d1 = alpha = 1) is
    refuted by the first pass and rejected by Coq with the very tactic that proves U1."""
    needs_coq()
    st, steps = _edited(GROWTH)
    s = steps["U1"]
    assert verify_step("theorem14", s, st.params).ok
    lem = lemma("theorem14", s, st.params)
    tac = check.search([lem])[lem.key]
    assert tac and f"{COMPOUND}0" in tac, tac
    bad = Step("U1-false", s.lhs, eps / 10**6, params=s.params)
    assert verify_step("theorem14", bad, st.params).verdict == "refuted"
    bad_lem = lemma("theorem14", bad, st.params)
    tactics = {**check.load_tactics(), lem.key: tac, bad_lem.key: tac}
    verdicts = check.kernel([("theorem14", s, st.params), ("theorem14", bad, st.params)], tactics=tactics)
    assert verdicts[("theorem14", "U1")] == check.KERNEL, verdicts
    assert verdicts[("theorem14", "U1-false")].startswith(f"{check.REJECTED}: "), verdicts


def test_the_false_growth_variant_is_refuted_and_coq_proves_none_of_its_false_step():
    """growth 2 H sqrt(d1) (the block's norm bound 2(H sqrt(d1) + 1) does not fit under it): T14a is refuted at an
    admissible point by the first pass, and no candidate of the whole cascade proves its lemma."""
    needs_coq()
    st, steps = _edited(2 * H * sp.sqrt(d1))
    s = steps["T14a"]
    r = verify_step("theorem14", s, st.params)
    assert r.verdict == "refuted" and r.counterexample, r
    lem = lemma("theorem14", s, st.params)
    export._CANDIDATES.pop(lem.key, None)
    assert check.search([lem])[lem.key] is None


@pytest.mark.slow
@pytest.mark.thorough
def test_the_growth_edit_is_certified_by_both_judges():
    """The four steps the first pass pre-checks under the edit and the cascade once closed none of (Coq rejected
    each): each searched under the whole cascade and kernel-checked against its exact exported statement (55 to
    65 s of CPU, coqc included; 2.5 to 6 minutes on a loaded 2-core machine)."""
    needs_coq()
    st, steps = _edited(GROWTH)
    for name in FOUR:
        assert verify_step("theorem14", steps[name], st.params).ok, name
    verdicts = check.kernel([("theorem14", steps[n], st.params) for n in FOUR], searching=True)
    assert {k: v for k, v in verdicts.items() if k[0] == "theorem14"} == {("theorem14", n): check.KERNEL
                                                                          for n in FOUR}, verdicts


def _lemma13_edited(name: str):
    """Theorem 14's step ``name`` as a lemma after Lemma 13's factor 2 -> 1.99 (in its conclusion and its proof's last
    line), pre-checked by the first pass."""
    from bounds.perturbation import _L13
    edits = [Edit("lemma13", where, _L13, _L13 * sp.Rational(199, 200)) for where in ("conclusion", "constants.last_line")]
    cat = catalogue_with(*edits)
    st = cat["theorem14"]
    s = {x.name: x for x in st.steps(lambda n: cat[n])}[name]
    assert verify_step("theorem14", s, st.params).ok
    return lemma("theorem14", s, st.params)


def test_after_lemma13s_factor_1_99_t14d_ii_is_closed_by_field_where_ring_fails():
    """Lemma 13's factor 2 -> 1.99 (199/100) leaves T14d-ii's terms divided by 50 and 25: the log-space form's split
    of a side into its terms is an equation ``ring`` cannot close (it takes ``x / 50`` and ``x / 25`` for unrelated
    atoms) and ``field`` can.  The first log-space candidate closes the lemma with ``cascade.EQ``; the same candidate
    with ``ring`` alone fails (the weaker construction, before ``EQ``)."""
    from bounds.prove.coq import search
    from bounds.prove.coq.tactics import load_tactics, tactic_problem

    needs_coq()
    lem = _lemma13_edited("T14d-ii")
    assert "199" in lem.text
    split = f") by {cascade.EQ}; apply (slth_scaled"
    form = next(c for c in lem.candidates if split in c and tactic_problem(c) is None)
    assert "/ (50)" in form and "/ (25)" in form
    weak = form.replace(cascade.EQ, "ring")
    won = search._tried([lem], {lem.key: [weak, form]}, [], load_tactics(), None)[lem.key]
    assert won == form


def test_candidates_sharing_a_head_are_searched_together_and_the_winner_is_the_tail_that_closed(monkeypatch):
    """Lemma 13's factor 1.99: T14d-i's nested candidates (a fact inside a side, its domain's own cascade, then one
    tail) share their head in runs: the search runs the head once and the tails in turn, and names as the winner the
    candidate of the tail that closed the goal, exactly as that candidate alone; the first tail (the sides equal by
    ``field``) fails: its Rpower products do not merge, so the second wins.  A run whose tails all fail closes
    nothing."""
    from bounds.prove.coq import search
    from bounds.prove.coq.tactics import load_tactics, tactic_problem

    needs_coq()
    lem = _lemma13_edited("T14d-i")
    cands = [c for c in lem.candidates if tactic_problem(c) is None]
    run = [c for c in cands if c in cascade.TAILS]
    head = cascade.TAILS[run[0]][0]
    same = [c for c in run if cascade.TAILS[c][0] == head]
    assert len(same) >= 3 and all(c == head + cascade.TAILS[c][1] + " ]" for c in same)
    assert same[0].endswith(f"apply Req_le; {cascade.EQ} ]")
    tries = search._tries(lem.key, same[:3])
    assert len(tries) == 1 and tries[0].count(head) == 1 and tries[0].count("SLTH-TAIL") == 3
    tactics = load_tactics()
    assert search._tried([lem], {lem.key: same[:3]}, [], tactics, None)[lem.key] == same[1]
    weak = head + "lra ]"  # a tail too weak for the goal, in the same run
    monkeypatch.setitem(cascade.TAILS, weak, (head, "lra"))
    assert search._tried([lem], {lem.key: [same[0], weak]}, [], tactics, None)[lem.key] is None
    assert search._wins('SLTH-TAIL k 4\nSLTH-TAIL k 5\nSLTH-WIN k -2\nSLTH-WIN j 3\n') == [("k", "5"), ("j", "3")]
