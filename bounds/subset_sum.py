"""Subset-sum statements: Lueker's corollary (§1), Lemma 2 (§2), Lemma 7 = Lemma 4 (§3), Theorem 10 (§6).

Lueker's corollary is the one cited result the harness does not prove (``slth proofs --axioms``); Lemma 2 and
Theorem 10 (Pensia et al. 2020) are proved from it as steps.

Theorem 10 as printed bounds the error by ``exp(alpha eps / 2) - 1`` for ``||x|| <= alpha`` with no condition on
alpha.  Its proof (Lemma 2 per layer at budget eps/(2L), scaled to the layer's input norm by positive homogeneity)
tracks ``1 + e_l`` and needs ``alpha + e_l <= alpha (1 + e_l)``, i.e. ``alpha >= 1`` (step T10b); the encoded
statement therefore assumes ``alpha >= 1`` (every use, Theorem 11's, has alpha >= 3).  For alpha < 1, T10b fails
at points the proof reaches; the proof tracking ``alpha + e_l`` gives ``alpha ((1 + eps/(2L))^L - 1)``
(``recursion_bound``), above the printed bound exactly for L >= 2 and alpha below a threshold alpha*(L, eps) < 1,
and with C doubled (``DOUBLED_C``) the printed bound follows for every alpha > 0 (``bounds.prove.theorem10_alpha``).
F_S - F_T is positively homogeneous, so the printed bound for all alpha in (0, 1) says
``sup_{||x||<=1} ||F_S(x) - F_T(x)|| <= lim (exp(alpha eps/2) - 1)/alpha = eps/2``, stronger than its own instance
at alpha = 1 (``exp(eps/2) - 1``).  Variants: ``printed`` (alpha > 0; breaks T10b with a counterexample at
alpha < 1) and ``alpha-factor`` (the homogeneous reading ``alpha (exp(eps/2) - 1)`` for every
alpha > 0, tracking ``alpha + e_l``: closes; Theorem 11 refutes nothing under it, but its B3b,
K (exp(eps/(4K)) - 1) <= exp(eps/4) - 1 for K = 3 alpha H sqrt(d1) >= 3, true by convexity, is not proved: only sampled).
"""
from __future__ import annotations

import sympy as sp

from .core import SLACK_C, Constant, Edit, Mutation, Param, Statement, Step, Variant
from .facts import LOG_LINEAR
from .premises import (D1_DIVIDES, ENTRY_BOUND, INDUCTION_LAYERS, LUEKER, LUEKER_EVERY_Z, POWER_AS_EXP, TARGET_NORMS,
                       UNIFORM_INPUTS)
from .symbols import C, L, alpha, d1, d2, e_l, eps

EPS = Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True, box=(2**-20, 1), log=True)
CONST = Param("C", lo=(0,), lo_open=True, box=(2**-8, 2**8), log=True)


def dim(name: str) -> Param:
    return Param(name, lo=(1,), integer=True, box=(1, 64), log=True)


lueker = Statement(
    name="lueker", title="Lueker's subset-sum corollary",
    numbering={"main": "Lueker (1998), Cor. 3.3", "appendix": "Pensia et al. (2020)"},
    params=(EPS, CONST),
    conclusion=eps, quantity="max_{z in [-1,1]} min_S |z - sum_{k in S} X_k|",
    widths={"n": C * sp.log(1 / eps)}, probability=1 - eps,
)

