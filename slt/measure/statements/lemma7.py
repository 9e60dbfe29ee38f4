"""Lemma 7 / Lemma 4 (docs/statements.md#lemma7): ``||W - (W~2⊙M2)(W~1⊙M1)||_max <= eps/(d1 d2)`` w.p. >= 1 - eps.

One trial: target W (||W|| <= 1), iid U[-1,1] sources at ``n = width("n", C)`` rounded up to d1 n', the
ticket by ``slt.construct.lemma7`` (block-diagonal M1, one exact subset sum per entry). The failure rate over
independent sources must show no significant excess over eps (one-sided binomial test, ``slt.measure.stats.LEVEL``).
"""
from __future__ import annotations

import bounds
from slt.construct import lemma7
from slt import targets
from slt.measure import strategies
from slt.measure.evidence import Case, exceeds
from slt.measure.numerics import LARGE_VALUES, Large, Numerics, trials
from slt.measure.probabilistic import RateCheck
from slt.measure.sources import TOL, block_widths, lemma7_pair, matrix_target, solve_options

STATEMENT = "lemma7"
WINDOWS = dict(d1=(1, 8), d2=(1, 8), eps=strategies.LogUniform(0.05, 0.5))
RATE = RateCheck(STATEMENT, (0.1, 0.5))


def trial(seed: int, C: float, d1: int, d2: int, eps: float, tol=TOL, solver=None, target=None) -> Case:
    widths = block_widths(STATEMENT, C, d1, d2=d2, eps=eps)
    W, W1, W2 = lemma7_pair(seed, d1, d2, widths["n"], target, "max")
    ticket = lemma7(W, W1, W2, **solve_options(tol, solver, widths["n"] > 40 * d1))
    bound = bounds.get(STATEMENT).evaluate(d1=d1, d2=d2, eps=eps)
    return Case(STATEMENT, {"C": C, "d1": d1, "d2": d2, "eps": eps, **targets.named(target)}, seed, ticket.max_error, bound,
                what="||W - product||_max", violated=exceeds(ticket.max_error, bound), widths=widths)


CALIBRATION_GRID = [{"d1": d1, "d2": d2, "eps": eps} for d1, d2 in ((2, 2), (4, 4), (8, 4)) for eps in (0.1, 0.3)]


ORDER = 20
NUMERICS = Numerics(
    STATEMENT, windows=WINDOWS, trial=trial, rate=RATE,
    rate_points=({"d1": 2, "d2": 2, "eps": 0.1}, {"d1": 4, "d2": 4, "eps": 0.1}, {"d1": 8, "d2": 8, "eps": 0.2}),
    rate_trials=trials(quick=20, full=200),
    calibration=CALIBRATION_GRID,
    large=Large(factors={k: LARGE_VALUES[k] for k in ("d1", "d2", "eps")}),
    examples={"rate": 3},
    target_draw=matrix_target,
)
