"""Fixtures shared by the unit tests."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def proofs_record():
    """One proof-only run record of the working tree (``slth run --proofs-only``), built once per session."""
    from reports.record import assemble

    return assemble.build("proofs", seed=0, command="pytest", log=lambda msg: None)
