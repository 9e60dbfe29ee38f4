"""Method 2 of the verifier: interval arithmetic (``mpmath.iv``, through ``bounds.evaluate``).

2a. ``on_whole``: a certificate on the whole hypothesis domain, unbounded parameters compactified (below), the
    Max of the alpha hypothesis split into exact cases, forms lhs/rhs, log rhs - log lhs, rhs - lhs (with a
    monotonicity test).
2b. ``on_box``: a certificate on the bounded box (``Param.box``) by bisection (log-scale parameters are split at
    the geometric mean); a box that cannot be certified is tried for a counterexample at its midpoint.
"""
from __future__ import annotations

from dataclasses import dataclass

import mpmath
import sympy as sp

from .certificate import INF, Certificate, Coord, Leaf
from ..evaluate import compile_expr
from .verify_domain import OFFSET, Domain, TimeLimit, bisect, midpoint, time_limit
from .verify_search import check_point, exact_value
from .verify_symbolic import SMALL, TIMED_OUT, positive_args, simplify

BOX_BUDGET = 600


# ----- 2a. certificate on the whole hypothesis domain ----------------------------------------------
# Each parameter becomes a coordinate on a compact range: a bounded parameter is its own coordinate on
# [lo, hi]; a parameter bounded on one side only, v in [lo, oo), is v = lo + t/(1 - t) with t in [0, 1] (so
# t = 1 is the point at infinity; interval images are exact since the map is monotone); a dependent one is
# written symbolically as alpha = r Max(...) with r in [1, oo) or B = b + m with m in [0, oo), and a
# Max(sqrt(d1), sqrt(d2)) is split into the cases d2 = w d1 and d1 = w d2 with w in (0, 1] (a relaxation:
# certifying on a superset of the domain is sound).  The forms lhs/rhs <= 1, rhs - lhs >= 0 (with a
# monotonicity test: a nonnegative partial derivative and a nonnegative lower face certify a box) and, for
# positive sides, log rhs - log lhs >= 0 with every log collected and its coefficient factored, are then
# certified by interval bisection over the compact coordinates.  The monotonicity test needs a FINITE enclosure of
# the derivative on the box: one that reaches infinity may hide a pole between the face and the rest of the box.
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


