"""Statistics of probabilistic statements: failure rates, Clopper-Pearson intervals, a one-sided binomial test.

A statement "with probability >= 1 - eps" is checked as a failure rate over independent random sources
(theorems.md §10): the check fails only on a statistically significant EXCESS of failures over eps,
i.e. when the one-sided exact binomial test of H0: rate <= eps against H1: rate > eps rejects at ``LEVEL``.
"""
from __future__ import annotations

import dataclasses

LEVEL = 0.01
"""Significance level of the one-sided binomial test used by every probabilistic check."""

CONFIDENCE = 0.95
"""Two-sided confidence of the Clopper-Pearson intervals printed in evidence and the report."""


def clopper_pearson(failures: int, trials: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval for a binomial proportion."""
    from scipy.stats import beta

    _validate(failures, trials)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    a = 1.0 - confidence
    lo = 0.0 if failures == 0 else float(beta.ppf(a / 2, failures, trials - failures + 1))
    hi = 1.0 if failures == trials else float(beta.ppf(1 - a / 2, failures + 1, trials - failures))
    return lo, hi


def upper_bound(failures: int, trials: int, confidence: float = CONFIDENCE) -> float:
    """One-sided Clopper-Pearson upper confidence bound on the failure rate."""
    from scipy.stats import beta

    _validate(failures, trials)
    return 1.0 if failures == trials else float(beta.ppf(confidence, failures + 1, trials - failures))


@dataclasses.dataclass(frozen=True)
class RateTest:
    """Outcome of the one-sided test H0: failure rate <= p0 (the statement's eps) at level ``level``."""

    failures: int
    trials: int
    p0: float
    level: float
    pvalue: float
    interval: tuple[float, float]

    @property
    def rate(self) -> float:
        return self.failures / self.trials

    @property
    def passed(self) -> bool:
        return self.pvalue >= self.level

    def describe(self) -> str:
        lo, hi = self.interval
        return (
            f"{self.failures}/{self.trials} failures (rate {self.rate:.4g}, {CONFIDENCE:.0%} CI [{lo:.4g}, {hi:.4g}]) "
            f"vs allowed {self.p0:.4g}: one-sided binomial p = {self.pvalue:.3g} at level {self.level} -> "
            + ("pass" if self.passed else "FAIL (significant excess)")
        )


def excess_test(failures: int, trials: int, p0: float, level: float = LEVEL) -> RateTest:
    """One-sided exact binomial test of an excess of failures over ``p0`` (scipy.stats.binomtest)."""
    from scipy.stats import binomtest

    _validate(failures, trials)
    if not 0.0 <= p0 <= 1.0:
        raise ValueError(f"allowed failure probability p0 must lie in [0, 1], got {p0}")
    pvalue = float(binomtest(failures, trials, p0, alternative="greater").pvalue)
    return RateTest(failures, trials, float(p0), level, pvalue, clopper_pearson(failures, trials))


def _validate(failures: int, trials: int) -> None:
    if trials <= 0:
        raise ValueError(f"trials must be positive, got {trials}")
    if not 0 <= failures <= trials:
        raise ValueError(f"failures must lie in [0, trials={trials}], got {failures}")
