"""The run record's schema (described in ``reports.record``) and its validation: ``validate(record, file)`` returns
the record or raises ``RecordError`` with one line naming the file and the field.

A record may come from someone else, so it is checked for sense as well as shape. The shape is ``RECORD_SCHEMA``, a
JSON Schema checked by ``jsonschema``: every field of its type, counts integers >= 0, rates, p-values, levels and
interval ends in [0, 1], calibrated constants finite and positive, and the nested objects the report reads
(calibration curves, figure entries, rate checks) of their types. The sense is code: no NaN anywhere, names that are
names, failures <= trials, and verdicts that follow from the counts. Strings are never trusted either: the report
escapes them (``reports.render``).
"""
from __future__ import annotations

import json
import math
import re
import sys

from jsonschema import Draft202012Validator, validators

from slt.cache import nonfinite_path
from slt.inputs import InputError

SCHEMA = "slth-run-record"
SCHEMA_VERSION = 1
PROFILES = ("proofs", "quick", "full")


class RecordError(InputError):
    """A record that cannot be used: the message is one line naming the file and the field."""


# The structure is a JSON Schema (draft 2020-12), validated by ``jsonschema``. Each node carries the words of its
# message: ``x-expected`` ("expected ..."), and ``x-shown`` when the message shows the value rather than its type.
_FINITE = sys.float_info.max
"""The largest finite float: ``maximum: _FINITE`` refuses infinity."""


def _t(*types: str) -> dict:
    """A value of one of ``types`` (JSON Schema's names)."""
    return {"type": list(types), "x-expected": " or ".join("list" if t == "array" else t for t in types)}


def _value(expected: str, *types: str, **bounds) -> dict:
    """A number with a condition (``minimum``, ``maximum``, ...); default types: integer or number."""
    return {"type": list(types or ("integer", "number")), **bounds, "x-expected": expected, "x-shown": True}


def _obj(fields: dict, *, optional: dict | None = None, each: dict | None = None, null: bool = False) -> dict:
    """An object holding every one of ``fields`` (and maybe ``optional``; ``each``: every other member)."""
    node = {"type": ["object", "null"] if null else "object", "x-expected": "an object", "required": list(fields),
            "properties": {**fields, **(optional or {})}}
    return node if each is None else {**node, "additionalProperties": each}


def _list(item: dict, null: bool = False) -> dict:
    return {"type": ["array", "null"] if null else "array", "x-expected": "a list", "items": item}


_COUNT = _value("an integer >= 0", "integer", minimum=0)
_RATE = _value("a number in [0, 1]", minimum=0, maximum=1)
_RATE_OR_NONE = _value("a number in [0, 1] or null", "integer", "number", "null", minimum=0, maximum=1)
_POSITIVE = _value("a finite number > 0", exclusiveMinimum=0, maximum=_FINITE)
_POSITIVE_OR_NONE = _value("a finite number > 0 or null", "integer", "number", "null", exclusiveMinimum=0,
                           maximum=_FINITE)
_SECONDS = _value("a finite number >= 0", minimum=0, maximum=_FINITE)
_STR, _INT, _BOOL, _DICT, _LIST = _t("string"), _t("integer"), _t("boolean"), _t("object"), _t("array")
_NUM, _NUM_OR_NONE = _t("integer", "number"), _t("integer", "number", "null")
_STR_OR_NONE, _DICT_OR_NONE = _t("string", "null"), _t("object", "null")
_TITLED = {"title": _STR}
"""The optional report headings (absent from records written before them; the report falls back to the id)."""

#: Calibration per statement, as the record stores it (``reports.record.assemble.calibration``).
_CALIBRATED = _obj({"C": _POSITIVE_OR_NONE, "C_low": _POSITIVE_OR_NONE, "C_high": _POSITIVE_OR_NONE,
                    "points": _COUNT, "note": _STR,
                    "curves": _list(_obj({"point": _DICT, "C_point": _POSITIVE_OR_NONE, "C_upper": _POSITIVE_OR_NONE,
                                          "required": _DICT,
                                          "grid": _list(_obj({"C": _POSITIVE, "failures": _COUNT, "trials": _COUNT,
                                                              "upper": _RATE_OR_NONE, "worst_ratio": _NUM_OR_NONE,
                                                              "widths": _DICT_OR_NONE}))}))})
