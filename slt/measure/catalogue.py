"""The catalogue of the measuring library: one ``Numerics`` declaration per statement (``slt.measure.numerics``).

The only module of ``slt`` that imports every statement module (as ``bounds.catalogue`` does for the statements
themselves). Everything that measures (the run record's empirical part, ``slth calibrate``, ``slth rate``, the
re-run command, the checks) finds a statement's numerics here. The order is the run record's: the failure-rate
checks first, in this order, then the deterministic searches, in this order.
"""
from __future__ import annotations

import bounds
from slt.inputs import InputError
from slt.measure.numerics import Numerics
from slt.measure.statements import (lemma12, lemma13, lemma2, lemma5, lemma7, lemma8, lueker, theorem10, theorem11,
                                    theorem14, theorem9)

NUMERICS: dict[str, Numerics] = {n.statement: n for n in (
    lueker.NUMERICS,
    lemma7.NUMERICS,
    lemma2.NUMERICS,
    theorem9.NUMERICS,
    theorem10.NUMERICS,
    theorem11.NUMERICS,
    theorem14.NUMERICS,
    lemma8.NUMERICS,
    lemma5.NUMERICS,
    lemma12.NUMERICS,
    lemma13.NUMERICS,
)}


def mismatches(numerics=None, statements=None) -> list[str]:
    """What keeps the measuring catalogue from matching ``bounds``' (default: ``NUMERICS`` and ``bounds.names()``):
    a statement of ``bounds`` without numerics, numerics of a statement ``bounds`` does not have."""
    numerics = NUMERICS if numerics is None else numerics
    statements = bounds.names() if statements is None else statements
    return ([f"{name}: a statement of bounds without numerics in slt.measure.catalogue" for name in statements
             if name not in numerics]
            + [f"{name}: numerics in slt.measure.catalogue of a statement bounds does not have" for name in numerics
               if name not in statements])


def names() -> list[str]:
    return list(NUMERICS)


def get(statement: str) -> Numerics:
    """The numerics of ``statement`` (canonical name or alias such as "Theorem 3"); ``KeyError`` naming the known
    ones otherwise."""
    try:
        return NUMERICS[bounds.get(statement).name]
    except KeyError:
        raise KeyError(f"no statement {statement!r} in the measuring catalogue (known: {', '.join(NUMERICS)})") from None


def probabilistic() -> list[str]:
    """Statements with a failure-rate check (a trial and a ``RateCheck``), in the catalogue's order."""
    return [n.statement for n in NUMERICS.values() if n.trial is not None and (n.rate or n.rate_at)]


def calibratable(grid: str = "checks") -> list[str]:
    """Statements ``slth calibrate`` estimates C for on ``grid``: probabilistic in ``bounds`` with a trial and a
    checks calibration grid (``grid="checks"``, in the order of ``bounds``), and a large grid (``"large"``, in the
    catalogue's order)."""
    ok = [n.statement for n in NUMERICS.values()
          if n.trial is not None and n.calibration and bounds.get(n.statement).probability is not None]
    if grid == "large":
        return [name for name in ok if NUMERICS[name].large is not None]
    order = bounds.names()
    return sorted(ok, key=lambda name: order.index(name) if name in order else len(order))


class CatalogueError(InputError):
    """A statement name the catalogue cannot use for what was asked (a one-line message naming it)."""


def resolve(names, grid: str = "checks") -> list[str]:
    """Canonical names of ``names`` (aliases such as "Theorem 3" accepted) that ``slth calibrate`` can calibrate on
    ``grid``; None or empty: every one of them. ``CatalogueError`` for an unknown or uncalibratable name."""
    ok = calibratable(grid)
    if not names:
        return ok
    out = []
    for name in names:
        try:
            canon = bounds.get(name).name
        except KeyError:
            raise CatalogueError(f"unknown statement {name!r}; calibratable: {', '.join(ok)}") from None
        if canon not in ok:
            why = ("it is deterministic (no 'with probability 1 - eps')" if bounds.get(canon).probability is None
                   else f"it has no {grid} calibration grid")
            raise CatalogueError(f"statement {name!r} ({canon}) cannot be calibrated: {why}; "
                                 f"calibratable: {', '.join(ok)}")
        out.append(canon)
    return list(dict.fromkeys(out))
