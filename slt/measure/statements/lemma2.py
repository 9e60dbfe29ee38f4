"""Lemma 2 (Pensia et al. 2020; docs/statements.md#lemma2): with ``n = width("n", C)`` hidden ReLU units, w.p. >= 1 - eps a
ticket has ``||W x - F_S(x)|| <= eps`` for every ``||x|| <= 1``.

One trial: target ``||W|| <= 1``, iid U[-1,1] sources, ticket by ``slt.construct.lemma2`` (sign split), error the
worst over random and adversarial x in the unit ball; failure-rate test as for Lemma 7.
"""
from __future__ import annotations

from slt.construct import lemma2
from slt import targets
from slt.measure import strategies
from slt.measure.evidence import Case, exceeds
from slt.measure.networks import vector_error
from slt.measure.numerics import LARGE_VALUES, Large, Numerics, trials
from slt.measure.probabilistic import RateCheck
from slt.measure.sources import TOL, block_widths, lemma7_pair, matrix_target, solve_options
from slt.models import relu_net

STATEMENT = "lemma2"
WINDOWS = dict(d1=(1, 4), d2=(1, 4), eps=strategies.LogUniform(0.05, 0.5))
RATE = RateCheck(STATEMENT, (0.1, 0.5))


def trial(seed: int, C: float, d1: int, d2: int, eps: float, tol=TOL, solver=None, target=None) -> Case:
    widths = block_widths(STATEMENT, C, d1, d2=d2, eps=eps)
    W, W1, W2 = lemma7_pair(seed, d1, d2, widths["n"], target)
    ticket = lemma2(W, W1, W2, **solve_options(tol, solver, widths["n"] > 40 * d1))
    pruned = [W1 * ticket.M1, W2 * ticket.M2]
    err, _ = vector_error(lambda X: relu_net(X, pruned), lambda X: X @ W.T, d1, 1.0, seed, restarts=1)
    return Case(STATEMENT, {"C": C, "d1": d1, "d2": d2, "eps": eps, **targets.named(target)}, seed, err, eps,
                what="sup_{||x||<=1} ||Wx - F_S(x)||", violated=exceeds(err, eps), widths=widths)


CALIBRATION_GRID = [{"d1": d1, "d2": d2, "eps": eps} for d1, d2 in ((2, 2), (4, 4)) for eps in (0.1, 0.3)]


ORDER = 30
NUMERICS = Numerics(
    STATEMENT, windows=WINDOWS, trial=trial, rate=RATE,
    rate_points=({"d1": 2, "d2": 2, "eps": 0.1}, {"d1": 4, "d2": 3, "eps": 0.2}),
    rate_trials=trials(quick=12, full=80),
    calibration=CALIBRATION_GRID,
    large=Large(factors={k: LARGE_VALUES[k] for k in ("d1", "d2", "eps")}),
    examples={"rate": 2},
    target_draw=matrix_target,
)
