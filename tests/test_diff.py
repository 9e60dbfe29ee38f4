"""slt.diff and `slth diff`: what changed between two run records, exit status, and the end-to-end workflow
"edit a constant in bounds/attention.py, run `slth diff --against HEAD`" in a temporary copy of the repository."""
from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reports import record
from reports.record import provenance
from slt import diff


def _step(rec, statement, step):
    return next(s for s in rec["steps"] if s["statement"] == statement and s["step"] == step)


def test_identical_records_differ_in_nothing(proofs_record):
    d = diff.compare(proofs_record, copy.deepcopy(proofs_record))
    assert not d.changed and d.exit_status == 0


def test_a_newly_failing_step_is_reported_with_its_counterexample_and_exit_1(proofs_record):
    new = copy.deepcopy(proofs_record)
    _step(new, "theorem9", "S2a").update(ok=False, verdict="refuted", counterexample={"d1": 1.0, "lhs": 2.0, "rhs": 1.0})
    d = diff.compare(proofs_record, new)
    assert [(f["statement"], f["step"], f["old"], f["new"]) for f in d.flipped] == [("theorem9", "S2a", "certified",
                                                                                       "refuted")]
    assert d.flipped[0]["counterexample"] == {"d1": 1.0, "lhs": 2.0, "rhs": 1.0}
    assert d.exit_status == 1
    # the reverse direction (a step that now holds) is reported but is no failure
    back = diff.compare(new, proofs_record)
    assert back.flipped and back.exit_status == 0


def test_margins_move_only_beyond_the_tolerance(proofs_record):
    new = copy.deepcopy(proofs_record)
    s = next(s for s in new["steps"] if s["margin"] and s["margin"] > 1.5)
    s["margin"] *= 1.05
    assert len(diff.compare(proofs_record, new, tolerance=0.01).margins) == 1
    assert diff.compare(proofs_record, new, tolerance=0.1).margins == []
    with pytest.raises(ValueError, match="tolerance"):
        diff.compare(proofs_record, new, tolerance=-1)


def test_width_changes_variants_empirical_verdicts_and_constants(proofs_record):
    old = copy.deepcopy(proofs_record)
    new = copy.deepcopy(proofs_record)
    w = next(w for w in new["widths"] if w["statement"] == "lemma7")
    w["value"] *= 2
    old["variants"] = [{"statement": "lemma13", "variant": "printed", "description": "", "expected": [["lemma13", "L13a"]],
                        "broken": [{"statement": "lemma13", "step": "L13a", "method": "interval", "counterexample": {}}],
                        "verdict": "as expected"}]
    new["variants"] = copy.deepcopy(old["variants"])
    new["variants"][0].update(broken=[], verdict="unexpected")
    emp = {"checks": [{"id": "rate:lemma7:d1=2", "statement": "lemma7", "kind": "rate", "verdict": "holds",
                       "ratio": 0.5, "command": "python -m slt.measure.rerun lemma7"}],
           "tightness": [], "length_sweeps": {}, "verdicts": {"lemma7": "holds"}, "wall_s": 1.0, "tasks": 1}
    old["empirical"] = emp
    new["empirical"] = copy.deepcopy(emp)
    new["empirical"]["verdicts"]["lemma7"] = "fails"
    new["empirical"]["checks"][0]["verdict"] = "fails"
    c = new["calibration"]["statements"]["lemma7"]
    c["C"] = c["C_high"] * 3
    c["C_low"] = c["C_high"] = c["C"]
    d = diff.compare(old, new)
    assert [(x["statement"], x["width"], x["old"] * 2 == x["new"], x["ratio"]) for x in d.widths] == [
        ("lemma7", w["width"], True, 2.0)]
    assert d.variants and d.variants[0]["new"] == "unexpected"
    assert d.empirical == [{"statement": "lemma7", "old": "holds", "new": "fails"}]
    assert d.checks[0]["new"] == "fails"
    assert [x["statement"] for x in d.constants] == ["lemma7"] and "outside" in d.constants[0]["why"]
    assert d.exit_status == 0  # nothing in the proofs newly fails


