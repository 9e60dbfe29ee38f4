"""The non-arithmetic premises of the proof steps, each named once.

A ``Premise`` is a hypothesis, a quantifier or an argument of the written proofs that no step checks and no fact
states: an assumption on the random items of Lueker's corollary, the order of its quantifiers, a bound on the
target's entries, an identity of the softmax, an induction, a rounding.  A step names the premises it rests on
(``Step.premises``); ``slth proofs --axioms`` lists them per statement with the steps that cite them
(``bounds.prove.axioms``), next to the cited statements and the facts of ``bounds.facts``.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Premise:
    """A named premise: ``says`` what is assumed, ``role`` where the proof uses it."""

    name: str
    says: str
    role: str = ""


LUEKER_ITEMS = Premise(
    "Lueker's item distribution",
    "the random items contain a uniform component: their law has a density bounded below on an interval around 0 "
    "(products v u of uniform weights, and the half-rectified products v max(0, +-u) with an atom at 0, qualify)",
    "the hypothesis under which Lueker's corollary holds; the constant C depends on it")
LUEKER_EVERY_Z = Premise(
    "Lueker for every z at once",
    "with probability >= 1 - eps, EVERY target z in [-1, 1] is approximated by a subset sum (one event for all z, "
    "not one per z)",
    "one draw of the random weights serves every entry of the target and every input")
ENTRY_BOUND = Premise(
    "|W_ij| <= ||W||",
    "every entry of a target matrix lies in [-1, 1]: |W_ij| <= ||W|| <= 1",
    "each entry is a target z in Lueker's range [-1, 1]")
SOFTMAX_Z = Premise(
    "softmax perturbation identity",
    "for ||e||_max <= eps_max, Z = sum_k p_k exp(e_k) lies in [exp(-eps_max), exp(eps_max)], and the perturbed "
    "softmax is p'_j = p_j exp(e_j) / Z",
    "Lemma 8's eq. (9): exp(e_j)/Z lies in [exp(-2 eps_max), exp(2 eps_max)]")
HOELDER = Premise(
    "Hoelder step",
    "|sum_k (p_k - p'_k) X_kj| <= max_k |X_kj| sum_k |p_k - p'_k| (l1 against l-infinity, entry by entry)",
    "Lemma 8: ||pX - p'X||_max <= alpha sum_k p_k |1 - exp(e_k)/Z|")
INDUCTION_LAYERS = Premise(
    "induction over layers",
    "the per-layer recursion e_(l+1) <= e_l + (layer error at input norm <= ||x_l|| + e_l), with e_1 = 0, applied "
    "for l = 1, ..., L",
    "Theorem 10 composes the L layers; the steps check one layer")
INDUCTION_BLOCKS = Premise(
    "induction over blocks",
    "the per-block recursion (accumulated error delta_b entering block b, input norm beta_b = alpha K^(b-1)) applied "
    "for b = 1, ..., B",
    "Theorem 14 composes the B blocks; the steps check block 1 and one block b >= 2")
UNIFORM_INPUTS = Premise(
    "uniformity over inputs",
    "the pruned network's error bound holds for every input in the ball (every token x_i) on one event of the random "
    "weights, not input by input",
    "a sup or max over inputs is bounded by the per-input bound without a further union bound")
D1_DIVIDES = Premise(
    "n = d1 n' when d1 does not divide n",
    "the hidden width n is split into d1 blocks of n' = floor(n/d1) units (the n - d1 n' remaining units pruned); "
    "the width requirement d1 C log(...) is read as n' >= C log(...) per block, which rounding down can miss by "
    "less than one unit when d1 does not divide n",
    "the widths n = d1 n' of Lemma 2 and Lemma 7")
LEMMA12_X_PRIME = Premise(
    "Lemma 12's ||x'_i|| <= alpha",
    "the perturbed inputs satisfy ||x'_i|| <= alpha as well as ||x_i|| <= alpha (the printed lemma assumes only the "
    "latter; variant lemma12:printed)",
    "the logit step |x_i W x_k - x'_i W x'_k| <= 2 alpha eps_max")
TARGET_NORMS = Premise(
    "target weights of norm <= 1",
    "every target weight matrix has spectral norm <= 1 (||W_Q||, ||W_K||, ||W_V||, ||W_O|| and the FC layers')",
    "the Lipschitz and norm bounds of the target network")
PROOF_SCHEDULE = Premise(
    "the proof's error and probability schedule",
    "the budgets eps_b, the accumulated errors delta_b and the input norms beta_b are the expressions the proof "
    "defines (Theorem 14's recursion)",
    "the bookkeeping of Theorem 14's union bound")

MERGED_TARGETS = Premise(
    "merged attention targets",
    "each head's query and key (value and output) matrices act only through their product: the target is "
    "W_QK = W_Q W_K^T / sqrt(d_K) (d1 x d1) and W_VO = W_V W_O (d1 x d2), and the pruned source pair's product "
    "(M_Q W~_Q)(M_K W~_K)^T / sqrt(d_K) (resp. (M_V W~_V)(M_O W~_O)) is the two-matrix product Lemma 7 prunes",
    "Theorem 9 applies Lemma 7 once per merged pair (S2a on W_QK, S2d on W_VO)")
RESCALED_SOURCES = Premise(
    "rescaled sources in U[-1, 1]",
    "after moving the fixed scale 1/sqrt(d_K) of the source pair onto the target (sqrt(d_K) W_QK, whose entries still "
    "lie in [-1, 1] since ||W_QK|| <= 1/sqrt(d_K)), the random source matrices have i.i.d. U[-1, 1] entries, the law "
    "Lemma 7 assumes; the target's entries lie in [-1, 1]",
    "the hypotheses of Lemma 7 in Theorem 9's S2a and S2d")
POWER_AS_EXP = Premise(
    "(1 + g)^L = exp(L log(1 + g)) and exp increasing",
    "for g > -1, (1 + g)^L = exp(L log(1 + g)), and exp is increasing, so L log(1 + g) <= L g gives "
    "(1 + g)^L <= exp(L g)",
    "the glue from Theorem 10's T10c recursion ((1 + growth)^L) through T10d to T10e's exp(L growth)")

ALL = (LUEKER_ITEMS, LUEKER_EVERY_Z, ENTRY_BOUND, SOFTMAX_Z, HOELDER, INDUCTION_LAYERS, INDUCTION_BLOCKS,
       UNIFORM_INPUTS, D1_DIVIDES, LEMMA12_X_PRIME, TARGET_NORMS, PROOF_SCHEDULE, MERGED_TARGETS, RESCALED_SOURCES,
       POWER_AS_EXP)
BY_NAME = {p.name: p for p in ALL}
LUEKER = (LUEKER_ITEMS, LUEKER_EVERY_Z, ENTRY_BOUND)
"""What every application of Lueker's corollary rests on besides the corollary itself."""
