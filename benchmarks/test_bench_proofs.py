"""pytest-benchmark of ``slth proofs`` (target: under 20 s of CPU with the Arb re-check), ``slth proofs --slack``
(target: within 10 minutes) and ``slth diff --against HEAD`` once HEAD's record is cached (target: under 10 s of
CPU), each in a fresh interpreter (the verifier caches results within a process).

    python -m pytest benchmarks/test_bench_proofs.py --benchmark-enable           # (not in the default run)

Each round runs the command end to end and asserts its exit status (0: every step of every supported form
certified; for the diff, no downgrade); the wall times are reported by pytest-benchmark and the CPU time of the
command (user + system of the child processes, ``resource.getrusage``) is stored in ``extra_info["cpu_s"]`` per
round, never asserted.  On the shared machine the wall time depends on its load: note the load average.
"""
import os
import subprocess
import sys

import pytest

from benchmarks.common import cpu as _cpu


def _run(cpu: list, *args):
    before = _cpu()
    proc = subprocess.run([sys.executable, "-m", "reports.cli", *args], capture_output=True, text=True)
    cpu.append(round(_cpu() - before, 2))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.parametrize("flags", [(), ("--slack",)], ids=["proofs", "proofs--slack"])
def test_slth_proofs(benchmark, flags):
    cpu: list = []
    benchmark.extra_info.update(command="slth proofs " + " ".join(flags), unit="seconds per run",
                                load_average=os.getloadavg())
    out = benchmark.pedantic(_run, args=(cpu, "proofs", *flags), rounds=3 if not flags else 1, warmup_rounds=0,
                             iterations=1)
    benchmark.extra_info["cpu_s"] = cpu
    assert "proof steps (" in out and " certified, " in out
    if flags:
        assert "printed/tightest" in out


def test_slth_diff_against_head(benchmark, tmp_path):
    """``slth diff --against HEAD`` with HEAD's record cached (a first run, not timed, builds and caches it): the
    cost of a proof-only edit's check is building the working tree's proof record."""
    cpu: list = []
    results = str(tmp_path / "results")
    _run([], "diff", "--against", "HEAD", "--results", results)  # builds and caches HEAD's record
    benchmark.extra_info.update(command="slth diff --against HEAD (cached)", unit="seconds per run",
                                load_average=os.getloadavg())
    out = benchmark.pedantic(_run, args=(cpu, "diff", "--against", "HEAD", "--results", results), rounds=3,
                             warmup_rounds=0, iterations=1)
    benchmark.extra_info["cpu_s"] = cpu
    assert "downgrade(s)" in out
