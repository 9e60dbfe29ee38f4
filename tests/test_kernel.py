"""The kernel is the judge of record (``bounds.prove.kernel``): a step is certified only when the first pass pre-checks it
and Coq's kernel accepts its exported statement; without coqc every pre-checked step is not proved; refutations
stay refutations; the run record carries the kernel's verdict and where it comes from."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import bounds
from bounds.prove import kernel
from bounds.prove.verify import StepResult
from reports.cli import main
from reports.record import verified

NO_KERNEL_LINE = "not proved (no proof kernel: apt-get install coq libcoq-interval"


def _results(*names):
    return [r for n in names for r in bounds.verify(n)]


@pytest.fixture
def no_coqc(monkeypatch, tmp_path):
    """A PATH on which no coqc is found (the Debian packages not installed)."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert kernel.missing() is not None


def test_the_cache_folder_is_outside_the_repository_and_can_be_chosen(monkeypatch, tmp_path):
    monkeypatch.delenv("SLTH_COQ_DIR", raising=False)
    assert kernel.ROOT not in kernel.folder().parents
    monkeypatch.setenv("SLTH_COQ_DIR", str(tmp_path / "coq"))
    assert kernel.folder() == tmp_path / "coq"


@pytest.fixture
def no_committed_result(monkeypatch):
    """No committed kernel result for this tree (as after an edit of ``bounds/``): `slth proofs` replays."""
    from reports.record import verified

    monkeypatch.setattr(verified, "_committed", lambda *a, **k: None)


def test_without_coqc_every_step_is_not_proved_and_slth_proofs_exits_1(no_coqc, no_committed_result, capsys):
    """Where the kernel must be replayed (no committed result for this tree) and no coqc is installed."""
    results = _results("lemma7")
    assert all(r.ok for r in results)  # the first pass pre-checks every step
    judged = kernel.verdicts(results)
    assert [j.verdict for j in judged] == ["not proved"] * len(results)
    assert all(j.pre == kernel.PRECHECKED and j.detail.startswith(NO_KERNEL_LINE) for j in judged)
    assert main(["proofs", "--statement", "lemma7"]) == 1
    captured = capsys.readouterr()
    assert f"{len(results)} steps of the encoded proofs and 0 scalar facts): 0 certified, 0 refuted, " \
           f"{len(results)} not proved" in captured.out
    assert f"{len(results)} pre-checked" in captured.out and "no proof kernel" in captured.out
    assert NO_KERNEL_LINE in captured.err


def test_a_step_coq_rejects_is_not_certified_though_pre_checked(monkeypatch, capsys, no_committed_result):
    results = _results("lemma7")
    rejected = (results[1].statement, results[1].step)
    status = {(r.statement, r.step): "kernel-checked" for r in results}
    status[rejected] = "rejected: Error: Unable to prove the goal"
    monkeypatch.setattr(kernel, "replay", lambda res, *a, **k: (dict(status), kernel.REPLAYED))
    judged = {(j.statement, j.step): j for j in kernel.verdicts(results)}
    assert judged[rejected].pre == kernel.PRECHECKED and judged[rejected].verdict == "not proved"
    assert "Coq rejected it" in judged[rejected].detail
    assert all(j.verdict == "certified" for k, j in judged.items() if k != rejected)
    assert main(["proofs", "--statement", "lemma7"]) == 1
    out = capsys.readouterr()
    assert f"{rejected[0]}:{rejected[1]}: not proved (Coq rejected it" in out.out
    assert f"NOT PROVED: 1 step(s) not proved: {rejected[0]}:{rejected[1]}" in out.err


def test_a_refutation_stays_a_refutation_without_any_kernel():
    bad = StepResult("lemma7", "L7x", "sampled", False, "lhs > rhs", {}, {"eps": 0.5}, "sampled")
    [j] = kernel.judge([bad], {}, f"{kernel.NO_KERNEL} (coqc not found)")
    assert j.verdict == "refuted" and j.pre == "refuted" and j.counterexample == {"eps": 0.5}
    [j] = kernel.judge([bad], {("lemma7", "L7x"): "kernel-checked"}, kernel.REPLAYED)  # never certified
    assert j.verdict == "refuted" and not j.ok


