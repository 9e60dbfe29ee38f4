"""Lipschitz bounds of a TARGET MHA (Lemma 12) and block (Lemma 13) under input perturbation, §8.

Supported forms: Lemma 12 assumes ||x_i|| <= alpha AND ||x'_i|| <= alpha (its logit step needs both);
Lemma 13 carries the factor 2 its proof ends with.  The printed forms are variants; so is ``perturbed``
(``PERTURBED``): only ||x_i|| <= alpha assumed, the logit step redone with ||x'_i|| <= alpha + eps_max.
"""
from __future__ import annotations

import sympy as sp

from .core import TYPESET, Constant, Edit, Mutation, Param, Statement, Step, Variant
from .premises import LEMMA12_X_PRIME, TARGET_NORMS, UNIFORM_INPUTS
from .subset_sum import dim
from .symbols import H, alpha, d1, eps_max

ALPHA1 = Param("alpha", lo=(sp.sqrt(d1),), box=(1, 64), log=True)
EPS_MAX1 = Param("eps_max", lo=(0,), box=(2**-24, 1), log=True)


def _lemma12_proof(st, get):
    l8, c = get("lemma8"), st.constants
    return [
        Step("L12a", eps_max * alpha + c["alpha_prime"] * eps_max, c["logit"], ("operator norm", "triangle"),
             "|x_i W x_k - x'_i W x'_k| <= ||x_i - x'_i|| ||x_k|| + ||x'_i|| ||x_k - x'_k|| with ||W_QK|| <= 1",
             premises=(LEMMA12_X_PRIME, TARGET_NORMS),
             claim="eps_max alpha + alpha_prime eps_max <= logit (alpha_prime: the bound on ||x'_i||)"),
        Step("L12b", H * (l8.conclusion.xreplace({eps_max: c["logit"]}) + eps_max), st.conclusion,
             ("lemma8", "convex combination", "operator norm", "triangle"),
             "per head ||(p-p')X|| (Lemma 8) + ||p'(X-X')|| <= eps_max, times ||W_VO|| <= 1, summed over H heads",
             premises=(TARGET_NORMS, UNIFORM_INPUTS),
             claim="H (lemma8.conclusion(eps_max := logit) + eps_max) <= conclusion"),
    ]


_L12 = H * sp.sqrt(d1) * (alpha * (sp.exp(4 * alpha * eps_max) - 1) + eps_max)
_EXP = sp.exp(4 * alpha * eps_max)
_EXP_PERTURBED = sp.exp(4 * alpha * eps_max + 2 * eps_max**2)
# Lemma 12 with only ||x_i|| <= alpha assumed: ||x'_i|| <= alpha + eps_max, so the logits move by at most
# eps_max alpha + (alpha + eps_max) eps_max = 2 alpha eps_max + eps_max^2; Lemma 13 (built on it) follows.
PERTURBED = (Edit("lemma12", "constants.alpha_prime", alpha, alpha + eps_max),
             Edit("lemma12", "constants.logit", 2 * alpha * eps_max, 2 * alpha * eps_max + eps_max**2),
             Edit("lemma12", "conclusion", _EXP, _EXP_PERTURBED),
             Edit("lemma13", "conclusion", _EXP, _EXP_PERTURBED),
             Edit("lemma13", "constants.last_line", _EXP, _EXP_PERTURBED))
lemma12 = Statement(
    name="lemma12", title="Perturbation bound of a target MHA",
    numbering={"main": "(appendix only)", "appendix": "Lemma 12"},
    params=(dim("d1"), dim("H"), ALPHA1, EPS_MAX1),
    conclusion=_L12, quantity="||Attn_T(x_i) - Attn_T(x'_i)|| for max_i ||x_i - x'_i|| <= eps_max, ||x_i||, ||x'_i|| <= alpha",
    constants={"alpha_prime": alpha, "logit": 2 * alpha * eps_max},
    builder=_lemma12_proof,
    mutations=(Mutation("lemma12: exp(4 alpha eps_max) -> exp(2 alpha eps_max)", "conclusion", 4, 2, "L12b"),),
    slack=(Constant("the 4 in exp(4 alpha eps_max)", ("conclusion",), 4),),
    variants={"printed": Variant(
        "printed", "as printed: only ||x_i|| <= alpha, so the perturbed input may reach ||x'_i|| <= alpha + eps_max",
        (Edit("lemma12", "constants.alpha_prime", alpha, alpha + eps_max),), (("lemma12", "L12a"),)),
        "perturbed": Variant(
            "perturbed", "only ||x_i|| <= alpha assumed, the logit step redone with ||x'_i|| <= alpha + eps_max: "
            "H sqrt(d1)(alpha(exp(4 alpha eps_max + 2 eps_max^2) - 1) + eps_max), and Lemma 13 from it "
            "(a valid reading: it breaks no step)", PERTURBED, ()),
        "d1": Variant("d1", TYPESET + ": H d1 instead of H sqrt(d1)",
                      (Edit("lemma12", "conclusion", sp.sqrt(d1), d1),), (("lemma13", "L13a"),))},
)


def _lemma13_proof(st, get):
    l12, c = get("lemma12"), st.constants
    return [
        Step("L13a", 2 * (l12.conclusion + eps_max), c["last_line"], ("lemma12", "triangle", "1-Lipschitz ReLU net"),
             "||Blk(x)-Blk(x')|| <= ||F(y)-F(y')|| + ||y-y'|| <= 2(||Attn(x)-Attn(x')|| + eps_max), eps_max <= H sqrt(d1) eps_max",
             premises=(TARGET_NORMS,), claim="2 (lemma12.conclusion + eps_max) <= last_line"),
        Step("L13b", c["last_line"], st.conclusion, (), "the statement's bound is the proof's last line",
             claim="last_line <= conclusion"),
    ]


_L13 = 2 * H * sp.sqrt(d1) * (alpha * (sp.exp(4 * alpha * eps_max) - 1) + 2 * eps_max)
lemma13 = Statement(
    name="lemma13", title="Perturbation bound of a target transformer block",
    numbering={"main": "(appendix only)", "appendix": "Lemma 13"},
    params=(dim("d1"), dim("H"), ALPHA1, EPS_MAX1),
    conclusion=_L13, quantity="||Blk_T(x_i) - Blk_T(x'_i)|| for max_i ||x_i - x'_i|| <= eps_max, ||x_i||, ||x'_i|| <= alpha",
    constants={"last_line": _L13},
    builder=_lemma13_proof,
    mutations=(Mutation("lemma13: drop the factor 2 in the proof's last line", "constants.last_line", _L13, _L13 / 2,
                        "L13a"),),
    slack=(Constant("the factor 2 of the proof's last line 2 H sqrt(d1)(...)", ("conclusion", "constants.last_line"),
                    2),),
    variants={"printed": Variant(
        "printed", "as printed: H sqrt(d1)(alpha(exp(4 alpha eps_max) - 1) + 2 eps_max), without the proof's factor 2",
        (Edit("lemma13", "conclusion", _L13, _L13 / 2),), (("lemma13", "L13b"),)),
        "d1": Variant("d1", TYPESET + ": H d1 instead of H sqrt(d1)",
                      (Edit("lemma13", "conclusion", sp.sqrt(d1), d1),), (("theorem14", "T14d-ii"),))},
)


#: The statements this module declares, each with its place in the paper's order (``bounds.catalogue``).
DECLARED = ((90, lemma12), (100, lemma13))
