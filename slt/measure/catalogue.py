"""The catalogue of the measuring library: one ``Numerics`` declaration per statement (``slt.measure.numerics``).

The only module of ``slt`` that imports every statement module (as ``bounds.catalogue`` does for the statements
themselves): every module of ``slt.measure.statements`` is one, found by ``pkgutil`` and declaring ``NUMERICS``
and ``ORDER``. Everything that measures (the run record's empirical part, ``slth calibrate``, ``slth rate``, the
re-run command, the checks) finds a statement's numerics here. The order is the run record's, by the modules'
``ORDER`` keys (spaced by 10): the failure-rate checks first, then the deterministic searches.
"""
from __future__ import annotations

import importlib
import pkgutil

import bounds
import slt.measure.statements
from slt.inputs import InputError
from slt.measure.numerics import Numerics


def discover(path=None, package: str = slt.measure.statements.__name__) -> dict[str, Numerics]:
    """statement -> ``NUMERICS`` of every module of ``package`` (found on ``path``, default the package's own
    ``__path__``), in the order of the modules' ``ORDER`` keys. A module without ``NUMERICS`` or ``ORDER``, or two
    with one order key or one statement, is refused (``ValueError`` naming the module)."""
    if path is None:
        path = importlib.import_module(package).__path__
    by_order: dict[int, Numerics] = {}
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        module = importlib.import_module(f"{package}.{info.name}")
        missing = [name for name in ("NUMERICS", "ORDER") if not hasattr(module, name)]
        if missing:
            raise ValueError(f"{module.__name__}: a numerics module without {' and '.join(missing)}")
        clash = by_order.get(module.ORDER) or next(
            (n for n in by_order.values() if n.statement == module.NUMERICS.statement), None)
        if clash is not None:
            raise ValueError(f"{module.__name__}: the order key {module.ORDER} or the statement "
                             f"{module.NUMERICS.statement!r} of another numerics module ({clash.statement})")
        by_order[module.ORDER] = module.NUMERICS
    return {by_order[order].statement: by_order[order] for order in sorted(by_order)}


NUMERICS: dict[str, Numerics] = discover()


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
