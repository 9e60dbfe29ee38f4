"""ONE verifier for proof steps ``lhs <= rhs``: SymPy, then interval arithmetic, then sampling.

1. symbolic: ``simplify(rhs - lhs) == 0``, or SymPy's assumptions prove ``rhs - lhs >= 0`` (also after
   factoring, the shift ``v = lo + t`` of every bounded-below parameter, and in the ratio form ``lhs/rhs``).
2. interval: a certificate on a bounded box (``Param.box``) by ``mpmath.iv`` with bisection (log-scale
   parameters are split at the geometric mean).  A lower bound depending on other parameters is handled
   by a change of variables: ``alpha = r * max(sqrt(d1), sqrt(d2))`` with ``r`` in the box, ``B = b + m``.
   Dimensions are relaxed to reals (a certificate for reals covers the integers).
3. sampled: seeded points (box corners + random, integer dimensions rounded) at 50 digits: evidence only.

A quick sample runs before the interval search; any point with ``lhs > rhs`` (beyond a relative 1e-20,
confirmed at 100 digits) is a counterexample and the step FAILS with it.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

import mpmath
import sympy as sp

from .core import Param, Step
from .evaluate import compile_expr
from .symbols import NAME, PARAMETER

BOX_BUDGET = 1500
SAMPLES = 400
SEED = 20251106
_DEFAULTS = {"C": Param("C", lo=(0,), lo_open=True, box=(2**-8, 2**8), log=True)}
_RESULTS: dict = {}


@dataclass(frozen=True)
class StepResult:
    statement: str
    step: str
    method: str  # symbolic | interval | sampled (for a failure: the method that found the counterexample)
    ok: bool
    detail: str = ""
    box: dict = field(default_factory=dict)
    counterexample: dict | None = None

    @property
    def status(self) -> str:
        return "ok" if self.ok else "FAILED"


def verify(name: str, catalogue: dict | None = None) -> list[StepResult]:
    """Verify every step of the proof of statement ``name`` (in ``catalogue``, default the bounds catalogue)."""
    from .catalogue import STATEMENTS, canonical
    cat = STATEMENTS if catalogue is None else catalogue
    st = cat[canonical(name)]
    return [verify_step(st.name, s, st.params) for s in st.steps(lambda n: cat[canonical(n)])]


def verify_step(statement: str, step: Step, params: tuple = ()) -> StepResult:
    """Verify ``step`` on the domain of ``params`` (its own ``step.params`` take precedence); cached."""
    dom = _Domain(step, params)
    key = (sp.srepr(step.lhs), sp.srepr(step.rhs), dom.key)
    if key not in _RESULTS:
        _RESULTS[key] = _verify(step, dom)
    method, ok, detail, box, cex = _RESULTS[key]
    return StepResult(statement, step.name, method, ok, detail, box, cex)


def _verify(step: Step, dom: "_Domain"):
    lhs, rhs = sp.sympify(step.lhs), sp.sympify(step.rhs)
    proof = _symbolic(lhs, rhs, dom)
    if proof:
        return "symbolic", True, proof, {}, None
    cex = _sample(lhs, rhs, dom, 64)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point", dom.describe(), cex
    ok, detail, cex = _interval(lhs, rhs, dom)
    if ok:
        return "interval", True, detail, dom.describe(), None
    if cex:
        return "interval", False, detail, dom.describe(), cex
    cex = _sample(lhs, rhs, dom, SAMPLES)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point; " + detail, dom.describe(), cex
    return "sampled", True, f"evidence only: no violation at {SAMPLES} seeded points; {detail}", dom.describe(), None


# ----- the domain of a step: box variables and the change of variables -----------------------------
class _Domain:
    def __init__(self, step: Step, params: tuple):
        table = {p.name: p for p in params}
        table.update({p.name: p for p in step.params})
        free = (sp.sympify(step.lhs) - sp.sympify(step.rhs)).free_symbols | sp.sympify(step.lhs).free_symbols \
            | sp.sympify(step.rhs).free_symbols
        needed, order = {NAME[s] for s in free}, []
        while needed - set(order):  # dependencies first
            for n in sorted(needed - set(order)):
                p = table.get(n) or _DEFAULTS.get(n)
                if p is None:
                    raise ValueError(f"step {step.name}: no domain for parameter {n}")
                deps = {NAME[s] for v in p.lo for s in sp.sympify(v).free_symbols}
                needed |= deps
                if deps <= set(order):
                    order.append(n)
        self.params = [table.get(n) or _DEFAULTS[n] for n in order]
        self.key = tuple((p.name, p.lo, p.box, p.log, p.integer) for p in self.params)
        self.lo = {p.name: (sp.Max(*p.lo) if len(p.lo) > 1 else sp.sympify(p.lo[0])) for p in self.params if p.dependent}

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
                out[p.name] = f"{p.name} = {_txt(self.lo[p.name])} {rel} [{_num(lo)}, {_num(hi)}]"
            else:
                out[p.name] = f"{p.name} in [{_num(lo)}, {_num(hi)}]"
        return out

    def named(self, env) -> dict:
        return {NAME[s]: (int(v) if self._integer(NAME[s]) and v == int(v) else float(v)) for s, v in env.items()}

    def _integer(self, name):
        return any(p.name == name and p.integer for p in self.params)


def _txt(e):
    from .symbols import text
    return text(e)


def _num(v):
    v = float(v)
    if v > 0 and v < 1e-3:
        return f"2^{round(mpmath.log(v, 2))}"
    return f"{v:g}"


# ----- 1. symbolic --------------------------------------------------------------------------------
def _symbolic(lhs, rhs, dom: _Domain) -> str:
    diff = sp.simplify(rhs - lhs)
    if diff == 0:
        return "simplify(rhs - lhs) == 0"
    shift = {}
    for p in dom.params:
        if len(p.lo) == 1 and not p.lo_open:
            t = sp.Symbol(f"t_{p.name}", nonnegative=True)
            shift[p.symbol] = sp.sympify(p.lo[0]) + t
    forms = [("rhs - lhs", diff), ("factor(rhs - lhs)", sp.factor(diff))]
    if shift:
        forms.append(("rhs - lhs after v = lo + t", sp.factor(sp.simplify(diff.subs(shift)))))
    if sp.sympify(rhs).is_positive and sp.sympify(lhs).is_nonnegative:
        forms.append(("1 - lhs/rhs", sp.factor(1 - sp.simplify(lhs / rhs))))
    for label, f in forms:
        if f.is_nonnegative:
            return f"SymPy assumptions: {label} >= 0"
    return ""


# ----- 2. interval certificate --------------------------------------------------------------------
def _interval(lhs, rhs, dom: _Domain):
    iv = mpmath.iv
    fl, fr = compile_expr(lhs, iv), compile_expr(rhs, iv)
    ratio = sp.simplify(lhs / rhs) if sp.sympify(rhs).is_positive else None
    fq = compile_expr(ratio, iv) if ratio is not None and ratio.free_symbols else None
    fd = compile_expr(sp.simplify(rhs - lhs), iv)
    root = dom.root()
    widths = [(mpmath.log(hi / lo) if p.log else hi - lo) or 1 for p, (lo, hi) in zip(dom.params, root)]
    stack, count = [root], 0
    while stack:
        box = stack.pop()
        count += 1
        env = dom.env([iv.mpf([lo, hi]) for lo, hi in box], iv)
        try:
            l, r = fl(env), fr(env)
            ok = l.b <= r.a or fd(env).a >= 0 or (fq is not None and fq(env).b <= 1)
        except (ZeroDivisionError, ValueError):
            ok = False
        if ok:
            continue
        mid = [_mid(lo, hi, p.log) for p, (lo, hi) in zip(dom.params, box)]
        cex = _check_point(lhs, rhs, dom, mid)
        if cex:
            return False, f"interval search hit a violating point after {count} boxes", cex
        if count >= BOX_BUDGET or not box:
            return False, f"no interval certificate within {BOX_BUDGET} boxes (uncertified: {_show(box, dom)})", None
        k = max(range(len(box)), key=lambda i: ((mpmath.log(box[i][1] / box[i][0]) if dom.params[i].log
                                                 else box[i][1] - box[i][0]) / widths[i]))
        lo, hi = box[k]
        m = _mid(lo, hi, dom.params[k].log)
        stack += [box[:k] + [(lo, m)] + box[k + 1:], box[:k] + [(m, hi)] + box[k + 1:]]
    return True, f"certified on the box by {count} interval evaluations", None


def _mid(lo, hi, log):
    return mpmath.sqrt(lo * hi) if log and lo > 0 else (lo + hi) / 2


def _show(box, dom):
    return ", ".join(f"{p.name}:[{float(lo):.4g},{float(hi):.4g}]" for p, (lo, hi) in zip(dom.params, box))


# ----- 3. points ----------------------------------------------------------------------------------
def _check_point(lhs, rhs, dom, point):
    """Counterexample dict at ``point`` (box coordinates) if lhs > rhs there, else None."""
    with mpmath.workdps(50):
        env = dom.env([mpmath.mpf(v) for v in point], mpmath.mp)
        try:
            l, r = compile_expr(lhs, mpmath.mp)(env), compile_expr(rhs, mpmath.mp)(env)
        except (ZeroDivisionError, ValueError):
            return None
        if not l > r + mpmath.mpf(10) ** -20 * max(abs(l), abs(r), 1):
            return None
    with mpmath.workdps(100):  # confirm with more digits
        env = dom.env([mpmath.mpf(v) for v in point], mpmath.mp)
        l, r = compile_expr(lhs, mpmath.mp)(env), compile_expr(rhs, mpmath.mp)(env)
        if not l > r:
            return None
        return {**dom.named(env), "lhs": float(l), "rhs": float(r)}


def _sample(lhs, rhs, dom: _Domain, n: int):
    rng = random.Random(SEED)
    root = dom.root()
    corners = list(itertools.islice(itertools.product(*root), 256))
    for i in range(n + len(corners)):
        if i < len(corners):
            point = list(corners[i])
        else:
            point = []
            for p, (lo, hi) in zip(dom.params, root):
                u = rng.random()
                v = lo * (hi / lo) ** u if p.log else lo + (hi - lo) * u
                point.append(mpmath.mpf(round(v)) if p.integer else v)
        cex = _check_point(lhs, rhs, dom, point)
        if cex:
            return cex
    return None
