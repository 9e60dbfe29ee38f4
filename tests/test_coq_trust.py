"""Nothing in a file stands in for a proof and nothing undefined is kernel-checked (``bounds.prove.coq.check``): a recorded
tactic is a tactic expression only, a separate file checks each compiled constant's statement and axioms, the output
folder and the build record are believed only against the ``.vo`` coqc wrote, every coqc call is time-limited and
its failures are named as what they are, and a step defined only in part of its domain is ``not checked:
undefined``.  The tests that run the real coqc skip when it is missing (FAIL with ``CI=true``)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import sympy as sp

from bounds.prove.coq import check, tactics as coq_tactics
from bounds.core import Param, Step
from bounds.symbols import d1, eps, x
from tests.coq_shared import without_interval

ROOT = Path(__file__).resolve().parents[1]


def needs_coq():
    reason = check.missing_reason()
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)


@pytest.fixture(autouse=True)
def _build(tmp_path, monkeypatch):
    monkeypatch.setenv("SLTH_COQ_BUILD", str(tmp_path / "build"))
    monkeypatch.delenv("SLTH_COQC_SECONDS", raising=False)


def _lemma2():
    """Common and lemma2 only, without the lemmas CoqInterval proves (``tests.coq_shared.without_interval``: Common's
    facts, lemma2's L2b-eps and L2d): one small file.  What these tests judge (the tactic filter, the statement
    check, the build record, the coqc runs) is the same for every lemma; tests/test_coq.py replays the others."""
    small = without_interval(check.entries(), ("Common", "lemma2"))
    assert [t for _, t, _ in small["lemma2"]] == ["L2a", "L2b", "L2c", "L2e"], small["lemma2"]
    return small


def _key(stem="lemma2", step="L2b"):
    return next(l for s, t, l in check.entries()[stem] if t == step).key


ABORT = "idtac. Abort. Lemma step_lemma2_L2b : True. Proof. exact I"


# --- a tactic is a sentence of the proof language -----------------------------------------------------------------

@pytest.mark.parametrize("tac", [
    ABORT, "lra. Qed", "admit", "give_up", "exact_no_check I", "idtac (* . Abort . *)", 'idtac "x"',
    "lra. Admitted", "Axiom", "apply X.Y", "{ lra }", "Time lra", "Fail lra", "Print Assumptions", "", None, 3,
    "abstract lra"])
def test_a_tactic_with_vernacular_or_a_sentence_end_is_refused(tac):
    assert check.tactic_problem(tac)


def test_every_recorded_tactic_is_a_tactic_expression():
    raw = json.loads(check.TACTICS.read_text())
    assert [k for k, v in raw.items() if v is not None and check.tactic_problem(v)] == []


def test_a_refused_recorded_tactic_is_rejected_before_coqc(tmp_path):
    path = tmp_path / "tactics.json"
    path.write_text(json.dumps({_key(): ABORT}))
    tactics = check.load_tactics(path)
    st = check.check(tmp_path / "nowhere", tactics=tactics, searching=False, compiling=False, ents=_lemma2())
    assert st[("lemma2", "L2b")].startswith("rejected: the recorded tactic is not a proof script")
    assert "Abort" not in check.text("lemma2", _lemma2()["lemma2"], tactics)


def test_the_abort_trick_is_rejected_by_coq(tmp_path, checked):
    """From the module's checked folder (Common compiled, as after any earlier check): lemma2 is compiled again."""
    needs_coq()
    out, _ = _checked_copy(tmp_path, checked)
    tactics = {**check.load_tactics(), _key(): ABORT}
    st = check.check(out, tactics=tactics, searching=False, ents=_lemma2())
    assert st[("lemma2", "L2b")].startswith("rejected")
    assert st[("lemma2", "L2c")] == check.KERNEL


def test_the_statement_check_rejects_the_abort_trick_without_the_tactic_filter(tmp_path, monkeypatch, checked):
    """The second line of defence alone: the compiled constant has type True, not the exported statement (from the
    module's checked folder: lemma2 is compiled again, and its statement checked again)."""
    needs_coq()
    out, _ = _checked_copy(tmp_path, checked)
    monkeypatch.setattr(coq_tactics, "tactic_problem", lambda t: None)  # the filter every tactic is read through
    tactics = {**check.load_tactics(), _key(): ABORT}
    st = check.check(out, tactics=tactics, searching=False, ents=_lemma2())
    assert st[("lemma2", "L2b")].startswith("rejected: the compiled constant is not the exported statement")
    assert st[("lemma2", "L2c")] == check.KERNEL


# --- nothing in a folder is believed ------------------------------------------------------------------------------

