"""The settings the prover reads from the environment: ``slth_base.settings`` (the one parser and checker of every
setting of the harness) under the names the verifier imports. ``sympy_seconds()`` is ``$SLTH_SYMPY_SECONDS``, the
CPU seconds after which a stage of the verifier is cut as "machine too slow" (``bounds.prove.verify_domain.STAGE_SECONDS``;
default 60): a guard only, since each stage's work budget, a count of calls the same on every machine, cuts it first
on any machine not several times slower than the one it was calibrated on."""
from __future__ import annotations

from slth_base.settings import DEFAULT_SYMPY_SECONDS, MAX_SYMPY_SECONDS, SYMPY_SECONDS_ENV, SettingError, sympy_seconds

__all__ = ["SettingError", "SYMPY_SECONDS_ENV", "DEFAULT_SYMPY_SECONDS", "MAX_SYMPY_SECONDS", "sympy_seconds"]
