"""ONE verifier for proof steps ``lhs <= rhs``: SymPy, then interval arithmetic, then sampling.

Each result states its method (the method that proved the step, or that found the counterexample) and its
domain: ``whole`` (the statement's whole hypothesis domain), ``box: ...`` (only the stated box) or ``sampled``.

1. symbolic: ``simplify(rhs - lhs) == 0``, or SymPy's assumptions prove ``rhs - lhs >= 0`` (also after
   factoring, the shift ``v = lo + t`` of every bounded-below parameter, and in the ratio form ``lhs/rhs``).
   A step without parameters is left to the intervals (SymPy would decide its sign numerically).
   An instance of a scalar fact (``facts.SCALAR``) is verified as the fact's certificate plus sub-steps putting
   its argument inside the fact's domain, over the step's domain.
2a. interval on the whole domain (section 2a below): unbounded parameters compactified, the Max of the alpha
   hypothesis split into exact cases, forms lhs/rhs, log rhs - log lhs, rhs - lhs (with a monotonicity test).
2b. interval on a bounded box (``Param.box``) by ``mpmath.iv`` with bisection (log-scale parameters are split at
   the geometric mean), only when 2a fails; then 200 seeded points of the whole domain are searched, and a
   violation there FAILS the step.
2c. far corners (``bounds.corners``), when no whole-domain certificate holds: every infinite end of the domain and
   every combination of ends, by a scan to X = 2^16384 and SymPy's limit of the leading behaviour along each ray;
   a confirmed violation there FAILS the step (method ``corner``).
3. sampled: seeded points (box corners + random, integer dimensions rounded) at 50 digits: evidence only.

A quick sample runs before the interval search; any point with ``lhs > rhs`` (relative to the sides' own size,
confirmed at 100 digits, so at any scale) is a counterexample and the step FAILS with it.  All numbers come from
``bounds.evaluate``.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import sympy as sp

from . import corners, recheck
from .catalogue import lookup
from .certificate import INF, Certificate, Coord, Leaf
from .core import Param, Step
from .evaluate import compile_expr
from .symbols import NAME, PARAMETER

BOX_BUDGET = 600
_OFFSET = "_offset"
SAMPLES = 400
WHOLE_SAMPLES = 200
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
    certificate: tuple | None = None  # interval certificates as data (bounds.certificate), None if none recorded
    arb: str = ""  # Arb re-check of the interval certificates (bounds.recheck): yes / no / failed; "" if symbolic

    @property
    def status(self) -> str:
        return "ok" if self.ok else "FAILED"


def verify(name: str, catalogue: dict | None = None) -> list[StepResult]:
    """Verify every step of the proof of statement ``name`` (in ``catalogue``, default the bounds catalogue)."""
    get = lookup(catalogue)
    st = get(name)
    return [verify_step(st.name, s, st.params) for s in st.steps(get)]


def verify_facts() -> list[StepResult]:
    """The scalar elementary facts (``facts.SCALAR``) verified on their domains."""
    from .facts import SCALAR
    return [verify_step("facts", Step(f.name, f.lhs, f.rhs), (f.domain,)) for f in SCALAR]


def verify_step(statement: str, step: Step, params: tuple = ()) -> StepResult:
    """Verify ``step`` on the domain of ``params`` (its own ``step.params`` take precedence); cached."""
    dom = _Domain(step, params)
    key = (sp.srepr(step.lhs), sp.srepr(step.rhs), dom.key, step.relies_on)
    if key not in _RESULTS:
        method, ok, detail, box, cex, domain, *cert = _verify(step, dom, params)
        cert = cert[0] if cert else None
        arb = ""
        if ok and method == "interval":  # a second arithmetic re-checks the certificate (bounds.recheck)
            arb = recheck.status(cert) if cert else "no"
            if arb.startswith("failed"):
                ok, detail = False, f"{detail}; Arb re-check {arb}"
        _RESULTS[key] = (method, ok, detail, box, cex, domain, _margin(step, dom, detail), cert, arb)
    return StepResult(statement, step.name, *_RESULTS[key])


def _boxed(box: dict) -> str:
    return "box: " + "; ".join(box.values())


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
    """(method, ok, detail, box, counterexample, domain)."""
    lhs, rhs = sp.sympify(step.lhs), sp.sympify(step.rhs)
    proof = _symbolic(lhs, rhs, dom)
    if proof:
        return "symbolic", True, proof, {}, None, "whole"
    by_fact = _by_fact(step, params)
    if by_fact:
        return by_fact
    cex = _sample(lhs, rhs, dom, 64)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point", dom.describe(), cex, _boxed(dom.describe())
    whole_ok, whole_how, certs = _whole(lhs, rhs, dom)
    if whole_ok:
        return "interval", True, whole_how, {}, None, "whole", certs
    ok, detail, cex, box = _interval(lhs, rhs, dom)
    if ok and not box:  # the certified form has no parameters left: it holds everywhere
        return "interval", True, f"{detail} (a constant after simplification: holds for all parameters)", {}, None, \
            "whole"
    if ok:
        outside = _sample_whole(lhs, rhs, dom, WHOLE_SAMPLES)
        if outside:
            return ("sampled", False, f"certified on the box only ({detail}); FAILS outside it", box, outside,
                    _boxed(box))
        far = corners.search(lhs, rhs, tuple(dom.table.values()))
        if far:
            return ("corner", False, f"certified on the box only ({detail}); FAILS outside it: {far.describe()}",
                    box, far.counterexample, _boxed(box))
        return ("interval", True, f"{detail}; not certified beyond the box ({whole_how}); no violation at "
                f"{WHOLE_SAMPLES} seeded points of the whole domain", box, None, _boxed(box))
    if cex:
        return "interval", False, detail, box, cex, _boxed(box)
    cex = _sample(lhs, rhs, dom, SAMPLES) or _sample_whole(lhs, rhs, dom, WHOLE_SAMPLES)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point; " + detail, dom.describe(), cex, "sampled"
    far = corners.search(lhs, rhs, tuple(dom.table.values()))
    if far:
        return "corner", False, f"{far.describe()}; {detail}", dom.describe(), far.counterexample, "sampled"
    return ("sampled", True, f"evidence only: no violation at {SAMPLES} seeded points of the box and "
            f"{WHOLE_SAMPLES} of the whole domain; {detail}", dom.describe(), None, "sampled")


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
    if not diff.free_symbols:
        return ""  # SymPy would decide the sign of a constant numerically: that is the interval method's job
    if lhs.is_positive and rhs.is_positive:
        logs = sp.expand(sp.expand_log(sp.log(rhs) - sp.log(lhs), force=True))
        if logs == 0:
            return "expand_log(log rhs - log lhs) == 0"
        if logs.is_nonnegative:
            return "SymPy assumptions: expand_log(log rhs - log lhs) >= 0"
    if not _small(diff) or any(max(abs(q.p), q.q) > 2**16 for q in diff.atoms(sp.Rational)):
        return ""  # (SymPy's factor crawls on long rationals, e.g. the candidates of the slack bisection)
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
            certificate = verify_step("facts", Step(fact.name, fact.lhs, fact.rhs), (fact.domain,))
            if not certificate.ok:
                return None
            methods = [certificate]
            for y, a in args:
                for bound, name in ((fact.domain.lo, "lo"), (fact.domain.hi, "hi")):
                    for v in bound:
                        sub = Step(f"{step.name}[{name}]", v, a) if name == "lo" else Step(f"{step.name}[{name}]", a, v)
                        sub = Step(sub.name, sub.lhs, sub.rhs, params=step.params)
                        r = verify_step("", sub, params)
                        if not r.ok:
                            return None
                        methods.append(r)
            method = max((r.method for r in methods), key=_RANK.__getitem__)
            domain = max((r.domain for r in methods), key=_domain_rank)
            detail = (f"instance of fact '{fact.name}' (certified on {certificate.domain} of its domain) at "
                      f"x = {_txt(args[0][1])}; the argument stays in the fact's domain on {domain} of the step's "
                      f"domain, by {method}")
            box = {k: v for r in methods for k, v in r.box.items()}
            parts = [r.certificate for r in methods if r.method == "interval"]
            certs = None if any(p is None for p in parts) else tuple(c for p in parts for c in p)
            return method, True, detail, box, None, domain, certs
    return None


_RANK = {"symbolic": 0, "interval": 1, "sampled": 2}


def _domain_rank(domain: str) -> int:
    return 0 if domain == "whole" else 1 if domain.startswith("box") else 2


# ----- 2a. certificate on the whole hypothesis domain ----------------------------------------------
# Each parameter becomes a coordinate on a compact range: a bounded parameter is its own coordinate on
# [lo, hi]; a parameter bounded on one side only, v in [lo, oo), is v = lo + t/(1 - t) with t in [0, 1] (so
# t = 1 is the point at infinity; interval images are exact since the map is monotone); a dependent one is
# written symbolically as alpha = r Max(...) with r in [1, oo) or B = b + m with m in [0, oo), and a
# Max(sqrt(d1), sqrt(d2)) is split into the cases d2 = w d1 and d1 = w d2 with w in (0, 1] (a relaxation:
# certifying on a superset of the domain is sound).  The forms lhs/rhs <= 1, rhs - lhs >= 0 (with a
# monotonicity test: a nonnegative partial derivative and a nonnegative lower face certify a box) and, for
# positive sides, log rhs - log lhs >= 0 with every log collected and its coefficient factored, are then
# certified by interval bisection over the compact coordinates.
WHOLE_BUDGET = 200


@dataclass(frozen=True)
class _Coord:
    symbol: sp.Symbol
    lo: object  # mpmath number
    hi: object  # mpmath number, or None for [lo, oo) (coordinate t in [0, 1])

    def root(self):
        return (mpmath.mpf(0), mpmath.mpf(1)) if self.hi is None else (mpmath.mpf(self.lo), mpmath.mpf(self.hi))

    def image(self, a, b):
        iv = mpmath.iv
        if self.hi is not None:
            return iv.mpf([a, b])
        base = iv.mpf(self.lo)
        lo = base + iv.mpf(a) / (1 - iv.mpf(a))
        hi = iv.mpf(mpmath.inf) if b >= 1 else base + iv.mpf(b) / (1 - iv.mpf(b))
        return iv.mpf([lo.a, hi.b])


def _whole_cases(lhs, rhs, dom: "_Domain"):
    """[(lhs, rhs, coords)] per case of the whole hypothesis domain in compact coordinates, or None when a
    parameter's domain is not of a supported shape."""
    sub, coords = {}, {}
    for p in dom.params:
        numeric_hi = [v for v in p.hi if not sp.sympify(v).free_symbols]
        if p.dependent:
            if numeric_hi or len(p.lo) > 2:
                return None
            lo = sp.Max(*p.lo) if len(p.lo) > 1 else sp.sympify(p.lo[0])
            if p.log:
                s = sp.Symbol(f"{p.name}_ratio", positive=True)
                sub[p.symbol] = s * lo
                coords[s] = _Coord(s, mpmath.mpf(1), None)
            else:
                s = sp.Symbol(f"{p.name}_offset", nonnegative=True)
                sub[p.symbol] = lo + s
                coords[s] = _Coord(s, mpmath.mpf(0), None)
        else:
            if len(p.lo) != 1 or len(numeric_hi) > 1:
                return None
            lo = mpmath.mpf(sp.Rational(sp.sympify(p.lo[0])))
            hi = mpmath.mpf(sp.Rational(sp.sympify(numeric_hi[0]))) if numeric_hi else None
            coords[p.symbol] = _Coord(p.symbol, lo, hi)
    lhs, rhs = sp.sympify(lhs).xreplace(sub), sp.sympify(rhs).xreplace(sub)
    maxes = {m for e in (lhs, rhs) for m in e.atoms(sp.Max)}
    if not maxes:
        return [(lhs, rhs, list(coords.values()), sub)]
    if len(maxes) > 1:
        return None
    (mx,) = maxes
    base = [a.args[0] if a.is_Pow and a.exp == sp.Rational(1, 2) else a for a in mx.args]
    if not all(v in coords for v in base) or len({coords[v].lo for v in base}) > 1:
        return None
    if len(base) != 2:
        return None
    cases = []
    for i, di in enumerate(base):  # case: the Max is its i-th argument, d_i = d_j / w with w in (0, 1] (exact)
        dj = base[1 - i]
        w = sp.Symbol(f"w_{di}", positive=True)
        rep, cs = {mx: mx.args[i]}, dict(coords)
        del cs[di]
        cs[w] = _Coord(w, mpmath.mpf(0), mpmath.mpf(1))
        sub_i = {di: dj / w}
        case_sub = {**{v: e.xreplace(sub_i) for v, e in sub.items()}, **sub_i}  # each parameter in the coordinates
        cases.append((lhs.xreplace(rep).xreplace(sub_i), rhs.xreplace(rep).xreplace(sub_i), list(cs.values()),
                      case_sub))
    return cases


