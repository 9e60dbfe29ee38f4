"""A second, independent arithmetic for the interval certificates: Arb (python-flint) instead of mpmath's ``iv``.

``recheck(cert)`` takes a ``bounds.prove.certificate.Certificate`` (data the interval verifier emits) and accepts it only if

1. the boxes of its cover lie in the compact domain, do not overlap, and their volumes add up to the domain's (so
   they cover it: a closed union of full measure in a box is the box);
2. on every box, the form's enclosure computed here proves the test (``upper <= 1`` or ``lower >= 0``); a box
   closed by monotonicity needs here, too, the derivative's sign on the box (its enclosure finite at both ends: one
   reaching infinity may hide a pole) and the test on the face;
3. every enclosure the verifier recorded proves the test and overlaps the one computed here (two enclosures of
   the same range always overlap: disjoint ones are a disagreement between the arithmetics, and fail);
4. the form is the stated rewriting of the step: at three interior points, ``expr`` agrees with ``lhs/rhs``,
   ``log rhs - log lhs`` or ``rhs - lhs`` (by its label) to 64 bits, with the parameters written by ``sub``.

Point 4 is evidence, not proof, that the rewriting (the change of variables, the split of a Max, the collected
logarithms) is right; points 1-3 re-prove the enclosures.  This module imports nothing from the mpmath verifier
(``bounds.prove.verify``, ``bounds.evaluate``): it compiles the SymPy expressions itself.  Intervals are pairs of
endpoints; each endpoint is computed as the lower or upper bound of an Arb ball (so every rounding and every
elementary function is Arb's), and an endpoint may be infinite, which a ball cannot express: a half-line
``[lo, oo)`` of a compactified coordinate is an Arb ball ``[+/- inf]``, useless for an enclosure.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy as sp
from flint import arb, fmpq

from .certificate import INF, Certificate

PREC = 128  # bits for the enclosures (mpmath's iv works at 53)
TIE_PREC = 256  # bits for the point check of the rewriting
TIE_TOL = Fraction(1, 2**64)
TIE_POINTS = (Fraction(1, 4), Fraction(1, 2), Fraction(7, 8))
_FORMS = {  # label -> (test, target as a function of the sides)
    "lhs/rhs <= 1": ("upper <= 1", "ratio"),
    "sum of the terms of lhs/rhs, each in log space, <= 1": ("upper <= 1", "ratio"),
    "log rhs - log lhs >= 0": ("lower >= 0", "log"),
    "rhs - lhs >= 0": ("lower >= 0", "diff"),
    "factor(rhs - lhs) >= 0": ("lower >= 0", "diff"),
}


class Undefined(ArithmeticError):
    """An operation without a value on the interval (log of a negative number, inf - inf, 1/0)."""


@dataclass(frozen=True)
class Recheck:
    ok: bool
    reason: str


def recheck(cert: Certificate) -> Recheck:
    """Accept ``cert`` only if Arb re-proves every box of a cover of the domain (see the module docstring)."""
    old = flint.ctx.prec
    flint.ctx.prec = PREC
    try:
        return _recheck(cert)
    except Undefined as e:
        return Recheck(False, f"undefined in Arb: {e}")
    finally:
        flint.ctx.prec = old


def status(certificates) -> str:
    """"yes" (every certificate re-checked, and together they cover their declared domain), "failed" (one
    rejected: the reason follows) or "no" (no data)."""
    if not certificates:
        return "no"
    for c in certificates:
        r = recheck(c)
        if not r.ok:
            return "failed: " + r.reason
        gap = domain_gap(c, [d for d in certificates if (d.lhs, d.rhs) == (c.lhs, c.rhs)])
        if gap:
            return "failed: " + gap
    return "yes"


# ----- the declared domain --------------------------------------------------------------------------
def domain_gap(cert: Certificate, siblings=()) -> str:
    """"" if the coordinates and ``sub`` of ``cert`` cover the declared domain ``cert.params`` of every parameter
    of the step (a superset is fine), with ``siblings`` (the certificates of the same step) holding the other
    case of each Max split; else what is missing."""
    if not cert.params and (cert.lhs.free_symbols | cert.rhs.free_symbols):
        return "the certificate does not state the declared domain it covers"
    table = {p.symbol: p for p in cert.params}
    coords = {c.symbol: c for c in cert.coords}
    sub = dict(cert.sub)
    for s in sorted(cert.lhs.free_symbols | cert.rhs.free_symbols, key=str):
        p = table.get(s)
        if p is None:
            return f"no declared domain for {s}"
        why = _covers(p, s, coords, sub, siblings)
        if why:
            return why
    return ""


def _rational(v):
    v = sp.sympify(v)
    return Fraction(int(v.p), int(v.q)) if v.is_Rational else None


def _covers(p, s, coords, sub, siblings) -> str:
    numeric_lo = [_rational(v) for v in p.lo if not sp.sympify(v).free_symbols]
    symbolic_lo = [v for v in p.lo if sp.sympify(v).free_symbols]
    numeric_hi = [_rational(v) for v in p.hi if not sp.sympify(v).free_symbols]
    if None in numeric_lo or None in numeric_hi:
        return f"{p.name}: a bound that is not a rational number"
    if s in coords and s not in sub:
        c = coords[s]
        if symbolic_lo or not numeric_lo:
            return f"{p.name}: bounded below by other parameters, but a free coordinate"
        if c.lo > max(numeric_lo):
            return f"{p.name}: the coordinate starts at {c.lo}, the domain at {max(numeric_lo)}"
        if c.hi is not None and (not numeric_hi or c.hi < min(numeric_hi)):
            return f"{p.name}: the coordinate ends at {c.hi}, the domain does not"
        return ""
    if s not in sub:
        return f"{p.name}: neither a coordinate nor written in the coordinates"
    e, others = sub[s], {q: v for q, v in sub.items() if q != s}
    if symbolic_lo:  # v = r Max(lo) (log) or Max(lo) + o, r in [<= 1, oo), o in [<= 0, oo)
        bound = sp.Max(*p.lo) if len(p.lo) > 1 else sp.sympify(p.lo[0])
        bound = bound.xreplace(others)
        for r, c in coords.items():
            start = 1 if p.log else 0
            if c.hi is not None or c.lo > start:
                continue
            want = r * bound if p.log else bound + r
            if e == want or sp.expand(e - want) == 0:
                return ""
        return f"{p.name}: written as {e}, not as its lower bound times (or plus) an unbounded coordinate"
    # the case P >= Q of a Max split: P = Q / w, w in (0, 1], Q a coordinate covering its own domain
    num, den = e.as_numer_denom()
    if num in coords and den in coords and coords[den].lo <= 0 and coords[den].hi is not None and \
            coords[den].hi >= 1:
        pair = (s, num)
        for d in siblings:
            dsub = dict(d.sub)
            n2, d2 = dsub[num].as_numer_denom() if num in dsub else (None, None)
            dc = {c.symbol: c for c in d.coords}
            if n2 == s and d2 in dc and dc[d2].lo <= 0 and dc[d2].hi is not None and dc[d2].hi >= 1:
                return ""
        return f"{p.name}: the case {pair[0]} >= {pair[1]} of a Max split without the case {pair[1]} >= {pair[0]}"
    return f"{p.name}: written as {e}, which the re-check does not read as a cover of its domain"


def _recheck(cert: Certificate) -> Recheck:
    if cert.form not in _FORMS:
        return Recheck(False, f"unknown form {cert.form!r}")
    test, target = _FORMS[cert.form]
    if cert.test != test:
        return Recheck(False, f"form {cert.form!r} is proved by '{test}', the certificate says '{cert.test}'")
    bad = _cover_gap(cert)
    if bad:
        return Recheck(False, bad)
    f = _compile(cert.expr)
    derivs: dict = {}
    for i, leaf in enumerate(cert.cover):
        if not _proves(_stored(leaf.enclosure), test):
            return Recheck(False, f"box {i}: the recorded enclosure {_show(leaf.enclosure)} does not prove '{test}'")
        box = list(leaf.box)
        if leaf.monotone is not None:
            k, face, stored_d = leaf.monotone
            if test != "lower >= 0" or not 0 <= k < len(cert.coords):
                return Recheck(False, f"box {i}: a monotonicity step the re-check does not accept")
            a, b = box[k]
            if face == "hi" and cert.coords[k].hi is None and b >= 1:
                return Recheck(False, f"box {i}: the face at infinity cannot close a box")
            if k not in derivs:
                derivs[k] = _compile(_derivative(cert, k))
            d = _safe(derivs[k], _env(cert, box))
            # the end that decides the sign must be finite; the other may be infinite only for sides proved defined
            sign_end, other_end = (None, None) if d is None else (d.lo, d.hi) if face == "lo" else (d.hi, d.lo)
            if d is None or _is_inf(sign_end) or (_is_inf(other_end) and not cert.defined) \
                    or not (d.lo >= 0 if face == "lo" else d.hi <= 0):
                return Recheck(False, f"box {i}: Arb does not show the derivative's sign in coordinate {k} "
                               f"({_show_iv(d)})")
            if not _overlap(d, _stored(stored_d)):
                return Recheck(False, f"box {i}: derivative enclosures disagree: recorded {_show(stored_d)}, "
                               f"Arb {_show_iv(d)}")
            box[k] = (a, a) if face == "lo" else (b, b)
        v = _safe(f, _env(cert, box))
        if v is None or not _proves(v, test):
            return Recheck(False, f"box {i}: Arb's enclosure {_show_iv(v)} does not prove '{test}'")
        if not _overlap(v, _stored(leaf.enclosure)):
            return Recheck(False, f"box {i}: enclosures disagree: recorded {_show(leaf.enclosure)}, Arb {_show_iv(v)}")
    return _tie(cert, target)


# ----- the cover ----------------------------------------------------------------------------------
def _root(cert):
    return [(Fraction(0), Fraction(1)) if c.hi is None else (Fraction(c.lo), Fraction(c.hi)) for c in cert.coords]


def _volume(box):
    v = Fraction(1)
    for a, b in box:
        v *= b - a
    return v


def _cover_gap(cert) -> str:
    root = _root(cert)
    boxes = []
    for i, leaf in enumerate(cert.cover):
        box = [(Fraction(a), Fraction(b)) for a, b in leaf.box]
        if len(box) != len(root) or any(not (lo <= a <= b <= hi) for (a, b), (lo, hi) in zip(box, root)):
            return f"box {i} is not inside the domain's compact coordinates"
        boxes.append(box)
    for i in range(len(boxes)):
        for j in range(i):
            if all(max(p[0], q[0]) < min(p[1], q[1]) for p, q in zip(boxes[i], boxes[j])) and root:
                return f"boxes {j} and {i} overlap"
    total = sum((_volume(b) for b in boxes), Fraction(0))
    if not boxes or total != _volume(root):
        return f"the boxes do not cover the domain (volume {float(total):.6g} of {float(_volume(root)):.6g})"
    return ""


# ----- intervals with Arb endpoints ---------------------------------------------------------------
class Iv:
    """[lo, hi]: each end an exact arb or -INF / INF (floats)."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi):
        if _gt(lo, hi):
            raise Undefined("empty interval")
        self.lo, self.hi = lo, hi

    def __add__(self, o):
        return Iv(_add(self.lo, o.lo, lower=True), _add(self.hi, o.hi, lower=False))

    def __neg__(self):
        return Iv(_neg(self.hi), _neg(self.lo))

    def __mul__(self, o):
        ends = [(x, y) for x in (self.lo, self.hi) for y in (o.lo, o.hi)]
        return Iv(_min([_mul(x, y, True) for x, y in ends]), _max([_mul(x, y, False) for x, y in ends]))

    def recip(self):
        if _is_zero(self.lo) and _is_zero(self.hi):
            raise Undefined("1/0")
        if _gt(self.lo, 0) or _is_zero(self.lo):
            return Iv(_monotone(self.hi, _inv, True, {INF: arb(0)}),
                      INF if _is_zero(self.lo) else _monotone(self.lo, _inv, False, {INF: arb(0)}))
        if _lt(self.hi, 0) or _is_zero(self.hi):
            return -(-self).recip()
        return Iv(-INF, INF)

    def power(self, n: int):
        if n < 0:
            return self.power(-n).recip()
        if n == 0:
            return Iv(arb(1), arb(1))
        f = (lambda x: x ** n)
        if n % 2 or _ge(self.lo, 0):
            return Iv(_monotone(self.lo, f, True), _monotone(self.hi, f, False))
        if _le(self.hi, 0):
            return (-self).power(n)
        return Iv(arb(0), _max([_monotone(_neg(self.lo), f, False), _monotone(self.hi, f, False)]))


