"""The settings ``bounds`` reads from the environment, parsed and checked in one place.

``sympy_seconds()`` is ``$SLTH_SYMPY_SECONDS``, the CPU seconds after which a stage of the verifier is cut as "machine
too slow" (``bounds.prove.verify_domain.STAGE_SECONDS``; default 60): a guard only, since each stage's work budget, a
count of calls the same on every machine, cuts it first on any machine not several times slower than the one it was
calibrated on: a finite number in (0, ``MAX_SYMPY_SECONDS``]. Anything else
(``nan``, ``inf``, ``1e20``, ``abc``, ``-1``, ``0``) raises ``SettingError`` naming the variable, never read as "no
limit"; ``slth`` checks it at start, like an option (one line, exit 2).
"""
from __future__ import annotations

import math
import os

__all__ = ["SettingError", "SYMPY_SECONDS_ENV", "MAX_SYMPY_SECONDS", "sympy_seconds"]

SYMPY_SECONDS_ENV = "SLTH_SYMPY_SECONDS"
DEFAULT_SYMPY_SECONDS = 60.0
MAX_SYMPY_SECONDS = 86400.0
"""A day per SymPy stage at most: a longer limit is no limit (and overflows the interval timer behind it)."""


class SettingError(ValueError):
    """An environment variable whose value is not a setting (one line naming it and the problem)."""


def sympy_seconds(environ=None) -> float:
    """``$SLTH_SYMPY_SECONDS`` as the guard's seconds per stage (default 60), or ``SettingError``."""
    text = (os.environ if environ is None else environ).get(SYMPY_SECONDS_ENV)
    if text is None or text.strip() == "":
        return DEFAULT_SYMPY_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or not 0 < value <= MAX_SYMPY_SECONDS:
        raise SettingError(f"${SYMPY_SECONDS_ENV}={text!r}: expected the seconds per SymPy stage, a number in "
                           f"(0, {MAX_SYMPY_SECONDS:g}] (unset: {DEFAULT_SYMPY_SECONDS:g})")
    return value
