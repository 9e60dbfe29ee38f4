"""The paper's statements held against the harness: one line per statement, one test per kind of check.

What each kind does lives in the measuring library (``slt.measure.checking``), what each statement measures in its
``Numerics`` (``slt/measure/statements/<name>.py``, listed by ``slt.measure.catalogue``). A failing case is named by
its test and statement (``checks/test_statements.py::test_rate[theorem9]``) and prints the command that re-runs it
(``python -m slt.measure.rerun ...``). Failure-rate checks (``test_rate`` at drawn points and the worst target
family, ``test_families`` at every target family) build at the calibrated C and draw as many independent trials
per point as detect a failure rate of 2 eps with power 0.8 at 0.05 / m, m the rate tests of the run (Holm's
family-wise 0.05; ``slth rate --plan``).
"""
from __future__ import annotations

import pytest

from slt.measure import checking

STATEMENTS = [
    "lueker",     # failure rate over lueker.window(C) (drawn, never clamped); the exact covering radius
    "lemma7",     # failure rate at the calibrated width
    "lemma2",     # failure rate at the calibrated width
    "lemma8",     # holds for random and adversarial inputs, T = 2 .. 2^14
    "lemma5",     # holds for random and adversarial inputs, T = 2 .. 2^14
    "theorem9",   # failure rate; a-posteriori chain for every input; long inputs (slow); T up to 2^16 (thorough)
    "theorem10",  # failure rate at the calibrated widths
    "theorem11",  # failure rate at the calibrated widths
    "lemma12",    # holds under adversarial search (the proof's reading)
    "lemma13",    # holds under adversarial search (the proof's form); the printed form's counterexample
    "theorem14",  # failure rate at the calibrated widths
]


def test_every_statement_of_the_catalogue_has_a_line():
    assert checking.unlisted(STATEMENTS) == []


@pytest.mark.parametrize("name", checking.having(STATEMENTS, "rate"))
def test_rate(name):
    checking.rate(name)


@pytest.mark.parametrize("name", checking.having(STATEMENTS, "families"))
def test_families(name):
    checking.families(name)


@pytest.mark.parametrize("name", checking.having(STATEMENTS, "chain"))
def test_chain(name):
    checking.chain(name)


@pytest.mark.parametrize("name", checking.having(STATEMENTS, "holds"))
def test_holds(name):
    checking.holds(name)


@pytest.mark.parametrize("name, prop", checking.properties(STATEMENTS, slow=False),
                         ids=lambda v: v if isinstance(v, str) else v.name)
def test_property(name, prop):
    prop.fn()


@pytest.mark.slow
@pytest.mark.thorough
@pytest.mark.parametrize("name, prop", checking.properties(STATEMENTS, slow=True),
                         ids=lambda v: v if isinstance(v, str) else v.name)
def test_slow(name, prop, request):
    if prop.thorough_only and request.config.getoption("--slth-profile") != "thorough":
        pytest.skip(f"thorough profile only (SLTH_PROFILE=thorough): {prop.thorough_only}")
    prop.fn()