def _inv(x):
    return 1 / x


def _is_inf(x) -> bool:
    return isinstance(x, float)


def _is_zero(x) -> bool:
    return not _is_inf(x) and x.is_zero()


def _lt(x, y) -> bool:
    """x < y for endpoints (exact arbs or -INF / INF)."""
    if _is_inf(x):
        return x == -INF and y != -INF
    if _is_inf(y):
        return y == INF
    return bool(x < y)


def _gt(x, y) -> bool:
    return _lt(y, x)


def _le(x, y) -> bool:
    return not _lt(y, x)


def _ge(x, y) -> bool:
    return not _lt(x, y)


def _min(xs):
    out = xs[0]
    for x in xs[1:]:
        out = x if _lt(x, out) else out
    return out


def _max(xs):
    out = xs[0]
    for x in xs[1:]:
        out = x if _gt(x, out) else out
    return out


def _end(ball, lower: bool):
    """The exact lower (upper) bound of an Arb ball, -INF/INF where the ball is not finite."""
    e = ball.lower() if lower else ball.upper()
    if e.is_finite():
        return e
    if e.is_nan():
        raise Undefined("nan")
    return INF if e > 0 else -INF


def _neg(x):
    return -x


def _add(x, y, lower):
    if _is_inf(x) or _is_inf(y):
        if _is_inf(x) and _is_inf(y) and x != y:
            raise Undefined("inf - inf")
        return x if _is_inf(x) else y
    return _end(x + y, lower)


