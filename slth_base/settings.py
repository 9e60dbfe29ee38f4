"""Every environment variable the harness reads, parsed and checked in one place, like an option.

Each getter reads one variable and returns its value, or raises ``SettingError`` (an ``InputError``: one line naming
the variable, the value and what is allowed; ``slth`` prints it and exits 2). ``check_all()`` runs every getter; the
``slth`` command and each ``python -m`` entry point call it before any work, so a bad value is refused before a
module reads it. Numbers are finite and bounded above wherever a large value would exhaust the machine (threads,
processes) or overflow a timer (seconds). A folder variable may name a folder that does not exist yet (it is made
when needed) but never a file, a device or a path under a file. Nothing here imports anything but the standard
library: ``bounds/``, ``slt/`` and ``reports/`` all read their settings from here.
"""
from __future__ import annotations

import math
import os
import sys
from pathlib import Path

from .files import InputError

__all__ = ["SettingError", "SYMPY_SECONDS_ENV", "COQC_SECONDS_ENV", "COQ_JOBS_ENV", "THREADS_ENV", "OFF", "number",
           "integer", "folder", "sympy_seconds", "coqc_seconds", "coq_jobs", "numba_threads", "cache_home", "coq_dir",
           "coq_build", "verdict_cache", "trial_cache", "task_cache", "coqc_on_path", "check_all"]

PER_CORE = 4
"""The most threads or processes a setting may ask for per core of this machine (more only queue for the cores and
each costs memory: a coqc that loads CoqInterval holds about 0.6 GB)."""
MAX_SECONDS = 86400.0
"""A day per stage or per coqc at most: a longer limit is no limit (and overflows the interval timer behind it)."""

SYMPY_SECONDS_ENV = "SLTH_SYMPY_SECONDS"
DEFAULT_SYMPY_SECONDS = 60.0
COQC_SECONDS_ENV = "SLTH_COQC_SECONDS"
DEFAULT_COQC_SECONDS, MIN_COQC_SECONDS = 600.0, 1.0
COQ_JOBS_ENV = "SLTH_COQ_JOBS"
THREADS_ENV = "SLTH_NUMBA_THREADS"
OFF = ("off", "0", "no", "false")
"""The values that turn a store off (``SLTH_VERDICT_CACHE``, ``SLTH_TRIAL_CACHE``)."""


class SettingError(InputError):
    """An environment variable whose value is not a setting (one line naming it, the value and what is allowed)."""


def _env(environ):
    return os.environ if environ is None else environ


def _text(name, environ) -> str | None:
    text = _env(environ).get(name)
    return None if text is None or text.strip() == "" else text


def _cores() -> int:
    return os.cpu_count() or 1


def _refuse(name, text, expected) -> SettingError:
    return SettingError(f"${name}={text!r}: expected {expected}")


def number(name, what, lo, hi, default, environ=None, lo_open=True) -> float:
    """``$name`` as a finite number in ``(lo, hi]`` (``[lo, hi]`` when not ``lo_open``), ``default`` when unset."""
    text = _text(name, environ)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not (lo < value if lo_open else lo <= value) or value > hi:
        raise _refuse(name, text, f"{what}, a number in {'(' if lo_open else '['}{lo:g}, {hi:g}] (unset: {default:g})")
    return value


def integer(name, what, lo, hi, default, environ=None, why_hi: str = ""):
    """``$name`` as a whole number in ``[lo, hi]``, ``default`` (None allowed) when unset."""
    text = _text(name, environ)
    if text is None:
        return default
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        unset = "" if default is None else f"; unset: {default}"
        raise _refuse(name, text, f"{what}, a whole number from {lo} to {hi}{why_hi}{unset}")
    return value


def folder(name, what, environ=None, off: bool = False):
    """``$name`` as a folder (``Path``; None when unset; ``"off"`` for an off-word when ``off``): a folder, or a path
    not made yet under a folder, never a file, a device or a path under one."""
    text = _text(name, environ)
    if text is None:
        return None
    if off and text.strip().lower() in OFF:
        return "off"
    path = Path(text.strip()).expanduser()
    allowed = f"a folder for {what}" + (" or off" if off else "")
    for probe in (path, *path.parents):
        try:
            if probe.is_dir():
                break
            if probe.exists() or probe.is_symlink():
                where = "" if probe == path else f" ({probe} is not a folder)"
                raise _refuse(name, text, f"{allowed}, not a file or a device{where}")
        except OSError as exc:  # a name too long, a loop of links
            raise _refuse(name, text, f"{allowed} ({exc.strerror or exc})") from None
    return path