_LARGE = _obj({"statements": _obj({}, each=_DICT)}, null=True)
#: A failure-rate check of the empirical part (``kind == "rate"``).
_RATE_CHECK = _obj({"params": _DICT, "C": _POSITIVE, "widths": _DICT, "failures": _COUNT, "trials": _COUNT,
                    "rate": _RATE, "interval": _list(_RATE),
                    "pvalue": _RATE, "level": _RATE,
                    "power": {**_obj({"power": _RATE, "detectable_rate": _RATE_OR_NONE, "target_rate": _RATE_OR_NONE},
                                     null=True), "x-expected": "object or null"},
                    "passed": _BOOL, "decision": _obj({"word": _STR, "text": _STR})})
_CHECK = {**_obj({"id": _STR, "statement": _STR, "kind": _STR, "verdict": _STR, "ratio": _NUM,
                  "command": _STR_OR_NONE}, optional=_TITLED),
          "if": {"required": ["kind"], "properties": {"kind": {"const": "rate"}}}, "then": _RATE_CHECK}

RECORD_SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", **_obj({
    "schema": _STR,
    "schema_version": _INT,
    "profile": _STR,
    "parts": _LIST,
    "provenance": _obj({"git_commit": _STR_OR_NONE, "git_dirty": _t("boolean", "null"), "bounds_hash": _STR,
                        "packages": _DICT, "python": _STR, "platform": _STR,
                        "seeds": _obj({"base": _INT, "verifier": _INT}), "created": _STR, "command": _STR,
                        "wall_s": _obj({"total": _SECONDS})}),
    "statements": _list(_obj({"name": _STR, "title": _STR, "numbering": _DICT, "quantity": _STR, "hypotheses": _LIST,
                              "conclusion": _obj({"text": _STR, "mathml": _STR}), "probability": _DICT_OR_NONE,
                              "widths": _DICT, "width_params": _LIST, "variants": _LIST})),
    "exponents": _list(_obj({"width": _STR, "base": _STR, "text": _STR, "mathml": _STR})),
    "steps": _list(_obj({"statement": _STR, "step": _STR, "supported": _BOOL, "method": _STR, "domain": _STR,
                         "ok": _BOOL, "verdict": _STR, "margin": _NUM_OR_NONE, "detail": _STR, "box": _DICT,
                         "counterexample": _DICT_OR_NONE, "note": _STR, "relies_on": _LIST,
                         "inequality": _STR_OR_NONE})),
    "variants": _list(_obj({"statement": _STR, "variant": _STR, "description": _STR, "expected": _LIST,
                            "broken": _LIST, "verdict": _STR}), null=True),
    "mutations": _list(_obj({"name": _STR, "statement": _STR, "expected": _LIST, "caught_by": _LIST,
                             "verdict": _STR, "counterexample": _DICT_OR_NONE}), null=True),
    "widths": _list(_obj({"statement": _STR, "width": _STR, "point": _DICT, "C": _POSITIVE, "value": _COUNT})),
    "calibration": _obj({"file": _STR, "command": _STR, "definition": _STR, "level": _RATE, "confidence": _RATE,
                         "safety": _POSITIVE, "statements": _obj({}, each=_CALIBRATED)},
                        optional={"large": _LARGE, "large_worst": _LARGE}),
    "empirical": _obj({"checks": _list(_CHECK),
                       "tightness": _list(_obj({
                           "check": _STR, "statement": _STR, "where": {},
                           "ratio": _value("a number >= 0 (a measured error over its bound)", minimum=0)})),
                       "length_sweeps": _obj({}, each=_obj({"info": {}, "rows": _LIST}, optional=_TITLED)),
                       "verdicts": _obj({}, each=_STR), "decisions": _obj({}, each=_STR), "wall_s": _SECONDS,
                       "tasks": _COUNT}, null=True),
    "figures": {**_obj({}, each=_obj({"source": _STR, "payload": _DICT}), null=True), "x-expected": "object"},
}, optional={
    # which measurements "empirical" holds (``slt.measure.committed.select``; absent from older records)
    "empirical_source": _obj({"kind": _STR, "profile": _STR, "file": _STR_OR_NONE, "command": _STR_OR_NONE,
                              "created": _STR_OR_NONE, "git_commit": _STR_OR_NONE, "why": _STR}, null=True),
    # Lemma 12's printed logit step in Coq (``bounds.prove.coq_math.lemma12_logit_run`` with its source; absent from older records)
    "coq_lemma12": _obj({}, optional={"proof": _STR, "error": _STR, "gap_line": _BOOL, "with_hypothesis": _STR,
                                      "refuted": _BOOL, "theorem": _t("array", "null"), "undecided": _STR,
                                      "source": _STR}, null=True),
    # ``slt.measure.findings`` (absent from older records, still version 1)
    "findings": _obj({"banner": _DICT,
                      "items": _list(_obj({"id": _STR, "status": _STR, "title": _STR, "sentences": _LIST,
                                           "counterexample": _DICT_OR_NONE, "test": _STR, "command": _STR_OR_NONE,
                                           "evidence": _STR, "statements": _LIST})),
                      "notes": _DICT}, null=True),
    # what is formalized and proved in Coq (``bounds.prove.coq_math.blueprint``; absent from older records)
    "formalization": _obj({"statements": _obj({}, each=_obj({"formalized": _BOOL, "theorem": _STR_OR_NONE,
                                                             "rests_on": _t("array", "null"),
                                                             "lueker_alone": _BOOL, "cites": _LIST},
                                                            optional={"probability": _BOOL})),
                           "premises": _obj({}, each=_obj({"proved": _BOOL, "coq": _STR_OR_NONE, "by": _LIST,
                                                           "says": _STR})),
                           "counts": _obj({"proved": _COUNT, "premises": _COUNT, "alone": _COUNT,
                                           "statements": _COUNT}),
                           "line": _STR}, null=True),
    # the slack of every proof constant (absent from records written before it existed; still version 1)
    "slack": _list(_obj({"statement": _STR, "constant": _STR, "printed": _NUM, "printed_exact": _STR,
                         "tightest": _NUM_OR_NONE, "tightest_exact": _STR_OR_NONE, "first_failing": _NUM_OR_NONE,
                         "first_failing_exact": _STR_OR_NONE, "ratio": _NUM_OR_NONE, "forced": _BOOL,
                         "direction": _STR, "fails_at": _STR_OR_NONE, "counterexample": _DICT_OR_NONE,
                         "probes": _INT, "note": _STR}), null=True),
})}
"""The run record's structure as a JSON Schema (draft 2020-12); what it cannot say is checked in code below."""

