"""The Coq export (``bounds.prove.coq``): the printer is faithful (every printed side parsed back by an independent
parser and compared with SymPy at random domain points; every construct; a one-line refusal), every premise is one
of the statement's hypotheses and holds at sampled points (no lemma is vacuous), the committed files equal the
exporter's output, and Coq's kernel accepts every recorded proof and rejects every planted mutation's declared step.

The tests that run coqc skip with the reason when it (or CoqInterval) is missing, and FAIL when ``CI=true``."""
from __future__ import annotations

import os
import random
import re

import mpmath
import pytest
import sympy as sp

from bounds import catalogue
from bounds.prove.coq import check
from bounds.prove.coq.export import Lemma, lemma, premises
from bounds.prove.coq.printer import CoqExportError, coq
from bounds.core import Step
from bounds.facts import SCALAR
from bounds.prove.mutations import MUTATIONS, catalogue_with
from bounds.plants import PLANTS
from bounds.symbols import NAME, PARAMETER
from bounds import Edit
from bounds.prove import verify_domain
from bounds.prove.verify import exact, verify
from bounds.prove.verify_domain import Domain


@pytest.fixture(autouse=True)
def _digits(tmp_path, monkeypatch):
    monkeypatch.setenv("SLTH_COQ_BUILD", str(tmp_path / "build"))  # the build folders of the coqc runs
    with mpmath.workdps(50):
        yield


def needs_coq():
    reason = check.missing_reason()
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {reason}: .ci/run must install coq and libcoq-interval")
        pytest.skip(reason)


# --- an independent reader of the printed Coq terms ------------------------------------------------------------

_TOKEN = re.compile(r"\s*(\d+|[A-Za-z_][A-Za-z0-9_]*|[()+\-*/^])")
_FUN = {"sqrt": 1, "ln": 1, "exp": 1, "Rpower": 2, "Rmin": 2, "Rmax": 2}


def parse(text: str, env: dict):
    """The value (mpmath, at ``env``: identifier -> number) of a Coq R term as the printer writes it, read by a
    grammar of its own: sums, products/quotients, prefix - and / (opposite, inverse), ^ with a natural exponent,
    applications of sqrt, ln, exp, Rpower, Rmin, Rmax, PI."""
    toks = _TOKEN.findall(text)
    assert "".join(toks) == re.sub(r"\s+", "", text), f"unreadable: {text}"
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def take(t=None):
        tok = toks[pos[0]]
        assert t is None or tok == t, (tok, t, text)
        pos[0] += 1
        return tok

    def expr():
        v = term()
        while peek() == "+":
            take()
            v = v + term()
        return v

    def term():
        v = power()
        while peek() in ("*", "/"):
            op = take()
            w = power()
            v = v * w if op == "*" else v / w
        return v

    def power():
        v = unary()
        if peek() == "^":
            take()
            n = take()
            assert n.isdigit()
            v = v ** int(n)
        return v

    def unary():
        if peek() == "-":
            take()
            return -unary()
        if peek() == "/":
            take()
            return 1 / unary()
        return app()

    def app():
        t = peek()
        if t in _FUN:
            take()
            args = [atom() for _ in range(_FUN[t])]
            f = {"sqrt": mpmath.sqrt, "ln": mpmath.log, "exp": mpmath.exp, "Rpower": lambda a, b: mpmath.exp(b * mpmath.log(a)),
                 "Rmin": min, "Rmax": max}[t]
            return f(*args)
        return atom()

    def atom():
        t = take()
        if t == "(":
            v = expr()
            take(")")
            return v
        if t.isdigit():
            return mpmath.mpf(t)
        if t == "PI":
            return mpmath.pi
        return env[t]

    v = expr()
    assert pos[0] == len(toks), f"trailing tokens in {text}"
    return v


def _close(a, b) -> bool:
    return abs(a - b) <= mpmath.mpf(10) ** -30 * max(1, abs(a), abs(b))


def _values(expr, env_sym):
    env = {k: sp.Float(v, 50) for k, v in env_sym.items()}
    return sp.N(exact(expr).xreplace(env), 50)  # Floats of the expression as the exact rationals the harness verifies


