"""Check-specific pytest hooks: ``gpu`` checks are skipped, with the reason, when no CUDA device is present;
``slow`` checks run only under the ``thorough`` profile or when selected with ``-m slow``."""
from __future__ import annotations

from pathlib import Path

import pytest

from slt.measure.probabilistic import EVIDENCE


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
    wants_slow = config.getoption("--slth-profile", "ci") == "thorough" or "slow" in (config.getoption("-m") or "")
    if not wants_slow:
        slow = pytest.mark.skip(reason="slow check: run with --slth-profile thorough (or SLTH_PROFILE=thorough) "
                                       "or select it with -m slow")
        for item in items:
            if "slow" in item.keywords:
                item.add_marker(slow)
    if any("gpu" in item.keywords for item in items) and cuda_device() is not None:
        return
    skip = pytest.mark.skip(reason="gpu check: no CUDA device visible to PyTorch or CuPy (install the [torch] extra "
                                   "on a machine with an NVIDIA GPU to run it)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


RATE_LINES: list[str] = []
"""The rate-test lines of the checks in this directory (not those of the unit tests that make checks fail)."""


@pytest.fixture(autouse=True)
def _collect_rate_lines():
    start = len(EVIDENCE)
    yield
    RATE_LINES.extend(EVIDENCE[start:])


def pytest_terminal_summary(terminalreporter):
    """Every rate test the probabilistic checks ran, with its power as a number (``RateTest.describe``)."""
    if RATE_LINES:
        terminalreporter.section("probabilistic checks: failure rates and power (detectable rate at power 0.8)")
        for line in RATE_LINES:
            terminalreporter.write_line(line)
