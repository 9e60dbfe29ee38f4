"""The symbols shared by every statement (docs/statements.md#objects), with SymPy assumptions.

Parameter names (the keywords of ``Statement.evaluate``/``width``/``term``) map to these symbols
through ``PARAMETER``; symbol names are chosen so that MathML prints them as the paper does
(``d1`` -> d with subscript 1, ``epsilon_max`` -> ε with subscript max).
"""
from __future__ import annotations

import sympy as sp

d1 = sp.Symbol("d1", positive=True, integer=True)
d2 = sp.Symbol("d2", positive=True, integer=True)
dK = sp.Symbol("d_K", positive=True, integer=True)
H = sp.Symbol("H", positive=True, integer=True)
L = sp.Symbol("L", positive=True, integer=True)
B = sp.Symbol("B", positive=True, integer=True)
b = sp.Symbol("b", positive=True, integer=True)
T = sp.Symbol("T", positive=True, integer=True)
eps = sp.Symbol("epsilon", positive=True)
eps_max = sp.Symbol("epsilon_max", nonnegative=True)
alpha = sp.Symbol("alpha", positive=True)
C = sp.Symbol("C", positive=True)
dQK_max = sp.Symbol("Delta_QK", nonnegative=True)
dVO_max = sp.Symbol("Delta_VO", nonnegative=True)
kappa = sp.Symbol("kappa", positive=True)
x = sp.Symbol("x", nonnegative=True)
e_l = sp.Symbol("e_l", nonnegative=True)  # Theorem 10's proof: the error entering layer l

PARAMETER = {
    "d1": d1, "d2": d2, "d_K": dK, "H": H, "L": L, "B": B, "b": b, "T": T, "eps": eps,
    "eps_max": eps_max, "alpha": alpha, "C": C, "dQK_max": dQK_max, "dVO_max": dVO_max, "x": x,
    "e_l": e_l,
}
NAME = {s: n for n, s in PARAMETER.items()}


def text(expr) -> str:
    """Plain-text form of ``expr`` written with parameter names (for labels and messages)."""
    return sp.sstr(sp.sympify(expr).xreplace({s: sp.Symbol(n) for s, n in NAME.items()}))
