"""Failure rates of probabilistic statements ("with probability >= 1 - eps", theorems.md §10) and calibration of C.

A statement module provides ``trial(seed, C, **params) -> Case``: ONE independent random source (seeded), the
ticket built by the proof's construction at the widths ``bounds`` requires for that C, and the measured error
against the bound; ``Case.violated`` marks a failure. Trials with seeds ``seed, seed+1, ...`` are independent.

Calibration (``calibrate_point``): over an ascending grid of C, the failure count of ``trials`` fixed seeds
(common random numbers across C). Two estimates per grid point:
- ``C_point``: the smallest grid C whose observed failure rate is <= eps;
- ``C_upper``: the smallest grid C whose one-sided 95% Clopper-Pearson upper bound on the rate is <= eps
  (the C the observations SUPPORT; the value used, with ``C_point`` as its lower uncertainty end).

A check of a statement is a ``RateCheck``: the statement, the eps window its strategy draws from, and how many
trials each drawn eps gets (by default the fewest that detect ``stats.target_rate(eps)`` with power
``stats.POWER`` at ``stats.LEVEL``). It is validated when defined: a configuration that cannot reject at the top of
its eps window even when every trial fails raises ``stats.Unrejectable`` at import (collection) time, and a check
that stays below the power target in the ``ci`` profile must say why (``ci_reason``).
"""
from __future__ import annotations

import dataclasses

from hypothesis import settings

from slt.measure.stats import (CONFIDENCE, LEVEL, POWER, detectable_rate, excess_test, target_rate, trials_for_power,
                               upper_bound)

C_GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0)


def failure_rate(trial, C: float, params: dict, trials: int, seed: int):
    """``(RateTest against eps, cases)`` of ``trials`` independent sources at constant C."""
    cases = [trial(seed + k, C, **params) for k in range(trials)]
    failures = sum(c.violated for c in cases)
    return excess_test(failures, trials, params["eps"]), cases


def trials_needed(eps: float, confidence: float = CONFIDENCE) -> int:
    """Smallest number of trials for which zero failures give a Clopper-Pearson upper bound <= eps."""
    n = 1
    while upper_bound(0, n, confidence) > eps:
        n += 1
    return n


def calibrate_point(trial, params: dict, trials: int, seed: int, grid=C_GRID, progress=None) -> dict:
    """Smallest grid C meeting each criterion, by bisection over the ascending grid (failure counts of the
    same seeds are non-increasing in C up to noise); every evaluated C is kept in ``grid`` of the result."""
    eps = params["eps"]
    rows = {}

    def row(i):
        if i not in rows:
            C = grid[i]
            cases = [trial(seed + k, C, **params) for k in range(trials)]
            failures = sum(c.violated for c in cases)
            rows[i] = {"C": C, "failures": failures, "trials": trials, "upper": upper_bound(failures, trials),
                       "worst_ratio": max(c.ratio for c in cases), "widths": cases[0].widths}
            if progress:
                progress(f"C={C}: {failures}/{trials} failures (Clopper-Pearson upper {rows[i]['upper']:.3g})")
        return rows[i]

    def smallest(ok):
        lo, hi = 0, len(grid) - 1
        if not ok(row(hi)):
            return None
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(row(mid)) else (mid + 1, hi)
        return grid[lo]

    upper = smallest(lambda r: r["upper"] <= eps)
    point = smallest(lambda r: r["failures"] <= eps * r["trials"])
    return {**params, "trials": trials, "seed": seed, "C_point": point, "C_upper": upper,
            "grid": [rows[i] for i in sorted(rows)]}


def summarise(points: list[dict]) -> dict:
    """Statement-level constant: C = max over grid points of C_upper; C_low = max of C_point."""
    ups = [p["C_upper"] for p in points]
    if not points or any(u is None for u in ups):
        return {"C": None, "C_low": None, "C_high": None, "points": points,
                "note": "some grid point never met the criterion within the C grid"}
    lows = [p["C_point"] for p in points if p["C_point"] is not None]
    return {"C": max(ups), "C_low": max(lows) if lows else None, "C_high": max(ups), "points": points}


EVIDENCE: list[str] = []
"""One line per rate test run by ``assert_rate`` in this process (checks/conftest.py prints them after a run)."""


