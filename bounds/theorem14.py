"""SLTs exist in a transformer without normalisation: Theorem 14 (appendix) = Theorem 6 (main text), §9.

The block recursion, derived symbolically: target input norms beta_j = alpha K^(j-1) with
K = 4 H sqrt(d1) (``||Blk_T(x)|| <= 2(H sqrt(d1) + 1)||x|| <= K ||x||``),
P_j = prod_{i=j..B} kappa H sqrt(d1) beta_i^2, error budgets eps_1 = eps/(2^(B-1) P_2),
eps_b = eps/(2^(B-b+1) P_(b+1)) for 2 <= b <= B, and accumulated error delta_b = eps/(2^(B-b+1) P_b)
entering block b >= 2.  Block b applies Theorem 11 with input norm beta_1 (b = 1) or 2 beta_b.

The statement's widths are the closed forms written out (``F1..F3``, ``G1..G3`` and block 1's ``FIRST_*``);
steps T14w-* hold them against Theorem 11 substituted at each block's norm and budget (``block_widths``).

The paper prints kappa = 16.  With Lemma 13 in the form its proof supports (factor 2) at the input norm
2 beta_b that the perturbed input can have, and exp(x) - 1 <= 2x, the block step needs
(64 beta_b^2 + 4) <= kappa beta_b^2; beta_b >= 4 for b >= 2 makes kappa = 65 the smallest integer that closes
it.  The harness encodes kappa = 65.  Each natural reading of the constant is a variant at kappa = 16
(``READINGS``; ``bounds.prove.readings`` finds the smallest integer kappa of each):
(a) ``printed``: as encoded (fails T14d-ii);  (b) ``exact-exp``: the exact exponential (a chord bound on the
small arguments certifies it);  (c) ``perturbed-logit``: Lemma 12's logit step redone with
||x'_i|| <= beta_b + delta_b, Lemma 13 at beta_b, a chord bound on exp;  (d) ``norm-beta``: Lemma 13 at beta_b.
"""
from __future__ import annotations

import functools

import sympy as sp

from .attention import theorem11
from .core import Constant, Edit, Mutation, Param, Readings, Statement, Step, Variant
from .facts import EXP_CHORD_16, EXP_CHORD_32, EXP_LINEAR, SCALAR
from .perturbation import PERTURBED
from .premises import INDUCTION_BLOCKS, PROOF_SCHEDULE, TARGET_NORMS, UNIFORM_INPUTS
from .subset_sum import CONST, EPS, dim
from .symbols import B, C, H, L, alpha, b, d1, eps, eps_max, kappa, x

KAPPA = sp.Integer(65)
KAPPA_PRINTED = sp.Integer(16)
_i, _j = sp.symbols("i j", positive=True, integer=True)


def recursion(kappa_value=kappa, growth=4 * H * sp.sqrt(d1)) -> dict:
    """The block recursion as functions of the block index (SymPy Lambdas in j)."""
    return dict(_recursion(sp.sympify(kappa_value), sp.sympify(growth)))


@functools.lru_cache(maxsize=64)
def _recursion(kappa_value, growth) -> dict:
    """``recursion``, kept per (kappa, growth): SymPy's symbolic product costs 10 to 40 ms a call, and the proof
    and the declaration ask for the same recursion again and again."""
    beta = sp.Lambda(_j, alpha * growth ** (_j - 1))
    P = sp.Lambda(_j, sp.product(kappa_value * H * sp.sqrt(d1) * beta(_i) ** 2, (_i, _j, B)))
    return {
        "beta": beta, "P": P,
        "eps_first": eps / (2 ** (B - 1) * P(2)),
        "eps_block": sp.Lambda(_j, eps / (2 ** (B - _j + 1) * P(_j + 1))),
        "delta": sp.Lambda(_j, eps / (2 ** (B - _j + 1) * P(_j))),
        "norm": sp.Lambda(_j, 2 * beta(_j)),
    }