def test_a_forged_cache_without_coqc_is_not_kernel_checked(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    forged = {stem: {"digest": "0" * 64, "dropped": {}} for stem in _lemma2()}
    (out / ".slth-coq-cache.json").write_text(json.dumps(forged))
    b = check.build_dir(out)
    b.mkdir(parents=True)
    (b / "state.json").write_text(json.dumps({"version": check.coqc_version(), "files": {
        stem: {"digest": "0" * 64, "vo": "0" * 64, "dropped": {}} for stem in _lemma2()},
        "checked": {l.name: "ok" for s, t, l in _lemma2()["lemma2"] if hasattr(l, "name")}}))
    st = check.check(out, searching=False, compiling=False, ents=_lemma2())
    st.pop(None)
    assert st and not [k for k, v in st.items() if v == check.KERNEL]


def test_an_admitted_folder_is_rewritten_and_compiled_from_the_exporter(tmp_path):
    needs_coq()
    out = tmp_path / "out"
    out.mkdir()
    tactics = check.load_tactics()
    for stem, items in _lemma2().items():  # what the exporter writes for these entries
        (out / f"{stem}.v").write_text(check.text(stem, items, tactics))
    src = (out / "lemma2.v").read_text()
    admitted = src.replace("Qed.", "Admitted.")
    (out / "lemma2.v").write_text(admitted)
    subprocess.run(["coqc", "-Q", str(out), "Slth", "Common.v"], cwd=out, check=True, capture_output=True)
    subprocess.run(["coqc", "-Q", str(out), "Slth", "lemma2.v"], cwd=out, check=True, capture_output=True)
    st = check.check(out, searching=False, ents=_lemma2())
    assert st[("lemma2", "L2b")] == check.KERNEL
    assert (out / "lemma2.v").read_text() == src  # the edited file is rewritten


def _record(b: Path) -> dict:
    """The build record as anyone can read it (it is sealed, not secret)."""
    raw = (b / "state.json").read_bytes()
    return json.loads(raw.split(b"\n", 1)[1] if raw.startswith(b"SLTH-SEALED") else raw)


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """One fresh check of Common and lemma2 for the module: ``(output folder, its build folder, the statuses)``.
    A test that starts from a checked folder takes a copy (``_checked_copy``); the tests of a fresh check make their
    own."""
    needs_coq()
    base = tmp_path_factory.mktemp("checked")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SLTH_COQ_BUILD", str(base / "build"))
        mp.delenv("SLTH_COQC_SECONDS", raising=False)
        st = check.check(base / "out", searching=False, ents=_lemma2())
        return base / "out", check.build_dir(base / "out"), st


def _checked_copy(tmp_path, checked) -> tuple[Path, dict]:
    """A copy of the module's checked folder and its build folder (under this test's ``SLTH_COQ_BUILD``), as a
    check into ``tmp_path / "out"`` would have left them, and the statuses that check gave."""
    source, build, st = checked
    out = tmp_path / "out"
    shutil.copytree(source, out)
    shutil.copytree(build, check.build_dir(out))
    return out, dict(st)


def test_an_admitted_vo_in_the_build_folder_is_caught(tmp_path, checked):
    """A .vo compiled from Admitted proofs, with the record's hash of it set to match by the harness's own writer
    (the second line of defence: the seal is taken as broken): the statement check runs again on it (its key is the
    .vo hashes) and Print Assumptions shows the admitted lemma as an axiom."""
    needs_coq()
    out, st = _checked_copy(tmp_path, checked)
    assert st[("lemma2", "L2b")] == check.KERNEL
    b = check.build_dir(out)
    (b / "lemma2.v").write_text((b / "lemma2.v").read_text().replace("Qed.", "Admitted."))
    subprocess.run(["coqc", "-Q", str(b), "Slth", "lemma2.v"], cwd=b, check=True, capture_output=True)
    state = _record(b)
    state["files"]["lemma2"]["vo"] = check.sha(b / "lemma2.vo")
    check.save_state(b / "state.json", state)
    st = check.check(out, searching=False, ents=_lemma2())
    assert st[("lemma2", "L2b")].startswith("rejected: rests on axioms beyond Coq's standard ones")


def test_print_assumptions_is_one_coqc_for_all_lemmas_and_an_odd_axiom_is_traced_to_its_lemma(tmp_path, checked):
    """Common, lemma2 and lemma7 compiled, then lemma2.vo compiled again from Admitted proofs: one coqc asks every
    query (``statement_check.print_assumptions``). Asked together (one query for the tuple of every lemma), every
    lemma is given the admitted lemma (the list of all of them: a superset of each one's own); asked one by one, only
    lemma2's lemmas name it, which is what ``statement_check.assumptions`` falls back to when the list together
    names an axiom beyond Coq's standard ones."""
    from bounds.prove.coq import runner, statement_check

    needs_coq()
    out, _ = _checked_copy(tmp_path, checked)  # Common and lemma2 compiled and checked
    ents = {**_lemma2(), "lemma7": check.entries()["lemma7"]}
    st = check.check(out, searching=False, ents=ents)  # lemma7 compiled and checked too
    assert st[("lemma2", "L2b")] == check.KERNEL and st[("lemma7", "L7a")] == check.KERNEL
    b = check.build_dir(out)
    (b / "lemma2.v").write_text((b / "lemma2.v").read_text().replace("Qed.", "Admitted."))
    subprocess.run(["coqc", "-Q", str(b), "Slth", "lemma2.v"], cwd=b, check=True, capture_output=True)
    # a lemma of lemma7 and the admitted step of lemma2: two files' queries
    consts = [(stem, f"Slth.{stem}.{l.name}") for stem, items in ents.items() for s, t, l in items
              if (s, t) in (("lemma7", "L7a"), ("lemma2", "L2b"))]
    assert [stem for stem, _ in consts] == ["lemma2", "lemma7"], consts
    for together in (True, False):
        runs = runner.RUNS[0]
        per = statement_check.print_assumptions(b, consts, together=together)
        assert runner.RUNS[0] == runs + 1, together  # one coqc for both files' queries
        assert set(per) == {c for _, c in consts}
        odd = {c: [n for n in names if check.family(n) is None] for c, names in per.items()}
        assert any("step_lemma2_L2b" in " ".join(odd[c]) for stem, c in consts if stem == "lemma2"), odd
        other_clean = all(not odd[c] for stem, c in consts if stem == "lemma7")
        assert other_clean != together, odd  # together: the union names it for lemma7's lemma too


def test_what_the_lemmas_rest_on_is_asked_once_and_read_from_a_record_made_against_the_vo_files_there_now(
        tmp_path, checked):
    """The statement check records nothing of what the lemmas rest on when every list it reads is standard (coqchk's
    list of the environment's assumptions is a superset, not what they rest on): ``statement_check.assumptions``
    asks once (one coqc, the tuple's query) and records it; asked again, no coqc.  A check told the caller will ask
    (``rests``, as ``slth proofs --axioms --coq`` does) prints it in its own file and records it, and a check record
    that says it is read instead of asking, unless it was made against other ``.vo`` hashes or names an axiom beyond
    Coq's standard ones: then one coqc asks again (the tuple's query, or for the odd axiom the lemmas' queries one by
    one, which do not name it: the real ``.vo`` does not rest on it)."""
    from bounds.prove.coq import runner, statement_check
    from bounds.prove.coq.build import load_state, save_state

    needs_coq()
    out, st = _checked_copy(tmp_path, checked)
    status = {k: v for k, v in st.items() if k is not None}
    b = check.build_dir(out)
    rec = _record(b)["check"]["files"]["lemma2"]
    assert rec["vo"] == {"lemma2": check.sha(b / "lemma2.vo"), "Common": check.sha(b / "Common.vo")}
    assert "axioms" not in rec, rec
    consts = [("lemma2", f"Slth.lemma2.{l.name}") for s, t, l in check.entries()["lemma2"]
              if status.get((s, t)) == check.KERNEL]
    asked = statement_check.print_assumptions(b, consts, together=True)[consts[0][1]]
    assert asked and all(check.family(n) for n in asked), asked
    state = load_state(b / "state.json")
    state.pop("axioms", None)
    save_state(b / "state.json", state)
    runs = runner.RUNS[0]
    got = statement_check.assumptions(out, status)
    assert runner.RUNS[0] == runs + 1, "the tuple's query, once"
    assert set(got) == {k for k, v in status.items() if v == check.KERNEL} and len(got) == 4
    assert set(asked) <= set(got[("lemma2", "L2a")]), (asked, got)
    runs = runner.RUNS[0]
    assert statement_check.assumptions(out, status) == got and runner.RUNS[0] == runs, "read from its record"

    fresh = tmp_path / "fresh"  # a check told the caller will ask (``rests``) prints it and records it
    st2 = {k: v for k, v in check.check(fresh, searching=False, ents=_lemma2(), rests=True).items() if k is not None}
    rec2 = _record(check.build_dir(fresh))["check"]["files"]["lemma2"]
    assert set(asked) <= set(rec2["axioms"]) and all(check.family(n) for n in rec2["axioms"]), rec2
    runs = runner.RUNS[0]
    assert set(statement_check.assumptions(fresh, st2)[("lemma2", "L2a")]) == set(rec2["axioms"])
    assert runner.RUNS[0] == runs, "a coqc ran although the check's record says what the lemmas rest on"

    kept = load_state(b / "state.json")
    kept.pop("axioms")
    kept["check"]["files"]["lemma2"]["axioms"] = sorted(asked)  # as a run with ``rests`` records it
    save_state(b / "state.json", kept)
    runs = runner.RUNS[0]
    assert set(statement_check.assumptions(out, status)[("lemma2", "L2a")]) == set(asked)
    assert runner.RUNS[0] == runs, "a coqc ran although the check's record says what the lemmas rest on"
    for spoil in ("other .vo", "odd axiom"):
        state = json.loads(json.dumps(kept))
        r = state["check"]["files"]["lemma2"]
        if spoil == "other .vo":
            r["vo"]["lemma2"] = "the hash of another lemma2.vo"
        else:
            r["axioms"] = r["axioms"] + ["Slth.lemma2.slth_odd"]
        save_state(b / "state.json", state)
        runs = runner.RUNS[0]
        again = statement_check.assumptions(out, status)
        assert runner.RUNS[0] == runs + 1, spoil
        assert "Slth.lemma2.slth_odd" not in str(again), spoil
        if spoil == "other .vo":  # the tuple's query
            assert all(set(v) == set(asked) for v in again.values()), again
        else:  # one by one: each lemma its own, within the tuple's, and not all the same
            assert all(v and set(v) <= set(asked) for v in again.values()), again
            assert len({tuple(sorted(v)) for v in again.values()}) > 1, again


@pytest.mark.parametrize("seal", [pytest.param("plain JSON", marks=pytest.mark.slow), "re-signed by its SHA-256"])
def test_a_rewritten_build_record_with_correct_digests_is_not_believed(tmp_path, seal, checked):
    """The record rewritten by someone who can write the build folder, with digests anyone can compute: the file's
    key of the text the exporter writes now (its tactic replaced by one that proves nothing), the sha256 of the .vo
    compiled from the old text, and the statement check's result as recorded.  It is ignored: the file is compiled
    again and the step is rejected; never kernel-checked without coqc.

    The plain-JSON record is in CI's slow tier (about 30 s of coqc): the default run forges the record that looks
    sealed (re-signed), which takes the same path, and
    tests/test_sealed.py::test_anything_not_sealed_here_is_refused[no header]
    refuses plain JSON where a sealed record is read."""
    needs_coq()
    out, st = _checked_copy(tmp_path, checked)
    assert st[("lemma2", "L2b")] == check.KERNEL
    b = check.build_dir(out)
    tactics = {**check.load_tactics(), _key(): "idtac"}  # a tactic that proves nothing
    state = _record(b)
    version = check.coqc_version()
    common = state["files"]["Common"]["digest"]
    state["files"]["lemma2"]["digest"] = check.file_key(check.text("lemma2", _lemma2()["lemma2"], tactics), version,
                                                        common)
    assert state["files"]["lemma2"]["vo"] == check.sha(b / "lemma2.vo")
    body = json.dumps(state).encode()
    if seal == "plain JSON":
        (b / "state.json").write_bytes(body)
    else:
        import hashlib
        (b / "state.json").write_bytes(b"SLTH-SEALED 1 coq-build " + hashlib.sha256(body).hexdigest().encode()
                                       + b"\n" + body)
    assert check.check(out, tactics=tactics, searching=False, compiling=False, ents=_lemma2())[
        ("lemma2", "L2b")].startswith("not checked")
    notes = []
    st = check.check(out, tactics=tactics, searching=False, ents=_lemma2(), log=notes.append)
    assert st[("lemma2", "L2b")].startswith("rejected"), st[("lemma2", "L2b")]
    assert st[("lemma2", "L2c")] == check.KERNEL
    assert any("ignored the build record" in n and "state.json" in n for n in notes), notes


def test_a_changed_vo_is_compiled_again(tmp_path, checked):
    needs_coq()
    out, _ = _checked_copy(tmp_path, checked)
    assert check.check(out, searching=False, compiling=False, ents=_lemma2())[("lemma2", "L2c")] == check.KERNEL
    b = check.build_dir(out)
    (b / "lemma2.vo").write_bytes(b"garbage")
    assert check.check(out, searching=False, compiling=False, ents=_lemma2())[("lemma2", "L2c")].startswith(
        "not checked")
    assert check.check(out, searching=False, ents=_lemma2())[("lemma2", "L2c")] == check.KERNEL


def test_the_statement_check_runs_again_for_a_changed_file_only(tmp_path, monkeypatch, checked):
    """The statement check is recorded per file: with lemma2 checked, lemma7 added is checked alone (the
    check file requires lemma7, not lemma2); nothing changed runs no statement check; a .vo compiled again to the
    same bytes keeps its record; a record of lemma7 that no longer matches (its key: the .vo hashes, the constants'
    types) is checked again, alone, and lemma2 keeps its verdicts."""
    needs_coq()
    ents = {**_lemma2(), "lemma7": check.entries()["lemma7"]}
    out, _ = _checked_copy(tmp_path, checked)  # Common and lemma2 compiled and checked
    b = check.build_dir(out)
    assert sorted(_record(b)["check"]["files"]) == ["lemma2"]  # Common has no lemma here

    def verdicts(st):
        return {v for k, v in st.items() if k is not None}
    from bounds.prove.coq import statement_check
    seen = []
    real = statement_check.run_coqc

    def spy(args, *a, **k):
        if str(args[-1]).endswith("SlthCheck.v"):
            seen.append(Path(args[-1]).read_text().splitlines()[2])
        return real(args, *a, **k)
    monkeypatch.setattr(statement_check, "run_coqc", spy)
    assert verdicts(check.check(out, searching=False, ents=ents)) == {check.KERNEL}
    assert sorted(_record(b)["check"]["files"]) == ["lemma2", "lemma7"]
    assert seen == ["From Slth Require Common lemma7."], seen
    seen.clear()
    assert verdicts(check.check(out, searching=False, ents=ents)) == {check.KERNEL} and seen == []
    (b / "lemma7.vo").write_bytes(b"garbage")
    assert verdicts(check.check(out, searching=False, ents=ents)) == {check.KERNEL} and seen == []
    from bounds.prove.coq.build import load_state, save_state
    state = load_state(b / "state.json")
    state["check"]["files"]["lemma7"]["key"] = "a key of other .vo files"
    save_state(b / "state.json", state)
    st = check.check(out, searching=False, ents=ents)
    assert verdicts(st) == {check.KERNEL}, st
    assert seen == ["From Slth Require Common lemma7."], seen


def test_a_garbage_record_is_ignored_with_a_note(tmp_path):
    needs_coq()
    out = tmp_path / "out"
    b = check.build_dir(out.resolve())
    b.mkdir(parents=True)
    (b / "state.json").write_bytes(b"\xff\x00{not json")
    notes = []
    st = check.check(out, searching=False, ents=_lemma2(), log=notes.append)
    assert st[("lemma2", "L2c")] == check.KERNEL
    assert any("ignored the build record" in n for n in notes)


def test_the_committed_folder_gets_no_build_files(checked):
    """Building happens outside the output folder: a fresh check into an empty folder (the module's ``checked``, whose
    folder no test writes into) adds only the .v files."""
    needs_coq()
    out, _, st = checked
    assert st[("lemma2", "L2c")] == check.KERNEL  # it compiled
    assert sorted(p.name for p in out.iterdir()) == ["Common.v", "lemma2.v"]


@pytest.mark.parametrize("make,want", [
    (lambda t: "", "needs a folder name"),
    (lambda t: ((t / "f").write_text("x"), t / "f")[-1], "is a file"),
    (lambda t: (os.symlink(t / "l1", t / "l2"), os.symlink(t / "l2", t / "l1"), t / "l1")[-1], "symlink loop"),
])
def test_a_bad_output_folder_is_one_line(tmp_path, make, want):
    with pytest.raises(check.CoqSetupError) as e:
        check.output_dir(make(tmp_path))
    assert want in str(e.value) and "\n" not in str(e.value)


def test_an_unwritable_folder_is_named_not_a_rejection(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "access", lambda p, m: False)
    st = check.check(tmp_path / "out", searching=False, ents=_lemma2())
    assert st[("lemma2", "L2c")].startswith("not checked: folder not writable")


@pytest.mark.parametrize("value", ["abc", "nan", "inf", "-1", "0", "1e20"])
def test_the_coqc_time_limit_is_validated(monkeypatch, value):
    monkeypatch.setenv("SLTH_COQC_SECONDS", value)
    with pytest.raises(check.CoqSetupError) as e:
        check.coqc_seconds()
    assert "SLTH_COQC_SECONDS" in str(e.value)


def test_coq_empty_dir_is_a_usage_error_before_any_verification():
    t = time.time()
    r = subprocess.run([sys.executable, "-m", "reports.cli", "proofs", "--coq", ""], cwd=ROOT, capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert r.returncode == 2 and "needs a folder name" in r.stderr and r.stderr.strip().count("\n") == 0
    assert r.stdout == "" and time.time() - t < 60


# --- a fake coqc: slow, killed, bytes --------------------------------------------------------------------------

FAKE = textwrap.dedent("""\
    #!/bin/sh
    case "$1" in
      --version) exit 0 ;;
      -where) echo "$FAKE_WHERE"; exit 0 ;;
    esac
    echo $$ >> "$FAKE_PIDS"
    case "$FAKE_MODE" in
      sleep) sleep 300 ;;
      sleep-rest) case "$*" in *Common.v*) exit 0 ;; *) sleep 300 ;; esac ;;
      kill) kill -9 $$ ;;
      bytes) printf 'File "x.v", line 1\\nError: \\377\\376 bad bytes\\n'; exit 1 ;;
      overlap) if mkdir "$FAKE_PIDS.running" 2>/dev/null; then sleep 1; rmdir "$FAKE_PIDS.running";
               else echo $$ >> "$FAKE_PIDS.overlap"; sleep 1; fi ;;
    esac
    """)


@pytest.fixture
def fake_coqc(tmp_path, monkeypatch):
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "coqc").write_text(FAKE)
    (bin_ / "coqc").chmod(0o755)
    where = tmp_path / "where"
    (where / "user-contrib" / "Interval").mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{bin_}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_WHERE", str(where))
    monkeypatch.setenv("FAKE_PIDS", str(tmp_path / "pids"))
    return tmp_path / "pids"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")


def test_a_coqc_that_never_answers_times_out_and_is_killed(tmp_path, fake_coqc, monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "sleep")
    monkeypatch.setenv("SLTH_COQC_SECONDS", "2")
    assert check.coqc_version() == ""  # an empty --version is no traceback
    st = check.check(tmp_path / "out", searching=False, ents=_lemma2())
    assert st[("lemma2", "L2c")] == "not checked: coqc timed out after 2 s"
    assert not [p for p in map(int, fake_coqc.read_text().split()) if _alive(p)]


def test_a_killed_coqc_is_named_killed(tmp_path, fake_coqc, monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "kill")
    st = check.check(tmp_path / "out", searching=False, ents=_lemma2())
    assert st[("lemma2", "L2c")] == "not checked: coqc killed by signal 9"


def test_non_utf8_coqc_output_is_read(tmp_path, fake_coqc, monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "bytes")
    st = check.check(tmp_path / "out", searching=False, ents=_lemma2())
    assert st[("lemma2", "L2c")].startswith("rejected") and "bad bytes" in st[("lemma2", "L2c")]


@pytest.mark.parametrize("mode,calls", [("sleep", 1), ("sleep-rest", 3)])  # Common's coqc; then two workers' too
def test_sigterm_leaves_no_coqc_and_no_half_written_file(tmp_path, fake_coqc, mode, calls):
    env = {**os.environ, "FAKE_MODE": mode, "PYTHONPATH": str(ROOT), "SLTH_COQ_BUILD": str(tmp_path / "build")}
    code = ("from bounds.prove.coq import check; import sys\n"
            f"check.check({str(tmp_path / 'out')!r}, searching=False)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT)
    pids = _settled(fake_coqc, calls)
    assert len(pids) >= calls
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)  # at once: the workers' coqc groups are killed before the pool waits for them
    time.sleep(0.5)
    assert [int(p) for p in fake_coqc.read_text().split()] == pids  # none started after the signal
    assert pids and not [p for p in pids if _alive(p)]
    assert not list((tmp_path / "out").glob(".*.tmp")) and not list((tmp_path / "build").rglob(".*.tmp"))


# --- defined before true --------------------------------------------------------------------------------------

D1 = Param("d1", lo=(1,), integer=True, box=(1, 64), log=True)
EPS = Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True, box=(2**-20, 1))
X0 = Param("x", lo=(0,), box=(0, 4))
UNDEFINED = [
    (Step("cube-root", sp.Integer(1), (d1 - 1) ** sp.Rational(1, 3)), (D1,), "d1 = 1"),
    (Step("sqrt-below-0", sp.sqrt(eps - sp.Rational(1, 2)), sp.Integer(1)), (EPS,), "eps = 1/1000000000"),
    (Step("pole", 1 / (d1 - 1), sp.Integer(2)), (D1,), "d1 = 1"),
    (Step("log-0", sp.log(x), x), (X0,), "x = 0"),
]