def assert_rate(statement: str, C: float, params: dict, trial, trials: int, seed: int):
    """The check: no significant excess of failures over eps at constant C (message carries the evidence).

    Returns the ``RateTest`` (its ``detectable_rate`` is the power, as a number); raises ``stats.Unrejectable``
    before running anything when ``trials`` could not reject even if every trial failed."""
    detectable_rate(trials, params["eps"])  # refuse a test that cannot fail before spending any trial
    test, cases = failure_rate(trial, C, params, trials, seed)
    line = f"{statement} at C={C:.4g} " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                                   for k, v in params.items()) + f" (seed {seed}): {test.describe()}"
    EVIDENCE.append(line)
    if not test.passed:
        failed = [c for c in cases if c.violated]
        worst = max(failed, key=lambda c: c.ratio)
        raise AssertionError(line + "\n  worst failing trial:\n" + worst.describe())
    return test


@dataclasses.dataclass(frozen=True)
class RateCheck:
    """A statement's failure-rate check: the eps window it draws from and its trial count per drawn eps.

    ``trials``: None (every profile: the fewest trials reaching the power target at the drawn eps) or a fixed
    count. ``ci_trials``: a fixed count for the ``ci`` profile only, below the target where the CI budget does
    not fit it; ``ci_reason`` must then say why and where the target is reached (the ``thorough`` profile).
    Validated when defined: ``stats.Unrejectable`` if any count cannot reject at the top of the window."""

    statement: str
    eps: tuple
    trials: int | None = None
    ci_trials: int | None = None
    ci_reason: str = ""
    level: float = LEVEL

    def __post_init__(self):
        lo, hi = _bounds(self.eps)
        if not 0.0 < lo <= hi < 1.0:
            raise ValueError(f"{self.statement}: eps window must lie in (0, 1), got [{lo}, {hi}]")
        object.__setattr__(self, "eps", (lo, hi))
        for profile in ("ci", "thorough"):
            n = self.trials_at(hi, profile)
            try:
                detectable_rate(n, hi, self.level)
            except ValueError as exc:
                raise type(exc)(f"{self.statement} ({profile} profile, eps up to {hi:.4g}): {exc}") from None
        if self.ci_trials is not None and not self.ci_reason:
            met = all(self.meets_target(e, "ci") for e in (lo, hi))
            if not met:
                raise ValueError(f"{self.statement}: ci_trials={self.ci_trials} is below the power target on "
                                 f"[{lo:.4g}, {hi:.4g}]; say why in ci_reason")

    def trials_at(self, eps: float, profile: str | None = None) -> int:
        """Trials for a drawn ``eps`` in ``profile`` (default: the loaded hypothesis profile)."""
        profile = profile or current_profile()
        if profile == "ci" and self.ci_trials is not None:
            return self.ci_trials
        if self.trials is not None:
            return self.trials
        return trials_for_power(eps, level=self.level)

    def detectable(self, eps: float, profile: str | None = None) -> float:
        return detectable_rate(self.trials_at(eps, profile), eps, self.level)

    def meets_target(self, eps: float, profile: str | None = None) -> bool:
        return self.detectable(eps, profile) <= target_rate(eps)

    def run(self, C: float, params: dict, trial, seed: int):
        """``assert_rate`` at the drawn ``params["eps"]`` (which must lie in the window) with ``trials_at`` trials."""
        eps = params["eps"]
        lo, hi = self.eps
        if not lo <= eps <= hi:
            raise ValueError(f"{self.statement}: eps={eps} outside the check's window [{lo:.4g}, {hi:.4g}]")
        return assert_rate(self.statement, C, params, trial, self.trials_at(eps), seed)

    def describe(self) -> str:
        """One line per profile: trials and detectable rate at both ends of the eps window, against the target."""
        lines = []
        for profile in ("ci", "thorough"):
            parts = []
            for e in sorted(set(self.eps)):
                n, d = self.trials_at(e, profile), self.detectable(e, profile)
                parts.append(f"eps={e:.3g}: {n} trials detect >= {d:.3g} (target {target_rate(e):.3g}, "
                             + ("met)" if d <= target_rate(e) else "NOT met)"))
            lines.append(f"{self.statement} [{profile}] power {POWER:g} at level {self.level}: " + "; ".join(parts)
                         + (f" -- {self.ci_reason}" if profile == "ci" and self.ci_reason else ""))
        return "\n".join(lines)


def current_profile() -> str:
    """The loaded hypothesis profile: "thorough" when loaded, else "ci" (the default of every run)."""
    return "thorough" if getattr(settings, "_current_profile", None) == "thorough" else "ci"


def _bounds(window) -> tuple[float, float]:
    if hasattr(window, "lo") and hasattr(window, "hi"):
        return float(window.lo), float(window.hi)
    if isinstance(window, list):
        return float(min(window)), float(max(window))
    lo, hi = window
    return float(lo), float(hi)

