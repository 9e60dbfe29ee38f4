"""Statistics of probabilistic statements: failure rates, Clopper-Pearson intervals, a one-sided binomial test.

A statement "with probability >= 1 - eps" is checked as a failure rate over independent random sources
(docs/checks.md): the check fails only on a statistically significant EXCESS of failures over eps,
i.e. when the one-sided exact binomial test of H0: rate <= eps against H1: rate > eps rejects at ``LEVEL``.

Power, as a number: a test of ``n`` trials rejects when at least ``k`` trials fail, ``k`` the smallest count with
``P(Bin(n, eps) >= k) <= LEVEL`` (``critical_failures``). Its power against a true failure rate ``p`` is
``P(Bin(n, p) >= k)``, and ``detectable_rate(n, eps)`` is the smallest ``p`` with power >= ``POWER`` (exactly: the
``POWER`` quantile of Beta(k, n - k + 1), since ``P(Bin(n, p) >= k)`` is that distribution's CDF at p). A test
that cannot reject even when every trial fails (``eps^n > LEVEL``) is refused (``Unrejectable``). The checks'
target: detect ``target_rate(eps) = min(2 eps, 1)`` with power >= ``POWER`` at the level each test of a
checks run gets under Holm's procedure, ``FAMILY_WISE / m`` for the m rate tests of the run (``holm``);
``trials_for_power`` gives the smallest trial count that does.
"""
from __future__ import annotations

import dataclasses
import math

from slt.measure.verdicts import rate_word


def _scipy():
    """``scipy.stats``, imported by the first test or interval computed, not with this module (the statement
    catalogue imports it, and `slth diff` and `slth proofs` compute none)."""
    import scipy.stats

    return scipy.stats


LEVEL = 0.01
"""Significance level of a single one-sided binomial test run on its own (``slth rate``, the run record)."""

FAMILY_WISE = 0.05
"""Family-wise error of all rate tests of one checks run, controlled by Holm's procedure (``holm``): each of the m
tests fails at once when its p-value is <= FAMILY_WISE / m (Holm's first step, which every later step includes), and
the run fails at its end when Holm rejects any further test (``checks/conftest.py``)."""

POWER = 0.8
"""Power at which a rate test's ``detectable_rate`` is stated."""

CONFIDENCE = 0.95
"""Two-sided confidence of the Clopper-Pearson intervals printed in evidence and the report."""