def block_widths(theorem11, kappa_value=kappa) -> dict:
    """Theorem 11's requirements with alpha -> the block's input norm and eps -> its budget."""
    r = recursion(kappa_value)
    first = {alpha: alpha, eps: r["eps_first"]}
    later = {alpha: r["norm"](b), eps: r["eps_block"](b)}
    return {w: sp.Piecewise((req.xreplace(first), sp.Eq(b, 1)), (req.xreplace(later), True))
            for w, req in theorem11.widths.items()}


# The closed forms of docs/findings.md#theorem14-kappa, typed out (not derived): block 2 <= b <= B ...
F1 = 2 * B**2 - B - 2 * b**2 + 7 * b + 3
F2 = B**2 - b**2 + 3 * b - 2
F3 = (B**2 - b**2 + 3 * b) / 2
G1 = 2 * B**2 - B - 2 * b**2 + 3 * b + 3
G2 = B**2 - b**2 + b
G3 = (B**2 - b**2 + b + 4) / 2
# ... and block 1 (input norm beta_1 = alpha, budget eps_1 = eps/(2^(B-1) P_2)): only the power of 2 differs
# from the formula above at b = 1 (2^-4 in n_MHA, 2^-2 in n_FC)
FIRST_F1 = 2 * B**2 - B + 4
FIRST_G1 = 2 * B**2 - B + 2
FIRST_H = B**2
FIRST_F3 = (B**2 + 2) / 2
FIRST_G3 = (B**2 + 4) / 2


def closed_form(kappa_value=kappa) -> dict:
    """Theorem 14's width requirements written out: ``{"n_MHA": Piecewise, "n_FC": Piecewise}`` (b = 1; b >= 2)."""
    k = sp.sympify(kappa_value)
    mha = d1 * C * sp.log(2**F1 * k**(B - b) * alpha**(2 * (B - b) + 3) * H**F2 * d1**F3 / eps)
    fc = d1 * C * sp.log(3 * 2**G1 * k**(B - b) * alpha**(2 * (B - b) + 1) * H**G2 * d1**G3 * L / eps)
    mha1 = d1 * C * sp.log(2**FIRST_F1 * k**(B - 1) * alpha**(2 * B + 1) * H**FIRST_H * d1**FIRST_F3 / eps)
    fc1 = d1 * C * sp.log(3 * 2**FIRST_G1 * k**(B - 1) * alpha**(2 * B - 1) * H**FIRST_H * d1**FIRST_G3 * L / eps)
    return {"n_MHA": sp.Piecewise((mha1, sp.Eq(b, 1)), (mha, True)),
            "n_FC": sp.Piecewise((fc1, sp.Eq(b, 1)), (fc, True))}


def exponents(kappa_value=None, first: bool = False) -> dict:
    """Exponents of the log arguments of Theorem 14's widths, derived from the recursion.

    For a block 2 <= b <= B the requirement is ``d1 C log(2^e2 3^e3 kappa^ek alpha^ea H^eH d1^ed L^eL / eps)``
    (3 only in n_FC, from Theorem 11's 24);
    returns ``{"n_MHA": {...}, "n_FC": {...}}`` (``first=True``: block 1) mapping each base (``"2"``, ``"kappa"``, ``"alpha"``,
    ``"H"``, ``"d1"``, ``"L"``, ``"eps"``) to a SymPy polynomial in (b, B).  With a numeric ``kappa_value`` that is
    a power of two (the printed 16) kappa is folded into the base 2.  f1, f2, f3 (MHA) and g1, g2, g3 (FC)
    of docs/statements.md#theorem14 are the exponents of 2, H and d1.
    """
    out = {}
    for name, req in block_widths(theorem11).items():
        out[name] = _log_exponents(req.args[0 if first else 1].expr / (d1 * C))
    if kappa_value is not None:
        k = sp.Integer(kappa_value)
        for ex in out.values():
            ek = ex.pop("kappa")
            for p, m in sp.factorint(k).items():
                ex[str(p)] = sp.expand(ex.get(str(p), 0) + m * ek)
    return out


