"""How long ``pytest checks`` takes, cold and warm, in a fresh clone (a measurement, never an assertion).

    python benchmarks/bench_checks.py [--workers 2] [--write]

Clones the repository's HEAD into a temporary folder, runs ``python -m pytest checks -n WORKERS -q`` there with an
empty cache folder (``XDG_CACHE_HOME``: no stored trials, verdicts or Coq results: cold), then once more with the
code unchanged (warm: every seeded trial block and verdict read back), and prints each run's wall and CPU seconds
(user + system of pytest and its workers) and the load average before it.  ``--write`` stores them as the profiles
``checks-cold`` and ``checks-warm`` of ``benchmarks/test-suite-time.json`` (beside the whole suite's ``default``),
which ``slth docs`` prints into docs/checks.md.  Uses the running interpreter: its environment must have the
package's dependencies (the clone is put first on ``PYTHONPATH``).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "test-suite-time.json"
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from benchmarks import common  # noqa: E402


def run(clone: Path, cache: Path, workers: int) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(clone)}
    env.pop("SLTH_PROFILE", None)
    cmd = [sys.executable, "-m", "pytest", "checks", "-q", "-p", "no:cacheprovider"]
    cmd += ["-n", str(workers) if workers > 1 else "0"]  # -n 0: one process (without -n the conftest takes every core)
    load = os.getloadavg()[0]
    proc, wall, cpu_s = common.timed(lambda: subprocess.run(cmd, cwd=clone, env=env, capture_output=True, text=True))
    tail = (proc.stdout.strip().splitlines() or [""])[-1]
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu_s, 1), "exit": proc.returncode,
            "load_before": round(load, 2), "summary": tail}


PROG = "python benchmarks/bench_checks.py"


def main(argv=None) -> int:
    from reports.cli import workers

    ap = common.parser(PROG, __doc__.splitlines()[0], OUT)
    ap.add_argument("--workers", type=workers, default=2, help="pytest-xdist workers (default 2; 0 or 1: one process)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="slth-bench-checks-") as tmp:
        clone, cache = Path(tmp) / "clone", Path(tmp) / "cache"
        commit = common.fresh_clone(clone)
        runs = {}
        for name in ("checks-cold", "checks-warm"):
            taken = {**common.machine(), "commit": commit}  # the clone's HEAD: what was measured
            runs[name] = {**run(clone, cache, args.workers), "machine": taken}
            r = runs[name]
            print(f"{name}: {r['wall_s']} s wall, {r['cpu_s']} s CPU, exit {r['exit']}, load {r['load_before']} "
                  f"before: {r['summary']}", flush=True)
    if any(r["exit"] != 0 for r in runs.values()):
        print(f"{PROG}: a run failed; nothing written", file=sys.stderr)
        return 1
    if args.write:
        command = "python -m pytest checks" + (f" -n {args.workers}" if args.workers > 1 else "")
        common.add_profiles(OUT, {name: {
            "wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "cores": os.cpu_count(), "command": command,
            "label": "cold, empty cache" if name.endswith("cold") else "warm, code unchanged",
            "load_before": r["load_before"], "commit": commit, "machine": r["machine"],
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds")} for name, r in runs.items()})
    return 0


if __name__ == "__main__":
    sys.exit(common.run(main, PROG))