def _sample(dom: Domain, rng: random.Random) -> dict:
    """A point of the step's domain: every parameter drawn above its lower bounds (dependent ones after them)."""
    point = {}
    for p in dom.params:
        lows = [sp.sympify(v).xreplace(point) for v in p.lo] or [sp.Integer(0)]
        lo = max(sp.Rational(sp.N(v, 30)) for v in lows)
        his = [sp.Rational(sp.N(sp.sympify(v).xreplace(point), 30)) for v in p.hi]
        if his:
            v = lo + (min(his) - lo) * sp.Rational(rng.randint(1, 999), 1000)
        else:
            v = lo + sp.Rational(rng.randint(0, 800), 100) * (lo if lo > 0 else 1) + sp.Rational(rng.randint(1, 99), 100)
        if p.integer:
            v = sp.Integer(sp.ceiling(v))
        point[p.symbol] = v
    return point


# --- the printer -------------------------------------------------------------------------------------------------

x, d1, B, eps = PARAMETER["x"], PARAMETER["d1"], PARAMETER["B"], PARAMETER["eps"]
CONSTRUCTS = {
    "integer": sp.Integer(7) + x, "negative integer": x - 3, "rational": sp.Rational(3, 8) * x,
    "sum": x + d1 + 1, "product": 3 * x * d1, "quotient": x / (2 * d1), "integer power": x ** 3,
    "negative power": d1 ** -2 + x, "sqrt": sp.sqrt(x + 1), "half-integer power": d1 ** sp.Rational(3, 2),
    "negative half power": d1 ** sp.Rational(-5, 2), "rational power": d1 ** sp.Rational(1, 3),
    "symbolic power": 2 ** (1 - B), "symbolic base and exponent": (4 * d1) ** (B ** 2 - B),
    "exp": sp.exp(-2 * x), "log": sp.log(2 * d1 / eps), "Min": sp.Min(x, d1), "Max": sp.Max(sp.sqrt(d1), x, 2),
    "E": sp.E * x, "pi": sp.pi + x, "float": sp.Float(0.25) * x,
}


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_printer_construct_faithful(name):
    expr = CONSTRUCTS[name]
    text = coq(expr)
    rng = random.Random(name)
    for _ in range(10):
        env = {s: sp.Rational(rng.randint(1, 5000), 100) + (1 if s != x else 0) for s in expr.free_symbols}
        if B in env:
            env[B] = sp.Integer(rng.randint(2, 9))
        want = _values(expr, env)
        got = parse(text, {NAME[s]: mpmath.mpf(sp.N(v, 40)) for s, v in env.items()})
        assert _close(got, mpmath.mpf(want)), (name, text, env)


def test_printer_refuses_unknown_construct_in_one_line():
    with pytest.raises(CoqExportError) as e:
        coq(sp.sin(x) + 1)
    assert "\n" not in str(e.value) and "sin" in str(e.value)


def test_printer_faithfulness_check_can_fail():
    """The round trip sees a wrong print: a printer that dropped a sign would be caught."""
    text = coq(x - 3).replace("(- 3)", "3")
    assert not _close(parse(text, {"x": mpmath.mpf(2)}), mpmath.mpf(-1))


def _lemmas():
    for name in catalogue.proved():
        st = catalogue.get(name)
        for s in catalogue.proof(name):
            yield name, s, st.params
    for f in SCALAR:
        yield "facts", Step(f.name, f.lhs, f.rhs), (f.domain,)


LEMMAS = list(_lemmas())


@pytest.mark.parametrize("statement,step,params", LEMMAS, ids=[f"{a}:{s.name}" for a, s, _ in LEMMAS])
def test_every_step_printed_faithfully_and_premises_are_hypotheses(statement, step, params):
    lem = lemma(statement, step, params)
    dom = Domain(step, params)
    # each premise is one of the declared hypotheses (Param.hypotheses), printed
    declared = set()
    for p in dom.params:
        for h in p.hypotheses():
            rel = h.relation
            if isinstance(rel, sp.Contains):
                declared.add(f"is_int {NAME[rel.args[0]]}")
            else:
                op = {sp.Gt: "<", sp.Ge: "<=", sp.Lt: "<", sp.Le: "<="}[type(rel)]
                a, b = (rel.rhs, rel.lhs) if isinstance(rel, (sp.Gt, sp.Ge)) else (rel.lhs, rel.rhs)
                declared.add(f"{coq(a)} {op} {coq(b)}")
    assert {t for _, t in lem.premises} == declared
    assert lem.text.count("->") == len(lem.premises)
    # both sides and every premise evaluated by the independent reader at random domain points
    rng = random.Random(f"{statement}:{step.name}")
    for _ in range(10):
        point = _sample(dom, rng)
        env = {NAME[s]: mpmath.mpf(sp.N(v, 40)) for s, v in point.items()}
        for side, text in ((step.lhs, lem.lhs), (step.rhs, lem.rhs)):
            assert _close(parse(text, env), mpmath.mpf(_values(side, point))), (step.name, text)
        for _, prem in lem.premises:
            if prem.startswith("is_int"):
                assert float(env[prem.split()[1]]).is_integer()
                continue
            a, op, b = re.fullmatch(r"(.*) (<=|<) (.*)", prem).groups()
            va, vb = parse(a, env), parse(b, env)
            assert va < vb if op == "<" else va <= vb * (1 + mpmath.mpf(10) ** -30), (prem, env)


