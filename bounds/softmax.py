"""Softmax perturbation, independent of the length T: Lemma 8 (appendix) and Lemma 5 (main text), §4."""
from __future__ import annotations

import sympy as sp

from .core import TYPESET, SLACK_C, Constant, Edit, Mutation, Param, Statement, Step, Variant
from .facts import EXP_LINEAR, EXP_RATIO
from .premises import HOELDER, SOFTMAX_Z
from .subset_sum import dim
from .symbols import T, alpha, d1, eps_max, x

ALPHA_ROWS = Param("alpha", lo=(0,), lo_open=True, box=(2**-6, 2**6), log=True)
EPS_MAX = Param("eps_max", lo=(0,), box=(2**-20, 2**3), log=True)
LENGTH = Param("T", lo=(1,), integer=True, box=(1, 4096))


def _lemma8_proof(st, get):
    ratio = st.constants["ratio"]
    return [
        Step("L8a", EXP_RATIO.lhs.xreplace({x: 2 * eps_max}), ratio, (EXP_RATIO.name,),
             "eq. (9): exp(e_j)/Z lies in [exp(-2 eps_max), exp(2 eps_max)], so |1 - exp(e_j)/Z| <= exp(2 eps_max)-1",
             premises=(SOFTMAX_Z,), claim="1 - exp(-2 eps_max) <= ratio = exp(2 eps_max) - 1"),
        Step("L8b", sp.sqrt(d1) * alpha * ratio, st.conclusion, ("max-entry norm", "convex combination"),
             "||pX - p'X|| <= sqrt(d1) ||pX - p'X||_max <= sqrt(d1) alpha sum_k p_k |1 - exp(e_k)/Z|",
             premises=(SOFTMAX_Z, HOELDER), claim="sqrt(d1) alpha ratio <= conclusion"),
    ]


lemma8 = Statement(
    name="lemma8", title="Softmax perturbation (length-independent)",
    numbering={"main": "Lemma 5 (general form)", "appendix": "Lemma 8"},
    params=(dim("d1"), ALPHA_ROWS, EPS_MAX, LENGTH),
    conclusion=sp.sqrt(d1) * alpha * (sp.exp(2 * eps_max) - 1),
    quantity="||sigma(z;a) X - sigma(z+e;a) X|| for ||e||_max <= eps_max, rows of X of norm <= alpha",
    constants={"ratio": sp.exp(2 * eps_max) - 1},
    terms={"lipschitz": (sp.exp(2 * eps_max) - 1) * sp.sqrt(T) * alpha},
    builder=_lemma8_proof,
    mutations=(
        Mutation("lemma8: sqrt(d1) -> d1", "conclusion", sp.sqrt(d1), d1, "S2c-ii", by="theorem9"),
        Mutation("lemma8: exp(2 eps_max) -> exp(eps_max)", "conclusion", 2 * eps_max, eps_max, "L8b"),
    ),
    slack=(Constant("the 2 in exp(2 eps_max) - 1", ("conclusion", "constants.ratio"), 2, old=2 * eps_max,
                    template=SLACK_C * eps_max),),
    variants={"d1": Variant(
        "d1", TYPESET + ": d1 instead of sqrt(d1) (the radical was lost)",
        (Edit("lemma8", "conclusion", sp.sqrt(d1), d1),), (("lemma5", "L5b"), ("theorem9", "S2c-ii"), ("lemma12", "L12b")))},
    notes="terms['lipschitz'] = ||p-p'||_2 ||X|| <= (exp(2 eps_max)-1) sqrt(T) alpha: the Lipschitz-through-||X|| "
          "bound, which grows like sqrt(T) while the lemma's bound does not depend on T.",
)


def _lemma5_proof(st, get):
    l8 = get("lemma8").conclusion
    return [
        Step("L5a", l8, EXP_LINEAR.apply(l8), ("lemma8", EXP_LINEAR.name), "x = 2 eps_max in [0, 1]",
             claim="lemma8.conclusion <= lemma8.conclusion with exp(x) - 1 -> 2x"),
        Step("L5b", EXP_LINEAR.apply(l8), st.conclusion, ("lemma8",),
             "Lemma 8's bound with exp(2 eps_max) - 1 <= 4 eps_max is the statement's bound",
             claim="lemma8.conclusion with exp(x) - 1 -> 2x <= conclusion"),
    ]


lemma5 = Statement(
    name="lemma5", title="Softmax perturbation, linear form",
    numbering={"main": "Lemma 5", "appendix": "Lemma 8 with eps_max <= 1/2"},
    params=(dim("d1"), ALPHA_ROWS, Param("eps_max", lo=(0,), hi=(sp.Rational(1, 2),), box=(2**-20, 0.5), log=True)),
    conclusion=4 * sp.sqrt(d1) * alpha * eps_max,
    quantity=lemma8.quantity, builder=_lemma5_proof,
    mutations=(Mutation("lemma5: 4 -> 2", "conclusion", 4, 2, "L5b"),),
    slack=(Constant("the 4 in 4 sqrt(d1) alpha eps_max", ("conclusion",), 4),),
)


#: The statements this module declares, each with its place in the paper's order (``bounds.catalogue``).
DECLARED = ((40, lemma8), (50, lemma5))
