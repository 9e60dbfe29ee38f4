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

BOX_BUDGET = 600
_OFFSET = "_offset"
SAMPLES = 400
SEED = 20251106
_DEFAULTS = {"C": Param("C", lo=(0,), lo_open=True, box=(2**-8, 2**8), log=True)}
_RESULTS: dict = {}
_SHIFTED: dict = {}  # offset parameter name -> what it stands for ("B - b")


@dataclass(frozen=True)
class StepResult:
    statement: str
    step: str
    method: str  # symbolic | interval | sampled (for a failure: the method that found the counterexample)
    ok: bool
    detail: str = ""
    box: dict = field(default_factory=dict)
    counterexample: dict | None = None
    domain: str = "sampled"  # "whole" (hypothesis domain), "box: <desc>" (certified on that box only) or "sampled"
    margin: float | None = None  # smallest rhs/lhs found (sampled points; 1.0 for an identity), None if lhs <= 0

    @property
    def status(self) -> str:
        return "ok" if self.ok else "FAILED"


def verify(name: str, catalogue: dict | None = None) -> list[StepResult]:
    """Verify every step of the proof of statement ``name`` (in ``catalogue``, default the bounds catalogue)."""
    from .catalogue import STATEMENTS, canonical
    cat = STATEMENTS if catalogue is None else catalogue
    st = cat[canonical(name)]
    return [verify_step(st.name, s, st.params) for s in st.steps(lambda n: cat[canonical(n)])]


def verify_facts() -> list[StepResult]:
    """The scalar elementary facts (``facts.SCALAR``) verified on their domains."""
    from .facts import SCALAR
    return [verify_step("facts", Step(f.name, f.lhs, f.rhs), (f.domain,)) for f in SCALAR]


def verify_step(statement: str, step: Step, params: tuple = ()) -> StepResult:
    """Verify ``step`` on the domain of ``params`` (its own ``step.params`` take precedence); cached."""
    dom = _Domain(step, params)
    key = (sp.srepr(step.lhs), sp.srepr(step.rhs), dom.key, step.relies_on)
    if key not in _RESULTS:
        method, ok, detail, box, cex = _verify(step, dom, params)
        if method == "symbolic" or (ok and method == "interval" and not box):
            domain = "whole"
        elif method == "interval" and ok:
            domain = "box: " + "; ".join(box.values())
        else:
            domain = "sampled"
        _RESULTS[key] = (method, ok, detail, box, cex, domain, _margin(step, dom, detail))
    method, ok, detail, box, cex, domain, margin = _RESULTS[key]
    return StepResult(statement, step.name, method, ok, detail, box, cex, domain, margin)


def _margin(step: Step, dom: "_Domain", detail: str) -> float | None:
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


def _verify(step: Step, dom: "_Domain", params: tuple):
    lhs, rhs = sp.sympify(step.lhs), sp.sympify(step.rhs)
    proof = _symbolic(lhs, rhs, dom)
    if proof:
        return "symbolic", True, proof, {}, None
    by_fact = _by_fact(step, params)
    if by_fact:
        return by_fact
    cex = _sample(lhs, rhs, dom, 64)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point", dom.describe(), cex
    ok, detail, cex, box = _interval(lhs, rhs, dom)
    if ok and not box:  # the certified form has no parameters left: it holds everywhere
        return "symbolic", True, f"{detail} (a constant after simplification: holds for all parameters)", {}, None
    if ok:
        return "interval", True, detail, box, None
    if cex:
        return "interval", False, detail, box, cex
    cex = _sample(lhs, rhs, dom, SAMPLES)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point; " + detail, dom.describe(), cex
    return "sampled", True, f"evidence only: no violation at {SAMPLES} seeded points; {detail}", dom.describe(), None