def test_premises_come_from_params_not_sympy_assumptions():
    """d1 is declared positive to SymPy; the premise printed is the declared d1 >= 1 with integrality."""
    st = catalogue.get("lemma2")
    step = catalogue.proof("lemma2")[2]
    prem = [t for _, t in premises(Domain(step, st.params))]
    assert "1 <= d1" in prem and "is_int d1" in prem and "0 < eps" in prem and "eps < 1" in prem


def test_committed_files_equal_the_exporter_output():
    tactics = check.load_tactics()
    for stem, items in check.entries().items():
        path = check.COMMITTED / f"{stem}.v"
        assert path.read_text() == check.text(stem, items, tactics), f"{path} is stale: run python -m bounds.prove.coq"


def test_every_lemma_has_a_recorded_search():
    tactics = check.load_tactics()
    lems = [l for items in check.entries().values() for _, _, l in items if isinstance(l, Lemma)]
    assert all(l.key in tactics for l in lems), "a lemma was never searched: run python -m bounds.prove.coq"


def test_no_admitted_and_no_axiom_in_committed_files():
    for path in check.COMMITTED.glob("*.v"):
        src = path.read_text()
        assert not re.search(r"\b(Admitted|admit|Axiom|Parameter|Hypothesis)\b", src), path


# --- coqc ---------------------------------------------------------------------------------------------------------

def test_coq_replays_the_recorded_proofs(tmp_path):
    """Every step and fact compiled afresh is kernel-checked, and the committed kernel result a record uses for this
    exact tree (``reports.record.verified.kernel``) is this replay's (so the suite, in CI, checks what it says)."""
    needs_coq()
    from reports.record import verified
    from slt.cache import read_record

    status = check.check(tmp_path, searching=False)
    status.pop(None)
    steps = [(st, s.name) for st in catalogue.proved() for s in catalogue.proof(st)]
    assert set(status) == set(steps) | {("facts", f.name) for f in SCALAR}
    assert {k: v for k, v in status.items() if v != check.KERNEL} == {}  # every step and every fact
    committed = read_record(verified.COMMITTED / "verified-kernel.json")
    if committed["key"] == verified.kernel_key():  # else no record uses it: it replays (refresh: reports.record.verified)
        assert committed["result"] == {f"{s}\t{t}": v for (s, t), v in sorted(status.items())}


def test_a_relative_folder_is_checked_where_it_is(tmp_path, monkeypatch):
    """coqc runs inside the folder: a relative DIR (as ``slth proofs --coq`` defaults to) must not be read twice
    relative."""
    needs_coq()
    from tests.coq_shared import without_interval

    monkeypatch.chdir(tmp_path)
    ents = without_interval(check.entries(certified={("lemma2", "L2b")}), ("Common", "lemma2"))
    status = check.check("results/coq", certified={("lemma2", "L2b")}, searching=False, ents=ents)
    assert status[("lemma2", "L2b")] == check.KERNEL
    assert (tmp_path / "results" / "coq" / "lemma2.v").exists()


def test_a_search_from_nothing_proves_each_fact_without_itself():
    """The facts' lemmas are what the steps apply: searched afresh, a fact is never proved by applying its own lemma
    (the search's Common file leaves out every fact it searches)."""
    needs_coq()
    facts = [l for _, _, l in check.entries()["Common"] if isinstance(l, Lemma)]
    found = check.search(facts, tactics={})
    assert {l.step: (found[l.key] is not None and l.name not in found[l.key]) for l in facts} == \
        {l.step: True for l in facts}


