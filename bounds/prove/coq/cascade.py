"""The cascade of candidate tactics for one step's lemma: reflexivity, ``lra``/``field``/``nra``, ``interval`` on
``rhs - lhs`` with bisection and derivatives, and the reformulations (``lhs / rhs`` compared with 1, ``rhs - lhs``
simplified by SymPy, log-space forms, the scalar facts applied inside a side), each equation re-proved by Coq's
``field``; the search (``search``) tries them in order."""
from __future__ import annotations

import re

import sympy as sp

from ...facts import SCALAR
from ..verify import exact
from ..verify_domain import Domain, TimeLimit, time_limit
from .printer import CoqExportError, coq, ident

TAILS: dict = {}
"""The candidates that carry a cascade of their own, ``{head + tail + " ]": (head, tail)}``: a fact applied inside a
side (its domain tried by every log-space form in turn), then one goal left, the tail's.  The search gives each
``search.NESTED_TIMEOUT`` seconds instead of ``search.TIMEOUT``, and tries a run sharing one head together."""

EQ = "first [ ring | field ]"
"""An equation a reformulation rests on: ``ring``, or ``field`` where a rational constant divides (an edited 199/100
leaves ``x / 50`` and ``x / 100`` in the terms, which ``ring`` takes for unrelated atoms)."""


def lemma_name(statement: str, step: str) -> str:
    return "step_" + re.sub(r"[^A-Za-z0-9_]", "_", f"{statement}_{step}")


def _constant_lower(p, dom: Domain):
    """A constant lower bound of a dependent parameter (its bound at its arguments' constant lower ends)."""
    const = {q.symbol: exact(q.lo[0]) for q in dom.params if q.lo and not q.dependent}
    best = None
    for lo in p.lo:
        v = sp.sympify(lo).xreplace(const)
        if v.free_symbols or not v.is_real:
            continue
        c = sp.Rational(sp.floor(v * 2**20), 2**20)
        best = c if best is None else max(best, c)
    return best


def lower_bounds(dom: Domain) -> str:
    """Coq tactics asserting a constant lower bound of every dependent parameter (each followed by '; ')."""
    pre = []
    for p in dom.params:
        if p.dependent:
            c = _constant_lower(p, dom)
            if c is not None:
                lo = next(iter(p.lo))
                pre.append(f"assert ({coq(c)} <= {ident(p.symbol)}) by (apply Rle_trans with "
                           f"({coq(exact(lo))}); [slth_lo | lra])")
    return "".join(t + "; " for t in pre)


def _interval_opts(free: list[str]) -> list[str]:
    opts = ["", "with (i_prec 53)"]
    for v in free:
        opts += [f"with (i_bisect {v}, i_autodiff {v})", f"with (i_bisect {v}, i_autodiff {v}, i_prec 53)",
                 f"with (i_bisect {v}, i_taylor {v}, i_prec 53)"]
    return opts


