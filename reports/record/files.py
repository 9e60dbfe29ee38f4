"""The run record as a JSON file: ``load`` reads and validates one, ``write`` validates and writes one atomically."""
from __future__ import annotations

import json
from pathlib import Path

from slt.cache import write_atomic

from reports.record.schema import RecordError, validate

__all__ = ["dumps", "load", "write"]


def load(path) -> dict:
    """Read and validate the record at ``path``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record file") from None
    except IsADirectoryError:
        raise RecordError(f"{path}: a directory, not a record file (give the JSON file `slth run -o` wrote)") from None
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not JSON (not UTF-8 text: {exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return validate(data, str(path))


def dumps(record: dict) -> str:
    return json.dumps(record, indent=1, default=_default, allow_nan=True)


def write(path, record: dict) -> None:
    """Validate ``record`` and write it to ``path`` atomically."""
    validate(record, str(path))
    write_atomic(Path(path), dumps(record))


def _default(obj):
    try:
        return float(obj)
    except (TypeError, ValueError):
        return str(obj)