def test_coq_rejects_a_false_lemma(tmp_path):
    """A recorded tactic does not prove a changed statement: the kernel is a judge that can say no."""
    needs_coq()
    st = catalogue.get("lemma2")
    step = catalogue.proof("lemma2")[2]  # eps / (2 d1 d2) <= 1
    good = lemma("lemma2", step, st.params)
    bad = lemma("lemma2", Step(step.name, step.lhs * 4, step.rhs), st.params)  # 2 eps/(d1 d2) <= 1: false
    tac = check.load_tactics()[good.key]
    found = check.search([good, _with(bad, (tac,))])
    assert found[good.key] == good.candidates[good.candidates.index(tac)]
    assert found[bad.key] is None


def _with(lem: Lemma, cands: tuple) -> Lemma:
    from bounds.prove.coq import export
    export._CANDIDATES[lem.key] = cands
    return lem


def _mutated_lemmas():
    out = []
    for m in MUTATIONS:
        cat = catalogue_with(m.edit)
        statement, step_name = m.caught_by
        statement = catalogue.canonical(statement, cat)
        steps = {s.name: s for s in catalogue.proof(statement, cat)}
        orig = {s.name: s for s in catalogue.proof(statement)}
        if step_name not in steps:
            continue
        out.append((m, lemma(statement, steps[step_name], cat[statement].params),
                    lemma(statement, orig[step_name], catalogue.get(statement).params)))
    return out


def test_every_mutation_declared_step_changes_its_lemma():
    rows = _mutated_lemmas()
    assert len(rows) == len(MUTATIONS)
    assert all(mut.text != orig.text for _, mut, orig in rows)


def test_coq_rejects_every_mutation_declared_step_with_its_recorded_tactic():
    """Each mutated lemma with the tactic that proves the original: Coq rejects it (one coqc run)."""
    needs_coq()
    tactics = check.load_tactics()
    rows = [(m, mut, tactics.get(orig.key)) for m, mut, orig in _mutated_lemmas()]
    assert [m.name for m, _, tac in rows if not tac] == [], "a mutated step whose original has no recorded proof"
    lems = [_with(mut, (tac,)) for _, mut, tac in rows]
    found = check.search(lems)
    accepted = [m.name for m, mut, tac in rows if tac and found.get(mut.key)]
    assert not accepted, f"Coq accepted a mutated step: {accepted}"


@pytest.mark.slow
@pytest.mark.thorough
def test_coq_rejects_every_mutation_declared_step_under_the_whole_cascade():
    """The whole generated cascade (minutes) proves none of the mutated declared steps."""
    needs_coq()
    rows = _mutated_lemmas()
    from bounds.prove.coq import export
    for _, mut, _ in rows:
        export._CANDIDATES.pop(mut.key, None)
    found = check.search([mut for _, mut, _ in rows])
    accepted = [m.name for m, mut, _ in rows if found.get(mut.key)]
    assert not accepted, f"Coq accepted a mutated step: {accepted}"


# --- a second judge for the false steps planted for the verifier -----------------------------------------------

@pytest.fixture(scope="module")
def planted_verdicts(tmp_path_factory):
    """Every plant's false and true step judged in ONE run of ``check.check`` (one Common, one search batch), as the
    harness judges the catalogue's steps together: ``(entries, verdicts)``; plant k's steps are the statements
    ``false<k>`` and ``true<k>``."""
    needs_coq()
    mp = pytest.MonkeyPatch()
    mp.setattr(verify_domain, "STAGE_CALLS", 2_000_000)  # the slow-stage plant's SymPy stages cut sooner
    try:
        steps = []
        for k, plant in enumerate(PLANTS):
            steps += [(f"false{k}", plant.false, plant.false_params), (f"true{k}", plant.true, plant.true_params)]
        ents = check.entries_of(steps)
        st = check.check(tmp_path_factory.mktemp("plants") / "out", ents=ents)
    finally:
        mp.undo()
    return ents, st