def variants(lhs: sp.Expr, rhs: sp.Expr, dom: Domain, extra: tuple = ()) -> list[tuple]:
    """Changes of variables, each as (Coq tactic prefix, lhs, rhs after it): none (constant lower bounds derived
    for the dependent parameters); a dimension under a square root written d = s^2; then each dependent
    parameter written in terms of one of its lower bounds: ``p = r v`` (r >= 1) for a log-scale parameter,
    ``p = v + m`` (m >= 0) otherwise.  ``extra``: more expressions changed alike (each variant is then
    ``(prefix, lhs, rhs, *extra)``)."""
    es = (lhs, rhs, *extra)
    out = [(lower_bounds(dom), *es)]
    # d = s^2 for every parameter that appears under a square root
    sub, tac = {}, []
    exprs = [lhs, rhs] + [sp.sympify(v) for p in dom.params for v in p.lo]
    for p in dom.params:
        v = p.symbol
        if p.dependent or not p.lo or not any(isinstance(a, sp.Pow) and a.base == v and a.exp.is_Rational
                                              and a.exp.q == 2 for e in exprs for a in sp.preorder_traversal(e)):
            continue
        name = f"s_{ident(v)}"
        c = sp.Rational(sp.floor(sp.sqrt(exact(p.lo[0])) * 2**20), 2**20)
        sub[v] = sp.Symbol(name, positive=True) ** 2
        tac.append(f"set ({name} := sqrt {ident(v)}) in *; assert (Hsq_{name} : {ident(v)} = {name} * {name}) by "
                   f"(unfold {name}; rewrite sqrt_sqrt; lra); assert ({coq(c)} <= {name}) by (unfold {name}; slth_lo); "
                   f"clearbody {name}; subst {ident(v)}")
    base = [("".join(t + "; " for t in tac), *(e.xreplace(sub) for e in es))] if sub else [("", *es)]
    squared = base[0]
    for p in dom.params:
        if not p.dependent:
            continue
        grown = []
        for lo in p.lo:
            lo_s = exact(sp.sympify(lo)).xreplace(sub)
            v = ident(p.symbol)
            if p.log:
                name = f"r_{v}"
                new = sp.Symbol(name, positive=True) * lo_s
                t = (f"assert (0 < {coq(lo_s)}) by slth_lo; set ({name} := {v} / {coq(lo_s)}); assert (Hr_{name} : {v} = "
                     f"{name} * {coq(lo_s)}) by (unfold {name}; field; apply Rgt_not_eq; slth_lo); assert (1 <= {name}) "
                     f"by (unfold {name}; apply slth_ge1; [slth_lo | lra]); clearbody {name}; subst {v}")
            else:
                name = f"m_{v}"
                new = lo_s + sp.Symbol(name, nonnegative=True)
                t = (f"set ({name} := {v} - {coq(lo_s)}); assert (Hm_{name} : {v} = {coq(lo_s)} + {name}) by "
                     f"(unfold {name}; ring); assert (0 <= {name}) by (unfold {name}; lra); clearbody {name}; subst {v}")
            for pre_, *es_ in base:
                grown.append((pre_ + t + "; ", *(e.xreplace({p.symbol: new}) for e in es_)))
        base = grown or base
    # every lower bound of a log-scale dependent parameter, when it is one variable, written as w p with 0 < w <= 1
    pre_, *es_ = squared
    t, rep = [], {}
    for p in dom.params:
        if not (p.dependent and p.log):
            continue
        v = ident(p.symbol)
        los = [exact(sp.sympify(lo)).xreplace(sub) for lo in p.lo]
        c = _constant_lower(p, dom)
        if c is not None:
            t.append(f"assert ({coq(c)} <= {v}) by (apply Rle_trans with ({coq(los[0])}); [slth_lo | lra])")
        for k, lo in enumerate(los):
            if not isinstance(lo, sp.Symbol):
                continue
            name = f"w{k}_{v}"
            rep[lo] = sp.Symbol(name, positive=True) * p.symbol
            t.append(f"set ({name} := {coq(lo)} / {v}); assert (Hw_{name} : {coq(lo)} = {name} * {v}) by "
                     f"(unfold {name}; field; apply Rgt_not_eq; lra); assert (0 < {name}) by (unfold {name}; "
                     f"apply Rdiv_lt_0_compat; lra); assert ({name} <= 1) by (unfold {name}; apply slth_le1; lra); "
                     f"clearbody {name}; subst {coq(lo)}")
    normal = [(pre_ + "".join(x + "; " for x in t), *(e.xreplace(rep) for e in es_))] if rep else []
    return out + [b for b in base if b[0]] + normal


def candidates(lhs: sp.Expr, rhs: sp.Expr, dom: Domain) -> list[str]:
    """The generated cascade of tactic scripts for ``lhs <= rhs`` (after ``intros``).  Each reformulation SymPy
    computes runs under the verifier's stage time limit (``SLTH_SYMPY_SECONDS``); one cut by it, or written with a
    construct the printer refuses, adds no candidate.  Where a side has a power with a symbolic exponent, the ratio
    and the factored difference (``_ratio``, ``_difference``) are not generated: SymPy spends seconds per lemma on
    them there, and the interval tactic cannot bound what they print (no recorded tactic is one of them)."""
    out = ["apply Rle_refl", "lra", "right; field; repeat split; slth_nz", "nra"]
    out += _tried(_log_space, lhs, rhs, dom) + _tried(_terms_log_space, lhs, rhs, dom)
    powers = any(isinstance(a, sp.Pow) and not a.exp.is_Rational for e in (lhs, rhs) for a in sp.preorder_traversal(e))
    if powers:
        out += _tried(_common_log, lhs, rhs, dom)  # a common ln over powers of one base: before the long search
        out += _tried(_split, lhs, rhs, dom) + _tried(_difference_powers, lhs, rhs)
    out += _tried(_instances, lhs, rhs, dom) + _tried(_instances_inside, lhs, rhs, dom)
    for pre, l, r in _tried(variants, lhs, rhs, dom) or [("", lhs, rhs)]:
        free = [ident(s) for s in sorted(l.free_symbols | r.free_symbols, key=lambda s: s.name)]
        unfold = "unfold Rpower in *; " if "Rpower" in coq(lhs) + coq(rhs) else ""
        if pre:
            out += [f"{pre}lra", f"{pre}nra"]
        out += [f"{pre}{unfold}apply Rminus_le; interval {o}" for o in _interval_opts(free)]
        if not powers:  # (SymPy's cancel and factor of powers with symbolic exponents: seconds, and no candidate)
            out += _tried(_ratio, l, r, pre, unfold) + _tried(_difference, l, r, pre, unfold)
    out += _tried(_common_log, lhs, rhs, dom)
    return list(dict.fromkeys(out))


