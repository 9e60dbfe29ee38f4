"""The machinery of ``checks/test_statements.py``: each kind of check, run from a statement's ``Numerics``.

The check module lists the statements, one line each, and parametrises one test per kind over them (as SciPy's
``test_mpmath.py`` does for functions); what a check does lives here:

- ``rate``: the failure-rate check (``Numerics.rate_check``) at the checks' constant
  (``slt.measure.calibration.check_constant``) on the points drawn from the statement's windows (eps from the
  check's own window);
- ``chain``: an a-posteriori chain on one ticket per drawn point; every step must obey its bound;
- ``holds``: a deterministic statement at every drawn point (random and adversarial cases);
- ``properties``: a statement's checks of their own shape (``Numerics.properties``: ``fn()`` asserts).

A failing check raises ``AssertionError`` with the statement, parameters, seed, measured value, bound and the
command that re-runs exactly that case (``python -m slt.measure.rerun ...``).
"""
from __future__ import annotations

from slt.measure import calibration, catalogue, strategies
from slt.measure.evidence import report_failures

KINDS = ("rate", "chain", "holds")


def having(statements, kind: str) -> list[str]:
    """The statements of ``statements`` that have a check of ``kind`` (``KINDS``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of check {kind!r}; expected one of {KINDS}")
    wanted = {"rate": lambda n: n.trial is not None and (n.rate or n.rate_at), "chain": lambda n: n.chain,
              "holds": lambda n: n.holds}[kind]
    return [name for name in statements if wanted(catalogue.get(name))]


def properties(statements, slow: bool) -> list[tuple]:
    """``(statement, Property)`` of the statements' own checks, the slow ones or the others."""
    return [(name, p) for name in statements for p in catalogue.get(name).properties if p.slow == slow]


def unlisted(statements) -> list[str]:
    """Statements of the catalogue missing from ``statements`` (a check module must list every one)."""
    return [name for name in catalogue.names() if name not in statements]


def rate(statement: str) -> None:
    numerics = catalogue.get(statement)
    C = calibration.check_constant(statement)
    check = numerics.rate_check(C)
    windows = {**numerics.windows, "eps": strategies.LogUniform(*check.eps)}

    def hold(point):
        check.run(C, {k: v for k, v in point.items() if k != "seed"}, numerics.trial, point["seed"])

    strategies.hold(statement, windows, numerics.examples["rate"], hold, key="rate")


def chain(statement: str) -> None:
    numerics = catalogue.get(statement)
    C = calibration.check_constant(statement)

    def hold(point):
        found = numerics.chain(point["seed"], C, **{k: v for k, v in point.items() if k != "seed"})
        assert not report_failures(found), report_failures(found)

    strategies.hold(statement, numerics.windows, numerics.examples["chain"], hold, key="chain")


def holds(statement: str) -> None:
    numerics = catalogue.get(statement)

    def hold(point):
        found = numerics.holds(point)
        assert not report_failures(found), report_failures(found)

    strategies.hold(statement, numerics.windows, numerics.examples["holds"], hold, key="holds")
