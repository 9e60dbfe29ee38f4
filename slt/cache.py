"""Results cache of the long sweeps: one JSON file per (configuration, seed), written atomically.

An interrupted sweep resumes where it stopped: ``run`` computes only the (configuration, seed) items that have no
file yet. A configuration is a JSON-serialisable dict; its file name is a hash of its canonical JSON (so any change
of a parameter is a different item) and the file also stores the configuration itself, which ``get`` checks.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable

__all__ = ["write_atomic", "save_npz", "load_npz", "ResultCache", "Progress", "run"]


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
        os.unlink(tmp)
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