def _mul(x, y, lower):
    if _is_zero(x) or _is_zero(y):
        return arb(0)  # the endpoint product 0 * inf of interval multiplication is 0
    if _is_inf(x) or _is_inf(y):
        sx = x if _is_inf(x) else (1.0 if x > 0 else -1.0)
        sy = y if _is_inf(y) else (1.0 if y > 0 else -1.0)
        return INF if sx * sy > 0 else -INF
    return _end(x * y, lower)


def _monotone(x, f, lower, at_inf=None):
    """f(x) of an increasing (or, via at_inf, any monotone) function at an endpoint, rounded outward."""
    if _is_inf(x):
        if at_inf and x in at_inf:
            return at_inf[x]
        return x
    return _end(f(arb(x)), lower)


def _stored(pair) -> Iv:
    """A recorded enclosure (Fractions or +-INF) as an Iv, rounded outward."""
    lo, hi = pair
    return Iv(lo if _is_inf(lo) else _end(_frac(lo), True), hi if _is_inf(hi) else _end(_frac(hi), False))


def _frac(q) -> arb:
    q = Fraction(q)
    return arb(fmpq(q.numerator, q.denominator))


def _const(q) -> Iv:
    ball = _frac(q)
    return Iv(_end(ball, True), _end(ball, False))


