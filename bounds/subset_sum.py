"""Subset-sum statements: Lueker's corollary (§1), Lemma 2 (§2), Lemma 7 = Lemma 4 (§3), Theorem 10 (§6)."""
from __future__ import annotations

import sympy as sp

from .core import Constant, Mutation, Param, Statement, Step, SLACK_C
from .symbols import C, L, alpha, d1, d2, eps

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

lemma2 = Statement(
    name="lemma2", title="One ReLU layer by two pruned random layers",
    numbering={"main": "Lemma 2", "appendix": "Lemma 2 (Pensia et al. 2020)"},
    params=(dim("d1"), dim("d2"), EPS, CONST),
    conclusion=eps, quantity="sup_{||x||<=1} ||W x - (W2*M2) ReLU((W1*M1) x)||",
    widths={"n": d1 * C * sp.log(2 * d1 * d2 / eps)}, probability=1 - eps,
)


def _lemma7_proof(st, get):
    lk = get("lueker")
    per_entry = {eps: eps / (d1 * d2)}
    return [
        Step("L7a", d1 * lk.widths["n"].xreplace(per_entry), st.widths["n"], ("lueker",),
             "n = d1 n' with n' >= C log(d1 d2/eps): Lueker per entry at eps/(d1 d2)"),
        Step("L7b", lk.conclusion.xreplace(per_entry), st.conclusion, ("lueker",),
             "each entry is one subset sum of products v_ijk u_jk with error <= eps/(d1 d2)"),
        Step("L7c", d1 * d2 * (1 - lk.probability.xreplace(per_entry)), 1 - st.probability,
             ("lueker", "union bound"), "union bound over the d1 d2 entries"),
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

theorem10 = Statement(
    name="theorem10", title="Deep ReLU networks (Pensia et al. 2020, Theorem 1)",
    numbering={"main": "Theorem 1 of Pensia et al. (2020)", "appendix": "Theorem 10"},
    params=(dim("d1"), dim("d2"), dim("L"), EPS, Param("alpha", lo=(0,), lo_open=True, box=(1, 64), log=True), CONST),
    conclusion=sp.exp(alpha * eps / 2) - 1, quantity="sup_{||x||<=alpha} ||F_S(x) - F_T(x)||",
    widths={"n_l": d1 * C * sp.log(4 * L * d1 * d2 / eps)}, probability=1 - eps,
    mutations=(Mutation("theorem10 error: exp(alpha eps/2) -> exp(alpha eps)", "conclusion", sp.Rational(1, 2), 1,
                        "B3b", by="theorem11"),),
    notes="Per layer l: pass d1 = d_l and d2 = d_{l+1}.",
)