def _tried(form, *args) -> list:
    """``form(*args)`` under the stage time limit; [] when it is cut or prints a construct the printer refuses."""
    try:
        with time_limit(stage=f"coq: {form.__name__}"):
            return form(*args)
    except (CoqExportError, TimeLimit):
        return []


def _log_factor(e):
    """(c, a) with e = c * log(a), or None."""
    logs = [f for f in sp.Mul.make_args(e) if isinstance(f, sp.log)]
    if len(logs) != 1:
        return None
    return sp.Mul(*[f for f in sp.Mul.make_args(e) if f is not logs[0]]), logs[0].args[0]


def _common_log(lhs, rhs, dom) -> list[str]:
    """c ln a <= c ln b: the common factor and ln peeled (``slth_ln``), then a <= b by the cascade."""
    fl, fr = _log_factor(lhs), _log_factor(rhs)
    if not fl or not fr or sp.simplify(fl[0] - fr[0]) != 0 or fl[1] == fr[1]:
        return []
    (c, a), b = fl, fr[1]
    pre = variants(lhs, rhs, dom)[0][0]  # the constant lower bounds of the dependent parameters
    head = (f"{pre}apply (slth_ln _ _ {coq(c)} {coq(a)} {coq(b)}); [ {EQ} | {EQ} | slth_lo | slth_lo | ")
    return [head + sub + " ]" for sub in candidates(a, b, dom)]


def _ratio(lhs, rhs, pre, unfold):
    if rhs.is_zero:
        return []
    q = sp.simplify(sp.powsimp(sp.cancel(lhs / rhs), force=False))
    qf = [ident(s) for s in sorted(q.free_symbols, key=lambda s: s.name)]
    return [f"{pre}apply (slth_ratio _ _ {coq(q)}); [ {unfold}slth_lo | field; repeat split; slth_nz | "
            f"{unfold}apply Rminus_le; interval {o} ]" for o in _interval_opts(qf)]


def _difference(lhs, rhs, pre, unfold):
    d = sp.factor(sp.simplify(rhs - lhs))
    if d == rhs - lhs:
        return []
    df = [ident(s) for s in sorted(d.free_symbols, key=lambda s: s.name)]
    return [f"{pre}apply (slth_diff _ _ {coq(d)}); [ field; repeat split; slth_nz | {unfold}interval {o} ]"
            for o in _interval_opts(df)]


def _difference_powers(lhs, rhs) -> list[str]:
    """rhs - lhs with every power of a sum of exponents written as a product (x^(a+b) = x^a x^b, x^(-a) = 1/x^a),
    the equation by ``field`` after Coq rewrites the powers alike (``slth_pw``), and the difference >= 0 by
    positivity or ``interval``."""
    d = sp.expand(rhs - lhs, power_exp=True)
    if d == sp.expand(rhs - lhs) and d.is_Add:
        return []
    head = f"apply (slth_diff _ _ ({coq(d)})); [ slth_pw; field; repeat split; slth_nz | "
    return [head + tail + " ]" for tail in ("left; slth_ppos", "apply Rle_refl", "unfold Rpower; interval")]


def _integers(*exprs) -> set[int]:
    """The composite integers of the expressions (numerators and denominators), whose logarithms Coq splits."""
    out = set()
    for e in exprs:
        for a in sp.preorder_traversal(e):
            if isinstance(a, sp.Rational):
                out |= {abs(int(n)) for n in (a.p, a.q) if abs(int(n)) > 3 and not sp.isprime(abs(int(n)))}
    return out


def _prime_logs(g: sp.Expr) -> sp.Expr:
    """``log n`` of every integer n > 1 written as the sum of its primes' logarithms."""
    rep = {}
    for a in g.atoms(sp.log):
        n = a.args[0]
        if n.is_Integer and n > 1:
            rep[a] = sp.Add(*[k * sp.log(sp.Integer(p), evaluate=False) for p, k in sp.factorint(int(n)).items()])
    return sp.expand(g.xreplace(rep))