# ----- the domain of a step: box variables and the change of variables -----------------------------
class _Domain:
    def __init__(self, step: Step, params: tuple, exprs=None):
        table = {p.name: p for p in params}
        table.update({p.name: p for p in step.params})
        self.table = table
        free = set().union(*(sp.sympify(e).free_symbols for e in (exprs or (step.lhs, step.rhs))))
        needed, order = {NAME[s] for s in free}, []
        while needed - set(order):  # dependencies first
            for n in sorted(needed - set(order)):
                p = table.get(n) or _DEFAULTS.get(n)
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

    def reduced(self, expr) -> "_Domain":
        """The domain of the parameters ``expr`` depends on (and their lower bounds' parameters)."""
        return _Domain(self.step, tuple(self.table.values()), (expr,))

    def shifted(self):
        """This domain with every additive dependent parameter ``v = lo + o`` replaced by its offset ``o``,
        and the substitution ``{v: lo + o}``."""
        table, sub = dict(self.table), {}
        for p in self.params:
            if p.dependent and not p.log:
                name = p.name + _OFFSET
                PARAMETER.setdefault(name, sp.Symbol(name, nonnegative=True))
                NAME[PARAMETER[name]] = name
                _SHIFTED[name] = f"{p.name} - {_txt(sp.Max(*p.lo))}"
                q = table[name] = Param(name, lo=(0,), integer=p.integer, box=p.box)
                del table[p.name]
                sub[p.symbol] = q.symbol + sp.Max(*p.lo)
        exprs = [sp.sympify(e).xreplace(sub) for e in (self.step.lhs, self.step.rhs)]
        return _Domain(self.step, tuple(table.values()), exprs), sub

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
                out[p.name] = f"{_SHIFTED.get(p.name, p.name)} in [{_num(lo)}, {_num(hi)}]"
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
def _simplify(e) -> sp.Expr:
    """Full ``simplify`` on small expressions; on large ones (Theorem 14) a cheaper normal form:
    expanded logs and products, powers with a common base combined and exponents expanded."""
    e = sp.sympify(e)
    if _small(e):
        return sp.simplify(e)
    e = sp.powsimp(sp.expand(sp.expand_log(e, force=True)), force=True)
    return e.replace(lambda t: t.is_Pow and t.exp.free_symbols, lambda t: sp.Pow(t.base, sp.expand(t.exp)))


_SMALL = 60


def _small(e) -> bool:
    """Small enough for ``simplify``: few operations and no symbolic exponents (those make it crawl)."""
    return sp.count_ops(e) <= _SMALL and not any(p.exp.free_symbols for p in e.atoms(sp.Pow))


def _symbolic(lhs, rhs, dom: _Domain) -> str:
    diff = _simplify(rhs - lhs)
    if diff == 0:
        return "simplify(rhs - lhs) == 0"
    if lhs.is_positive and rhs.is_positive:
        logs = sp.expand(sp.expand_log(sp.log(rhs) - sp.log(lhs), force=True))
        if logs == 0:
            return "expand_log(log rhs - log lhs) == 0"
        if logs.is_nonnegative:
            return "SymPy assumptions: expand_log(log rhs - log lhs) >= 0"
    if not _small(diff):
        return ""
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


def _by_fact(step: Step, params: tuple):
    """A step that is an instance of a scalar fact it relies on: lhs with every instance F.lhs(a) replaced
    by F.rhs(a) equals rhs (symbolically), lhs is nondecreasing in each instance, and every argument a
    lies in the fact's domain (verified as a sub-step).  The fact itself is verified by ``verify_facts``."""
    from .facts import SCALAR
    from .symbols import x
    for fact in SCALAR:
        if fact.name not in step.relies_on:
            continue
        w = sp.Wild("w")
        pattern = fact.lhs.xreplace({x: w})
        instances = sorted(step.lhs.find(pattern), key=sp.default_sort_key)
        if not instances:
            continue
        lhs, rhs, args = step.lhs, step.lhs, []
        for k, inst in enumerate(instances):
            y = sp.Symbol(f"y{k}", nonnegative=True)
            a = inst.match(pattern)[w]
            lhs = lhs.xreplace({inst: y})
            if not sp.diff(lhs, y).is_nonnegative:
                break
            args.append((y, a))
        else:
            applied = lhs.xreplace({y: fact.rhs.xreplace({x: a}) for y, a in args})
            if _simplify(applied - step.rhs) != 0:
                continue
            methods = []
            for y, a in args:
                for bound, name in ((fact.domain.lo, "lo"), (fact.domain.hi, "hi")):
                    for v in bound:
                        sub = Step(f"{step.name}[{name}]", v, a) if name == "lo" else Step(f"{step.name}[{name}]", a, v)
                        sub = Step(sub.name, sub.lhs, sub.rhs, params=step.params)
                        r = verify_step("", sub, params)
                        if not r.ok:
                            return None
                        methods.append(r)
            weakest = max(methods, key=lambda r: _RANK[r.method]) if methods else None
            method = weakest.method if weakest else "symbolic"
            detail = (f"instance of fact '{fact.name}' at x = {_txt(args[0][1])}; argument in the fact's domain by "
                      f"{method}")
            box = {k: v for r in methods for k, v in r.box.items()}
            return method, True, detail, box, None
    return None


_RANK = {"symbolic": 0, "interval": 1, "sampled": 2}