def clopper_pearson(failures: int, trials: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval for a binomial proportion."""
    _validate(failures, trials)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    a = 1.0 - confidence
    lo = 0.0 if failures == 0 else float(_scipy().beta.ppf(a / 2, failures, trials - failures + 1))
    hi = 1.0 if failures == trials else float(_scipy().beta.ppf(1 - a / 2, failures + 1, trials - failures))
    return lo, hi


def upper_bound(failures: int, trials: int, confidence: float = CONFIDENCE) -> float:
    """One-sided Clopper-Pearson upper confidence bound on the failure rate."""
    _validate(failures, trials)
    return 1.0 if failures == trials else float(_scipy().beta.ppf(confidence, failures + 1, trials - failures))


class Unrejectable(ValueError):
    """A rate test that cannot reject H0 even when every trial fails (``p0^trials > level``)."""


def critical_failures(trials: int, p0: float, level: float = LEVEL) -> int:
    """Smallest failure count ``k`` with ``P(Bin(trials, p0) >= k) <= level`` (the test rejects from k on).

    Raises ``Unrejectable`` when even ``k = trials`` does not reach the level."""
    _validate(0, trials)
    _probability("p0", p0)
    _probability("level", level)
    if p0 ** trials > level:
        raise Unrejectable(
            f"{trials} trials cannot reject 'failure rate <= {p0:.4g}' at level {level}: even {trials}/{trials} "
            f"failures give p = {p0 ** trials:.3g}; need at least {min_trials(p0, level)} trials")
    lo, hi = 0, trials  # P(X >= k) is non-increasing in k; hi satisfies the level
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if _scipy().binom.sf(mid - 1, trials, p0) <= level else (mid + 1, hi)
    return lo


def min_trials(p0: float, level: float = LEVEL) -> int:
    """Fewest trials for which all-fail rejects ``rate <= p0`` at ``level`` (``p0^n <= level``)."""
    if p0 <= 0.0:
        return 1
    if p0 >= 1.0:
        raise Unrejectable(f"'failure rate <= {p0}' can never be rejected")
    n = max(1, math.ceil(math.log(level) / math.log(p0)))
    while p0 ** n > level:
        n += 1
    return n


def power_at(trials: int, p0: float, rate: float, level: float = LEVEL) -> float:
    """Probability that the test of ``trials`` trials rejects ``rate <= p0`` when the true failure rate is ``rate``."""
    _probability("rate", rate)
    k = critical_failures(trials, p0, level)
    return float(_scipy().binom.sf(k - 1, trials, rate))


def detectable_rate(trials: int, p0: float, level: float = LEVEL, power: float = POWER) -> float:
    """Smallest true failure rate the test detects with probability >= ``power`` (exact, from the binomial)."""
    _probability("power", power)
    k = critical_failures(trials, p0, level)
    return 0.0 if k == 0 else float(_scipy().beta.ppf(power, k, trials - k + 1))


def target_rate(eps: float) -> float:
    """The failure rate every probabilistic check must detect: twice the allowed rate, ``min(2 eps, 1)``."""
    return min(2.0 * eps, 1.0)


def holm(pvalues: list[float], level: float = FAMILY_WISE) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected with family-wise error <= ``level``."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    reject = [False] * len(pvalues)
    m = len(pvalues)
    for rank, i in enumerate(order):
        if pvalues[i] > level / (m - rank):
            break
        reject[i] = True
    return reject


def trials_for_power(p0: float, rate: float | None = None, level: float = LEVEL, power: float = POWER,
                     limit: int = 100_000) -> int:
    """Smallest trial count whose test detects ``rate`` (default ``target_rate(p0)``) with ``power`` at ``level``.

    The power of an exact binomial test is not monotone in the trials (it saws), so every count from
    ``min_trials`` on is tried in turn: ``CHUNK`` counts at once, each count's critical failures found by the
    predicate ``critical_failures`` bisects on (``P(Bin(n, p0) >= k) <= level``, least such k), checked exactly at
    k and k - 1 after a guess from the inverse survival function."""
    rate = target_rate(p0) if rate is None else rate
    if not p0 < rate <= 1.0:
        raise ValueError(f"the rate to detect must lie in ({p0}, 1], got {rate}")
    import numpy as np

    binom = _scipy().binom
    n = min_trials(p0, level)
    while n <= limit:
        ns = np.arange(n, min(n + CHUNK, limit + 1))
        k = np.clip(binom.isf(level, ns, p0) + 1, 0, ns).astype(np.int64)  # a guess, corrected exactly below
        for _ in range(64):
            low = k > 0
            too_high = low & (binom.sf(k - 2, ns, p0) <= level)  # k - 1 also meets the level
            too_low = binom.sf(k - 1, ns, p0) > level  # k does not meet it
            if not (too_high.any() or too_low.any()):
                break
            k = k - too_high + too_low
        else:
            raise ArithmeticError(f"critical counts of {ns[0]}..{ns[-1]} trials did not settle")
        hit = np.flatnonzero(binom.sf(k - 1, ns, rate) >= power)
        if hit.size:
            return int(ns[hit[0]])
        n = int(ns[-1]) + 1
    raise ValueError(f"more than {limit} trials needed to detect {rate} against {p0}")


CHUNK = 4096
"""Trial counts ``trials_for_power`` tries in one vectorised step."""


@dataclasses.dataclass(frozen=True)
class RateTest:
    """Outcome of the one-sided test H0: failure rate <= p0 (the statement's eps) at level ``level``."""
    failures: int
    trials: int
    p0: float
    level: float
    pvalue: float
    interval: tuple[float, float]
    detectable_rate: float
    """Smallest true failure rate this test detects with probability >= ``power`` (``stats.detectable_rate``)."""
    power: float = POWER
    run: int | None = None
    """Trials run when fewer than ``trials``: the check stopped once its failures rejected whatever the other
    trials give (``stopping_failures``); ``failures`` counts those of the trials run."""

    @property
    def target_rate(self) -> float:
        """The rate the checks must detect: ``target_rate(p0)``."""
        return target_rate(self.p0)

    @property
    def meets_target(self) -> bool:
        return self.detectable_rate <= self.target_rate

    @property
    def rate(self) -> float:
        return self.failures / (self.run or self.trials)

    @property
    def passed(self) -> bool:
        return self.pvalue >= self.level

    @property
    def verdict(self) -> str:
        """"holds", "fails" or "undecided at this power", by ``slt.measure.verdicts.rate_word``."""
        return rate_word(not self.passed, self.interval[1], self.p0)

    def describe(self) -> str:
        lo, hi = self.interval
        verdict = self.verdict
        why = {"fails": " (a significant excess over eps)",
               "holds": " (the interval's upper end is at most eps)",
               }.get(verdict, " (no significant excess, but the interval reaches above eps)")
        counted = f"{self.failures}/{self.trials} failures" if self.run is None else \
            f"{self.failures}/{self.run} failures in the first {self.run} of {self.trials} trials (stopped there: " \
            f"{self.failures} of {self.trials} reject whatever the other {self.trials - self.run} give)"
        return (
            f"{counted} (rate {self.rate:.4g}, {CONFIDENCE:.0%} CI [{lo:.4g}, {hi:.4g}]) "
            f"vs allowed {self.p0:.4g}: one-sided binomial p {'=' if self.run is None else '<='} {self.pvalue:.3g} "
            f"at level {self.level} -> "
            + verdict + why
            + f"; the test detects a failure rate of {self.detectable_rate:.3g} or more with probability "
            + f"{self.power:g} (the checks' target, {self.target_rate:.3g}, is "
            + ("reached)" if self.meets_target else "not reached)")
        )


def excess_test(failures: int, trials: int, p0: float, level: float = LEVEL, run: int | None = None) -> RateTest:
    """One-sided exact binomial test of an excess of failures over ``p0`` (scipy.stats.binomtest).

    ``run``: the trials run when the test stopped early with ``failures`` of them failing, which reject at any
    outcome of the others (``stopping_failures``); the p-value is then that of ``failures`` in ``trials``, at
    least the full run's, and the interval that of the trials run."""
    _validate(failures, trials)
    if not 0.0 <= p0 <= 1.0:
        raise ValueError(f"allowed failure probability p0 must lie in [0, 1], got {p0}")
    detectable = detectable_rate(trials, p0, level)  # raises Unrejectable for a test that can never fail
    pvalue = _excess_pvalue(failures, trials, p0)
    if run is None or run == trials:
        return RateTest(failures, trials, float(p0), level, pvalue, clopper_pearson(failures, trials), detectable)
    _validate(failures, run)
    if not run < trials or pvalue >= level:
        raise ValueError(f"a test stopped after {run} of {trials} trials must have rejected already "
                         f"({failures} failures give p = {pvalue:.3g} at level {level})")
    return RateTest(failures, trials, float(p0), level, pvalue, clopper_pearson(failures, run), detectable, run=run)


def _excess_pvalue(failures: int, trials: int, p0: float) -> float:
    return float(_scipy().binomtest(failures, trials, p0, alternative="greater").pvalue)


def stopping_failures(trials: int, p0: float, level: float = LEVEL) -> int:
    """The fewest failures among ``trials`` at which ``excess_test`` rejects at ``level`` whatever the others give
    (its p-value only falls as failures are added): a check may stop there with the verdict of the full run.
    Raises ``Unrejectable`` when no count rejects."""
    k = critical_failures(trials, p0, level)
    while _excess_pvalue(k, trials, p0) >= level:  # RateTest.passed is p >= level: the first k it rejects
        k += 1
    return k


def _probability(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value}")


def _validate(failures: int, trials: int) -> None:
    if trials <= 0:
        raise ValueError(f"trials must be positive, got {trials}")
    if not 0 <= failures <= trials:
        raise ValueError(f"failures must lie in [0, trials={trials}], got {failures}")