def _shift_exponents(l, r, dom: Domain):
    """Every parameter of a symbolic exponent written ``v = lo + a_v`` (a_v >= 0) where its constant lower end lo
    is not 0, so that each exponent polynomial keeps its sign in interval arithmetic: (Coq tactic, lhs, rhs)."""
    syms = {s for e in (l, r) for a in sp.preorder_traversal(e) if isinstance(a, sp.Pow) and not a.exp.is_Rational
            for s in a.exp.free_symbols}
    tac, sub = [], {}
    for p in dom.params:
        if p.symbol not in syms or p.dependent or not p.lo:
            continue
        lo = exact(p.lo[0])
        if lo == 0:
            continue
        v, name = ident(p.symbol), f"a_{ident(p.symbol)}"
        sub[p.symbol] = lo + sp.Symbol(name, nonnegative=True)
        tac.append(f"set ({name} := {v} - {coq(lo)}); assert (Ha_{name} : {v} = {coq(lo)} + {name}) by "
                   f"(unfold {name}; ring); assert (0 <= {name}) by (unfold {name}; lra); clearbody {name}; subst {v}")
    return "".join(t + "; " for t in tac), l.xreplace(sub), r.xreplace(sub)


def _coeff_last(parts: dict) -> str:
    """sum_k c_k ln a_k printed with each monomial's numeric coefficient last (``a * m * 4``): interval arithmetic
    then keeps 0 as the lower end of a product of parameters in [0, +oo] (with the coefficient first it loses it)."""
    terms = []
    for k, c in parts.items():
        mons = []
        for t in sp.Add.make_args(sp.expand(c)):
            num, rest = t.as_coeff_Mul()
            mons.append(coq(num) if rest == 1 else f"({coq(rest)} * {coq(num)})")
        poly = "(" + " + ".join(mons) + ")"
        terms.append(poly if k == 1 else f"({poly} * {coq(k)})")
    return "(" + " + ".join(terms) + ")" if terms else "0"


def _by_monomial(parts: dict) -> str | None:
    """sum_k c_k ln a_k printed as sum_m m (sum_k c_km ln a_k), one term per monomial m of the variables (None when
    that is the form ``_coeff_last`` prints already, every monomial under one logarithm): each inner sum, a constant
    of logarithms of numbers plus named logarithms of variables, is then bounded as a whole, so that a monomial's
    negative coefficient on ln 2 is offset by its positive ones on other numbers (interval arithmetic bounds the
    sum of ``m * (- 4) * ln 2`` and ``m * ln 65`` with m in [0, +oo] by (-oo, +oo))."""
    by: dict = {}
    for k, c in parts.items():
        for t in sp.Add.make_args(sp.expand(c)):
            num, rest = t.as_coeff_Mul()
            by.setdefault(rest, []).append((num, k))
    if all(len(v) == 1 for v in by.values()):
        return None
    terms = []
    for rest, row in by.items():
        inner = "(" + " + ".join(coq(num) if k == 1 else f"({coq(num)} * {coq(k)})" for num, k in row) + ")"
        terms.append(inner if rest == 1 else f"({coq(rest)} * {inner})")
    return "(" + " + ".join(terms) + ")"


def _log_difference(l2, r2, dom: Domain, also: tuple = ()):
    """ln r2 - ln l2 as Coq proves it: (g printed with each coefficient last, the tactic proving the equation
    ``ln r2 - ln l2 = g`` after ``slth_log``/``slth_term``, the tactics (a list) naming each ``ln v`` with its sign, the
    free variables of g, g printed by monomial (``_by_monomial``) or None), or None when g keeps an ``exp`` or the
    logarithm of a compound argument."""
    g = sp.expand(sp.expand_log(sp.log(r2) - sp.log(l2), force=True))
    g = _prime_logs(g)
    atoms = sorted(g.atoms(sp.log), key=sp.default_sort_key)
    parts = sp.collect(g, atoms, evaluate=False)
    g = sp.Add(*[sp.expand(c) * k for k, c in parts.items()])
    if g.has(sp.exp) or any(not isinstance(a.args[0], (sp.Symbol, sp.Integer)) for a in g.atoms(sp.log)):
        return None
    primes = _primes(l2, r2, *also)  # ``also``: the forms Coq's goal may still print (before SymPy merged them)
    equation = f"unfold Rpower; slth_lnx; {primes}slth_lnx; simpl INR; rewrite ?ln_1; field"
    # each ln v named, with its sign kept exactly (interval arithmetic rounds ln 1 outward, below 0, and
    # cannot evaluate ln near 0): 0 <= ln v where 1 <= v, ln v <= 0 where v is a parameter in (0, c], c <= 1
    neg = []
    for a in sorted(g.atoms(sp.log), key=sp.default_sort_key):
        if not isinstance(a.args[0], sp.Symbol):
            continue
        v = ident(a.args[0])
        p = next((q for q in dom.params if q.symbol == a.args[0]), None)
        if p is not None and p.lo and exact(p.lo[0]) == 0 and p.hi \
                and all(not sp.sympify(h).free_symbols and exact(h) <= 1 for h in p.hi):
            neg.append(f"assert (ln {v} <= 0) by (apply slth_ln_nonpos; lra); ")
        else:
            neg.append(f"try assert (0 <= ln {v}) by (apply slth_ln_nonneg; lra); ")
        neg.append(f"set (l_{v} := ln {v}) in *; clearbody l_{v}; ")
    free = [ident(s) for s in sorted(g.free_symbols, key=lambda s: s.name)]
    return _coeff_last(parts), equation, neg, free, _by_monomial(parts)


