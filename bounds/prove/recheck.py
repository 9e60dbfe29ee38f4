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
(``bounds.prove.verify``, ``bounds.evaluate``): it compiles the SymPy expressions itself, to closures over intervals
with Arb endpoints (``bounds.prove.arb_intervals``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy as sp

from .arb_intervals import (Iv, Undefined, box_env, compile_expr, constant, end_max, gt, is_inf, iv_log, le, lt, neg,
                            overlap, precision, proves, safe, show, show_iv, stored)
from .certificate import Certificate

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


@dataclass(frozen=True)
class Recheck:
    ok: bool
    reason: str


def recheck(cert: Certificate) -> Recheck:
    """Accept ``cert`` only if Arb re-proves every box of a cover of the domain (see the module docstring)."""
    try:
        with precision(PREC):
            return _recheck(cert)
    except Undefined as e:
        return Recheck(False, f"undefined in Arb: {e}")


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
    f = compile_expr(cert.expr)
    derivs: dict = {}
    for i, leaf in enumerate(cert.cover):
        if not proves(stored(leaf.enclosure), test):
            return Recheck(False, f"box {i}: the recorded enclosure {show(leaf.enclosure)} does not prove '{test}'")
        box = list(leaf.box)
        if leaf.monotone is not None:
            k, face, stored_d = leaf.monotone
            if test != "lower >= 0" or not 0 <= k < len(cert.coords):
                return Recheck(False, f"box {i}: a monotonicity step the re-check does not accept")
            a, b = box[k]
            if face == "hi" and cert.coords[k].hi is None and b >= 1:
                return Recheck(False, f"box {i}: the face at infinity cannot close a box")
            if k not in derivs:
                derivs[k] = compile_expr(_derivative(cert, k))
            d = safe(derivs[k], box_env(cert, box))
            # the end that decides the sign must be finite; the other may be infinite only for sides proved defined
            sign_end, other_end = (None, None) if d is None else (d.lo, d.hi) if face == "lo" else (d.hi, d.lo)
            if d is None or is_inf(sign_end) or (is_inf(other_end) and not cert.defined) \
                    or not (d.lo >= 0 if face == "lo" else d.hi <= 0):
                return Recheck(False, f"box {i}: Arb does not show the derivative's sign in coordinate {k} "
                               f"({show_iv(d)})")
            if not overlap(d, stored(stored_d)):
                return Recheck(False, f"box {i}: derivative enclosures disagree: recorded {show(stored_d)}, "
                               f"Arb {show_iv(d)}")
            box[k] = (a, a) if face == "lo" else (b, b)
        v = safe(f, box_env(cert, box))
        if v is None or not proves(v, test):
            return Recheck(False, f"box {i}: Arb's enclosure {show_iv(v)} does not prove '{test}'")
        if not overlap(v, stored(leaf.enclosure)):
            return Recheck(False, f"box {i}: enclosures disagree: recorded {show(leaf.enclosure)}, Arb {show_iv(v)}")
    return _tie(cert, target)


# ----- the cover ----------------------------------------------------------------------------------
def root(cert):
    """The compact coordinates' box of ``cert`` (anything with ``coords``): [0, 1] for a coordinate unbounded above."""
    return [(Fraction(0), Fraction(1)) if c.hi is None else (Fraction(c.lo), Fraction(c.hi)) for c in cert.coords]


def _volume(box):
    return math.prod((b - a for a, b in box), start=Fraction(1))


def _cover_gap(cert) -> str:
    whole = root(cert)
    boxes = []
    for i, leaf in enumerate(cert.cover):
        box = [(Fraction(a), Fraction(b)) for a, b in leaf.box]
        if len(box) != len(whole) or any(not (lo <= a <= b <= hi) for (a, b), (lo, hi) in zip(box, whole)):
            return f"box {i} is not inside the domain's compact coordinates"
        boxes.append(box)
    for i in range(len(boxes)):
        for j in range(i):
            if all(max(p[0], q[0]) < min(p[1], q[1]) for p, q in zip(boxes[i], boxes[j])) and whole:
                return f"boxes {j} and {i} overlap"
    total = sum((_volume(b) for b in boxes), Fraction(0))
    if not boxes or total != _volume(whole):
        return f"the boxes do not cover the domain (volume {float(total):.6g} of {float(_volume(whole)):.6g})"
    return ""


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
        f, fl, fr = compile_expr(cert.expr), compile_expr(cert.lhs), compile_expr(cert.rhs)
        subs = [(s, compile_expr(e)) for s, e in cert.sub]
        for t in TIE_POINTS:
            point = [(c.lo + t / (1 - t)) if c.hi is None else c.lo + t * (c.hi - c.lo) for c in cert.coords]
            env = {c.symbol: constant(v) for c, v in zip(cert.coords, point)}
            env.update({c.above: constant(v - c.lo) for c, v in zip(cert.coords, point) if c.above is not None})
            sides = {**env, **{s: g(env) for s, g in subs}}
            lhs, rhs, form = fl(sides), fr(sides), f(env)
            want, scale = {"ratio": (lambda: (lhs * rhs.recip(), _mag(lhs * rhs.recip()))),
                           "log": (lambda: (iv_log(rhs) + -iv_log(lhs), _mag(iv_log(rhs)) + _mag(iv_log(lhs)) + 1)),
                           "diff": (lambda: (rhs + -lhs, _mag(lhs) + _mag(rhs)))}[target]()
            gap = max(_mag(form + -want), 0)
            if not gap <= TIE_TOL * scale:
                return Recheck(False, f"the form {cert.form!r} is not the step rewritten: at t = {t} it is "
                               f"{show_iv(form)}, the step's {target} is {show_iv(want)}")
        return Recheck(True, "")
    except Undefined as e:
        return Recheck(False, f"the form could not be compared with the step: {e}")
    finally:
        flint.ctx.prec = old


def _mag(v: Iv) -> Fraction:
    """max |x| on v, as a Fraction (inf where unbounded)."""
    m = end_max([neg(v.lo), v.hi])
    if is_inf(m):
        raise Undefined("an unbounded value at an interior point")
    return to_fraction(m)


# ----- points (every counterexample of the verifier is confirmed here) ------------------------------
POINT_PREC = 256
MAX_POINT_PREC = 2**17  # bits: beyond this a point is left unconfirmed


def enclose(expr, values: dict, prec: int = POINT_PREC) -> Iv:
    """An Arb enclosure of ``expr`` at ``values`` (symbol -> Fraction or int), at ``prec`` bits."""
    with precision(prec):
        return compile_expr(expr)({s: constant(Fraction(v)) for s, v in values.items()})


def to_fraction(end) -> Fraction:
    """An exact endpoint as a Fraction (Undefined for an infinite one)."""
    if is_inf(end):
        raise Undefined("an infinite endpoint")
    man, exp = end.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def certainly(bound, v, values: dict, strict: bool, below: bool) -> bool:
    """Arb proves ``bound <= v`` (``below``) or ``v <= bound`` (strict: ``<``) at ``values``."""
    v = Fraction(v)
    prec = _start_prec({**values, None: v})
    b, x = enclose(bound, values, prec), enclose(sp.Rational(v.numerator, v.denominator), {}, prec)
    if below:
        return lt(b.hi, x.lo) if strict else le(b.hi, x.lo)
    return lt(x.hi, b.lo) if strict else le(x.hi, b.lo)


def _start_prec(values: dict) -> int:
    """Precision that grows with the size of the values (exponents like B^2 need its bits and more)."""
    bits = max([Fraction(v).numerator.bit_length() + Fraction(v).denominator.bit_length() for v in values.values()]
               or [0])
    return min(max(POINT_PREC, 64 + 4 * bits), MAX_POINT_PREC)


def compare(lhs, rhs, values: dict, precisions: list | None = None):
    """True when Arb proves ``lhs > rhs`` at ``values`` (the lower bound of lhs above the upper bound of rhs),
    False when it proves ``lhs <= rhs``, None when the enclosures still overlap at ``MAX_POINT_PREC`` bits or a
    side cannot be enclosed.  The precision starts with the size of the values and is raised fourfold; each one
    tried is appended to ``precisions`` when given (what the comparison cost)."""
    prec = _start_prec(values)
    while True:
        if precisions is not None:
            precisions.append(prec)
        try:
            lo, ro = enclose(lhs, values, prec), enclose(rhs, values, prec)
        except Undefined:
            return None
        if gt(lo.lo, ro.hi):
            return True
        if le(lo.hi, ro.lo):
            return False
        if prec >= MAX_POINT_PREC:
            return None
        prec = min(prec * 4, MAX_POINT_PREC)


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
        if lt(v.hi, 0):
            return True
    return False