def test_cli_on_two_records_text_html_and_usage_errors(tmp_path, proofs_record, capsys):
    from reports import cli

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    record.write(old, proofs_record)
    changed = copy.deepcopy(proofs_record)
    _step(changed, "lemma8", "L8b").update(ok=False, verdict="refuted", counterexample={"eps_max": 8.0})
    record.write(new, changed)
    page = tmp_path / "diff.html"
    assert cli.main(["diff", str(old), str(new), "--html", str(page)]) == 1
    out = capsys.readouterr().out
    assert "lemma8:L8b  certified -> refuted" in out and "counterexample: eps_max = 8" in out
    assert "1 downgrade(s) of a supported form: lemma8:L8b certified -> refuted" in out
    assert "lemma8" in page.read_text() and page.read_text().startswith("<!DOCTYPE html>")
    assert cli.main(["diff", str(old), str(old)]) == 0
    assert cli.main(["diff", str(old)]) == 2
    assert cli.main(["diff", str(old), str(new), "--tolerance", "-1"]) == 2
    bad = json.loads(old.read_text())
    bad["schema_version"] = 99
    old.write_text(json.dumps(bad))
    assert cli.main(["diff", str(old), str(new)]) == 2
    err = capsys.readouterr().err
    assert "schema_version" in err and str(old) in err


# ------------------------------------------------------------------------------------------ end to end

