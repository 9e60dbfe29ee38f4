"""SLTs in an MHA (Theorem 9 = Theorem 3, §5) and in one transformer block (Theorem 11, §7)."""
from __future__ import annotations

import sympy as sp

from .core import TYPESET, Constant, Edit, Mutation, Param, Statement, Step, Variant
from .facts import EXP_LINEAR
from .premises import LUEKER_EVERY_Z, MERGED_TARGETS, RESCALED_SOURCES, TARGET_NORMS, UNIFORM_INPUTS
from .softmax import LENGTH, lemma8
from .subset_sum import CONST, EPS, dim
from .symbols import C, H, L, alpha, d1, d2, dK, dQK_max, dVO_max, eps, eps_max

ALPHA = Param("alpha", lo=(sp.sqrt(d1), sp.sqrt(d2)), box=(1, 64), log=True)
ALPHA1 = Param("alpha", lo=(sp.sqrt(d1),), box=(1, 64), log=True)
DQK = Param("dQK_max", lo=(0,), box=(2**-30, 1), log=True)
DVO = Param("dVO_max", lo=(0,), box=(2**-30, 1), log=True)


def _theorem9_proof(st, get):
    l7, l8, c = get("lemma7"), get("lemma8"), st.constants
    qk, vo = {d2: d1, eps: c["eps_QK"]}, {eps: c["eps_VO"]}
    softmax = l8.conclusion.xreplace({eps_max: c["logit"]})
    return [
        Step("S1", 1 / sp.sqrt(dK), 1, ("operator norm",), "||W_QK|| <= ||W_Q|| ||W_K|| / sqrt(d_K) <= 1",
             params=(dim("d_K"),), premises=(TARGET_NORMS,), claim="1/sqrt(d_K) <= 1"),
        Step("S2a", l7.widths["n"].xreplace(qk), st.widths["n_K"], ("lemma7",),
             "Lemma 7 on W_QK (d2 := d1) at eps_L = sqrt(d1) eps/(8 H alpha^3) needs at most n_K",
             premises=(MERGED_TARGETS, RESCALED_SOURCES), claim="lemma7.n(d2 := d1, eps := eps_QK) <= n_K"),
        Step("S2a-eps", c["eps_QK"], 1, ("lemma7",), "Lemma 7's hypothesis eps_L < 1", claim="eps_QK <= 1"),
        Step("S2a-err", l7.conclusion.xreplace(qk), c["QK_max"], ("lemma7",), "||dQK||_max <= eps_L/d1^2",
             claim="lemma7.error(d2 := d1, eps := eps_QK) <= QK_max"),
        Step("S2b", st.terms["S2b"].xreplace({dQK_max: c["QK_max"]}), c["logit"], ("max-entry norm",),
             "max_k |x_i dQK x_k| <= alpha^2 ||dQK|| <= alpha^2 d1 ||dQK||_max", premises=(UNIFORM_INPUTS,),
             claim="S2b(dQK_max := QK_max) <= logit"),
        Step("S2c-x", 2 * c["logit"], 1, (EXP_LINEAR.name,), "the fact's argument 2 eps_max lies in [0, 1]",
             claim="2 logit <= 1"),
        Step("S2c-i", softmax, EXP_LINEAR.apply(softmax), ("lemma8", EXP_LINEAR.name),
             "Lemma 8 at eps_max = logit error, then exp(x)-1 <= 2x",
             claim="lemma8.conclusion(eps_max := logit) <= the same with exp(x) - 1 -> 2x"),
        Step("S2c-ii", EXP_LINEAR.apply(softmax), c["softmax"], ("lemma8",), "||(p - p')X|| <= eps/(2H)",
             claim="lemma8.conclusion(eps_max := logit) with exp(x) - 1 -> 2x <= softmax"),
        Step("S2d", l7.widths["n"].xreplace(vo), st.widths["n_V"], ("lemma7",),
             "Lemma 7 on W_VO at eps_L = sqrt(d2) eps/(2 H alpha) needs at most n_V",
             premises=(MERGED_TARGETS, RESCALED_SOURCES), claim="lemma7.n(eps := eps_VO) <= n_V"),
        Step("S2d-eps", c["eps_VO"], 1, ("lemma7",), "Lemma 7's hypothesis eps_L < 1", claim="eps_VO <= 1"),
        Step("S2d-err", l7.conclusion.xreplace(vo), c["VO_max"], ("lemma7",), "||dVO||_max <= eps_L/(d1 d2)",
             claim="lemma7.error(eps := eps_VO) <= VO_max"),
        Step("S3a", c["softmax"] * 1, c["S3a"], ("operator norm",), "||(p-p') X W_VO|| <= ||(p-p')X|| ||W_VO||",
             premises=(TARGET_NORMS,), claim="softmax * ||W_VO|| (<= 1) <= S3a"),
        Step("S3b", st.terms["S3b"].xreplace({dVO_max: c["VO_max"]}), c["S3b"], ("convex combination", "max-entry norm"),
             "||p' X dVO|| <= (sqrt(d1) alpha)(sqrt(d1 d2) ||dVO||_max)", premises=(UNIFORM_INPUTS,),
             claim="S3b(dVO_max := VO_max) <= S3b budget"),
        Step("S3c", H * (c["S3a"] + c["S3b"]), st.conclusion, ("triangle",), "sum over the H heads",
             claim="H (S3a + S3b) <= conclusion"),
        Step("S4", H * ((1 - l7.probability.xreplace(qk)) + (1 - l7.probability.xreplace(vo))), 1 - st.probability,
             ("lemma7", "union bound"), "union bound over 2H applications of Lemma 7, alpha >= max(sqrt d1, sqrt d2)",
             premises=(LUEKER_EVERY_Z,),
             claim="H (lemma7.failure(eps := eps_QK) + lemma7.failure(eps := eps_VO)) <= 1 - probability"),
    ]


