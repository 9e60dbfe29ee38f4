"""Benchmark of the Coq check (``bounds.prove.coq``): wall and CPU (this process and its coqc children) of

- search: every lemma searched from nothing (no recorded tactic), fresh folder;
- replay cold: the recorded tactics, fresh folder (every file compiled);
- replay warm: the same folder again, nothing changed (no coqc run);
- ``slth proofs`` and ``slth proofs --coq`` (warm), as subprocesses: the cost of the column.

Usage: ``python benchmarks/bench_coq.py [--no-search] [--write]`` (the search takes minutes of CPU: run it under
``flock /tmp/slth-heavy.lock``).  Prints one line per measurement; numbers depend on the machine and its load, which
``--write`` stores beside each figure (with the cores and the commit) in ``benchmarks/coq-replay.json``, once every
measurement has succeeded."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from benchmarks import common  # noqa: E402

OUTPUT = ROOT / "benchmarks" / "coq-replay.json"
PROG = "python benchmarks/bench_coq.py"


def timed(rows: list, key: str, label: str, fn):
    taken = common.machine()
    out, wall, cpu = common.timed(fn, resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    print(f"{label:32s} wall {wall:7.1f} s   CPU {cpu:7.1f} s", flush=True)
    rows.append({"key": key, "label": label, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "machine": taken})
    return out


def _counts(check, status: dict) -> str:
    status = {k: v for k, v in status.items() if k is not None}
    return f"kernel-checked {sum(v == check.KERNEL for v in status.values())} of {len(status)}"


def main(argv=None) -> int:
    parser = common.parser(PROG, __doc__.split("\n")[0], OUTPUT)
    parser.add_argument("--no-search", action="store_true", help="skip the search from nothing (minutes of CPU)")
    args = parser.parse_args(argv)
    from bounds.prove.coq import check

    reason = check.missing_reason()
    if reason:
        print(f"{PROG}: error: {reason}", file=sys.stderr)
        return 2
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rows: list = []
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_search:
            st = timed(rows, "search", "search from nothing", lambda: check.check(Path(tmp) / "search", tactics={}))
            print("  " + _counts(check, st))
        st = timed(rows, "replay-cold", "replay, cold (fresh folder)",
                   lambda: check.check(Path(tmp) / "replay", searching=False))
        print("  " + _counts(check, st))
        timed(rows, "replay-warm", "replay, warm (unchanged)", lambda: check.check(Path(tmp) / "replay", searching=False))
        for key, label, extra in (("proofs", "slth proofs", []),
                                  ("proofs-coq-warm", "slth proofs --coq (warm)", ["--coq", str(Path(tmp) / "cli")])):
            if extra:  # warm the folder first
                subprocess.run([sys.executable, "-m", "reports.cli", "proofs", *extra], cwd=ROOT, env=env,
                               capture_output=True)
            done = timed(rows, key, label, lambda: subprocess.run([sys.executable, "-m", "reports.cli", "proofs",
                                                                    *extra], cwd=ROOT, env=env, capture_output=True))
            if done.returncode not in (0, 1):
                print(f"{PROG}: `slth proofs {' '.join(extra)}` ended with exit {done.returncode}; nothing written",
                      file=sys.stderr)
                return 1
    if args.write:
        common.write(OUTPUT, {"command": f"{PROG} " + " ".join(argv if argv is not None else sys.argv[1:]),
                              "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(common.run(main, PROG))
