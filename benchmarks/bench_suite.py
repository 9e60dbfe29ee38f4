"""How long the README's test command takes in a fresh clone with empty caches, and where the time goes (a
measurement, never an assertion).

    python benchmarks/bench_suite.py [--where] [--write]

Clones the repository's HEAD into a temporary folder and runs ``python -m pytest -n auto`` there as CI does
(``CI=true``, an empty ``HOME`` and cache folder: no stored trial, verdict or Coq build), with the running interpreter
(its environment must have the package's dependencies and the ``[torch]`` extra; the clone is put first on
``PYTHONPATH``; the install is not timed).  It prints the wall and CPU seconds (pytest and every process it started),
the outcome, and the test files that took longest (summed over their tests, from pytest's JUnit XML).  ``--where``
also logs every verification, trial block and prover run of the run (``benchmarks/suite_where.py``) and prints their
totals and the seconds spent computing again what the run had computed before.  ``--write`` stores the figures as the
profile ``default`` of ``benchmarks/test-suite-time.json``, which the README and docs/performance.md print.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "test-suite-time.json"
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from benchmarks import common, suite_where  # noqa: E402  (after the path above: the repository's packages)

COMMAND = ["-m", "pytest", "-n", "auto"]
"""The README's test command after its install, run with the interpreter of this process."""


def slowest_files(junit: Path, most: int = 10) -> list[list]:
    """``[file, summed seconds, tests]`` of the ``most`` test files whose tests took longest (setup included)."""
    files: dict = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("classname", "").replace(".", "/") + ".py"
        s, n = files.get(name, (0.0, 0))
        files[name] = (s + float(case.get("time") or 0), n + 1)
    return [[f, round(s, 1), n] for f, (s, n) in sorted(files.items(), key=lambda kv: -kv[1][0])[:most]]


def measure(where: bool) -> dict:
    """One run of the test command in a fresh clone: its figures (and ``where``: the totals of ``suite_where``)."""
    with tempfile.TemporaryDirectory(prefix="slth-bench-suite-") as tmp:
        tmp = Path(tmp)
        clone, home, hook = tmp / "clone", tmp / "home", tmp / "hook"
        commit = common.fresh_clone(clone)
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLTH_", "PYTEST_", "XDG_"))}
        env.update(HOME=str(home), CI="true", PYTHONPATH=str(clone))
        if where:
            hook.mkdir()
            (hook / "sitecustomize.py").write_text("from benchmarks.suite_where import install\ninstall()\n")
            env.update(PYTHONPATH=f"{hook}{os.pathsep}{clone}", **{suite_where.ENV: str(tmp / "where.jsonl")})
        junit = tmp / "junit.xml"
        taken = {**common.machine(), "commit": commit}
        print(f"running `python {' '.join(COMMAND)}` in a fresh clone of {commit} (about 25 minutes on 2 cores; "
              "pytest's progress follows) ...", file=sys.stderr, flush=True)
        before, t0 = common.cpu(), time.perf_counter()
        with subprocess.Popen([sys.executable, *COMMAND, "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"],
                              cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
            lines = []
            for line in proc.stdout:  # pytest's progress, passed on as it comes (standard error)
                sys.stderr.write(line)
                lines.append(line)
        wall, cpu_s = time.perf_counter() - t0, common.cpu() - before
        summary = next((line for line in reversed(lines) if re.search(r"\d+ (passed|failed|error)", line)), "").strip()
        out = {"wall_s": round(wall, 1), "cpu_s": round(cpu_s, 1), "exit": proc.returncode,
               "summary": summary.strip("= "), "commit": commit, "machine": taken,
               "slowest_files": slowest_files(junit) if junit.exists() else []}
        if where and (tmp / "where.jsonl").exists():
            out["where"] = suite_where.summary(tmp / "where.jsonl")
        if proc.returncode != 0:
            out["output_tail"] = "".join(lines)[-3000:]
        return out


def report(r: dict) -> None:
    print(f"wall {r['wall_s']} s, CPU {r['cpu_s']} s, exit {r['exit']}: {r['summary']} "
          f"(load {r['machine']['load'][0]} before, {r['machine']['cores']} cores)")
    for f, s, n in r["slowest_files"]:
        print(f"  {s:8.1f} s  {n:4d} tests  {f}")
    for kind, k in r.get("where", {}).items():
        calls = f", {k['calls'] / 1e6:.1f} M counted calls" if "calls" in k else ""
        print(f"  {kind}: {k['n']} computed, {k['seconds']} s{calls}; computed again: {k['again_s']} s")
        for test, s in k["again_by"].items():
            print(f"      {s:7.1f} s  {test}")
    if r.get("output_tail"):
        print(r["output_tail"])


PROG = "python benchmarks/bench_suite.py"


def main(argv=None) -> int:
    ap = common.parser(PROG, __doc__.splitlines()[0], OUT)
    ap.add_argument("--where", action="store_true",
                    help="also log every verification, trial block and prover run, and print where the time went")
    args = ap.parse_args(argv)
    r = measure(args.where)
    report(r)
    if r["exit"] != 0:
        print(f"{PROG}: the test run failed (exit {r['exit']}); nothing written", file=sys.stderr)
        return 1
    if args.write:
        where = {"where": r["where"]} if "where" in r else {}
        common.add_profiles(OUT, {"default": {
            "wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "cores": os.cpu_count(), "command": "python -m pytest -n auto",
            "label": "fresh clone, CI=true, empty caches" + (", its work logged (--where)" if where else ""),
            "commit": r["commit"], "machine": r["machine"], "slowest_files": r["slowest_files"], **where,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}})
    return 0


if __name__ == "__main__":
    sys.exit(common.run(main, PROG))