def test_the_record_carries_the_kernel_verdict_and_its_source(monkeypatch):
    from reports.record import assemble

    results = bounds.verify_facts()
    rejected = (results[0].statement, results[0].step)
    monkeypatch.setattr(bounds, "proved", lambda catalogue=None: [])
    monkeypatch.setattr(verified, "kernel", lambda res, log=None: (
        {**{(r.statement, r.step): "kernel-checked" for r in res}, rejected: "rejected: Error: no"}, kernel.REPLAYED))
    rows = {(s["statement"], s["step"]): s for s in assemble.proofs()}
    assert rows[rejected]["verdict"] == "not proved" and not rows[rejected]["ok"]
    assert rows[rejected]["first_pass"] == "pre-checked" and rows[rejected]["coq"].startswith("rejected")
    assert all(s["verdict"] == "certified" and s["kernel_source"] == kernel.REPLAYED
               for k, s in rows.items() if k != rejected)


def test_without_coqc_the_record_reads_the_committed_result_only_for_this_exact_bounds(no_coqc, tmp_path):
    from slt.cache import write_record

    results = bounds.verify_facts()
    rows = {f"{r.statement}\t{r.step}": "kernel-checked" for r in results}
    write_record(tmp_path / "verified-kernel.json", {"part": "kernel", "key": verified.kernel_key(), "result": rows,
                                                     "coq": "Coq 8.16.1", "checked": "checked at 2026-01-02T03:04:05Z"})
    status, source = verified.kernel(results, committed=tmp_path)
    assert source == kernel.COMMITTED + ": Coq 8.16.1, checked at 2026-01-02T03:04:05Z"
    assert kernel.COMMITTED == "kernel result committed for this exact bounds/ and exporter"
    assert all(j.verdict == "certified" for j in kernel.judge(results, status, source))
    # a result made for another bounds/ (or other tactics) is never read: every step is then not proved
    write_record(tmp_path / "verified-kernel.json", {"part": "kernel", "key": "another tree", "result": rows})
    status, source = verified.kernel(results, committed=tmp_path)
    assert status == {} and source.startswith(kernel.NO_KERNEL)
    assert all(j.verdict == "not proved" and j.detail.startswith(NO_KERNEL_LINE)
               for j in kernel.judge(results, status, source))


def test_with_coqc_the_committed_result_for_this_tree_is_used_and_anything_else_is_replayed(monkeypatch, tmp_path):
    """A record (slth run / slth report) replays only what changed: the committed kernel result of this exact
    bounds/ and tactics is used, labelled with the Coq that made it; another tree's result, or one that lacks a step
    the first pass pre-checks, sends the steps to Coq."""
    from slt.cache import write_record

    results = bounds.verify_facts()
    replayed = []
    monkeypatch.setattr(kernel, "missing", lambda: None)
    monkeypatch.setattr(kernel, "replay", lambda res, *a, **k: (
        replayed.append(len(res)) or {(r.statement, r.step): "kernel-checked" for r in res}, kernel.REPLAYED))
    rows = {f"{r.statement}\t{r.step}": "kernel-checked" for r in results}
    coq = "Coq 8.16.1"
    write_record(tmp_path / "verified-kernel.json", {"part": "kernel", "key": verified.kernel_key(), "coq": coq,
                                                     "checked": "checked at 2026-01-02T03:04:05Z", "result": rows})
    status, source = verified.kernel(results, committed=tmp_path)
    assert replayed == [] and source == f"{kernel.COMMITTED}: Coq 8.16.1, checked at 2026-01-02T03:04:05Z"
    assert all(j.verdict == "certified" and j.source == source for j in kernel.judge(results, status, source))
    for changed in ({"key": "another tree", "result": rows},
                    {"key": verified.kernel_key(), "result": dict(list(rows.items())[1:])}):  # a step missing
        write_record(tmp_path / "verified-kernel.json", {"part": "kernel", "coq": coq, **changed})
        replayed.clear()
        status, source = verified.kernel(results, committed=tmp_path)
        assert replayed == [len(results)] and source == kernel.REPLAYED, changed


def test_the_kernel_key_changes_with_what_coq_is_given(monkeypatch):
    """A catalogue changed in memory (a step dropped, a tactic lost) is another key, as an edit of bounds/ is."""
    from bounds.prove.coq import check

    key = verified.kernel_key()
    with monkeypatch.context() as m:
        m.setattr(check, "load_tactics", lambda path=check.TACTICS: {})
        assert verified.kernel_key() != key
    from bounds import catalogue

    proved = catalogue.proved
    monkeypatch.setattr(catalogue, "proved", lambda *a: [n for n in proved(*a) if n != "lemma7"])
    assert verified.kernel_key() != key