def _lemma2_proof(st, get):
    lk, c = get("lueker"), st.constants
    per = {eps: c["per_problem"]}
    return [
        Step("L2a", c["stacked_norm"], c["input_norm"], ("ReLU decomposition",),
             "x = ReLU(x) - ReLU(-x): the stacked input (ReLU(x), ReLU(-x)) has norm ||x|| <= 1; hidden unit k of "
             "block j feeds ReLU(x_j) (u_jk > 0) or ReLU(-x_j) (u_jk < 0); checks that the norm bound L2d uses for "
             "the stacked input (stacked_norm) is the bound ||x|| <= 1 (input_norm)",
             claim="stacked_norm <= input_norm: ||(ReLU(x); ReLU(-x))|| = ||x|| <= 1"),
        Step("L2b", d1 * lk.widths["n"].xreplace(per), st.widths["n"], ("lueker",),
             "n = d1 n', n' >= C log(2 d1 d2/eps) hidden units per input coordinate: Lueker per subset-sum problem "
             "at eps/(2 d1 d2) (items v_ik max(0, +-u_jk): products with a uniform component)",
             premises=LUEKER + (D1_DIVIDES,),
             claim="d1 * lueker.n(eps := per_problem) <= n: d1 blocks of n' units, each Lueker's width at eps/(2 d1 d2)"),
        Step("L2b-eps", c["per_problem"], 1, ("lueker",), "Lueker's hypothesis eps < 1 at the per-problem budget",
             claim="per_problem = eps/(2 d1 d2) <= 1"),
        Step("L2c", 2 * d1 * d2, c["problems"], ("ReLU decomposition",),
             "the construction solves one subset-sum problem per entry W_ij (|W_ij| <= ||W|| <= 1) and per half "
             "ReLU(x_j), ReLU(-x_j): the union bound and the error sum must count all of them; checks that the "
             "constant problems counts them", premises=(ENTRY_BOUND,),
             claim="(d1 d2 entries W_ij) x (2 halves ReLU(+-x_j)) <= problems"),
        Step("L2d", sp.sqrt(c["problems"]) * lk.conclusion.xreplace(per) * c["stacked_norm"], st.conclusion,
             ("lueker", "max-entry norm"),
             "||Wx - F_S(x)|| = ||[D+ D-](ReLU(x); ReLU(-x))|| <= sqrt(2 d1 d2) max |entry error| ||x||",
             premises=(LUEKER_EVERY_Z, UNIFORM_INPUTS),
             claim="sqrt(problems) * lueker.error(eps := per_problem) * stacked_norm <= eps"),
        Step("L2e", c["problems"] * (1 - lk.probability.xreplace(per)), 1 - st.probability, ("lueker", "union bound"),
             "union bound over the 2 d1 d2 subset-sum problems",
             claim="problems * lueker.failure(eps := per_problem) <= 1 - probability"),
    ]


lemma2 = Statement(
    name="lemma2", title="One ReLU layer by two pruned random layers",
    numbering={"main": "Lemma 2", "appendix": "Lemma 2 (Pensia et al. 2020)"},
    params=(dim("d1"), dim("d2"), EPS, CONST),
    conclusion=eps, quantity="sup_{||x||<=1} ||W x - (W2*M2) ReLU((W1*M1) x)||",
    widths={"n": d1 * C * sp.log(2 * d1 * d2 / eps)}, probability=1 - eps,
    constants={"per_problem": eps / (2 * d1 * d2), "problems": 2 * d1 * d2, "stacked_norm": sp.Integer(1),
               "input_norm": sp.Integer(1)},
    builder=_lemma2_proof,
    mutations=(
        Mutation("lemma2 width: log(2 d1 d2/eps) -> log(d1 d2/eps)", "widths.n", 2 * d1 * d2 / eps, d1 * d2 / eps,
                 "L2b"),
        Mutation("lemma2 per-problem budget: eps/(2 d1 d2) -> eps/(d1 d2)", "constants.per_problem",
                 sp.Rational(1, 2), 1, "L2e"),
        Mutation("lemma2 decomposition: one problem per entry (the ReLU(-x) half forgotten)", "constants.problems",
                 2 * d1 * d2, d1 * d2, "L2c"),
        Mutation("lemma2 error: eps -> eps/(d1 d2)", "conclusion", eps, eps / (d1 * d2), "L2d"),
    ),
    slack=(Constant("the 2 in n = d1 C log(2 d1 d2/eps)", ("widths.n",), 2),
           Constant("the 2 of the per-problem budget eps/(2 d1 d2)", ("constants.per_problem",), sp.Rational(1, 2),
                    tighter=+1)),
)


def _lemma7_proof(st, get):
    lk = get("lueker")
    per_entry = {eps: eps / (d1 * d2)}
    return [
        Step("L7a", d1 * lk.widths["n"].xreplace(per_entry), st.widths["n"], ("lueker",),
             "n = d1 n' with n' >= C log(d1 d2/eps): Lueker per entry at eps/(d1 d2)",
             premises=LUEKER + (D1_DIVIDES,), claim="d1 * lueker.n(eps := eps/(d1 d2)) <= n"),
        Step("L7b", lk.conclusion.xreplace(per_entry), st.conclusion, ("lueker",),
             "each entry is one subset sum of products v_ijk u_jk with error <= eps/(d1 d2)",
             premises=(LUEKER_EVERY_Z, ENTRY_BOUND), claim="lueker.error(eps := eps/(d1 d2)) <= error bound"),
        Step("L7c", d1 * d2 * (1 - lk.probability.xreplace(per_entry)), 1 - st.probability,
             ("lueker", "union bound"), "union bound over the d1 d2 entries",
             claim="d1 d2 * lueker.failure(eps := eps/(d1 d2)) <= 1 - probability"),
    ]


