"""Method 3 of the verifier: the counterexample search.  Seeded points of the box (its corners, then random
points, integer dimensions rounded) and of the whole domain (every combination of the ends of every parameter,
then random points far beyond the box); and the smallest ratio rhs/lhs over such points (``smallest_ratio``).

A point is a counterexample only when (``check_point``):

1. it is admissible: its exact values satisfy every hypothesis of every parameter (strictly at open ends,
   integers where integral), proved by Arb; a coordinate on or beyond an end is first moved inside;
2. the violation is seen at 50 digits relative to the sides' size, and then proved by Arb: the enclosure of lhs
   lies above that of rhs (``recheck.compare``); or a side is not real there, with an argument of a root or a log
   that Arb proves negative.

Otherwise the point refutes nothing.  Every value reported is the exact value checked (``number``); ``lhs`` and
``rhs`` are floats where floats keep ``lhs > rhs`` visible, else decimal strings with the digits that do."""
from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import mpmath
import sympy as sp

from . import recheck
from ..core import Step
from ..evaluate import compile_expr
from ..symbols import PARAMETER
from .verify_domain import Domain, midpoint

SAMPLES = 400
WHOLE_SAMPLES = 200
SEED = 20251106


def smallest_ratio(step: Step, dom: "Domain", detail: str) -> float | None:
    """Smallest rhs/lhs over the box corners and seeded points (1.0 for an identity; None when lhs <= 0)."""
    if detail.startswith("simplify(rhs - lhs) == 0") or detail.startswith("expand_log(log rhs - log lhs) == 0"):
        return 1.0
    lhs, rhs = sp.sympify(step.lhs), sp.sympify(step.rhs)
    rng = random.Random(SEED)
    root = dom.root()
    points = [list(c) for c in itertools.islice(itertools.product(*root), 64)]
    for _ in range(32):
        points.append([lo * (hi / lo) ** rng.random() if p.log else lo + (hi - lo) * rng.random()
                       for p, (lo, hi) in zip(dom.params, root)])
    fl, fr = compile_expr(lhs, mpmath.mp), compile_expr(rhs, mpmath.mp)
    best = None
    with mpmath.workdps(30):
        for point in points:
            try:
                env = dom.env([mpmath.mpf(v) for v in point], mpmath.mp)
                l, r = fl(env), fr(env)
            except (ZeroDivisionError, ValueError, TypeError):
                continue
            if isinstance(l, mpmath.mpc) or isinstance(r, mpmath.mpc) or not l > 0:
                continue
            ratio = r / l
            best = ratio if best is None or ratio < best else best
    return None if best is None else float(best)


def sample_whole(lhs, rhs, dom: "Domain", n: int = 200, real: bool = False):
    """A violation anywhere in the hypothesis domain, beyond the box: first every combination of the ends of the
    parameters (``end_points``: an integer dimension at its lower bound 1, next to an open end, at a finite upper end,
    10^30 out), then seeded points with every unbounded parameter drawn log-uniformly up to 10^30 times its lower
    bound (and bounded ones down to 10^-300 of their range near an open lower end 0)."""
    rng = random.Random(SEED + 1)
    ends = itertools.product(*(end_points(p, box) for p, box in zip(dom.params, dom.root())))
    far = ([_far(p, rng) for p in dom.params] for _ in range(n))
    return _worst(lhs, rhs, dom, itertools.chain(itertools.islice(ends, ENDS), far), real)