_Validator = validators.extend(Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _, v: isinstance(v, int) and not isinstance(v, bool)))  # 3.0 is a number, not a count
_VALIDATOR = _Validator(RECORD_SCHEMA)


def _type_name(value) -> str:
    return {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", list: "list",
            type(None): "null"}.get(type(value), type(value).__name__)


def _structure(record: dict, file: str) -> None:
    """``RecordError`` naming the first field (in the schema's order) whose structure is wrong."""
    error = next(_VALIDATOR.iter_errors(record), None)
    if error is None:
        return
    path = list(error.absolute_path)
    if error.validator == "required":
        path.append(next(k for k in error.validator_value if k not in error.instance))
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    if error.validator == "required":
        raise RecordError(f"{file}: field '{where}' is missing")
    shown = _shown(error.instance) if error.schema.get("x-shown") else _type_name(error.instance)
    raise RecordError(f"{file}: field '{where}' is {shown}, expected {error.schema['x-expected']}")


def _shown(value) -> str:
    text = json.dumps(value, allow_nan=True) if isinstance(value, (int, float, str, type(None))) else \
        _type_name(value)
    return text if len(text) <= 40 else text[:37] + "..."


_NAME = re.compile(r"[A-Za-z0-9_.:\-]+")
"""Names the report links and looks up by (statements, widths, parameters): letters, digits and ``_ . : -``; every
other string of a record is free text and escaped where it is shown."""