lemma7 = Statement(
    name="lemma7", title="Two random matrices for one, no activation",
    numbering={"main": "Lemma 4", "appendix": "Lemma 7"},
    params=(dim("d1"), dim("d2"), EPS, CONST),
    conclusion=eps / (d1 * d2), quantity="||W - (W2*M2)(W1*M1)||_max",
    widths={"n": d1 * C * sp.log(d1 * d2 / eps)}, probability=1 - eps, builder=_lemma7_proof,
    mutations=(
        Mutation("lemma7 width: log(d1 d2/eps) -> log(d1/eps)", "widths.n", d1 * d2 / eps, d1 / eps, "L7a"),
        Mutation("lemma7 error: eps/(d1 d2) -> eps/(d1 d2^2)", "conclusion", d2, d2**2, "L7b"),
    ),
    slack=(Constant("the factor of d1 d2 inside the logarithm of n = d1 C log(d1 d2/eps)", ("widths.n",), 1,
                    old=d1 * d2 / eps, template=SLACK_C * d1 * d2 / eps),),
)

ERR = Param("e_l", lo=(0,), box=(2**-30, 64), log=True)


def layer_growth(st, get, scale=None) -> tuple:
    """(Lemma 2's unit-ball error at Theorem 10's layer budget, the per-layer growth factor) of the proof that
    tracks ``scale + e_l`` (default: the statement's constant ``scale``)."""
    scale = st.constants["scale"] if scale is None else scale
    rel = get("lemma2").conclusion.xreplace({eps: st.constants["budget"]})
    return rel, alpha * rel / scale


def recursion_bound(st, get) -> sp.Expr:
    """The error bound the layer recursion of Theorem 10's proof delivers before any bound on the product:
    ``e_(L+1) <= alpha ((1 + growth)^L - 1)`` with the homogeneous tracking ``alpha + e_l`` (valid for every
    alpha > 0: target layers are 1-Lipschitz and ``e_1 = 0``)."""
    _, growth = layer_growth(st, get, alpha)
    return alpha * ((1 + growth)**L - 1)


def _theorem10_proof(st, get):
    l2, c = get("lemma2"), st.constants
    layer = {eps: c["budget"]}
    scale = c["scale"]  # the proof tracks scale + e_l: 1 (alpha >= 1) or alpha (the homogeneous reading)
    rel, growth = layer_growth(st, get)  # each layer multiplies scale + e_l by at most 1 + growth
    return [
        Step("T10a", l2.widths["n"].xreplace({d1: d1, d2: d2, **layer}), st.widths["n_l"], ("lemma2",),
             "layer l: Lemma 2 with (d1, d2) = (d_l, d_{l+1}) at budget eps/(2L) needs at most n_l",
             premises=(INDUCTION_LAYERS,), claim="lemma2.n(eps := budget) <= n_l"),
        Step("T10a-eps", c["budget"], 1, ("lemma2",), "Lemma 2's hypothesis eps < 1 at the layer budget",
             claim="budget = eps/(2L) <= 1"),
        Step("T10b", (alpha + e_l) * rel, (scale + e_l) * growth, ("lemma2", "positive homogeneity",
                                                                   "1-Lipschitz ReLU net", "triangle"),
             "layer l's pruned pair errs by <= ||x'_l|| eps/(2L) on its input x'_l, ||x'_l|| <= ||x_l|| + e_l <= "
             "alpha + e_l (target layers 1-Lipschitz with ReLU(0) = 0); <= (scale + e_l) times the growth",
             params=(ERR,), premises=(INDUCTION_LAYERS, UNIFORM_INPUTS, TARGET_NORMS),
             claim="(alpha + e_l) * lemma2.error(eps := budget) <= (scale + e_l) * growth"),
        Step("T10c", e_l + (scale + e_l) * growth, (scale + e_l) * (1 + growth) - scale,
             ("triangle", "1-Lipschitz ReLU net"),
             "e_(l+1) <= ||W_l (x'_l - x_l)|| + layer error <= e_l + layer error: scale + e_(l+1) <= (1 + growth) "
             "(scale + e_l), so with e_1 = 0, e_(L+1) <= scale ((1 + growth)^L - 1)", params=(ERR,),
             premises=(INDUCTION_LAYERS, TARGET_NORMS),
             claim="e_l + (scale + e_l) growth <= (scale + e_l)(1 + growth) - scale"),
        Step("T10d", L * sp.log(1 + growth), L * growth, (LOG_LINEAR.name,),
             "prod over the L layers: (1 + growth)^L = exp(L log(1 + growth)) <= exp(L growth)",
             premises=(INDUCTION_LAYERS, POWER_AS_EXP), claim="L log(1 + growth) <= L growth"),
        Step("T10e", scale * (sp.exp(L * growth) - 1), st.conclusion, (),
             "e_(L+1) <= scale (exp(L growth) - 1) = exp(alpha eps/2) - 1: an identity by the definition of growth "
             "(alpha eps/(2L) per layer when scale = 1)", premises=(POWER_AS_EXP,),
             claim="scale (exp(L growth) - 1) <= conclusion"),
        Step("T10f", L * (1 - l2.probability.xreplace(layer)), 1 - st.probability, ("lemma2", "union bound"),
             "union bound over the L layers: L eps/(2L) <= eps",
             claim="L * lemma2.failure(eps := budget) <= 1 - probability"),
    ]


