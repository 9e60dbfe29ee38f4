"""Axioms are judged by where they come from (``bounds.prove.coq.assumed``): a ``Print Assumptions`` name counts as
one of Coq's standard axioms only as the exact fully qualified name of its standard-library module, never by a
prefix; every axiom-declaring form is refused in the committed and generated files.  The planted file
``FloatAxioms.v`` (``Axioms classic_all : forall P : Prop, P.``, the plural keyword, a library's module name) used to
re-prove Lemma 5 with 3 for 4 fails every check: the scan, the build, ``python -m bounds.prove.coq_math`` and the
assumption check.  The tests that run coqc skip without it (FAIL with ``CI=true``)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from bounds.prove import coq_math, coq_text
from bounds.prove.coq import assumed, check

PLANTED = "Axioms classic_all : forall P : Prop, P.\n"
LEMMA5_3 = """From Coq Require Import Reals.
From SlthMath Require Import Objects FloatAxioms.
Open Scope R_scope.
Theorem lemma5 : forall (T d1 : nat) (a z e : vec) (X : mat) (alpha eps : R),
  is_mask T a -> norm_max T e <= eps -> eps <= 1/2 -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  norm d1 (vsub (vecmat T (softmax T a z) X) (vecmat T (softmax T a (vadd z e)) X))
    <= 3 * sqrt (INR d1) * alpha * eps.
Proof. intros. apply classic_all. Qed.
"""


def needs_coq():
    reason = check.missing_reason()
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)


def _planted() -> dict:
    """The committed mathematics with Softmax.v's Lemma 5 re-proved with 3 for 4 from the planted axiom."""
    files = coq_math.sources()
    return {"Objects": files["Objects"], "FloatAxioms": PLANTED, "Softmax": LEMMA5_3}


@pytest.mark.parametrize("text,form", [
    ("Axiom a : False.", "Axiom"), ("Axioms a b : False.", "Axioms"), ("Parameter p : nat.", "Parameter"),
    ("Parameters p q : nat.", "Parameters"), ("Conjecture c : False.", "Conjecture"),
    ("Hypothesis h : False.", "Hypothesis"), ("Hypotheses h g : False.", "Hypotheses"),
    ("Variable v : nat.", "Variable"), ("Variables v w : nat.", "Variables"), ("Context (v : nat).", "Context"),
    ("Lemma l : False. Proof. Admitted.", "Admitted"), ("Lemma l : False. Proof. admit. Qed.", "admit"),
    ("#[local] Axiom a : False.", "Axiom"), ("Module M. Hypothesis h : False. End M.", "Hypothesis")])
def test_every_axiom_declaring_form_is_refused(text, form):
    assert [h.split(": ", 1)[1] for h in coq_math.forbidden(text)] == [form]


def test_section_variables_comments_and_names_are_not_declarations():
    text = ("(* Axiom in a comment *)\nSection S.\nVariable x : R.\nHypothesis hx : 0 < x.\nContext (y : R).\n"
            "End S.\nDefinition my_Axiom_count := 1.\nLemma admit_free : True. Proof. exact I. Qed.\n")
    assert coq_math.forbidden(text) == []


@pytest.mark.parametrize("text, stripped", [
    ("a (* b *) c", "a         c"), ("(* (* nested *) still *)x", " " * 24 + "x"),
    ("(* one\ntwo *)\nAxiom a.", "      \n      \nAxiom a."), ("x *) y", "x *) y"), ("(*)*)z", "     z"),
    ("a (* b *) *) (* c *)", "a         *)        ")])
def test_comments_are_blanked_with_their_delimiters_and_line_breaks_kept(text, stripped):
    assert coq_math.strip_comments(text) == stripped


@pytest.mark.parametrize("text", ["(* open", "(* (* one closed *) not the outer", "a *) (* b"])
def test_an_unclosed_comment_is_an_error(text):
    with pytest.raises(ValueError, match="unclosed comment"):
        coq_math.strip_comments(text)