def whole_cases(lhs, rhs, dom: "Domain"):
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
    if len(base) != 2 or not all(v in coords for v in base) or len({coords[v].lo for v in base}) > 1:
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
    so that intervals keep its sign.  Where the coefficient of a number's logarithm varies, the logarithms of numbers
    are gathered per monomial of the shifted parameters: m (log 321 - log 5) is bounded as one constant times m,
    where m log 321 - m log 5 with m in [0, oo) is bounded by (-oo, oo) (a rational constant such as 321/5)."""
    g = sp.log(rhs) - sp.log(lhs)
    g = sp.expand(sp.expand_log(g, force=positive_args(g)))
    logs = sorted(g.atoms(sp.log), key=sp.default_sort_key)
    parts = sp.collect(g, logs, evaluate=False)
    shift = {c.symbol: sp.Rational(sp.nsimplify(c.lo)) + _above(c.symbol) for c in coords if c.lo != 0}
    out = []
    numeric = [k for k in parts if k != 1 and not k.free_symbols]
    if any(parts[k].free_symbols for k in numeric):  # logs of numbers with varying coefficients: one per monomial
        const = sp.Add(parts.pop(sp.S.One, sp.S.Zero), *(parts.pop(k) * k for k in numeric))
        const = sp.expand(const.xreplace(shift))
        gens = sorted(const.free_symbols, key=sp.default_sort_key)
        out += [sp.Mul(coeff, *(v ** e for v, e in zip(gens, mono)))
                for mono, coeff in sp.Poly(const, *gens).terms()]
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


def on_whole(lhs, rhs, dom: "Domain", defined: bool = False):
    """(certified, detail) on the whole hypothesis domain.  ``defined``: the caller proved both sides defined on the
    whole domain (``bounds.prove.verify_defined``), so the form is continuous there and a derivative enclosure may
    reach infinity at its other end (at the compactified infinity) while its sign end stays finite."""
    try:
        with time_limit(stage="interval: whole-domain forms"):
            cases = whole_cases(lhs, rhs, dom)
            if cases is None:
                return False, "the domain has a parameter shape the compactification does not cover", None
            cases = [(*case, _whole_forms(*case[:3])) for case in cases]
    except TimeLimit:
        TIMED_OUT.append("interval: whole-domain forms")
        return False, "no certificate on the whole declared domain (its forms were cut)", None
    iv, labels, certs = mpmath.iv, [], []
    for case_lhs, case_rhs, coords, case_sub, forms in cases:
        done = False
        # quick pass without, then a deeper pass with the monotonicity test (on small differences only)
        for budget, mono in ((WHOLE_BUDGET // 4, False), (WHOLE_BUDGET, True)):
            for label, expr, test in forms:
                use_mono = mono and label.endswith("rhs - lhs >= 0") and sp.count_ops(expr) <= SMALL
                try:
                    f = compile_expr(expr, iv)
                except TypeError:
                    continue
                used = [c for c in coords if {c.symbol, _above(c.symbol)} & expr.free_symbols]
                ok, count, cover = _bisect_whole(expr, f, test, used, budget, use_mono, defined)
                if ok:
                    certs.append(_certificate(lhs, rhs, case_sub, label, expr, coords, used, cover, dom, defined))
                    labels.append(f"{label} by {count} interval evaluations" + (" with monotonicity" if use_mono
                                                                                 else ""))
                    done = True
                    break
            if done:
                break
        if not done:
            return False, "no certificate on the whole declared domain", None
    how = labels[0] if len(labels) == 1 else f"{len(labels)} cases of the Max: " + "; ".join(labels)
    return True, how + " on the whole declared domain (unbounded parameters compactified)", tuple(certs)


def _whole_forms(case_lhs, case_rhs, coords) -> list:
    """(label, form, test) of one case of the whole domain."""
    forms = []
    if case_rhs.is_positive:
        ratio = simplify(case_lhs / case_rhs)
        ratio = sp.powsimp(ratio, force=positive_args(ratio))
        forms.append(("lhs/rhs <= 1", ratio, lambda v: v.b <= 1))
    if case_lhs.is_positive and case_rhs.is_positive:
        forms.append(("log rhs - log lhs >= 0", _log_form(case_lhs, case_rhs, coords), lambda v: v.a >= 0))
        terms = sp.Add.make_args(sp.expand(ratio))
        if len(terms) > 1 and all(t.is_positive for t in terms):
            logs = sp.Add(*(sp.exp(-_log_form(t, sp.Integer(1), coords), evaluate=False) for t in terms))
            forms.append(("sum of the terms of lhs/rhs, each in log space, <= 1", logs, lambda v: v.b <= 1))
    diff = case_rhs - case_lhs
    diff = sp.expand(sp.expand_log(diff, force=positive_args(diff)))
    forms.append(("rhs - lhs >= 0", diff, lambda v: v.a >= 0))
    if sp.count_ops(diff) <= 2 * SMALL:
        forms.append(("factor(rhs - lhs) >= 0", sp.factor(diff), lambda v: v.a >= 0))
    return forms


def _certificate(lhs, rhs, sub, label, expr, coords, used, cover, dom, defined=False) -> Certificate:
    """The certificate as data for the re-check (bounds.prove.certificate): coordinates, boxes and enclosures exact;
    a coordinate the form does not use spans its whole range in every box; the declared domain it covers."""
    def frac(v):
        v = mpmath.mpf(v)
        return (INF if v > 0 else -INF) if mpmath.isinf(v) else exact_value(v)

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
                       leaves, tuple(dom.table.values()), defined)


def _bisect_whole(expr, f, test, coords, budget, mono, defined=False):
    """(certified, evaluations, cover): the cover is [(box, enclosure, None or (k, face, derivative))], the
    boxes that closed and how (the data of the certificate, bounds.prove.certificate)."""
    iv = mpmath.iv
    derivs, cover = {}, []

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
            if not defined and not (mpmath.isfinite(dv.a) and mpmath.isfinite(dv.b)):
                continue  # a derivative unbounded on the box (a pole may hide there): no monotonicity
            a, b = box[k]
            # the end that decides the sign is finite; the other may be infinite only for a form proved continuous
            v = holds(box[:k] + [(a, a)] + box[k + 1:]) if mpmath.isfinite(dv.a) and dv.a >= 0 else None
            if v is not None:
                return v, (k, "lo", dv)
            v = holds(box[:k] + [(b, b)] + box[k + 1:]) if mpmath.isfinite(dv.b) and dv.b <= 0 and \
                (c.hi is not None or b < 1) else None
            if v is not None:
                return v, (k, "hi", dv)
        return None

    def closes(box) -> bool:
        v = holds(box)
        closed = (v, None) if v is not None else monotone(box) if mono else None
        if closed is not None:
            cover.append((box, *closed))
        return closed is not None

    ok, count, _ = bisect([c.root() for c in coords], closes, budget)
    return ok, count, cover if ok else None


# ----- 2. interval certificate --------------------------------------------------------------------
def on_box(lhs, rhs, dom: Domain, whole_only: bool = False):
    """Try the forms ``lhs/rhs <= 1``, ``rhs - lhs >= 0`` (simplified, on the parameters they depend on)
    and ``lhs <= rhs``, each by bisection within ``BOX_BUDGET`` boxes.  ``whole_only``: asked only whether a form
    without parameters is certified (which holds on the whole domain), so when every form has parameters nothing
    is bisected (a certificate on the box only, or a violating point, would not answer it)."""
    try:
        with time_limit(stage="interval: box forms"):
            forms = _box_forms(lhs, rhs, dom)
    except TimeLimit:
        TIMED_OUT.append("interval: box forms")
        return False, "no interval certificate (its forms were cut)", None, {}
    if whole_only and all(d.params for _, _, d in forms):
        return False, "no interval certificate on the whole domain (every box form has parameters)", None, {}
    notes = []
    for budget in (40, BOX_BUDGET):  # iterative deepening: quick certificates first
        notes = []
        for label, check, d in forms:
            ok, count, box = _bisect(check, d, budget)
            if ok:
                return True, f"{label} certified by {count} interval evaluations", None, d.describe()
            cex = check_point(lhs, rhs, dom, _full_point(dom, d, box))
            if cex:
                return False, f"interval search ({label}) hit a violating point", cex, d.describe()
            notes.append(f"{label}: uncertified {_show(box, d)}")
    return False, f"no interval certificate within {BOX_BUDGET} boxes per form ({'; '.join(notes)})", None, {}


def _box_forms(lhs, rhs, dom: Domain) -> list:
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
    return forms


def _tidy(expr, sub):
    """Simplify after the additive change of variables, with factored exponents (so that e.g.
    (B - b + 1)(B + b - 2) becomes (m + 1)(2b + m - 2) and intervals do not lose the cancellation)."""
    e = simplify(sp.sympify(expr).xreplace(sub))
    return e.replace(lambda t: t.is_Pow and t.exp.free_symbols, lambda t: sp.Pow(t.base, sp.factor(t.exp)))


def _bisect(check, dom, budget):
    iv = mpmath.iv
    root = dom.root()

    def width(k, lo, hi):
        return mpmath.log(hi / lo) if dom.params[k].log else hi - lo

    def closes(box) -> bool:
        try:
            return bool(check(dom.env([iv.mpf([lo, hi]) for lo, hi in box], iv)))
        except (ZeroDivisionError, ValueError, OverflowError):
            return False

    widths = [width(k, lo, hi) or 1 for k, (lo, hi) in enumerate(root)]
    return bisect(root, closes, budget, lambda k, lo, hi: width(k, lo, hi) / widths[k],
                  lambda k, lo, hi: midpoint(lo, hi, dom.params[k].log))


def _full_point(full: "Domain", part: "Domain", box) -> list:
    """Midpoint of ``box`` (coordinates of ``part``) completed by box midpoints of ``full``'s other parameters."""
    mids = {p.name.removesuffix(OFFSET): midpoint(lo, hi, p.log) for p, (lo, hi) in zip(part.params, box)}
    return [mids.get(p.name, midpoint(mpmath.mpf(p.box[0]), mpmath.mpf(p.box[1]), p.log)) for p in full.params]


def _show(box, dom):
    return ", ".join(f"{p.name}:[{float(lo):.4g},{float(hi):.4g}]" for p, (lo, hi) in zip(dom.params, box))
