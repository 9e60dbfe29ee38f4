"""Output paths checked before any work starts.

Every command that writes files calls ``check_outputs`` on all of them first, so a report that would take minutes
to render never fails at the end because its ``-o`` names a directory or a folder nobody can write to. The check
is the real one: it creates (and removes) a temporary file next to where the output will go, so permissions and
read-only file systems are caught, also for root. A folder that does not exist is refused (a misspelt ``--output``
is never created silently), except under a default output's own folder; ``check_distinct`` refuses an output that
is a file the command reads.
"""
from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from slt.inputs import InputError

__all__ = ["OutputError", "output_problem", "check_outputs", "check_distinct", "same_file"]


MIN_FREE = 64 * 1024
"""Bytes that must be free where an output goes (less: the disk is full for any record, report or table)."""


class OutputError(InputError):
    """An output path that cannot be written (one line naming the path and the reason)."""


def output_problem(path, what: str = "output file", create: bool = False) -> str | None:
    """``None`` when ``path`` can be written as a file, else one line naming ``what``, the path and the reason. A
    folder that does not exist is a problem (a misspelt path is never created silently) unless ``create`` (a
    default output under the harness's own results folder). A symbolic link is judged by what it points at (the
    write goes through it); a terminal, ``/dev/null``, ``/dev/stdout`` or a pipe may be written into."""
    if str(path) == "":
        return f"{what}: empty path"
    p = Path(path)
    mode = os.stat(p).st_mode if os.path.exists(p) else 0
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):  # a terminal, /dev/null, a pipe (through any links): never replaced
        return None if os.access(p, os.W_OK) else f"{what} {path} is not writable"
    if p.is_symlink():
        try:
            os.stat(p)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return f"{what} {p}: a loop of symbolic links"
        p = Path(os.path.realpath(p))
    if p.is_dir():
        return f"{what} {path} is a directory (give a file name)"
    if p.exists() and not p.is_file():  # a device or a pipe returned above: a socket, say
        return f"{what} {path} is not a regular file"
    ancestor = p.parent if str(p.parent) else Path(".")
    if not create and not ancestor.exists():
        if ancestor.is_symlink():
            return f"{what} {path}: {ancestor} is a broken link"
        first = ancestor
        while not first.parent.exists() and first.parent != first:
            first = first.parent
        return (f"{what} {path}: the folder {ancestor} does not exist (create it first; "
                f"{'it' if first == ancestor else first} is not made for you)")
    while not ancestor.exists():
        if ancestor.is_symlink():  # a dangling link: its target folder does not exist
            return f"{what} {path}: {ancestor} is a broken link"
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{what} {path}: {ancestor} is not a directory"
    try:
        fd, probe = tempfile.mkstemp(dir=ancestor, prefix=".slth-write-check-")
    except OSError as exc:
        return f"{what} {path}: cannot write in {ancestor} ({exc.strerror or type(exc).__name__})"
    os.close(fd)
    os.unlink(probe)
    free = shutil.disk_usage(ancestor).free
    if free < MIN_FREE:  # a full disk: found now, not when the output is written after the work
        return f"{what} {path}: no space left in {ancestor} ({free} bytes free)"
    if p.exists() and not os.access(p, os.W_OK):
        return f"{what} {path} is not writable"
    return None


def check_outputs(*named, create=()) -> None:
    """``check_outputs(("-o", path), ("--record", other), ...)``: ``OutputError`` for the first path that cannot be
    written (paths that are None are skipped); the names in ``create`` (default outputs) may have their folders
    made."""
    for what, path in named:
        if path is None:
            continue
        problem = output_problem(path, what, create=what in create)
        if problem:
            raise OutputError(problem)


def announce(path, line: str) -> None:
    """Print ``line`` (what was written to ``path``) on stdout, or on stderr when ``path`` is this process's standard
    output (``-o /dev/stdout``), so that the page is all that stdout holds."""
    try:
        a, b = os.stat(path), os.fstat(1)
        to_stdout = (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
    except (OSError, ValueError):
        to_stdout = False
    print(line, file=sys.stderr if to_stdout else sys.stdout)


def same_file(a, b) -> bool:
    """Whether paths ``a`` and ``b`` name one file (resolved: ``x.json``, ``./d/../x.json``, a link to it, a hard
    link)."""
    if os.path.realpath(Path(a).absolute()) == os.path.realpath(Path(b).absolute()):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_distinct(reads=(), writes=()) -> None:
    """``OutputError`` when a written path is a file this command reads (``slth report --from R.json -o R.json``
    would replace the record with its own page) or another of its outputs; ``reads`` and ``writes`` are
    ``(what, path)`` pairs, None paths skipped."""
    reads = [(w, p) for w, p in reads if p is not None]
    writes = [(w, p) for w, p in writes if p is not None]
    for i, (what, path) in enumerate(writes):
        for other, source in reads:
            if same_file(path, source):
                raise OutputError(f"{what} {path} is the file {other} {source} this command reads; writing it would "
                                  f"replace what it reads: give another {what}")
        for other, target in writes[i + 1:]:
            if same_file(path, target):
                raise OutputError(f"{what} {path} and {other} {target} are the same file; give two different files")
