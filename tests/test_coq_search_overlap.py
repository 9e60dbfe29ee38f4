"""The search after an edit overlaps its two kinds of work: SymPy writes the cascades in this process while coqc
compiles Common, and the search's coqc (whose libraries import Common) waits for Common; where Common does not
compile, no search coqc runs and nothing is found."""
from __future__ import annotations

import threading
from pathlib import Path

from bounds.prove.coq import check, export, search
from tests.coq_shared import without_interval
from tests.test_coq import needs_coq  # skips without Coq, fails under CI=true


def test_the_cascades_are_written_while_common_compiles(tmp_path, monkeypatch):
    """Lemma2's L2c without a tactic: Common's coqc starts only once the search has begun writing L2c's cascade (it
    waits for that, up to 20 s: run one after the other, the cascade would come after Common and the wait would run
    out), and the lemma is still searched, compiled from the proof its search kept and kernel-checked."""
    needs_coq()
    monkeypatch.setenv("SLTH_COQ_BUILD", str(tmp_path / "build"))
    ents = without_interval(check.entries(), ("Common", "lemma2"))
    lem = next(l for _, t, l in ents["lemma2"] if t == "L2c")
    tactics = {k: v for k, v in check.load_tactics().items() if k != lem.key}
    writing, waited = threading.Event(), []
    real_candidates, real_compile = export.Lemma.candidates, check.compile_file

    def candidates(self):
        writing.set()
        return real_candidates.fget(self)

    def compile_file(path, build):
        if Path(path).stem == "Common":
            waited.append(writing.wait(20))
        return real_compile(path, build)
    monkeypatch.setattr(export.Lemma, "candidates", property(candidates))
    monkeypatch.setattr(check, "compile_file", compile_file)
    st = check.check(tmp_path / "out", tactics=tactics, ents=ents)
    assert waited == [True], waited
    assert st[("lemma2", "L2c")] == check.KERNEL and st[None].get(lem.key), st


def test_no_search_coqc_runs_where_common_did_not_compile(tmp_path, monkeypatch):
    """A batch kept as a library runs its coqc only once ``ready()`` says Common compiled; where it did not, the batch
    runs nothing and reports no winner (the lemma then has no tactic, as when every candidate fails)."""
    ran = []
    monkeypatch.setattr(search, "run_coqc", lambda *a, **k: ran.append(a) or (0, "SLTH-WIN k 0"))
    assert search._Round._run("Found_x", ["x.v"], tmp_path, 1, ready=lambda: False) == (None, "")
    assert ran == []
    assert search._Round._run("Found_x", ["x.v"], tmp_path, 1, ready=lambda: True) == ("Found_x", "SLTH-WIN k 0")
    assert len(ran) == 1