def _ball(ball) -> Iv:
    return Iv(_end(ball, True), _end(ball, False))


def _proves(v: Iv, test: str) -> bool:
    return _le(v.hi, 1) if test == "upper <= 1" else _ge(v.lo, 0)


def _overlap(a: Iv, b: Iv) -> bool:
    return _le(_max([a.lo, b.lo]), _min([a.hi, b.hi]))


def _show(pair) -> str:
    return "[" + ", ".join(f"{float(v):.6g}" for v in pair) + "]"


def _show_iv(v) -> str:
    if v is None:
        return "undefined"
    return "[" + ", ".join(("inf" if x > 0 else "-inf") if _is_inf(x) else f"{float(x):.6g}"
                           for x in (v.lo, v.hi)) + "]"


# ----- elementary functions on intervals ----------------------------------------------------------
def _exp(v: Iv) -> Iv:
    return Iv(_monotone(v.lo, arb.exp, True, {-INF: arb(0)}), _monotone(v.hi, arb.exp, False, {-INF: arb(0)}))


def _expm1(v: Iv) -> Iv:
    m1 = {-INF: arb(-1)}
    return Iv(_monotone(v.lo, arb.expm1, True, m1), _monotone(v.hi, arb.expm1, False, m1))


def _log(v: Iv) -> Iv:
    if _lt(v.lo, 0):
        raise Undefined("log of a negative number")
    lo = -INF if _is_zero(v.lo) else _monotone(v.lo, arb.log, True)
    if _is_zero(v.hi):
        raise Undefined("log 0")
    return Iv(lo, _monotone(v.hi, arb.log, False))