def test_a_declared_premise_is_the_one_allowed_axiom_in_its_own_file():
    premises = ("SlthMath.Premises.lueker",)
    assert coq_math.forbidden("Axiom lueker : True.", premises, stem="Premises") == []
    assert coq_math.forbidden("Axiom lueker : True.", premises, stem="FloatAxioms") == ["line 1: Axiom"]
    assert coq_math.forbidden("Axiom other : True.", premises, stem="Premises") == ["line 1: Axiom"]
    assert coq_math.unexpected(["SlthMath.Premises.lueker"], premises) == []
    assert coq_math.unexpected(["SlthMath.FloatAxioms.lueker"], premises) == ["SlthMath.FloatAxioms.lueker"]
    assert coq_math.unexpected(["lueker"], ("lueker",)) == ["lueker"]  # a premise counts only by its full name


@pytest.mark.parametrize("name", ["FloatAxioms.classic_all", "SlthMath.FloatAxioms.classic_all",
                                  "FloatAxioms.add_spec", "Uint63.add_spec", "Classical_Prop.classic",
                                  "Coq.Floats.FloatAxioms.classic_all", "Coq.Logic.Classical_Prop.classic_all",
                                  "Coq.Reals.ClassicalDedekindReals.sig_forall_dec'"])
def test_a_name_is_standard_only_as_an_exact_qualified_name(name):
    assert check.family(name) is None
    assert coq_math.unexpected([name]) == [name]
    assert "primitive floats" not in coq_math.families([name])


def test_the_standard_names_are_qualified():
    assert check.family("Coq.Reals.ClassicalDedekindReals.sig_forall_dec") == "classical reals"
    assert check.family("Coq.Floats.FloatAxioms.add_spec") == "primitive floats"
    assert all(n.startswith("Coq.") for names in assumed.STANDARD.values() for n in names)


def test_a_printed_name_is_qualified_only_through_coqs_own_answer():
    """``qualify`` maps a printed name to the one constant Coq's ``Locate`` lists for it, and only when that is an
    allowed name: a printed ``FloatAxioms.add_spec`` that Coq locates in another library stays unqualified."""
    names = assumed._suffixes(assumed._FAMILY)
    answers = {"FloatAxioms.add_spec": "Constant SlthMath.FloatAxioms.add_spec\n",
               "ClassicalDedekindReals.sig_forall_dec": "Constant Coq.Reals.ClassicalDedekindReals.sig_forall_dec\n"}
    mark = f"{assumed.MARK}\n     : unit\n"
    out = mark + "".join(answers.get(n, f"No object of basename {n}\n") + mark for n in names)
    blocks = assumed.qualify([["FloatAxioms.add_spec", "ClassicalDedekindReals.sig_forall_dec", "classic_all"]], out)
    assert blocks == [["FloatAxioms.add_spec", "Coq.Reals.ClassicalDedekindReals.sig_forall_dec", "classic_all"]]
    assert assumed.qualify([["ClassicalDedekindReals.sig_forall_dec"]], "no answers") == [
        ["ClassicalDedekindReals.sig_forall_dec"]]


def test_the_committed_and_generated_files_declare_no_axiom():
    root = Path(__file__).resolve().parents[1] / "proofs" / "coq"
    assert {str(p): coq_math.forbidden(p.read_text()) for p in root.rglob("*.v")
            if coq_math.forbidden(p.read_text())} == {}
    assert {s: coq_math.forbidden(t, stem=s) for s, t in coq_math.with_statements().items()
            if coq_math.forbidden(t, stem=s)} == {}
    gen = {stem: check.text(stem, items, check.load_tactics()) for stem, items in check.entries().items()}
    assert {s: assumed.declarations(t) for s, t in gen.items() if assumed.declarations(t)} == {}


def test_the_planted_axiom_fails_the_scan_and_the_build(tmp_path):
    files = _planted()
    assert coq_math.forbidden(PLANTED, stem="FloatAxioms") == ["line 1: Axioms"]
    ok, why = coq_math.compile(tmp_path, files)  # refused before any coqc: no coqc needed
    assert not ok and why.startswith("FloatAxioms.v line 1: Axioms"), why
    assert not list(tmp_path.glob("*.vo"))


