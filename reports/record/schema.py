"""The run record's schema (described in ``reports.record``) and its validation: ``validate(record, file)`` returns
the record or raises ``RecordError`` with one line naming the file and the field.

A record may come from someone else, so it is checked for sense as well as shape: no NaN anywhere, counts are
integers >= 0, failures <= trials, rates, p-values, levels and interval ends in [0, 1], calibrated constants
positive, and the nested objects the report reads (calibration curves, figure entries, rate checks) of their
types. Strings are never trusted either: the report escapes them (``reports.render``).
"""
from __future__ import annotations

import json
import math
import re
from slt.inputs import InputError

SCHEMA = "slth-run-record"
SCHEMA_VERSION = 1
PROFILES = ("proofs", "quick", "full")


class RecordError(InputError):
    """A record that cannot be used: the message is one line naming the file and the field."""


class _Value:
    """A number with a condition: ``types`` (bool never counts as a number) and ``ok(value)``."""

    def __init__(self, name: str, types: tuple, ok, nullable: bool = False):
        self.name, self.types, self.ok, self.nullable = name, types, ok, nullable

    def __call__(self, value) -> bool:
        if value is None:
            return self.nullable
        return isinstance(value, self.types) and not isinstance(value, bool) and self.ok(value)


_COUNT = _Value("an integer >= 0", (int,), lambda v: v >= 0)
_RATE = _Value("a number in [0, 1]", (int, float), lambda v: 0 <= v <= 1)
_RATE_OR_NONE = _Value("a number in [0, 1] or null", (int, float), lambda v: 0 <= v <= 1, nullable=True)
_POSITIVE = _Value("a finite number > 0", (int, float), lambda v: math.isfinite(v) and v > 0)
_POSITIVE_OR_NONE = _Value("a finite number > 0 or null", (int, float), lambda v: math.isfinite(v) and v > 0,
                           nullable=True)
_SECONDS = _Value("a finite number >= 0", (int, float), lambda v: math.isfinite(v) and v >= 0)

_ANY = object()
_NUM = (int, float)
_NUM_OR_NONE = (int, float, type(None))
_STR_OR_NONE = (str, type(None))
_FORMULA = {"text": str, "mathml": str}

_SPEC = {
    "schema": str,
    "schema_version": int,
    "profile": str,
    "parts": list,
    "provenance": {"git_commit": _STR_OR_NONE, "git_dirty": (bool, type(None)), "bounds_hash": str,
                   "packages": dict, "python": str, "platform": str, "seeds": {"base": int, "verifier": int},
                   "created": str, "command": str, "wall_s": {"total": _SECONDS}},
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
    "widths": [{"statement": str, "width": str, "point": dict, "C": _POSITIVE, "value": _COUNT}],
    "calibration": {"file": str, "command": str, "definition": str, "level": _RATE, "confidence": _RATE,
                    "safety": _POSITIVE, "statements": dict},
    "empirical": ({"checks": [{"id": str, "statement": str, "kind": str, "verdict": str, "ratio": _NUM,
                               "command": _STR_OR_NONE}],
                   "tightness": [{"check": str, "statement": str, "ratio": _NUM, "where": _ANY}],
                   "length_sweeps": dict, "verdicts": dict, "decisions": dict, "wall_s": _SECONDS,
                   "tasks": _COUNT}, None),
    "figures": (dict, None),
}

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


#: Calibration per statement, as the record stores it (``reports.record.assemble.calibration``).
_CALIBRATED = {"C": _POSITIVE_OR_NONE, "C_low": _POSITIVE_OR_NONE, "C_high": _POSITIVE_OR_NONE, "points": _COUNT,
               "note": str, "curves": [{"point": dict, "C_point": _POSITIVE_OR_NONE, "C_upper": _POSITIVE_OR_NONE,
                                        "required": dict,
                                        "grid": [{"C": _POSITIVE, "failures": _COUNT, "trials": _COUNT,
                                                  "upper": _RATE_OR_NONE, "worst_ratio": _NUM_OR_NONE,
                                                  "widths": (dict, type(None))}]}]}
#: A failure-rate check of the empirical part (``kind == "rate"``).
_RATE_CHECK = {"params": dict, "C": _POSITIVE, "widths": dict, "failures": _COUNT, "trials": _COUNT, "rate": _RATE,
               "interval": [_RATE], "pvalue": _RATE, "level": _RATE, "power": (dict, type(None)), "passed": bool,
               "decision": {"word": str, "text": str}}
