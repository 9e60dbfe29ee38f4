"""pytest-benchmark of ``slth proofs`` (target: within 30 s on 2 cores) and ``slth proofs --slack`` (target:
within 10 minutes), each in a fresh interpreter (the verifier caches results within a process).

    python -m pytest benchmarks/test_bench_proofs.py --benchmark-enable           # (not in the default run)

Each round runs the command end to end and asserts its exit status (0: every step of every supported form
certified); the times are reported by pytest-benchmark, never asserted.
"""
import subprocess
import sys

import pytest


def _run(*flags):
    proc = subprocess.run([sys.executable, "-m", "reports.cli", "proofs", *flags], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.parametrize("flags", [(), ("--slack",)], ids=["proofs", "proofs--slack"])
def test_slth_proofs(benchmark, flags):
    benchmark.extra_info.update(command="slth proofs " + " ".join(flags), unit="seconds per run")
    out = benchmark.pedantic(_run, args=flags, rounds=3 if not flags else 1, warmup_rounds=0, iterations=1)
    assert "steps:" in out and "domains:" in out
    if flags:
        assert "printed/tightest" in out
