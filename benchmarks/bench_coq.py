"""Benchmark of the Coq check (``bounds.prove.coq``): wall and CPU (this process and its coqc children) of

- search: every lemma searched from nothing (no recorded tactic), fresh folder;
- replay cold: the recorded tactics, fresh folder (every file compiled);
- replay warm: the same folder again, nothing changed (no coqc run);
- ``slth proofs`` and ``slth proofs --coq`` (warm), as subprocesses: the cost of the column.

Usage: ``python benchmarks/bench_coq.py [--no-search]`` (the search takes minutes of CPU: run it under
``flock /tmp/slth-heavy.lock``).  Prints one line per measurement; numbers depend on the machine and its load."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bounds.prove.coq import check  # noqa: E402


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(label: str, fn):
    w, c = time.perf_counter(), _cpu()
    out = fn()
    print(f"{label:32s} wall {time.perf_counter() - w:7.1f} s   CPU {_cpu() - c:7.1f} s", flush=True)
    return out


def _counts(status: dict) -> str:
    status = {k: v for k, v in status.items() if k is not None}
    return f"kernel-checked {sum(v == check.KERNEL for v in status.values())} of {len(status)}"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    reason = check.missing_reason()
    if reason:
        print(f"bench_coq: {reason}", file=sys.stderr)
        return 2
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        if "--no-search" not in argv:
            st = timed("search from nothing", lambda: check.check(Path(tmp) / "search", tactics={}))
            print("  " + _counts(st))
        st = timed("replay, cold (fresh folder)", lambda: check.check(Path(tmp) / "replay", searching=False))
        print("  " + _counts(st))
        timed("replay, warm (unchanged)", lambda: check.check(Path(tmp) / "replay", searching=False))
        for label, extra in (("slth proofs", []), ("slth proofs --coq (warm)", ["--coq", str(Path(tmp) / "cli")])):
            if extra:  # warm the folder first
                subprocess.run([sys.executable, "-m", "reports.cli", "proofs", *extra], cwd=ROOT, env=env,
                               capture_output=True)
            timed(label, lambda: subprocess.run([sys.executable, "-m", "reports.cli", "proofs", *extra], cwd=ROOT,
                                                env=env, capture_output=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