@pytest.mark.parametrize("k", range(len(PLANTS)), ids=[p.name for p in PLANTS])
def test_coq_rejects_the_planted_false_step_and_proves_its_true_twin(k, planted_verdicts):
    """The false step of each planted class (``bounds.plants``; the verifier's own tests are in
    tests/test_sound_verdicts.py) is judged as the harness judges a step (``check.check``: the tactic searched under
    the whole generated cascade, the lemma AND its definedness lemma compiled, the statement check): it is not
    kernel-checked, and the true step of the same shape is, so the rejection is not an export that proves nothing.
    A false plant whose sides are defined everywhere is rejected by the cascade itself; one whose side is undefined
    somewhere (Coq's totalised sqrt, / 0, ln and Rpower can make its plain lemma a Coq theorem) is not checked,
    undefined at a point of its domain."""
    plant = PLANTS[k]
    ents, st = planted_verdicts
    lemmas = {name: lem for name, _, lem in ents["Steps"]}
    false, true = lemmas[f"false{k}"], lemmas[f"true{k}"]
    assert isinstance(false, Lemma) and isinstance(true, Lemma), (plant.name, false, true)
    verdict = st[(f"false{k}", plant.false.name)]
    if false.def_text is None:
        assert verdict.startswith(f"{check.REJECTED}: "), (plant.name, plant.why, verdict)
    else:
        assert verdict.startswith(f"{check.REJECTED}: ") or verdict.startswith(f"{check.NOT_CHECKED}: undefined"), (
            plant.name, plant.why, verdict)
    assert st[(f"true{k}", plant.true.name)] == check.KERNEL, (plant.name, st[(f"true{k}", plant.true.name)])


def test_coq_rejects_the_steps_the_readme_edit_refutes():
    """Theorem 9's n_K with 8 -> 4 (the README's example edit): each step the harness refutes is rejected by Coq
    with the tactic that proves the original step."""
    needs_coq()
    cat = catalogue_with(Edit("theorem9", "widths.n_K", 8, 4))
    refuted = {r.step for r in verify("theorem9", cat) if r.verdict == "refuted"}
    assert refuted
    tactics = check.load_tactics()
    orig = {s.name: s for s in catalogue.proof("theorem9")}
    rows = [(lemma("theorem9", s, cat["theorem9"].params), lemma("theorem9", orig[s.name], catalogue.get("theorem9").params))
            for s in catalogue.proof("theorem9", cat) if s.name in refuted]
    found = check.search([_with(mut, (tactics[o.key],)) for mut, o in rows])
    assert [m.step for m, _ in rows if found.get(m.key)] == []


# --- the CLI column, the diff, the axioms ----------------------------------------------------------------------

class _R:
    def __init__(self, statement, step, ok):
        self.statement, self.step, self.ok = statement, step, ok


def test_coq_summary_counts_and_a_rejected_step_is_not_proved():
    from bounds.prove import kernel
    from bounds.prove.verify import StepResult
    from reports.proofs import coq_summary
    results = [StepResult("lemma2", "L2a", "symbolic", True), StepResult("lemma2", "L2b", "symbolic", True),
               StepResult("lemma2", "L2c", "sampled", False)]
    status = {("lemma2", "L2a"): "kernel-checked", ("lemma2", "L2b"): "rejected: no tactic",
              ("lemma2", "L2c"): "not exported: the harness does not certify it"}
    judged = kernel.judge(results, status, kernel.REPLAYED)
    line = coq_summary(judged)
    assert line.startswith("Coq: kernel-checked 1 of the 2 pre-checked steps (kernel-checked in this run)")
    assert "1 rejected" in line
    assert [j.verdict for j in judged] == ["certified", "not proved", "not proved"]
    assert "Coq rejected it" in judged[1].detail
    status[("lemma2", "L2b")] = "kernel-checked"
    assert [j.verdict for j in kernel.judge(results, status, kernel.REPLAYED)][:2] == ["certified", "certified"]


def test_proofs_without_coqc_certifies_nothing(monkeypatch):
    from bounds.prove import kernel
    from bounds.prove.verify import StepResult
    monkeypatch.setattr(check, "missing_reason", lambda: "coqc not found (install coq)")
    judged = kernel.verdicts([StepResult("lemma2", "L2a", "symbolic", True)], "unused")
    assert [j.verdict for j in judged] == ["not proved"]
    assert judged[0].detail.startswith("not proved (no proof kernel: apt-get install coq libcoq-interval)")


