"""The run record's schema (described in ``reports.record``) and its validation: ``validate(record, file)`` returns
the record or raises ``RecordError`` with one line naming the file and the field."""
from __future__ import annotations

SCHEMA = "slth-run-record"
SCHEMA_VERSION = 1
PROFILES = ("proofs", "quick", "full")


class RecordError(ValueError):
    """A record that cannot be used: the message is one line naming the file and the field."""


_ANY = object()
_NUM = (int, float)
_STR_OR_NONE = (str, type(None))
_FORMULA = {"text": str, "mathml": str}

_SPEC = {
    "schema": str,
    "schema_version": int,
    "profile": str,
    "parts": list,
    "provenance": {"git_commit": _STR_OR_NONE, "git_dirty": (bool, type(None)), "bounds_hash": str,
                   "packages": dict, "python": str, "platform": str, "seeds": {"base": int, "verifier": int},
                   "created": str, "command": str, "wall_s": {"total": _NUM}},
    "statements": [{"name": str, "title": str, "numbering": dict, "quantity": str, "hypotheses": list,
                    "conclusion": _FORMULA, "probability": (dict, type(None)), "widths": dict,
                    "width_params": list, "variants": list}],
    "exponents": [{"width": str, "base": str, "text": str, "mathml": str}],
    "steps": [{"statement": str, "step": str, "supported": bool, "method": str, "domain": str, "ok": bool,
               "verdict": str, "margin": (int, float, type(None)), "detail": str, "box": dict,
               "counterexample": (dict, type(None)), "note": str, "relies_on": list,
               "inequality": _STR_OR_NONE}],
    "variants": ([{"statement": str, "variant": str, "description": str, "expected": list, "broken": list,
                   "verdict": str}], None),
    "mutations": ([{"name": str, "statement": str, "expected": list, "caught_by": list, "verdict": str,
                    "counterexample": (dict, type(None))}], None),
    "widths": [{"statement": str, "width": str, "point": dict, "C": _NUM, "value": int}],
    "calibration": {"file": str, "command": str, "definition": str, "level": _NUM, "confidence": _NUM,
                    "safety": _NUM, "statements": dict},
    "empirical": ({"checks": [{"id": str, "statement": str, "kind": str, "verdict": str, "ratio": _NUM,
                               "command": _STR_OR_NONE}],
                   "tightness": [{"check": str, "statement": str, "ratio": _NUM, "where": _ANY}],
                   "length_sweeps": dict, "verdicts": dict, "decisions": dict, "wall_s": _NUM, "tasks": int}, None),
    "figures": (dict, None),
}

_NUM_OR_NONE = (int, float, type(None))
#: The optional "empirical_source": which measurements "empirical" holds (``slt.measure.committed.select``).
_SOURCE_SPEC = {"kind": str, "profile": str, "file": _STR_OR_NONE, "command": _STR_OR_NONE,
                "created": _STR_OR_NONE, "git_commit": _STR_OR_NONE, "why": str}
#: The optional top-level "findings" section (``slt.measure.findings``; absent from older records, still version 1).
_FINDINGS_SPEC = {"banner": dict, "items": [{"id": str, "status": str, "title": str, "sentences": list,
                                             "counterexample": (dict, type(None)), "test": str,
                                             "command": _STR_OR_NONE, "evidence": str, "statements": list}],
                  "notes": dict}
#: The optional top-level "slack" section (absent from records written before it existed; still version 1).
_SLACK_SPEC = ([{"statement": str, "constant": str, "printed": _NUM, "printed_exact": str,
                 "tightest": _NUM_OR_NONE, "tightest_exact": _STR_OR_NONE, "first_failing": _NUM_OR_NONE,
                 "first_failing_exact": _STR_OR_NONE, "ratio": _NUM_OR_NONE, "forced": bool, "direction": str,
                 "fails_at": _STR_OR_NONE, "counterexample": (dict, type(None)), "probes": int, "note": str}], None)


def _type_name(t) -> str:
    if isinstance(t, tuple):
        return " or ".join(_type_name(x) for x in t)
    if t is type(None) or t is None:
        return "null"
    if isinstance(t, dict):
        return "object"
    if isinstance(t, list):
        return "list"
    return {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", list: "list"}.get(t, str(t))


def _check(value, spec, where: str, file: str) -> None:
    if spec is _ANY:
        return
    if isinstance(spec, tuple) and any(isinstance(s, (dict, list)) or s is None for s in spec):
        if value is None and None in spec:
            return
        structured = [s for s in spec if s is not None]
        if len(structured) == 1:
            return _check(value, structured[0], where, file)
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            raise RecordError(f"{file}: field '{where}' is {_type_name(type(value))}, expected an object")
        for key, sub in spec.items():
            path = f"{where}.{key}" if where else key
            if key not in value:
                raise RecordError(f"{file}: field '{path}' is missing")
            _check(value[key], sub, path, file)
        return
    if isinstance(spec, list):
        if not isinstance(value, list):
            raise RecordError(f"{file}: field '{where}' is {_type_name(type(value))}, expected a list")
        for i, item in enumerate(value):
            _check(item, spec[0], f"{where}[{i}]", file)
        return
    types = spec if isinstance(spec, tuple) else (spec,)
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if not ok:
        raise RecordError(f"{file}: field '{where}' is {_type_name(type(value))}, expected {_type_name(spec)}")


def validate(record, file: str = "<record>") -> dict:
    """``record`` if it follows the schema of version ``SCHEMA_VERSION``; else ``RecordError`` (one line)."""
    if not isinstance(record, dict):
        raise RecordError(f"{file}: not a run record (a JSON object expected, got {_type_name(type(record))})")
    if record.get("schema") != SCHEMA:
        raise RecordError(f"{file}: field 'schema' is {record.get('schema')!r}, expected {SCHEMA!r} (not a run record)")
    if "schema_version" not in record:
        raise RecordError(f"{file}: field 'schema_version' is missing")
    if record["schema_version"] != SCHEMA_VERSION:
        raise RecordError(f"{file}: field 'schema_version' is {record['schema_version']!r}; this harness reads "
                          f"version {SCHEMA_VERSION} (rebuild the record with `slth run`)")
    _check(record, _SPEC, "", file)
    if "slack" in record:
        _check(record["slack"], _SLACK_SPEC, "slack", file)
    if record.get("empirical_source") is not None:
        _check(record["empirical_source"], _SOURCE_SPEC, "empirical_source", file)
    if record.get("findings") is not None:
        _check(record["findings"], _FINDINGS_SPEC, "findings", file)
    if record["profile"] not in PROFILES:
        raise RecordError(f"{file}: field 'profile' is {record['profile']!r}, expected one of {', '.join(PROFILES)}")
    return record


def failed_steps(record: dict) -> list[dict]:
    """Steps of the supported forms (and facts) that failed."""
    return [s for s in record["steps"] if not s["ok"]]
