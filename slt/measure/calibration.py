"""The universal constant C used by the checks: calibrated by ``slth calibrate``, times a stated safety factor.

``slt/measure/calibration.json`` is the checked-in output of ``slth calibrate`` (its command line is stored in it), so
``pytest checks`` needs no calibration run. A statement missing from the file makes the check that needs it fail
with a message naming the command to run, never silently pick a C.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

SAFETY = 1.5
"""Checks build tickets at width(C = SAFETY x calibrated C)."""

DEFAULT = Path(__file__).with_name("calibration.json")


@functools.lru_cache(maxsize=None)
def load(path: str | None = None) -> dict:
    path = Path(path) if path else DEFAULT
    if not path.exists():
        raise FileNotFoundError(f"no calibration file {path}; run: slth calibrate --output {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a calibration file (not JSON: {exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("statements"), dict):
        raise ValueError(f"{path}: not a calibration file (no 'statements' object)")
    return data


def calibrated(statement: str, path: str | None = None) -> dict:
    """The calibration record of ``statement``: ``C`` (the estimate) with ``C_low``/``C_high`` and its grid."""
    data = load(path)
    if statement not in data.get("statements", {}):
        raise KeyError(f"{statement} is not calibrated in {path or DEFAULT}; run: {data.get('command', 'slth calibrate')}")
    return data["statements"][statement]


def build_constant(C: float) -> float:
    """``SAFETY x C`` to 12 significant digits: the constant a check builds with, printed in its re-run command
    without float noise (1.5 x 1.4 is 2.0999999999999996 in float64; the checks build at 2.1, which the command
    then reproduces exactly)."""
    return float(f"{SAFETY * float(C):.12g}")


def check_constant(statement: str, path: str | None = None) -> float:
    """``SAFETY x`` the calibrated C of ``statement`` (the C every check of it builds with; ``build_constant``)."""
    return build_constant(calibrated(statement, path)["C"])