def test_a_step_undefined_somewhere_on_its_domain_is_not_kernel_checked(tmp_path):
    """Coq's totalised sqrt, / 0, ln and Rpower make some of these true Coq theorems ("lra" and the cascade prove
    nothing here on purpose: the definedness lemma must fail first); the true twin is kernel-checked."""
    needs_coq()
    twin = Step("sqrt-twin", sp.sqrt(eps + sp.Rational(1, 2)), sp.sqrt(2))
    steps = [("plant", s, p) for s, p, _ in UNDEFINED] + [("plant", twin, (EPS,))]
    ents = {**check.entries_of(steps), **without_interval(check.entries(), ("Common",))}
    tactics = check.load_tactics()
    for _, _, l in ents["Steps"]:
        tactics[l.key] = "apply sqrt_le_1_alt; lra" if l.step == "sqrt-twin" else "lra"
    st = check.check(tmp_path / "out", tactics=tactics, searching=False, ents=ents)
    for s, _, where in UNDEFINED:
        assert st[("plant", s.name)].startswith(f"not checked: undefined at {where}"), (s.name, st[("plant", s.name)])
    assert st[("plant", "sqrt-twin")] == check.KERNEL


def test_every_step_with_a_partial_side_has_a_definedness_lemma():
    lems = [l for items in check.entries().values() for _, _, l in items if isinstance(l, check.Lemma)]
    for l in lems:
        if any(f in l.lhs + l.rhs for f in ("sqrt", "ln ")):
            assert l.def_text and l.def_text.startswith(l.text.rsplit("->", 1)[0]), l.name
    assert "0 < ((- 1) + d1)" in check.entries_of([("p", UNDEFINED[0][0], UNDEFINED[0][1])])["Steps"][0][2].defined