def _sqrt(v: Iv) -> Iv:
    if _lt(v.lo, 0):
        raise Undefined("sqrt of a negative number")
    return Iv(_monotone(v.lo, arb.sqrt, True), _monotone(v.hi, arb.sqrt, False))


def _abs(v: Iv) -> Iv:
    if _ge(v.lo, 0):
        return v
    if _le(v.hi, 0):
        return -v
    return Iv(arb(0), _max([_neg(v.lo), v.hi]))


def _float_exact(f: sp.Float) -> Fraction:
    sign, man, exp, _ = f._mpf_
    q = Fraction(man) * (Fraction(2) ** exp)
    return -q if sign else q


# ----- SymPy -> closure over intervals -------------------------------------------------------------
_CACHE: dict = {}


def _compile(expr):
    expr = sp.sympify(expr)
    if expr not in _CACHE:
        _CACHE[expr] = _build(expr)
    return _CACHE[expr]


def _build(e):
    if e.is_Symbol:
        def sym(env):
            if e not in env:
                raise Undefined(f"no value for {e}")
            return env[e]
        return sym
    if e.is_Integer or e.is_Rational:
        c = Fraction(int(e.p), int(e.q))
        return lambda env: _const(c)
    if e.is_Float:
        c = _float_exact(e)  # the binary number the Float stores, exactly
        return lambda env: _const(c)
    if e is sp.E:
        return lambda env: _ball(arb.const_e())
    if e is sp.pi:
        return lambda env: _ball(arb.pi())
    if e is sp.oo or e is -sp.oo:
        end = INF if e is sp.oo else -INF
        return lambda env: Iv(end, end)
    if isinstance(e, sp.Add):
        terms, const = list(e.args), [t for t in e.args if t.is_Number]
        parts = []
        if len(const) == 1:  # c + k exp(a) with k = -c: k expm1(a), which keeps the relative precision of tiny a
            for t in terms:
                k, g = t.as_coeff_Mul()
                if isinstance(g, sp.exp) and k.is_Number and k == -const[0]:
                    a, kk = _build(g.args[0]), _build(k)
                    parts.append(lambda env, a=a, kk=kk: kk(env) * _expm1(a(env)))
                    terms = [x for x in terms if x is not t and x is not const[0]]
                    break
        parts += [_build(t) for t in terms]

        def add(env):
            s = parts[0](env)
            for p in parts[1:]:
                s = s + p(env)
            return s
        return add
    if isinstance(e, sp.Mul):
        parts = [_build(t) for t in e.args]

        def mul(env):
            s = parts[0](env)
            for p in parts[1:]:
                s = s * p(env)
            return s
        return mul
    if isinstance(e, sp.Pow):
        base, p = _build(e.base), e.exp
        if p.is_Integer:
            n = int(p)
            return lambda env: base(env).power(n)
        if p.is_Rational and p.q == 2:
            n = int(p.p)
            return lambda env: _sqrt(base(env)).power(n)
        ex = _build(p)
        positive = bool(p.is_positive)

        def power(env):
            v = base(env)
            if positive and _is_zero(v.lo) and _is_zero(v.hi):
                return Iv(arb(0), arb(0))  # 0^p = 0 for p > 0 (exp(p log 0) has no value in Arb)
            return _exp(ex(env) * _log(v))
        return power
    if isinstance(e, sp.exp):
        a = _build(e.args[0])
        return lambda env: _exp(a(env))
    if isinstance(e, sp.log) and len(e.args) == 1:
        a = _build(e.args[0])
        return lambda env: _log(a(env))
    if isinstance(e, sp.Abs):
        a = _build(e.args[0])
        return lambda env: _abs(a(env))
    if isinstance(e, (sp.cosh, sp.sinh)):
        a, sign = _build(e.args[0]), (1 if isinstance(e, sp.cosh) else -1)
        half = _const(Fraction(1, 2))
        return lambda env: (_exp(a(env)) + (_exp(-a(env)) if sign > 0 else -_exp(-a(env)))) * half
    if isinstance(e, (sp.Max, sp.Min)):
        parts, pick = [_build(t) for t in e.args], (_max if isinstance(e, sp.Max) else _min)

        def mm(env):
            vs = [p(env) for p in parts]
            return Iv(pick([v.lo for v in vs]), pick([v.hi for v in vs]))
        return mm
    raise Undefined(f"the re-check cannot evaluate {type(e).__name__}: {e}")


