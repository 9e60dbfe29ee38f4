"""Theorem 11 (docs/statements.md#theorem11): one transformer block without normalisation; at widths n_MHA, n_FC a ticket has
``max_i ||Blk_S(x_i) - Blk_T(x_i)|| <= eps`` for every input, w.p. >= 1 - eps.

One trial: spectral-norm target block (H heads, FC of L layers of width d1), theory-initialised source, ticket by
``slt.construct.block``; error over random and adversarial inputs and masks; failure-rate test at Theorem 11's own
calibrated constant. (Borrowing Theorem 9's constant, C = 2.1, failed 4 of 8 trials: worst error 0.93 > eps = 0.2
at d1 = 2, H = 2, L = 1, alpha = sqrt 2: the block needs its own C. Re-run: ``slth rate theorem11 d1=2 H=2 L=1
alpha=1.4142135623730951 eps=0.2 --C 2.1 --trials 8 --seed 0``.)
"""
from __future__ import annotations

from slt.construct import block as construct
from slt import targets
from slt.measure import strategies
from slt.measure.evidence import Case, exceeds
from slt.measure.networks import sequence_error
from slt.measure.numerics import LARGE_VALUES, Large, Numerics, trials
from slt.measure.probabilistic import RateCheck
from slt.measure.sources import TOL, block_widths, solve_options
from slt.models import block
from slt.samplers import as_rng, source_block, target_block

STATEMENT = "theorem11"
WINDOWS = dict(d1=(2, 3), H=[1, 2], L=(1, 2), alpha=strategies.Scaled(1.0, 1.5), eps=strategies.LogUniform(0.1, 0.5))
RATE = RateCheck(STATEMENT, (0.2, 0.5))


def trial(seed: int, C: float, d1: int, H: int, L: int, alpha: float, eps: float, tol=TOL,
          solver=None, target=None) -> Case:
    spec = target
    widths = block_widths(STATEMENT, C, d1, H=H, L=L, alpha=alpha, eps=eps)
    rng = as_rng(seed)
    target = targets.apply(target_block(rng, d1, H, L=L), spec, seed)
    source = source_block(rng, d1, H, widths["n_MHA"], widths["n_FC"], L=L)
    ticket = construct(target, source, **solve_options(tol, solver, max(widths.values()) > 40 * d1))
    err, where = sequence_error(lambda X, M: block(X, ticket.pruned, M), lambda X, M: block(X, target, M), d1, alpha,
                                seed)
    return Case(STATEMENT, {"C": C, "d1": d1, "H": H, "L": L, "alpha": alpha, "eps": eps, **targets.named(spec)}, seed, err, eps,
                what="max_i ||Blk_S - Blk_T||", violated=exceeds(err, eps), detail=f"worst at {where}", widths=widths)


CALIBRATION_GRID = [{"d1": 2, "H": 1, "L": 1, "alpha": 2 ** 0.5, "eps": 0.3},
                    {"d1": 2, "H": 2, "L": 1, "alpha": 2 ** 0.5, "eps": 0.2}]


def target_draw(seed: int, params: dict):
    return target_block(as_rng(seed), params["d1"], params["H"], L=params["L"])


ORDER = 60
NUMERICS = Numerics(
    STATEMENT, windows=WINDOWS, trial=trial, rate=RATE,
    rate_points=({"d1": 2, "H": 2, "L": 1, "alpha": 2 ** 0.5, "eps": 0.2},),
    rate_trials=trials(quick=6, full=40),
    calibration=CALIBRATION_GRID,
    large=Large(factors={k: LARGE_VALUES[k] for k in ("d1", "H", "L", "eps")}, alpha="sqrt(d1)"),
    examples={"rate": 2},
    target_draw=target_draw,
)
