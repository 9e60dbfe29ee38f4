"""THE numeric evaluator of SymPy expressions in this project (one formula, one evaluation path).

Every number computed from a ``bounds`` expression goes through this module: ``Statement.evaluate/width/term``
and the hypothesis checks (``bounds.core``), the verifier's points and interval certificates (``bounds.prove.verify``),
and the measuring library (``slt.measure``).  An expression is compiled once into a closure over an mpmath
context: ``mpmath.mp`` (points at any precision; mpmath numbers have an unbounded exponent, so nothing
underflows) or ``mpmath.iv`` (rigorous outward-rounded intervals, endpoints may be infinite).
``exp(a) - 1`` is evaluated as ``expm1(a)``, so that it keeps its relative precision for tiny ``a``.

- ``compile_expr(expr, ctx)`` -> ``f(env)`` with ``env`` mapping SymPy symbols to numbers or intervals;
- ``evaluate(expr, values, dps)`` -> an mpmath number, ``values`` mapping parameter names to numbers;
- ``value(expr, values)`` -> a float.
"""
from __future__ import annotations

import functools
import operator

import mpmath
import sympy as sp

from .symbols import NAME

_CACHE: dict = {}


class CannotEvaluate(TypeError):
    """An expression holding something this evaluator has no rule for (``floor``, ``zoo``, ``nan``, a relation): the
    message names it.  A ``TypeError``, as callers that try another form on one expect."""


def compile_expr(expr, ctx):
    """Closure ``f(env)`` evaluating ``expr`` in ``ctx`` (``mpmath.mp`` or ``mpmath.iv``); env: symbol -> value."""
    expr = sp.sympify(expr)
    key = (expr, ctx is mpmath.iv)
    if key not in _CACHE:
        _CACHE[key] = _build(expr, ctx)
    return _CACHE[key]


def evaluate(expr, values: dict, dps: int = 30):
    """``expr`` at ``values`` (parameter name -> number) as an mpmath number computed with ``dps`` digits.
    Raises ValueError naming the missing parameters."""
    expr = sp.sympify(expr)
    missing = sorted({NAME.get(s, str(s)) for s in expr.free_symbols} - set(values))
    if missing:
        raise ValueError(f"expression {expr} needs parameters {missing}")
    f = compile_expr(expr, mpmath.mp)
    with mpmath.workdps(dps):
        env = {s: _mp(values[NAME.get(s, str(s))]) for s in expr.free_symbols}
        return +f(env)


def value(expr, values: dict, dps: int = 30) -> float:
    """``expr`` at ``values`` (parameter name -> number) as a float (computed with ``dps`` digits)."""
    v = evaluate(expr, values, dps)
    if isinstance(v, mpmath.mpc):
        raise ValueError(f"expression {expr} is not real at {values}")
    return float(v)


def _mp(v):
    if isinstance(v, (mpmath.mpf, mpmath.mpc)):
        return v
    if isinstance(v, sp.Basic):
        return mpmath.mpf(str(sp.Float(v, 60)))
    return mpmath.mpf(v if isinstance(v, (int, float, str)) else float(v))


def _const(v, ctx):
    if isinstance(v, sp.Integer):
        n = int(v)
        return lambda env: ctx.mpf(n)
    if isinstance(v, sp.Rational):
        p, q = int(v.p), int(v.q)
        return lambda env: ctx.mpf(p) / ctx.mpf(q)  # at the working precision
    if v is sp.E:
        return lambda env: ctx.e
    if v is sp.pi:
        return lambda env: ctx.pi
    if v.is_Float:  # the exact binary value it stores (its 15-digit string would round: Float(1/3) != 0.333333333333333)
        q = sp.Rational(v)
        p, d = int(q.p), int(q.q)
        return lambda env: ctx.mpf(p) / ctx.mpf(d)
    if v in (sp.oo, -sp.oo):
        c = ctx.inf if v is sp.oo else -ctx.inf
        return lambda env: c
    raise CannotEvaluate(f"constant {v!r}")


