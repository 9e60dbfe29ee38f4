"""The domain of a proof step: its parameters (the statement's, overridden by the step's own), the bounded box
each is searched on (``Param.box``), and the change of variables of a parameter whose lower bound depends on
others (``alpha = r Max(sqrt(d1), sqrt(d2))``, ``b = 1 + offset``).  Shared by every method of the verifier."""
from __future__ import annotations

import mpmath
import sympy as sp

from .core import Param, Step
from .evaluate import compile_expr
from .symbols import NAME, PARAMETER, text

OFFSET = "_offset"
DEFAULTS = {"C": Param("C", lo=(0,), lo_open=True, box=(2**-8, 2**8), log=True)}
SHIFTED: dict = {}  # offset parameter name -> what it stands for ("B - b")


class Domain:
    def __init__(self, step: Step, params: tuple, exprs=None):
        table = {p.name: p for p in params}
        table.update({p.name: p for p in step.params})
        self.table = table
        free = set().union(*(sp.sympify(e).free_symbols for e in (exprs or (step.lhs, step.rhs))))
        needed, order = {NAME[s] for s in free}, []
        while needed - set(order):  # dependencies first
            for n in sorted(needed - set(order)):
                p = table.get(n) or DEFAULTS.get(n)
                if p is None:
                    raise ValueError(f"step {step.name}: no domain for parameter {n}")
                table[n] = p
                deps = {NAME[s] for v in p.lo for s in sp.sympify(v).free_symbols}
                needed |= deps
                if deps <= set(order):
                    order.append(n)
        self.step = step
        self.params = [table[n] for n in order]
        self.key = tuple((p.name, p.lo, p.box, p.log, p.integer) for p in self.params)
        self.lo = {p.name: (sp.Max(*p.lo) if len(p.lo) > 1 else sp.sympify(p.lo[0])) for p in self.params if p.dependent}

    def reduced(self, expr) -> "Domain":
        """The domain of the parameters ``expr`` depends on (and their lower bounds' parameters)."""
        return Domain(self.step, tuple(self.table.values()), (expr,))

    def shifted(self):
        """This domain with every additive dependent parameter ``v = lo + o`` replaced by its offset ``o``,
        and the substitution ``{v: lo + o}``."""
        table, sub = dict(self.table), {}
        for p in self.params:
            if p.dependent and not p.log:
                name = p.name + OFFSET
                PARAMETER.setdefault(name, sp.Symbol(name, nonnegative=True))
                NAME[PARAMETER[name]] = name
                SHIFTED[name] = f"{p.name} - {txt(sp.Max(*p.lo))}"
                q = table[name] = Param(name, lo=(0,), integer=p.integer, box=p.box)
                del table[p.name]
                sub[p.symbol] = q.symbol + sp.Max(*p.lo)
        exprs = [sp.sympify(e).xreplace(sub) for e in (self.step.lhs, self.step.rhs)]
        return Domain(self.step, tuple(table.values()), exprs), sub

    def root(self):
        return [(mpmath.mpf(p.box[0]), mpmath.mpf(p.box[1])) for p in self.params]

    def env(self, point, ctx):
        """Map box coordinates (numbers or intervals) to parameter values."""
        env = {}
        for p, v in zip(self.params, point):
            if p.name in self.lo:
                lo = compile_expr(self.lo[p.name], ctx)(env)
                v = lo * v if p.log else lo + v
            env[p.symbol] = v
        return env

    def describe(self) -> dict:
        out = {}
        for p in self.params:
            lo, hi = p.box
            if p.name in self.lo:
                rel = "*" if p.log else "+"
                out[p.name] = f"{p.name} = {txt(self.lo[p.name])} {rel} [{num(lo)}, {num(hi)}]"
            else:
                out[p.name] = f"{SHIFTED.get(p.name, p.name)} in [{num(lo)}, {num(hi)}]"
        return out

    def named(self, env) -> dict:
        return {NAME[s]: (int(v) if self._integer(NAME[s]) and v == int(v) else float(v)) for s, v in env.items()}

    def _integer(self, name):
        return any(p.name == name and p.integer for p in self.params)



def txt(e):
    return text(e)


def num(v):
    v = float(v)
    if v > 0 and v < 1e-3:
        return f"2^{round(mpmath.log(v, 2))}"
    return f"{v:g}"

