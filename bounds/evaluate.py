"""Evaluate SymPy expressions in mpmath contexts: high-precision points (``mpmath.mp``) and rigorous
intervals (``mpmath.iv``).  A small compiler to closures, so that a step is translated once."""
from __future__ import annotations

import mpmath
import sympy as sp

_CACHE: dict = {}


def compile_expr(expr: sp.Expr, ctx):
    """Closure ``f(env)`` evaluating ``expr`` in ``ctx`` (``mpmath.mp`` or ``mpmath.iv``); env: symbol -> value."""
    key = (sp.srepr(expr), ctx is mpmath.iv)
    if key not in _CACHE:
        _CACHE[key] = _build(sp.sympify(expr), ctx)
    return _CACHE[key]


def _const(v, ctx):
    if isinstance(v, sp.Integer):
        c = ctx.mpf(int(v))
    elif isinstance(v, sp.Rational):
        c = ctx.mpf(int(v.p)) / ctx.mpf(int(v.q))
    elif v is sp.E:
        c = ctx.e
    elif v is sp.pi:
        c = ctx.pi
    elif v.is_Float:
        c = ctx.mpf(str(v))
    else:
        raise TypeError(f"cannot evaluate constant {v!r}")
    return lambda env: c


def _build(e, ctx):
    if e.is_Symbol:
        return lambda env: env[e]
    if e.is_Number or e in (sp.E, sp.pi):
        return _const(e, ctx)
    args = [_build(a, ctx) for a in e.args]
    if isinstance(e, sp.Add):
        def add(env):
            s = args[0](env)
            for a in args[1:]:
                s = s + a(env)
            return s
        return add
    if isinstance(e, sp.Mul):
        def mul(env):
            s = args[0](env)
            for a in args[1:]:
                s = s * a(env)
            return s
        return mul
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
    if isinstance(e, (sp.Max, sp.Min)):
        pick = _max if isinstance(e, sp.Max) else _min
        return lambda env: pick(ctx, [a(env) for a in args])
    raise TypeError(f"cannot evaluate {type(e).__name__}: {e}")


def _max(ctx, vals):
    if ctx is mpmath.iv:
        return ctx.mpf([max(v.a for v in vals), max(v.b for v in vals)])
    return max(vals)


def _min(ctx, vals):
    if ctx is mpmath.iv:
        return ctx.mpf([min(v.a for v in vals), min(v.b for v in vals)])
    return min(vals)