_POWER = {"power": _RATE, "detectable_rate": _RATE_OR_NONE, "target_rate": _RATE_OR_NONE}
_FIGURE = {"source": str, "payload": dict}
_LENGTH_SWEEP = {"info": _ANY, "rows": list}


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
    if isinstance(spec, _Value):
        if not spec(value):
            raise RecordError(f"{file}: field '{where}' is {_shown(value)}, expected {spec.name}")
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


def _shown(value) -> str:
    text = json.dumps(value, allow_nan=True) if isinstance(value, (int, float, str, type(None))) else \
        _type_name(type(value))
    return text if len(text) <= 40 else text[:37] + "..."


def _nan_path(value, where: str) -> str | None:
    """The path of the first NaN inside ``value`` (a record holds no NaN: a measurement that is not a number is
    not a measurement), or None."""
    if isinstance(value, float) and math.isnan(value):
        return where
    if isinstance(value, dict):
        for k, v in value.items():
            found = _nan_path(v, f"{where}.{k}" if where else str(k))
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _nan_path(v, f"{where}[{i}]")
            if found:
                return found
    return None


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
    """What the shape check cannot say: names that are names, nested objects the report reads, counts that
    agree."""
    nan = _nan_path(record, "")
    if nan:
        raise RecordError(f"{file}: field '{nan}' is NaN, expected a number")
    _names(record, file)
    for name, rec in record["calibration"]["statements"].items():
        _check(rec, _CALIBRATED, f"calibration.statements.{name}", file)
        for i, curve in enumerate(rec["curves"]):
            for j, row in enumerate(curve["grid"]):
                if row["failures"] > row["trials"]:
                    raise RecordError(f"{file}: field 'calibration.statements.{name}.curves[{i}].grid[{j}].failures'"
                                      f" is {row['failures']}, more than its {row['trials']} trials")
    for key in ("large", "large_worst"):
        large = record["calibration"].get(key)
        if large is not None:
            _check(large, {"statements": dict}, f"calibration.{key}", file)
            for name, rec in large["statements"].items():
                _check(rec, dict, f"calibration.{key}.statements.{name}", file)
    for name, entry in (record["figures"] or {}).items():
        _check(entry, _FIGURE, f"figures.{name}", file)
    emp = record["empirical"]
    if emp is None:
        return
    for i, c in enumerate(emp["checks"]):
        where = f"empirical.checks[{i}]"
        if c["kind"] == "rate":
            _check(c, _RATE_CHECK, where, file)
            if c["failures"] > c["trials"]:
                raise RecordError(f"{file}: field '{where}.failures' is {c['failures']}, more than its "
                                  f"{c['trials']} trials")
            if len(c["interval"]) != 2 or c["interval"][0] > c["interval"][1]:
                raise RecordError(f"{file}: field '{where}.interval' is {c['interval']}, expected [low, high] "
                                  "in [0, 1]")
            if c["power"] is not None:
                _check(c["power"], _POWER, f"{where}.power", file)
    for key in ("verdicts", "decisions"):
        for name, word in emp[key].items():
            _check(word, str, f"empirical.{key}.{name}", file)
    for i, t in enumerate(emp["tightness"]):
        if not (isinstance(t["ratio"], (int, float)) and t["ratio"] >= 0):
            raise RecordError(f"{file}: field 'empirical.tightness[{i}].ratio' is {_shown(t['ratio'])}, expected a "
                              "number >= 0 (a measured error over its bound)")
    _decided(emp, file)
    for name, sweep in emp["length_sweeps"].items():
        _check(sweep, _LENGTH_SWEEP, f"empirical.length_sweeps.{name}", file)
    # the optional report headings (absent from records written before them; the report falls back to the id)
    titled = [(f"empirical.checks[{i}]", c) for i, c in enumerate(emp["checks"])]
    titled += [(f"empirical.length_sweeps.{name}", s) for name, s in emp["length_sweeps"].items()]
    for where, entry in titled:
        if "title" in entry:
            _check(entry["title"], str, f"{where}.title", file)


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
    _values(record, file)
    return record


def failed_steps(record: dict) -> list[dict]:
    """Steps of the supported forms (and facts) that failed."""
    return [s for s in record["steps"] if not s["ok"]]
