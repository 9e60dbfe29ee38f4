"""The one verdict function of the harness: a statement (or a check) "holds", "fails" or is "undecided at this
power", by the rule docs/checks.md states.

A failure-rate check of a statement "with probability >= 1 - eps":

- **fails** when the one-sided exact binomial test rejects "failure rate <= eps" at ``stats.LEVEL``;
- **holds** only when the upper end of the 95% Clopper-Pearson interval of the failure rate is at most eps;
- otherwise it is **undecided at this power** (too few trials to tell): never shown as a pass.

A deterministic check (an adversarial search, a length sweep, a stored counterexample) fails when a case exceeds
its bound and holds otherwise ("no violation found"). A statement's verdict combines its checks: it fails if one
fails, else it is undecided if one is undecided, else it holds.

The run record stores these words (``slt.measure.empirical.decide``); the summary, every table, every per-point
row, ``slth rate`` and ``slth diff`` show the stored word and nothing else, so one point cannot read "holds" in one
place and "undecided" in another (``tests/test_verdicts.py`` renders records and compares every place).
"""
from __future__ import annotations

import math

HOLDS = "holds"
FAILS = "fails"
UNDECIDED = "undecided at this power"
WORDS = (HOLDS, UNDECIDED, FAILS)
"""Every verdict word, from the best to the worst (``combine`` takes the worst)."""


def rate_word(rejected: bool, upper: float, eps: float) -> str:
    """The verdict of a failure-rate test: ``rejected`` (the one-sided test rejects "rate <= eps"), ``upper`` (the
    upper end of the 95% interval of the failure rate)."""
    if not (isinstance(upper, (int, float)) and math.isfinite(upper) and isinstance(eps, (int, float))
            and math.isfinite(eps)):
        raise ValueError(f"a rate verdict needs a finite upper end and eps, got upper={upper!r}, eps={eps!r}")
    return FAILS if rejected else HOLDS if upper <= eps else UNDECIDED


def deterministic_word(violated: bool) -> str:
    """The verdict of a deterministic check: fails when a case exceeds its bound, holds otherwise."""
    return FAILS if violated else HOLDS


def combine(words) -> str:
    """A statement's verdict from its checks' verdicts: the worst of them (fails > undecided > holds); holds when
    there is none."""
    out = HOLDS
    for w in words:
        if w not in WORDS:
            raise ValueError(f"unknown verdict {w!r}; verdicts: {', '.join(WORDS)}")
        out = max(out, w, key=WORDS.index)
    return out


def power_sentence(power: dict | None) -> str:
    """The power of a rate test as one sentence: "detects a failure rate of 0.84 or more with probability 0.8
    (the checks' target, 0.78, is not reached)"; empty when the test states no power."""
    if not isinstance(power, dict):
        return ""
    out = f"detects a failure rate of {power['detectable_rate']:.2g} or more with probability {power['power']:.2g}"
    target = power.get("target_rate")
    if target is not None:
        out += (f" (the checks' target, a rate of {target:.2g}, is "
                + ("reached)" if power.get("meets_target") else "not reached)"))
    return out


def rate_decision(check: dict) -> dict:
    """A failure-rate check's verdict ``{"word", "text"}`` from its stored numbers (failures, trials, interval,
    p-value, level or passed, eps in params, power)."""
    eps = check["params"]["eps"]
    lo, hi = check["interval"]
    word = rate_word(not check["passed"], hi, eps)
    counts = f"{check['failures']}/{check['trials']} failures"
    power = power_sentence(check.get("power"))
    power = f"; the test {power}" if power else ""
    if word == FAILS:
        text = f"{counts}, a rate significantly above eps = {eps:.3g} (p = {check['pvalue']:.2g}){power}"
    elif word == HOLDS:
        text = f"{counts}; 95% interval [{lo:.2g}, {hi:.2g}], upper end at most eps = {eps:.3g}{power}"
    else:
        text = (f"{counts}; no significant excess over eps = {eps:.3g}, but the 95% interval [{lo:.2g}, {hi:.2g}] "
                f"reaches above it, so these trials cannot show the rate is at most eps{power}")
    return {"word": word, "text": text}


def check_word(check: dict) -> str:
    """The verdict of any stored check: a rate check by ``rate_decision``, a deterministic one by its cases."""
    if check["kind"] == "rate":
        return rate_decision(check)["word"]
    if "cases" in check:
        return deterministic_word(any(c["violated"] for c in check["cases"]))
    return check["verdict"] if check["verdict"] in WORDS else deterministic_word(check["verdict"] != HOLDS)


def redecide(empirical: dict) -> dict:
    """The empirical part of a record with every verdict (per check, per statement, per probabilistic statement)
    recomputed from its numbers by this module: used to bring records written before this module to its words."""
    checks = []
    verdicts: dict[str, list] = {}
    for c in empirical["checks"]:
        c = dict(c)
        if c["kind"] == "rate":
            c["decision"] = rate_decision(c)
            c["verdict"] = c["decision"]["word"]
        else:
            c["verdict"] = check_word(c)
        checks.append(c)
        if not (c["kind"] == "length" and c["statement"] == "theorem9"):  # one ticket: its verdict is its rates
            verdicts.setdefault(c["statement"], []).append(c["verdict"])
    return {**empirical, "checks": checks, "verdicts": {k: combine(v) for k, v in verdicts.items()},
            "decisions": {k: combine(c["verdict"] for c in checks if c["kind"] == "rate" and c["statement"] == k)
                          for k in dict.fromkeys(c["statement"] for c in checks if c["kind"] == "rate")}}


def counts(words) -> dict:
    """How many of ``words`` hold, fail, are undecided."""
    words = list(words)
    return {w: words.count(w) for w in WORDS}


def normalise(empirical: dict) -> dict:
    """``empirical`` as is when every verdict in it is one of ``WORDS``; else (a record written before this module,
    with "pass" / "FAIL" / "violated") recomputed by ``redecide``."""
    words = [c["verdict"] for c in empirical["checks"]] + list(empirical["verdicts"].values())
    return empirical if all(w in WORDS for w in words) else redecide(empirical)