_S2b = alpha**2 * d1 * dQK_max
_S2c = lemma8.conclusion.xreplace({eps_max: _S2b})

theorem9 = Statement(
    name="theorem9", title="SLTs exist in a multi-head attention",
    numbering={"main": "Theorem 3", "appendix": "Theorem 9"},
    params=(dim("d1"), dim("d2"), dim("H"), ALPHA, EPS, CONST, DQK, DVO, LENGTH),
    conclusion=eps, quantity="max_i ||Attn_S(x_i) - Attn_T(x_i)||",
    widths={"n_K": d1 * C * sp.log(8 * H * alpha**3 * d1**sp.Rational(3, 2) / eps),
            "n_V": d1 * C * sp.log(2 * H * alpha * d1 * sp.sqrt(d2) / eps)},
    probability=1 - eps,
    constants={
        "eps_QK": sp.sqrt(d1) * eps / (8 * H * alpha**3),
        "QK_max": eps / (8 * H * alpha**3 * d1**sp.Rational(3, 2)),
        "logit": eps / (8 * H * alpha * sp.sqrt(d1)),
        "softmax": eps / (2 * H),
        "eps_VO": sp.sqrt(d2) * eps / (2 * H * alpha),
        "VO_max": eps / (2 * H * alpha * d1 * sp.sqrt(d2)),
        "S3a": eps / (2 * H),
        "S3b": eps / (2 * H),
    },
    terms={
        "S2b": _S2b,
        "S2c": _S2c,
        "S3a": _S2c,
        "S3b": sp.sqrt(d1) * alpha * sp.sqrt(d1 * d2) * dVO_max,
        "head": _S2c + sp.sqrt(d1) * alpha * sp.sqrt(d1 * d2) * dVO_max,
        "lipschitz": lemma8.terms["lipschitz"].xreplace({eps_max: _S2b}),
    },
    builder=_theorem9_proof,
    mutations=(
        Mutation("theorem9 n_K: 8 -> 4 in the log", "widths.n_K", 8, 4, "S2a"),
        Mutation("theorem9 n_K: alpha^3 -> alpha^2", "widths.n_K", alpha**3, alpha**2, "S2a"),
        Mutation("theorem9 n_V: 2 -> 1 in the log", "widths.n_V", 2, 1, "S2d"),
        Mutation("theorem9 logit bound: 8 H -> 4 H", "constants.logit", sp.Rational(1, 8), sp.Rational(1, 4), "S2c-ii"),
        Mutation("theorem9 eps_L of W_QK: 8 -> 16", "constants.eps_QK", sp.Rational(1, 8), sp.Rational(1, 16), "S2a"),
    ),
    slack=(
        Constant("the 8 in n_K = d1 C log(8 H alpha^3 d1^(3/2)/eps)", ("widths.n_K",), 8),
        Constant("the exponent 3 of alpha in n_K", ("widths.n_K",), 3),
        Constant("the 2 in n_V = d1 C log(2 H alpha d1 sqrt(d2)/eps)", ("widths.n_V",), 2),
        Constant("the 8 of the logit error budget eps/(8 H alpha sqrt(d1))", ("constants.logit",), sp.Rational(1, 8),
                 tighter=+1),
        Constant("the 2 of the softmax error budget eps/(2H)", ("constants.softmax",), sp.Rational(1, 2), tighter=+1),
    ),
    notes="terms are a-posteriori per-head bounds from measured dQK_max = ||dQK||_max and dVO_max = ||dVO||_max of "
          "one head (no probability): S2b logit error, S2c = S3a softmax error (Lemma 8), S3b value error, "
          "head = S3a + S3b (sum over heads for the MHA); lipschitz is the sqrt(T)-growing alternative to S2c.",
)


