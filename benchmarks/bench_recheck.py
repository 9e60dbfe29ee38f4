"""CPU time of ``slth proofs`` (with the Arb re-check of every interval certificate) and of the re-check alone.

    python -m benchmarks.bench_recheck          # prints one JSON line

``slth proofs`` runs in a fresh interpreter (the verifier caches within a process); its CPU time (user + sys of
the child) is what the 20 s target is about, and is machine-load tolerant in a way wall time is not.
The re-check alone is then timed in this process: every distinct certificate of today's tree through
``bounds.prove.recheck.recheck`` (compiling the expressions included), after the verifier has produced them.  The numbers are reported, never asserted.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> int:
    before, wall = _child_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "reports.cli", "proofs"], capture_output=True, text=True)
    proofs_cpu, proofs_wall = _child_cpu() - before, time.perf_counter() - wall
    if proc.returncode != 0:
        print(proc.stdout[-2000:] + proc.stderr[-2000:], file=sys.stderr)
        return 1

    import bounds
    from bounds.prove import recheck as rc

    results = bounds.verify_facts() + [r for n in bounds.proved() for r in bounds.verify(n)]
    certs = {c for r in results for c in (r.certificate or ())}
    rc._CACHE.clear()  # compile the expressions again: the re-check's whole cost
    start = time.process_time()
    verdicts = [rc.recheck(c).ok for c in certs]
    recheck_cpu = time.process_time() - start
    print(json.dumps({"slth_proofs_cpu_s": round(proofs_cpu, 2), "slth_proofs_wall_s": round(proofs_wall, 2),
                      "certificates": len(certs), "rechecked_ok": sum(verdicts),
                      "recheck_cpu_s": round(recheck_cpu, 3), "load_average": os.getloadavg()[0]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