ALPHA10 = Param("alpha", lo=(1,), box=(1, 64), log=True)
_PRINTED_ALPHA = (Edit("theorem10", "params.alpha.lo", 1, 0), Edit("theorem10", "params.alpha.lo_open", False, True),
                  Edit("theorem10", "params.alpha.box", 1, sp.Rational(1, 64)))  # the box reaches below alpha = 1

# The printed statement (alpha > 0) with the universal constant doubled: the width d_l (2C) log(4 L d_l d_(l+1)/eps)
# covers Lemma 2 at the halved layer budget eps/(4L), and the proof tracking alpha + e_l then gives
# alpha (exp(eps/4) - 1) <= alpha eps/2 <= exp(alpha eps/2) - 1 for every alpha > 0.
DOUBLED_C = _PRINTED_ALPHA + (Edit("theorem10", "widths.n_l", C, 2 * C),
                              Edit("theorem10", "constants.budget", sp.Rational(1, 2), sp.Rational(1, 4)),
                              Edit("theorem10", "constants.scale", 1, alpha))

theorem10 = Statement(
    name="theorem10", title="Deep ReLU networks (Pensia et al. 2020, Theorem 1)",
    numbering={"main": "Theorem 1 of Pensia et al. (2020)", "appendix": "Theorem 10"},
    params=(dim("d1"), dim("d2"), dim("L"), EPS, ALPHA10, CONST),
    conclusion=sp.exp(alpha * eps / 2) - 1, quantity="sup_{||x||<=alpha} ||F_S(x) - F_T(x)||",
    widths={"n_l": d1 * C * sp.log(4 * L * d1 * d2 / eps)}, probability=1 - eps,
    constants={"budget": eps / (2 * L), "scale": sp.Integer(1)},
    builder=_theorem10_proof,
    variants={
        "printed": Variant(
            "printed", "as printed: exp(alpha eps/2) - 1 for ||x|| <= alpha with any alpha > 0; for alpha < 1 step "
            "T10b of the written proof fails, and the bound the proof gives exceeds the printed one for L >= 2 and "
            "alpha below a threshold alpha*(L, eps) < 1",
            _PRINTED_ALPHA, (("theorem10", "T10b"),)),
        "alpha-factor": Variant(
            "alpha-factor", "the homogeneous reading alpha (exp(eps/2) - 1) for any alpha > 0 (the proof tracking "
            "alpha + e_l); Theorem 11's B3b then reads a (exp(x/a) - 1) <= exp(x) - 1 with a = 3 alpha H sqrt(d1) "
            ">= 3 (its FC input norm), true by convexity (the verdict of each step: beside this reading)",
            _PRINTED_ALPHA + (Edit("theorem10", "conclusion", sp.exp(alpha * eps / 2) - 1,
                                   alpha * (sp.exp(eps / 2) - 1)),
                              Edit("theorem10", "constants.scale", 1, alpha)), ()),
    },
    mutations=(
        Mutation("theorem10 error: exp(alpha eps/2) -> exp(alpha eps)", "conclusion", sp.Rational(1, 2), 1,
                 "B3b", by="theorem11"),
        Mutation("theorem10 width: 4 L d1 d2 -> 2 L d1 d2 in the log", "widths.n_l", 4, 2, "T10a"),
        Mutation("theorem10 layer budget: eps/(2L) -> eps/L", "constants.budget", sp.Rational(1, 2), 1, "T10e"),
        Mutation("theorem10 tracked scale: 1 -> 1/2 (||x'_l|| <= alpha/2 + e_l)", "constants.scale", 1,
                 sp.Rational(1, 2), "T10e"),
    ),
    slack=(Constant("the 4 in n_l = d_l C log(4 L d_l d_(l+1)/eps)", ("widths.n_l",), 4),
           Constant("the 2 of the layer budget eps/(2L) handed to Lemma 2", ("constants.budget",), sp.Rational(1, 2),
                    tighter=+1)),
    notes="Per layer l: pass d1 = d_l and d2 = d_{l+1}.  alpha >= 1: see the module docstring (the printed "
          "statement has alpha > 0; variant 'printed').",
)


#: The statements this module declares, each with its place in the paper's order (``bounds.catalogue``).
DECLARED = ((10, lueker), (20, lemma2), (30, lemma7), (70, theorem10))
