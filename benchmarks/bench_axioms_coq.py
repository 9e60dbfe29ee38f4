"""The cold and warm cost of ``slth proofs --axioms --coq``: CPU seconds and peak memory, per coqc call and in all.

    python benchmarks/bench_axioms_coq.py            # prints the table; --write also records it in coq-cold.json

Runs the command twice into a fresh ``XDG_CACHE_HOME`` (nothing compiled: cold; then everything compiled: warm),
with a ``coqc`` on ``PATH`` that runs the real one under ``/usr/bin/time`` and logs each call's CPU time (user +
system) and peak resident memory.  CPU time, not wall time, is what it records: the machine it runs on may be
shared.  ``benchmarks/coq-cold.json`` (``--write``: with the load, cores and commit of each run, once both
succeeded) is what ``bounds.prove.coq.cost`` estimates a run from before it starts; each coqc call is named by its
stage (``compile:<file>``, ``check``, ``axioms``, ``math:<file>``).  The file keeps the stages of the last
``KEPT`` cold runs (``runs``); ``stages`` and ``python_cpu_s`` are their medians, per stage that the newest run
made: the same coqc work costs up to a quarter more or less CPU from one hour to the next on a shared host, and a
median of runs made at different hours is nearer what the next run spends than any one run."""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from benchmarks import common  # noqa: E402

TABLE = ROOT / "benchmarks" / "coq-cold.json"
SHIM = """#!/bin/sh
exec /usr/bin/time -f "COQC %U %S %M :: $*" -a -o "$SLTH_BENCH_LOG" "$SLTH_BENCH_COQC" "$@"
"""


def stage(args: str) -> str | None:
    """The stage of one logged coqc call, from its arguments (None for --version and -where)."""
    m = re.search(r"(\S+)\.v$", args.strip())
    if not m:
        return None
    stem = Path(m.group(1)).name
    if " SlthMath " in f" {args} ":
        return f"math:{stem}"
    return {"SlthCheck": "check", "SlthAxioms": "axioms"}.get(stem, f"compile:{stem}")


def estimate_check(stderr_first: str, spent: float) -> dict:
    """What the command said it would spend (its first line on stderr: ``about N s of CPU``, ``bounds.prove.coq.cost``)
    beside what it spent: ``{"estimate_cpu_s", "estimate_off", "estimate_within_25"}`` (``estimate_off``: the
    estimate's error as a fraction of the CPU spent); {} when the line names no figure (a warm run)."""
    m = re.search(r"about (\d+(?:\.\d+)?) s of CPU", stderr_first)
    if not m or spent <= 0:
        return {}
    est = float(m.group(1))
    off = (est - spent) / spent
    return {"estimate_cpu_s": est, "estimate_off": round(off, 3), "estimate_within_25": abs(off) <= 0.25}


def parse_log(text: str) -> dict:
    """``{stage: {"cpu_s", "rss_mb"}}`` of a shim log (a stage run twice keeps its larger figures)."""
    out: dict = {}
    for line in text.splitlines():
        m = re.match(r"COQC ([\d.]+) ([\d.]+) (\d+) :: (.*)", line)
        if not m or (name := stage(m.group(4))) is None:
            continue
        cpu, rss = float(m.group(1)) + float(m.group(2)), int(m.group(3)) / 1024
        old = out.get(name, {"cpu_s": 0.0, "rss_mb": 0.0})
        out[name] = {"cpu_s": round(max(cpu, old["cpu_s"]), 2), "rss_mb": round(max(rss, old["rss_mb"]))}
    return out


def run_once(cache: Path, log: Path, shim_dir: Path) -> dict:
    """One run of the command: its total CPU (this process's children), peak memory of Python itself, exit status."""
    env = {k: v for k, v in os.environ.items() if k not in ("SLTH_COQ_DIR", "SLTH_COQ_BUILD")}
    env.update(XDG_CACHE_HOME=str(cache), PYTHONPATH=str(ROOT), SLTH_BENCH_LOG=str(log),
               PATH=f"{shim_dir}:{os.environ['PATH']}")
    timing = log.with_suffix(".time")
    t = time.time()
    r = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", str(timing), sys.executable, "-m", "reports.cli",
                        "proofs", "--axioms", "--coq"], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.time() - t
    user, system, rss = timing.read_text().split()[-3:]
    return {"rc": r.returncode, "cpu_s": round(float(user) + float(system), 1), "wall_s": round(wall, 1),
            "max_rss_mb": round(int(rss) / 1024), "stderr_first": (r.stderr.splitlines() or [""])[0]}


