"""CPU time of ``slth proofs`` (with the Arb re-check of every interval certificate) and of the re-check alone.

    python -m benchmarks.bench_recheck [--write]     # prints one JSON line; --write stores it

``slth proofs`` runs in a fresh interpreter (the verifier caches within a process); its CPU time (user + sys of
the child) is what the 20 s target is about, and is machine-load tolerant in a way wall time is not.
The re-check alone is then timed in this process: every distinct certificate of today's tree through
``bounds.prove.recheck.recheck`` (compiling the expressions included), after the verifier has produced them.  The
numbers are reported, never asserted; ``--write`` stores them, with the load, cores and commit they were taken at, in
``benchmarks/recheck-time.json`` once both measurements succeeded.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from benchmarks import common  # noqa: E402

OUTPUT = ROOT / "benchmarks" / "recheck-time.json"
PROG = "python -m benchmarks.bench_recheck"


def main(argv=None) -> int:
    args = common.parser(PROG, __doc__.split("\n")[0], OUTPUT).parse_args(argv)
    taken = common.machine()
    proc, proofs_wall, proofs_cpu = common.timed(lambda: subprocess.run([sys.executable, "-m", "reports.cli", "proofs"],
                                                                       capture_output=True, text=True, cwd=ROOT))
    if proc.returncode != 0:
        print(proc.stdout[-2000:] + proc.stderr[-2000:], file=sys.stderr)
        print(f"{PROG}: `slth proofs` ended with exit {proc.returncode}; nothing written", file=sys.stderr)
        return 1

    import bounds
    from bounds.prove import arb_intervals, recheck as rc

    results = bounds.verify_facts() + [r for n in bounds.proved() for r in bounds.verify(n)]
    certs = {c for r in results for c in (r.certificate or ())}
    arb_intervals.CACHE.clear()  # compile the expressions again: the re-check's whole cost
    start = time.process_time()
    verdicts = [rc.recheck(c).ok for c in certs]
    recheck_cpu = time.process_time() - start
    out = {"slth_proofs_cpu_s": round(proofs_cpu, 2), "slth_proofs_wall_s": round(proofs_wall, 2),
           "certificates": len(certs), "rechecked_ok": sum(verdicts), "recheck_cpu_s": round(recheck_cpu, 3),
           "load_average": taken["load"][0], "machine": taken}
    print(json.dumps(out))
    if args.write:
        common.write(OUTPUT, {"command": f"{PROG} --write", **out})
    return 0


if __name__ == "__main__":
    sys.exit(common.run(main, PROG))
