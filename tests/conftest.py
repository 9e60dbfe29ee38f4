"""Fixtures shared by the unit tests."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _started_environment():
    """The environment as the session starts (``tests.coq_shared.STARTED``), set up before any test's own fixtures:
    a test may point ``$SLTH_COQ_BUILD`` elsewhere while it runs, never the user's build folder the shared library
    is compiled in."""
    from tests import coq_shared

    coq_shared.STARTED.clear()
    coq_shared.STARTED.update(os.environ)


@pytest.fixture(scope="session")
def proofs_record(tmp_path_factory):
    """One proof-only run record of the working tree (``slth run --proofs-only``), built once per session: by the
    first xdist worker that asks, in a process of its own that also fills the session's verdict store
    (``tests.coq_shared.shared_record``), and read back through ``reports.record.load`` (validated; the record is
    plain JSON, so the copy read back equals the one built)."""
    from reports import record
    from tests.coq_shared import shared_record

    return record.load(shared_record(tmp_path_factory))


@pytest.fixture(scope="session")
def docs_record(proofs_record):
    """The record the README and docs describe (``reports.statements_page.working_record``): the proof-only record
    with the measurements its findings rest on (committed results of the same code; computed once otherwise)."""
    from reports import statements_page

    return statements_page.with_findings_data(proofs_record)


@pytest.fixture(autouse=True)
def _no_stored_verdicts(monkeypatch):
    """The unit tests verify with the per-process cache only: many replace a piece of the verifier (a failing Arb
    re-check, a planted step) and must see it run, which a verdict stored on disk by an earlier run would hide
    (``bounds.prove.verdict_cache``; the checks in checks/ use it). ``SLTH_VERDICT_CACHE=off`` also reaches the commands
    these tests start. A test of the stored verdicts sets the variable to a folder of its own. The same holds for
    stored trials (``slt.measure.trial_cache``, ``SLTH_TRIAL_CACHE``): the tests that make a check fail must see
    its trials run."""
    monkeypatch.setenv("SLTH_VERDICT_CACHE", "off")
    monkeypatch.setenv("SLTH_TRIAL_CACHE", "off")
