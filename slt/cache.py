"""Atomic files and validated JSON records: the storage under every cache of the project.

- ``write_atomic`` (``slth_base.files``): a temporary file in the same folder and a rename, so readers (and a resumed
  run after an interruption) never see half a file; ``save_npz``/``load_npz`` the same for NumPy arrays.
- ``fingerprint(*parts)``: THE fingerprint scheme of every cache (task results, trained targets, the report's
  empirical cache): the SHA-256 of the canonical JSON of ``parts`` (sorted keys, no NaN; ``bytes`` enter as
  their own SHA-256), truncated to 24 hex digits. ``slt.tasks`` re-exports it.
- ``write_record``/``read_record``: one JSON object per file holding ``result`` and a ``checksum`` (the
  fingerprint of ``result``); ``read_record`` returns the object or raises ``CorruptRecord`` naming the file and
  the problem (garbage bytes, not an object, a missing field, a checksum that does not match), so a cache can
  recompute the entry instead of using it or crashing.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
from slth_base.files import replace_file, write_atomic
from slt.inputs import InputError, parse_json, read_bounded

__all__ = ["write_atomic", "save_npz", "load_npz", "fingerprint", "canonical", "CorruptRecord", "write_record",
           "read_record", "nonfinite_path"]

FINGERPRINT_DIGITS = 24


LOCKS = Path(tempfile.gettempdir()) / "slth-locks"
"""Where ``writing`` keeps its lock files (one per output, named by the hash of its resolved path), so that no lock
file is left next to a committed file."""


def lock_key(path) -> str:
    """The name of ``path``'s lock: the hash of its resolved path (every spelling of one file, ``out/x.json``,
    ``out/../out/x.json`` or a link to it, shares one lock)."""
    return hashlib.sha256(os.path.realpath(Path(path).absolute()).encode("utf-8")).hexdigest()[:24]


@contextlib.contextmanager
def writing(*paths, what: str = "output"):
    """Hold an exclusive lock on every path of ``paths`` (None skipped) for the block, or raise ``InputError`` at
    once naming the path another process (an overlapping ``slth calibrate -o F``, say) is writing: two writers of
    one file would each read it, add their results and replace it, and the second would drop the first's. Locks are
    keyed on the resolved path; a path given twice (or two spellings of one file) is locked once."""
    from filelock import FileLock, Timeout

    try:
        LOCKS.mkdir(parents=True, exist_ok=True)
        if not LOCKS.is_dir():
            raise FileExistsError(errno.EEXIST, "File exists")
    except OSError as exc:
        reason = "a file, not a folder" if isinstance(exc, FileExistsError) else (exc.strerror or str(exc))
        raise InputError(f"the lock folder {LOCKS} cannot be used ({reason}); remove it or set TMPDIR to "
                         "another folder") from None
    locks: dict = {}
    for p in paths:
        if p is not None:
            locks.setdefault(lock_key(p), p)
    with contextlib.ExitStack() as stack:
        for key, p in locks.items():
            lock = FileLock(str(LOCKS / f"{key}.lock"), timeout=0)
            try:
                stack.enter_context(lock)
            except Timeout:
                raise InputError(f"{what} {p}: another slth command is writing it now; wait for it to finish, or "
                                 "write elsewhere") from None
            except OSError as exc:
                raise InputError(f"the lock of {what} {p} cannot be made in {LOCKS} ({exc.strerror or exc}); set "
                                 "TMPDIR to another folder") from None
        yield


def save_npz(path, **arrays) -> None:
    """``numpy.savez`` written atomically."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    write_atomic(path, buf.getvalue())


def load_npz(path) -> dict:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _plain(value):
    """``value`` with bytes replaced by their SHA-256, tuples by lists and NumPy scalars by Python numbers."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"sha256": hashlib.sha256(bytes(value)).hexdigest()}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "item") and not isinstance(value, (str, int, float, bool)):  # NumPy scalar
        return value.item()
    return value


def canonical(value) -> str:
    """The canonical JSON text of ``value`` (sorted keys, compact, no NaN): equal values, equal text."""
    try:
        return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot fingerprint a value that is not JSON without NaN: {exc}") from None


def fingerprint(*parts) -> str:
    """The fingerprint of ``parts`` (JSON-able values or bytes): 24 hex digits of the SHA-256 of their canonical JSON."""
    return hashlib.sha256(canonical(list(parts)).encode("utf-8")).hexdigest()[:FINGERPRINT_DIGITS]


class CorruptRecord(InputError):
    """A cache file that cannot be used (the message names the file and the problem)."""


def nonfinite_path(value, where="result", bad=lambda x: not math.isfinite(x)):
    """The path of the first float inside ``value`` that is ``bad`` (by default: NaN or infinite), or None."""
    if isinstance(value, float) and bad(value):
        return where
    if isinstance(value, dict):
        children = ((f"{where}.{k}" if where else str(k), v) for k, v in value.items())
    elif isinstance(value, list):
        children = ((f"{where}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    return next((found for at, v in children if (found := nonfinite_path(v, at, bad))), None)


def _checksum(result) -> str:
    """The fingerprint of a record's result (a result holding NaN or infinity: of its JSON text)."""
    return (fingerprint(result) if nonfinite_path(result) is None
            else fingerprint(json.dumps(result, sort_keys=True, allow_nan=True)))


def write_record(path, record: dict) -> None:
    """Write ``record`` (a dict with a JSON-able ``result``) atomically, with the checksum of its result."""
    if "result" not in record:
        raise ValueError("a record needs a 'result'")
    body = dict(record, checksum=_checksum(record["result"]))
    replace_file(path, json.dumps(body, sort_keys=True, allow_nan=True))  # a store's entry: never through a link


def read_record(path) -> dict:
    """The record stored at ``path``; ``FileNotFoundError`` when there is none, ``CorruptRecord`` when it is unusable."""
    path = Path(path)
    try:  # read_bounded refuses a FIFO or a link planted in a store, and a file larger than any cache file
        record = parse_json(read_bounded(path, "cache file", regular=True).decode("utf-8"), str(path))
    except UnicodeDecodeError as exc:
        raise CorruptRecord(f"{path}: not JSON ({exc})") from None
    except InputError as exc:  # too large, not JSON, truncated, empty, nested too deep
        raise CorruptRecord(str(exc)) from None
    if not isinstance(record, dict):
        raise CorruptRecord(f"{path}: a record must be a JSON object, found {type(record).__name__}")
    for field in ("result", "checksum"):
        if field not in record:
            raise CorruptRecord(f"{path}: missing field {field!r}")
    if record["checksum"] != _checksum(record["result"]):
        raise CorruptRecord(f"{path}: checksum mismatch (the result was changed after it was written)")
    return record

