"""Output paths checked before any work starts.

Every command that writes files calls ``check_outputs`` on all of them first, so a report that would take minutes
to render never fails at the end because its ``-o`` names a directory or a folder nobody can write to. The check
is the real one: it creates (and removes) a temporary file next to where the output will go, so permissions,
read-only file systems and missing parents that cannot be created are all caught, also for root.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from slt.inputs import InputError

__all__ = ["OutputError", "output_problem", "check_outputs"]


MIN_FREE = 64 * 1024
"""Bytes that must be free where an output goes (less: the disk is full for any record, report or table)."""


class OutputError(InputError):
    """An output path that cannot be written (one line naming the path and the reason)."""


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def output_problem(path, what: str = "output file") -> str | None:
    """``None`` when ``path`` can be written as a file (its missing parent folders can be created), else one line
    naming ``what``, the path and the reason."""
    p = Path(path)
    if str(path) == "":
        return f"{what}: empty path"
    if p.is_dir():
        return f"{what} {p} is a directory (give a file name)"
    if p.exists() and not p.is_file():
        return f"{what} {p} is not a regular file"
    ancestor = p.parent if str(p.parent) else Path(".")
    while not ancestor.exists():
        if ancestor.is_symlink():  # a dangling link: its target folder does not exist
            return f"{what} {p}: {ancestor} is a broken link"
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{what} {p}: {ancestor} is not a directory"
    try:
        fd, probe = tempfile.mkstemp(dir=ancestor, prefix=".slth-write-check-")
    except OSError as exc:
        return f"{what} {p}: cannot write in {ancestor} ({_reason(exc)})"
    os.close(fd)
    os.unlink(probe)
    free = shutil.disk_usage(ancestor).free
    if free < MIN_FREE:  # a full disk: found now, not when the output is written after the work
        return f"{what} {p}: no space left in {ancestor} ({free} bytes free)"
    if p.exists() and not os.access(p, os.W_OK):
        return f"{what} {p} is not writable"
    return None


def check_outputs(*named) -> None:
    """``check_outputs(("-o", path), ("--record", other), ...)``: ``OutputError`` for the first path that cannot be
    written (paths that are None are skipped)."""
    for what, path in named:
        if path is None:
            continue
        problem = output_problem(path, what)
        if problem:
            raise OutputError(problem)