COMPOUND = "cb"
"""The prefix of the names Coq gives a compound base (``cb0``, ``cb1``, ...): never a parameter's name."""


def _compound(*exprs) -> list:
    """The sums among the factors of every base of a non-rational power and of every logarithm's argument (a
    factor's own base when it is a power): what ``slth_lnx`` cannot expand, so ``ln`` of it stays a compound atom."""
    found = []
    for e in exprs:
        for a in sp.preorder_traversal(e):
            if isinstance(a, sp.Pow) and not a.exp.is_Rational and a.base is not sp.E:
                arg = a.base
            elif isinstance(a, sp.log):
                arg = a.args[0]
            else:
                continue
            for f in sp.Mul.make_args(arg):
                f = f.base if isinstance(f, sp.Pow) and f.exp.is_Rational else f
                if isinstance(f, sp.Add) and f.free_symbols and f not in found:
                    found.append(f)
    return found


def _corner_lower(expr, dom: Domain):
    """A rational just below ``expr`` at the domain's lower corner (every parameter at its constant lower end):
    the lower bound ``slth_lo`` is asked to prove of a compound base (Coq checks it; where the base is not
    smallest there, the candidate fails).  None when the corner has no value or it is not positive."""
    corner = {}
    for p in dom.params:
        lo = _constant_lower(p, dom) if p.dependent else (exact(p.lo[0]) if p.lo and not
                                                          sp.sympify(p.lo[0]).free_symbols else None)
        if lo is None:
            return None
        corner[p.symbol] = sp.ceiling(lo) if p.integer else lo
    import mpmath

    from ...evaluate import evaluate  # the one numeric evaluator
    try:
        v = evaluate(expr.xreplace(corner), {}, 30)
    except (TypeError, ValueError, ZeroDivisionError, KeyError, NotImplementedError):
        return None
    if isinstance(v, mpmath.mpc) or not mpmath.isfinite(v) or v <= 0:
        return None
    k = sp.Rational(int(mpmath.floor(v * 2**10)), 2**10)
    return k if k > 0 else None


def _named_forms(lhs, rhs, dom: Domain) -> list[tuple]:
    """(Coq tactic prefix, lhs, rhs) per form given to the log-space candidates: the sides as written, and, when a
    power's base or a logarithm's argument has a sum among its factors, each such sum u named ``cb<k>`` (``set ...
    in *``) with a constant lower bound k <= u proved by ``slth_lo`` before its body is cleared (and ln k <= ln u by
    the monotonicity of ln, ``slth_ln``, when k > 1): ``ln cb<k>`` is then an atom interval arithmetic bounds by
    ln k."""
    found = _compound(lhs, rhs)
    if not found:
        return [("", lhs, rhs)]
    tac, sub = [lower_bounds(dom)], {}
    for i, u in enumerate(sorted(found, key=lambda u: -sp.count_ops(u))):  # the largest first: a sum inside a sum
        if u.xreplace(sub) != u:
            continue
        k = _corner_lower(u, dom)
        if k is None:
            continue
        name = f"{COMPOUND}{i}"
        t = f"set ({name} := {coq(u)}) in *; assert ({coq(k)} <= {name}) by (unfold {name}; slth_lo); "
        if k > 1:
            t += (f"assert (ln {coq(k)} <= ln {name}) by (apply (slth_ln _ _ 1 {coq(k)} {name}); "
                  f"[ {EQ} | {EQ} | lra | lra | lra ]); ")
        tac.append(t + f"clearbody {name}; ")
        sub[u] = sp.Symbol(name, positive=True)
    if not sub:
        return [("", lhs, rhs)]
    return [("", lhs, rhs), ("".join(tac), lhs.xreplace(sub), rhs.xreplace(sub))]


