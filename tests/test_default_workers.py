"""``python -m pytest`` (``python -m pytest checks`` as typed) uses both cores by default: the root conftest gives
xdist's ``-n auto`` unless the command chose (``-n``, ``-p no:xdist``) or the run cannot use workers."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numba  # at collection: the root conftest's fixture finds Numba imported before this module's first test

import conftest

ROOT = Path(__file__).resolve().parents[1]


def _option(**kw):
    return SimpleNamespace(**{"numprocesses": None, "collectonly": False, "usepdb": False, "trace": False,
                              "capture": "fd", **kw})


def test_workers_are_added_only_when_the_command_did_not_choose():
    assert conftest.default_workers(_option(), env={}) == "auto"
    assert conftest.default_workers(_option(numprocesses=0), env={}) is None  # -n 0
    assert conftest.default_workers(_option(numprocesses=2), env={}) is None  # -n 2
    assert conftest.default_workers(SimpleNamespace(), env={}) is None  # -p no:xdist: no -n option at all
    for kw in ({"collectonly": True}, {"usepdb": True}, {"trace": True}, {"capture": "no"}):
        assert conftest.default_workers(_option(**kw), env={}) is None, kw
    assert conftest.default_workers(_option(), env={"PYTEST_CURRENT_TEST": "t.py::t (call)"}) is None
    assert conftest.default_workers(_option(), env={"PYTEST_XDIST_WORKER": "gw0"}) is None


def _run(tmp_path, *flags):
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_one.py").write_text("import os\n\ndef test_one():\n"
                                          "    print('worker', os.environ.get('PYTEST_XDIST_WORKER', 'none'))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER")}
    env["PYTEST_XDIST_AUTO_NUM_WORKERS"] = "2"
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *flags, str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_pytest_as_typed_runs_on_two_workers_and_no_xdist_still_works(tmp_path):
    out = _run(tmp_path)
    assert "created: 2/2 workers" in out and "worker gw" in out, out
    for flags, scheduler in (((), "WorkStealingScheduling"), (("-n", "2"), "WorkStealingScheduling"),
                             (("-n", "2", "--dist", "load"), "LoadScheduling")):
        out = _run(tmp_path, "-v", *flags)
        assert f"scheduling tests via {scheduler}" in out, (flags, out)
    for flags in (("-p", "no:xdist"), ("-n", "0")):
        out = _run(tmp_path, *flags)
        assert "workers" not in out and "worker none" in out and "1 passed" in out, (flags, out)


def test_a_worker_gets_its_share_of_the_cores_as_numba_threads():
    before = numba.get_num_threads()
    cores = len(os.sched_getaffinity(0))
    try:
        conftest._share_numba_threads(2)
        assert numba.get_num_threads() == max(1, min(numba.config.NUMBA_NUM_THREADS, cores // 2))
        conftest._share_numba_threads(10 * cores)
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)


def test_the_session_and_the_processes_it_starts_keep_freed_memory():
    """The root conftest's allocator settings reach this process's environment, so every process a test starts (an
    xdist worker, a command) reads them at its start; glibc accepts each (mallopt returns 1)."""
    import ctypes
    import ctypes.util

    for name, value in conftest.MALLOC.items():
        assert int(os.environ[name]) > 0, name
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    assert {name for _, name in conftest.MALLOPT} == set(conftest.MALLOC)
    for option, name in conftest.MALLOPT:
        assert libc.mallopt(option, int(os.environ[name])) == 1, name


def test_this_run_gives_numba_the_share_of_the_cores_of_its_process():
    """In an xdist worker, Numba runs on cores // workers threads (the root conftest's fixture, which ran before this
    test, Numba being imported); in one process, on all of them."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 0) if os.environ.get("PYTEST_XDIST_WORKER") else 0
    cores = len(os.sched_getaffinity(0))
    share = max(1, min(numba.config.NUMBA_NUM_THREADS, cores // workers)) if workers else numba.config.NUMBA_NUM_THREADS
    assert numba.get_num_threads() == share, (workers, cores)
