"""Hypothesis profiles of `pytest checks` and `pytest tests` (markers are registered in pyproject.toml).

Profiles: ``ci`` (derandomised, bounded example counts; the default) and ``thorough`` (hours allowed).
Select with the environment variable ``SLTH_PROFILE=thorough`` or ``pytest --slth-profile thorough``.
"""
from __future__ import annotations

import os

# One BLAS thread, set before numpy loads: scipy's L-BFGS-B (every adversarial search) calls BLAS on tiny vectors,
# and a multithreaded OpenBLAS spent about 12 ms per call waking its threads on the shared 2-core machine (a
# Theorem 10 trial: 1.56 s with the default threads, 0.32 s with one, at load average ~14).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=25,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    max_examples=2000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def pytest_addoption(parser):
    parser.addoption(
        "--slth-profile",
        default=os.environ.get("SLTH_PROFILE", "ci"),
        choices=["ci", "thorough"],
        help="hypothesis profile of the checks (default: $SLTH_PROFILE or ci)",
    )


def pytest_configure(config):
    settings.load_profile(config.getoption("--slth-profile"))