def _log_exponents(log_expr) -> dict:
    """Coefficients of log(2), log(kappa), log(alpha), ... in an expanded sum of logs."""
    log_expr = sp.expand(sp.expand_log(log_expr, force=True))
    ints = {l: sum(m * sp.log(p) for p, m in sp.factorint(l.args[0]).items())
            for l in log_expr.atoms(sp.log) if l.args[0].is_Integer}
    log_expr = sp.expand(log_expr.xreplace(ints))
    primes = {str(l.args[0]): l.args[0] for l in log_expr.atoms(sp.log) if l.args[0].is_Integer}
    bases = {"2": sp.Integer(2), **primes, "kappa": kappa, "alpha": alpha, "H": H, "d1": d1, "L": L, "eps": eps}
    out = {n: sp.expand(log_expr.coeff(sp.log(v))) for n, v in bases.items()}
    rest = sp.expand(log_expr - sum(c * sp.log(bases[n]) for n, c in out.items()))
    if rest != 0:
        raise ValueError(f"log argument has factors outside {sorted(bases)}: {rest}")
    return {n: c for n, c in out.items() if c != 0}


def _exp_fact(bound):
    """The scalar fact ``exp(x) - 1 <= bound`` (``bound`` an expression in x) the block step uses."""
    for f in SCALAR:
        if f.lhs == sp.exp(x) - 1 and sp.simplify(f.rhs - bound) == 0:
            return f
    raise ValueError(f"theorem14: no fact exp(x) - 1 <= {bound} among {[f.name for f in SCALAR]}")


def block_step(st, get) -> dict:
    """The block step of Theorem 14 (2 <= b <= B) as expressions: ``lip`` (Lemma 13 at the block's input norm
    and perturbation delta_b, exact exponential), its exp argument ``arg``, the fact bounding exp there, the
    budget ``eps_b`` and the accumulated error ``delta_next`` = delta_(b+1) the step must stay within."""
    l12, l13, c = get("lemma12"), get("lemma13"), st.constants
    r = recursion(c["kappa"], c["growth"])
    norm, delta = c["perturbed_norm"] * r["beta"](b), r["delta"](b)
    at = {alpha: norm, eps_max: delta}
    lip = l13.conclusion.xreplace(at)
    (arg,) = {e.args[0] for e in lip.atoms(sp.exp)}
    return {"recursion": r, "norm": norm, "delta": delta, "lip": lip, "arg": arg, "fact": _exp_fact(c["exp_bound"]),
            "x_prime": l12.constants["alpha_prime"].xreplace(at), "eps_b": r["eps_block"](b),
            "delta_next": r["delta"](b + 1)}


BLOCK_STEPS = ("T14d-x", "T14d-i", "T14d-ii")


