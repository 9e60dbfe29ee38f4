"""Theorem 9 / Theorem 3 (theorems.md §5): an MHA source at widths n_K, n_V contains a ticket with
``max_i ||Attn_S(x_i) - Attn_T(x_i)|| <= eps`` for every input, w.p. >= 1 - eps.

One trial: spectral-norm target (H heads), theory-initialised source at ``bounds`` widths for C, ticket by
``slt.construct.mha``; the error is the worst over random inputs at several T (full, causal and random masks)
and adversarially optimised inputs; a trial fails when it exceeds eps (failure-rate test as for Lemma 7).
The a-posteriori chain (deterministic, no probability): for every input tried, each step S2b..S3c measured on
the ticket must obey ``bounds.get("theorem9").term(step, dQK_max=.., dVO_max=..)``.
"""
from __future__ import annotations

import numpy as np

from slt import targets
from slt.measure import strategies
from slt.measure.probabilistic import RateCheck
from slt.measure.attention import CHAIN, chain, worst_adversarial, worst_random
from slt.measure.evidence import Case, exceeds
from slt.measure.sources import TOL, block_widths, solve_options

STATEMENT = "theorem9"
LENGTHS = (2, 16, 256)
WINDOWS = dict(d1=(2, 4), d2=(2, 4), H=[1, 2, 4], alpha=strategies.Scaled(1.0, 1.5),
               eps=strategies.LogUniform(0.1, 0.5))
RATE = RateCheck(STATEMENT, WINDOWS["eps"])
"""The failure-rate check: trials per drawn eps reaching the power target (validated at import)."""
LONG_WINDOWS = dict(d1=(2, 8), d2=(2, 8), H=[1, 2, 4], alpha=strategies.Scaled(1.0, 2.0),
                    eps=strategies.LogUniform(0.05, 0.5))
"""The slow check's window (inputs of length 1024 and 4096)."""
LONG_RATE = RateCheck(STATEMENT, LONG_WINDOWS["eps"])


def build(seed: int, C: float, d1: int, d2: int, H: int, alpha: float, eps: float, tol=TOL, solver=None,
          target=None):
    """``(target, ticket, widths)`` of one trial (seeded target and source)."""
    from slt.construct import mha
    from slt.samplers import as_rng, source_mha, target_mha

    widths = block_widths(STATEMENT, C, d1, d2=d2, H=H, alpha=alpha, eps=eps)
    rng = as_rng(seed)
    target = targets.apply(target_mha(rng, d1, d2, H), target, seed)
    source = source_mha(rng, d1, d2, H, widths["n_K"], widths["n_V"])
    best_effort = max(widths.values()) > 40 * d1
    return target, mha(target, source, **solve_options(tol, solver, best_effort)), widths


def trial(seed: int, C: float, d1: int, d2: int, H: int, alpha: float, eps: float, lengths=LENGTHS,
          adversarial_T: int = 4, tol=TOL, restarts: int = 1, solver=None, target=None) -> Case:
    spec = target
    target, ticket, widths = build(seed, C, d1, d2, H, alpha, eps, tol, solver, spec)
    err, where = worst_random(ticket.pruned, target, seed, lengths, d1, alpha)
    adv, X, kind = worst_adversarial(ticket.pruned, target, seed, adversarial_T, d1, alpha, restarts=restarts,
                                     maxiter=20)
    if adv > err:
        err, where = adv, f"adversarial inputs T={adversarial_T} mask={kind}"
    params = {"C": C, "d1": d1, "d2": d2, "H": H, "alpha": alpha, "eps": eps, **targets.named(spec)}
    return Case(STATEMENT, params, seed, err, eps, what="max_i ||Attn_S - Attn_T||", violated=exceeds(err, eps),
                detail=f"worst at {where}", widths=widths)


def chain_cases(seed: int, C: float, d1: int, d2: int, H: int, alpha: float, eps: float, lengths=(4, 64),
                adversarial_T: int = 4, bound_scale: float = 1.0):
    """One Case per chain step: the worst measured/bound ratio over random inputs (every mask kind) and over
    inputs optimised adversarially FOR THAT STEP's ratio (full and causal masks, T = adversarial_T).
    ``bound_scale`` multiplies every step's bound (< 1 only in the tests that show the check failing)."""
    from slt.measure.adversarial import ball, maximise
    from slt.measure.attention import chain_terms, input_battery
    from slt.samplers import attention_mask

    target, ticket, widths = build(seed, C, d1, d2, H, alpha, eps)
    terms = [{s: v * bound_scale for s, v in t.items()} for t in chain_terms(ticket, target, alpha, d2)]
    worst = {}

    def consider(where, X, M):
        for step, (measured, bound) in chain(ticket, target, X, M, terms).items():
            if step not in worst or measured / bound > worst[step][0] / worst[step][1]:
                worst[step] = (measured, bound, where, np.asarray(X))

    for T in lengths:
        for kind, X, M in input_battery(np.random.default_rng([seed, T]), T, d1, alpha):
            consider(f"random T={T} mask={kind}", X, M)
    for kind in ("full", "causal"):
        M = attention_mask(0, adversarial_T, kind)
        for step in CHAIN:
            def ratio(theta, step=step):
                measured, bound = chain(ticket, target, ball(theta.reshape(adversarial_T, d1), alpha), M, terms)[step]
                return measured / bound

            found = maximise(ratio, adversarial_T * d1, np.random.default_rng([seed, len(kind), len(step)]),
                             restarts=1, maxiter=20, scale=2.0)
            consider(f"adversarial for {step}, T={adversarial_T}, mask={kind}",
                     ball(found.theta.reshape(adversarial_T, d1), alpha), M)
    params = {"C": C, "d1": d1, "d2": d2, "H": H, "alpha": alpha, "eps": eps}
    out = []
    for step, (measured, bound, where, X) in worst.items():
        violated = exceeds(measured, bound)
        out.append(Case(STATEMENT, {**params, "step": step}, seed, measured, bound, what=f"step {step}",
                        violated=violated, detail=f"worst at {where}", widths=widths,
                        counterexample={"X": X.tolist()} if violated else None))
    return out


def rerun(seed: int, C: float, d1: int, d2: int, H: int, alpha: float, eps: float, step=None, target=None):
    if step is not None:
        return chain_cases(seed, C, d1, d2, H, alpha, eps)
    return [trial(seed, C, d1, d2, H, alpha, eps, target=target)]


def _params(point):
    return {k: point[k] for k in ("d1", "d2", "H", "alpha", "eps")}


CALIBRATION_GRID = [{"d1": d1, "d2": d2, "H": H, "alpha": max(d1, d2) ** 0.5, "eps": eps}
                    for d1, d2, H, eps in ((2, 2, 2, 0.2), (2, 2, 1, 0.3), (3, 2, 4, 0.3))]
