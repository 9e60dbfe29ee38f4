"""Intervals with Arb endpoints (python-flint): each endpoint the lower or upper bound of an Arb ball, so every
rounding and every elementary function is Arb's, and an endpoint may be infinite (a ball cannot say ``[lo, oo)``);
SymPy expressions compiled to closures over them (``compile_expr``), and a certificate's box as their values
(``box_env``).  The re-check (``bounds.prove.recheck``) and the definedness check (``bounds.prove.verify_defined``)
evaluate with it."""
from __future__ import annotations

import functools
import operator
from contextlib import contextmanager
from fractions import Fraction

import flint
import sympy as sp
from flint import arb, fmpq

from .certificate import INF


class Undefined(ArithmeticError):
    """An operation without a value on the interval (log of a negative number, inf - inf, 1/0)."""


@contextmanager
def precision(bits: int):
    """Arb's working precision set to ``bits`` inside the block, restored after it."""
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


# ----- intervals with Arb endpoints ---------------------------------------------------------------
class Iv:
    """[lo, hi]: each end an exact arb or -INF / INF (floats)."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi):
        if gt(lo, hi):
            raise Undefined("empty interval")
        self.lo, self.hi = lo, hi

    def __add__(self, o):
        return Iv(_add(self.lo, o.lo, lower=True), _add(self.hi, o.hi, lower=False))

    def __neg__(self):
        return Iv(neg(self.hi), neg(self.lo))

    def __mul__(self, o):
        ends = [(x, y) for x in (self.lo, self.hi) for y in (o.lo, o.hi)]
        return Iv(end_min([_mul(x, y, True) for x, y in ends]), end_max([_mul(x, y, False) for x, y in ends]))

    def recip(self):
        if _is_zero(self.lo) and _is_zero(self.hi):
            raise Undefined("1/0")
        if gt(self.lo, 0) or _is_zero(self.lo):
            return Iv(_monotone(self.hi, _inv, True, {INF: arb(0)}),
                      INF if _is_zero(self.lo) else _monotone(self.lo, _inv, False, {INF: arb(0)}))
        if lt(self.hi, 0) or _is_zero(self.hi):
            return -(-self).recip()
        return Iv(-INF, INF)

    def power(self, n: int):
        if n < 0:
            return self.power(-n).recip()
        if n == 0:
            return Iv(arb(1), arb(1))
        f = (lambda x: x ** n)
        if n % 2 or ge(self.lo, 0):
            return Iv(_monotone(self.lo, f, True), _monotone(self.hi, f, False))
        if le(self.hi, 0):
            return (-self).power(n)
        return Iv(arb(0), end_max([_monotone(neg(self.lo), f, False), _monotone(self.hi, f, False)]))


def _inv(x):
    return 1 / x


def is_inf(x) -> bool:
    return isinstance(x, float)


def _is_zero(x) -> bool:
    return not is_inf(x) and x.is_zero()


def lt(x, y) -> bool:
    """x < y for endpoints (exact arbs or -INF / INF)."""
    if is_inf(x):
        return x == -INF and y != -INF
    if is_inf(y):
        return y == INF
    return bool(x < y)


def gt(x, y) -> bool:
    return lt(y, x)


def le(x, y) -> bool:
    return not lt(y, x)


def ge(x, y) -> bool:
    return not lt(x, y)


def end_min(xs):
    return functools.reduce(lambda out, x: x if lt(x, out) else out, xs)


def end_max(xs):
    return functools.reduce(lambda out, x: x if gt(x, out) else out, xs)


def _end(ball, lower: bool):
    """The exact lower (upper) bound of an Arb ball, -INF/INF where the ball is not finite."""
    e = ball.lower() if lower else ball.upper()
    if e.is_finite():
        return e
    if e.is_nan():
        raise Undefined("nan")
    return INF if e > 0 else -INF


def neg(x):
    return -x


def _add(x, y, lower):
    if is_inf(x) or is_inf(y):
        if is_inf(x) and is_inf(y) and x != y:
            raise Undefined("inf - inf")
        return x if is_inf(x) else y
    return _end(x + y, lower)


def _mul(x, y, lower):
    if _is_zero(x) or _is_zero(y):
        return arb(0)  # the endpoint product 0 * inf of interval multiplication is 0
    if is_inf(x) or is_inf(y):
        sx = x if is_inf(x) else (1.0 if x > 0 else -1.0)
        sy = y if is_inf(y) else (1.0 if y > 0 else -1.0)
        return INF if sx * sy > 0 else -INF
    return _end(x * y, lower)


_ARB_FUNCTIONS = frozenset((arb.exp, arb.expm1, arb.log, arb.sqrt))
_BALLS: dict = {}
"""Arb's ball of f(x) by (f, x, working precision), for the functions of ``_ARB_FUNCTIONS`` at an exact x: the same
endpoint is enclosed again and again at every precision a comparison climbs through (in a far-corner search, two
thirds of the high-precision exp and log calls repeat one).  Arb's functions are deterministic in their ball and
precision, so a stored ball is the one a new call returns; the lookup makes no Python call, so the work meter
(``verify_domain``) counts the same with or without it."""
_BALLS_MAX = 4096


def _monotone(x, f, lower, at_inf=None):
    """f(x) of an increasing (or, via at_inf, any monotone) function at an endpoint, rounded outward."""
    if is_inf(x):
        if at_inf and x in at_inf:
            return at_inf[x]
        return x
    key = (f, x, flint.ctx.prec) if f in _ARB_FUNCTIONS and type(x) is arb and x.is_exact() else None
    ball = None if key is None else _BALLS.get(key)
    if ball is None:
        ball = f(arb(x))
        if key is not None:
            if len(_BALLS) >= _BALLS_MAX:
                _BALLS.clear()
            _BALLS[key] = ball
    return _end(ball, lower)


def stored(pair) -> Iv:
    """A recorded enclosure (Fractions or +-INF) as an Iv, rounded outward."""
    lo, hi = pair
    return Iv(lo if is_inf(lo) else _end(_frac(lo), True), hi if is_inf(hi) else _end(_frac(hi), False))


def _frac(q) -> arb:
    q = Fraction(q)
    return arb(fmpq(q.numerator, q.denominator))


def constant(q) -> Iv:
    return _ball(_frac(q))


def _ball(ball) -> Iv:
    return Iv(_end(ball, True), _end(ball, False))


def proves(v: Iv, test: str) -> bool:
    return le(v.hi, 1) if test == "upper <= 1" else ge(v.lo, 0)


def overlap(a: Iv, b: Iv) -> bool:
    return le(end_max([a.lo, b.lo]), end_min([a.hi, b.hi]))


def show(pair) -> str:
    return "[" + ", ".join(f"{float(v):.6g}" for v in pair) + "]"


def show_iv(v) -> str:
    return "undefined" if v is None else show((v.lo, v.hi))


# ----- elementary functions on intervals ----------------------------------------------------------
def _exp(v: Iv) -> Iv:
    return Iv(_monotone(v.lo, arb.exp, True, {-INF: arb(0)}), _monotone(v.hi, arb.exp, False, {-INF: arb(0)}))


def _expm1(v: Iv) -> Iv:
    m1 = {-INF: arb(-1)}
    return Iv(_monotone(v.lo, arb.expm1, True, m1), _monotone(v.hi, arb.expm1, False, m1))


def iv_log(v: Iv) -> Iv:
    if lt(v.lo, 0):
        raise Undefined("log of a negative number")
    lo = -INF if _is_zero(v.lo) else _monotone(v.lo, arb.log, True)
    if _is_zero(v.hi):
        raise Undefined("log 0")
    return Iv(lo, _monotone(v.hi, arb.log, False))


def _sqrt(v: Iv) -> Iv:
    if lt(v.lo, 0):
        raise Undefined("sqrt of a negative number")
    return Iv(_monotone(v.lo, arb.sqrt, True), _monotone(v.hi, arb.sqrt, False))


def _abs(v: Iv) -> Iv:
    if ge(v.lo, 0):
        return v
    if le(v.hi, 0):
        return -v
    return Iv(arb(0), end_max([neg(v.lo), v.hi]))


def float_exact(f: sp.Float) -> Fraction:
    sign, man, exp, _ = f._mpf_
    q = Fraction(man) * (Fraction(2) ** exp)
    return -q if sign else q


# ----- SymPy -> closure over intervals -------------------------------------------------------------
CACHE: dict = {}


def compile_expr(expr):
    expr = sp.sympify(expr)
    if expr not in CACHE:
        CACHE[expr] = _build(expr)
    return CACHE[expr]


def _build(e):
    if e.is_Symbol:
        def sym(env):
            if e not in env:
                raise Undefined(f"no value for {e}")
            return env[e]
        return sym
    if e.is_Integer or e.is_Rational:
        c = Fraction(int(e.p), int(e.q))
        return lambda env: constant(c)
    if e.is_Float:
        c = float_exact(e)  # the binary number the Float stores, exactly
        return lambda env: constant(c)
    if e is sp.E:
        return lambda env: _ball(arb.const_e())
    if e is sp.pi:
        return lambda env: _ball(arb.pi())
    if e is sp.oo or e is -sp.oo:
        end = INF if e is sp.oo else -INF
        return lambda env: Iv(end, end)
    if isinstance(e, sp.Add):
        terms, const = list(e.args), [t for t in e.args if t.is_Number]
        parts = []
        if len(const) == 1:  # c + k exp(a) with k = -c: k expm1(a), which keeps the relative precision of tiny a
            for t in terms:
                k, g = t.as_coeff_Mul()
                if isinstance(g, sp.exp) and k.is_Number and k == -const[0]:
                    a, kk = _build(g.args[0]), _build(k)
                    parts.append(lambda env, a=a, kk=kk: kk(env) * _expm1(a(env)))
                    terms = [x for x in terms if x is not t and x is not const[0]]
                    break
        parts += [_build(t) for t in terms]
        return lambda env: functools.reduce(operator.add, (p(env) for p in parts))
    if isinstance(e, sp.Mul):
        parts = [_build(t) for t in e.args]
        return lambda env: functools.reduce(operator.mul, (p(env) for p in parts))
    if isinstance(e, sp.Pow):
        base, p = _build(e.base), e.exp
        if p.is_Integer:
            n = int(p)
            return lambda env: base(env).power(n)
        if p.is_Rational and p.q == 2:
            n = int(p.p)
            return lambda env: _sqrt(base(env)).power(n)
        ex = _build(p)
        positive = bool(p.is_positive)

        def power(env):
            v = base(env)
            if positive and _is_zero(v.lo) and _is_zero(v.hi):
                return Iv(arb(0), arb(0))  # 0^p = 0 for p > 0 (exp(p log 0) has no value in Arb)
            return _exp(ex(env) * iv_log(v))
        return power
    if isinstance(e, sp.exp):
        a = _build(e.args[0])
        return lambda env: _exp(a(env))
    if isinstance(e, sp.log) and len(e.args) == 1:
        a = _build(e.args[0])
        return lambda env: iv_log(a(env))
    if isinstance(e, sp.Abs):
        a = _build(e.args[0])
        return lambda env: _abs(a(env))
    if isinstance(e, (sp.cosh, sp.sinh)):
        a, sign = _build(e.args[0]), (1 if isinstance(e, sp.cosh) else -1)
        half = constant(Fraction(1, 2))
        return lambda env: (_exp(a(env)) + (_exp(-a(env)) if sign > 0 else -_exp(-a(env)))) * half
    if isinstance(e, (sp.Max, sp.Min)):
        parts, pick = [_build(t) for t in e.args], (end_max if isinstance(e, sp.Max) else end_min)

        def mm(env):
            vs = [p(env) for p in parts]
            return Iv(pick([v.lo for v in vs]), pick([v.hi for v in vs]))
        return mm
    raise Undefined(f"the re-check cannot evaluate {type(e).__name__}: {e}")


def safe(f, env):
    try:
        return f(env)
    except Undefined:
        return None


# ----- coordinates --------------------------------------------------------------------------------
def box_env(cert, box) -> dict:
    env = {}
    for c, (a, b) in zip(cert.coords, box):
        a, b = Fraction(a), Fraction(b)
        if c.hi is None:  # v = lo + t/(1 - t)
            above = Iv(INF if a >= 1 else _end(_frac(a) / (1 - _frac(a)), True),
                       INF if b >= 1 else _end(_frac(b) / (1 - _frac(b)), False))
            env[c.symbol] = constant(c.lo) + above
        else:
            env[c.symbol] = Iv(_end(_frac(a), True), _end(_frac(b), False))
            above = env[c.symbol] + (-constant(c.lo))
        if c.above is not None:
            env[c.above] = Iv(end_max([above.lo, arb(0)]), above.hi)  # v - lo >= 0 on the domain
    return env