def _theorem14_proof(st, get):
    t11, c = get("theorem11"), st.constants
    k = block_step(st, get)
    r, fact, lip = k["recursion"], k["fact"], k["lip"]
    delta, eps_1 = r["delta"], r["eps_first"]
    fail = lambda e: 1 - t11.probability.xreplace({eps: e})  # noqa: E731
    derived = block_widths(t11, c["kappa"])
    block = (Param("b", lo=(2,), integer=True, box=(2, 10)), Param("B", lo=(b,), integer=True, box=(0, 8)))
    blocks = (Param("B", lo=(2,), integer=True, box=(2, 10)),)
    geo = sp.summation(eps / (2 * 32 ** (B - _j)), (_j, 2, B))
    steps = [
        Step("T14a", 2 * (t11.terms["attn_norm"] / alpha + 1), c["growth"], ("theorem11", "1-Lipschitz ReLU net"),
             "||Blk_T(x)|| <= 2(||Attn_T(x)|| + ||x||) <= 2(H sqrt(d1) + 1)||x|| <= 4 H sqrt(d1)||x||",
             premises=(TARGET_NORMS,), claim="2 (theorem11.attn_norm / alpha + 1) <= growth"),
        Step("T14b", t11.conclusion.xreplace({eps: eps_1}), delta(2), ("theorem11",),
             "block 1 (exact input, norm beta_1 = alpha): error eps_1 = accumulated error entering block 2",
             params=blocks, premises=(INDUCTION_BLOCKS, UNIFORM_INPUTS),
             claim="theorem11.error(eps := eps_1) <= delta_2"),
        Step("T14c", r["beta"](b) + delta(b), k["x_prime"], ("triangle", "lemma12"),
             "||x'^(b)|| <= beta_b + delta_b <= the bound on ||x'_i|| that Lemma 12's logit step uses at the "
             "block's input norm", params=block, premises=(INDUCTION_BLOCKS,),
             claim="beta_b + delta_b <= lemma12.alpha_prime(alpha := perturbed_norm beta_b, eps_max := delta_b)"),
        Step("T14d-x", k["arg"], fact.domain.hi[0], (fact.name,),
             f"Lemma 13's exp argument at the block lies in the fact's domain [0, {fact.domain.hi[0]}]", params=block,
             claim="4 alpha eps_max of lemma13 at (perturbed_norm beta_b, delta_b) <= the fact's upper end"),
        Step("T14d-i", lip, fact.apply(lip), ("lemma13", fact.name),
             f"Lemma 13 with alpha -> {c['perturbed_norm']} beta_b, eps_max -> delta_b, then {fact.name}",
             params=block, claim="lemma13.conclusion(alpha := perturbed_norm beta_b, eps_max := delta_b) <= the same "
                                 "with exp(x) - 1 -> exp_bound"),
        Step("T14d-ii", k["eps_b"] + fact.apply(lip), k["delta_next"], ("theorem11", "lemma13", "triangle"),
             "block b: ||x'^(b+1) - x^(b+1)|| <= eps_b + Lemma 13 <= delta_(b+1)", params=block,
             premises=(INDUCTION_BLOCKS, UNIFORM_INPUTS),
             claim="eps_b + lemma13 bound (T14d-i) <= delta_(b+1)"),
        Step("T14e", delta(B + 1), st.conclusion, (), "the error after block B is delta_(B+1) = eps", params=blocks,
             premises=(INDUCTION_BLOCKS,), claim="delta_(B+1) <= conclusion"),
    ]
    for w in st.widths:
        steps += [
            Step(f"T14w-{w}-1", derived[w].args[0].expr, st.widths[w].args[0].expr, ("theorem11",),
                 f"block 1 needs Theorem 11's {w} at (alpha, eps_1); the closed form provides it", params=blocks,
                 claim=f"theorem11.{w}(alpha := alpha, eps := eps_1) <= {w} at b = 1"),
            Step(f"T14w-{w}", derived[w].args[1].expr, st.widths[w].args[1].expr, ("theorem11",),
                 f"block b >= 2 needs Theorem 11's {w} at (2 beta_b, eps_b); the closed form provides it",
                 params=block, claim=f"theorem11.{w}(alpha := perturbed_norm beta_b, eps := eps_b) <= {w} at b >= 2"),
        ]
    steps += [
        Step("U1", fail(eps_1), c["first_share"] * eps, ("theorem11",), "block 1 fails w.p. <= eps_1 <= eps/64",
             params=blocks, claim="theorem11.failure(eps := eps_1) <= first_share eps"),
        Step("U2a", 16, c["kappa"] * H * sp.sqrt(d1) * alpha**2, (), "every factor of P_j is >= 16 (beta_j >= alpha >= 1)",
             premises=(PROOF_SCHEDULE,), claim="16 <= kappa H sqrt(d1) alpha^2 <= every factor of P_j"),
        Step("U2b", fail(k["eps_b"]), eps / (2 * 32 ** (B - b)), ("theorem11",),
             "block b >= 2 fails w.p. <= eps_b <= eps/(2 * 32^(B-b))", params=block,
             claim="theorem11.failure(eps := eps_b) <= eps/(2 * 32^(B-b))"),
        Step("U3", geo, c["later_share"] * eps, ("union bound",), "sum_{b=2..B} eps/(2 * 32^(B-b)) <= (16/31) eps",
             params=blocks, premises=(PROOF_SCHEDULE,), claim="sum_{b=2..B} eps/(2 * 32^(B-b)) <= later_share eps"),
        Step("U4", c["first_share"] + c["later_share"], c["union"], (), "1/64 + 16/31 = 1055/1984",
             claim="first_share + later_share <= union"),
        Step("U5", c["union"] * eps, 1 - st.probability, ("union bound",), "(1055/1984) eps <= eps",
             claim="union eps <= 1 - probability"),
    ]
    return steps


