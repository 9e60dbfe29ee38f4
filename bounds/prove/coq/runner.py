"""coqc: found, probed and run (through ``bounds.prove.external``: its own process group, a time limit, at most
``jobs()`` at once, killed on Ctrl-C or SIGTERM), and its first error read from its output."""
from __future__ import annotations

import functools
import os
import re
import shutil
import threading
from pathlib import Path

from slth_base import settings

from .. import external

LOGICAL = "Slth"
NO_KERNEL = "no proof kernel: apt-get install coq libcoq-interval"
WORKERS = max(1, min(2, os.cpu_count() or 1))  # at most two coqc at once
JOBS_ENV = settings.COQ_JOBS_ENV
PROBE_SECONDS = 60.0
"""The time limit of ``coqc --version`` and ``coqc -where`` (a probe, not a compile: ``SLTH_COQC_SECONDS`` is not
its limit, so a short compile limit never reads as a missing proof kernel)."""


class CoqSetupError(ValueError):
    """A folder or an environment the Coq check cannot use (one line, said before any work)."""


CoqcFailure = external.Failure
"""coqc did not finish: timed out or killed (one line: never a verdict on a proof)."""


def coqc_seconds() -> float:
    """The time limit of one coqc call (``SLTH_COQC_SECONDS``, ``slth_base.settings.coqc_seconds``; ``CoqSetupError``
    for a value that is not a number of seconds in [1, 86400])."""
    try:
        return settings.coqc_seconds()
    except settings.SettingError as exc:
        raise CoqSetupError(str(exc)) from None


def jobs() -> int:
    """How many coqc run at once in this process (``SLTH_COQ_JOBS``, default ``WORKERS``: two; each coqc that loads
    CoqInterval holds about 0.6 GB, so 1 keeps a run under 1 GB); ``CoqSetupError`` for anything but a whole number
    from 1 to 4 per core (``slth_base.settings.coq_jobs``)."""
    try:
        return settings.coq_jobs(WORKERS)
    except settings.SettingError as exc:
        raise CoqSetupError(str(exc)) from None


GC = {"OCAMLRUNPARAM": "o=400"}
"""OCaml's collector for every coqc run that names none (unless ``OCAMLRUNPARAM`` is set: the user's choice): a lazier
major collection (``o=400``: space overhead 400 %, OCaml's default 120 %).  Most of a short compile is loading the
``.vo`` files of Coq's reals and CoqInterval, and the major collector marks that growing heap again and again:
``Mha.v`` took 2.1 s of CPU with the defaults and 1.5 s with ``o=400``, ``theorem14.v`` 11.0 s and 9.8 s, at up to
0.8 GB of peak memory instead of 0.56 GB."""

QUERY_GC = {"OCAMLRUNPARAM": "s=8M,o=200"}
"""OCaml's collector for the coqc runs of ``Print Assumptions`` (each walks CoqInterval's proofs): a 64 MB minor heap
and a lazier major collection spend about a third less CPU than OCaml's defaults (the one query of every theorem of
the mathematics files: 36 s instead of 44 s, and 57 s with ``o=40``), at about 1 GB of peak memory per coqc."""


def run_coqc(args: list, cwd, timeout: float | None = None, env: dict | None = None) -> tuple[int, str]:
    """(exit status, stdout + stderr decoded with replacement) of ``coqc *args``; ``CoqcFailure`` when it runs past
    ``timeout`` (default ``coqc_seconds()``) or is killed by a signal."""
    exe = coqc()
    if not exe:
        raise CoqcFailure(NO_KERNEL)
    limit = coqc_seconds() if timeout is None else timeout
    if any(str(a).endswith(".v") for a in args):
        with _RUNS_LOCK:
            RUNS[0] += 1
    gc = {} if "OCAMLRUNPARAM" in os.environ else GC
    return external.run("coqc", [exe, *args], cwd, limit, jobs(), {**gc, **(env or {})})


RUNS = [0]
"""coqc runs on a ``.v`` file in this process (a compile, the statement check, a query): a kernel verdict is "in this
run" only when one ran for it."""
_RUNS_LOCK = threading.Lock()


def coqc() -> str | None:
    return shutil.which("coqc")


@functools.cache
def coq_release() -> str:
    """``Coq 8.16.1`` (``coqc --print-version``), once per process; "" without coqc."""
    try:
        rc, out = run_coqc(["--print-version"], None, timeout=min(60.0, coqc_seconds())) if coqc() else (1, "")
    except CoqcFailure:
        rc, out = 1, ""
    words = out.split()
    return f"Coq {words[0]}" if rc == 0 and words else ""


def coqc_version() -> str:
    """The last line of ``coqc --version`` ("" when it prints nothing)."""
    if not coqc():
        return ""
    try:
        rc, out = run_coqc(["--version"], None, timeout=PROBE_SECONDS)
    except CoqcFailure:
        return ""
    return (out.strip().splitlines() or [""])[-1]


def missing_reason() -> str | None:
    """None when coqc and CoqInterval are usable, else one line saying what is missing."""
    if not coqc():
        return f"{NO_KERNEL} (coqc not found)"
    try:
        rc, where = run_coqc(["-where"], None, timeout=PROBE_SECONDS)
    except CoqcFailure as e:
        return f"{NO_KERNEL} (coqc -where: {e})"
    where = where.strip()
    if rc != 0 or not where:
        return f"{NO_KERNEL} (coqc -where printed nothing)"
    if not (Path(where) / "user-contrib" / "Interval").is_dir():
        return f"{NO_KERNEL} (CoqInterval not found under {where}/user-contrib)"
    return None


def first_error(out: str, source: str):
    """(line number, Coq's first error line) of a coqc failure."""
    m = re.search(r'line (\d+)', out)
    line = int(m.group(1)) if m else 0
    err = re.search(r"Error:\s*(.*?)(?:\n\n|\Z)", out, re.S)
    msg = " ".join(err.group(1).split()) if err else (out.strip().splitlines() or ["coqc failed"])[-1]
    return line, msg[:300]


def compile_file(path: Path, directory: Path) -> tuple[bool, str]:
    """(compiled, coqc's output) of one file in ``directory``; ``CoqcFailure`` when coqc times out or is killed."""
    rc, out = run_coqc(["-Q", directory, LOGICAL, path], directory)
    return rc == 0, out

