"""The run record's structure is a JSON Schema (``reports.record.schema.RECORD_SCHEMA``) checked by ``jsonschema``;
its messages stay one line naming the field, and the schema's conditions refuse what the record's docs refuse."""
from __future__ import annotations

import copy

import pytest
from jsonschema import Draft202012Validator

from reports import record
from reports.record.schema import RECORD_SCHEMA


def test_the_record_schema_is_a_valid_json_schema():
    Draft202012Validator.check_schema(RECORD_SCHEMA)


def _refused(data, field: str, expected: str) -> str:
    with pytest.raises(record.RecordError) as exc:
        record.validate(data, "rec.json")
    message = str(exc.value)
    assert "\n" not in message and message.startswith("rec.json: ") and f"field '{field}'" in message, message
    assert expected in message, message
    return message


@pytest.mark.parametrize("path, value, expected", [
    (["widths", 0, "value"], 3.0, "is 3.0, expected an integer >= 0"),       # a count is an integer, not 3.0
    (["widths", 0, "value"], True, "is true, expected an integer >= 0"),      # nor a boolean
    (["widths", 0, "C"], float("inf"), "is Infinity, expected a finite number > 0"),
    (["widths", 0, "C"], 0, "is 0, expected a finite number > 0"),
    (["calibration", "level"], 1.5, "is 1.5, expected a number in [0, 1]"),
    (["provenance", "seeds", "base"], "0", "is string, expected integer"),
    (["steps", 0, "margin"], "1", "is string, expected integer or number or null"),
    (["variants"], {}, "is object, expected a list"),
    (["figures"], [], "is list, expected object"),
    (["formalization", "statements", "lemma8", "formalized"], "yes", "is string, expected boolean"),
    (["formalization", "premises", "Hoelder step", "proved"], 1, "is integer, expected boolean"),
    (["formalization", "counts", "alone"], -1, "is -1, expected an integer >= 0"),
])
def test_a_value_the_schema_refuses_is_named(proofs_record, path, value, expected):
    data = copy.deepcopy(proofs_record)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    _refused(data, "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip("."), expected)


def test_the_nested_parts_the_report_reads_are_checked(proofs_record):
    data = copy.deepcopy(proofs_record)
    name = next(iter(data["calibration"]["statements"]))
    data["calibration"]["statements"][name]["points"] = -1
    _refused(data, f"calibration.statements.{name}.points", "expected an integer >= 0")
    data = copy.deepcopy(proofs_record)
    data["figures"] = {"fig4": {"source": "x"}}
    _refused(data, "figures.fig4.payload", "missing")
    data = copy.deepcopy(proofs_record)
    data["calibration"]["large"] = {"statements": {"lueker": 3}}
    _refused(data, "calibration.large.statements.lueker", "expected object")


def test_a_rate_check_is_held_to_the_rate_fields_and_other_checks_are_not(proofs_record):
    check = {"id": "c", "statement": "lueker", "kind": "rate", "verdict": "holds", "ratio": 0.1, "command": None}
    data = copy.deepcopy(proofs_record)
    data["empirical"] = {"checks": [check], "tightness": [], "length_sweeps": {}, "verdicts": {}, "decisions": {},
                         "wall_s": 1.0, "tasks": 1}
    _refused(data, "empirical.checks[0].params", "missing")
    data["empirical"]["checks"][0] = {**check, "params": {"eps": 0.1}, "C": 1.0, "widths": {}, "failures": 0,
                                      "trials": 10, "rate": 0.0, "interval": [0.0, 0.3], "pvalue": 1.0, "level": 0.05,
                                      "power": "high", "passed": True, "decision": {"word": "holds", "text": ""}}
    _refused(data, "empirical.checks[0].power", "is string, expected object or null")
    data["empirical"]["checks"][0] = {**check, "kind": "search"}
    record.validate(data, "rec.json")  # a search holds no rate fields