def _name(value, where: str, file: str) -> None:
    if not (isinstance(value, str) and _NAME.fullmatch(value)):
        raise RecordError(f"{file}: field '{where}' is {_shown(value)}, expected a name (letters, digits, _ . : -)")


def _statement_fields(value, where: str, file: str) -> None:
    """Every field called "statement", at any depth, is a name."""
    if isinstance(value, dict):
        for k, v in value.items():
            path = f"{where}.{k}" if where else str(k)
            if k == "statement" and isinstance(v, str):
                _name(v, path, file)
            else:
                _statement_fields(v, path, file)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _statement_fields(v, f"{where}[{i}]", file)


def _names(record: dict, file: str) -> None:
    for i, st in enumerate(record["statements"]):
        _name(st["name"], f"statements[{i}].name", file)
        for j, p in enumerate(st["width_params"]):
            _name(p, f"statements[{i}].width_params[{j}]", file)
        for w in st["widths"]:
            _name(w, f"statements[{i}].widths.{w}", file)
    for i, w in enumerate(record["widths"]):
        _name(w["width"], f"widths[{i}].width", file)
    for name in record["calibration"]["statements"]:
        _name(name, f"calibration.statements.{name}", file)
    for key in ("verdicts", "decisions"):
        for name in (record["empirical"] or {}).get(key, {}):
            _name(name, f"empirical.{key}.{name}", file)
    _statement_fields(record, "", file)


def _values(record: dict, file: str) -> None:
    """What the schema cannot say: no NaN, names that are names, counts that agree, verdicts that follow."""
    nan = nonfinite_path(record, "", math.isnan)  # no NaN: a measurement that is not a number is not a measurement
    if nan:
        raise RecordError(f"{file}: field '{nan}' is NaN, expected a number")
    _names(record, file)
    for name, rec in record["calibration"]["statements"].items():
        for i, curve in enumerate(rec["curves"]):
            for j, row in enumerate(curve["grid"]):
                if row["failures"] > row["trials"]:
                    raise RecordError(f"{file}: field 'calibration.statements.{name}.curves[{i}].grid[{j}].failures'"
                                      f" is {row['failures']}, more than its {row['trials']} trials")
    emp = record["empirical"]
    if emp is None:
        return
    for i, c in enumerate(emp["checks"]):
        where = f"empirical.checks[{i}]"
        if c["kind"] == "rate":
            if c["failures"] > c["trials"]:
                raise RecordError(f"{file}: field '{where}.failures' is {c['failures']}, more than its "
                                  f"{c['trials']} trials")
            if len(c["interval"]) != 2 or c["interval"][0] > c["interval"][1]:
                raise RecordError(f"{file}: field '{where}.interval' is {c['interval']}, expected [low, high] "
                                  "in [0, 1]")
    _decided(emp, file)


#: Verdict words of records written before ``slt.measure.verdicts`` (``verdicts.normalise`` re-decides them).
LEGACY_WORDS = ("pass", "FAIL", "violated", "no violation")


