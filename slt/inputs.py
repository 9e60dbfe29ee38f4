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
import os
import stat
from pathlib import Path

__all__ = ["InputError", "MAX_DEPTH", "MAX_BYTES", "read_json", "read_bounded", "parse_json", "depth_problem",
           "numba_threads"]

MAX_DEPTH = 64
"""The deepest nesting of objects and lists a JSON file the harness reads may have."""
THREADS_ENV = "SLTH_NUMBA_THREADS"
"""The environment variable of the Numba threads per process (``slt.tasks``), checked by ``numba_threads``."""
MAX_BYTES = 256 * 2 ** 20
"""The largest file the harness reads, 256 MiB (its largest files, the run records and calibration files, hold well
under 10 MiB): ``/dev/zero`` or a stray disk image named as a record is refused once this much is read, never read
whole."""


def _size(n: int) -> str:
    return f"{n // 2 ** 20} MiB" if n >= 2 ** 20 and n % 2 ** 20 == 0 else f"{n:,} bytes"


def read_bounded(path, what: str = "file", limit: int | None = None) -> bytes:
    """The bytes stored at ``path``, at most ``limit`` (default ``MAX_BYTES``) of them, or ``InputError`` naming
    ``what``, the path and the limit (a larger regular file is refused before reading; a device or a pipe once it
    has given more). ``FileNotFoundError``, ``IsADirectoryError`` and other ``OSError`` pass through."""
    limit = MAX_BYTES if limit is None else limit
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise InputError(f"{what} {path}: {st.st_size:,} bytes, larger than the {_size(limit)} the harness "
                             "reads at most (not a file the harness wrote?)")
        chunks, total = [], 0
        while True:
            chunk = fh.read(min(2 ** 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputError(f"{what} {path}: more than the {_size(limit)} the harness reads at most (a "
                                 "device or an endless stream, not a file the harness wrote?)")
    return b"".join(chunks)


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


def numba_threads(environ=None) -> int | None:
    """``$SLTH_NUMBA_THREADS`` as a thread count (an integer >= 1), None when unset, else ``InputError`` naming
    the variable (checked by ``slth`` at start, like an option)."""
    text = (os.environ if environ is None else environ).get(THREADS_ENV)
    if text is None or text.strip() == "":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(f"${THREADS_ENV}={text!r}: expected the Numba threads per process, an integer >= 1 "
                         "(unset: cores / worker threads)")
    return value


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


def read_json(path, what: str = "file") -> object:
    """The JSON value stored at ``path`` (``what`` names the kind of file in messages), or ``InputError``."""
    p = Path(path)
    try:
        raw = read_bounded(p, what)
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
