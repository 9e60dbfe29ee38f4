"""Targets and sources for the probabilistic checks, drawn with ``slt.samplers`` from one seed per trial."""
from __future__ import annotations

import bounds
from slt import targets
from slt.samplers import as_rng, spectral_matrices

TOL = 1e-9
"""Per-entry subset-sum tolerance of the probabilistic trials (``slt.subset_sum.solve(tol=TOL)``): each entry stops
as soon as its error is certified <= 1e-9, the performance target's tolerance. Most of a trial's time was the exact
(or best-effort, n' > 40) optimum: at the calibrated widths this tolerance makes Lemma 7 trials about 20x and
Lemma 2 / Theorems 11, 14 trials 4-5x cheaper, at errors 1e-9 instead of 1e-11 (bounds >= 1e-3). A coarser
subset can only raise the measured error, so it never hides a failure. ``tol=None`` is the exact optimum."""


def solve_options(tol, solver, best_effort: bool) -> dict:
    """Keyword arguments of a ``slt.construct`` call: the subset-sum ``tol`` (best effort above 40 items), or a
    replacement ``solver(items, targets) -> masks`` (the hook ``slt.construct._batch.run`` takes; used to weaken
    a construction in the tests that show a check failing)."""
    return {"solver": solver} if solver is not None else {"tol": tol, "best_effort": best_effort}


def block_widths(statement: str, C: float, d1: int, **params) -> dict:
    """Every width requirement of ``statement`` at C, rounded up to a multiple of d1 (n = d1 n')."""
    st = bounds.get(statement)
    return {name: d1 * -(-st.width(name, C=C, d1=d1, **params) // d1) for name in st.widths}


def lemma7_pair(rng, d1: int, d2: int, n: int, target=None, hypothesis: str = "spectral"):
    """Target W (d2, d1) with ||W|| <= 1 (hence entries in [-1, 1]) and iid U[-1,1] sources W1 (n, d1), W2 (d2, n).
    ``target``: a family of ``slt.targets`` or explicit matrices replacing the drawn W (seed ``rng``, an int, also
    seeds the family; the sources are the same whatever the target)."""
    seed, rng = rng, as_rng(rng)
    W = targets.apply(spectral_matrices(rng, (d2, d1)), target, seed, hypothesis)
    return W, rng.uniform(-1, 1, (n, d1)), rng.uniform(-1, 1, (d2, n))


def matrix_target(seed: int, params: dict):
    """The harness's random target W (d2, d1) of one trial of Lemma 2 or Lemma 7 (their ``target_draw``)."""
    return spectral_matrices(as_rng(seed), (params["d2"], params["d1"]))