def kappa_edits(value, old=KAPPA) -> tuple:
    """Edits setting Theorem 14's constant kappa (in the proof constants and in the closed-form widths)."""
    return tuple(Edit("theorem14", where, old, value) for where in ("constants.kappa", "widths.n_MHA", "widths.n_FC"))


# The readings of the printed constant: name -> (label, description, edits other than kappa, steps that fail at 16)
READINGS = {
    "printed": ("(a)", "kappa = 16 as printed, Lemma 13 in its proof's form at input norm 2 beta_b, exp(x)-1 <= 2x "
                "(the harness's reading of the block step, which it encodes at kappa = 65)", (), (("theorem14", "T14d-ii"),)),
    "exact-exp": ("(b)", "kappa = 16, Lemma 13 in its proof's form at 2 beta_b with the exact exponential "
                  "(pre-checked through the chord exp(x)-1 <= 1.02 x on [0, 1/32])",
                  (Edit("theorem14", "constants.exp_bound", 2 * x, EXP_CHORD_32.rhs),),
                  (("theorem14", "T14d-x"), ("theorem14", "T14d-i"), ("theorem14", "T14d-ii"))),
    "perturbed-logit": ("(c)", "kappa = 16, Lemma 12's logit step redone with ||x'_i|| <= beta_b + delta_b "
                        "(Lemma 12 variant 'perturbed'), Lemma 13 at input norm beta_b, "
                        "exp(x)-1 <= 1.04 x on [0, 1/16]",
                        PERTURBED + (Edit("theorem14", "constants.perturbed_norm", 2, 1),
                                     Edit("theorem14", "constants.exp_bound", 2 * x, EXP_CHORD_16.rhs)), ()),
    "norm-beta": ("(d)", "kappa = 16, Lemma 13 in its proof's form at input norm beta_b, exp(x)-1 <= 2x",
                  (Edit("theorem14", "constants.perturbed_norm", 2, 1),),
                  (("theorem14", "T14c"), ("theorem14", "T14d-ii"))),
}


def exact_block_step(st, get) -> Step:
    """eps_b + Lemma 13 (exact exponential) <= delta_(b+1): the block step without the bound on exp."""
    k = block_step(st, get)
    block = next(s for s in st.steps(get) if s.name == "T14d-ii")
    return Step("T14d-exact", k["eps_b"] + k["lip"], k["delta_next"], ("theorem11", "lemma13", "triangle"),
                "the block step with the exact exponential", params=block.params)


