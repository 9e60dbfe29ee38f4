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

# Sharper bounds for the small arguments of Theorem 14's block step (its readings): chords of the convex exp
# (so the endpoint x0 decides; the box is [x0/2, x0]).
EXP_CHORD_32 = Fact("exp(x)-1 <= (51/50)x on [0,1/32]", sp.exp(x) - 1, sp.Rational(51, 50) * x,
                    Param("x", lo=(0,), hi=(sp.Rational(1, 32),), box=(sp.Rational(1, 64), sp.Rational(1, 32)), log=True),
                    "convexity: exp(x)-1 <= x (exp(1/32)-1)/(1/32) = 1.0158 x <= 1.02 x on [0, 1/32]")
EXP_CHORD_16 = Fact("exp(x)-1 <= (26/25)x on [0,1/16]", sp.exp(x) - 1, sp.Rational(26, 25) * x,
                    Param("x", lo=(0,), hi=(sp.Rational(1, 16),), box=(sp.Rational(1, 32), sp.Rational(1, 16)), log=True),
                    "convexity: exp(x)-1 <= x (exp(1/16)-1)/(1/16) = 1.0319 x <= 1.04 x on [0, 1/16]")

# Theorem 10's product of per-layer factors: prod_l (1 + t) = exp(L log(1 + t)) <= exp(L t)
LOG_LINEAR = Fact("log(1+x) <= x for x >= 0", sp.log(1 + x), x, Param("x", lo=(0,), box=(2**-30, 64), log=True),
                  "concavity of log: the tangent at 1")

# The tangent of exp at 0; not cited by an encoded proof (so not in SCALAR): Theorem 10 with C doubled uses it
# (``bounds.prove.theorem10_alpha``), each use verified as the fact on its domain plus its argument's range.
EXP_TANGENT = Fact("x <= exp(x)-1 for x >= 0", x, sp.exp(x) - 1, Param("x", lo=(0,), box=(2**-30, 64), log=True),
                   "convexity of exp: the tangent at 0")

SCALAR = (EXP_LINEAR, EXP_RATIO, EXP_CHORD_32, EXP_CHORD_16, LOG_LINEAR)

STRUCTURAL = {
    "triangle": "||a + b|| <= ||a|| + ||b||",
    "operator norm": "||x A|| <= ||x|| ||A||",
    "max-entry norm": "||v|| <= sqrt(d) ||v||_max for v in R^d; ||M|| <= sqrt(m n) ||M||_max for M in R^{m x n}",
    "convex combination": "||p X|| <= max_k ||x_k|| for a probability vector p",
    "union bound": "P(any of A_1..A_k fails) <= sum_i P(A_i fails)",
    "1-Lipschitz ReLU net": "a ReLU net with spectral norms <= 1 is 1-Lipschitz",
    "ReLU decomposition": "x = ReLU(x) - ReLU(-x) and ||ReLU(x)||^2 + ||ReLU(-x)||^2 = ||x||^2",
    "positive homogeneity": "a bias-free ReLU net F satisfies F(c x) = c F(x) for c >= 0, so a bound on the unit "
                            "ball scales with the input norm",
}
