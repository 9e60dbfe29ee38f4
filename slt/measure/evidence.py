"""Evidence carried by every measured case: statement, parameters, seed, measured value, bound, re-run command.

A check collects ``Case`` objects; ``report_failures`` turns the violated ones into one assertion message that
prints everything needed to reproduce each (``python -m slt.measure.rerun ...`` runs exactly that case again).
Comparisons within a few ulps of the bound are confirmed in high precision (mpmath) before being called either
way (COMMON.md: float64 by default, mpmath near the boundary).
"""
from __future__ import annotations

import dataclasses
import json
import math
import shlex
from typing import Callable

import bounds
from bounds.evaluate import evaluate

ULPS = 8
"""A comparison closer than this many ulps of the bound is re-decided in high precision."""


@dataclasses.dataclass
class Case:
    """One measured instance of a statement: ``measured <= bound`` is what the statement claims."""

    statement: str
    parameters: dict
    seed: int | None
    measured: float
    bound: float
    what: str = "error"
    violated: bool = False
    detail: str = ""
    counterexample: dict | None = None
    widths: dict | None = None

    @property
    def ratio(self) -> float:
        """Tightness: measured over bound (1 means the bound is attained)."""
        return self.measured / self.bound if self.bound > 0 else math.inf

    @property
    def command(self) -> str:
        """The one-line shell command that re-runs exactly this case."""
        parts = ["python", "-m", "slt.measure.rerun", self.statement]
        parts += ["--seed", str(self.seed)] if self.seed is not None else []
        parts += [f"{k}={_fmt(v)}" for k, v in self.parameters.items()]
        return " ".join(shlex.quote(p) for p in parts)

    def describe(self) -> str:
        params = ", ".join(f"{k}={_fmt(v)}" for k, v in self.parameters.items())
        verdict = "VIOLATED" if self.violated else "holds"
        text = (
            f"{self.statement}: {self.what} {self.measured!r} vs bound {self.bound!r} ({verdict}, "
            f"ratio {self.ratio:.4g}) at {params}, seed={self.seed}\n  re-run: {self.command}"
        )
        if self.widths:
            text += "\n  widths: " + ", ".join(f"{k}={v}" for k, v in self.widths.items())
        if self.detail:
            text += f"\n  {self.detail}"
        if self.counterexample is not None:
            text += "\n  counterexample: " + json.dumps(self.counterexample)
        return text


def exceeds(measured: float, bound: float, exact: Callable[[], tuple] | None = None) -> bool:
    """Whether ``measured > bound``; within ``ULPS`` ulps, decided by ``exact() -> (lhs, rhs)`` in mpmath.

    Without ``exact`` a near tie counts as a violation (never silently in the statement's favour).
    """
    if math.isnan(measured) or math.isnan(bound):
        raise ValueError(f"NaN in comparison: measured={measured}, bound={bound}")
    tol = ULPS * math.ulp(max(abs(measured), abs(bound), math.ulp(0.0)))
    if measured > bound + tol:
        return True
    if measured < bound - tol:
        return False
    if exact is None:
        return measured > bound
    lhs, rhs = exact()
    return bool(lhs > rhs)


def report_failures(cases, header: str = "") -> str:
    """Message listing every violated case (empty string when none)."""
    bad = [c for c in cases if c.violated]
    return "\n".join([header or f"{len(bad)} violated case(s):"] + [c.describe() for c in bad]) if bad else ""


def cases_result(cases) -> dict:
    """The result of a task that measures a list of cases: ``{"cases": [row, ...]}``, each case a JSON-able row of
    the run record (parameters, seed, measured, bound, ratio, verdict, command)."""
    return {"cases": [{"parameters": dict(c.parameters), "seed": c.seed, "measured": float(c.measured),
                       "bound": float(c.bound), "ratio": float(c.ratio), "violated": bool(c.violated),
                       "command": c.command, "detail": c.detail, "counterexample": c.counterexample} for c in cases]}


def _fmt(value) -> str:
    if isinstance(value, float):
        return repr(value)
    return ",".join(_fmt(v) for v in value) if isinstance(value, (list, tuple)) else str(value)


def bound_mp(statement: str, expression=None, dps: int = 40, **params):
    """``bounds``' conclusion (or another of its SymPy expressions) of ``statement`` evaluated in mpmath."""
    st = bounds.get(statement)
    st.check(**params)
    expr = st.conclusion if expression is None else expression
    return evaluate(expr, {name: params[name] for name in st.symbols if name in params}, dps)
