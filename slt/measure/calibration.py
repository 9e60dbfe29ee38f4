"""The universal constant C used by the checks: calibrated at the worst target found (``slth targets calibrate``).

``slt/measure/calibration.json`` is the checked-in output of ``slth calibrate`` (its command line is stored in it), so
``pytest checks`` needs no calibration run. A statement missing from the file makes the check that needs it fail
with a message naming the command to run, never silently pick a C.
"""
from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path

from slt.inputs import InputError, read_json

SAFETY = 1.0
"""Checks build tickets at width(C = SAFETY x calibrated C). 1: the checks build at the calibrated C
itself (the C calibrated at the worst target found), so that they can fail when it is too small."""

DEFAULT = Path(__file__).with_name("calibration.json")


def read(path) -> dict:
    """The calibration file at ``path``, validated (``problem``); ``InputError`` naming the file otherwise (missing,
    empty, truncated, not JSON, nested too deep, or a field that makes no sense). Not cached: for a file about to be
    updated."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"no calibration file {path}; run: slth calibrate --output {path}")
    data = read_json(path, "calibration file")
    if not isinstance(data, dict) or not isinstance(data.get("statements"), dict):
        raise InputError(f"{path}: not a calibration file (no 'statements' object)")
    bad = problem(data)
    if bad:
        raise InputError(f"{path}: {bad}")
    return data


@functools.lru_cache(maxsize=None)
def load(path: str | None = None) -> dict:
    """``read`` of ``path`` (default: the committed file), cached per process."""
    return read(Path(path) if path else DEFAULT)


def _number(v, low=None, high=None, strict_low=False, integer=False, null=False) -> bool:
    if v is None:
        return null
    if isinstance(v, bool) or not isinstance(v, int if integer else (int, float)) or not math.isfinite(v):
        return False
    return ((low is None or (v > low if strict_low else v >= low)) and (high is None or v <= high))


_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
"""A statement's name as a calibration file's key (``lemma7``, ``theorem14``, ``lueker``)."""
_TARGET = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
"""A target family's name (``sign_matrix``, ``identity``, ``random``)."""


def _targets(rec: dict):
    """``(field, value)`` of every target family name a statement's record holds."""
    for key in ("worst_target", "target"):
        if rec.get(key) is not None:
            yield key, rec[key]
    for key in ("targets", "targets_verify"):
        t = rec.get(key)
        if isinstance(t, dict):
            if t.get("worst") is not None:
                yield f"{key}.worst", t["worst"]
            for i, f in enumerate(t.get("families") or ()):
                if isinstance(f, dict) and "family" in f:
                    yield f"{key}.families[{i}].family", f["family"]
    g = rec.get("growth")
    if isinstance(g, dict) and g.get("target") is not None:
        yield "growth.target", g["target"]


def problem(data: dict) -> str | None:
    """Why a calibration file (``slth calibrate``'s output, checks grid or large) makes no sense, as "field '...'
    is ..., expected ..." (None when it does): every statement holds points (an empty or interrupted run's file is
    refused, never read as "no constant"), counts are integers >= 0 with failures <= trials, the upper bounds are
    in [0, 1], constants are finite and positive, and numbers are finite."""
    def field(where, value, expected):
        shown = json.dumps(value, allow_nan=True) if isinstance(value, (int, float, str, type(None))) else \
            type(value).__name__
        return f"field '{where}' is {shown[:40]}, expected {expected}"

    for key in ("level", "confidence"):
        if key in data and not _number(data[key], 0, 1):
            return field(key, data[key], "a number in [0, 1]")
    if "safety" in data and not _number(data["safety"], 0, strict_low=True):
        return field("safety", data["safety"], "a number > 0")
    for name, rec in data["statements"].items():
        if not _NAME.fullmatch(name):
            return (f"statement key {json.dumps(name)[:40]} is not a statement name (lowercase letters, digits and "
                    "'_', as lemma7)")
        where = f"statements.{name}"
        if not isinstance(rec, dict):
            return field(where, rec, "an object")
        for at, target in _targets(rec):
            if not (isinstance(target, str) and _TARGET.fullmatch(target)):
                return field(f"{where}.{at}", target, "a target family's name (letters, digits, '_' and '-')")
        points = rec.get("points")
        if not isinstance(points, list):
            return field(f"{where}.points", points, "a list")
        if not points:
            return (f"field '{where}.points' is empty (an empty or interrupted calibration run): no constant; "
                    f"run: {rec.get('command') or 'slth calibrate'}")
        for key in ("C", "C_low", "C_high"):
            if key in rec and not _number(rec[key], 0, strict_low=True, null=True):
                return field(f"{where}.{key}", rec[key], "a finite number > 0 or null")
        for i, pt in enumerate(points):
            at = f"{where}.points[{i}]"
            if not isinstance(pt, dict):
                return field(at, pt, "an object")
            if not _number(pt.get("trials"), 0, integer=True):
                return field(f"{at}.trials", pt.get("trials"), "an integer >= 0")
            for key in ("C_point", "C_upper"):
                if not _number(pt.get(key), 0, strict_low=True, null=True):
                    return field(f"{at}.{key}", pt.get(key), "a finite number > 0 or null")
            for key, v in pt.items():
                if isinstance(v, float) and not math.isfinite(v):
                    return field(f"{at}.{key}", v, "a finite number")
            grid = pt.get("grid", [])
            if not isinstance(grid, list):
                return field(f"{at}.grid", grid, "a list")
            for j, row in enumerate(grid):
                gw = f"{at}.grid[{j}]"
                if not isinstance(row, dict):
                    return field(gw, row, "an object")
                if not _number(row.get("C"), 0, strict_low=True):
                    return field(f"{gw}.C", row.get("C"), "a finite number > 0")
                for key in ("failures", "trials"):
                    if not _number(row.get(key), 0, integer=True):
                        return field(f"{gw}.{key}", row.get(key), "an integer >= 0")
                if row["failures"] > row["trials"]:
                    return field(f"{gw}.failures", row["failures"], f"at most its {row['trials']} trials")
                if not _number(row.get("upper"), 0, 1, null=True):
                    return field(f"{gw}.upper", row.get("upper"), "a number in [0, 1] or null")
    return None


