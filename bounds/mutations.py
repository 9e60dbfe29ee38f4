"""The mutation suite: deliberate edits of constants and exponents in the encoded statements and proof
constants, each with the step expected to catch it.  ``run(m)`` applies one edit to a copy of the catalogue
and verifies every proof; a mutation survives when no step fails."""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .catalogue import STATEMENTS, canonical
from .core import Edit
from .symbols import H, alpha, d1, d2, eps, eps_max
from .theorem14 import F1, F3, FIRST_F1, FIRST_G1, G2
from .verify import StepResult, verify

_L13 = STATEMENTS["lemma13"].constants["last_line"]


@dataclass(frozen=True)
class Mutation:
    name: str
    edit: Edit
    caught_by: tuple  # (statement, step) expected to fail


def _m(name, statement, where, old, new, step, by=None):
    return Mutation(name, Edit(statement, where, old, new), (by or statement, step))


MUTATIONS = (
    _m("theorem9 n_K: 8 -> 4 in the log", "theorem9", "widths.n_K", 8, 4, "S2a"),
    _m("theorem9 n_K: alpha^3 -> alpha^2", "theorem9", "widths.n_K", alpha**3, alpha**2, "S2a"),
    _m("theorem9 n_V: 2 -> 1 in the log", "theorem9", "widths.n_V", 2, 1, "S2d"),
    _m("theorem9 logit bound: 8 H -> 4 H", "theorem9", "constants.logit", sp.Rational(1, 8), sp.Rational(1, 4), "S2c-ii"),
    _m("theorem9 eps_L of W_QK: 8 -> 16", "theorem9", "constants.eps_QK", sp.Rational(1, 8), sp.Rational(1, 16), "S2a"),
    _m("lemma8: sqrt(d1) -> d1", "lemma8", "conclusion", sp.sqrt(d1), d1, "S2c-ii", "theorem9"),
    _m("lemma8: exp(2 eps_max) -> exp(eps_max)", "lemma8", "conclusion", 2 * eps_max, eps_max, "L8b"),
    _m("lemma5: 4 -> 2", "lemma5", "conclusion", 4, 2, "L5b"),
    _m("lemma7 width: log(d1 d2/eps) -> log(d1/eps)", "lemma7", "widths.n", d1 * d2 / eps, d1 / eps, "L7a"),
    _m("lemma7 error: eps/(d1 d2) -> eps/(d1 d2^2)", "lemma7", "conclusion", d2, d2**2, "L7b"),
    _m("lemma2 width: log(2 d1 d2/eps) -> log(d1 d2/eps)", "lemma2", "widths.n", 2 * d1 * d2 / eps, d1 * d2 / eps,
       "L2b"),
    _m("lemma2 per-problem budget: eps/(2 d1 d2) -> eps/(d1 d2)", "lemma2", "constants.per_problem",
       sp.Rational(1, 2), 1, "L2e"),
    _m("lemma2 decomposition: one problem per entry (the ReLU(-x) half forgotten)", "lemma2", "constants.problems",
       2 * d1 * d2, d1 * d2, "L2c"),
    _m("lemma2 error: eps -> eps/(d1 d2)", "lemma2", "conclusion", eps, eps / (d1 * d2), "L2d"),
    _m("theorem10 width: 4 L d1 d2 -> 2 L d1 d2 in the log", "theorem10", "widths.n_l", 4, 2, "T10a"),
    _m("theorem10 layer budget: eps/(2L) -> eps/L", "theorem10", "constants.budget", sp.Rational(1, 2), 1, "T10e"),
    _m("theorem10 tracked scale: 1 -> 1/2 (||x'_l|| <= alpha/2 + e_l)", "theorem10", "constants.scale", 1,
       sp.Rational(1, 2), "T10e"),
    _m("theorem10 error: exp(alpha eps/2) -> exp(alpha eps)", "theorem10", "conclusion", sp.Rational(1, 2), 1,
       "B3b", "theorem11"),
    _m("theorem11 split: eps/4 -> eps/3", "theorem11", "constants.split", sp.Rational(1, 4), sp.Rational(1, 3), "B4"),
    _m("theorem11 n_MHA: 32 -> 16", "theorem11", "widths.n_MHA", 32, 16, "B1a"),
    _m("theorem11 n_FC: 24 -> 12", "theorem11", "widths.n_FC", 24, 12, "B3a"),
    _m("theorem11 FC input norm: 3 alpha H sqrt(d1) -> 2 alpha H sqrt(d1)", "theorem11", "constants.fc_in", 3, 2, "B2b"),
    _m("lemma12: exp(4 alpha eps_max) -> exp(2 alpha eps_max)", "lemma12", "conclusion", 4, 2, "L12b"),
    _m("lemma13: drop the factor 2 in the proof's last line", "lemma13", "constants.last_line", _L13, _L13 / 2, "L13a"),
    _m("theorem14 union: 1055/1984 -> 1055/2100", "theorem14", "constants.union", sp.Rational(1055, 1984),
       sp.Rational(1055, 2100), "U4"),
    _m("theorem14 geometric share: 16/31 -> 1/2", "theorem14", "constants.later_share", sp.Rational(16, 31),
       sp.Rational(1, 2), "U3"),
    _m("theorem14 kappa: 65 -> 16 (as printed)", "theorem14", "constants.kappa", 65, 16, "T14d-ii"),
    _m("theorem14 growth: 4 H sqrt(d1) -> 2 H sqrt(d1)", "theorem14", "constants.growth", 4, 2, "T14a"),
    _m("theorem14 perturbed input norm: 2 beta_b -> beta_b", "theorem14", "constants.perturbed_norm", 2, 1, "T14c"),
    _m("theorem14 n_MHA closed form: f1 -> f1 - 1", "theorem14", "widths.n_MHA", 2**F1, 2**(F1 - 1), "T14w-n_MHA"),
    _m("theorem14 n_MHA closed form: f3 -> f3 - 1", "theorem14", "widths.n_MHA", d1**F3, d1**(F3 - 1), "T14w-n_MHA"),
    _m("theorem14 n_FC closed form: g2 -> g2 - 1", "theorem14", "widths.n_FC", H**G2, H**(G2 - 1), "T14w-n_FC"),
    _m("theorem14 block-1 n_MHA: 2^(2B^2-B+4) -> 2^(2B^2-B+3)", "theorem14", "widths.n_MHA", 2**FIRST_F1,
       2**(FIRST_F1 - 1), "T14w-n_MHA-1"),
    _m("theorem14 block-1 n_FC: 2^(2B^2-B+2) -> 2^(2B^2-B+1)", "theorem14", "widths.n_FC", 2**FIRST_G1,
       2**(FIRST_G1 - 1), "T14w-n_FC-1"),
)

PROVED = ("lemma2", "lemma7", "lemma8", "lemma5", "theorem9", "theorem10", "theorem11", "lemma12", "lemma13", "theorem14")


def catalogue_with(*edits: Edit) -> dict:
    cat = dict(STATEMENTS)
    for e in edits:
        cat[canonical(e.statement)] = e.apply(cat[canonical(e.statement)])
    return cat


def verify_all(catalogue: dict) -> list[StepResult]:
    """Every step of every encoded proof, in ``catalogue``."""
    return [r for name in PROVED for r in verify(name, catalogue)]


def run(mutation: Mutation) -> list[StepResult]:
    """The failing steps of all proofs after applying ``mutation``."""
    return [r for r in verify_all(catalogue_with(mutation.edit)) if not r.ok]
