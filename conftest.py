"""Hypothesis profiles of `pytest checks` and `pytest tests` (markers are registered in pyproject.toml).

Profiles: ``ci`` (derandomised, bounded example counts; the default) and ``thorough`` (hours allowed).
Select with the environment variable ``SLTH_PROFILE=thorough`` or ``pytest --slth-profile thorough``.

Parallel runs (``python -m pytest -n auto``, pytest-xdist): the ``ci`` profile keeps no example database
(derandomised: nothing to replay, nothing shared); the ``thorough`` profile keeps one database per xdist worker
(``.hypothesis/examples-<worker>``), so workers never write one directory at once. Every test session gets its own
task cache (``SLTH_CACHE_DIR`` under the session's temporary folder, one per xdist worker) unless the variable is set,
so no test writes into ``results/`` and parallel workers never share a cache folder.

Both cores by default: ``python -m pytest`` (``python -m pytest checks`` as typed) runs on pytest-xdist's ``-n auto``
workers unless the command names ``-n`` itself (``-n 0``: one process), disables xdist (``-p no:xdist``), only
collects, debugs (``--pdb``, ``--trace``, ``-s``), or runs inside another pytest's test (``PYTEST_CURRENT_TEST``: a
test that starts pytest keeps the one process it asked for). ``default_workers`` decides it. Workers take the tests
by xdist's ``worksteal`` unless ``--dist`` is given: each starts with its share of the collection, in order (a
module's tests, and its module-scoped fixtures, mostly on one worker), and a worker that runs out takes half of
another's remaining tests, so the run's tail is at most one test long. Each worker gets its share of the cores
as Numba threads (cores // workers, at least one).

Tiers: tests marked ``slow`` are deselected from a run unless it asks for them (``-m`` naming ``slow`` or
``thorough``, or the ``thorough`` profile). The ``slow`` tests not also marked ``thorough`` are the CI's slow tier
(``python -m pytest -n auto -m "slow and not thorough"``, a separate step of ``.ci/run``): each asserts what a cheaper
test of the default run asserts too, at more points or through a longer path, and says which test that is. The
``slow`` tests also marked ``thorough`` (minutes each: the whole Coq cascade, the full bisections, long inputs on the
CPU) run in the ``thorough`` profile or when selected with ``-m slow``.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile

# One BLAS thread, set before numpy loads: scipy's L-BFGS-B (every adversarial search) calls BLAS on tiny vectors,
# and a multithreaded OpenBLAS spent about 12 ms per call waking its threads on the shared 2-core machine (a
# Theorem 10 trial: 1.56 s with the default threads, 0.32 s with one, at load average ~14).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# glibc's allocator keeps freed memory instead of handing it back at once: the trials allocate and free arrays of a
# few MiB thousands of times, and each fresh page is a fault (Theorem 9's families check: 12 s of its 77 s in the
# kernel with glibc's defaults, 0.6 s with these). For this process (mallopt) and every process it starts (the
# variables, read by glibc at a process's start: the xdist workers, the commands the tests run).
MALLOC = {"MALLOC_TRIM_THRESHOLD_": 256 << 20, "MALLOC_TOP_PAD_": 64 << 20, "MALLOC_MMAP_THRESHOLD_": 32 << 20}
MALLOPT = ((-1, "MALLOC_TRIM_THRESHOLD_"), (-2, "MALLOC_TOP_PAD_"), (-3, "MALLOC_MMAP_THRESHOLD_"))
"""glibc's ``mallopt`` option of each variable (M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD)."""
for _name, _value in MALLOC.items():
    os.environ.setdefault(_name, str(_value))


def _keep_freed_memory() -> None:
    """``mallopt`` of ``MALLOC`` in this process (glibc only; elsewhere nothing)."""
    import ctypes
    import ctypes.util

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        for option, name in MALLOPT:
            libc.mallopt(option, int(os.environ[name]))
    except (OSError, AttributeError, ValueError):  # not glibc, or a value the user set that is not a number
        pass


_keep_freed_memory()

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis.database import DirectoryBasedExampleDatabase  # noqa: E402

_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")

