"""Theorem 14 / Theorem 6 (docs/statements.md#theorem14): a transformer of B blocks without normalisation; at the per-block widths
``width("n_MHA"/"n_FC", b=b, B=B)`` a ticket has ``max_i ||Tf_S(x_i) - Tf_T(x_i)|| <= eps`` w.p. >= 1 - eps.

The worst-case widths grow like ``C d1 (B^2 log(4 H sqrt d1) + ...)``: to keep them buildable the checks use
d1 = 2, H = 1, L = 1, B in {2, 3, 4} (n' up to 217 at B = 4, eps = 0.1, alpha = 1.2 sqrt 2 and the checked
C = 4.5: the solver's documented best-effort mode above 40 items) and calibrate C on B = 2, 3, 4 with C <= 10
(``feasible``: at C = 10, B = 4, eps = 0.3, alpha = sqrt 2 the widths reach n' = 453; both from
``widths(C, 2, 1, 1, alpha, eps, 4)``). Small C fail: at C = 1, B = 2, seed 2 the error is 1.41 > eps = 0.105
(``python -m slt.measure.rerun theorem14 --seed 2 C=1.0 d1=2 H=1 L=1 alpha=1.4142135623730951 eps=0.105 B=2``).
"""
from __future__ import annotations

import bounds
from slt.construct import transformer as construct
from slt import targets
from slt.measure import strategies
from slt.measure.evidence import Case, exceeds
from slt.measure.networks import sequence_error
from slt.measure.numerics import Large, Numerics, trials
from slt.measure.probabilistic import RateCheck
from slt.measure.sources import TOL, solve_options
from slt.models import transformer
from slt.samplers import as_rng, source_transformer, target_transformer

STATEMENT = "theorem14"
WINDOWS = dict(d1=[2], H=[1], L=[1], B=[2, 3, 4], alpha=strategies.Scaled(1.0, 1.2),
               eps=strategies.LogUniform(0.1, 0.5))
RATE = RateCheck(STATEMENT, (0.2, 0.5))


def widths(C: float, d1: int, H: int, L: int, alpha: float, eps: float, B: int) -> dict:
    st = bounds.get(STATEMENT)
    return {name: tuple(d1 * -(-st.width(name, C=C, d1=d1, H=H, L=L, alpha=alpha, eps=eps, B=B, b=b) // d1)
                        for b in range(1, B + 1)) for name in ("n_MHA", "n_FC")}


def trial(seed: int, C: float, d1: int, H: int, L: int, alpha: float, eps: float, B: int, tol=TOL,
          solver=None, target=None) -> Case:
    spec = target
    w = widths(C, d1, H, L, alpha, eps, B)
    rng = as_rng(seed)
    target = targets.apply(target_transformer(rng, B, d1, H, L=L), spec, seed)
    source = source_transformer(rng, B, d1, H, w["n_MHA"], w["n_FC"], L=L)
    ticket = construct(target, source, **solve_options(tol, solver, max(max(v) for v in w.values()) > 40 * d1))
    err, where = sequence_error(lambda X, M: transformer(X, ticket.pruned, M), lambda X, M: transformer(X, target, M),
                                d1, alpha, seed, lengths=(2, 16, 64))
    return Case(STATEMENT, {"C": C, "d1": d1, "H": H, "L": L, "alpha": alpha, "eps": eps, "B": B, **targets.named(spec)}, seed, err, eps,
                what="max_i ||Tf_S - Tf_T||", violated=exceeds(err, eps), detail=f"worst at {where}", widths=w)


CALIBRATION_GRID = [{"d1": 2, "H": 1, "L": 1, "alpha": 2 ** 0.5, "eps": 0.3, "B": B} for B in (2, 3, 4)]


def feasible(C: float, **point) -> bool:
    """The C grid of the calibration stops at 10 (buildable widths; see the module docstring)."""
    return C <= 10.0


def target_draw(seed: int, params: dict):
    return target_transformer(as_rng(seed), params["B"], params["d1"], params["H"], L=params["L"])


ORDER = 70
NUMERICS = Numerics(
    STATEMENT, windows=WINDOWS, trial=trial, rate=RATE, feasible=feasible,
    rate_points=tuple({"d1": 2, "H": 1, "L": 1, "alpha": 1.5, "eps": 0.2, "B": B} for B in (2, 3, 4)),
    rate_trials=trials(quick=3, full=20),
    calibration=CALIBRATION_GRID,
    large=Large(factors={"B": (2, 3, 4), "d1": (2, 4), "H": (1, 2)}, fixed={"L": 1, "eps": 0.3}, alpha="sqrt(d1)"),
    examples={"rate": 2},
    target_draw=target_draw,
)