def _clone(tmp_path) -> Path:
    """A git repository holding the working tree as it is now (committed), in ``tmp_path/clone``."""
    root = provenance.ROOT
    if not (root / ".git").exists():
        pytest.skip(f"{root} is not a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(root), str(clone)], check=True)
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src, dst = root / name, clone / name
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
        elif dst.exists():
            dst.unlink()
    _git(clone, "add", "-A")
    _git(clone, "commit", "--quiet", "--allow-empty", "-m", "the working tree under test")
    return clone


def _git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=slth test", "-c", "user.email=test@example.invalid", *args],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout


def _slth(clone, *args, env=None):
    env = {**os.environ, "PYTHONPATH": str(clone), **(env or {})}
    return subprocess.run([sys.executable, "-m", "reports.cli", *args], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=600)


def test_edit_a_constant_then_diff_against_head(tmp_path, tmp_path_factory):
    """Theorem 9's n_K logarithm 8 H alpha^3 ... -> 4 H alpha^3 ... (the mutation suite's first edit): step S2a
    newly fails and every n_K requirement on the default grid (and Theorem 11's, which uses it) is named.  With
    coqc, its Coq build folders start from a copy of the session's compiled mathematics library
    (``tests.coq_shared.seeded_build_root``): the edit's Lemma 12 check compiles the edited Statements.v, not all.
    Its verdict store is a copy of the session's (``tests.coq_shared.seeded_verdicts``), as a user's second run
    finds it: the steps the edit changed are verified again, the others read back."""
    from tests.coq_shared import seeded_build_env, seeded_verdicts

    clone = _clone(tmp_path)
    coq = {**seeded_build_env(tmp_path_factory, "diff-coq-build"), **seeded_verdicts(tmp_path_factory, "diff")}
    source = clone / "bounds" / "attention.py"
    text = source.read_text()
    old = "sp.log(8 * H * alpha**3"
    assert text.count(old) == 1, "the edit site of this test moved; update the test"
    source.write_text(text.replace(old, "sp.log(4 * H * alpha**3"))
    page = tmp_path / "diff.html"
    done = _slth(clone, "diff", "--against", "HEAD", "--html", str(page), env=coq)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "theorem9:S2a  certified -> refuted" in out and "counterexample:" in out
    assert "before: " in out and "after: " in out and "4*H*alpha**3" in out and "relied on by: theorem11" in out
    assert "theorem9.n_K  at d1=2" in out and "ratio" in out
    assert "theorem9.n_V" not in out  # only the edited requirement moved
    assert "downgrade(s) of a supported form: theorem9:S2a certified -> refuted" in out
    assert "theorem9" in page.read_text()
    run, read = map(int, re.search(r"working tree: (\d+) verification\(s\) run \(sub-steps included\), (\d+) "
                                   r"verdict\(s\) of unchanged steps read back", done.stderr).groups())
    assert 1 <= run < 20 and read >= 50, done.stderr  # the edited steps verified again, the others read back
    sha = _git(clone, "rev-parse", "HEAD").strip()
    assert (clone / "results" / "records" / f"{sha}-proofs.json").exists()  # REF's record, cached by commit
    assert not _git(clone, "worktree", "list").strip().count("\n")  # the temporary worktree is gone


def test_diff_against_a_ref_without_run_records_or_a_bad_ref_is_a_usage_error(tmp_path):
    clone = _clone(tmp_path)
    _git(clone, "checkout", "--quiet", "-b", "before-records")
    _git(clone, "rm", "--quiet", "reports/run.py")
    _git(clone, "commit", "--quiet", "-m", "a tree without run records")
    _git(clone, "checkout", "--quiet", "-")
    done = _slth(clone, "diff", "--against", "before-records")
    assert done.returncode == 2 and "predates `slth run`" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    done = _slth(clone, "diff", "--against", "no-such-ref")
    assert done.returncode == 2 and "is not a commit" in done.stderr


def test_every_change_of_verdict_or_domain_is_reported_and_downgrades_exit_1(proofs_record):
    """certified -> not proved on a box only, a step added (not certified), a statement's proof removed: each is
    reported with its verdicts, domains and inequality; each is a downgrade (exit 1); the reverse is no failure."""
    new = copy.deepcopy(proofs_record)
    _step(new, "lemma7", "L7b").update(ok=False, verdict="not proved", domain="box: d1 in [1, 64]",
                                       text="epsilon/(d1*d2) <= epsilon*Min(1, 10**40/d1)/(d1*d2)")
    d = diff.compare(proofs_record, new)
    (f,) = d.flipped
    assert (f["old"], f["new"], f["old_domain"], f["new_domain"], f["downgrade"]) == (
        "certified", "not proved", "whole", "box", True)
    assert f["old_inequality"] == _step(proofs_record, "lemma7", "L7b")["text"] and "Min(1" in f["new_inequality"]
    assert "theorem9" in f["relied_on_by"] and "theorem14" in f["relied_on_by"]  # through theorem9 and theorem11
    assert d.exit_status == 1 and diff.compare(new, proofs_record).exit_status == 0
    # whole -> box with the same word is a downgrade too (a record from before the three verdicts: "ok")
    legacy = copy.deepcopy(proofs_record)
    _step(legacy, "lemma7", "L7b").update(verdict="ok", domain="box: d1 in [1, 64]")
    assert [(f["old"], f["new"], f["downgrade"]) for f in diff.compare(proofs_record, legacy).flipped] == [
        ("certified", "not proved", True)]
    added = copy.deepcopy(proofs_record)
    added["steps"].append({**_step(proofs_record, "lemma7", "L7b"), "statement": "toylemma", "step": "TOY1",
                           "verdict": "refuted", "ok": False, "counterexample": {"eps": 0.5}})
    (f,) = diff.compare(proofs_record, added).flipped
    assert (f["old"], f["new"], f["downgrade"]) == ("absent", "refuted", True)
    certified_added = copy.deepcopy(added)
    certified_added["steps"][-1].update(verdict="certified", ok=True, counterexample=None)
    assert diff.compare(proofs_record, certified_added).exit_status == 0
    removed = copy.deepcopy(proofs_record)
    removed["steps"] = [s for s in removed["steps"] if s["statement"] != "lemma5"]
    d = diff.compare(proofs_record, removed)
    assert {(f["step"], f["new"], f["downgrade"]) for f in d.flipped} == {("L5a", "absent", True),
                                                                         ("L5b", "absent", True)}
    one_removed = copy.deepcopy(proofs_record)
    one_removed["steps"] = [s for s in one_removed["steps"] if (s["statement"], s["step"]) != ("lemma5", "L5a")]
    (f,) = diff.compare(proofs_record, one_removed).flipped
    assert f["new"] == "absent" and not f["downgrade"]  # reported; the statement keeps a proof


# ------------------------------------------------------------------------------------------ the Coq block

def _coq(rec, status, **extra):
    """``rec`` with every step's Coq status set; a record built before the kernel judged (no ``kernel_source``)
    unless ``extra`` gives one."""
    for s in rec["steps"]:
        s["coq"] = status
        s.pop("kernel_source", None)
        s.update(extra)
    return rec


def test_coq_block_shows_each_status_with_its_reason(proofs_record):
    """A step Coq rejects is shown with Coq's error on both sides; the statuses of both records are counted."""
    from reports.diff import format_text

    old = _coq(copy.deepcopy(proofs_record), "kernel-checked")
    new = _coq(copy.deepcopy(proofs_record), "kernel-checked")
    _step(new, "theorem9", "S2a")["coq"] = "rejected: In environment ... Unable to unify"
    d = diff.compare(old, new)
    assert [(c["step"], c["old_word"], c["new_word"]) for c in d.coq] == [("S2a", "kernel-checked", "rejected")]
    out = format_text(d, "HEAD", "working tree")
    assert "theorem9:S2a" in out and "after:  rejected: In environment ... Unable to unify" in out
    n = len(new["steps"])
    assert f"Coq statuses: HEAD: {n} kernel-checked; working tree: {n - 1} kernel-checked, 1 rejected" in out


def test_an_edited_step_without_a_recorded_tactic_is_not_checked_not_rejected(proofs_record):
    """A record built without a tactic search (rows without ``kernel_source``) says "rejected: no tactic ..." for
    an edited step whose statement has no recorded tactic: nothing was searched, so the diff shows it as not
    checked, with that reason, never as rejected; a record whose kernel ran (``kernel_source``) keeps its word."""
    from reports.diff import format_text

    old = _coq(copy.deepcopy(proofs_record), "not checked: run slth proofs --coq")
    new = _coq(copy.deepcopy(proofs_record), "not checked: run slth proofs --coq")
    _step(new, "theorem9", "S2a")["coq"] = "rejected: no tactic of the generated cascade proves it"
    d = diff.compare(old, new)
    (c,) = d.coq
    assert (c["step"], c["old_word"], c["new_word"], c["new"]) == ("S2a", "not checked", "not checked",
                                                                   diff.UNSEARCHED)
    out = format_text(d, "HEAD", "working tree")
    assert "-> rejected" not in out and "after:  rejected" not in out and "no tactic is recorded for the step's current statement" in out
    searched = _coq(copy.deepcopy(new), "kernel-checked", kernel_source="kernel-checked in this run")
    _step(searched, "theorem9", "S2a")["coq"] = "rejected: no tactic of the generated cascade proves it"
    (c,) = diff.compare(_coq(copy.deepcopy(old), "kernel-checked", kernel_source="x"), searched).coq
    assert c["new_word"] == "rejected"


def test_a_record_without_any_kernel_result_is_one_note_not_a_line_per_step(proofs_record):
    """HEAD's record built where Coq never ran (every step "not checked") against a working tree whose steps are
    kernel-checked: one note and the counts, no line per step; a step Coq rejects is still listed."""
    old = _coq(copy.deepcopy(proofs_record), "not checked: run slth proofs --coq")
    new = _coq(copy.deepcopy(proofs_record), "kernel-checked")
    _step(new, "lemma7", "L7b")["coq"] = "rejected: Error: lra failed"
    d = diff.compare(old, new)
    assert [(c["step"], c["new"]) for c in d.coq] == [("L7b", "rejected: Error: lra failed")]
    assert any("old record holds no Coq kernel result (not checked: run slth proofs --coq)" in n for n in d.notes)
    assert d.coq_counts["old"] == {"not checked": len(old["steps"])}


def test_the_working_trees_record_is_read_back_only_while_every_input_is_the_same(tmp_path, monkeypatch):
    """``slth diff --against`` stores the working tree's record under a key of everything it is built from
    (``reports.diff.worktree_key``): the same tree reads it back; a tracked edit, a new untracked file, a results file,
    a setting each build it again; ``SLTH_VERDICT_CACHE=off`` stores and reads none."""
    from reports import diff as diff_cmd

    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (("init", "-q"), ("config", "user.email", "t@t"), ("config", "user.name", "t")):
        subprocess.run(["git", *args], cwd=repo, check=True)
    (repo / "bounds.py").write_text("C = 4\n")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "one"], cwd=repo, check=True)
    results = repo / "results"
    (results / "records").mkdir(parents=True)
    monkeypatch.delenv("SLTH_VERDICT_CACHE", raising=False)
    monkeypatch.delenv("SLTH_EXAMPLE", raising=False)
    key = lambda: diff_cmd.worktree_key(repo, "proofs", 0, results)  # noqa: E731
    first = key()
    assert key() == first
    (results / "records" / "worktree-x.json").write_text("{}")  # the records themselves are no input
    assert key() == first
    changed = []
    (repo / "bounds.py").write_text("C = 4.5\n")
    changed.append(key())
    (repo / "bounds.py").write_text("C = 4\n")
    assert key() == first
    (repo / "new.py").write_text("x = 1\n")
    changed.append(key())
    (repo / "new.py").unlink()
    (results / "calibration.json").write_text("{}")
    changed.append(key())
    (results / "calibration.json").unlink()
    monkeypatch.setenv("SLTH_EXAMPLE", "1")
    changed.append(key())
    monkeypatch.delenv("SLTH_EXAMPLE")
    assert key() == first
    assert diff_cmd.worktree_key(repo, "quick", 0, results) != first
    assert len(set(changed) | {first}) == 5, "an input left the key unchanged"

    built = []
    monkeypatch.setattr(diff_cmd, "ROOT", repo)
    monkeypatch.setattr(diff_cmd, "_build_worktree", lambda *a: built.append(1) or {"built": len(built)})
    monkeypatch.setattr(diff_cmd.record, "load", lambda path: json.loads(Path(path).read_text()))
    monkeypatch.setattr(diff_cmd.record, "write", lambda path, rec: Path(path).write_text(json.dumps(rec)))
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    (results / "records" / f"{head}-proofs.json").write_text("{}")  # HEAD's record, cached by commit
    monkeypatch.setattr(diff_cmd.subprocess, "run", _allow_run_check(diff_cmd.subprocess.run))
    logs = []
    _, new = diff_cmd.against("HEAD", "proofs", results, 0, logs.append)
    _, again = diff_cmd.against("HEAD", "proofs", results, 0, logs.append)
    assert built == [1] and new == again == {"built": 1}
    assert any("read back from" in line for line in logs)
    monkeypatch.setenv("SLTH_VERDICT_CACHE", "off")
    diff_cmd.against("HEAD", "proofs", results, 0, logs.append)
    assert built == [1, 1]


def _allow_run_check(run):
    """``subprocess.run`` with ``git cat-file -e <sha>:reports/run.py`` answered yes (the toy repository has no
    ``slth run`` of its own)."""
    def patched(cmd, *args, **kwargs):
        if cmd[:3] == ["git", "cat-file", "-e"]:
            return subprocess.CompletedProcess(cmd, 0, b"", b"")
        return run(cmd, *args, **kwargs)
    return patched