def _far(p, rng):
    """A seeded coordinate of parameter ``p`` anywhere in its domain (see ``sample_whole``)."""
    if p.dependent:
        v = mpmath.mpf(10) ** (30 * rng.random() * rng.random())  # ratio r >= 1, or offset v - 1 >= 0
        v = v if p.log else v - 1
    else:
        numeric_hi = [v for v in p.hi if not sp.sympify(v).free_symbols]
        lo = mpmath.mpf(sp.Rational(sp.sympify(p.lo[0]))) if p.lo else mpmath.mpf(0)
        hi = mpmath.mpf(sp.Rational(sp.sympify(numeric_hi[0]))) if numeric_hi else None
        if lo > 0:
            top = hi if hi is not None else lo * mpmath.mpf(10) ** (30 * rng.random())
            v = lo * (top / lo) ** rng.random()
        else:
            top = hi if hi is not None else mpmath.mpf(10) ** (30 * rng.random() - 5)
            v = top * mpmath.mpf(10) ** (-300 * rng.random() ** 3)
    return mpmath.ceil(v) if p.integer else v


def _worst(lhs, rhs, dom, points, real: bool):
    """The counterexample of ``check_point`` with the largest violation (``excess``) among ``points``; None if none."""
    worst = None
    for point in points:
        cex = check_point(lhs, rhs, dom, list(point), real)
        if cex and (worst is None or excess(cex) > excess(worst)):
            worst = cex
    return worst


ENDS = 256  # points of the combinations of ends drawn first by ``sample_whole``
FAR = mpmath.mpf(10) ** 30
NUDGE = Fraction(1, 2**30)  # a point next to an open end: this fraction of the range (or of the end) inside


def _numeric(vs) -> list:
    return [Fraction(sp.Rational(sp.sympify(v))) for v in vs if not sp.sympify(v).free_symbols]


def end_points(p, box) -> list:
    """The coordinates at the ends of parameter ``p``'s domain: its lower end (ratio 1 / offset 0 for a dependent
    one), its finite upper end or a point far out, and the middle of its box (``check_point`` moves a coordinate on
    an open end inside)."""
    mid = midpoint(*box, p.log)
    if p.dependent:
        return [mpmath.mpf(1) if p.log else mpmath.mpf(0), FAR, mid]  # (ratio, offset)
    lo, hi = _numeric(p.lo), _numeric(p.hi)
    low = max(lo) if lo else exact_value(box[0])
    high = min(hi) if hi else max(low, Fraction(1)) * 10**30
    return list(dict.fromkeys([low, high, exact_value(mid)]))


def _inside(p, v: Fraction) -> Fraction | None:
    """``v`` moved inside the numeric bounds of ``p`` (next to an open end, integers inside for an integral p),
    as a value a float holds where it can; None when no such value is found."""
    lo, hi = _numeric(p.lo), _numeric(p.hi)
    lo, hi = (max(lo) if lo else None), (min(hi) if hi else None)
    if p.integer:
        v = Fraction(math.ceil(v)) if v.denominator != 1 else v
        if _below(v, lo, p.lo_open):
            v = Fraction(math.floor(lo) + 1) if p.lo_open or lo.denominator != 1 else lo
        if _above(v, hi, p.hi_open):
            v = Fraction(math.ceil(hi) - 1) if p.hi_open or hi.denominator != 1 else hi
    else:
        span = (hi - lo) if lo is not None and hi is not None else None
        if _below(v, lo, p.lo_open):
            v = lo + NUDGE * (span if span is not None else max(abs(lo), 1))
        if _above(v, hi, p.hi_open):
            v = hi - NUDGE * (span if span is not None else max(abs(hi), 1))
        f = _float(v)  # the nearest float where it is still inside the bounds
        if f is not None and not _below(Fraction(f), lo, p.lo_open) and not _above(Fraction(f), hi, p.hi_open):
            v = Fraction(f)
    if v is None or _below(v, lo, p.lo_open) or _above(v, hi, p.hi_open):
        return None
    return v


def _below(v, lo, open_: bool) -> bool:
    """``v`` is below the lower end ``lo`` (or on it, an open end); never below no end (None)."""
    return lo is not None and (v < lo or (open_ and v <= lo))


def _above(v, hi, open_: bool) -> bool:
    """``v`` is above the upper end ``hi`` (or on it, an open end); never above no end (None)."""
    return hi is not None and (v > hi or (open_ and v >= hi))