def test_the_planted_axiom_fails_python_m_bounds_prove_coq_math(monkeypatch, capsys, tmp_path):
    needs_coq()
    planted = {**coq_math.sources(), **_planted()}
    monkeypatch.setattr(coq_text, "sources", lambda folder=None: planted)
    monkeypatch.setattr(coq_math, "build_folder", lambda: tmp_path)
    assert coq_math.main([]) == 1
    out = capsys.readouterr().out
    assert "forbidden: FloatAxioms.v line 1: Axioms" in out and "rejected: FloatAxioms.v" in out, out


def test_the_planted_axiom_fails_the_assumption_check(tmp_path):
    """Compiled behind the scan's back (coqc run directly), Lemma 5 with 3 proved from the planted axiom: Print
    Assumptions names it, Coq's own Locate puts it in SlthMath.FloatAxioms, and it is refused as a non-standard
    axiom, not read as a primitive float."""
    needs_coq()
    files = _planted()
    for stem in coq_math.order(files):
        (tmp_path / f"{stem}.v").write_text(files[stem])
        ok, why = coq_math.compile_file(tmp_path, stem)
        assert ok, why
    axioms = coq_math.assumptions(tmp_path, {"Softmax": ("lemma5",)})["lemma5"]
    odd = coq_math.unexpected(axioms)
    assert odd and all("classic_all" in a for a in odd), axioms
    assert "primitive floats" not in coq_math.families(odd)


# --- Coq's own checker on the compiled library (the CI step) -----------------------------------------------------

