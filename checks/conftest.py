"""Check-specific pytest hooks: ``gpu`` checks are skipped, with the reason, when no CUDA device is present;
``slow`` checks run only under the ``thorough`` profile or when selected with ``-m slow`` (deselected otherwise: the
root conftest.py); the checks read seeded
trials and verdicts that an earlier run computed with the same code back from disk (``slt.measure.trial_cache``,
``bounds.prove.verdict_cache``); under pytest-xdist every worker hands its rate tests to the controller, which applies
Holm's procedure to the whole run and prints the power summary."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from slt.measure.checking import rate_level
from slt.measure.probabilistic import RATE_TESTS
from slt.measure.stats import FAMILY_WISE, holm


def cuda_device() -> str | None:
    """A description of the first CUDA device seen by PyTorch or CuPy, or None."""
    try:
        import torch  # optional [torch] extra (heavy)

        if torch.cuda.is_available():
            return f"torch: {torch.cuda.get_device_name(0)}"
    except Exception:  # torch missing or unusable: fall through to CuPy
        pass
    try:
        import cupy  # optional, not a dependency

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return "cupy: CUDA device 0"
    except Exception:
        pass
    return None


HERE = Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    items = [item for item in items if HERE in Path(str(item.path)).parents]  # only the checks
    if any("gpu" in item.keywords for item in items) and cuda_device() is not None:
        return
    skip = pytest.mark.skip(reason="gpu check: no CUDA device visible to PyTorch or CuPy (install the [torch] extra "
                                   "on a machine with an NVIDIA GPU to run it)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


RATE_RUN: list[dict] = []
"""The rate tests of the checks in this directory (not those of the unit tests that make checks fail)."""

HOLM: dict = {}


@pytest.fixture(autouse=True)
def _stored_trials(monkeypatch):
    """Seeded trials are read back from the trial cache (``slt.measure.trial_cache``: keyed on the trial, its
    inputs, the source of the code that decides it and the libraries' versions): ``$SLTH_TRIAL_CACHE`` when set
    (``off`` computes every trial), else ``~/.cache/slth-harness/trials``."""
    from slt.measure import trial_cache

    if not os.environ.get(trial_cache.ENV):
        monkeypatch.setenv(trial_cache.ENV, str(trial_cache.default_directory()))


@pytest.fixture(autouse=True)
def _stored_verdicts(monkeypatch, request):
    """Verdicts are read back from the verdict cache (``bounds.prove.verdict_cache``: keyed on the step, its domain, the
    verifier's source and the libraries' versions): the folder ``$SLTH_VERDICT_CACHE`` named when pytest started
    (``off`` verifies every step), else ``~/.cache/slth-harness/verdicts`` (the root conftest turns it off for the
    rest of the session)."""
    from bounds.prove import verdict_cache

    given = getattr(request.config, "_slth_verdicts", None)
    monkeypatch.setenv(verdict_cache.ENV, given or str(verdict_cache.default_directory()))


@pytest.fixture(autouse=True)
def _collect_rate_tests():
    start = len(RATE_TESTS)
    yield
    RATE_RUN.extend(RATE_TESTS[start:])


def pytest_sessionfinish(session):
    """Holm's procedure over every rate test of the run at family-wise error ``FAMILY_WISE``: a test whose p-value
    is <= FAMILY_WISE / m (the level ``checking.rate_level`` holds it to) has failed already; one Holm rejects at a
    later step fails the run here (exit status 1)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: the controller judges the whole run (_XdistRateTests)
        workeroutput["slth_rate_run"] = json.dumps(RATE_RUN)
        return
    if not RATE_RUN:
        return
    rejected = holm([t["pvalue"] for t in RATE_RUN], FAMILY_WISE)
    late = [t for t, r in zip(RATE_RUN, rejected) if r and t["passed"]]
    HOLM.update(m=len(RATE_RUN), rejected=sum(rejected), late=late)
    if late and session.exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    """Every rate test the probabilistic checks ran, with its power as a number (``RateTest.describe``), and the
    family-wise verdict (Holm)."""
    if RATE_RUN:
        terminalreporter.section("probabilistic checks: failure rates and power (detectable rate at power 0.8)")
        for t in RATE_RUN:
            terminalreporter.write_line(t["line"])
        terminalreporter.write_line(
            f"family-wise: {HOLM['m']} rate tests, Holm at family-wise error {FAMILY_WISE} (each test held to "
            f"{rate_level():.3g} at once): {HOLM['rejected']} rejected"
            + (f"; {len(HOLM['late'])} only at Holm's later steps, which fail this run:" if HOLM["late"] else ""))
        for t in HOLM["late"]:
            terminalreporter.write_line(f"  FAILED (Holm): {t['line']}")


class _XdistRateTests:
    """On the pytest-xdist controller: each worker's rate tests join ``RATE_RUN`` as the worker ends, so that Holm's
    procedure (``pytest_sessionfinish``) covers the whole run and the summary lists every test."""

    @pytest.hookimpl
    def pytest_testnodedown(self, node, error):
        RATE_RUN.extend(json.loads(getattr(node, "workeroutput", {}).get("slth_rate_run") or "[]"))


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_XdistRateTests(), "slth-xdist-rate-tests")
