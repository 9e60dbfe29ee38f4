"""Theorem 10 for input norms alpha < 1 (README finding 7), computed from the statements of the catalogue.

The written proof tracks ``1 + e_l`` (step T10b: ``(alpha + e_l) eps/(2L) <= (1 + e_l) alpha eps/(2L)``), which
needs alpha >= 1 once an error e_l > 0 has entered.  Three things follow, each computed here:

- ``reachable_counterexample``: T10b of the printed statement (alpha > 0) at a point the proof's own recursion
  reaches: the error entering layer 2 equal to Lemma 2's bound after layer 1, ``e_2 = alpha eps/(2L)``.  It is a
  counterexample to a step of the written proof, not to the theorem.
- ``threshold``: where the bound the proof does deliver, tracking ``alpha + e_l``
  (``subset_sum.recursion_bound``: ``alpha ((1 + eps/(2L))^L - 1)``), exceeds the printed ``exp(alpha eps/2) - 1``.
  Their difference ``f(alpha)`` is concave in alpha with ``f(0) = 0``, ``f'(0) = (1 + eps/(2L))^L - 1 - eps/2``
  (zero at L = 1, positive for L >= 2) and ``f(1) < 0`` (``(1 + t/L)^L < e^t``): so for L >= 2 the proof's bound
  exceeds the printed one exactly for ``0 < alpha < alpha*(L, eps)``, the one root of f in (0, 1), and never for
  L = 1 (``l1_step``: ``alpha eps/2 <= exp(alpha eps/2) - 1``).
- ``doubled_c``: the printed statement for every alpha > 0 with the universal constant doubled
  (``subset_sum.DOUBLED_C``): the width ``d_l (2C) log(4 L d_l d_(l+1)/eps)`` covers Lemma 2 at the layer budget
  eps/(4L), the proof tracking ``alpha + e_l`` gives ``alpha (exp(eps/4) - 1)``, and
  ``alpha (exp(eps/4) - 1) <= alpha eps/2 <= exp(alpha eps/2) - 1`` (T10e split through two facts).
"""
from __future__ import annotations

import dataclasses

import mpmath
import sympy as sp

from ..catalogue import STATEMENTS, lookup
from ..core import Step
from ..facts import EXP_LINEAR, EXP_TANGENT
from ..subset_sum import DOUBLED_C, layer_growth, recursion_bound
from ..symbols import L, alpha, eps, x
from .mutations import catalogue_with
from .verify import verify_step

POINT = {"L": 2, "alpha": sp.Rational(1, 2), "eps": sp.Rational(1, 2)}
"""The reachable point of the counterexample to T10b (L = 2, alpha = 0.5, eps = 0.5)."""


def printed() -> tuple:
    """(the printed Theorem 10: alpha > 0, its catalogue lookup)."""
    cat = catalogue_with(*STATEMENTS["theorem10"].variants["printed"].edits)
    return cat["theorem10"], lookup(cat)


def reachable_counterexample(point: dict | None = None, dps: int = 50) -> dict:
    """T10b of the printed statement at ``point`` (default ``POINT``) with ``e_l`` the error entering layer 2:
    Lemma 2's error bound after layer 1 at input norm alpha.  ``{"point", "e_l", "lhs", "rhs", "admissible"}``
    (mpmath numbers; ``admissible``: the point satisfies the printed statement's hypotheses)."""
    point = dict(POINT if point is None else point)
    st, get = printed()
    rel, _ = layer_growth(st, get, alpha)
    e2 = (alpha * rel).xreplace({alpha: point["alpha"], eps: point["eps"], L: point["L"]})
    step = next(s for s in st.steps(get) if s.name == "T10b")
    lhs, rhs = step.evaluate(dps=dps, **point, e_l=e2)
    st.check(**{k: float(v) for k, v in point.items()})  # raises if the point is outside the hypotheses
    return {"point": point, "e_l": e2, "lhs": lhs, "rhs": rhs, "admissible": True}


def excess(alpha_value, eps_value, layers, dps: int = 50):
    """The proof's bound minus the printed bound at (alpha, eps, L) (mpmath): positive where the written proof
    does not give the printed statement."""
    st, get = printed()
    diff = recursion_bound(st, get) - st.conclusion
    from ..evaluate import evaluate  # the one numeric evaluator of bounds/
    return evaluate(diff, {"alpha": mpmath.mpf(alpha_value), "eps": mpmath.mpf(eps_value), "L": layers}, dps)


def threshold(layers: int, eps_value, dps: int = 50):
    """alpha*(L, eps): the proof's bound exceeds the printed one exactly for 0 < alpha < alpha*; None for L = 1
    (never).  Bisection on the sign of ``excess`` in (0, 1) (concave in alpha, see the module docstring)."""
    if layers < 2:
        return None
    with mpmath.workdps(dps):
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        if not excess(hi, eps_value, layers, dps) < 0:
            raise ValueError(f"excess at alpha = 1 is not negative at L = {layers}, eps = {eps_value}")
        for _ in range(dps * 4):
            mid = (lo + hi) / 2
            if excess(mid, eps_value, layers, dps) > 0:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


def _instance_of_tangent(name: str, arg, params: tuple):
    """``arg <= exp(arg) - 1``, verified as an instance of the fact ``x <= exp(x) - 1`` (x >= 0): the fact on its
    domain and ``0 <= arg`` on ``params``.  The verifier's results, fact first."""
    fact = verify_step("facts", Step(EXP_TANGENT.name, EXP_TANGENT.lhs, EXP_TANGENT.rhs), (EXP_TANGENT.domain,))
    inside = verify_step("theorem10", Step(f"{name}[lo]", EXP_TANGENT.domain.lo[0], arg), params)
    return [dataclasses.replace(fact, statement="facts"), dataclasses.replace(inside, step=f"{name}[x >= 0]")]


def l1_step():
    """At L = 1 the proof's bound alpha eps/2 is at most the printed one for every alpha > 0: the verifier's
    results (the fact x <= exp(x) - 1 and its argument's range)."""
    st, get = printed()
    arg = recursion_bound(st, get).xreplace({L: 1})
    assert EXP_TANGENT.rhs.xreplace({x: arg}) == st.conclusion, "the printed bound is not exp(alpha eps/2) - 1"
    return _instance_of_tangent("L=1", arg, st.params)


def doubled_c(edits: tuple = DOUBLED_C) -> list:
    """The printed statement (alpha > 0) with C doubled (``edits``), verified: every step of its proof except T10e,
    and T10e as T10e-i (``exp(x) - 1 <= 2x`` at x = eps/4) and T10e-ii (``x <= exp(x) - 1`` at x = alpha eps/2)."""
    cat = catalogue_with(*edits)
    st, get = cat["theorem10"], lookup(cat)
    steps = st.steps(get)
    out = [verify_step(st.name, s, st.params) for s in steps if s.name != "T10e"]
    t10e = next(s for s in steps if s.name == "T10e")
    bounded = EXP_LINEAR.apply(t10e.lhs)  # alpha (exp(eps/4) - 1) -> alpha eps/2
    out.append(verify_step(st.name, Step("T10e-i", t10e.lhs, bounded, (EXP_LINEAR.name,)), st.params))
    assert EXP_TANGENT.rhs.xreplace({x: bounded}) == t10e.rhs, "T10e-ii is not the tangent fact at alpha eps/2"
    out += _instance_of_tangent("T10e-ii", bounded, st.params)
    return out

