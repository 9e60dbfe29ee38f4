"""Counterexamples in far corners: where a step ``lhs <= rhs`` fails only beyond what random sampling reaches.

When a certificate fails, ``search(lhs, rhs, params)`` looks at every end of the domain and every combination of
ends: a parameter bounded below only goes to infinity (``d1 -> oo``), one whose lower end is 0 goes to 0, a real
parameter with a finite upper end goes to it (``eps -> 1^-``), a parameter bounded below by others grows relative
to that bound (``alpha / Max(sqrt d1, sqrt d2) -> oo``, ``B - b -> oo``).  A *ray* moves the parameters of one
combination together (rate ``X^k``, k in {1, 2}), the others held at a base point of their box, and ``X`` runs
through ``2^(2^j)`` (mpmath numbers: their exponent is a Python integer, so nothing overflows).

1. scan: along every ray, the sides evaluated at 80 digits at each ``X``, then between the doubling points; a
   violation must exceed 10^-60 of the sides' size;
2. decide: where the scan found nothing, SymPy's ``limit`` of the leading behaviour (``_leading``) along the ray;
   a negative limit sends the scan on up to ``X = 2^(2^20)``;
3. confirm: a violating point is kept only if Arb (``bounds.prove.recheck.compare``) separates the two sides
   there, at an admissible point (every hypothesis checked exactly).

The scan and the decision each have a budget of work (``PHASE_CALLS`` counted calls, ``verify_domain``'s meter,
the same on every machine; Arb's work charged by ``ARB_BITS_PER_CALL``), spent on the smaller combinations first.
The result is a ``Refutation`` or None: no corner refutes the step (which does not prove it).
"""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp

from . import recheck
from ..evaluate import compile_expr
from ..symbols import NAME, PARAMETER, text
from .verify_domain import TimeLimit, charge, time_limit, work_done
from .verify_search import admissible, mp_env, number, round_up, upper_bound

SCAN_J = range(2, 15)  # X = 2^(2^j): 16 .. 2^16384 (about 10^4932)
DECIDE_J = range(15, 21)  # after a negative limit: up to 2^(2^20) (about 10^315652)
LIMIT_CALLS = 2_000_000  # per SymPy limit (a ray whose limit takes more is left undecided)
SLOW_CALLS = 300_000  # a ray whose point takes more to evaluate is not followed further out
PHASE_CALLS = 6_000_000  # the budget of the scan, of the scan between doublings, and of the decision by limits
"""``LIMIT_CALLS`` lies above the largest SymPy limit that finishes in the readings of ``checks/test_variants.py``
(1.53 million calls, Lemma 12's L12b in its d1 reading)."""
ARB_BITS_PER_CALL = 100
"""A confirmation by Arb is charged ``(sum of the precisions it tried) x (operations of both sides) /
ARB_BITS_PER_CALL`` calls: Arb's arithmetic runs in C, unseen by the meter."""
_UNBOUNDED = 10 ** 15  # the search's own stage: counted, cut by the time guard only
REL = mpmath.mpf(10) ** -60  # a violation must exceed this relative to the sides' size, seen at SCAN_DPS digits
SCAN_DPS = 80
FILL = 64  # points X = 2^k per doubling of k between the doubling points, beyond k = 1024


@dataclass(frozen=True)
class Refutation:
    counterexample: dict  # parameter -> value (float, or a string where a float cannot hold it), "lhs", "rhs"
    confirmed: str  # "Arb (rigorous)"
    ray: str  # which ends, at which rates, from which base point
    leading: str  # the leading behaviour along the ray (SymPy), or why it was not computed

    def describe(self) -> str:
        return f"far-corner counterexample along {self.ray} ({self.leading}; confirmed by {self.confirmed})"


def refute(lhs, rhs, params) -> dict | None:
    """The counterexample of ``search`` (a dict like the verifier's), or None."""
    r = search(lhs, rhs, params)
    return None if r is None else r.counterexample


def search(lhs, rhs, params) -> Refutation | None:
    """A confirmed violation of ``lhs <= rhs`` at an infinite end (or combination of ends) of the domain of
    ``params`` (``bounds.core.Param``; a later declaration of a name wins), or None (also when the time guard cut
    the search: recorded in ``verify_domain.CUTS``, so the verdict is not stored)."""
    try:
        with time_limit(stage="corners", calls=_UNBOUNDED):
            return _search(lhs, rhs, params)
    except TimeLimit:
        return None