def calibrated(statement: str, path: str | None = None) -> dict:
    """The calibration record of ``statement``: ``C`` (the estimate) with ``C_low``/``C_high`` and its grid."""
    data = load(path)
    if statement not in data.get("statements", {}):
        raise KeyError(f"{statement} is not calibrated in {path or DEFAULT}; run: {data.get('command', 'slth calibrate')}")
    return data["statements"][statement]


def constant(statement: str, path: str | None = None) -> float:
    """The calibrated C of ``statement`` (a finite number > 0), or ``InputError`` naming the file and the field
    (a statement whose C is null or missing has no constant a check can build with)."""
    try:
        rec = calibrated(statement, path)
    except KeyError as exc:
        raise InputError(str(exc).strip("'\"")) from None
    C = rec.get("C")
    if not _number(C, 0, strict_low=True):
        shown = "missing" if "C" not in rec else f"{json.dumps(C)}"
        raise InputError(f"{path or DEFAULT}: field 'statements.{statement}.C' is {shown}, expected a finite number "
                         f"> 0 (the constant every check of {statement} builds with); run: "
                         f"{rec.get('command') or 'slth calibrate'}")
    return C


def build_constant(C: float) -> float:
    """``SAFETY x C`` to 12 significant digits: the constant a check builds with, printed in its re-run command
    without float noise (with a safety factor of 1.5, 1.5 x 1.4 is 2.0999999999999996 in float64; the check would
    build at 2.1, which the command then reproduces exactly)."""
    return float(f"{SAFETY * float(C):.12g}")


def check_constant(statement: str, path: str | None = None) -> float:
    """``SAFETY x`` the calibrated C of ``statement`` (the C every check of it builds with; ``build_constant``)."""
    return build_constant(constant(statement, path))


def adopt_large(data: dict, statement: str, large: dict, command: str) -> dict:
    """``data`` (a checks calibration) with ``statement``'s C taken from ``large`` (the worst-target large grid,
    ``calibration-large-worst.json``) where that grid calibrated it at the same target family to a smaller C: the
    checks grid's own C is kept as ``C_checks_grid`` with the reason, and ``C_source`` names the file and command.

    Why: a checks grid of three points and 18-28 trials per C can only accept a C whose Clopper-Pearson bound is
    below eps with few trials, which may leave C conservative (Theorem 9: 2/28 failures at C = 5 give an upper
    bound of 0.208 > eps = 0.2, so its C_upper is 8); a check at such a C cannot fail at half of it. The large
    grid's C at the worst target, guarded by the held-out test (``slt.measure.heldout``), is what the check then
    builds with. ``ValueError`` when the targets differ or the large grid's C is not smaller."""
    rec = data["statements"][statement]
    if large.get("target") != rec.get("worst_target"):
        raise ValueError(f"{statement}: the large grid's target {large.get('target')!r} is not the checks' "
                         f"worst target {rec.get('worst_target')!r}")
    if not (isinstance(large.get("C"), (int, float)) and large["C"] < rec["C"]):
        raise ValueError(f"{statement}: the large grid's C {large.get('C')!r} is not below the checks' {rec['C']}")
    rec["C_checks_grid"] = rec.get("C_checks_grid", rec["C"])
    rec["C"] = float(large["C"])
    rec["C_source"] = (f"calibration-large-worst.json ({len(large['points'])} points at the {large['target']} "
                       f"target: {large.get('command', '')}), adopted by: {command}; the checks grid's C_upper "
                       f"{rec['C_checks_grid']:g} rested on 18-28 trials per C")
    return data
