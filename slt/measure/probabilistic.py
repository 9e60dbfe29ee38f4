"""Failure rates of probabilistic statements ("with probability >= 1 - eps", docs/checks.md) and the C grid.

A statement module provides ``trial(seed, C, **params) -> Case``: ONE independent random source (seeded), the
ticket built by the proof's construction at the widths ``bounds`` requires for that C, and the measured error
against the bound; ``Case.violated`` marks a failure. Trials with seeds ``seed, seed+1, ...`` are independent.

``C_GRID`` is the grid of C the calibration (``slt.measure.calibrate``, which says how C is estimated) searches.

A check of a statement is a ``RateCheck``: the statement, the eps window its strategy draws from, and how many
trials each drawn eps gets (by default the fewest that detect ``stats.target_rate(eps) = 2 eps`` with power
``stats.POWER`` at the level the test gets: ``stats.FAMILY_WISE / m`` in a checks run of m rate tests, Holm). A
fixed count that cannot reject at the top of its eps window even when every trial fails raises
``stats.Unrejectable`` at import (collection) time.
"""
from __future__ import annotations

import dataclasses

from hypothesis import settings

from slt.measure.stats import (CONFIDENCE, LEVEL, detectable_rate, excess_test, stopping_failures,
                               trials_for_power, upper_bound)

C_GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0)


def failure_rate(trial, C: float, params: dict, trials: int, seed: int, level: float = LEVEL):
    """``(RateTest against eps at level, cases)`` of ``trials`` independent sources at constant C (read back from
    the trial cache, ``slt.measure.trial_cache``, when ``$SLTH_TRIAL_CACHE`` names one)."""
    from slt.measure import trial_cache

    cases = trial_cache.cases(trial, C, params, seed, trials)
    failures = sum(c.violated for c in cases)
    return excess_test(failures, trials, params["eps"], level), cases


def trials_needed(eps: float, confidence: float = CONFIDENCE) -> int:
    """Smallest number of trials for which zero failures give a Clopper-Pearson upper bound <= eps."""
    n = 1
    while upper_bound(0, n, confidence) > eps:
        n += 1
    return n


RATE_TESTS: list[dict] = []
"""One record per rate test run by ``assert_rate`` in this process: its evidence line, p-value, level and outcome
(``checks/conftest.py`` applies Holm's procedure to those of a checks run)."""


def assert_rate(statement: str, C: float, params: dict, trial, trials: int, seed: int, level: float = LEVEL):
    """The check: no significant excess of failures over eps at constant C at ``level`` (message carries the
    evidence).

    The trials run in seed order and stop once their failures reject whatever the others would give
    (``stats.stopping_failures``): the verdict is the full run's, and a check that fails says after how many.
    Returns the ``RateTest`` (its ``detectable_rate`` is the power, as a number); raises ``stats.Unrejectable``
    before running anything when ``trials`` could not reject even if every trial failed."""
    from slt.measure import trial_cache

    detectable_rate(trials, params["eps"], level)  # refuse a test that cannot fail before spending any trial
    stop = stopping_failures(trials, params["eps"], level)  # from there on the rest cannot change the verdict
    cases = trial_cache.cases(trial, C, params, seed, trials, stop_at=stop)
    test = excess_test(sum(c.violated for c in cases), trials, params["eps"], level, run=len(cases))
    line = f"{statement} at C={C:.4g} " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                                   for k, v in params.items()) + f" (seed {seed}): {test.describe()}"
    RATE_TESTS.append({"line": line, "pvalue": test.pvalue, "level": level, "passed": test.passed})
    if not test.passed:
        worst = max((c for c in cases if c.violated), key=lambda c: c.ratio)
        raise AssertionError(line + "\n  worst failing trial:\n" + worst.describe())
    return test


@dataclasses.dataclass(frozen=True)
class RateCheck:
    """A statement's failure-rate check: the eps window it draws from and its trial count per drawn eps. A window
    stops low where the CI budget does (the trials a test needs for power 0.8 against 2 eps at the checks run's Holm
    level grow like 1/eps); the fixed-C tests of ``slth targets fixed-c`` go lower.

    ``trials``: None (the fewest trials detecting ``stats.target_rate(eps) = 2 eps`` with power ``stats.POWER`` at
    the level the test gets, ``stats.FAMILY_WISE / m`` in a checks run of m rate tests: ``slt.measure.checking``) or a
    fixed count. Validated when defined: the window lies in (0, 1) and a fixed count can reject at the top of the
    window at ``stats.LEVEL`` (``stats.Unrejectable`` otherwise); at the family-wise level the plan test
    (``tests/test_checks_machinery.py``) holds every check to its power."""

    statement: str
    eps: tuple
    trials: int | None = None

    def __post_init__(self):
        w = self.eps  # a window (lo, hi), a LogUniform, or a list of choices
        lo, hi = ((w.lo, w.hi) if hasattr(w, "lo") and hasattr(w, "hi") else (min(w), max(w)) if isinstance(w, list)
                  else w)
        lo, hi = float(lo), float(hi)
        if not 0.0 < lo <= hi < 1.0:
            raise ValueError(f"{self.statement}: eps window must lie in (0, 1), got [{lo}, {hi}]")
        object.__setattr__(self, "eps", (lo, hi))
        if self.trials is not None:
            try:
                detectable_rate(self.trials, hi, LEVEL)
            except ValueError as exc:
                raise type(exc)(f"{self.statement} (eps up to {hi:.4g}): {exc}") from None

    def trials_at(self, eps: float, level: float = LEVEL) -> int:
        """Trials for a drawn ``eps`` when the test runs at ``level``."""
        return self.trials if self.trials is not None else trials_for_power(eps, level=level)

    def run(self, C: float, params: dict, trial, seed: int, level: float = LEVEL):
        """``assert_rate`` at the drawn ``params["eps"]`` (which must lie in the window) with ``trials_at`` trials,
        the test at ``level``."""
        eps = params["eps"]
        lo, hi = self.eps
        if not lo <= eps <= hi:
            raise ValueError(f"{self.statement}: eps={eps} outside the check's window [{lo:.4g}, {hi:.4g}]")
        return assert_rate(self.statement, C, params, trial, self.trials_at(eps, level), seed, level)


def current_profile() -> str:
    """The loaded hypothesis profile: "thorough" when loaded, else "ci" (the default of every run)."""
    return "thorough" if getattr(settings, "_current_profile", None) == "thorough" else "ci"
