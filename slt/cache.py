"""Atomic files and validated JSON records: the storage under every cache of the project.

- ``write_atomic``: a temporary file in the same folder and a rename, so readers (and a resumed run after an
  interruption) never see half a file; ``save_npz``/``load_npz`` the same for NumPy arrays.
- ``fingerprint(*parts)``: THE fingerprint scheme of every cache (task results, trained targets, the report's
  empirical cache): the SHA-256 of the canonical JSON of ``parts`` (sorted keys, no NaN; ``bytes`` enter as
  their own SHA-256), truncated to 24 hex digits. ``slt.tasks`` re-exports it.
- ``write_record``/``read_record``: one JSON object per file holding ``result`` and a ``checksum`` (the
  fingerprint of ``result``); ``read_record`` returns the object or raises ``CorruptRecord`` naming the file and
  the problem (garbage bytes, not an object, a missing field, a checksum that does not match), so a cache can
  recompute the entry instead of using it or crashing.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic", "save_npz", "load_npz", "fingerprint", "canonical", "CorruptRecord", "write_record",
           "read_record", "nonfinite_path", "ResultCache", "Progress", "run"]

FINGERPRINT_DIGITS = 24


def write_atomic(path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename (readers never see half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; the result gets an ordinary file's permissions
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_npz(path, **arrays) -> None:
    """``numpy.savez`` written atomically."""
    import numpy as np

    buf = io.BytesIO()
    np.savez(buf, **arrays)
    write_atomic(path, buf.getvalue())


def load_npz(path) -> dict:
    import numpy as np

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


class CorruptRecord(ValueError):
    """A cache file that cannot be used (the message names the file and the problem)."""


def nonfinite_path(value, where="result"):
    """The path of the first NaN or infinite number inside ``value``, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return where
    if isinstance(value, dict):
        for k, v in value.items():
            found = nonfinite_path(v, f"{where}.{k}")
            if found:
                return found
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = nonfinite_path(v, f"{where}[{i}]")
            if found:
                return found
    return None


def write_record(path, record: dict) -> None:
    """Write ``record`` (a dict with a JSON-able ``result``) atomically, with the checksum of its result."""
    if "result" not in record:
        raise ValueError("a record needs a 'result'")
    body = dict(record, checksum=fingerprint(record["result"]) if nonfinite_path(record["result"]) is None
                else fingerprint(json.dumps(record["result"], sort_keys=True, allow_nan=True)))
    write_atomic(path, json.dumps(body, sort_keys=True, allow_nan=True))


def read_record(path) -> dict:
    """The record stored at ``path``; ``FileNotFoundError`` when there is none, ``CorruptRecord`` when it is unusable."""
    path = Path(path)
    raw = path.read_bytes()
    try:
        record = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptRecord(f"{path}: not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise CorruptRecord(f"{path}: a record must be a JSON object, found {type(record).__name__}")
    for field in ("result", "checksum"):
        if field not in record:
            raise CorruptRecord(f"{path}: missing field {field!r}")
    result = record["result"]
    expected = (fingerprint(result) if nonfinite_path(result) is None
                else fingerprint(json.dumps(result, sort_keys=True, allow_nan=True)))
    if record["checksum"] != expected:
        raise CorruptRecord(f"{path}: checksum mismatch (the result was changed after it was written)")
    return record


# --- legacy sweep cache (slt.sweeps until it moves onto slt.tasks) ---
import sys, time, hashlib
from typing import Callable, Iterable

def _canonical(config: dict) -> str:
    if not isinstance(config, dict):
        raise ValueError(f"a configuration must be a dict, got {type(config).__name__}")
    try:
        return json.dumps(config, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"configuration is not JSON-serialisable without NaN: {exc}") from None


class ResultCache:
    """Per (configuration, seed) JSON results under ``root/<name>/``."""

    def __init__(self, root, name: str = "results"):
        self.dir = Path(root) / name

    def path(self, config: dict, seed: int) -> Path:
        digest = hashlib.sha256(_canonical(config).encode()).hexdigest()[:20]
        return self.dir / f"{digest}-s{int(seed)}.json"

    def get(self, config: dict, seed: int):
        """The stored result, or None when the item has not been computed (or its file is not this item's)."""
        path = self.path(config, seed)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        if record.get("config") != json.loads(_canonical(config)) or record.get("seed") != int(seed):
            return None
        return record["result"]

    def put(self, config: dict, seed: int, result) -> None:
        record = {"config": config, "seed": int(seed), "result": result}
        write_atomic(self.path(config, seed), json.dumps(record, sort_keys=True, allow_nan=True))


class Progress:
    """A one-line progress bar on ``stream`` (stderr by default): done/total, rate and ETA, redrawn at most every ``every`` s."""

    def __init__(self, total: int, label: str = "", stream=None, every: float = 0.5, width: int = 24):
        self.total, self.label, self.every, self.width = int(total), label, every, width
        self.stream = sys.stderr if stream is None else stream
        self.done = self.skipped = 0
        self.start = self.last = time.perf_counter()
        self._draw(self.start)

    def update(self, k: int = 1, skipped: bool = False) -> None:
        self.done += k
        self.skipped += k if skipped else 0
        now = time.perf_counter()
        if now - self.last >= self.every or self.done >= self.total:
            self.last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = now - self.start
        fresh = self.done - self.skipped
        rate = fresh / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        filled = int(self.width * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (self.width - filled)
        cached = f", {self.skipped} cached" if self.skipped else ""
        eta_text = "--" if eta != eta else f"{eta:5.0f}s"
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total}{cached} {elapsed:5.0f}s elapsed, ETA {eta_text}")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()

    def close(self) -> None:
        if self.done < self.total:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()


def run(
    cache: ResultCache,
    items: Iterable[tuple[dict, int]],
    compute: Callable[[dict, int], object],
    label: str = "",
    stream=None,
) -> list:
    """Results of ``compute(config, seed)`` for every item, computing (and storing at once) only the missing ones."""
    items = list(items)
    progress = Progress(len(items), label, stream)
    results = []
    try:
        for config, seed in items:
            result = cache.get(config, seed)
            if result is None:
                result = compute(config, seed)
                cache.put(config, seed, result)
                progress.update()
            else:
                progress.update(skipped=True)
            results.append(result)
    finally:
        progress.close()
    return results
