"""SymPy expressions printed as Coq ``Reals`` terms (``R_scope``).

Handled: parameter symbols (printed by their parameter names), integers and rationals, ``+``, ``*``, division,
integer powers (``^``), square roots and half-integer powers (``sqrt``), other rational and symbolic powers
(``Rpower``, defined for a positive base), ``exp``, ``log`` (``ln``), ``Min``/``Max`` (``Rmin``/``Rmax``), ``E``
and ``pi``.  Anything else is refused with a one-line ``CoqExportError`` naming the construct."""
from __future__ import annotations

import functools
import re

import sympy as sp

from ...symbols import NAME


class CoqExportError(ValueError):
    """A construct the Coq printer does not handle (one line)."""


def ident(sym: sp.Symbol) -> str:
    """The Coq identifier of a parameter symbol (its parameter name)."""
    name = NAME.get(sym, sym.name)
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        raise CoqExportError(f"cannot print symbol {sym.name!r} to Coq: not an identifier")
    return name


def _num(n: sp.Rational) -> str:
    if n.q == 1:
        return str(n.p) if n.p >= 0 else f"(- {-n.p})"
    s = f"{abs(n.p)} / {n.q}"
    return f"({s})" if n.p > 0 else f"(- ({s}))"


def coq(expr) -> str:
    """The Coq ``R`` term of ``expr``; ``CoqExportError`` for an unhandled construct."""
    e = sp.sympify(expr)
    if isinstance(e, sp.Symbol):
        return ident(e)
    if isinstance(e, sp.Float):
        return coq(sp.Rational(e))
    if isinstance(e, sp.Rational):
        return _num(e)
    if e is sp.E:
        return "(exp 1)"
    if e is sp.pi:
        return "PI"
    if isinstance(e, sp.Add):
        terms = [coq(a) for a in sp.Add.make_args(e)]
        return "(" + " + ".join(terms) + ")"
    if isinstance(e, sp.Mul):
        num, den = [], []
        for f in sp.Mul.make_args(e):
            if isinstance(f, sp.Pow) and f.exp.is_Rational and f.exp.is_negative:
                den.append(sp.Pow(f.base, -f.exp, evaluate=False) if f.exp != -1 else f.base)
            elif isinstance(f, sp.Rational) and f.q != 1:
                if f.p != 1:
                    num.append(sp.Integer(f.p))
                den.append(sp.Integer(f.q))
            else:
                num.append(f)
        top = " * ".join(coq(f) for f in num) if num else "1"
        return f"({top} / ({' * '.join(coq(f) for f in den)}))" if den else f"({top})"
    if isinstance(e, sp.Pow):
        base, ex = e.base, e.exp
        if ex.is_Integer:
            if ex >= 0:
                return f"({coq(base)} ^ {int(ex)})"
            return f"(/ ({coq(base)} ^ {int(-ex)}))" if ex != -1 else f"(/ {coq(base)})"
        if ex.is_Rational and ex.q == 2:
            k = int(ex.p)
            root = f"(sqrt {coq(base)})"
            if k == 1:
                return root
            if k == -1:
                return f"(/ {root})"
            return f"({root} ^ {k})" if k > 0 else f"(/ ({root} ^ {-k}))"
        if base is sp.E:
            return f"(exp {coq(ex)})"
        return f"(Rpower {coq(base)} {coq(ex)})"
    if isinstance(e, sp.exp):
        return f"(exp {coq(e.args[0])})"
    if isinstance(e, sp.log):
        if len(e.args) != 1:
            raise CoqExportError(f"cannot print {sp.sstr(e)} to Coq: log with a base")
        return f"(ln {coq(e.args[0])})"
    if isinstance(e, (sp.Min, sp.Max)):
        op = "Rmin" if isinstance(e, sp.Min) else "Rmax"
        return functools.reduce(lambda out, a: f"({op} {out} {a})", [coq(a) for a in e.args])
    raise CoqExportError(f"cannot print {sp.sstr(e)} to Coq: unsupported construct {type(e).__name__}")