def _above(v: sp.Symbol) -> sp.Symbol:
    """The symbol of ``v - lo`` (>= 0) for a coordinate with lower end ``lo``."""
    return sp.Symbol(f"{v.name}_above", nonnegative=True)


def _log_form(lhs, rhs, coords=()):
    """log rhs - log lhs, logs expanded and collected; each coefficient (a polynomial in the exponents' parameters)
    written with every parameter shifted to its lower end, v = lo + v_above, when that makes all its coefficients
    of one sign (e.g. 2m^2 + 4mb - m + 2b - 4 with b >= 2 is 2m^2 + 7m + 4m b_above + 2 b_above), else factored,
    so that intervals keep its sign."""
    g = sp.expand(sp.expand_log(sp.log(rhs) - sp.log(lhs), force=True))
    logs = sorted(g.atoms(sp.log), key=sp.default_sort_key)
    parts = sp.collect(g, logs, evaluate=False)
    shift = {c.symbol: sp.Rational(sp.nsimplify(c.lo)) + _above(c.symbol) for c in coords if c.lo != 0}
    out = []
    for k, c in parts.items():
        shifted = sp.expand(c.xreplace(shift))
        try:
            signs = {sp.sign(v) for v in sp.Poly(shifted, *shifted.free_symbols).coeffs()} if shifted.free_symbols \
                else {sp.sign(shifted)}
        except sp.PolynomialError:
            signs = {0, 1, -1}
        factored = sp.factor(c) if len(signs - {0}) > 1 else shifted
        out.append((factored if factored.is_Mul else shifted) * k)
    return sp.Add(*out)


