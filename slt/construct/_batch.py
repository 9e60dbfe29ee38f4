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


def run(setups, tol=None, threads=None, **solve_options):
    """Solve the rows of all ``setups`` with ``slt.subset_sum.solve``, one call per distinct n', and return
    the finished tickets in order. ``solve_options`` (e.g. ``best_effort=True`` for n' > 40) go to the solver."""
    from slt.subset_sum import solve

    setups = list(setups)
    tickets = [None] * len(setups)
    for width in sorted({s.items.shape[1] for s in setups}):
        group = [i for i, s in enumerate(setups) if s.items.shape[1] == width]
        masks = solve(np.concatenate([setups[i].items for i in group]),
                      np.concatenate([setups[i].targets for i in group]),
                      tol=tol, threads=threads, **solve_options)[0]
        bounds = np.cumsum([0] + [len(setups[i].targets) for i in group])
        for i, a, b in zip(group, bounds[:-1], bounds[1:]):
            tickets[i] = setups[i].finish(np.asarray(masks[a:b], dtype=bool))
    return tickets