def _safe(f, env):
    try:
        return f(env)
    except Undefined:
        return None


# ----- coordinates --------------------------------------------------------------------------------
def _env(cert, box) -> dict:
    env = {}
    for c, (a, b) in zip(cert.coords, box):
        a, b = Fraction(a), Fraction(b)
        if c.hi is None:  # v = lo + t/(1 - t)
            above = Iv(INF if a >= 1 else _end(_frac(a) / (1 - _frac(a)), True),
                       INF if b >= 1 else _end(_frac(b) / (1 - _frac(b)), False))
            env[c.symbol] = _const(c.lo) + above
        else:
            env[c.symbol] = Iv(_end(_frac(a), True), _end(_frac(b), False))
            above = env[c.symbol] + (-_const(c.lo))
        if c.above is not None:
            env[c.above] = Iv(_max([above.lo, arb(0)]), above.hi)  # v - lo >= 0 on the domain
    return env


def _derivative(cert, k):
    """d expr / d v_k, with the symbol of v_k - lo written as v_k - lo (so its dependence is counted)."""
    c = cert.coords[k]
    expr = cert.expr.xreplace({d.above: d.symbol - sp.Rational(d.lo) for d in cert.coords if d.above is not None})
    return sp.diff(expr, c.symbol)


# ----- the form is the stated rewriting of the step -----------------------------------------------
def _tie(cert, target) -> Recheck:
    old = flint.ctx.prec
    flint.ctx.prec = TIE_PREC
    try:
        f, fl, fr = _compile(cert.expr), _compile(cert.lhs), _compile(cert.rhs)
        subs = [(s, _compile(e)) for s, e in cert.sub]
        for t in TIE_POINTS:
            point = [(c.lo + t / (1 - t)) if c.hi is None else c.lo + t * (c.hi - c.lo) for c in cert.coords]
            env = {}
            for c, v in zip(cert.coords, point):
                env[c.symbol] = _const(v)
                if c.above is not None:
                    env[c.above] = _const(v - c.lo)
            sides = dict(env)
            for s, g in subs:
                sides[s] = g(env)
            lhs, rhs, form = fl(sides), fr(sides), f(env)
            want, scale = {"ratio": (lambda: (lhs * rhs.recip(), _mag(lhs * rhs.recip()))),
                           "log": (lambda: (_log(rhs) + -_log(lhs), _mag(_log(rhs)) + _mag(_log(lhs)) + 1)),
                           "diff": (lambda: (rhs + -lhs, _mag(lhs) + _mag(rhs)))}[target]()
            gap = max(_mag(form + -want), 0)
            if not gap <= TIE_TOL * scale:
                return Recheck(False, f"the form {cert.form!r} is not the step rewritten: at t = {t} it is "
                               f"{_show_iv(form)}, the step's {target} is {_show_iv(want)}")
        return Recheck(True, "")
    except Undefined as e:
        return Recheck(False, f"the form could not be compared with the step: {e}")
    finally:
        flint.ctx.prec = old


