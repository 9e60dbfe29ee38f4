"""Benchmark of ``slth diff --against HEAD`` after a one-constant edit of ``bounds/``, the way a researcher meets it:
a fresh clone of this repository's HEAD (``--with-changes``: with the working tree's uncommitted changes of tracked
files applied), an empty cache folder (``XDG_CACHE_HOME``: no stored verdict, no compiled Coq file), the edit
(Theorem 11's split eps/4 -> eps/5 in ``bounds/attention.py``), then ``python -m reports.cli diff --against HEAD``
run ``--runs`` times (default 3) one after the other.  The first run builds HEAD's record (cached by commit) and the
working tree's, verifying and Coq-checking what no store holds; from the second run on, every verdict is read back.

Per run: wall seconds, CPU seconds (user + system of the command and every process it waited for: coqc, git, HEAD's
build), its exit status (1: the edit makes two steps refuted, a downgrade) and its stderr line saying how many
steps it verified.  Not a timed assertion: the numbers depend on the machine and its load (the load average is
printed before each run).  ``--write`` stores them in ``benchmarks/diff-time.json``, which ``slth docs`` quotes in
docs/proofs.md.

Usage: ``python benchmarks/bench_diff.py [--runs N] [--with-changes] [--write]``."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from benchmarks import common  # noqa: E402
from benchmarks.common import machine  # noqa: E402

OUTPUT = ROOT / "benchmarks" / "diff-time.json"
EDIT = ("bounds/attention.py", '"split": sp.Rational(1, 4)', '"split": sp.Rational(1, 5)')
"""The one-constant edit: (file, text before, text after)."""
EDIT_WORDS = "Theorem 11's split eps/4 -> eps/5 (bounds/attention.py)"
CLEAN = ("XDG_CACHE_HOME", "SLTH_COQ_DIR", "SLTH_COQ_BUILD", "SLTH_VERDICT_CACHE", "SLTH_TRIAL_CACHE", "PYTHONPATH")


def _git(cwd, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def clone(dest: Path, with_changes: bool) -> Path:
    """A clone of ROOT's HEAD at ``dest`` (with the uncommitted changes of tracked files when ``with_changes``),
    with the edit made; ``SystemExit(2)`` when the edit's text is not in the file."""
    sha = _git(ROOT, "rev-parse", "HEAD").strip()
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(dest)], check=True)
    _git(dest, "checkout", "-q", "--detach", sha)
    if with_changes:
        patch = _git(ROOT, "diff", "HEAD", "--binary")
        if patch:
            subprocess.run(["git", "apply", "--whitespace=nowarn"], cwd=dest, input=patch, text=True, check=True)
    path, old, new = EDIT
    text = (dest / path).read_text()
    if text.count(old) != 1:
        raise SystemExit(f"bench_diff: {path} does not hold {old!r} exactly once: the edit cannot be made")
    (dest / path).write_text(text.replace(old, new))
    return dest


def timed(args, repo: Path, cache: Path, limit: float | None = None) -> tuple[dict, str]:
    """``python -m reports.cli ARGS`` in ``repo`` with the cache folder ``cache``: ``(row, its standard error)``, the
    row holding wall and CPU seconds (the command and every process it waited for), exit status, load before and
    ``timed_out`` when it ran past ``limit`` seconds (killed, its process group with it)."""
    env = {k: v for k, v in os.environ.items() if k not in CLEAN}
    env.update(XDG_CACHE_HOME=str(cache), PYTHONPATH=str(repo))
    taken = machine()

    def call():
        proc = subprocess.Popen([sys.executable, "-m", "reports.cli", *args], cwd=repo, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                start_new_session=limit is not None)  # a group of its own, killed at the limit
        try:
            return proc, proc.communicate(timeout=limit)[1], False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            return proc, proc.communicate()[1], True

    (proc, err, timed_out), wall, cpu_s = common.timed(call)
    return {"command": "slth " + " ".join(args), "wall_s": round(wall, 1), "cpu_s": round(cpu_s, 1),
            "exit": proc.returncode, "timed_out": timed_out, "limit_s": limit,
            "load_before": round(taken["load"][0], 2), "machine": taken,
            "stderr_last": (err or "").strip().splitlines()[-1:]}, err or ""


def measure(runs: int = 3, with_changes: bool = False, log=print) -> dict:
    with tempfile.TemporaryDirectory(prefix="slth-bench-diff-") as tmp:
        repo = clone(Path(tmp) / "repo", with_changes)
        rows = []
        for i in range(1, runs + 1):
            r, err = timed(["diff", "--against", "HEAD"], repo, Path(tmp) / "cache")
            row = {"run": i, **{k: r[k] for k in ("wall_s", "cpu_s", "exit", "load_before")},
                   "verified": next((ln for ln in err.splitlines() if ln.startswith("[diff] working tree:")), ""),
                   "machine": r["machine"]}
            rows.append(row)
            log(f"run {i}: wall {row['wall_s']:6.1f} s  CPU {row['cpu_s']:6.1f} s  exit {row['exit']}  "
                f"load {row['load_before']:.2f}  {row['verified']}")
            if row["exit"] not in (0, 1):
                log(err[-2000:])
                break
    return {"edit": EDIT_WORDS, "command": "python benchmarks/bench_diff.py --write", "cores": os.cpu_count(),
            "with_changes": with_changes, "runs": rows, "created": common.now()}


PROG = "python benchmarks/bench_diff.py"


def main(argv=None) -> int:
    parser = common.parser(PROG, __doc__.split("\n\n")[0], OUTPUT)
    parser.add_argument("--runs", type=common.bounded(100), default=3,
                        help="consecutive runs of the diff (default: %(default)s)")
    parser.add_argument("--with-changes", action="store_true",
                        help="apply the working tree's uncommitted changes of tracked files to the clone first")
    args = parser.parse_args(argv)
    result = measure(args.runs, args.with_changes)
    if any(r["exit"] not in (0, 1) for r in result["runs"]):
        print(f"{PROG}: a run failed; nothing written", file=sys.stderr)
        return 1
    if args.write:
        common.write(OUTPUT, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(common.run(main, PROG))