_BOTH = dict(deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", derandomize=True, database=None, max_examples=25, **_BOTH)
settings.register_profile("thorough", max_examples=2000,
                          database=DirectoryBasedExampleDatabase(f".hypothesis/examples-{_WORKER}"), **_BOTH)


def default_workers(option, env=os.environ):
    """``"auto"`` when a run given ``option`` (pytest's parsed options) should get xdist's workers by default, else
    None (the command chose, or the run cannot use workers: see the module's docstring)."""
    chosen = (getattr(option, "numprocesses", 0) is not None  # -n given (0 included), or xdist not loaded
              or "PYTEST_CURRENT_TEST" in env or "PYTEST_XDIST_WORKER" in env
              or any(getattr(option, flag, False) for flag in ("collectonly", "usepdb", "trace"))
              or getattr(option, "capture", "fd") == "no")
    return None if chosen else "auto"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Both cores by default (``default_workers``); runs before xdist's own hook, which resolves ``auto`` (xdist's
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` is honoured)."""
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        workers = default_workers(config.option)
        if workers is not None:
            config.option.numprocesses = workers
        if config.option.numprocesses and config.option.dist == "no":  # workers, and no --dist chosen
            config.option.dist = "worksteal"


def wants_slow(config) -> bool:
    """Whether this run keeps its ``slow`` tests (see the module's docstring)."""
    chosen = config.getoption("-m") or ""
    return config.getoption("--slth-profile", "ci") == "thorough" or "slow" in chosen or "thorough" in chosen


def pytest_collection_modifyitems(config, items):
    """The ``slow`` tests leave a run that does not ask for them (``wants_slow``): deselected, counted in the
    summary with how to run them."""
    if wants_slow(config):
        return
    slow = [item for item in items if "slow" in item.keywords]
    if slow:
        items[:] = [item for item in items if "slow" not in item.keywords]
        config.hook.pytest_deselected(items=slow)
        config._slth_slow = len(slow)


def pytest_terminal_summary(terminalreporter, config):
    if getattr(config, "_slth_slow", 0):
        terminalreporter.write_line(
            f"{config._slth_slow} slow test(s) deselected: CI's slow tier runs with -m \"slow and not thorough\", "
            "all of them with -m slow (or --slth-profile thorough)")


def pytest_addoption(parser):
    parser.addoption(
        "--slth-profile",
        default=os.environ.get("SLTH_PROFILE", "ci"),
        choices=["ci", "thorough"],
        help="hypothesis profile of the checks (default: $SLTH_PROFILE or ci)",
    )


def pytest_configure(config):
    settings.load_profile(config.getoption("--slth-profile"))
    if hasattr(config, "workerinput"):  # an xdist worker: the cores shared out, Numba's threads with them
        _NUMBA_WORKERS[0] = int(config.workerinput.get("workercount") or 1)
    # Verdicts stored on disk (bounds.prove.verdict_cache): the checks read and write them (checks/conftest.py: the folder
    # given here, else the user's cache folder), the unit tests never (tests/conftest.py); every other part of the
    # session (fixtures, the commands tests start) runs with the store off.
    given = os.environ.get("SLTH_VERDICT_CACHE_GIVEN")  # what the pytest that started this worker (xdist) was given
    if given is None:
        given = os.environ.get("SLTH_VERDICT_CACHE", "")
        os.environ["SLTH_VERDICT_CACHE_GIVEN"] = config._slth_given = given
    config._slth_verdicts = given or None
    os.environ["SLTH_VERDICT_CACHE"] = "off"
    if not os.environ.get("SLTH_CACHE_DIR"):
        os.environ["SLTH_CACHE_DIR"] = config._slth_cache = tempfile.mkdtemp(prefix=f"slth-tasks-{_WORKER}-")


_NUMBA_WORKERS = [0]
"""The number of xdist workers of this run when this process is one of them (else 0)."""


@pytest.fixture(autouse=True)
def _numba_threads_shared():
    """In an xdist worker, once Numba is imported (by a test module or a trial; a run that reads every trial back
    never imports it, and importing it here would cost every worker its start-up), its threads set by
    ``_share_numba_threads``."""
    if _NUMBA_WORKERS[0] and "numba" in sys.modules:
        _share_numba_threads(_NUMBA_WORKERS[0])
        _NUMBA_WORKERS[0] = 0
    yield


def _share_numba_threads(workers: int) -> None:
    """Numba's threads in this worker: cores // workers, at least one (the subset-sum solver's parallel kernel).
    Two workers of two threads each on two cores spin in each other's way: a Lemma 2 families check run beside
    Theorem 9's took 54 s of CPU with two threads, 43 s with one."""
    import numba

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    numba.set_num_threads(max(1, min(numba.config.NUMBA_NUM_THREADS, cores // max(1, workers))))


def pytest_unconfigure(config):
    if hasattr(config, "_slth_verdicts"):
        if config._slth_verdicts is None:
            os.environ.pop("SLTH_VERDICT_CACHE", None)
        else:
            os.environ["SLTH_VERDICT_CACHE"] = config._slth_verdicts
    if hasattr(config, "_slth_given"):
        os.environ.pop("SLTH_VERDICT_CACHE_GIVEN", None)
    made = getattr(config, "_slth_cache", None)
    if made:
        shutil.rmtree(made, ignore_errors=True)
        os.environ.pop("SLTH_CACHE_DIR", None)
