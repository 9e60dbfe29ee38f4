"""An interval certificate as data: what the interval verifier proved, in a form a second arithmetic can re-check.

A certificate of a step ``lhs <= rhs`` on its whole hypothesis domain (one per case of a Max split) holds:

- the step (``lhs``, ``rhs`` in the statement's parameters) and ``sub``: how each parameter is written in the
  certificate's coordinates (the change of variables ``alpha = alpha_ratio Max(...)``, ``B = b + B_offset`` and
  the case ``d2 = d1 / w`` of a Max);
- ``form``: the label of the form tried (``lhs/rhs <= 1``, ``log rhs - log lhs >= 0``, ``rhs - lhs >= 0``, ...),
  ``expr`` the form's SymPy expression in the coordinates and ``test`` what its enclosure must show
  (``upper <= 1`` or ``lower >= 0``);
- ``coords``: the compact coordinates: a bounded one is the parameter itself on ``[lo, hi]``; one bounded below only
  is ``v = lo + t/(1 - t)`` with ``t`` in ``[0, 1]`` (``t = 1`` is the point at infinity); ``above`` names the
  symbol that stands for ``v - lo`` in ``expr`` when the form uses one;
- ``params``: the declared domain (``bounds.core.Param``) the certificate claims; the re-check checks that the
  coordinates and ``sub`` cover it (each case of a Max split covering one ordering, both cases present);
- ``cover``: the boxes of the final bisection (compact coordinates, exact binary fractions) and the enclosure the
  verifier found on each; a box closed by the monotonicity test also records the coordinate, the face and the
  enclosure of the partial derivative (the enclosure is then the form's on that face).

This module holds data only (no arithmetic), so that ``bounds.prove.recheck`` can read it without importing the verifier.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

INF = float("inf")


@dataclass(frozen=True)
class Coord:
    symbol: sp.Symbol
    lo: Fraction
    hi: Fraction | None  # None: [lo, oo), compactified as v = lo + t/(1 - t), t in [0, 1]
    above: sp.Symbol | None = None  # the symbol standing for v - lo in the form, if it uses one


@dataclass(frozen=True)
class Leaf:
    box: tuple  # ((a, b), ...) per coordinate, Fractions in compact coordinates
    enclosure: tuple  # (lo, hi): Fractions, or -INF / INF; of the form on the box, or on the face if monotone
    monotone: tuple | None = None  # (k, "lo" | "hi", (dlo, dhi)): derivative sign in coordinate k, face used


@dataclass(frozen=True)
class Certificate:
    lhs: sp.Expr
    rhs: sp.Expr
    sub: tuple  # ((parameter symbol, expression in the coordinates), ...)
    form: str
    expr: sp.Expr
    test: str
    coords: tuple  # (Coord, ...)
    cover: tuple  # (Leaf, ...)
    params: tuple = ()  # the declared domain (bounds.core.Param of each parameter) the cover must cover
    defined: bool = False  # both sides proved defined on the domain: a derivative may be unbounded at its other end

    def describe(self) -> str:
        return f"{self.form} on {len(self.cover)} box(es) of {len(self.coords)} coordinate(s)"
