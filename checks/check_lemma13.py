"""Lemma 13 (theorems.md §8): a target block moves by at most ``2 H sqrt(d1) (alpha (exp(4 alpha eps_max) - 1)
+ 2 eps_max)`` (the proof's form, with the factor 2; this is the form the check holds) when every token moves by
at most eps_max; target MHA and FC net with spectral norms <= 1.

Deterministic, adversarial search (``checks.lipschitz``). ``printed_search`` measures the printed statement
(bounds variant ``printed``: without the factor 2) and reports its worst ratio; above 1 is a counterexample to the
printed form.
"""
from __future__ import annotations

from hypothesis import given

from checks import strategies
from checks.evidence import Case, exceeds, report_failures
from checks.lipschitz import counterexample, search

STATEMENT = "lemma13"
KIND = "block"
WINDOWS = dict(d1=(1, 2), H=[1, 2], alpha=strategies.Scaled(1.0, 2.0), eps_max=strategies.LogUniform(1e-3, 0.5),
               T=[2, 3, 4])


def statement(form: str):
    """The Statement of the proof's form (``"proof"``) or the printed one (``"printed"``, a bounds variant)."""
    import bounds

    st = bounds.get(STATEMENT)
    return st if form == "proof" else st.variants[form].apply({STATEMENT: st})[STATEMENT]


def measure(seed: int, d1: int, H: int, alpha: float, eps_max: float, T: int, inside: bool = True,
            restarts: int = 2, maxiter: int = 40, form: str = "proof") -> Case:
    bound = statement(form).evaluate(d1=d1, H=H, alpha=alpha, eps_max=eps_max)
    ratio, value, args, mask = search(KIND, bound, T, d1, H, alpha, eps_max, seed, inside, restarts, maxiter)
    violated = exceeds(value, bound)
    return Case(STATEMENT, {"d1": d1, "H": H, "alpha": alpha, "eps_max": eps_max, "T": T, "inside": inside, "form": form}, seed,
                value, bound, what="max_i ||F(x_i) - F(x'_i)||", violated=violated,
                detail=f"form: {form}; " + ("||x'_i|| <= alpha" if inside else "||x'_i|| <= alpha + eps_max"),
                counterexample=counterexample(args, mask) if violated else None)


def printed_search(seed: int, points, restarts: int = 4, maxiter: int = 80) -> list[Case]:
    """The printed form (no factor 2) at each point of ``points`` (dicts of d1, H, alpha, eps_max, T)."""
    return [measure(seed, **p, inside=True, restarts=restarts, maxiter=maxiter, form="printed") for p in points]


def rerun(seed: int, d1: int, H: int, alpha: float, eps_max: float, T: int, inside: bool = True, form="proof"):
    return [measure(seed, d1, H, alpha, eps_max, T, inside, restarts=4, maxiter=80, form=form)]


PRINTED_POINTS = [{"d1": 1, "H": 1, "alpha": 1.0, "eps_max": e, "T": T} for e in (0.001, 0.01, 0.1) for T in (2, 3, 4)]


@strategies.examples(3)
@given(point=strategies.parameters(STATEMENT, **WINDOWS))
def test_lemma13_holds_under_adversarial_search(point):
    case = measure(point["seed"], point["d1"], point["H"], point["alpha"], point["eps_max"], point["T"])
    assert not report_failures([case]), report_failures([case])
