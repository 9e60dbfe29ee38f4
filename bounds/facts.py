"""Named elementary facts the proofs rely on, declared once.

Scalar facts carry an inequality ``lhs <= rhs`` in the variable ``x`` on a domain and are verified
like proof steps; structural facts (norm inequalities, union bound) are cited by name.
"""
from __future__ import annotations

import sympy as sp

from .core import Fact, Param
from .symbols import x

EXP_LINEAR = Fact("exp(x)-1 <= 2x on [0,1]", sp.exp(x) - 1, 2 * x,
                  Param("x", lo=(0,), hi=(1,), box=(2**-30, 1), log=True),
                  "convexity: exp(x)-1 <= x(e-1) <= 2x on [0, 1]")
EXP_RATIO = Fact("1-exp(-x) <= exp(x)-1 for x >= 0", 1 - sp.exp(-x), sp.exp(x) - 1,
                 Param("x", lo=(0,), box=(2**-30, 64), log=True), "eq. 9 of Lemma 8's proof")

SCALAR = (EXP_LINEAR, EXP_RATIO)

STRUCTURAL = {
    "triangle": "||a + b|| <= ||a|| + ||b||",
    "operator norm": "||x A|| <= ||x|| ||A||",
    "max-entry norm": "||v|| <= sqrt(d) ||v||_max for v in R^d; ||M|| <= sqrt(m n) ||M||_max for M in R^{m x n}",
    "convex combination": "||p X|| <= max_k ||x_k|| for a probability vector p",
    "union bound": "P(any of A_1..A_k fails) <= sum_i P(A_i fails)",
    "1-Lipschitz ReLU net": "a ReLU net with spectral norms <= 1 is 1-Lipschitz",
}
