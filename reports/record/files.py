"""The run record as a JSON file: ``load`` reads and validates one, ``write`` validates and writes one atomically."""
from __future__ import annotations

import json
from pathlib import Path

from slt.cache import write_atomic
from slt.inputs import read_json

from reports.record.schema import RecordError, validate

__all__ = ["dumps", "load", "write"]


def load(path) -> dict:
    """Read and validate the record at ``path``."""
    path = Path(path)
    if not path.exists():
        raise RecordError(f"{path}: no such record file")
    if path.is_dir():
        raise RecordError(f"{path}: a directory, not a record file (give the JSON file `slth run -o` wrote)")
    return validate(read_json(path, "record", RecordError), str(path))


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