def _search(lhs, rhs, params) -> Refutation | None:
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    table = _table(lhs, rhs, params)
    if table is None:
        return None
    rays = list(_rays(table))
    fl, fr = compile_expr(lhs, mpmath.mp), compile_expr(rhs, mpmath.mp)
    deadline = work_done() + PHASE_CALLS
    for ray in rays:  # (the budget is spent on the smaller combinations first: rays are ordered by size)
        found = _doubling(lhs, rhs, fl, fr, table, ray, SCAN_J, deadline)
        if found is not None:
            return found or None  # (False: the budget is spent)
    deadline = work_done() + PHASE_CALLS
    for ray in rays:  # between the doubling points (a window bounded far out)
        for X in _between():
            start = work_done()
            if start > deadline:
                break
            found = _try(lhs, rhs, fl, fr, table, ray, None, X)
            if found:
                return Refutation(*found, _describe(table, ray), _leading(lhs, rhs, table, ray))
            if work_done() - start > SLOW_CALLS:
                break
    deadline = work_done() + PHASE_CALLS
    for ray in rays:  # the scan found nothing: where does the leading behaviour say the step fails?
        if ray.base != "mid" or any(r != 1 for _, _, r in ray.ends):
            continue
        if work_done() > deadline:
            return None
        lead = _leading(lhs, rhs, table, ray)
        if not lead.startswith("fails"):
            continue
        found = _doubling(lhs, rhs, fl, fr, table, ray, DECIDE_J, deadline, lead)
        if found is not None:
            return found or None  # (False: the budget is spent)
    return None


def _doubling(lhs, rhs, fl, fr, table, ray, js, deadline, lead=None):
    """The refutation at the first X = 2^(2^j), j in ``js``, along ``ray`` where the step fails (``lead``: the leading
    behaviour along the ray, found by ``_leading`` when not given); None when there is none, or evaluating further
    out is too slow (e.g. exponents that grow with X: the next ray); False once the work passes ``deadline``."""
    for j in js:
        start = work_done()
        if start > deadline:
            return False
        found = _try(lhs, rhs, fl, fr, table, ray, j)
        if found:
            return Refutation(*_smallest(lhs, rhs, fl, fr, table, ray, j, found), _describe(table, ray),
                              lead or _leading(lhs, rhs, table, ray))
        if work_done() - start > SLOW_CALLS:
            return None
    return None


