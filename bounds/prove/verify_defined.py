"""Defined before true: the first thing the verifier proves about a step ``lhs <= rhs`` is that both sides are real
numbers at every point of the declared domain.

``conditions(expr)`` reads the ORIGINAL expression tree (before any ``simplify`` could cancel a ``0/0``) and lists
what every operation needs: a denominator (a negative integer power) nonzero, a fractional power's base
nonnegative (positive under a negative exponent: ``0^(-1/2)`` is a pole), a power with a symbolic exponent's base
positive, a ``log``'s argument positive.  ``exp``, ``Abs``, ``Max``, ``Min``, ``cosh`` and ``sinh`` need nothing.

``defined(lhs, rhs, dom)`` proves every condition on the whole declared domain, in order: (1) by SymPy's assumptions
on the derived symbols (``Domain.symbols``); (2) by SymPy after writing every parameter through a positive
coordinate (``_by_coordinates``); (3) by Arb enclosures over the compact coordinates of the whole domain, by
bisection.  A condition none of them proves is searched for an admissible point where it fails: solved exactly
when it depends on one parameter with numeric bounds, else at the ends and seeded points of the domain.  The
verdict is then "not proved (undefined at <point>: ...)", or, without a point, "not proved (not shown defined on
the declared domain: ...)".  Results are cached per condition and domain.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from types import SimpleNamespace

import mpmath
import sympy as sp

from . import arb_intervals, recheck
from .certificate import Coord
from ..symbols import NAME, text
from .verify_domain import STAGE_CALLS, Domain, TimeLimit, bisect, declared, time_limit

NONZERO, POSITIVE, NONNEGATIVE = "nonzero", "positive", "nonnegative"
SYMPY_CALLS = STAGE_CALLS // 5  # work budget (Python calls) per SymPy query of one condition
SOLVE_CALLS = STAGE_CALLS // 5  # per exact solve for a failing point
BUDGET = 64  # Arb boxes per condition and case of the whole domain
SEARCH = 48  # seeded points searched for a failing point (besides every combination of the ends)
_CACHE: dict = {}


@dataclass(frozen=True)
class Condition:
    kind: str  # NONZERO | POSITIVE | NONNEGATIVE
    arg: sp.Expr
    what: str  # "the denominator", "the argument of log", "the base of a fractional power", ...

    def describe(self) -> str:
        return f"{self.what} {text(self.arg)}"


@dataclass(frozen=True)
class Definedness:
    ok: bool
    reason: str = ""  # why not: "undefined at eps = 1/3: ..." or "not shown defined on the declared domain: ..."
    point: dict | None = None  # parameter name -> exact SymPy value of an admissible point where a side is undefined


def conditions(expr) -> list[Condition]:
    """What every operation of ``expr`` needs to be a real number (see the module docstring), outermost first."""
    out = []
    for a in sp.preorder_traversal(sp.sympify(expr)):
        if isinstance(a, sp.Pow):
            base, p = a.base, a.exp
            if p.is_Integer:
                if p < 0:
                    out.append(Condition(NONZERO, base, "the denominator"))
            elif p.is_Rational:
                what = "the argument of sqrt" if p == sp.Rational(1, 2) else f"the base of a power ^({p})"
                out.append(Condition(POSITIVE if p < 0 else NONNEGATIVE, base, what))
            else:
                out.append(Condition(POSITIVE, base, f"the base of a power ^({text(p)})"))
        elif isinstance(a, sp.log):
            out.append(Condition(POSITIVE, a.args[0], "the argument of log"))
    return list(dict.fromkeys(out))


def defined(lhs, rhs, dom: Domain) -> Definedness:
    """Both sides defined (real) on the whole declared domain of ``dom``, or why not (see the module docstring)."""
    for c in conditions(sp.Tuple(lhs, rhs)):
        if not any(s in NAME for s in c.arg.free_symbols) and c.arg.free_symbols:
            continue  # an auxiliary symbol of a rewritten form, not a parameter: nothing to prove about it here
        key = (c.kind, sp.srepr(c.arg), c.what, dom.key)
        if key not in _CACHE:
            _CACHE[key] = _decide(c, dom)
        r = _CACHE[key]
        if not r.ok:
            return r
    return Definedness(True)


def _decide(c: Condition, dom: Domain) -> Definedness:
    if _by_sympy(c, dom) or _by_coordinates(c, dom) or _by_arb(c, dom):
        return Definedness(True)
    point = _failing_point(c, dom)
    if point is not None:
        shown = ", ".join(f"{n} = {v}" for n, v in point.items())
        fails = {NONZERO: "is 0 there", POSITIVE: "is not positive there", NONNEGATIVE: "is negative there"}[c.kind]
        return Definedness(False, f"undefined at {shown}: {c.describe()} {fails}", point)
    return Definedness(False, f"not shown defined on the declared domain: {c.describe()} is not shown {c.kind} on "
                              f"it", None)


def _holds(e, kind):
    return {NONZERO: e.is_nonzero, POSITIVE: e.is_positive, NONNEGATIVE: e.is_nonnegative}[kind] is True


def _query(f) -> bool:
    try:
        with time_limit(calls=SYMPY_CALLS, stage="definedness: sympy"):
            return bool(f())
    except TimeLimit:
        return False


# ----- 1. and 2. SymPy ------------------------------------------------------------------------------------------
def _by_sympy(c: Condition, dom: Domain) -> bool:
    if not c.arg.free_symbols:
        return _query(lambda: _holds(sp.nsimplify(c.arg) if c.arg.is_Float else c.arg, c.kind))
    return _query(lambda: _holds(declared(c.arg, dom)[0], c.kind))


def _numeric(vs) -> list:
    return [sp.sympify(v) for v in vs if not sp.sympify(v).free_symbols]


def _by_coordinates(c: Condition, dom: Domain) -> bool:
    """SymPy after ``v = lo + t`` / ``v = lo + (hi - lo) t/(1 + t)`` (t > 0 at an open end, t >= 0 at a closed one),
    every closed upper end on its own."""
    arg, _ = declared(c.arg, dom)
    subs, ends = {}, []
    for p in dom.params:
        s = dom.symbols[p.symbol]
        if s not in arg.free_symbols:
            continue
        lo, hi = _numeric(p.lo), _numeric(p.hi)
        if p.dependent or len(lo) != 1 or len(hi) > 1:
            if p.dependent and not p.log:
                t = sp.Dummy(f"t_{p.name}", nonnegative=True)
                subs[s] = declared(sp.Max(*p.lo), dom)[0] + t
            continue
        lo = lo[0]
        if p.integer:
            first = sp.floor(lo) + 1 if p.lo_open else sp.ceiling(lo)
            subs[s] = first + sp.Dummy(f"t_{p.name}", nonnegative=True, integer=True)
        elif not hi:
            subs[s] = lo + sp.Dummy(f"t_{p.name}", **({"positive": True} if p.lo_open else {"nonnegative": True}))
        else:
            t = sp.Dummy(f"t_{p.name}", **({"positive": True} if p.lo_open else {"nonnegative": True}))
            subs[s] = lo + (hi[0] - lo) * t / (1 + t)
            if not p.hi_open:
                ends.append((s, hi[0]))
    if not subs:
        return False
    cases = [subs] + [{**subs, s: v} for s, v in ends]

    def each():
        for case in cases:
            e = arg.xreplace(case)
            if not (_holds(e, c.kind) or _holds(sp.factor(sp.together(e)), c.kind)):
                return False
        return True
    return _query(each)


# ----- 3. Arb enclosures over the whole domain ------------------------------------------------------------------
def _by_arb(c: Condition, dom: Domain) -> bool:
    from .verify_interval import whole_cases  # (it imports the search, which imports this module's users)
    from .verify_search import exact_value
    if any(p.name in dom.wider for p in dom.params):
        return False
    try:
        with time_limit(calls=SYMPY_CALLS, stage="definedness: forms"):
            cases = whole_cases(c.arg, sp.Integer(1), dom)
    except TimeLimit:
        return False
    if not cases:
        return False
    for arg, _, coords, _ in cases:
        cs = SimpleNamespace(coords=tuple(Coord(k.symbol, exact_value(k.lo), None if k.hi is None else
                                                exact_value(k.hi)) for k in coords))
        try:
            f = arb_intervals.compile_expr(arg)
        except recheck.Undefined:
            return False
        if not _bisect(f, cs, c.kind):
            return False
    return True


def _bisect(f, cs, kind) -> bool:
    def closes(box) -> bool:
        try:
            v = f(arb_intervals.box_env(cs, box))
            return arb_intervals.gt(v.lo, 0) if kind == POSITIVE else arb_intervals.ge(v.lo, 0) if kind == NONNEGATIVE \
                else arb_intervals.gt(v.lo, 0) or arb_intervals.lt(v.hi, 0)
        except recheck.Undefined:
            return False

    with arb_intervals.precision(recheck.PREC):
        return bisect(recheck.root(cs), closes, BUDGET)[0]


# ----- a point where a condition fails --------------------------------------------------------------------------
def _fails_at(c: Condition, values: dict) -> bool:
    """The condition fails at ``values`` (symbol -> exact SymPy number), decided exactly."""
    e = c.arg.xreplace(values)
    try:
        with time_limit(calls=SYMPY_CALLS, stage="definedness: point"):
            e = sp.nsimplify(e) if e.is_Float else sp.simplify(e)
            if c.kind == NONZERO:
                return e.is_zero is True
            return (e.is_nonpositive if c.kind == POSITIVE else e.is_negative) is True
    except TimeLimit:
        return False


def _admissible(dom: Domain, values: dict) -> bool:
    """Every hypothesis of every parameter holds at ``values`` (symbol -> exact SymPy number), decided exactly."""
    for p in dom.params:
        if p.symbol not in values:
            continue
        for h in p.hypotheses():
            if not h.relation.free_symbols <= set(values):
                return False
            try:
                if sp.simplify(h.relation.xreplace(values)) is not sp.true:
                    return False
            except (TypeError, ValueError):
                return False
    return True


def _failing_point(c: Condition, dom: Domain):
    free = [p for p in dom.params if p.symbol in c.arg.free_symbols]
    if len(free) == 1 and not free[0].dependent:
        point = _solved(c, dom, free[0])
        if point is not None:
            return point
    return _searched(c, dom, free)


def _solved(c: Condition, dom: Domain, p):
    lo, hi = _numeric(p.lo), _numeric(p.hi)
    if len(lo) > 1 or len(hi) > 1:
        return None
    interval = sp.Interval(lo[0] if lo else -sp.oo, hi[0] if hi else sp.oo, p.lo_open, p.hi_open)
    v = sp.Dummy("v", real=True)
    arg = c.arg.xreplace({p.symbol: v})
    rel = {NONZERO: sp.Eq(arg, 0), POSITIVE: arg <= 0, NONNEGATIVE: arg < 0}[c.kind]
    try:
        with time_limit(calls=SOLVE_CALLS, stage="definedness: solve"):
            found = sp.solveset(rel, v, interval)
            candidates = []
            if isinstance(found, sp.FiniteSet):
                candidates = sorted(found, key=sp.default_sort_key)
            else:
                for part in (found.args if isinstance(found, sp.Union) else (found,)):
                    if isinstance(part, sp.Interval):
                        a, b = part.start, part.end
                        candidates += [a, b] if not p.integer else [sp.ceiling(a), sp.floor(b)]
                        if a.is_finite and b.is_finite:
                            candidates.append((a + b) / 2)
                        elif a.is_finite:
                            candidates.append(a + 1)
                        elif b.is_finite:
                            candidates.append(b - 1)
                    elif isinstance(part, sp.FiniteSet):
                        candidates += list(part)
            if p.integer:
                candidates = [w for x in candidates if x.is_finite for w in dict.fromkeys((sp.floor(x), sp.ceiling(x)))]
            for x in candidates:
                if x.is_finite and x.is_real and _admissible(dom, {p.symbol: x}) and _fails_at(c, {p.symbol: x}):
                    return {p.name: x}
    except (TimeLimit, NotImplementedError, TypeError, ValueError):
        pass
    return None


def _searched(c: Condition, dom: Domain, params):
    """The ends of each parameter and seeded points: Arb proves a negative value, SymPy an exact zero."""
    from .verify_search import end_points, exact_point  # (the search imports the verifier's other methods)
    if any(p.dependent for p in params):
        return None
    root = [(mpmath.mpf(p.box[0]), mpmath.mpf(p.box[1])) for p in params]
    points = list(itertools.islice(itertools.product(*(end_points(p, box) for p, box in zip(params, root))), 64))
    rng = random.Random(20251107)
    for _ in range(SEARCH):
        points.append([lo * (hi / lo) ** rng.random() if p.log and lo > 0 else lo + (hi - lo) * rng.random()
                       for p, (lo, hi) in zip(params, root)])
    small = sp.count_ops(c.arg) <= 60
    sub = Domain(dom.step, tuple(params), (c.arg,)) if params else None
    for point in points:
        try:
            values = exact_point(sub, list(point))
        except ValueError:
            continue
        if values is None:
            continue
        exact = {p.symbol: sp.Rational(values[p.name].numerator, values[p.name].denominator) for p in params}
        if not _admissible(dom, exact):
            continue
        try:
            v = recheck.enclose(c.arg, {p.symbol: values[p.name] for p in params})
            negative = arb_intervals.lt(v.hi, 0)
            zero_in = arb_intervals.le(v.lo, 0) and arb_intervals.ge(v.hi, 0)
        except recheck.Undefined:
            negative, zero_in = False, True
        if (negative and c.kind != NONZERO) or (zero_in and small and _fails_at(c, exact)):
            return {p.name: exact[p.symbol] for p in params}
    return None