def _mutations() -> tuple:
    return (
        Mutation("theorem14 union: 1055/1984 -> 1055/2100", "constants.union", sp.Rational(1055, 1984),
                 sp.Rational(1055, 2100), "U4"),
        Mutation("theorem14 geometric share: 16/31 -> 1/2", "constants.later_share", sp.Rational(16, 31),
                 sp.Rational(1, 2), "U3"),
        Mutation("theorem14 kappa: 65 -> 16 (as printed)", "constants.kappa", 65, 16, "T14d-ii"),
        Mutation("theorem14 growth: 4 H sqrt(d1) -> 2 H sqrt(d1)", "constants.growth", 4, 2, "T14a"),
        Mutation("theorem14 perturbed input norm: 2 beta_b -> beta_b", "constants.perturbed_norm", 2, 1, "T14c"),
        Mutation("theorem14 n_MHA closed form: f1 -> f1 - 1", "widths.n_MHA", 2**F1, 2**(F1 - 1), "T14w-n_MHA"),
        Mutation("theorem14 n_MHA closed form: f3 -> f3 - 1", "widths.n_MHA", d1**F3, d1**(F3 - 1), "T14w-n_MHA"),
        Mutation("theorem14 n_FC closed form: g2 -> g2 - 1", "widths.n_FC", H**G2, H**(G2 - 1), "T14w-n_FC"),
        Mutation("theorem14 block-1 n_MHA: 2^(2B^2-B+4) -> 2^(2B^2-B+3)", "widths.n_MHA", 2**FIRST_F1,
                 2**(FIRST_F1 - 1), "T14w-n_MHA-1"),
        Mutation("theorem14 block-1 n_FC: 2^(2B^2-B+2) -> 2^(2B^2-B+1)", "widths.n_FC", 2**FIRST_G1,
                 2**(FIRST_G1 - 1), "T14w-n_FC-1"),
    )


_UNION, _LATER, _FIRST = sp.Rational(1055, 1984), sp.Rational(16, 31), sp.Rational(1, 64)


def _declare():
    return Statement(
        name="theorem14", title="SLTs exist in a transformer without normalisation",
        numbering={"main": "Theorem 6", "appendix": "Theorem 14"},
        params=(dim("d1"), dim("H"), dim("L"), Param("alpha", lo=(sp.sqrt(d1),), box=(1, 64), log=True), EPS,
                Param("B", lo=(2,), integer=True, box=(2, 10)), Param("b", lo=(1,), hi=(B,), integer=True, box=(1, 10)),
                CONST),
        conclusion=eps, quantity="max_i ||Tf_S(x_i) - Tf_T(x_i)||",
        widths=closed_form(KAPPA), probability=1 - eps,
        constants={"kappa": KAPPA, "growth": 4 * H * sp.sqrt(d1), "perturbed_norm": sp.Integer(2),
                   "exp_bound": EXP_LINEAR.rhs,
                   "first_share": _FIRST, "later_share": _LATER, "union": _UNION},
        terms={"beta": recursion(KAPPA)["beta"](b), "eps_b": sp.Piecewise(
            (recursion(KAPPA)["eps_first"], sp.Eq(b, 1)), (recursion(KAPPA)["eps_block"](b), True)),
            "delta": recursion(KAPPA)["delta"](b)},
        builder=_theorem14_proof,
        mutations=_mutations(),
        slack=(
            Constant("kappa in P_j = prod kappa H sqrt(d1) beta_i^2", ("constants.kappa",), KAPPA),
            Constant("the 4 in the growth factor 4 H sqrt(d1)", ("constants.growth",), 4),
            Constant("the 2 of the perturbed input norm 2 beta_b", ("constants.perturbed_norm",), 2),
            Constant("the union-bound total 1055/1984", ("constants.union",), _UNION),
            Constant("the geometric share 16/31", ("constants.later_share",), _LATER),
            Constant("block 1's share 1/64", ("constants.first_share",), _FIRST),
        ),
        readings=Readings("kappa", KAPPA, KAPPA_PRINTED, READINGS, kappa_edits, BLOCK_STEPS, "T14d-ii",
                          exact_block_step, ("constants.exp_bound", EXP_CHORD_32.rhs)),
        variants={name: Variant(name, f"{label} {text}", edits + kappa_edits(KAPPA_PRINTED), breaks)
                  for name, (label, text, edits, breaks) in READINGS.items()},
        notes=__doc__,
    )


theorem14 = _declare()


#: The statements this module declares, each with its place in the paper's order (``bounds.catalogue``).
DECLARED = ((110, theorem14),)