def test_ci_runs_coqchk_as_a_named_step_that_fails_the_run():
    from bounds.prove.coq import coqchk  # noqa: F401 (the module the step runs exists)
    lines = [line.strip() for line in (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text().splitlines()]
    step = lines.index("python -m bounds.prove.coq.coqchk")
    assert any(line.startswith('echo "CI step: coqchk') for line in lines[:step])
    assert lines[step + 1] == "chk=$?" and any('[ "$rc" -eq 0 ] && rc=1' in line for line in lines[step:])
    assert lines[-1] == 'exit "$rc"'


def _library(tmp_path, text: str, name: str = "lib") -> Path:
    lib = tmp_path / name
    lib.mkdir()
    (lib / "Planted.v").write_text(text)
    import subprocess
    subprocess.run(["coqc", "-Q", str(lib), "Slth", "Planted.v"], cwd=lib, check=True, capture_output=True)
    return lib


def test_coqchk_names_an_axiom_declared_in_the_library(tmp_path):
    needs_coq()
    from bounds.prove.coq import coqchk
    lib = _library(tmp_path, PLANTED + "Lemma lemma5_3 : 3 = 4. Proof. apply classic_all. Qed.\n")
    rc, out = coqchk.run(lib, "Slth", ["Planted"])
    assert rc == 0 and coqchk.own_axioms(out) == ["Slth.Planted.classic_all"], out
    clean = _library(tmp_path, "Lemma two : 2 = 2. Proof. reflexivity. Qed.\n", "clean")
    rc, out = coqchk.run(clean, "Slth", ["Planted"])
    assert rc == 0 and coqchk.own_axioms(out) == [], out


def test_coqchk_rejects_a_damaged_vo(tmp_path):
    needs_coq()
    from bounds.prove.coq import coqchk
    lib = _library(tmp_path, "Lemma two : 2 = 2. Proof. reflexivity. Qed.\n")
    vo = lib / "Planted.vo"
    raw = bytearray(vo.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    vo.write_bytes(bytes(raw))
    rc, out = coqchk.run(lib, "Slth", ["Planted"])
    assert rc != 0, out


def test_coqchk_reads_each_library_holding_its_build_folder(tmp_path, monkeypatch):
    """The mathematics is compiled and each folder checked while this process holds the folder's lock (the lock
    ``slth`` and ``python -m bounds.prove.coq_math`` compile under), so no other process rewrites a ``.vo`` file
    between its compile and coqchk's reading of it."""
    from contextlib import contextmanager

    from bounds.prove import coq_math, kernel
    from bounds.prove.coq import check, coqchk

    events, held = [], set()

    @contextmanager
    def lock(folder):
        held.add(folder)
        events.append(("lock", folder.name))
        yield
        held.discard(folder)
        events.append(("unlock", folder.name))

    steps, math = tmp_path / "steps", tmp_path / "math"
    monkeypatch.setattr(check, "missing_reason", lambda: None)
    monkeypatch.setattr(coqchk.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(kernel, "folder", lambda: tmp_path / "out")
    monkeypatch.setattr(check, "check", lambda directory, searching: {})
    monkeypatch.setattr(check, "build_dir", lambda directory: steps)
    monkeypatch.setattr(coq_math, "build_folder", lambda: math)
    monkeypatch.setattr(coqchk, "build_lock", lock)
    monkeypatch.setattr(coq_math, "compile", lambda folder, files: (
        events.append(("compile", folder.name, folder in held)), (True, ""))[-1])
    monkeypatch.setattr(coqchk, "run", lambda folder, logical, names: (
        events.append(("coqchk", folder.name, folder in held)), (0, ""))[-1])
    assert coqchk.main([]) == 0
    assert events == [("lock", "steps"), ("coqchk", "steps", True), ("unlock", "steps"),
                      ("lock", "math"), ("compile", "math", True), ("coqchk", "math", True), ("unlock", "math")]


def test_a_sealed_field_resting_on_an_axiom_hidden_in_its_implementation_is_caught(tmp_path, monkeypatch):
    """A library outside the harness's (``Other``, on ``COQPATH``) seals a module behind a signature; the lemma uses
    its field.  coqchk lists the field as an assumption of the environment, never the axiom its implementation
    hides; the statement check's ``Print Assumptions`` of the sealed fields looks through and finds it, and the
    lemma is rejected (each constant asked alone names it).  The same field implemented without an axiom passes.
    Without the sealed fields' query (``sealed`` answering nothing) the hidden axiom would pass: the query is what
    catches it."""
    from types import SimpleNamespace

    from bounds.prove.coq import statement_check
    needs_coq()
    root, build = tmp_path / "root" / "Other", tmp_path / "build"
    root.mkdir(parents=True)
    build.mkdir()
    monkeypatch.setenv("COQPATH", str(tmp_path / "root"))
    monkeypatch.setenv("SLTH_COQ_BUILD", str(tmp_path / "builds"))
    row = ("Use", SimpleNamespace(name="uses"), [("Slth.Use.uses", "Other.Sealing.M.x = Other.Sealing.M.x")])
    import subprocess
    for impl, hidden in (("Definition x := 2.", False), ("Axiom hidden : nat. Definition x := hidden.", True)):
        (root / "Sealing.v").write_text(f"Module Type T. Parameter x : nat. End T.\nModule M : T. {impl} End M.\n")
        subprocess.run(["coqc", "-Q", ".", "Other", "Sealing.v"], cwd=root, check=True, capture_output=True)
        (build / "Common.v").write_text("Definition slth_common := tt.\n")
        (build / "Use.v").write_text("From Other Require Sealing.\n"
                                     "Lemma uses : Other.Sealing.M.x = Other.Sealing.M.x. Proof. reflexivity. Qed.\n")
        for stem in ("Common", "Use"):
            subprocess.run(["coqc", "-Q", str(build), "Slth", f"{stem}.v"], cwd=build, check=True, capture_output=True)
        rc, listed, unsafe = statement_check.environment(build, ["Common", "Use"])
        assert rc == 0 and not unsafe and "Other.Sealing.M.x" in listed, listed
        assert not [n for n in listed if "hidden" in n], listed  # coqchk cannot see it
        verdict = statement_check._check(build, [row])[0]["uses"]
        if hidden:
            assert verdict.startswith("rests on axioms beyond Coq's standard ones") and "hidden" in verdict, verdict
        else:
            assert verdict == "ok", verdict
    monkeypatch.setattr(statement_check, "sealed", lambda *a: [])
    monkeypatch.setattr(statement_check, "known_fields", lambda: [])
    assert statement_check._check(build, [row])[0]["uses"] == "ok"