def _float(v: Fraction) -> float | None:
    """The float nearest ``v``; None beyond a float's range (or where a nonzero ``v`` rounds to 0)."""
    try:
        f = float(v)
    except OverflowError:
        return None
    return None if math.isinf(f) or (f == 0.0 and v != 0) else f


def round_up(v: Fraction) -> Fraction:
    """The smallest float >= ``v`` (``v`` itself beyond a float's range)."""
    f = _float(v)
    if f is None:
        return v
    return Fraction(f) if Fraction(f) >= v else Fraction(math.nextafter(f, math.inf))


def exact_point(dom: Domain, point) -> dict | None:
    """Exact values (name -> Fraction) of the parameters at box coordinates ``point``, moved inside the numeric
    bounds; a dependent parameter from an Arb upper bound of its lower bound (so it meets it); None if undefined."""
    values: dict = {}
    for p, v in zip(dom.params, point):
        v = exact_value(v)
        if p.name in dom.lo:
            try:
                lo = upper_bound(dom.lo[p.name], values)
            except (recheck.Undefined, ValueError, ZeroDivisionError):
                return None
            v = lo * max(v, Fraction(1)) if p.log else lo + max(v, Fraction(0))
            v = Fraction(math.ceil(v)) if p.integer else round_up(v)
            if any(_above(v, h, p.hi_open) for h in _numeric(p.hi)):
                return None
        else:
            v = _inside(p, v)
            if v is None:
                return None
        values[p.name] = v
    return values


def exact_value(v) -> Fraction:
    """The exact value of a number (an mpmath mpf, a float, an int, a Fraction)."""
    if isinstance(v, (Fraction, int)):
        return Fraction(v)
    v = mpmath.mpf(v)
    if not mpmath.isfinite(v):
        raise ValueError("not a finite number")
    sign, man, exp, _ = v._mpf_
    q = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -q if sign else q


def upper_bound(expr, values) -> Fraction:
    """An exact rational >= ``expr`` at ``values`` (Arb's upper bound)."""
    expr = sp.sympify(expr)
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    return recheck.to_fraction(recheck.enclose(expr, _symbols(values)).hi)


def _symbols(values) -> dict:
    return {PARAMETER[n]: v for n, v in values.items()}


def mp_env(values) -> dict:
    """Exact ``values`` (name -> Fraction) as mpmath numbers at the working precision, by symbol."""
    return {PARAMETER[n]: mpmath.mpf(v.numerator) / v.denominator for n, v in values.items()}


def admissible(params, values) -> bool:
    """Arb proves every hypothesis of every parameter at ``values`` (strict at open ends; integers integral)."""
    env = _symbols(values)
    try:
        for p in params:
            v = values[p.name]
            if p.integer and Fraction(v).denominator != 1:
                return False
            if not all(recheck.certainly(sp.sympify(lo), v, env, strict=p.lo_open, below=True) for lo in p.lo):
                return False
            if not all(recheck.certainly(sp.sympify(hi), v, env, strict=p.hi_open, below=False) for hi in p.hi):
                return False
    except (recheck.Undefined, KeyError):
        return False
    return True


def number(v: Fraction, integer: bool = False):
    """The exact value as reported: an int (integral), a float where one holds it exactly, the fraction "p/q"
    where it is not too long, else a 30-digit string (a number beyond 2^1000: an integer at that size, and far from
any finite end of its domain, as the search draws it)."""
    v = Fraction(v)
    if integer and v.denominator == 1 and abs(v.numerator) < 2**1000:
        return int(v.numerator)
    try:
        f = float(v)
        if Fraction(f) == v:
            return f
    except OverflowError:
        pass
    if abs(v) < 2**1000 and v.numerator.bit_length() + v.denominator.bit_length() <= 1300:
        return f"{v.numerator}/{v.denominator}"
    return mpmath.nstr(mpmath.mpf(v.numerator) / v.denominator, 30)