def _whole(lhs, rhs, dom: "_Domain"):
    """(certified, detail) on the whole hypothesis domain."""
    cases = _whole_cases(lhs, rhs, dom)
    if cases is None:
        return False, "the domain has a parameter shape the compactification does not cover", None
    iv, labels, certs = mpmath.iv, [], []
    for case_lhs, case_rhs, coords, case_sub in cases:
        forms = []
        if case_rhs.is_positive:
            ratio = sp.powsimp(_simplify(case_lhs / case_rhs), force=True)
            forms.append(("lhs/rhs <= 1", ratio, lambda v: v.b <= 1))
        if case_lhs.is_positive and case_rhs.is_positive:
            forms.append(("log rhs - log lhs >= 0", _log_form(case_lhs, case_rhs, coords), lambda v: v.a >= 0))
            terms = sp.Add.make_args(sp.expand(sp.powsimp(_simplify(case_lhs / case_rhs), force=True)))
            if len(terms) > 1 and all(t.is_positive for t in terms):
                logs = sp.Add(*(sp.exp(-_log_form(t, sp.Integer(1), coords), evaluate=False) for t in terms))
                forms.append(("sum of the terms of lhs/rhs, each in log space, <= 1", logs, lambda v: v.b <= 1))
        diff = sp.expand(sp.expand_log(case_rhs - case_lhs, force=True))
        forms.append(("rhs - lhs >= 0", diff, lambda v: v.a >= 0))
        if sp.count_ops(diff) <= 2 * _SMALL:
            forms.append(("factor(rhs - lhs) >= 0", sp.factor(diff), lambda v: v.a >= 0))
        done = False
        # quick pass without, then a deeper pass with the monotonicity test (on small differences only)
        for budget, mono in ((WHOLE_BUDGET // 4, False), (WHOLE_BUDGET, True)):
            for label, expr, test in forms:
                use_mono = mono and label.endswith("rhs - lhs >= 0") and sp.count_ops(expr) <= _SMALL
                try:
                    f = compile_expr(expr, iv)
                except TypeError:
                    continue
                used = [c for c in coords if {c.symbol, _above(c.symbol)} & expr.free_symbols]
                ok, count, cover = _bisect_whole(expr, f, test, used, budget, use_mono)
                if ok:
                    certs.append(_certificate(lhs, rhs, case_sub, label, expr, coords, used, cover))
                    labels.append(f"{label} by {count} interval evaluations" + (" with monotonicity" if use_mono
                                                                                 else ""))
                    done = True
                    break
            if done:
                break
        if not done:
            return False, "no certificate on the whole domain", None
    how = labels[0] if len(labels) == 1 else f"{len(labels)} cases of the Max: " + "; ".join(labels)
    return True, how + " on the whole hypothesis domain (unbounded parameters compactified)", tuple(certs)


def _certificate(lhs, rhs, sub, label, expr, coords, used, cover) -> Certificate:
    """The certificate as data for the re-check (bounds.certificate): coordinates, boxes and enclosures exact;
    a coordinate the form does not use spans its whole range in every box."""
    def frac(v):
        v = mpmath.mpf(v)
        if mpmath.isinf(v):
            return INF if v > 0 else -INF
        sign, man, exp, _ = v._mpf_  # (man_exp drops the sign)
        q = Fraction(int(man)) * Fraction(2) ** int(exp)
        return -q if sign else q

    test = "upper <= 1" if label.endswith("<= 1") else "lower >= 0"
    cs = tuple(Coord(c.symbol, frac(c.lo), None if c.hi is None else frac(c.hi),
                     _above(c.symbol) if _above(c.symbol) in expr.free_symbols else None) for c in coords)
    def full(box):
        at = dict(zip((c.symbol for c in used), box))
        return [at.get(c.symbol, c.root()) for c in coords]

    leaves = tuple(Leaf(tuple((frac(a), frac(b)) for a, b in full(box)), (frac(v.a), frac(v.b)),
                        None if mono is None else ([c.symbol for c in coords].index(used[mono[0]].symbol), mono[1],
                                                   (frac(mono[2].a), frac(mono[2].b))))
                   for box, v, mono in cover)
    return Certificate(sp.sympify(lhs), sp.sympify(rhs), tuple(sub.items()), label, expr, test, cs,
                       leaves)


def _bisect_whole(expr, f, test, coords, budget, mono):
    """(certified, evaluations, cover): the cover is [(box, enclosure, None or (k, face, derivative))], the
    boxes that closed and how (the data of the certificate, bounds.certificate)."""
    iv = mpmath.iv
    stack, count, derivs, cover = [[c.root() for c in coords]], 0, {}, []

    def env_of(box):
        env = {c.symbol: c.image(a, b) for c, (a, b) in zip(coords, box)}
        env.update({_above(c.symbol): env[c.symbol] - c.lo for c in coords if c.lo != 0})
        return env

    def holds(box):
        """The enclosure on ``box`` if it passes the test, else None."""
        try:
            v = f(env_of(box))
            return v if v.a == v.a and v.b == v.b and bool(test(v)) else None
        except (ZeroDivisionError, ValueError, OverflowError):
            return None

    def monotone(box):
        """A nonnegative (nonpositive) partial derivative and the lower (upper) face satisfying the test."""
        for k, c in enumerate(coords):
            if c.symbol not in derivs:
                try:
                    derivs[c.symbol] = compile_expr(sp.diff(expr, c.symbol), iv)
                except TypeError:
                    derivs[c.symbol] = None
            d = derivs[c.symbol]
            if d is None:
                continue
            try:
                dv = d(env_of(box))
            except (ZeroDivisionError, ValueError, OverflowError):
                continue
            a, b = box[k]
            v = holds(box[:k] + [(a, a)] + box[k + 1:]) if dv.a >= 0 else None
            if v is not None:
                return v, (k, "lo", dv)
            v = holds(box[:k] + [(b, b)] + box[k + 1:]) if dv.b <= 0 and (c.hi is not None or b < 1) else None
            if v is not None:
                return v, (k, "hi", dv)
        return None

    while stack:
        box = stack.pop()
        count += 1
        v = holds(box)
        if v is not None:
            cover.append((box, v, None))
            continue
        closed = monotone(box) if mono else None
        if closed is not None:
            cover.append((box, *closed))
            continue
        if count >= budget or not box:
            return False, count, None
        k = max(range(len(box)), key=lambda i: box[i][1] - box[i][0])
        a, b = box[k]
        m = (a + b) / 2
        stack += [box[:k] + [(a, m)] + box[k + 1:], box[:k] + [(m, b)] + box[k + 1:]]
    return True, count, cover


def _sample_whole(lhs, rhs, dom: "_Domain", n: int = 200):
    """A violation anywhere in the hypothesis domain, beyond the box: seeded points with every unbounded
    parameter drawn log-uniformly up to 10^30 times its lower bound (and bounded ones down to 10^-300 of
    their range near an open lower end 0)."""
    rng = random.Random(SEED + 1)
    worst = None
    for _ in range(n):
        point = []
        for p, (blo, bhi) in zip(dom.params, dom.root()):
            numeric_hi = [v for v in p.hi if not sp.sympify(v).free_symbols]
            if p.dependent:
                v = mpmath.mpf(10) ** (30 * rng.random() * rng.random())  # ratio r >= 1, or offset v - 1 >= 0
                v = v if p.log else v - 1
            else:
                lo = mpmath.mpf(sp.Rational(sp.sympify(p.lo[0]))) if p.lo else mpmath.mpf(0)
                hi = mpmath.mpf(sp.Rational(sp.sympify(numeric_hi[0]))) if numeric_hi else None
                if lo > 0:
                    top = hi if hi is not None else lo * mpmath.mpf(10) ** (30 * rng.random())
                    v = lo * (top / lo) ** rng.random()
                else:
                    top = hi if hi is not None else mpmath.mpf(10) ** (30 * rng.random() - 5)
                    v = top * mpmath.mpf(10) ** (-300 * rng.random() ** 3)
            if p.integer:
                v = mpmath.ceil(v)
            point.append(v)
        cex = _check_point(lhs, rhs, dom, point)
        if cex and (worst is None or _excess(cex) > _excess(worst)):
            worst = cex
    return worst


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
    """Counterexample dict at ``point`` (box coordinates) if lhs > rhs there, else None.

    The sides are compared as numbers of unbounded exponent at 50 digits, relative to their own size
    (``lhs - rhs > 10^-40 max(|lhs|, |rhs|)``, i.e. a ratio or a log difference), so a violation is seen at any
    scale (1e-40 or 1e+40 alike); it is confirmed at 100 digits."""
    fl, fr = compile_expr(lhs, mpmath.mp), compile_expr(rhs, mpmath.mp)
    with mpmath.workdps(50):
        try:
            env = dom.env([mpmath.mpf(v) for v in point], mpmath.mp)
            l, r = fl(env), fr(env)
        except (ZeroDivisionError, ValueError, OverflowError):
            return None
        if isinstance(l, mpmath.mpc) or isinstance(r, mpmath.mpc) or not l > r + mpmath.mpf(10) ** -40 * max(abs(l), abs(r)):
            return None
    with mpmath.workdps(100):  # confirm with more digits
        env = dom.env([mpmath.mpf(v) for v in point], mpmath.mp)
        l, r = fl(env), fr(env)
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