def _between():
    """X = 2^k for the k between the doubling points of the scan: every k up to 1024, then FILL per doubling."""
    doubling = {2 ** j for j in SCAN_J}
    for k in range(5, 1025):
        if k not in doubling:
            yield 2 ** k
    for j in SCAN_J:
        if 2 ** (j - 1) >= 1024:
            step = max(2 ** (j - 1) // FILL, 1)
            for k in range(2 ** (j - 1) + step, 2 ** j, step):
                yield 2 ** k


# ----- the parameters and their ends --------------------------------------------------------------
@dataclass(frozen=True)
class _P:
    param: object  # bounds.core.Param
    lo: object  # SymPy bound (Max of the lower bounds), or None
    his: tuple  # SymPy upper bounds
    dependent: bool


def _table(lhs, rhs, params):
    declared = {p.name: p for p in params}
    needed, out = {NAME.get(s) for s in (lhs.free_symbols | rhs.free_symbols)}, {}
    while needed - set(out):
        for n in sorted(needed - set(out)):
            p = declared.get(n)
            if p is None or not p.lo:
                return None  # a parameter without a declared domain: nothing to search
            lo = sp.Max(*p.lo) if len(p.lo) > 1 else sp.sympify(p.lo[0])
            out[n] = _P(p, lo, tuple(sp.sympify(v) for v in p.hi), bool(lo.free_symbols))
            needed |= {NAME.get(s) for v in (lo, *out[n].his) for s in v.free_symbols}
    return out


def _ends(q: _P) -> list[str]:
    if q.dependent:
        return ["oo"]  # alpha / Max(...) -> oo, or v - lo -> oo
    numeric_hi = [h for h in q.his if not h.free_symbols]
    ends = [] if numeric_hi else ["oo"]
    if q.lo == 0 and not q.param.integer:
        ends.append("0")
    if numeric_hi and not q.param.integer:
        ends.append("hi")  # v -> its finite upper end (eps -> 1^-)
    return ends


@dataclass(frozen=True)
class _Ray:
    ends: tuple  # ((name, "oo" | "0", rate), ...)
    base: str  # "low" | "mid": where the other parameters are held (their box)


def _rays(table):
    options = {n: _ends(q) for n, q in table.items()}
    names = [n for n in table if options[n]]
    for size in range(1, len(names) + 1):
        for subset in itertools.combinations(names, size):
            for ends in itertools.product(*(options[n] for n in subset)):
                rate_sets = [(1,) * size] + ([tuple(2 if i == k else 1 for i in range(size)) for k in range(size)]
                                             if size > 1 else [(2,)])
                for base in ("mid", "low"):
                    for rates in rate_sets:
                        yield _Ray(tuple(zip(subset, ends, rates)), base)


def _describe(table, ray: _Ray) -> str:
    def one(n, end, rate):
        x = "X" if rate == 1 else f"X^{rate}"
        q = table[n]
        if q.dependent:
            return f"{n} ~ {text(q.lo)} * {x}" if q.param.log else f"{n} - {text(q.lo)} ~ {x}"
        if end == "hi":
            return f"{n} ~ {text(_hi(q))} - ({text(_hi(q) - _lo_num(q))})/{x}"
        return f"{n} ~ {x}" if end == "oo" else f"{n} ~ 1/{x}"
    return ", ".join(one(*e) for e in ray.ends) + f" as X -> oo (others at the {ray.base} of their box)"


def _base(q: _P, how: str) -> Fraction:
    """The base value of a parameter held still (its ratio to Max(lo) or offset over lo, if dependent)."""
    a, b = (Fraction(v) for v in q.param.box)
    if how == "low":
        v = a
    elif q.param.log and a > 0:
        v = Fraction(math.sqrt(a * b)).limit_denominator(2**20)
    else:
        v = (a + b) / 2
    return Fraction(math.ceil(v)) if q.param.integer and not q.dependent else v


def _values(table, ray: _Ray, X: int) -> dict | None:
    """Exact values of every parameter at ``X`` along ``ray`` (dependencies first), or None if a hypothesis fails."""
    moving = {n: (end, rate) for n, end, rate in ray.ends}
    values: dict = {}
    pending = list(table)
    while pending:
        for n in list(pending):
            q = table[n]
            deps = {NAME.get(s) for v in (q.lo, *q.his) for s in v.free_symbols}
            if not deps <= set(values):
                continue
            pending.remove(n)
            end, rate = moving.get(n, (None, None))
            t = Fraction(X) ** rate if n in moving else _base(q, ray.base)  # the ratio or offset when dependent
            if q.dependent:
                lo = upper_bound(q.lo, values)
                v = lo * t if q.param.log else lo + t
                v = Fraction(math.ceil(v)) if q.param.integer else round_up(v)  # a float where one holds it
            elif n not in moving:
                v = t
            elif end == "oo":
                v = Fraction(q.lo) + t
            elif end == "hi":
                hi, lo = Fraction(sp.Rational(_hi(q))), Fraction(sp.Rational(_lo_num(q)))
                v = hi - (hi - lo) / t
            else:
                numeric_hi = [Fraction(sp.Rational(h)) for h in q.his if not h.free_symbols]
                v = min([Fraction(1)] + numeric_hi) / t
            values[n] = v
    return values


def _inside(table, values) -> bool:
    return admissible([q.param for q in table.values()], values)


def _hi(q: _P):
    return min(h for h in q.his if not h.free_symbols)


def _lo_num(q: _P):
    """The lower end of a parameter approached from its upper end: its numeric lower bound, or hi - 1."""
    return q.lo if not q.lo.free_symbols and q.lo < _hi(q) else _hi(q) - 1


# ----- a point along a ray ------------------------------------------------------------------------
def _smallest(lhs, rhs, fl, fr, table, ray, j, found):
    """The violation at the smallest power of two X = 2^k, 2^(j-1) < k <= 2^j, that bisection on k finds (the
    set of violating X along a ray need not be an interval: whatever point is returned is confirmed)."""
    lo, hi = 2 ** (j - 1), 2 ** j
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            values = _values(table, ray, 2 ** mid)
        except (recheck.Undefined, ValueError, ZeroDivisionError, OverflowError, TypeError):
            values = None
        if values is not None and _violated(fl, fr, values, SCAN_DPS) and _inside(table, values):
            hi = mid
        else:
            lo = mid
    return (_try(lhs, rhs, fl, fr, table, ray, None, 2 ** hi) if hi != 2 ** j else None) or found


def _try(lhs, rhs, fl, fr, table, ray, j, X=None):
    """(counterexample, how confirmed) at X = 2^(2^j) along ``ray`` if the step fails there, else None."""
    try:
        values = _values(table, ray, X if X is not None else 2 ** (2 ** j))
    except (recheck.Undefined, ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None
    if not _violated(fl, fr, values, SCAN_DPS) or not _inside(table, values):
        return None
    env = {PARAMETER[n]: v for n, v in values.items()}
    precisions: list = []
    try:
        if recheck.compare(lhs, rhs, env, precisions) is not True:  # no rigorous separation: no refutation
            return None
    finally:  # Arb's work, which the meter does not see: its precisions times the sides' operations
        charge(sum(precisions) * _ops(lhs, rhs) // ARB_BITS_PER_CALL)
    with mpmath.workdps(30):
        env = mp_env(values)
        l, r = fl(env), fr(env)
    cex = {n: number(values[n], table[n].param.integer) for n in table}  # exact: admissible as reported
    cex.update(lhs=_number(l), rhs=_number(r))
    return cex, "Arb (rigorous)"


@functools.lru_cache(maxsize=256)
def _ops(lhs, rhs) -> int:
    """The operations of both sides (SymPy's ``count_ops``, plus one each): the size of what Arb encloses."""
    return sp.count_ops(lhs) + sp.count_ops(rhs) + 2


def _violated(fl, fr, values, dps) -> bool:
    with mpmath.workdps(dps):
        try:
            env = mp_env(values)
            l, r = fl(env), fr(env)
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            return False
        if isinstance(l, mpmath.mpc) or isinstance(r, mpmath.mpc) or not (mpmath.isfinite(l) and mpmath.isfinite(r)):
            return False
        return bool(l > r + REL * max(abs(l), abs(r)))


def _number(v, integer=False):
    """A float where a float holds the value to its relative precision, else a string mpmath reads back
    (``mpmath.mpf('1.2e-20000')``)."""
    if isinstance(v, Fraction):
        if integer and v.denominator == 1:  # exact, however large
            return int(v.numerator)
        v = mpmath.mpf(v.numerator) / v.denominator
    if v == 0 or mpmath.mpf(2) ** -1000 < abs(v) < mpmath.mpf(2) ** 1000:
        return float(v)
    try:
        return mpmath.nstr(v, 20)
    except ValueError:  # an exponent too long to print: its binary exponent
        sign, man, exp, bc = v._mpf_
        return f"{'-' if sign else ''}about 2^{exp + bc}"


# ----- the leading behaviour along a ray (SymPy) --------------------------------------------------
def _leading(lhs, rhs, table, ray) -> str:
    """"fails ..." when the limit of log rhs - log lhs (or rhs - lhs) along the ray is negative, "holds ..." when
    positive, else what is known."""
    X = sp.Symbol("X", positive=True)
    sub = {}
    moving = {n: (end, rate) for n, end, rate in ray.ends}
    for n in table:
        q = table[n]
        if n in moving:
            end, rate = moving[n]
            t = X ** rate
            if q.dependent:
                sub[q.param.symbol] = q.lo * t if q.param.log else q.lo + t
            elif end == "oo":
                sub[q.param.symbol] = q.lo + t
            elif end == "hi":
                sub[q.param.symbol] = _hi(q) - (_hi(q) - _lo_num(q)) / t
            else:
                sub[q.param.symbol] = 1 / t
        else:
            base = sp.Rational(_base(q, ray.base).numerator, _base(q, ray.base).denominator)
            sub[q.param.symbol] = (q.lo * base if q.param.log else q.lo + base) if q.dependent else base
    for _ in range(len(table)):  # dependent bounds refer to other parameters
        sub = {k: sp.sympify(v).xreplace(sub) for k, v in sub.items()}
    L, R = lhs.xreplace(sub), rhs.xreplace(sub)
    positive = L.is_positive and R.is_positive
    g, what = (sp.log(R) - sp.log(L), "log rhs - log lhs") if positive else (R - L, "rhs - lhs")
    try:
        with time_limit(stage="corner: limit", calls=LIMIT_CALLS):  # a SymPy limit can run for minutes
            lim = sp.limit(_eventual(g, X), X, sp.oo)
    except (TimeLimit, NotImplementedError, ValueError, TypeError, RecursionError):
        return f"the limit of {what} along the ray was not decided by SymPy"
    if lim.is_extended_negative:
        return f"fails: {what} -> {lim}"
    if lim.is_extended_positive:
        return f"holds: {what} -> {lim}"
    return f"{what} -> {lim}"


def _eventual(expr, X):
    """``expr`` with every Min / Max (innermost first) replaced by the argument it equals for all large X, where
    the limits of the differences of its arguments decide it (SymPy's limit does not expand Min / Max)."""
    def pick(m):
        args = list(m.args)
        for k, a in enumerate(args):
            others = [b for i, b in enumerate(args) if i != k]
            diffs = [sp.limit(b - a, X, sp.oo) for b in others]
            if all((d.is_extended_positive if isinstance(m, sp.Min) else d.is_extended_negative) for d in diffs):
                return a
        return m
    return expr.replace(lambda e: isinstance(e, (sp.Min, sp.Max)) and X in e.free_symbols, pick)
