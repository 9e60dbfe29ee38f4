"""Batching of the constructions' subset sums: every construction is split into a *setup* (its subset-sum
problems) and a *finish* (the masks mapped back onto the source weights), so that a block or a whole
transformer solves all its entries in one solver call per distinct item count n'."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Setup:
    """Subset-sum rows ``items (m, n')``, ``targets (m,)``, and ``finish(masks (m, n')) -> ticket``."""
    items: np.ndarray
    targets: np.ndarray
    finish: Callable


def run(setups, tol=None, threads=None, solver=None, **solve_options):
    """Solve the rows of all ``setups`` with ``slt.subset_sum.solve``, one call per distinct n', and return
    the finished tickets in order. ``solve_options`` (e.g. ``best_effort=True`` for n' > 40) go to the solver.

    ``solver(items, targets) -> masks`` replaces ``slt.subset_sum.solve`` (e.g. a mixed-integer solver from
    ``slt.mip``, to show what the same construction gives at that solver's tolerances)."""
    if solver is None:
        from slt.subset_sum import solve  # Numba: imported by a construction, not by the catalogues that name one

        def solver(items, targets):
            return solve(items, targets, tol=tol, threads=threads, **solve_options)[0]
    elif tol is not None or threads is not None or solve_options:
        raise ValueError("tol, threads and solve options apply to slt.subset_sum only, not to a given solver")
    setups = list(setups)
    tickets = [None] * len(setups)
    for width in sorted({s.items.shape[1] for s in setups}):
        group = [i for i, s in enumerate(setups) if s.items.shape[1] == width]
        masks = solver(np.concatenate([setups[i].items for i in group]),
                       np.concatenate([setups[i].targets for i in group]))
        bounds = np.cumsum([0] + [len(setups[i].targets) for i in group])
        for i, a, b in zip(group, bounds[:-1], bounds[1:]):
            tickets[i] = setups[i].finish(np.asarray(masks[a:b], dtype=bool))
    return tickets
