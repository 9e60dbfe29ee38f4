"""Lemma 12 (docs/statements.md#lemma12): ``||Attn_T(x_i) - Attn_T(x'_i)|| <= H sqrt(d1) (alpha (exp(4 alpha eps_max) - 1)
+ eps_max)`` for ``||x_i|| <= alpha``, ``||x_i - x'_i|| <= eps_max``, any target with spectral norms <= 1.

Deterministic, adversarial search (``slt.measure.lipschitz``). The check holds the proof's reading
(``||x'_i|| <= alpha`` too); ``printed_search`` measures the printed reading (bounds variant ``printed``:
``||x'_i||`` may reach alpha + eps_max) and reports its worst ratio; a ratio above 1 is a counterexample.
"""
from __future__ import annotations

import functools

import bounds
from slt.measure import strategies
from slt.measure.evidence import Case, exceeds
from slt.measure.lipschitz import counterexample, drawn_cases, search, search_result, searches
from slt.measure.numerics import Numerics, rerun_of

STATEMENT = "lemma12"
KIND = "mha"
WINDOWS = dict(d1=(1, 2), H=[1, 2], alpha=strategies.Scaled(1.0, 2.0), eps_max=strategies.LogUniform(1e-3, 0.5),
               T=[2, 3, 4])


def measure(seed: int, d1: int, H: int, alpha: float, eps_max: float, T: int, inside: bool = True,
            restarts: int = 2, maxiter: int = 40, bound_scale: float = 1.0) -> Case:
    # bound_scale < 1 (a deliberately wrong bound) only in the tests that show this check failing
    bound = bounds.get(STATEMENT).evaluate(d1=d1, H=H, alpha=alpha, eps_max=eps_max) * bound_scale
    ratio, value, args, mask = search(KIND, bound, T, d1, H, alpha, eps_max, seed, inside, restarts, maxiter)
    violated = exceeds(value, bound)
    return Case(STATEMENT, {"d1": d1, "H": H, "alpha": alpha, "eps_max": eps_max, "T": T, "inside": inside, "restarts": restarts, "maxiter": maxiter}, seed,
                value, bound, what="max_i ||F(x_i) - F(x'_i)||", violated=violated,
                detail="reading: ||x'_i|| <= alpha" if inside else "reading: as printed, ||x'_i|| <= alpha + eps_max",
                counterexample=counterexample(args, mask) if violated else None)


def printed_search(seed: int, points, restarts: int = 4, maxiter: int = 80) -> list[Case]:
    """The printed reading at each point of ``points`` (dicts of d1, H, alpha, eps_max, T)."""
    return [measure(seed, **p, inside=False, restarts=restarts, maxiter=maxiter) for p in points]


PRINTED_POINTS = [{"d1": 1, "H": 1, "alpha": 1.0, "eps_max": e, "T": T} for e in (0.01, 0.1, 0.5) for T in (2, 3)]


def search_task(seed: int, form: str, points: list, restarts: int) -> dict:
    """The run record's adversarial search (a task): ``form`` "proof" or "printed"."""
    return search_result(measure, printed_search, seed, form, points, restarts, __name__)


ORDER = 100
NUMERICS = Numerics(
    STATEMENT, windows=WINDOWS, holds=functools.partial(drawn_cases, measure),
    rerun=rerun_of(measure, hooks=("bound_scale",)),
    searches=searches(STATEMENT, search_task, PRINTED_POINTS,
                      ("Lemma 12 (||x'|| <= alpha): adversarial search",
                       "Lemma 12 as printed (||x'|| up to alpha + eps_max)")),
    examples={"holds": 3},
)