def _sides(l, r) -> tuple:
    """lhs and rhs as reported: floats where floats keep ``lhs > rhs`` visible, else decimal strings with enough
    digits (of the 50 computed) to differ."""
    l, r = mpmath.re(l), mpmath.re(r)
    if float(l) > float(r):
        return float(l), float(r)
    for digits in range(17, 51):
        dl, dr = mpmath.nstr(l, digits), mpmath.nstr(r, digits)
        with mpmath.workdps(80):  # (as mpmath numbers: a Fraction of "1e+10000000000" is a 10-billion-digit integer)
            if mpmath.mpf(dl) > mpmath.mpf(dr):
                return dl, dr
    return mpmath.nstr(l, 50), mpmath.nstr(r, 50)


def check_point(lhs, rhs, dom, point, real: bool = False):
    """Counterexample dict at ``point`` (box coordinates, moved inside the domain) if ``lhs > rhs`` is proved there
    at an admissible point, else None (see the module's docstring); with ``real``, a side that is not real there is
    no counterexample (a step already known undefined somewhere is refuted only by a real violation)."""
    try:
        values = exact_point(dom, point)
    except ValueError:
        return None
    if values is None:
        return None
    fl, fr = compile_expr(lhs, mpmath.mp), compile_expr(rhs, mpmath.mp)
    with mpmath.workdps(50):
        try:
            env = mp_env(values)
            l, r = fl(env), fr(env)
        except (ZeroDivisionError, ValueError, OverflowError):
            return None
        not_real = _complex(l, 40) or _complex(r, 40)
        if not not_real and not mpmath.re(l) > mpmath.re(r) + mpmath.mpf(10) ** -40 * max(abs(l), abs(r)):
            return None
    if not admissible(dom.params, values):
        return None
    named = {p.name: number(values[p.name], p.integer) for p in dom.params}
    if not_real:
        if real:
            return None
        side = lhs if _complex(l, 40) else rhs
        if not recheck.certainly_not_real(side, _symbols(values)):
            return None
        return {**named, "lhs": mpmath.nstr(l, 15), "rhs": mpmath.nstr(r, 15)}
    if recheck.compare(lhs, rhs, _symbols(values)) is not True:
        return None
    with mpmath.workdps(50):
        shown_l, shown_r = _sides(l, r)
    return {**named, "lhs": shown_l, "rhs": shown_r}


def _complex(v, digits: int) -> bool:
    """``v`` has an imaginary part beyond rounding at ``digits`` digits (relative to its size)."""
    return isinstance(v, mpmath.mpc) and abs(v.imag) > mpmath.mpf(10) ** -digits * abs(v)


def sample_box(lhs, rhs, dom: Domain, n: int, real: bool = False):
    """The sampled counterexample with the largest violation lhs/rhs (None if no violation)."""
    rng = random.Random(SEED)
    root = dom.root()
    drawn = ([_drawn(p, lo, hi, rng.random()) for p, (lo, hi) in zip(dom.params, root)] for _ in range(n))
    return _worst(lhs, rhs, dom, itertools.chain(itertools.islice(itertools.product(*root), 256), drawn), real)


def _drawn(p, lo, hi, u):
    """The point at ``u`` in [0, 1] of parameter ``p``'s box [lo, hi] (log scale for a log-scale one; integers
    rounded)."""
    v = lo * (hi / lo) ** u if p.log else lo + (hi - lo) * u
    return mpmath.mpf(round(v)) if p.integer else v


def excess(cex):
    l, r = cex["lhs"], cex["rhs"]
    if isinstance(l, str) or isinstance(r, str):
        try:
            l, r = float(l), float(r)  # a side written with more digits than a float holds
        except ValueError:
            return float("inf")  # a side that is not real: the worst kind of violation
        if l == r:
            return 1.0 + 1e-16 if r > 0 else 1e-300
    return l / r if r > 0 else float("inf") if l > 0 else l - r
