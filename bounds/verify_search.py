"""Method 3 of the verifier: the counterexample search.  Seeded points of the box (its corners, then random
points, integer dimensions rounded) and of the whole domain (unbounded parameters far beyond the box), each
compared at 50 digits relative to the sides' own size and confirmed at 100 digits (``check_point``); and the
smallest ratio rhs/lhs over such points (``smallest_ratio``)."""
from __future__ import annotations

import itertools
import random

import mpmath
import sympy as sp

from .core import Step
from .evaluate import compile_expr
from .verify_domain import Domain

SAMPLES = 400
WHOLE_SAMPLES = 200
SEED = 20251106


def smallest_ratio(step: Step, dom: "Domain", detail: str) -> float | None:
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


def sample_whole(lhs, rhs, dom: "Domain", n: int = 200):
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
        cex = check_point(lhs, rhs, dom, point)
        if cex and (worst is None or excess(cex) > excess(worst)):
            worst = cex
    return worst


def check_point(lhs, rhs, dom, point):
    """Counterexample dict at ``point`` (box coordinates) if lhs > rhs there, else None.

    The sides are compared as numbers of unbounded exponent at 50 digits, relative to their own size
    (``lhs - rhs > 10^-40 max(|lhs|, |rhs|)``, i.e. a ratio or a log difference), so a violation is seen at any
    scale (1e-40 or 1e+40 alike); it is confirmed at 100 digits.  A side that is not real there (an imaginary
    part beyond rounding, e.g. sqrt of a negative number) is a counterexample too: the inequality is false at a
    point of its domain; its sides are then reported as strings."""
    fl, fr = compile_expr(lhs, mpmath.mp), compile_expr(rhs, mpmath.mp)
    with mpmath.workdps(50):
        try:
            env = dom.env([mpmath.mpf(v) for v in point], mpmath.mp)
            l, r = fl(env), fr(env)
        except (ZeroDivisionError, ValueError, OverflowError):
            return None
        if not (_complex(l, 40) or _complex(r, 40)) and not \
                mpmath.re(l) > mpmath.re(r) + mpmath.mpf(10) ** -40 * max(abs(l), abs(r)):
            return None
    with mpmath.workdps(100):  # confirm with more digits
        env = dom.env([mpmath.mpf(v) for v in point], mpmath.mp)
        l, r = fl(env), fr(env)
        if _complex(l, 80) or _complex(r, 80):
            return {**dom.named(env), "lhs": mpmath.nstr(l, 15), "rhs": mpmath.nstr(r, 15)}
        if not mpmath.re(l) > mpmath.re(r):
            return None
        return {**dom.named(env), "lhs": float(mpmath.re(l)), "rhs": float(mpmath.re(r))}


def _complex(v, digits: int) -> bool:
    """``v`` has an imaginary part beyond rounding at ``digits`` digits (relative to its size)."""
    return isinstance(v, mpmath.mpc) and abs(v.imag) > mpmath.mpf(10) ** -digits * abs(v)


def sample_box(lhs, rhs, dom: Domain, n: int):
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
        cex = check_point(lhs, rhs, dom, point)
        if cex and (worst is None or excess(cex) > excess(worst)):
            worst = cex
    return worst


def excess(cex):
    l, r = cex["lhs"], cex["rhs"]
    if isinstance(l, str) or isinstance(r, str):  # a side that is not real: the worst kind of violation
        return float("inf")
    return l / r if r > 0 else float("inf") if l > 0 else l - r
