"""slt.tasks: one task model (cache, validation on read, resume, dask.distributed execution)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from slt.cache import read_record
from slt.tasks import CacheWarning, Task, execute, fingerprint, task_path
from tests._task_fns import CALLS_ENV, calls, square

ROOT = Path(__file__).resolve().parents[1]


def _tasks(n=4, x=1.5):
    return [Task("test:square", "tests._task_fns:square", {"x": x}, seed) for seed in range(n)]


@pytest.fixture
def counter(tmp_path, monkeypatch):
    path = tmp_path / "calls.txt"
    monkeypatch.setenv(CALLS_ENV, str(path))
    return path


def test_fingerprint_is_canonical_and_sensitive():
    assert fingerprint({"a": 1, "b": [1, 2]}) == fingerprint({"b": (1, 2), "a": 1})
    assert fingerprint({"a": 1}) != fingerprint({"a": 2})
    assert fingerprint(b"abc") != fingerprint(b"abd")
    assert len(fingerprint("x")) == 24
    with pytest.raises(ValueError, match="NaN"):
        fingerprint(float("nan"))


def test_task_fingerprint_covers_kind_params_seed_and_code():
    a = Task("k", "tests._task_fns:square", {"x": 1.0}, 0)
    assert a.fingerprint() == Task("k", "tests._task_fns:square", {"x": 1.0}, 0).fingerprint()
    assert a.fingerprint() != Task("k", "tests._task_fns:square", {"x": 2.0}, 0).fingerprint()
    assert a.fingerprint() != Task("k", "tests._task_fns:square", {"x": 1.0}, 1).fingerprint()
    assert a.fingerprint() != Task("k2", "tests._task_fns:square", {"x": 1.0}, 0).fingerprint()
    assert a.fingerprint() != Task("k", "tests._task_fns:square", {"x": 1.0}, 0, deps=("slt.fit",)).fingerprint()


def test_a_task_takes_the_function_itself_and_stores_its_name():
    a = Task("k", square, {"x": 1.0}, 0)
    assert a.fn == "tests._task_fns:square" and a.function() is square
    assert a.fingerprint() == Task("k", "tests._task_fns:square", {"x": 1.0}, 0).fingerprint()

    def nested(seed, x):
        return {"y": x}

    for fn in (nested, lambda seed, x: {"y": x}):  # a worker could not import it by name
        with pytest.raises(ValueError, match="package.module:function"):
            Task("k", fn, {"x": 1.0}, 0)


def test_bad_tasks_are_refused():
    with pytest.raises(ValueError, match="package.module:function"):
        Task("k", "no_colon", {}, 0)
    with pytest.raises(ValueError, match="seed"):
        Task("k", "m:f", {}, "0")
    with pytest.raises(ValueError, match="no function"):
        execute([Task("k", "tests._task_fns:nosuch", {}, 0)], cache_dir=False, workers=0, progress=False)


def test_synchronous_results_in_order_cached_and_never_recomputed(tmp_path, counter):
    tasks = _tasks(4)
    first = execute(tasks + tasks[:1], cache_dir=tmp_path, workers=0, progress=False)
    assert [r["value"] for r in first] == [2.25, 3.25, 4.25, 5.25, 2.25]
    assert calls(counter) == 4  # the duplicate ran once
    again = execute(list(reversed(tasks)), cache_dir=tmp_path, workers=0, progress=False)
    assert [r["value"] for r in again] == [5.25, 4.25, 3.25, 2.25]
    assert calls(counter) == 4
    record = read_record(task_path(tmp_path, tasks[0]))
    assert record["params"] == {"x": 1.5} and record["seed"] == 0 and record["seconds"] >= 0


@pytest.mark.parametrize("terminal", [True, False])
def test_the_progress_bar_is_shown_on_a_terminal_only(tmp_path, counter, monkeypatch, terminal):
    """Progress on standard error when it is a terminal; nothing written there when it is a file or a pipe (a log,
    CI), and nothing with ``progress=False`` on a terminal either."""
    import io

    class Stream(io.StringIO):
        def isatty(self):
            return terminal

    err = Stream()
    monkeypatch.setattr(sys, "stderr", err)
    execute(_tasks(2), cache_dir=tmp_path, workers=0, progress=True, desc="squares")
    assert ("squares" in err.getvalue()) == terminal, err.getvalue()
    quiet = Stream()
    monkeypatch.setattr(sys, "stderr", quiet)
    execute(_tasks(2, x=2.5), cache_dir=tmp_path, workers=0, progress=False, desc="squares")
    assert quiet.getvalue() == ""


CORRUPTIONS = {
    "garbage bytes": lambda p, rec: p.write_bytes(b"\x00\xff not json"),
    "not an object": lambda p, rec: p.write_text("[1, 2, 3]"),
    "missing result": lambda p, rec: p.write_text(json.dumps({k: v for k, v in rec.items() if k != "result"})),
    "checksum mismatch": lambda p, rec: p.write_text(json.dumps({**rec, "result": {**rec["result"], "value": 99.0}})),
    "NaN result": lambda p, rec: _rewrite(p, rec, value=float("nan")),
    "string for a number": lambda p, rec: _rewrite(p, rec, value="2.25"),
    "another task": lambda p, rec: _rewrite_record(p, rec, seed=7),
}


def _rewrite(path, rec, **fields):
    """A record re-written with a VALID checksum (a deliberate tamper, not a torn write)."""
    from slt.cache import write_record

    write_record(path, {k: v for k, v in rec.items() if k != "checksum"} | {"result": {**rec["result"], **fields}})


def _rewrite_record(path, rec, **fields):
    from slt.cache import write_record

    write_record(path, {k: v for k, v in rec.items() if k != "checksum"} | fields)


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
def test_a_corrupt_record_is_recomputed_with_a_warning(tmp_path, counter, how):
    task = _tasks(1)[0]
    execute([task], cache_dir=tmp_path, workers=0, progress=False)
    path = task_path(tmp_path, task)
    CORRUPTIONS[how](path, json.loads(path.read_text()))
    with pytest.warns(CacheWarning, match=str(path.name)):
        [result] = execute([task], cache_dir=tmp_path, workers=0, progress=False)
    assert result["value"] == 2.25 and calls(counter) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # repaired: the next read uses it silently
        execute([task], cache_dir=tmp_path, workers=0, progress=False)
    assert calls(counter) == 2


def test_an_invalid_fresh_result_is_an_error_not_a_cache_entry(tmp_path):
    bad = Task("test:bad", "tests._task_fns:square", {"x": 1e200}, 0)  # x * x overflows to inf
    with pytest.raises(ValueError, match="not a finite number"):
        execute([bad], cache_dir=tmp_path, workers=0, progress=False)
    assert not task_path(tmp_path, bad).exists()


def test_local_cluster_runs_tasks_with_one_numba_thread_per_worker(tmp_path):
    tasks = [Task("test:threads", "tests._task_fns:threads", {}, s) for s in range(4)]
    out = execute(tasks, cache_dir=tmp_path, workers=2, progress=False)
    assert {r["numba_threads"] for r in out} == {max(1, (os.cpu_count() or 1) // 2)}
    assert len({r["pid"] for r in out} - {os.getpid()}) >= 1  # ran in worker processes


def test_a_failing_task_raises_and_keeps_the_others(tmp_path, counter):
    tasks = _tasks(2) + [Task("test:boom", "tests._task_fns:boom", {}, 0)]
    with pytest.raises(RuntimeError, match="failed on purpose"):
        execute(tasks, cache_dir=tmp_path, workers=0, progress=False)
    assert task_path(tmp_path, tasks[0]).exists()