def _log_space(lhs, rhs, dom: Domain) -> list[str]:
    """Powers of one base merged through logarithms: ln rhs - ln lhs = g (``slth_log``), the logarithms expanded
    by Coq's rewriting (``slth_lnx``: products, quotients, powers, square roots, ``Rpower``), integer constants
    inside logarithms split into primes, the equation proved by ``field``, and g >= 0 by ``interval`` with every
    exponent's parameter shifted to its lower end (so the exponent polynomials keep their sign), decided before the
    equation: a form that fails, fails at ``interval``, not after ``field`` (about three times as long).  Each form
    is tried as written and, where a sum sits in a power's base or a logarithm, with the sums named
    (``_named_forms``): a named form is one candidate (with g also grouped per monomial); a form as written is
    followed by g grouped per monomial (``_by_monomial``: 321/5 puts ln 321 and - ln 5 on one unbounded monomial)."""
    if not any(isinstance(a, sp.Pow) and not a.exp.is_Rational for e in (lhs, rhs) for a in sp.preorder_traversal(e)):
        return []
    out = []
    forms = [(npre, pre, l, r) for npre, nl, nr in _named_forms(lhs, rhs, dom) for pre, l, r in variants(nl, nr, dom)]
    for npre, pre, l, r in forms:
        shift, l2, r2 = _shift_exponents(l, r, dom)
        try:
            found = _log_difference(l2, r2, dom, also=(lhs, rhs, l, r))
        except CoqExportError:
            continue
        if found is None:
            continue
        g, equation, names, free, grouped = found
        neg = "".join(names)
        opts = ["", "with (i_prec 53)"] + [f"with (i_bisect {v}, i_autodiff {v})" for v in free][:2]
        if npre:  # a named form: one candidate
            tries = [f"apply (slth_log _ _ ({g})); [ slth_ppos | slth_ppos | idtac | {neg}first [ "
                     + " | ".join(f"interval {o}" for o in opts) + " ] ]; " + equation]
            if grouped is not None:
                tries.append(f"apply (slth_log _ _ ({grouped})); [ slth_ppos | slth_ppos | idtac | {neg}first [ "
                             "interval | interval with (i_prec 53) ] ]; " + equation)
            out.append(f"{npre}{pre}{shift}first [ " + " | ".join(f"({t})" for t in tries) + " ]")
            continue
        head = f"{pre}{shift}apply (slth_log _ _ ({g})); [ slth_ppos | slth_ppos | idtac | "
        out += [head + f"{neg}interval {o} ]; {equation}" for o in opts]
        if grouped is not None:  # g per monomial: m (ln 321 - ln 5) where m ln 321 - m ln 5 is bounded by (-oo, oo)
            head = f"{pre}{shift}apply (slth_log _ _ ({grouped})); [ slth_ppos | slth_ppos | idtac | "
            out += [head + f"{neg}interval {o} ]; {equation}" for o in opts[:2]]
    return out


def _terms_log_space(lhs, rhs, dom: Domain) -> list[str]:
    """lhs a sum of positive terms t_k, each merged with rhs in log space: t_k = exp(g_k) rhs (``slth_term``, the
    equation ln t_k - ln rhs = g_k proved as in ``_log_space``), lhs = (sum_k exp(g_k)) rhs by ``ring``
    (``slth_scaled``); then sum_k exp(g_k) <= 1 after a change of variables, each g_k rewritten by ``field`` to its
    form in the new variables (every exponent's parameter shifted to its lower end, so the polynomials keep their
    sign) and proved by ``interval`` with every ``ln v`` named and signed."""
    if not any(isinstance(a, sp.Pow) and not a.exp.is_Rational for e in (lhs, rhs) for a in sp.preorder_traversal(e)):
        return []
    terms = sp.Add.make_args(sp.expand(lhs, power_base=False, power_exp=False, log=False, multinomial=False))
    if len(terms) < 2 or any(t.as_coeff_Mul()[0] <= 0 for t in terms):
        return []
    found = [_log_difference(rhs, t, dom) for t in terms]  # ln t_k - ln rhs
    if any(f is None for f in found):
        return []
    eqs = "".join(f"assert (T{k} : {coq(t)} = exp ({f[0]}) * {coq(rhs)}) by (apply slth_term; "
                  f"[ slth_ppos | slth_ppos | {f[1]} ]); " for k, (t, f) in enumerate(zip(terms, found)))
    split = f"assert (T : {coq(lhs)} = {' + '.join(f'({coq(t)})' for t in terms)}) by {EQ}; "
    rewrites = "rewrite T; " + "".join(f"rewrite T{k}; " for k in range(len(terms)))
    pre0 = variants(lhs, rhs, dom)[0][0]  # constant lower bounds of the dependent parameters (for positivity)
    head = f"{pre0}{eqs}{split}apply (slth_scaled _ _ ({' + '.join(f'exp ({f[0]})' for f in found)})); [ slth_ppos | {rewrites}{EQ} | "
    pattern = " + ".join(f"exp ?x{k}" for k in range(len(terms)))
    out = []
    for pre, l, r, *ts in variants(lhs, rhs, dom, extra=terms):
        shift, ls, r2 = _shift_exponents(sp.Tuple(l, *ts), r, dom)
        try:
            new = [_log_difference(r2, t, dom) for t in ls[1:]]
            if any(f is None for f in new):
                continue
            primes = _primes(lhs, rhs, *terms, r2, *ls)
            replaces = "".join(f"replace x{k} with ({f[0]}) by field; " for k, f in enumerate(new))
        except CoqExportError:
            continue
        neg = "".join(dict.fromkeys(t for f in new for t in f[2]))  # each ln v named once
        body = (f"{pre}{shift}slth_lnx; {primes}slth_lnx; simpl INR; rewrite ?ln_1; "
                f"match goal with |- {pattern} <= _ => {replaces}idtac end; {neg}")
        free = sorted({v for f in new for v in f[3]})
        out += [head + body + f"interval {o} ]" for o in ["", "with (i_prec 53)"]]
        out += [head + body + f"interval with (i_bisect {v}, i_autodiff {v})" + " ]" for v in free][:2]
    return out