def test_uncertified_step_is_not_exported_as_proved():
    status = check.check("/nonexistent-never-written", certified=set(), searching=False, compiling=False)
    status.pop(None)
    assert status and all(v.startswith(check.NOT_EXPORTED) for v in status.values())


def test_diff_lists_coq_status_changes():
    from slt.diff import coq_changes
    old = {"steps": [{"statement": "a", "step": "1", "coq": "kernel-checked"}, {"statement": "a", "step": "2"}]}
    new = {"steps": [{"statement": "a", "step": "1", "coq": "rejected: x"}, {"statement": "a", "step": "2"}]}
    rows = coq_changes(old, new)[0]
    assert [(r["statement"], r["step"], r["old_word"], r["new_word"], r["new"]) for r in rows] == [
        ("a", "1", "kernel-checked", "rejected", "rejected: x")]  # the reason travels with the status
    assert coq_changes(old, old)[0] == []


def test_print_assumptions_parsed_and_classified():
    out = ("Axioms:\nUint63.add_spec\n  : forall x y : PrimInt63.int, x = y\nPrimFloat.add : PrimFloat.float -> "
           "PrimFloat.float\nClassicalDedekindReals.sig_not_dec : forall P : Prop, {~ ~ P} + {~ P}\n"
           "Closed under the global context\nAxioms:\nmy_axiom : 1 = 2\n")
    blocks = check.parse_assumptions(out)
    assert blocks == [["Uint63.add_spec", "PrimFloat.add", "ClassicalDedekindReals.sig_not_dec"], [], ["my_axiom"]]
    qualified = ["Coq.Numbers.Cyclic.Int63.Uint63.add_spec", "Coq.Floats.PrimFloat.add",
                 "Coq.Reals.ClassicalDedekindReals.sig_not_dec"]
    assert [check.family(n) for n in qualified] == ["primitive 63-bit integers", "primitive floats",
                                                    "classical reals"]
    assert [check.family(n) for n in blocks[0]] == [None] * 3  # a short name is never judged by its prefix
    assert check.family("my_axiom") is None
    text = check.assumptions_text({("s", "t"): blocks[2]})
    assert "OTHER AXIOMS" in text and "my_axiom" in text


# --- a forced constant, edited ---------------------------------------------------------------------------------

def _forced_edit():
    """Lemma 5's 4 (forced in the slack table: 1% less fails lemma5:L5b, tests/test_bounds_slack.py), 1% smaller:
    the original and edited L5b lemmas."""
    from bounds.prove.slack import CONSTANTS, _catalogue
    c = next(c for c in CONSTANTS if c.statement == "lemma5" and c.label.startswith("the 4"))
    cat = _catalogue(c, sp.Rational(99, 25))
    edited = {s.name: s for s in catalogue.proof("lemma5", cat)}["L5b"]
    orig = {s.name: s for s in catalogue.proof("lemma5")}["L5b"]
    return c, lemma("lemma5", edited, cat["lemma5"].params), lemma("lemma5", orig, catalogue.get("lemma5").params)


def test_coq_rejects_the_declared_step_after_a_forced_constant_is_tightened():
    needs_coq()
    _, edited, orig = _forced_edit()
    assert edited.text != orig.text
    tac = check.load_tactics()[orig.key]
    assert tac, "lemma5:L5b has a recorded proof"
    found = check.search([_with(edited, (tac,)), orig])
    assert found[edited.key] is None and found[orig.key] == tac


@pytest.mark.slow
@pytest.mark.thorough
def test_forced_constant_tightened_is_rejected_under_the_whole_cascade():
    """The slack table marks the constant forced, and no candidate of the cascade proves the edited step."""
    needs_coq()
    from bounds.prove.slack import slack
    from bounds.prove.coq import export
    c, edited, _ = _forced_edit()
    assert slack(c)["forced"]
    export._CANDIDATES.pop(edited.key, None)
    assert check.search([edited])[edited.key] is None


@pytest.mark.slow
@pytest.mark.thorough
def test_print_assumptions_only_standard_axioms(tmp_path):
    needs_coq()
    status = check.check(tmp_path, searching=False)
    status.pop(None)
    axioms = check.assumptions(tmp_path, status)
    assert axioms and len(axioms) == sum(v == check.KERNEL for v in status.values())
    other = {n for names in axioms.values() for n in names if check.family(n) is None}
    assert not other, f"axioms beyond Coq's standard ones: {sorted(other)}"