def _mag(v: Iv) -> Fraction:
    """max |x| on v, as a Fraction (inf where unbounded)."""
    m = _max([_neg(v.lo), v.hi])
    if _is_inf(m):
        raise Undefined("an unbounded value at an interior point")
    mid, exp = m.man_exp()
    return Fraction(int(mid)) * Fraction(2) ** int(exp)


# ----- points (every counterexample of the verifier is confirmed here) ------------------------------
POINT_PREC = 256
MAX_POINT_PREC = 2**17  # bits: beyond this a point is left unconfirmed


def enclose(expr, values: dict, prec: int = POINT_PREC) -> Iv:
    """An Arb enclosure of ``expr`` at ``values`` (symbol -> Fraction or int), at ``prec`` bits."""
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        return _compile(expr)({s: _const(Fraction(v)) for s, v in values.items()})
    finally:
        flint.ctx.prec = old


def to_fraction(end) -> Fraction:
    """An exact endpoint as a Fraction (Undefined for an infinite one)."""
    if _is_inf(end):
        raise Undefined("an infinite endpoint")
    man, exp = end.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def certainly(bound, v, values: dict, strict: bool, below: bool) -> bool:
    """Arb proves ``bound <= v`` (``below``) or ``v <= bound`` (strict: ``<``) at ``values``."""
    v = Fraction(v)
    prec = _start_prec({**values, None: v})
    b, x = enclose(bound, values, prec), enclose(sp.Rational(v.numerator, v.denominator), {}, prec)
    if below:
        return _lt(b.hi, x.lo) if strict else _le(b.hi, x.lo)
    return _lt(x.hi, b.lo) if strict else _le(x.hi, b.lo)


def _start_prec(values: dict) -> int:
    """Precision that grows with the size of the values (exponents like B^2 need its bits and more)."""
    bits = max([Fraction(v).numerator.bit_length() + Fraction(v).denominator.bit_length() for v in values.values()]
               or [0])
    return min(max(POINT_PREC, 64 + 4 * bits), MAX_POINT_PREC)


def compare(lhs, rhs, values: dict):
    """True when Arb proves ``lhs > rhs`` at ``values`` (the lower bound of lhs above the upper bound of rhs),
    False when it proves ``lhs <= rhs``, None when the enclosures still overlap at ``MAX_POINT_PREC`` bits or a
    side cannot be enclosed.  The precision starts with the size of the values and is raised fourfold."""
    prec = _start_prec(values)
    while True:
        try:
            lo, ro = enclose(lhs, values, prec), enclose(rhs, values, prec)
        except Undefined:
            return None
        if _gt(lo.lo, ro.hi):
            return True
        if _le(lo.hi, ro.lo):
            return False
        if prec >= MAX_POINT_PREC:
            return None
        prec = min(prec * 4, MAX_POINT_PREC)


def certainly_greater(lhs, rhs, values: dict) -> bool:
    """Arb proves ``lhs > rhs`` at ``values`` (raising the precision while the enclosures overlap)."""
    return compare(lhs, rhs, values) is True


def certainly_not_real(expr, values: dict) -> bool:
    """Arb proves that ``expr`` is not real at ``values``: a square root, a log or a fractional power in it has an
    argument that is certainly negative there (every other part evaluated at the point)."""
    for a in sp.sympify(expr).atoms(sp.Pow, sp.log):
        if isinstance(a, sp.Pow) and a.exp.is_integer:
            continue
        arg = a.base if isinstance(a, sp.Pow) else a.args[0]
        try:
            v = enclose(arg, values, _start_prec(values))
        except Undefined:
            continue
        if _lt(v.hi, 0):
            return True
    return False
