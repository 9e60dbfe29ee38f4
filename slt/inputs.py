"""Bad input, named in one line: the exception every reader and check of the harness raises for it, and the one
reader of the JSON files the harness reads (committed calibration and measurement files, run records, task-cache
entries, files a user names).

``InputError`` (defined in ``slth_base.files``, with the bounded reader ``read_bounded``) is a ``ValueError`` whose message is one line naming the file or argument and the problem; the
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

from slth_base.files import MAX_BYTES, InputError, read_bounded
from slth_base.settings import THREADS_ENV, numba_threads

__all__ = ["InputError", "MAX_DEPTH", "MAX_BYTES", "read_json", "read_bounded", "parse_json", "depth_problem",
           "numba_threads"]

MAX_DEPTH = 64
"""The deepest nesting of objects and lists a JSON file the harness reads may have."""


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


MAX_INT = 2 ** 63 - 1
"""The largest integer (in absolute value) a JSON file the harness reads may hold."""


class _TooLarge(Exception):
    pass


def _integer(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > 19 or abs(int(text)) > MAX_INT:
        raise _TooLarge(f"{text[:12]}... ({len(digits)} digits)" if len(digits) > 19 else text)
    return int(text)


def parse_json(text: str, where: str) -> object:
    """``text`` parsed as JSON (NaN and infinities are left to each validator), or ``InputError`` naming ``where``."""
    if not text.strip():
        raise InputError(f"{where}: empty file (not JSON)")
    try:
        value = json.loads(text, parse_int=_integer)
    except _TooLarge as exc:
        raise InputError(f"{where}: not a usable JSON file (the integer {exc} is larger than any count, seed or "
                         f"size the harness writes: at most 2^63 - 1)") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}; a truncated "
                         "or edited file?)") from None
    except RecursionError:
        raise InputError(f"{where}: not a usable JSON file (nested more than {MAX_DEPTH} levels deep)") from None
    deep = depth_problem(value)
    if deep:
        raise InputError(f"{where}: not a usable JSON file ({deep})")
    return value


def read_json(path, what: str = "file", error: type[InputError] = InputError) -> object:
    """The JSON value stored at ``path`` (``what`` names the kind of file in messages), or ``error`` (a subclass of
    ``InputError``: the reader's own kind of bad input) with the same one-line message."""
    try:
        return _read_json(path, what)
    except InputError as exc:
        if isinstance(exc, error):
            raise
        raise error(str(exc)) from None


def _read_json(path, what: str) -> object:
    p = Path(path)
    try:
        raw = read_bounded(p, what, MAX_BYTES)
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
