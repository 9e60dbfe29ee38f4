"""Our subset-sum solver against mixed-integer solvers on the SAME seeded instances.

Instances as in Lemma 7 (docs/statements.md#lemma7): items v u with v, u iid U[-1,1], targets U[-1,1]. Solvers: ours
exact (tol=None), ours in tolerance mode (tol = 1e-9 max|c|), Gurobi (gurobipy), HiGHS through
scipy.optimize.milp and through highspy, each MIP at its default tolerances. Every solver's TRUE error
is recomputed from the subset it returned. Each entry is solved on its own (one call per entry; ours on
one thread; the MIPs with their default threads), timed by wall clock (the MIP times exclude model
building) and by CPU time (ours: the calling thread; MIPs: the whole process). Prints, per n', the
median times per entry, the median and max true error, the wall-clock ratio against Gurobi and HiGHS
(how many times faster), the load average (the machine may be shared), and whether the targets are met.

    python scripts/compare_mip.py                      # n' = 24 32 40, 20 entries each
    python scripts/compare_mip.py --sizes 24 --entries 5 --backends gurobi
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
import time
from contextlib import contextmanager

import numpy as np

OPTIONAL = {"gurobi": "gurobipy", "highspy": "highspy"}
MIP_BACKENDS = ("gurobi", "highs", "highspy")
LABELS = {"exact": "ours exact", "tol": "ours tol=1e-9max|c|", "gurobi": "Gurobi (gurobipy)",
          "highs": "HiGHS (scipy milp)", "highspy": "HiGHS (highspy)"}


def instances(seed, m, n):
    rng = np.random.default_rng([seed, n])
    return rng.uniform(-1, 1, (m, n)) * rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, m)


def run_ours(c, t, tol):
    """Per entry: true error, wall seconds, CPU seconds (one thread: the calling thread's CPU time)."""
    from slt.subset_sum import solve

    out = np.empty((3, len(t)))
    solve(c[:1], t[:1], tol=None if tol is None else tol[:1], threads=1)  # load the compiled kernels
    for i in range(len(t)):
        wall, cpu = time.perf_counter(), time.thread_time()
        _, e = solve(c[i:i + 1], t[i:i + 1], tol=None if tol is None else tol[i:i + 1], threads=1)
        out[:, i] = e[0], time.perf_counter() - wall, time.thread_time() - cpu
    return out


@contextmanager
def c_stdout_to_stderr():
    """HiGHS writes diagnostics to the C-level stdout; keep them out of the printed table."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run_mip(c, t, backend):
    """Per entry: true error, wall seconds of the solver call, CPU seconds of the process (all threads)."""
    from slt import mip

    out = np.empty((3, len(t)))
    for i in range(len(t)):
        cpu = time.process_time()
        with c_stdout_to_stderr():
            _, e, s = mip.solve(c[i:i + 1], t[i:i + 1], backend=backend)
        out[:, i] = e[0], s[0], time.process_time() - cpu
        print(".", end="", file=sys.stderr, flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[24, 32, 40])
    parser.add_argument("--entries", type=int, default=20, help="instances per size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backends", nargs="+", default=list(MIP_BACKENDS), choices=MIP_BACKENDS)
    args = parser.parse_args(argv)

    from slt.subset_sum import default_tol

    missing = [b for b in args.backends if b in OPTIONAL and importlib.util.find_spec(OPTIONAL[b]) is None]
    backends = [b for b in args.backends if b not in missing]
    print(f"# compare_mip: seed {args.seed}, {args.entries} entries per n', Lemma 7 instances; "
          f"{platform.processor() or platform.machine()}, python {platform.python_version()}")
    for b in missing:
        print(f"# {LABELS[b]} MISSING: {OPTIONAL[b]} is not installed; install the optional extra with "
              f"`pip install -e .[mip]` (or `pip install {OPTIONAL[b]}`)")
    verdicts = []
    for n in args.sizes:
        c, t = instances(args.seed, args.entries, n)
        load = os.getloadavg()[0]
        tol = default_tol(c)
        results = {}
        if n <= 40:
            results["exact"] = run_ours(c, t, None)
        results["tol"] = run_ours(c, t, tol)
        for b in backends:
            print(f"[n'={n} {b}] ", end="", file=sys.stderr, flush=True)
            results[b] = run_mip(c, t, b)
            print(file=sys.stderr)
        ref = {k: np.median(results[k][1]) for k in ("gurobi", "highs") if k in results}
        print(f"\n## n' = {n}   (load average before: {load:.2f}, after: {os.getloadavg()[0]:.2f})")
        head = (f"| {'solver':<22} | median wall ms | median CPU ms | median true err | max true err |"
                + "".join(f" x faster than {LABELS[k].split(' ')[0]} |" for k in ref))
        print(head)
        print("|" + "|".join("-" * len(s) for s in head.split("|")[1:-1]) + "|")
        for k, (err, wall, cpu) in results.items():
            row = (f"| {LABELS[k]:<22} | {1e3 * np.median(wall):14.3f} | {1e3 * np.median(cpu):13.3f} "
                   f"| {np.median(err):15.3e} | {err.max():12.3e} |")
            row += "".join(f" {v / np.median(wall):{len(LABELS[r].split(' ')[0]) + 14}.1f} |" for r, v in ref.items())
            print(row)
        if "exact" in results and n == 40:
            wall, cpu = (1e3 * np.median(x) for x in results["exact"][1:])
            verdicts.append(f"exact mode at n'=40: median {wall:.2f} ms wall, {cpu:.2f} ms CPU per entry on one "
                            f"thread (target <= 10 ms): {'MET' if wall <= 10 else 'NOT MET'} by wall clock, "
                            f"{'MET' if cpu <= 10 else 'NOT MET'} by CPU time")
        if "gurobi" in results:
            err, wall = results["tol"][:2]
            ratio = ref["gurobi"] / np.median(wall)
            worse = int(np.sum(err > results["gurobi"][0]))
            verdicts.append(f"tolerance mode at n'={n}: {ratio:.0f}x faster than Gurobi by median wall clock "
                            f"(target >= 100x), true error above Gurobi's on {worse}/{len(err)} instances (target 0): "
                            f"{'MET' if ratio >= 100 and worse == 0 else 'NOT MET'}")
        else:
            verdicts.append(f"tolerance mode at n'={n}: Gurobi missing, the 100x target cannot be checked")
    print("\n## Targets")
    for v in verdicts:
        print(f"- {v}")


if __name__ == "__main__":
    main()