def _expm1_pairs(e):
    """Split the terms of an Add into ``(a, k)`` pairs for ``k (exp(a) - 1)`` and the other terms."""
    terms = list(e.args)
    consts = [t for t in terms if t.is_Number]
    if len(consts) != 1:
        return [], terms
    c = consts[0]
    pairs, rest = [], [t for t in terms if t is not c]
    for t in list(rest):
        k, f = t.as_coeff_Mul()
        if isinstance(f, sp.exp) and k.is_Number and k == -c:
            pairs.append((f.args[0], k))
            rest.remove(t)
            break
    return (pairs, rest) if pairs else ([], terms)


def _build(e, ctx):
    if e.is_Symbol:
        return lambda env: env[e]
    if e.is_Number or e in (sp.E, sp.pi):
        return _const(e, ctx)
    if isinstance(e, sp.Add):
        pairs, rest = _expm1_pairs(e)
        em1 = _iv_expm1 if ctx is mpmath.iv else ctx.expm1
        parts = [(lambda env, a=_build(a, ctx), k=_const(k, ctx): k(env) * em1(a(env))) for a, k in pairs]
        parts += [_build(t, ctx) for t in rest]
        return lambda env: functools.reduce(operator.add, (a(env) for a in parts))
    if isinstance(e, sp.Piecewise) and ctx is not mpmath.iv:
        pieces = [(_build(x, ctx), _build(c, ctx)) for x, c in e.args]

        def piecewise(env):
            for x, c in pieces:
                if c(env):
                    return x(env)
            raise ValueError(f"no piece of {e} applies")
        return piecewise
    args = [_build(a, ctx) for a in e.args]
    if isinstance(e, sp.Mul):
        return lambda env: functools.reduce(operator.mul, (a(env) for a in args))
    if isinstance(e, sp.Pow):
        base, ex = args
        p = e.exp
        if p.is_Integer:
            n = int(p)
            if n >= 0:
                return lambda env: base(env) ** n
            return lambda env: 1 / base(env) ** (-n)
        if p.is_Rational and p.q == 2:
            n = int(p.p)
            if n >= 0:
                return lambda env: ctx.sqrt(base(env)) ** n
            return lambda env: 1 / ctx.sqrt(base(env)) ** (-n)
        return lambda env: ctx.exp(ex(env) * ctx.log(base(env)))
    if isinstance(e, sp.exp):
        return lambda env: ctx.exp(args[0](env))
    if isinstance(e, sp.cosh):
        return lambda env: (ctx.exp(args[0](env)) + ctx.exp(-args[0](env))) / 2
    if isinstance(e, sp.sinh):
        return lambda env: (ctx.exp(args[0](env)) - ctx.exp(-args[0](env))) / 2
    if isinstance(e, sp.log):
        return lambda env: ctx.log(args[0](env))
    if isinstance(e, sp.Abs):
        return lambda env: abs(args[0](env))
    if isinstance(e, (sp.Max, sp.Min)):
        pick = max if isinstance(e, sp.Max) else min
        return lambda env: _extreme(pick, ctx, [a(env) for a in args])
    if e is sp.true or e is sp.false:
        return lambda env, t=bool(e): t
    if isinstance(e, sp.Rel) and ctx is not mpmath.iv:
        op = {sp.Eq: operator.eq, sp.Ne: operator.ne, sp.Ge: operator.ge, sp.Gt: operator.gt, sp.Le: operator.le,
              sp.Lt: operator.lt}[type(e)]
        return lambda env: op(args[0](env), args[1](env))
    if isinstance(e, (sp.And, sp.Or)) and ctx is not mpmath.iv:
        pick = all if isinstance(e, sp.And) else any
        return lambda env: pick(a(env) for a in args)
    raise CannotEvaluate(f"{type(e).__name__}: {e}")


def _iv_expm1(v):
    """expm1 of an interval: mpmath's series on small intervals (relative precision kept for tiny arguments),
    exp(v) - 1 elsewhere (the series does not terminate on wide or infinite intervals)."""
    iv = mpmath.iv
    v = iv.mpf(v)
    if -0.5 <= v.a and v.b <= 0.5:
        return iv.expm1(v)
    return iv.exp(v) - 1


def _extreme(pick, ctx, vals):
    """``pick`` (max or min) of the values; of intervals, endpoint by endpoint."""
    if ctx is mpmath.iv:
        return ctx.mpf([pick(v.a for v in vals), pick(v.b for v in vals)])
    return pick(vals)
