"""Task functions of tests/test_tasks.py (importable by worker processes: tests is a package)."""
from __future__ import annotations

import os
from pathlib import Path

from slt.tasks import returns

CALLS_ENV = "SLTH_TEST_CALLS"


@returns(value=float, label=str)
def square(seed: int, x: float, sleep: float = 0.0) -> dict:
    """x^2 + seed; appends one line per call to $SLTH_TEST_CALLS (so a test can count recomputations)."""
    import time

    if os.environ.get(CALLS_ENV):
        with open(os.environ[CALLS_ENV], "a") as fh:
            fh.write(f"{seed} {x}\n")
    time.sleep(sleep)
    return {"value": x * x + seed, "label": f"s{seed}"}


def threads(seed: int) -> dict:
    import numba

    return {"numba_threads": numba.get_num_threads(), "pid": os.getpid()}


def boom(seed: int) -> dict:
    raise RuntimeError(f"task {seed} failed on purpose")


def calls(path) -> int:
    p = Path(path)
    return len(p.read_text().splitlines()) if p.exists() else 0