def test_without_coqc_every_step_says_no_proof_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no coqc on it
    for compiling in (True, False):
        st = check.check(tmp_path / "out", searching=False, compiling=compiling, ents=_lemma2())
        assert st[("lemma2", "L2c")].startswith("not checked: no proof kernel: apt-get install coq libcoq-interval")


# --- interrupted: the mathematics build and `slth proofs --axioms --coq` ------------------------------------------

def _default_sigint():  # in the child: SIGINT as a terminal delivers it (a background shell may ignore it)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _settled(fake_coqc, calls, quiet=2.0):
    """The pids of the fake coqc once at least ``calls`` run and no other has started for ``quiet`` seconds: every
    fake coqc sleeps, so the run's pool is then full and starts none until a signal ends it (reading the pids at the
    first ``calls`` raced the pool's second worker, started in the moment before the signal)."""
    def now():
        return [int(p) for p in fake_coqc.read_text().split()] if fake_coqc.exists() else []
    for _ in range(1200):
        if len(now()) >= calls:
            break
        time.sleep(0.1)
    seen, since = now(), time.monotonic()
    deadline = since + 60
    while time.monotonic() - since < quiet and time.monotonic() < deadline:
        time.sleep(0.1)
        if len(now()) != len(seen):
            seen, since = now(), time.monotonic()
    return seen


