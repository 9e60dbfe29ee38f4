"""Throughput of ``slt.tasks.execute``: tasks per second and parallel efficiency, 1 and 2 workers side by side.

    python benchmarks/bench_tasks.py                      # LocalCluster with 1 and 2 workers (and in-process)
    python benchmarks/bench_tasks.py --nodes 2            # + a scheduler and 2 worker processes started with the
                                                          #   `dask scheduler` / `dask worker` CLIs on 127.0.0.1,
                                                          #   used through --scheduler ADDRESS (stand-in for nodes)
    python benchmarks/bench_tasks.py --work calibrate     # real tasks: Lemma 7 calibration trial blocks

Every configuration runs the same fresh tasks (no cache; distinct seeds per repetition) after a warm-up task per
worker (imports and Numba compilation are not timed). Efficiency = (rate with n workers) / (n x rate with 1
worker). The machine's load average is printed with the numbers: on a shared machine they vary with the load.
Results are printed; ``--write`` stores them, with the load, cores and commit of each, in
``benchmarks/bench_tasks.json`` (or ``--output``), once every measurement has succeeded.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from benchmarks import common  # noqa: E402


def spin(seed: int, iterations: int) -> dict:
    """Fixed CPU work (a pure-Python loop: one process per worker, so no GIL sharing between workers)."""
    x = seed
    for i in range(iterations):
        x = (x * 1103515245 + 12345 + i) % 2147483648
    return {"x": x}


def _tasks(work: str, n: int, offset: int, size: int):
    from slt.tasks import Task

    if work == "spin":
        return [Task("bench:spin", "benchmarks.bench_tasks:spin", {"iterations": size}, offset + k) for k in range(n)]
    return [Task("bench:calibrate", "slt.measure.calibrate:trial_block",
                 {"statement": "lemma7", "point": {"d1": 2, "d2": 2, "eps": 0.3}, "C": 4.0, "trials": size},
                 offset + 1000 * k) for k in range(n)]


def _measure(label, n_workers, work, n, size, scheduler=None, workers=None, repeats=2):
    from slt.tasks import cluster, execute

    taken = common.machine()
    rates = []
    with cluster(scheduler, workers):
        execute(_tasks(work, max(n_workers, 1), 10 ** 8, size), cache_dir=False, progress=False)  # warm-up
        for r in range(repeats):
            tasks = _tasks(work, n, 10 ** 6 * (r + 1), size)
            start = time.perf_counter()
            execute(tasks, cache_dir=False, progress=False)
            rates.append(n / (time.perf_counter() - start))
    best = max(rates)
    print(f"{label:42s} {n_workers:>3d} workers  {best:8.2f} tasks/s  (runs: {', '.join(f'{r:.2f}' for r in rates)})",
          flush=True)
    return {"label": label, "workers": n_workers, "tasks": n, "tasks_per_s": best, "runs": rates, "machine": taken}


def _start_nodes(count: int, folder: Path):
    """A scheduler and ``count`` single-threaded worker processes on 127.0.0.1 (the Dask CLIs); returns
    (address, processes)."""
    sched_file = folder / "scheduler.json"
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                               "0", "--no-dashboard", "--scheduler-file", str(sched_file)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    for _ in range(600):
        if sched_file.exists() and sched_file.stat().st_size:
            break
        time.sleep(0.1)
    address = json.loads(sched_file.read_text())["address"]
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for k in range(count):
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                       "--no-dashboard", "--host", "127.0.0.1", "--name", f"node{k}"],
                                      cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True))
    from distributed import Client

    with Client(address, timeout="60s") as client:
        client.wait_for_workers(count, timeout=120)
    return address, procs


OUTPUT = ROOT / "benchmarks" / "bench_tasks.json"
PROG = "python benchmarks/bench_tasks.py"


def main(argv=None) -> int:
    parser = common.parser(PROG, __doc__.split("\n")[0], OUTPUT)
    parser.add_argument("--tasks", type=common.bounded(100_000), default=40,
                        help="tasks per measurement (default: %(default)s)")
    parser.add_argument("--work", choices=["spin", "calibrate"], default="spin")
    parser.add_argument("--size", type=common.bounded(10 ** 9), default=None,
                        help="work per task: loop iterations (spin, default 2e6 ~ 0.2 s) or trials (calibrate, default 5)")
    parser.add_argument("--nodes", type=common.count, default=0,
                        help="also run through an external scheduler with this many worker processes started by the "
                             "Dask CLIs")
    parser.add_argument("--output", default=None, help=f"where --write stores the figures (default: {OUTPUT})")
    args = parser.parse_args(argv)
    from reports.cli import max_workers

    if args.nodes > max_workers():
        parser.error(f"argument --nodes: {args.nodes} is more worker processes than this machine can use: at most "
                     f"{max_workers()}")
    if args.output is not None and not args.write:
        parser.error("argument --output: it names where --write stores the figures; give --write too")
    size = args.size or (2_000_000 if args.work == "spin" else 5)
    before = common.machine()
    print(f"slt.tasks throughput: {args.tasks} '{args.work}' tasks (size {size}) per measurement on "
          f"{before['cores']} cores, load average {before['load'][0]:.1f}", flush=True)
    rows = [_measure("in-process (workers=0)", 1, args.work, args.tasks, size, workers=0)]
    for n in (1, 2):
        rows.append(_measure("LocalCluster", n, args.work, args.tasks, size, workers=n))
    if args.nodes:
        with tempfile.TemporaryDirectory() as folder:
            address, procs = _start_nodes(args.nodes, Path(folder))
            try:
                rows.append(_measure(f"external scheduler {address}", args.nodes, args.work, args.tasks, size,
                                     scheduler=address))
            finally:
                for p in reversed(procs):
                    p.terminate()
                    p.wait(30)
    one = next(r["tasks_per_s"] for r in rows if r["label"] == "LocalCluster" and r["workers"] == 1)
    for r in rows:
        r["speedup_vs_1_worker"] = r["tasks_per_s"] / one
        r["efficiency"] = r["tasks_per_s"] / (one * r["workers"])
    print(f"{'configuration':42s} {'workers':>11s}  {'tasks/s':>8s}  {'speed-up':>8s}  {'efficiency':>10s}")
    for r in rows:
        print(f"{r['label']:42s} {r['workers']:>11d}  {r['tasks_per_s']:8.2f}  {r['speedup_vs_1_worker']:8.2f}  "
              f"{r['efficiency']:10.2f}")
    if args.write:
        after = common.machine()
        common.write(args.output or OUTPUT, {
            "command": f"{PROG} " + " ".join(argv if argv is not None else sys.argv[1:]), "work": args.work,
            "size": size, "tasks": args.tasks, "cores": before["cores"], "load_average_before": before["load"],
            "load_average_after": after["load"], "commit": before["commit"], "rows": rows, "time": after["created"]})
    return 0


if __name__ == "__main__":
    sys.exit(common.run(main, PROG))