def test_lemma12s_check_in_coq_is_the_committed_one_only_for_these_files(monkeypatch, tmp_path):
    from bounds.prove import coq_math, coq_text
    from slt.cache import write_record

    fresh = {"proof": "rejected", "error": "e", "gap_line": True, "with_hypothesis": "accepted", "refuted": True,
             "theorem": ["p"]}
    runs = []
    monkeypatch.setattr(coq_math, "lemma12_logit_run", lambda: (runs.append(1) or dict(fresh), None))
    stored = {**fresh, "error": "committed"}
    write_record(tmp_path / "verified-lemma12.json", {"part": "lemma12", "key": verified.lemma12_key(),
                                                      "coq": "Coq 8.16.1", "checked": "checked at 2026-01-02T03:04:05Z",
                                                      "result": stored})
    got = verified.lemma12(committed=tmp_path)
    assert runs == [] and got == {**stored, "source": f"{kernel.COMMITTED}: Coq 8.16.1, checked at 2026-01-02T03:04:05Z"}
    monkeypatch.setattr(coq_text, "statements_file", lambda catalogue=None: "(* another Statements.v *)")
    assert verified.lemma12(committed=tmp_path) == {**fresh, "source": kernel.REPLAYED} and runs == [1]


def test_lemma12s_check_compiles_in_the_build_folder_under_its_lock_and_is_read_back(monkeypatch, tmp_path):
    """A fresh check of Lemma 12's step compiles in ``build_folder()`` (incremental: after an edit of ``bounds/`` only
    the changed files are compiled again), holding the folder's lock for the compile and the check; its answer is
    stored and read back for the same files; a rejected file leaves it undecided."""
    from contextlib import contextmanager

    from bounds.prove import coq_math, coq_text

    monkeypatch.setattr(coq_math, "missing_reason", lambda: None)
    monkeypatch.setattr(coq_math, "coqc_version", lambda: "8.16.1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "build" / "math"
    monkeypatch.setattr(coq_math, "build_folder", lambda: folder.mkdir(parents=True, exist_ok=True) or folder)
    holding, seen = [], []

    @contextmanager
    def lock(path):
        holding.append(Path(path))
        yield
        holding.remove(Path(path))
    monkeypatch.setattr(coq_math, "build_lock", lock)
    monkeypatch.setattr(coq_math, "compile", lambda d, files: seen.append(("compile", Path(d), list(holding)))
                        or (True, ""))
    answer = {"proof": "rejected", "error": "e", "gap_line": True, "with_hypothesis": "accepted", "refuted": True,
              "theorem": ["p"]}
    monkeypatch.setattr(coq_math, "printed_logit_check", lambda d: seen.append(("check", Path(d), list(holding)))
                        or dict(answer))
    assert coq_math.lemma12_logit_run() == (answer, None)
    assert seen == [("compile", folder, [folder]), ("check", folder, [folder])] and holding == []
    again, cached = coq_math.lemma12_logit_run()
    assert again == answer and cached["coq"] == "8.16.1" and len(seen) == 2  # read back: nothing compiled
    monkeypatch.setattr(coq_text, "with_statements", lambda: {"Statements": "(* another text *)"})
    monkeypatch.setattr(coq_math, "compile", lambda d, files: (False, "Statements.v line 1: an error"))
    assert coq_math.lemma12_logit_run() == ({"undecided": "rejected: Statements.v line 1: an error"}, None)
    assert coq_math.lemma12_logit_run()[0] == {"undecided": "rejected: Statements.v line 1: an error"}  # read back


def test_the_committed_lemma12_result_says_when_coqc_gave_its_answer(monkeypatch, tmp_path):
    """``write_lemma12`` stamps the committed result with when coqc answered: now for a fresh check, the stored
    check's time for an answer read back, never now for an old answer."""
    from bounds.prove import coq_math
    from slt.cache import read_record

    answer = {"proof": "rejected", "error": "e", "gap_line": True, "with_hypothesis": "accepted", "refuted": True,
              "theorem": ["p"]}
    monkeypatch.setattr(coq_math, "lemma12_logit_run",
                        lambda: (dict(answer), {"coq": "8.16.1", "checked": "2026-01-02T03:04:05Z"}))
    verified.write_lemma12(tmp_path, log=lambda m: None)
    rec = read_record(tmp_path / "verified-lemma12.json")
    assert rec["checked"] == "checked at 2026-01-02T03:04:05Z" and rec["result"] == answer
    monkeypatch.setattr(coq_math, "lemma12_logit_run", lambda: (dict(answer), None))
    monkeypatch.setattr(verified.judge, "now", lambda: "2026-11-29T00:00:00Z")
    verified.write_lemma12(tmp_path, log=lambda m: None)
    assert read_record(tmp_path / "verified-lemma12.json")["checked"] == "checked at 2026-11-29T00:00:00Z"


def test_the_report_names_where_the_kernel_verdict_comes_from(proofs_record):
    from reports.sections import proofs as section
    from slt import claims

    html = section.render(proofs_record).html
    source = claims.kernel_source(proofs_record)
    assert source == kernel.REPLAYED or source.startswith((kernel.COMMITTED, kernel.STORED, kernel.NO_KERNEL))
    assert source in html and source in claims.step_sentence(proofs_record)


def test_the_glossary_uses_the_kernels_words():
    from reports.sections import glossary

    assert (glossary.PRECHECKED, glossary.REPLAYED, glossary.STORED, glossary.COMMITTED) == (
        kernel.PRECHECKED, kernel.REPLAYED, kernel.STORED, kernel.COMMITTED)


def test_slth_diff_reads_the_kernels_verdict_and_says_why(proofs_record):
    import copy

    from reports.diff import format_text
    from slt import diff

    new = copy.deepcopy(proofs_record)
    step = next(s for s in new["steps"] if s["statement"] == "lemma7")
    step.update(ok=False, verdict="not proved", coq="rejected: Error: Unable to prove the goal",
                first_pass="pre-checked")
    d = diff.compare(proofs_record, new)
    assert [(f["statement"], f["step"], f["new"]) for f in d.newly_failing] == [("lemma7", step["step"], "not proved")]
    text = format_text(d, "old", "new")
    # a changed status with a reason prints both sides on lines of their own, the reason (Coq's error) shown
    assert (f"  lemma7:{step['step']}\n    before: kernel-checked\n"
            f"    after:  rejected: Error: Unable to prove the goal\n") in text + "\n", text
    assert d.exit_status == 1


def test_the_committed_kernel_result_is_written_for_this_tree(monkeypatch, tmp_path):
    from slt.cache import read_record

    monkeypatch.setattr(kernel, "missing", lambda: None)
    monkeypatch.setattr(bounds, "proved", lambda catalogue=None: ["lemma7"])
    monkeypatch.setattr(kernel, "replay", lambda res, *a, **k: (
        {(r.statement, r.step): "kernel-checked" for r in res}, kernel.REPLAYED))
    verified.write_kernel(tmp_path, log=lambda m: None)
    rec = read_record(tmp_path / "verified-kernel.json")
    assert rec["key"] == verified.kernel_key() and rec["result"]["lemma7\tL7a"] == "kernel-checked"
    assert "facts\texp(x)-1 <= 2x on [0,1]" in rec["result"]
    # each step's lemma digest (its reuse after an edit) and tactic (tried first after an edit), as kernel makes them
    assert rec["lemmas"] == kernel.committed_lemmas({tuple(k.split("\t", 1)): v for k, v in rec["result"].items()})
    assert rec["lemmas"]["lemma7\tL7a"] and rec["tactics"]["lemma7\tL7a"] == kernel.committed_tactics()["lemma7\tL7a"]


def test_a_record_whose_steps_have_different_kernel_sources_names_each_with_its_count():
    """After an edit the replayed steps say "kernel-checked in this run" and the others the committed label: the
    record's source line (report, proof map) names both, with how many steps each, never one for all."""
    from slt import claims

    committed = kernel.committed_source("Coq 8.16.1", "checked at 2026-01-02T03:04:05Z")
    record = {"steps": [{"kernel_source": committed}] * 3 + [{"kernel_source": kernel.REPLAYED}]}
    assert claims.kernel_source(record) == f"{committed} for 3 steps; {kernel.REPLAYED} for 1 step"
    assert claims.kernel_source({"steps": [{"kernel_source": committed}] * 2}) == committed
