"""Bad input, named in one line: the exception every reader and check of the harness raises for it, and the one
reader of the JSON files the harness reads (committed calibration and measurement files, run records, task-cache
entries, files a user names).

``InputError`` is a ``ValueError`` whose message is one line naming the file or argument and the problem; the
``slth`` command prints it and exits 2 (``reports.cli``). ``read_json(path, what)`` returns the parsed value or
raises ``InputError`` for a missing file, a folder, an empty file, bytes that are not UTF-8, text that is not JSON
(a truncated file), and JSON nested deeper than ``MAX_DEPTH`` (no file of the harness nests more than about ten
levels; a file nested 100,000 deep would otherwise exhaust Python's recursion in the parser or in every walk
over it). Shape and sense are each file's own validator's (``slt.measure.calibration.problem``,
``reports.record.schema.validate``, ...), run on what this returns.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["InputError", "MAX_DEPTH", "read_json", "parse_json", "depth_problem"]

MAX_DEPTH = 64
"""The deepest nesting of objects and lists a JSON file the harness reads may have."""


class InputError(ValueError):
    """Bad input (a file or an argument): one line naming it and the problem; exit status 2 on the command line."""


def depth_problem(value, limit: int = MAX_DEPTH) -> str | None:
    """None when ``value`` nests at most ``limit`` levels of lists and objects, else why (iterative: no
    recursion to exhaust)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            if depth > limit:
                return f"nested more than {limit} levels deep"
            stack.extend((c, depth + 1) for c in (v.values() if isinstance(v, dict) else v))
    return None


def parse_json(text: str, where: str) -> object:
    """``text`` parsed as JSON (NaN and infinities are left to each validator), or ``InputError`` naming ``where``."""
    if not text.strip():
        raise InputError(f"{where}: empty file (not JSON)")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}; a truncated "
                         "or edited file?)") from None
    except RecursionError:
        raise InputError(f"{where}: not a usable JSON file (nested more than {MAX_DEPTH} levels deep)") from None
    deep = depth_problem(value)
    if deep:
        raise InputError(f"{where}: not a usable JSON file ({deep})")
    return value


def read_json(path, what: str = "file") -> object:
    """The JSON value stored at ``path`` (``what`` names the kind of file in messages), or ``InputError``."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{what} {path}: a directory, not a file") from None
    except OSError as exc:
        raise InputError(f"{what} {path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} {path}: not JSON (not UTF-8 text: {exc.reason} at byte {exc.start})") from None
    return parse_json(text, f"{what} {path}")
