"""pytest-benchmark of slt.subset_sum: per-entry solve time and batched throughput.

    python -m pytest benchmarks --benchmark-enable            # (benchmarks/ is not in the default testpaths)

Lemma 7 instances (items v u, v, u iid U[-1,1]; targets U[-1,1]). Per entry: one entry per call, one
thread, a different seeded entry each round. n' = 48 has no exact mode: its "exact" row is the
best-effort search (``best_effort=True``: exact windows of 40). Tolerance mode uses ``default_tol``
(1e-9 max|c|). Throughput: one call on m = 1000 entries with 1 and 2 threads.
"""
import itertools

import numpy as np
import pytest

from slt.subset_sum import default_tol, solve

ENTRIES = 64


def instances(m, n, seed=0):
    rng = np.random.default_rng([seed, n])
    return rng.uniform(-1, 1, (m, n)) * rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, m)


@pytest.mark.parametrize("mode", ["exact", "tol"])
@pytest.mark.parametrize("n", [16, 24, 32, 40, 48])
def test_per_entry(benchmark, n, mode):
    c, t = instances(ENTRIES, n)
    tol = default_tol(c) if mode == "tol" else None
    kwargs = {"best_effort": True} if n > 40 else {}
    solve(c[:1], t[:1], tol=None if tol is None else tol[:1], threads=1, **kwargs)  # load the kernels
    rows = itertools.cycle(range(ENTRIES))

    def one_entry():
        i = next(rows)
        return solve(c[i:i + 1], t[i:i + 1], tol=None if tol is None else tol[i:i + 1], threads=1, **kwargs)

    benchmark.extra_info.update(n=n, mode=mode, unit="seconds per entry")
    benchmark.pedantic(one_entry, rounds=ENTRIES if n <= 40 else 16, warmup_rounds=1, iterations=1)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mode", ["exact", "tol"])
@pytest.mark.parametrize("n", [24, 32])
def test_batch_throughput(benchmark, n, mode, threads):
    m = 1000
    c, t = instances(m, n, seed=1)
    tol = default_tol(c) if mode == "tol" else None
    solve(c[:2], t[:2], tol=None if tol is None else tol[:2], threads=threads)
    benchmark.extra_info.update(n=n, mode=mode, threads=threads, entries=m)
    benchmark.pedantic(solve, args=(c, t, tol, threads), rounds=3, warmup_rounds=0, iterations=1)