def _primes(*exprs) -> str:
    """Coq tactics writing ``ln n`` of every composite integer n of the expressions as the ln of its factorization."""
    return "".join(f"try replace (ln {n}) with (ln ({' * '.join(f'{p} ^ {k}' for p, k in sp.factorint(n).items())}))"
                   f" by (f_equal; ring); " for n in sorted(_integers(*exprs)))


def _split(lhs, rhs, dom: Domain) -> list[str]:
    """rhs - lhs as its positive terms p and negative terms n, each term as the sides write it: the terms common
    to both sides cancel (``slth_split``, the equation by ``ring``), and n <= p is merged in log space."""
    coef: dict = {}
    for side, sign in ((rhs, 1), (lhs, -1)):
        for t in sp.Add.make_args(side):
            c, rest = t.as_coeff_Mul()
            coef[rest] = coef.get(rest, 0) + sign * c
    term = lambda c, rest: rest if c == 1 else sp.Mul(c, rest, evaluate=False)  # noqa: E731 (as written)
    pos = [term(c, r) for r, c in coef.items() if c > 0]
    neg = [term(-c, r) for r, c in coef.items() if c < 0]
    if not pos or not neg:
        return []
    p, n = sp.Add(*pos), sp.Add(*neg)
    if (sp.srepr(p), sp.srepr(n)) == (sp.srepr(rhs), sp.srepr(lhs)):
        return []
    try:
        head = f"apply (slth_split _ _ {coq(p)} {coq(n)}); [ first [ ring | field ] | "
        return [head + c + " ]" for c in _log_space(n, p, dom)]
    except CoqExportError:
        return []


def _fact_at(f, x, u) -> tuple[str, str]:
    """The sides of fact ``f`` in its variable ``x`` printed as its lemma writes them, at ``x := u``."""
    ph = sp.Symbol("SLTHU")
    return tuple(coq(exact(sp.sympify(e)).xreplace({x: ph})).replace("SLTHU", f"({coq(u)})") for e in (f.lhs, f.rhs))


def _apart(x, y) -> bool:
    """True when ``x`` and ``y`` are surely different functions: their values at one generic point (the k-th of n
    symbols, in name order, at 1 + k/(n pi)), computed with 40 digits, differ by more than 10^-20 of the larger.
    False where they agree there or either is not a finite real (SymPy then decides)."""
    import mpmath

    from ...evaluate import compile_expr  # the one numeric evaluator
    syms = sorted(sp.sympify(x).free_symbols | sp.sympify(y).free_symbols, key=lambda s: s.name)
    try:
        with mpmath.workdps(40):
            env = {s: 1 + mpmath.mpf(k) / (len(syms) * mpmath.pi) for k, s in enumerate(syms)}
            u, v = (compile_expr(sp.sympify(e), mpmath.mp)(env) for e in (x, y))
            if not all(isinstance(w, mpmath.mpf) and mpmath.isfinite(w) for w in (u, v)):
                return False
            return abs(u - v) > mpmath.mpf(10) ** -20 * max(abs(u), abs(v))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, KeyError, NotImplementedError):
        return False


