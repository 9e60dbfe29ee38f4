"""Theorem 9 / Theorem 3 (docs/statements.md#theorem9): an MHA source at widths n_K, n_V contains a ticket with
``max_i ||Attn_S(x_i) - Attn_T(x_i)|| <= eps`` for every input, w.p. >= 1 - eps.

One trial: spectral-norm target (H heads), theory-initialised source at ``bounds`` widths for C, ticket by
``slt.construct.mha``; the error is the worst over random inputs at several T (full, causal and random masks)
and adversarially optimised inputs; a trial fails when it exceeds eps (failure-rate test as for Lemma 7).
The a-posteriori chain (deterministic, no probability): for every input tried, each step S2b..S3c measured on
the ticket must obey ``bounds.get("theorem9").term(step, dQK_max=.., dVO_max=..)``.
"""
from __future__ import annotations

import numpy as np

import bounds
from slt import targets
from slt.construct import mha
from slt.measure import calibration, strategies
from slt.measure.adversarial import ball, maximise
from slt.measure.attention import (CHAIN, chain, chain_terms, input_battery, output_error, worst_adversarial,
                                   worst_random)
from slt.measure.evidence import Case, cases_result, exceeds, report_failures
from slt.measure.numerics import LARGE_VALUES, Large, Numerics, Property, Search, trials
from slt.measure.probabilistic import RateCheck
from slt.measure.sources import TOL, block_widths, solve_options
from slt.models import mha as mha_output
from slt.samplers import as_rng, attention_mask, inputs, source_mha, target_mha

STATEMENT = "theorem9"
LENGTHS = (2, 16, 256)
WINDOWS = dict(d1=(2, 4), d2=(2, 4), H=[1, 2, 4], alpha=strategies.Scaled(1.0, 1.5),
               eps=strategies.LogUniform(0.1, 0.5))
RATE = RateCheck(STATEMENT, (0.2, 0.5))
LONG_WINDOWS = dict(d1=(2, 8), d2=(2, 8), H=[1, 2, 4], alpha=strategies.Scaled(1.0, 2.0),
                    eps=strategies.LogUniform(0.05, 0.5))
"""The slow check's window (inputs of length 1024 and 4096)."""
LONG_RATE = RateCheck(STATEMENT, LONG_WINDOWS["eps"])


def build(seed: int, C: float, d1: int, d2: int, H: int, alpha: float, eps: float, tol=TOL, solver=None,
          target=None):
    """``(target, ticket, widths)`` of one trial (seeded target and source)."""
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


def chain_task(seed: int, C: float, point: dict) -> dict:
    """The run record's a-posteriori chain on one ticket: per step, the worst measured/bound ratio over inputs."""
    return cases_result(chain_cases(seed, C, **point))


def length_task(seed: int, C: float, point: dict, lengths: list) -> dict:
    """One ticket, worst error per T: random inputs (every mask kind) and the adversarial T=4 inputs found on the
    ticket, lifted to length T (first three tokens kept, the fourth repeated); with the a-posteriori chain bound and
    the Lipschitz bound through ||X|| at each T."""
    d1, d2, alpha = point["d1"], point["d2"], point["alpha"]
    target, ticket, widths = build(seed, C, **point)
    _, X4, _ = worst_adversarial(ticket.pruned, target, seed, 4, d1, alpha, restarts=2)
    st = bounds.get(STATEMENT)
    rows = []
    for T in lengths:
        rand, _ = worst_random(ticket.pruned, target, seed, [T], d1, alpha, batch=1)
        X = np.concatenate([X4[:3], np.repeat(X4[3:], max(T - 3, 0), axis=0)])[:T] if T >= 4 else X4[:T]
        adv = output_error(ticket.pruned, target, X)
        lip = sum(st.term("lipschitz", d1=d1, d2=d2, alpha=alpha, T=T, dQK_max=float(q)) +
                  st.term("S3b", d1=d1, d2=d2, alpha=alpha, dVO_max=float(v))
                  for q, v in zip(ticket.qk_max_error, ticket.vo_max_error))
        chain_ = sum(st.term("head", d1=d1, d2=d2, alpha=alpha, dQK_max=float(q), dVO_max=float(v))
                     for q, v in zip(ticket.qk_max_error, ticket.vo_max_error))
        rows.append({"T": T, "random": float(rand), "adversarial": float(adv), "bound": point["eps"],
                     "chain": float(chain_), "lipschitz": float(lip),
                     "violated": bool(max(rand, adv) > point["eps"])})
    return {"info": {**point, "C": C, "widths": widths}, "rows": rows}


def long_mha(X, weights) -> np.ndarray:
    """``slt.models.mha(X, weights)`` with the full mask for d1 = 2 in O(T) memory, time O(H T^2): per head the
    Numba kernel ``slt._sweep_kernels.merged_attention`` (merged form; row maximum, then exponentials), with no
    (T, T) matrix, which at T = 2^16 would take 34 GB per head."""
    QK, VO = weights.merged()
    from slt._sweep_kernels import merged_attention  # Numba: imported when a long sequence is evaluated

    return sum(merged_attention(X, QK[h], VO[h]) for h in range(QK.shape[0]))