def _decided(emp: dict, file: str) -> None:
    """Every verdict of the empirical part is a verdict word, and the one the harness's one verdict function
    (``slt.measure.verdicts``) decides from the stored numbers: a rate check's counts give its rate, interval and
    p-value (``slt.measure.stats``), those its word; its statement's word combines its checks'. A record that says
    otherwise ("holds" at 0 trials, "holds!!", a forged interval) is refused, never rendered."""
    import slt.measure.verdicts as verdicts  # the one verdict function: a decision, not a measurement

    words = verdicts.WORDS + LEGACY_WORDS
    places = [(f"empirical.checks[{i}].verdict", c["verdict"]) for i, c in enumerate(emp["checks"])]
    places += [(f"empirical.checks[{i}].decision.word", c["decision"]["word"]) for i, c in enumerate(emp["checks"])
               if c["kind"] == "rate"]
    places += [(f"empirical.{key}.{name}", w) for key in ("verdicts", "decisions") for name, w in emp[key].items()]
    for where, word in places:
        if word not in words:
            raise RecordError(f"{file}: field '{where}' is {_shown(word)}, expected a verdict ("
                              f"{', '.join(verdicts.WORDS)})")
    rates = [(i, c) for i, c in enumerate(emp["checks"]) if c["kind"] == "rate"]
    if rates:
        from scipy.stats import binomtest

        import slt.measure.stats as stats
    for i, c in rates:
        where = f"empirical.checks[{i}]"
        if c["trials"] < 1:
            raise RecordError(f"{file}: field '{where}.trials' is {c['trials']}, expected an integer >= 1 (a rate "
                              "test of no trial decides nothing)")
        eps = c["params"].get("eps")
        if not (isinstance(eps, (int, float)) and not isinstance(eps, bool) and 0 < eps < 1):
            raise RecordError(f"{file}: field '{where}.params.eps' is {_shown(eps)}, expected a number in (0, 1)")
        lo, hi = stats.clopper_pearson(c["failures"], c["trials"])
        pvalue = float(binomtest(c["failures"], c["trials"], eps, alternative="greater").pvalue)
        for key, stored, derived in (("rate", c["rate"], c["failures"] / c["trials"]),
                                     ("interval", c["interval"], [lo, hi]), ("pvalue", c["pvalue"], pvalue),
                                     ("passed", c["passed"], pvalue >= c["level"])):
            same = (stored == derived if isinstance(derived, bool) else
                    all(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
                        for a, b in zip(stored if isinstance(stored, list) else [stored],
                                        derived if isinstance(derived, list) else [derived])))
            if not same:
                raise RecordError(f"{file}: field '{where}.{key}' is {_shown(stored)}, but its {c['failures']}/"
                                  f"{c['trials']} failures give {_shown(derived)}")
    if not all(w in verdicts.WORDS for _, w in places):
        return  # an older record's words: verdicts.normalise re-decides them from the numbers where it is read
    fresh = verdicts.redecide(emp)
    derived = [(f"empirical.checks[{i}].verdict", c["verdict"]) for i, c in enumerate(fresh["checks"])]
    derived += [(f"empirical.{key}.{name}", w) for key in ("verdicts", "decisions") for name, w in fresh[key].items()]
    stored = dict(places)
    for where, word in derived:
        if where in stored and stored[where] != word:
            raise RecordError(f"{file}: field '{where}' is {_shown(stored[where])}, but its numbers decide "
                              f"{_shown(word)} (slt.measure.verdicts)")


def validate(record, file: str = "<record>") -> dict:
    """``record`` if it follows the schema of version ``SCHEMA_VERSION``; else ``RecordError`` (one line)."""
    if not isinstance(record, dict):
        raise RecordError(f"{file}: not a run record (a JSON object expected, got {_type_name(record)})")
    if record.get("schema") != SCHEMA:
        raise RecordError(f"{file}: field 'schema' is {record.get('schema')!r}, expected {SCHEMA!r} (not a run record)")
    if "schema_version" not in record:
        raise RecordError(f"{file}: field 'schema_version' is missing")
    if record["schema_version"] != SCHEMA_VERSION:
        raise RecordError(f"{file}: field 'schema_version' is {record['schema_version']!r}; this harness reads "
                          f"version {SCHEMA_VERSION} (rebuild the record with `slth run`)")
    _structure(record, file)
    if record["profile"] not in PROFILES:
        raise RecordError(f"{file}: field 'profile' is {record['profile']!r}, expected one of {', '.join(PROFILES)}")
    _values(record, file)
    return record


def failed_steps(record: dict) -> list[dict]:
    """Steps of the supported forms (and facts) that failed."""
    return [s for s in record["steps"] if not s["ok"]]