def _instances(lhs, rhs, dom: Domain) -> list[str]:
    """A scalar fact f(x) <= g(x) applied at an argument u of an ``exp`` or ``ln`` of the step (u the argument, or
    the argument less 1): lhs = c f(u), rhs = c g(u) with c >= 0 (``slth_inst``, the equations by ``field``), and
    the fact's lemma (``Common``) applied with its domain checked at u."""
    out = []
    args = {a.args[0] for a in sp.preorder_traversal(lhs) if isinstance(a, sp.exp)}
    args |= {a.args[0] - 1 for a in sp.preorder_traversal(lhs) if isinstance(a, sp.log)}
    for f in SCALAR:
        (x,) = sp.sympify(f.lhs).free_symbols | sp.sympify(f.rhs).free_symbols
        for u in sorted(args, key=sp.default_sort_key):
            a, b = exact(sp.sympify(f.lhs)).xreplace({x: u}), exact(sp.sympify(f.rhs)).xreplace({x: u})
            if a == 0:
                continue
            if _apart(rhs, lhs / a * b):  # (not rhs = c g(u): SymPy's simplify below would spend seconds to say so)
                continue
            c = sp.simplify(lhs / a)
            if c.has(sp.exp, sp.log) or sp.simplify(rhs - c * b) != 0:
                continue
            try:
                pre = variants(lhs, rhs, dom)[0][0]
                fa, fb = _fact_at(f, x, u)
                out.append(f"{pre}apply (slth_inst _ _ {coq(c)} {fa} {fb}); [ field; repeat split; slth_nz | "
                           f"field; repeat split; slth_nz | left; slth_pos | apply {lemma_name('facts', f.name)}; "
                           f"first [ lra | left; slth_pos | slth_lo | apply Rminus_le; interval ] ]")
            except CoqExportError:
                continue
    return out


def _instances_inside(lhs, rhs, dom: Domain) -> list[str]:
    """A scalar fact f(x) <= g(x) applied inside the left side, at an argument u of one of its ``exp``: lhs affine in
    f(u), lhs = a0 + a1 f(u) with a1 >= 0, so lhs <= m = a0 + a1 g(u) (``slth_inside``, the equations by ``ring``),
    the fact's lemma applied with its domain checked at u (directly, or in log space), and m <= rhs by the terms
    the two sides share cancelled and the rest merged in log space (``_split`` of the expanded sides)."""
    out = []
    args = {a.args[0] for a in sp.preorder_traversal(lhs) if isinstance(a, sp.exp)}
    flat = dict(power_base=False, power_exp=False, log=False, multinomial=False)
    y = sp.Dummy("y")
    for f in SCALAR:
        (x,) = sp.sympify(f.lhs).free_symbols | sp.sympify(f.rhs).free_symbols
        for u in sorted(args, key=sp.default_sort_key):
            fa_, fb_ = exact(sp.sympify(f.lhs)).xreplace({x: u}), exact(sp.sympify(f.rhs)).xreplace({x: u})
            affine = sp.expand(lhs.xreplace({fa_: y}), **flat)
            if not affine.has(y) or affine.has(sp.exp(u)):
                continue
            a1 = sp.expand(sp.diff(affine, y), **flat)
            if a1.has(y) or a1 == 0:
                continue
            a0 = sp.expand(affine.xreplace({y: 0}), **flat)
            m = sp.Add(a0, sp.Mul(a1, fb_, evaluate=False))  # a1 g(u) kept apart: SymPy would merge its powers
            domain = ["lra", "left; slth_ppos", "slth_lo", "apply Rminus_le; interval"]
            lo_hi = [(h, u) for h in f.domain.lo] + [(u, h) for h in f.domain.hi]
            for a, b in lo_hi:
                try:
                    domain += _log_space(exact(sp.sympify(a)), exact(sp.sympify(b)), dom)
                except CoqExportError:
                    pass
            try:
                pre = variants(lhs, rhs, dom)[0][0]
                fa, fb = _fact_at(f, x, u)
                head = (f"{pre}apply (slth_inside _ _ ({coq(m)}) ({coq(a0)}) ({coq(a1)}) ({fa}) ({fb})); [ {EQ} | {EQ} "
                        f"| left; slth_ppos | apply {lemma_name('facts', f.name)}; first [ "
                        + " | ".join(domain) + " ] | ")
                tails = ([f"apply Req_le; {EQ}"] if sp.expand(m - rhs, **flat) == 0 else []) + \
                    _split(m, sp.expand(rhs, **flat), dom)
            except CoqExportError:
                continue
            found = [head + t + " ]" for t in tails]
            TAILS.update({c: (head, t) for c, t in zip(found, tails)})
            out += found
    return out