KEPT = 5
"""How many cold runs the table keeps (the newest first)."""


def merged(record: dict, old: dict) -> dict:
    """``record`` with ``runs`` (its cold run, then those kept in ``old``, a table written before: at most ``KEPT``)
    and, per stage the newest run made, the median of its figures over the runs that made it (``stages``), and the
    median of the runs' Python CPU (``python_cpu_s``)."""
    def run(r: dict) -> dict | None:
        cold, stages = r.get("cold"), r.get("stages")
        if not isinstance(cold, dict) or not isinstance(stages, dict) or not stages:
            return None
        return {"stages": stages, "cpu_s": cold.get("cpu_s"), "python_cpu_s": cold.get("python_cpu_s"),
                "machine": cold.get("machine")}
    kept = old.get("runs") if isinstance(old.get("runs"), list) else [run(old)]
    runs = [r for r in [run(record), *kept] if isinstance(r, dict) and isinstance(r.get("stages"), dict)][:KEPT]
    if not runs:  # a cold run that made no coqc call: nothing to keep
        return record
    stages = {}
    for name in record["stages"]:
        seen = [r["stages"][name] for r in runs if isinstance(r["stages"].get(name), dict)]
        stages[name] = {k: round(statistics.median(float(x[k]) for x in seen), 2) for k in ("cpu_s", "rss_mb")}
    python = [float(r["python_cpu_s"]) for r in runs if isinstance(r.get("python_cpu_s"), (int, float))]
    return {**record, "stages": stages, "runs": runs, **({"python_cpu_s": round(statistics.median(python), 1)}
                                                          if python else {})}


PROG = "python benchmarks/bench_axioms_coq.py"


def main(argv=None) -> int:
    args = common.parser(PROG, __doc__.split("\n")[0], TABLE).parse_args(argv)
    real = shutil.which("coqc")
    if not real or not Path("/usr/bin/time").exists():
        print(f"{PROG}: error: needs coqc and /usr/bin/time", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="slth-bench-axioms-") as tmp:
        tmp = Path(tmp)
        shim = tmp / "bin"
        shim.mkdir()
        (shim / "coqc").write_text(SHIM)
        (shim / "coqc").chmod(0o755)
        os.environ["SLTH_BENCH_COQC"] = real
        cold_log, warm_log = tmp / "cold.log", tmp / "warm.log"
        cold_machine = common.machine()
        cold = run_once(tmp / "cache", cold_log, shim)
        warm_machine = common.machine()
        warm = run_once(tmp / "cache", warm_log, shim)
        stages = parse_log(cold_log.read_text())
        warm_stages = parse_log(warm_log.read_text()) if warm_log.exists() else {}
    coq_cpu = round(sum(s["cpu_s"] for s in stages.values()), 1)
    record = {
        "command": "slth proofs --axioms --coq (python -m reports.cli), fresh XDG_CACHE_HOME, then again",
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "date": time.strftime("%Y-%m-%d"),
        "cold": {**cold, "coqc_cpu_s": coq_cpu, "python_cpu_s": round(cold["cpu_s"] - coq_cpu, 1),
                 **estimate_check(cold["stderr_first"], cold["cpu_s"]), "machine": cold_machine},
        "warm": {**warm, "coqc_calls": len(warm_stages), "machine": warm_machine},
        "stages": stages,
    }
    print(json.dumps(record, indent=1))
    if "estimate_cpu_s" in record["cold"]:
        c = record["cold"]
        print(f"cold: the estimate said {c['estimate_cpu_s']:.0f} s of CPU, the run spent {c['cpu_s']:.1f} s "
              f"({c['estimate_off']:+.0%}: {'within' if c['estimate_within_25'] else 'NOT within'} 25%)",
              file=sys.stderr)
    if cold["rc"] not in (0, 1) or warm["rc"] not in (0, 1):
        print(f"{PROG}: a run ended with exit {cold['rc']}/{warm['rc']}; nothing written", file=sys.stderr)
        return 1
    if args.write:
        try:
            old = json.loads(TABLE.read_text()) if TABLE.exists() else {}
        except ValueError:
            old = {}
        common.write(TABLE, merged(record, old if isinstance(old, dict) else {}))
    return 0


if __name__ == "__main__":
    sys.exit(common.run(main, PROG))
