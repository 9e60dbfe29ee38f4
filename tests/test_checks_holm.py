"""Holm's later steps at the end of a checks run can fail the run.

Every rate test of ``pytest checks`` is held at once to FAMILY_WISE / m (``checking.rate_level``); the end of the
session (``checks/conftest.py``: ``pytest_sessionfinish``) applies the rest of Holm's procedure to the p-values of
the tests that ran. Here a scratch test session uses those very hooks on planted rate-test records: p-values that
pass one by one but that Holm rejects together must make the run exit 1 and be named; p-values it does not reject
must leave it green.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from slt.measure import stats

ROOT = Path(__file__).resolve().parents[1]

CONFTEST = ("from checks.conftest import _collect_rate_tests, pytest_configure, pytest_sessionfinish, "
            "pytest_terminal_summary  # noqa\n")

TESTS = '''
from slt.measure.probabilistic import RATE_TESTS

def test_a():
    RATE_TESTS.append({{"line": "planted a", "pvalue": {a}, "level": 0.001, "passed": True}})

def test_b():
    RATE_TESTS.append({{"line": "planted b", "pvalue": {b}, "level": 0.001, "passed": True}})
'''


def _session(tmp_path, a, b, *flags):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_planted.py").write_text(TESTS.format(a=a, b=b))
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *flags, str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, env=env)


@pytest.mark.parametrize("a, b, rejected", [(0.02, 0.024, 2), (0.02, 0.3, 1), (0.03, 0.3, 0), (0.2, 0.3, 0)])
def test_holm_at_the_end_of_a_run_fails_it_exactly_when_holm_rejects(tmp_path, a, b, rejected):
    assert sum(stats.holm([a, b], stats.FAMILY_WISE)) == rejected  # the procedure itself, at 0.05 over 2 tests
    run = _session(tmp_path, a, b)
    assert f"2 rate tests, Holm at family-wise error 0.05" in run.stdout, run.stdout + run.stderr
    assert f": {rejected} rejected" in run.stdout
    if rejected:
        assert run.returncode == 1 and run.stdout.count("FAILED (Holm): planted") == rejected, run.stdout
    else:
        assert run.returncode == 0 and "FAILED (Holm)" not in run.stdout, run.stdout


@pytest.mark.parametrize("a, b, rejected", [(0.02, 0.024, 2), (0.03, 0.3, 0)])
def test_under_xdist_the_controller_applies_holm_to_every_workers_rate_tests(tmp_path, a, b, rejected):
    """``-n 2 --dist load``: the two planted tests run in two workers; each worker hands its rate tests to the
    controller, whose summary counts both and whose Holm procedure fails the run exactly when it rejects."""
    run = _session(tmp_path, a, b, "-n", "2")
    assert "2 rate tests, Holm at family-wise error 0.05" in run.stdout, run.stdout + run.stderr
    assert f": {rejected} rejected" in run.stdout
    assert run.returncode == (1 if rejected else 0), run.stdout
    assert run.stdout.count("FAILED (Holm): planted") == rejected