def _theorem11_proof(st, get):
    t9, t10, c = get("theorem9"), get("theorem10"), st.constants
    eps_10 = 2 * c["split"] * eps / c["fc_in"]  # Theorem 10's error exp(fc_in eps_10 / 2) - 1 = exp(eps/4) - 1
    fc_err = sp.exp(c["split"] * eps) - 1
    mha = {eps: c["mha_share"] * c["split"] * eps, d2: d1}  # mha_share = 1: one split budgets MHA and FC
    fc = {d2: d1, eps: eps_10}
    return [
        Step("B1a", t9.widths["n_K"].xreplace(mha), st.widths["n_MHA"], ("theorem9",), "Theorem 9 at eps/4, n_K",
             claim="theorem9.n_K(d2 := d1, eps := mha_share split eps) <= n_MHA"),
        Step("B1b", t9.widths["n_V"].xreplace(mha), st.widths["n_MHA"], ("theorem9",), "Theorem 9 at eps/4, n_V",
             claim="theorem9.n_V(d2 := d1, eps := mha_share split eps) <= n_MHA"),
        Step("B2a", H * alpha, st.terms["attn_norm"], ("convex combination", "operator norm"),
             "||Attn_T(x_i)|| <= sum_h ||p X|| ||W_VO|| <= H alpha <= alpha H sqrt(d1)", premises=(TARGET_NORMS,),
             claim="H alpha <= attn_norm"),
        Step("B2b", t9.conclusion.xreplace(mha) + st.terms["attn_norm"] + alpha, c["fc_in"], ("theorem9", "triangle"),
             "eq. (19): ||Attn_S(x_i)^T + x_i|| <= eps/4 + alpha (H sqrt(d1) + 1) <= 3 alpha H sqrt(d1)",
             claim="theorem9.error(eps := mha_share split eps) + attn_norm + alpha <= fc_in"),
        Step("B3a", t10.widths["n_l"].xreplace(fc), st.widths["n_FC"], ("theorem10",),
             "Theorem 10 with input norm 3 alpha H sqrt(d1) and eps_10 = eps/(6 alpha H sqrt(d1))",
             claim="theorem10.n_l(d2 := d1, eps := eps_10) <= n_FC"),
        Step("B3-eps", eps_10, 1, ("theorem10",), "Theorem 10's hypothesis eps_10 < 1",
             claim="eps_10 = 2 split eps / fc_in <= 1"),
        Step("B3-alpha", t10.domain["alpha"]["lo"], c["fc_in"], ("theorem10",),
             "Theorem 10's hypothesis on its input norm alpha (alpha >= 1) at 3 alpha H sqrt(d1)",
             claim="theorem10's lower bound on alpha <= fc_in"),
        Step("B3b", t10.conclusion.xreplace({alpha: c["fc_in"], eps: eps_10}), fc_err, ("theorem10",),
             "FC error <= exp(eps/4) - 1", premises=(UNIFORM_INPUTS,),
             claim="theorem10.error(alpha := fc_in, eps := eps_10) <= exp(split eps) - 1"),
        Step("B4", fc_err + 2 * t9.conclusion.xreplace(mha), st.conclusion, ("triangle", "1-Lipschitz ReLU net"),
             "||Blk_S - Blk_T|| <= ||F_S(y') - F_T(y')|| + ||F_T(y') - F_T(y)|| + ||y' - y||",
             premises=(TARGET_NORMS,), claim="FC error + 2 theorem9.error(eps := mha_share split eps) <= conclusion"),
        Step("B5", (1 - t9.probability.xreplace(mha)) + (1 - t10.probability.xreplace(fc)), 1 - st.probability,
             ("theorem9", "theorem10", "union bound"), "union bound over the MHA and the FC network",
             claim="theorem9.failure + theorem10.failure <= 1 - probability"),
    ]


