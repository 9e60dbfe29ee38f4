"""Method 1 of the verifier: SymPy.  ``symbolic(lhs, rhs, dom)`` proves ``lhs <= rhs`` when
``simplify(rhs - lhs) == 0`` or SymPy's assumptions prove ``rhs - lhs >= 0`` (also after factoring, the shift
``v = lo + t`` of every bounded-below parameter, and in the ratio form ``lhs/rhs``); a step without parameters
is left to the intervals (SymPy would decide its sign numerically).  ``simplify`` is the normal form the
other methods share.

It runs only after ``bounds.prove.verify_defined`` has proved both sides defined on the whole domain: ``simplify`` may
cancel a ``0/0`` (``(d1^2 - 1)/(d1 - 1) - (d1 + 1)`` is 0 after it), and a proof of ``rhs - lhs >= 0`` says nothing
where a side has no value.

The sides are rewritten in the domain's derived symbols (``Domain.symbols``: assumptions from the declaration,
never the global ones), and every stage runs under ``time_limit``: a stage past it is recorded in ``TIMED_OUT``
(the driver reports "time limit in <stage>") and the next stage runs."""
from __future__ import annotations

import sympy as sp

from .verify_domain import Domain, TimeLimit, declared, time_limit

TIMED_OUT: list = []  # the stages of the current verification that ran past their time limit


def timed(stage: str, f, *args, default=None):
    """``f(*args)`` under the stage time limit; ``default`` (and ``stage`` recorded in ``TIMED_OUT``) past it."""
    try:
        with time_limit(stage=stage):
            return f(*args)
    except TimeLimit:
        TIMED_OUT.append(stage)
        return default


def positive_args(e) -> bool:
    """True when SymPy proves the arguments that forced rewriting assumes positive: every factor of every log's
    argument (log(ab) = log a + log b, log(a^p) = p log a) and every base of a power with a non-integer exponent
    (a^p b^p = (ab)^p).  Only then may ``expand_log``/``powsimp`` run with ``force=True``: on quantities of
    unknown sign they are false (sqrt(eps - 2) sqrt(eps - 3) is not sqrt((eps - 2)(eps - 3)) for eps < 2)."""
    e = sp.sympify(e)
    for lg in e.atoms(sp.log):
        for f in sp.Mul.make_args(lg.args[0]):
            if not (f.base.is_positive if f.is_Pow else f.is_positive):
                return False
    return all(p.exp.is_integer or p.base.is_nonnegative for p in e.atoms(sp.Pow))


def simplify(e) -> sp.Expr:
    """Full ``simplify`` on small expressions; on large ones (Theorem 14) a cheaper normal form:
    expanded logs and products, powers with a common base combined and exponents expanded."""
    e = sp.sympify(e)
    if small(e):
        return sp.simplify(e)
    force = positive_args(e)
    e = sp.powsimp(sp.expand(sp.expand_log(e, force=force)), force=force)
    return e.replace(lambda t: t.is_Pow and t.exp.free_symbols, lambda t: sp.Pow(t.base, sp.expand(t.exp)))


SMALL = 60


def small(e) -> bool:
    """Small enough for ``simplify``: few operations and no symbolic exponents (those make it crawl)."""
    return sp.count_ops(e) <= SMALL and not any(p.exp.free_symbols for p in e.atoms(sp.Pow))


def symbolic(lhs, rhs, dom: Domain) -> str:
    """A proof of ``lhs <= rhs`` on the declared domain of ``dom``, or ""."""
    lhs, _ = declared(lhs, dom)
    rhs, _ = declared(rhs, dom)
    diff = timed("symbolic: simplify", simplify, rhs - lhs)
    if diff is None:
        return ""
    if diff == 0:
        return "simplify(rhs - lhs) == 0"
    if not diff.free_symbols:
        return ""  # SymPy would decide the sign of a constant numerically: that is the interval method's job
    proof = timed("symbolic: log form", _log_form, lhs, rhs, default="")
    if proof:
        return proof
    if not small(diff) or any(max(abs(q.p), q.q) > 2**16 for q in diff.atoms(sp.Rational)):
        return ""  # (SymPy's factor crawls on long rationals, e.g. the candidates of the slack bisection)
    if any(q.q > 64 for e in diff.atoms(sp.exp) for q in e.args[0].atoms(sp.Rational)):
        return ""  # exp(517 x/1024) - exp(x/2) is a degree-1024 polynomial to factor: it hangs (Theorem 10's slack)
    shift = {}
    for p in dom.params:
        lo = sp.sympify(p.lo[0]) if len(p.lo) == 1 else None
        if lo is not None and p.integer and lo.is_Rational:  # an integer above lo: at least its next integer
            first = sp.floor(lo) + 1 if p.lo_open else sp.ceiling(lo)
            shift[dom.symbols[p.symbol]] = first + sp.Symbol(f"t_{p.name}", nonnegative=True, integer=True)
        elif lo is not None and not p.lo_open:
            t = sp.Symbol(f"t_{p.name}", nonnegative=True)
            shift[dom.symbols[p.symbol]] = declared(lo, dom)[0] + t
    forms = [("rhs - lhs", lambda: diff), ("factor(rhs - lhs)", lambda: sp.factor(diff))]
    if shift:
        forms.append(("rhs - lhs after v = lo + t", lambda: sp.factor(sp.simplify(diff.subs(shift)))))
    if sp.sympify(rhs).is_positive and sp.sympify(lhs).is_nonnegative:
        forms.append(("1 - lhs/rhs", lambda: sp.factor(1 - sp.simplify(lhs / rhs))))
    for label, make in forms:
        if timed(f"symbolic: {label}", lambda: bool(make().is_nonnegative), default=False):
            return f"SymPy assumptions: {label} >= 0"
    return ""


def _log_form(lhs, rhs) -> str:
    if lhs.is_positive and rhs.is_positive:
        logs = sp.log(rhs) - sp.log(lhs)
        logs = sp.expand(sp.expand_log(logs, force=positive_args(logs)))
        if logs == 0:
            return "expand_log(log rhs - log lhs) == 0"
        if logs.is_nonnegative:
            return "SymPy assumptions: expand_log(log rhs - log lhs) >= 0"
    return ""