# --------------------------------------------------------------------------------------------------- the settings

def sympy_seconds(environ=None) -> float:
    """``$SLTH_SYMPY_SECONDS``: the CPU seconds after which a SymPy stage of the verifier is cut as "machine too slow"
    (default 60; a guard only: each stage's work budget, a count of calls, cuts it first)."""
    return number(SYMPY_SECONDS_ENV, "the seconds per SymPy stage", 0, MAX_SECONDS, DEFAULT_SYMPY_SECONDS,
                  environ)


def coqc_seconds(environ=None) -> float:
    """``$SLTH_COQC_SECONDS``: the time limit of one coqc call (default 600; at least 1 s: less cannot start coqc,
    and a limit that kills every coqc would read as a missing proof kernel)."""
    return number(COQC_SECONDS_ENV, "the seconds one coqc may run", MIN_COQC_SECONDS, MAX_SECONDS,
                  DEFAULT_COQC_SECONDS, environ, lo_open=False)


def coq_jobs(default: int | None = None, environ=None) -> int:
    """``$SLTH_COQ_JOBS``: how many coqc run at once (default two, or one on one core; at most ``PER_CORE`` per core
    and 64)."""
    default = max(1, min(2, _cores())) if default is None else default
    hi = min(64, PER_CORE * _cores())
    return integer(COQ_JOBS_ENV, "the coqc processes at once", 1, hi, default, environ,
                   f" ({PER_CORE} per core, {_cores()} cores; each coqc holds about 0.6 GB)")


def numba_threads(environ=None) -> int | None:
    """``$SLTH_NUMBA_THREADS``: the Numba threads per process (None when unset: cores / worker threads)."""
    return integer(THREADS_ENV, "the Numba threads per process", 1, PER_CORE * _cores(), None, environ,
                   f" ({PER_CORE} per core, {_cores()} cores)")


def cache_home(environ=None) -> Path:
    """``$XDG_CACHE_HOME``, else ``~/.cache``: the folder under which every store of the harness lives."""
    return folder("XDG_CACHE_HOME", "the user's caches", environ) or Path.home() / ".cache"


def coq_dir(environ=None) -> Path | None:
    """``$SLTH_COQ_DIR``: where ``slth proofs`` compiles the Coq files (None: under ``cache_home()``)."""
    return folder("SLTH_COQ_DIR", "the Coq files", environ)


def coq_build(environ=None) -> Path | None:
    """``$SLTH_COQ_BUILD``: where the files of a ``--coq DIR`` are compiled (None: under ``cache_home()``)."""
    return folder("SLTH_COQ_BUILD", "the Coq build folders", environ)


def verdict_cache(environ=None):
    """``$SLTH_VERDICT_CACHE``: the verdict store's folder, ``"off"``, or None (the default under ``cache_home()``)."""
    return folder("SLTH_VERDICT_CACHE", "the stored verdicts", environ, off=True)


def trial_cache(environ=None):
    """``$SLTH_TRIAL_CACHE``: the trial store's folder, ``"off"``, or None (unset: no trial store)."""
    return folder("SLTH_TRIAL_CACHE", "the stored trials", environ, off=True)


def task_cache(environ=None) -> Path | None:
    """``$SLTH_CACHE_DIR``: the task results' folder (None: ``results/tasks``)."""
    return folder("SLTH_CACHE_DIR", "the task results", environ)


def coqc_on_path(environ=None) -> None:
    """``$PATH`` must not find ``coqc`` in a relative folder (``.``, ``bin``, an empty entry): which coqc would run
    would depend on the folder each coqc is started in (the build folder), not on the one the user stood in."""
    text = _env(environ).get("PATH", os.defpath)
    for entry in text.split(os.pathsep):
        if os.path.isabs(entry):
            continue
        exe = os.path.join(entry or os.curdir, "coqc")
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            raise SettingError(f"$PATH holds the relative folder {entry!r} with a coqc in it: expected absolute "
                               "folders only (which coqc runs must not depend on the folder it is started in)")


def check_all(environ=None) -> None:
    """Every setting above, checked: the first bad one is ``SettingError`` (one line), before any work."""
    for getter in (sympy_seconds, coqc_seconds, coq_jobs, numba_threads, cache_home, coq_dir, coq_build, verdict_cache,
                   trial_cache, task_cache, coqc_on_path):
        getter(environ=environ)


def refused(prog: str) -> int | None:
    """For a ``python -m`` entry point, first thing in its ``main``: ``check_all()``; on a bad setting print one line
    (``prog: error: ...``) on standard error and return 2 (the exit status), else None."""
    try:
        check_all()
    except SettingError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    return None