# ----- 2. interval certificate --------------------------------------------------------------------
def _interval(lhs, rhs, dom: _Domain):
    """Try the forms ``lhs/rhs <= 1``, ``rhs - lhs >= 0`` (simplified, on the parameters they depend on)
    and ``lhs <= rhs``, each by bisection within ``BOX_BUDGET`` boxes."""
    iv = mpmath.iv
    forms, (shifted, sub) = [], dom.shifted()
    variants = [(dom, {})] + ([(shifted, sub)] if sub else [])
    positive = sp.sympify(rhs).is_positive
    if positive:
        for d, s in variants:
            ratio = _tidy(lhs / rhs, s)
            for r in dict.fromkeys((sp.expand(ratio), ratio)):
                forms.append(("lhs/rhs <= 1", lambda env, f=compile_expr(r, iv): f(env).b <= 1, d.reduced(r)))
    elif positive is None:  # valid on boxes where the interval of rhs is positive
        fr = compile_expr(rhs, iv)
        ratio = _tidy(lhs / rhs, {})
        forms.append(("lhs/rhs <= 1 where rhs > 0", lambda env, f=compile_expr(ratio, iv): fr(env).a > 0
                      and f(env).b <= 1, dom))
    for d, s in variants:
        diff = _tidy(rhs - lhs, s)
        forms.append(("rhs - lhs >= 0", lambda env, f=compile_expr(diff, iv): f(env).a >= 0, d.reduced(diff)))
    fl, fr = compile_expr(lhs, iv), compile_expr(rhs, iv)
    forms.append(("lhs <= rhs", lambda env: fl(env).b <= fr(env).a, dom))
    notes = []
    for budget in (40, BOX_BUDGET):  # iterative deepening: quick certificates first
        notes = []
        for label, check, d in forms:
            ok, count, box = _bisect(check, d, budget)
            if ok:
                return True, f"{label} certified by {count} interval evaluations", None, d.describe()
            cex = _check_point(lhs, rhs, dom, _full_point(dom, d, box))
            if cex:
                return False, f"interval search ({label}) hit a violating point", cex, d.describe()
            notes.append(f"{label}: uncertified {_show(box, d)}")
    return False, f"no interval certificate within {BOX_BUDGET} boxes per form ({'; '.join(notes)})", None, {}


def _tidy(expr, sub):
    """Simplify after the additive change of variables, with factored exponents (so that e.g.
    (B - b + 1)(B + b - 2) becomes (m + 1)(2b + m - 2) and intervals do not lose the cancellation)."""
    e = _simplify(sp.sympify(expr).xreplace(sub))
    return e.replace(lambda t: t.is_Pow and t.exp.free_symbols, lambda t: sp.Pow(t.base, sp.factor(t.exp)))


def _bisect(check, dom, budget):
    iv = mpmath.iv
    root = dom.root()
    widths = [(mpmath.log(hi / lo) if p.log else hi - lo) or 1 for p, (lo, hi) in zip(dom.params, root)]
    stack, count = [root], 0
    while stack:
        box = stack.pop()
        count += 1
        try:
            ok = bool(check(dom.env([iv.mpf([lo, hi]) for lo, hi in box], iv)))
        except (ZeroDivisionError, ValueError, OverflowError):
            ok = False
        if ok:
            continue
        if count >= budget or not box:
            return False, count, box
        k = max(range(len(box)), key=lambda i: ((mpmath.log(box[i][1] / box[i][0]) if dom.params[i].log
                                                 else box[i][1] - box[i][0]) / widths[i]))
        lo, hi = box[k]
        m = _mid(lo, hi, dom.params[k].log)
        stack += [box[:k] + [(lo, m)] + box[k + 1:], box[:k] + [(m, hi)] + box[k + 1:]]
    return True, count, None


def _full_point(full: "_Domain", part: "_Domain", box) -> list:
    """Midpoint of ``box`` (coordinates of ``part``) completed by box midpoints of ``full``'s other parameters."""
    mids = {p.name.removesuffix(_OFFSET): _mid(lo, hi, p.log) for p, (lo, hi) in zip(part.params, box)}
    return [mids.get(p.name, _mid(mpmath.mpf(p.box[0]), mpmath.mpf(p.box[1]), p.log)) for p in full.params]


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
    """The sampled counterexample with the largest violation lhs/rhs (None if no violation)."""
    rng = random.Random(SEED)
    root = dom.root()
    corners = list(itertools.islice(itertools.product(*root), 256))
    worst = None
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
        if cex and (worst is None or _excess(cex) > _excess(worst)):
            worst = cex
    return worst


def _excess(cex):
    l, r = cex["lhs"], cex["rhs"]
    return l / r if r > 0 else float("inf") if l > 0 else l - r