def _interrupt(tmp_path, fake_coqc, code_or_argv, sig, calls):
    """Start a run with every coqc asleep, wait until ``calls`` coqc run, send ``sig``; (exit status, stderr, pids)."""
    env = {**os.environ, "FAKE_MODE": "sleep", "PYTHONPATH": str(ROOT), "SLTH_COQ_BUILD": str(tmp_path / "build"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    argv = [sys.executable, "-c", code_or_argv] if isinstance(code_or_argv, str) else [sys.executable, *code_or_argv]
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    try:
        pids = _settled(fake_coqc, calls)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)  # at once: the coqc groups are killed, not waited for
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    time.sleep(0.5)
    return proc.returncode, err, pids


def _no_half_written(tmp_path):
    return [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_mathematics_build_interrupted_leaves_no_coqc_and_no_half_written_file(tmp_path, fake_coqc, sig):
    """bounds.prove.coq_math.statements_rests (the build `slth proofs --axioms --coq` ends with), stopped while its
    coqc runs: the coqc is killed, nothing is half written, and it does not go on to the next file."""
    code = "from bounds.prove import coq_math\ncoq_math.statements_rests()\n"
    rc, err, pids = _interrupt(tmp_path, fake_coqc, code, sig, 1)
    assert len(pids) >= 1, err
    assert rc != 0, err
    assert not [p for p in pids if _alive(p)], pids
    assert len([int(p) for p in fake_coqc.read_text().split()]) == len(pids)  # none started after the signal
    assert not _no_half_written(tmp_path)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_axioms_coq_interrupted_leaves_no_coqc_and_no_half_written_file(tmp_path, fake_coqc, sig):
    """`slth proofs --axioms --coq DIR` runs the steps' build and the mathematics build side by side (two coqc);
    Ctrl-C (exit 130, one line) or SIGTERM (exit 143) kills both and starts no other."""
    argv = ["-m", "reports.cli", "proofs", "--axioms", "--coq", str(tmp_path / "out")]
    rc, err, pids = _interrupt(tmp_path, fake_coqc, argv, sig, 2)
    assert len(pids) >= 2, err
    if sig == signal.SIGINT:
        lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("slth proofs --axioms --coq: ")]
        assert rc == 130 and len(lines) == 1 and "interrupted" in lines[0], err
    else:
        assert rc == 128 + signal.SIGTERM and "Traceback" not in err, err
    assert not [p for p in pids if _alive(p)], pids
    assert len(fake_coqc.read_text().split()) == len(pids)
    assert not _no_half_written(tmp_path)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_axioms_coq_interrupted_between_coqc_calls_does_not_wait_for_the_mathematics_build(tmp_path, fake_coqc, sig):
    """The signal may come while the main thread runs Python (here: the steps' check stands still in Python) and only
    the mathematics build's coqc runs: that coqc is killed before its thread is joined (else the run waits for it)."""
    code = textwrap.dedent(f"""\
        import sys, time
        from bounds.prove.coq import check
        check.check = lambda *a, **k: time.sleep(300)
        from reports import cli
        sys.exit(cli.main(["proofs", "--axioms", "--coq", {str(tmp_path / "out")!r}]))
        """)
    rc, err, pids = _interrupt(tmp_path, fake_coqc, code, sig, 1)  # its wait after the signal: 60 s at most
    assert len(pids) >= 1, err  # the mathematics build's own (it runs up to two at once)
    assert rc == (130 if sig == signal.SIGINT else 128 + signal.SIGTERM), (rc, err)
    assert not [p for p in pids if _alive(p)], pids
    assert len(fake_coqc.read_text().split()) == len(pids)
    assert not _no_half_written(tmp_path)


def test_a_searched_lemma_is_compiled_from_the_proof_its_search_kept_and_a_damaged_library_is_compiled_again(
        tmp_path, monkeypatch):
    """A lemma without a recorded tactic (lemma2's L2c) is searched once Common is compiled: the search's batch is a
    library in the build folder whose definition keeps the winner's proof, and the step file proves the lemma with
    it (``exact Found_<hash>.slth_p_<key>``) instead of running the tactic again; the record names the library with
    the sha256 of its ``.vo`` and the statement check passes.  The output folder shows the winning tactic.  The
    library's ``.vo`` damaged, the record no longer vouches for the file: the next check compiles the text with the
    tactic, still kernel-checked, and the library no record names is removed."""
    needs_coq()
    monkeypatch.setenv("SLTH_COQ_BUILD", str(tmp_path / "build"))
    ents = _lemma2()
    lem = next(l for _, t, l in ents["lemma2"] if t == "L2c")
    tactics = {k: v for k, v in check.load_tactics().items() if k != lem.key}
    st = check.check(tmp_path / "out", tactics=tactics, ents=ents)
    assert st[("lemma2", "L2c")] == check.KERNEL and st[None].get(lem.key), st
    b = check.build_dir(tmp_path / "out")
    built = (b / "lemma2.v").read_text()
    libs = _record(b)["files"]["lemma2"]["libs"]
    assert len(libs) == 1, libs
    assert lem.proof_by(f"{next(iter(libs))}.slth_p_{lem.key}") in built, built
    assert lem.proof(st[None][lem.key]) in (tmp_path / "out" / "lemma2.v").read_text()
    lib = b / f"{next(iter(libs))}.vo"
    assert check.sha(lib) == next(iter(libs.values()))
    lib.write_bytes(b"damaged")
    again = check.check(tmp_path / "out", tactics=st[None], ents=ents, searching=False)
    assert again[("lemma2", "L2c")] == check.KERNEL, again
    assert "Found_" not in (b / "lemma2.v").read_text() and "libs" not in _record(b)["files"]["lemma2"]
    assert not list(b.glob("Found_*"))


def test_the_committed_sealed_fields_are_what_coqchk_lists_now(checked):
    """The committed hint of the sealed fields to ask early (``statement_check.COMMITTED_FIELDS``) is what coqchk lists
    for the steps' files on this Coq: when the installed libraries change, this fails until the file is written
    again (a stale hint costs only a second query, never a verdict)."""
    from bounds.prove.coq import statement_check
    needs_coq()
    _, b, _ = checked
    rc, listed, unsafe = statement_check.environment(b, ["Common", "lemma2"])
    fields = sorted(n for n in listed if check.family(n) is None and not n.startswith("Slth."))
    assert rc == 0 and not unsafe and fields
    committed = json.loads(statement_check.COMMITTED_FIELDS.read_text())
    assert committed == fields, f"write {statement_check.COMMITTED_FIELDS} again: {sorted(set(fields) ^ set(committed))}"
