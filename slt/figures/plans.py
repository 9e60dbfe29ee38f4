"""What each figure's sweep computes (``Plan``) and the protocol constants shared by the figure definitions.

Protocol (experiments.md; the choices the paper leaves open are marked *choice* in the figure modules):
every sweep runs with both source initialisations, ``theory`` and ``xavier`` (Section 4.1 vs Appendix B.1);
tickets by ``slt.construct`` with every subset sum solved by ``slt.subset_sum.solve`` to the absolute tolerance
``TOL`` per entry (the exact optimum whenever that is above ``TOL``; n' > 40 through the solver's windowed
best-effort search); the mixed-integer variant solves the same subset sums with ``slt.mip.solve`` at the solver's
default tolerances with a per-entry time limit ``MIP_TIME_LIMIT``.
"""
from __future__ import annotations

import dataclasses

__all__ = ["TOL", "MIP_TIME_LIMIT", "FIT_FLOOR", "D1", "D_K", "INITS", "VERSION", "Plan", "even"]

#: Absolute per-entry tolerance of the subset sums (far below a mixed-integer solver's ~1e-7 floor).
TOL = 1e-9
#: Per-entry time limit (s) of the mixed-integer solver (HiGHS can take minutes per entry at n' = 30).
MIP_TIME_LIMIT = 10.0
#: Errors at or below this are at the tolerance floor of ``TOL`` and are left out of the log fits.
FIT_FLOOR = 1e-7
D1, D_K = 2, 8
INITS = ("theory", "xavier")
#: Bumped when an item's computation changes in a way the code fingerprint cannot see.
VERSION = 1


@dataclasses.dataclass(frozen=True)
class Plan:
    """What one figure's sweep computes: widths x lengths x initialisations x ``sources`` seeds."""

    figure: str
    widths: tuple
    lengths: tuple
    sources: int
    test_batch: int
    blocks: int = 1
    inits: tuple = INITS
    mip_widths: tuple = ()
    mip_sources: int = 0
    mip_inits: tuple = ("theory",)


def even(lo, hi, step):
    return tuple(range(lo, hi + 1, step))
