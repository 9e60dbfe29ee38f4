"""The slack of every numeric constant of the encoded proofs: the tightest value for which every step of
every proof still closes (``slth proofs --slack``).

Each ``Constant`` (``bounds.core``, declared beside its statement in ``Statement.slack``) names one number of one
statement (in one or more of its fields, e.g. Lemma 8's 2 in
``exp(2 eps_max)`` sits in the conclusion and in the proof constant ``ratio``).  ``slack(constant)`` replaces
it by a candidate value (``bounds.core.Edit`` on a copy of the catalogue) and runs the verifier on every
proof; a value *closes* when every step is certified (symbolic or interval, on its stated domain).  From the
printed value it walks in the direction that tightens the statement (a factor 2 at a time, then bisection in
log scale to a relative ``TOL``) and returns the last value that closes (certified like any step) and the
first that does not (with the step that fails there and its counterexample).  A constant whose slightest
tightening fails is *forced*.

``rows()`` returns the table as plain dicts for the CLI, the report and the run record.
"""
from __future__ import annotations

import mpmath
import sympy as sp

from ..catalogue import STATEMENTS, canonical, constants, dependents
from ..core import Constant
from .verify import verify

TOL = sp.Rational(1, 100)  # the bracket [closing, failing] is narrowed to a relative width below 1%
REACH = 40  # at most 2^40 away from the printed value


CONSTANTS: tuple[Constant, ...] = constants()  # declared beside each statement (``Statement.slack``)


def _affected(statement: str) -> list[str]:
    """The proved statements whose proofs use ``statement`` (directly or through others), itself first."""
    out = dependents([statement])
    return [n for n in out if n == statement] + [n for n in out if n != statement]


def _closes(constant: Constant, catalogue) -> tuple:
    """(True, None) when every step of every proof affected by the edit is certified; else (False, failing
    step result).  Statements the edit does not reach keep their (cached) results."""
    for name in _affected(constant.statement):
        for r in verify(name, catalogue):
            if not r.ok:  # refuted or not proved
                return False, r
    return True, None


def _catalogue(constant: Constant, c):
    cat = dict(STATEMENTS)
    if sp.sympify(c) == sp.sympify(constant.value):
        return cat
    for e in constant.edits(c):
        key = canonical(e.statement)
        cat[key] = e.apply(cat[key])
    return cat


def _value(x) -> sp.Rational:
    """A candidate as an exact dyadic rational with 10 significant bits (finer than ``TOL``; short numbers keep
    the edited proofs cheap to simplify)."""
    x = mpmath.mpf(x)
    e = int(mpmath.floor(mpmath.log(x, 2))) - 9
    return sp.Rational(int(mpmath.nint(x / mpmath.mpf(2) ** e))) * sp.Rational(2) ** e


def slack(constant: Constant, progress=None) -> dict:
    """The tightest closing value of ``constant`` (see the module docstring) as a row dict."""
    printed = sp.nsimplify(constant.value)
    ok, bad = _closes(constant, _catalogue(constant, printed))
    if not ok:
        return _row(constant, printed, None, printed, bad, 0, "the printed value does not close")
    step = sp.Rational(1, 2) if constant.tighter < 0 else sp.Integer(2)
    good, probes, fail, fail_r = printed, 1, None, None
    for _ in range(REACH):
        cand = _value(good * step)
        ok, bad = _closes(constant, _catalogue(constant, cand))
        probes += 1
        if progress:
            progress(constant, cand, ok)
        if not ok:
            fail, fail_r = cand, bad
            break
        good = cand
    else:
        return _row(constant, printed, good, None, None, probes, f"still closes at 2^{REACH} times the printed value")
    while abs(fail / good - 1) > TOL:
        cand = _value(mpmath.sqrt(mpmath.mpf(good) * mpmath.mpf(fail)))
        if cand in (good, fail):
            break
        ok, bad = _closes(constant, _catalogue(constant, cand))
        probes += 1
        if progress:
            progress(constant, cand, ok)
        if ok:
            good = cand
        else:
            fail, fail_r = cand, bad
    return _row(constant, printed, good, fail, fail_r, probes, "")


def _row(constant, printed, good, fail, bad, probes, note) -> dict:
    forced = good is not None and good == sp.nsimplify(constant.value) and fail is not None
    return {
        "statement": constant.statement, "constant": constant.label, "printed": float(printed),
        "printed_exact": str(printed),
        "tightest": None if good is None else float(good), "tightest_exact": None if good is None else str(good),
        "first_failing": None if fail is None else float(fail),
        "first_failing_exact": None if fail is None else str(fail),
        "ratio": None if good is None or good == 0 else float(sp.nsimplify(printed) / good),
        "forced": bool(forced), "direction": "searched downwards" if constant.tighter < 0 else "searched upwards",
        "fails_at": None if bad is None else f"{bad.statement}:{bad.step}",
        "counterexample": None if bad is None else bad.counterexample,
        "probes": probes, "note": note,
    }


def rows(constants=None, progress=None) -> list[dict]:
    """The slack table: one row per constant (``CONSTANTS`` by default)."""
    return [slack(c, progress) for c in (CONSTANTS if constants is None else constants)]