def long_cases(seed: int, d2: int, H: int, eps: float, lengths, C: float | None = None):
    """Tickets (d1 = 2, alpha = sqrt(max(d1, d2)), built by the proof's construction at ``C``, default the checks'
    constant) evaluated on unit-sphere inputs scaled to alpha at every T in ``lengths``, in O(T) memory
    (``long_mha``); returns ``(cases, agreement)`` (agreement: the largest difference from
    ``slt.models.mha`` on a T = 16 input)."""
    d1 = 2
    alpha = float(np.sqrt(max(d1, d2)))
    C = calibration.check_constant(STATEMENT) if C is None else float(C)
    target, ticket, widths = build(seed, C, d1, d2, H, alpha, eps)
    short = inputs(seed, 16, d1, alpha)
    agreement = float(max(np.abs(long_mha(short, w) - mha_output(short, w)).max() for w in (target, ticket.pruned)))
    cases = []
    for T in lengths:
        X = inputs(seed + T, T, d1, alpha, sphere=True)
        err = float(np.linalg.norm(long_mha(X, ticket.pruned) - long_mha(X, target), axis=-1).max())
        cases.append(Case(STATEMENT, {"C": C, "d1": d1, "d2": d2, "H": H, "alpha": alpha, "eps": eps, "T": int(T),
                                      "mask": "full"}, seed, err, eps, what="max_i ||Attn_S - Attn_T|| (long input)",
                          violated=exceeds(err, eps), widths=widths))
    return cases, agreement


def long_inputs_up_to_4096():
    """The failure rate at inputs of length 1024 and 4096 (``LONG_WINDOWS``, ``LONG_RATE``)."""
    C = calibration.check_constant(STATEMENT)

    def hold(point):
        params = {k: point[k] for k in ("d1", "d2", "H", "alpha", "eps")}
        LONG_RATE.run(C, params, lambda s, c, **p: trial(s, c, lengths=(1024, 4096), **p), point["seed"])

    strategies.hold(STATEMENT, LONG_WINDOWS, 4, hold, key="long")


def length_up_to_2_16_on_the_cpu():
    """T = 2^12, 2^14, 2^16 on the CPU in O(T) memory (minutes)."""
    cases, agreement = long_cases(seed=5, d2=2, H=2, eps=0.2, lengths=(2**12, 2**14, 2**16))
    assert agreement <= 1e-12, f"the long-sequence kernel and slt.models.mha differ by {agreement:.3g}"
    assert not report_failures(cases), report_failures(cases)


CALIBRATION_GRID = [{"d1": d1, "d2": d2, "H": H, "alpha": max(d1, d2) ** 0.5, "eps": eps}
                    for d1, d2, H, eps in ((2, 2, 2, 0.2), (2, 2, 1, 0.3), (3, 2, 4, 0.3))]

CHAIN_POINT = {"d1": 3, "d2": 2, "H": 2, "alpha": 3**0.5, "eps": 0.2}
"""The run record's a-posteriori chain: one ticket at this point."""
LENGTH_POINT = {"d1": 2, "d2": 2, "H": 2, "alpha": 2**0.5, "eps": 0.2}
SWEEP_LENGTHS = {"quick": [2**k for k in range(1, 13)], "full": [2**k for k in range(1, 15)]}
"""The run record's one-ticket length sweep: T per profile at ``LENGTH_POINT``."""


def target_draw(seed: int, params: dict):
    return target_mha(as_rng(seed), params["d1"], params["d2"], params["H"])


ORDER = 40
NUMERICS = Numerics(
    STATEMENT, windows=WINDOWS, trial=trial, rerun=rerun, rate=RATE,
    rate_points=[{"d1": d1, "d2": d2, "H": H, "alpha": max(d1, d2) ** 0.5, "eps": eps}
                 for d1, d2, H, eps in ((2, 2, 1, 0.2), (2, 3, 2, 0.2), (4, 4, 4, 0.3))],
    rate_trials=trials(quick=6, full=40),
    calibration=CALIBRATION_GRID,
    large=Large(factors={k: LARGE_VALUES[k] for k in ("d1", "d2", "H", "eps")}, alpha="sqrt(max(d1, d2))"),
    searches=(Search("chain:theorem9", chain_task, lambda profile, C: {"C": C, "point": CHAIN_POINT}, needs_C=True,
                     title="Theorem 9: a-posteriori chain (per step, worst ratio over inputs)"),
              Search("length:theorem9", length_task,
                     lambda profile, C: {"C": C, "point": LENGTH_POINT, "lengths": SWEEP_LENGTHS[profile]},
                     needs_C=True, title="Theorem 9: length independence of one ticket")),
    chain=chain_cases,
    examples={"rate": 2, "chain": 4},
    properties=(Property(long_inputs_up_to_4096, slow=True),
                Property(length_up_to_2_16_on_the_cpu, slow=True,
                         thorough_only="T = 2^16 takes minutes on 2 cores")),
    target_draw=target_draw,
)
