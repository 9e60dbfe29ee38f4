"""Hypothesis strategies for a statement's parameters, derived from its hypotheses in ``bounds``.

Each parameter's admissible range is read from ``bounds.get(name).domain`` (lower/upper bounds, open or closed,
integrality; lower bounds may depend on parameters drawn before, e.g. ``alpha >= max(sqrt(d1), sqrt(d2))``).
A check only narrows that range to a practical window (``window``): it never retypes a hypothesis, and every
drawn point is re-validated by ``Statement.check``.
"""
from __future__ import annotations

import dataclasses
import math

from hypothesis import given, settings, strategies as st

import bounds
from bounds.evaluate import value
from bounds.symbols import PARAMETER

SEEDS = st.integers(0, 2**31 - 1)


@dataclasses.dataclass(frozen=True)
class Scaled:
    """A window ``[lo, hi]`` times the parameter's (possibly dependent) lower bound, e.g. alpha = r * sqrt(d1)."""

    lo: float
    hi: float


@dataclasses.dataclass(frozen=True)
class LogUniform:
    """A window ``[lo, hi]`` drawn uniformly in log scale (eps spans decades)."""

    lo: float
    hi: float


def _value(expr, values):
    return None if expr is None else value(expr, {k: v for k, v in values.items() if k in PARAMETER})


def _one(name, dom, window, values):
    lo, hi = _value(dom["lo"], values), _value(dom["hi"], values)
    lo, hi = (-math.inf if lo is None else lo), (math.inf if hi is None else hi)
    if isinstance(window, list):
        choices = [v for v in window if (lo < v or (v == lo and not dom["lo_open"]))
                   and (v < hi or (v == hi and not dom["hi_open"]))]
        if not choices:
            raise ValueError(f"no choice of {name} in {window} satisfies its hypotheses ({lo}, {hi})")
        return st.sampled_from(choices)
    if isinstance(window, Scaled):
        if not math.isfinite(lo) or lo <= 0:
            raise ValueError(f"{name}: a Scaled window needs a positive lower bound, got {lo}")
        a, b = window.lo * lo, window.hi * lo
    elif isinstance(window, LogUniform):
        a, b = window.lo, window.hi
    else:
        a, b = window
    a, b = max(a, lo), min(b, hi)
    if dom["integer"]:
        a = math.floor(a) + 1 if (dom["lo_open"] and a == lo) else math.ceil(a)
        b = math.ceil(b) - 1 if (dom["hi_open"] and b == hi) else math.floor(b)
        if a > b:
            raise ValueError(f"empty integer window for {name}: [{a}, {b}]")
        return st.integers(a, b)
    excl_lo, excl_hi = dom["lo_open"] and a == lo, dom["hi_open"] and b == hi
    if a > b or (a == b and (excl_lo or excl_hi)):
        raise ValueError(f"empty window for {name}: [{a}, {b}]")
    if isinstance(window, LogUniform):
        return st.floats(math.log(a), math.log(b)).map(math.exp).filter(
            lambda v: (v > a or not excl_lo) and (v < b or not excl_hi))
    return st.floats(a, b, exclude_min=excl_lo, exclude_max=excl_hi)


def parameters(statement: str, **windows):
    """Strategy of parameter dicts for ``statement`` (plus a ``seed``), drawing the named parameters in order.

    ``windows[name]``: a tuple ``(lo, hi)``, a list of choices, ``Scaled(lo, hi)`` or ``LogUniform(lo, hi)``; each is
    intersected with the parameter's domain in bounds. Parameters that are not the statement's (e.g. ``T``
    of Lemma 5, mask kinds) must be given as lists of choices.
    """
    st_ = bounds.get(statement)
    domain = st_.domain
    free = {"lo": None, "hi": None, "lo_open": False, "hi_open": False, "integer": False}

    @st.composite
    def point(draw):
        values = {}
        for name, window in windows.items():
            dom = domain.get(name, free)
            if name not in domain and isinstance(window, list):
                values[name] = draw(st.sampled_from(list(window)), label=name)
                continue
            values[name] = draw(_one(name, dom, window, values), label=name)
        st_.check(**{k: v for k, v in values.items() if k in domain and not isinstance(v, str)})
        values["seed"] = draw(SEEDS, label="seed")
        return values

    return point()


def examples(ci: int, thorough: int | None = None):
    """``settings`` with ``ci`` examples under the ci profile; otherwise (thorough) ``thorough`` examples, or the
    loaded profile's count when None."""
    current = settings.default.max_examples
    return settings(max_examples=ci if current <= 25 else (thorough or current))


def hold(statement: str, windows: dict, ci_examples: int, body, key: str = "", thorough: int | None = None) -> None:
    """Run ``body(point)`` on the points ``parameters(statement, **windows)`` draws (``examples(ci_examples,
    thorough)`` of them, in the loaded hypothesis profile); a failing point is shrunk and reported by hypothesis as in
    a test. ``key`` tells apart the checks of one statement in hypothesis's example database (and its derandomised
    seed)."""
    @examples(ci_examples, thorough)
    @given(point=parameters(statement, **windows))
    def check(point):
        body(point)

    check.hypothesis.inner_test._hypothesis_internal_add_digest = f"slth:{statement}:{key}".encode()
    check()
