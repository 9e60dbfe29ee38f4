"""Fixtures shared by the unit tests."""
from __future__ import annotations

import pytest
from pathlib import Path


@pytest.fixture(scope="session")
def proofs_record():
    """One proof-only run record of the working tree (``slth run --proofs-only``), built once per session."""
    from reports.record import assemble

    return assemble.build("proofs", seed=0, command="pytest", log=lambda msg: None)


_TESTS = Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    """``slow`` tests of tests/ (e.g. the whole Coq cascade over every mutation) run, as the checks' do, only under the
    ``thorough`` profile or when selected with ``-m slow``; otherwise they are skipped with that reason."""
    if config.getoption("--slth-profile", "ci") == "thorough" or "slow" in (config.getoption("-m") or ""):
        return
    slow = pytest.mark.skip(reason="slow test: run with --slth-profile thorough (or SLTH_PROFILE=thorough) "
                                   "or select it with -m slow")
    for item in items:
        if "slow" in item.keywords and _TESTS in Path(str(item.path)).parents:
            item.add_marker(slow)
