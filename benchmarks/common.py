"""What every benchmark script shares, so that each is a command like ``slth``'s: its parser (a usage error is one
line and exit status 2, found before any work; nothing is written without ``--write``), the argument types of
``slth``, ``cpu()`` and ``machine()`` (the load, cores and commit stored beside each figure), ``write`` (atomic,
after the work succeeded) and ``run`` (settings checked first, a bad file or setting one line, Ctrl-C exit 130).
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from reports.cli import INTERRUPTED, Parser, checked, count, positive_int  # noqa: E402
from slth_base.files import InputError, replace_file, write_atomic  # noqa: E402
from slth_base.settings import check_all  # noqa: E402

__all__ = ["ROOT", "parser", "positive_int", "count", "bounded", "cpu", "timed", "now", "machine", "fresh_clone",
           "write", "add_profiles", "run"]


def cpu(*who: int) -> float:
    """User + system CPU seconds so far of ``who`` (``resource.RUSAGE_*``; default: the finished child processes)."""
    return sum(r.ru_utime + r.ru_stime for r in map(resource.getrusage, who or (resource.RUSAGE_CHILDREN,)))


def timed(fn, *who: int):
    """``(fn(), wall seconds, CPU seconds of who)`` (``who`` as for ``cpu``)."""
    c, w = cpu(*who), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - w, cpu(*who) - c


def now() -> str:
    """The time in UTC, to the second (``YYYY-MM-DDTHH:MM:SSZ``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def bounded(most: int):
    """An argument type: a whole number from 1 to ``most`` (more would only exhaust the machine)."""
    return checked(positive_int, lambda v: v <= most, f"is more than the {most} this benchmark allows")


def parser(prog: str, description: str, output: Path | None = None) -> Parser:
    """The benchmark's parser (one-line usage errors, exit 2); with ``output``, a ``--write`` flag storing the
    figures there (nothing is written without it)."""
    p = Parser(prog=prog, description=description)
    if output is not None:
        where = output.relative_to(ROOT) if output.is_relative_to(ROOT) else output
        p.add_argument("--write", action="store_true", help=f"store the figures in {where} (else only printed)")
    return p


def _git(*args) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine() -> dict:
    """The machine as a figure is taken: its load average (1, 5 and 15 minutes), its cores, the commit of this
    checkout (``+changes`` when tracked files differ from it) and the time."""
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    if commit != "unknown" and _git("status", "--porcelain", "--untracked-files=no"):
        commit += "+changes"
    return {"load": [round(x, 2) for x in os.getloadavg()], "cores": os.cpu_count(), "commit": commit, "created": now()}


def fresh_clone(dest: Path) -> str:
    """A clone of this repository's HEAD at ``dest`` (what a new user gets: committed files only); its short commit."""
    subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], check=True)
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=dest, capture_output=True, text=True,
                          check=True).stdout.strip()


def write(path, data) -> None:
    """``data`` as JSON at ``path``, atomically: a file of the repository is replaced (never written through a link
    planted at its name); elsewhere the output the user named (``write_atomic``)."""
    path = Path(path)
    text = json.dumps(data, indent=1) + "\n"
    if os.path.realpath(path.parent).startswith(str(ROOT) + os.sep):
        replace_file(path, text, within=ROOT)
    else:
        write_atomic(path, text)
    print(f"wrote {path}", flush=True)


def add_profiles(path: Path, profiles: dict) -> None:
    """``profiles`` written into the ``profiles`` of the benchmark file at ``path`` (made when missing), the others
    kept."""
    from slt.inputs import read_json

    data = read_json(path, "benchmark file") if path.exists() else {"profiles": {}}
    data["profiles"].update(profiles)
    write(path, data)


def run(main, prog: str, argv=None) -> int:
    """``main(argv)`` as a command: settings first, a bad one or a bad file one line (exit 2), Ctrl-C 130."""
    try:
        check_all()
        return int(main(argv) or 0)
    except InputError as exc:  # a SettingError too
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; nothing was written", file=sys.stderr)
        return INTERRUPTED