theorem11 = Statement(
    name="theorem11", title="SLTs exist in a transformer block",
    numbering={"main": "Theorem 11 (appendix only)", "appendix": "Theorem 11"},
    params=(dim("d1"), dim("H"), dim("L"), ALPHA1, EPS, CONST),
    conclusion=eps, quantity="max_i ||Blk_S(x_i) - Blk_T(x_i)||",
    widths={"n_MHA": d1 * C * sp.log(32 * alpha**3 * H * d1**sp.Rational(3, 2) / eps),
            "n_FC": d1 * C * sp.log(24 * alpha * L * H * d1**sp.Rational(5, 2) / eps)},
    probability=1 - eps,
    constants={"split": sp.Rational(1, 4), "fc_in": 3 * alpha * H * sp.sqrt(d1), "mha_share": sp.Integer(1)},
    terms={"attn_norm": alpha * H * sp.sqrt(d1)},
    builder=_theorem11_proof,
    mutations=(
        Mutation("theorem11 split: eps/4 -> eps/3", "constants.split", sp.Rational(1, 4), sp.Rational(1, 3), "B4"),
        Mutation("theorem11 n_MHA: 32 -> 16", "widths.n_MHA", 32, 16, "B1a"),
        Mutation("theorem11 n_FC: 24 -> 12", "widths.n_FC", 24, 12, "B3a"),
        Mutation("theorem11 FC input norm: 3 alpha H sqrt(d1) -> 2 alpha H sqrt(d1)", "constants.fc_in", 3, 2, "B2b"),
    ),
    slack=(
        Constant("the 32 in n_MHA", ("widths.n_MHA",), 32),
        Constant("the 24 in n_FC", ("widths.n_FC",), 24),
        Constant("the split eps/4 (MHA error eps/4, FC error exp(eps/4) - 1)", ("constants.split",), sp.Rational(1, 4),
                 tighter=+1),
        Constant("the 3 in the FC input norm 3 alpha H sqrt(d1)", ("constants.fc_in",), 3),
    ),
    variants={"d1": Variant(
        "d1", TYPESET + ": ||Attn_T(x_i)|| <= alpha H d1 (and 2(H d1 + 1) in Theorem 14)",
        (Edit("theorem11", "terms.attn_norm", sp.sqrt(d1), d1),), (("theorem11", "B2b"), ("theorem14", "T14a"))),
        "mha-eps/3": Variant(
            "mha-eps/3", "the finding on Theorem 11's budget: the MHA budget alone raised from eps/4 to eps/3 (FC error still "
            "exp(eps/4) - 1); B4 becomes exp(eps/4) - 1 + 2 eps/3 <= eps, which holds on eps in (0, 1]: the proof "
            "stays valid, so the eps/4 -> eps/3 mutation is caught (B4) only through the FC budget",
            (Edit("theorem11", "constants.mha_share", 1, sp.Rational(4, 3)),), ())},
    notes="The same split eps/4 budgets the MHA error and the FC error exp(eps/4) - 1; d2 = d1.",
)


#: The statements this module declares, each with its place in the paper's order (``bounds.catalogue``).
DECLARED = ((60, theorem9), (80, theorem11))
