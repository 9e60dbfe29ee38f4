"""Benchmark of the everyday commands a researcher meets first, each in a fresh clone of this repository's HEAD with
an empty cache folder (``XDG_CACHE_HOME``: no stored verdict, no compiled Coq file), one after the other:

- ``report``: ``python -m reports.cli report`` cold, then again (warm); the README's main command without its
  ``pip install`` (the install's time is pip's, not the harness's);
- ``proofs``: ``python -m reports.cli proofs`` cold, then again (warm);
- ``proofs-edit``: ``slth proofs`` after a one-constant edit of ``bounds/`` (Theorem 11's split eps/4 -> eps/5, the
  edit ``bench_diff.py`` makes), the cache as the warm run left it; ``proofs-edit-kappa`` and ``proofs-edit-lemma13``
  the same after the edits ``EDITS`` names (Theorem 14's kappa 65 -> 64.2, Lemma 13's factor 2 -> 1.99), each
  from a copy of the cache as the warm run left it;
- ``slack``: ``python -m reports.cli proofs --slack`` cold, in its own empty cache, stopped after ``--limit``
  seconds (a run stopped there is stored as such, never as a finished figure).

Per run: wall seconds, CPU seconds (user + system of the command and every process it waited for: coqc, git), its
exit status and the machine's load, cores and commit (``benchmarks.common.machine``).  Not a timed assertion: the
numbers depend on the machine and its load.  ``--write`` stores them in ``benchmarks/commands-time.json``, which
``slth docs`` prints in docs/performance.md.

Usage: ``python benchmarks/bench_commands.py [--only NAME ...] [--limit SECONDS] [--write]``."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from benchmarks import bench_diff, common  # noqa: E402
from benchmarks.bench_diff import EDIT, EDIT_WORDS, clone  # noqa: E402

OUTPUT = ROOT / "benchmarks" / "commands-time.json"
NAMES = ("report", "proofs", "slack")
EDITS = {
    "proofs-edit-kappa": ("bounds/theorem14.py", "KAPPA = sp.Integer(65)", "KAPPA = sp.Rational(321, 5)",
                          "Theorem 14's kappa 65 -> 64.2 (bounds/theorem14.py)"),
    "proofs-edit-lemma13": ("bounds/perturbation.py", "_L13 = 2 * H", "_L13 = sp.Rational(199, 100) * H",
                            "Lemma 13's factor 2 -> 1.99 (bounds/perturbation.py)"),
}
"""More one-constant edits of ``bounds/``: ``{row: (file, text before, text after, in words)}``."""
PROG = "python benchmarks/bench_commands.py"


def timed(args, repo: Path, cache: Path, limit: float, log=print, label: str = "") -> dict:
    """``bench_diff.timed``'s row of ``python -m reports.cli ARGS``, logged in one line."""
    row = bench_diff.timed(args, repo, cache, limit)[0]
    log(f"{label:12s} wall {row['wall_s']:7.1f} s  CPU {row['cpu_s']:7.1f} s  exit {row['exit']}"
        f"{'  (stopped at the limit)' if row['timed_out'] else ''}  load {row['load_before']:.2f}")
    return row


def measure(only=NAMES, limit: float = 1200.0, log=print) -> dict:
    out = {}
    with tempfile.TemporaryDirectory(prefix="slth-bench-commands-") as tmp:
        tmp = Path(tmp)
        repo = clone(tmp / "repo", with_changes=False)
        path, old, new = EDIT
        edited = (repo / path).read_text()
        (repo / path).write_text(edited.replace(new, old))  # the clone as committed; the edit comes later
        for file, before, _, _ in EDITS.values() if "proofs" in only else ():  # refused before any run, not after
            if (repo / file).read_text().count(before) != 1:
                raise SystemExit(f"{PROG}: {file} does not hold {before!r} exactly once: the edit cannot be made")
        for name in ("report", "proofs"):
            for when in ("cold", "warm") if name in only else ():
                out[f"{name}-{when}"] = timed([name], repo, tmp / f"cache-{name}", limit, log, f"{name} {when}")
        if "proofs" in only:
            shutil.copytree(tmp / "cache-proofs", tmp / "cache-warm")  # the cache as the warm run left it
            (repo / path).write_text(edited)
            out["proofs-edit"] = timed(["proofs"], repo, tmp / "cache-proofs", limit, log, "proofs edit")
            out["proofs-edit"]["edit"] = EDIT_WORDS
            (repo / path).write_text(edited.replace(new, old))
            for row, (file, before, after, words) in EDITS.items():
                text = (repo / file).read_text()
                shutil.copytree(tmp / "cache-warm", tmp / f"cache-{row}")
                (repo / file).write_text(text.replace(before, after))
                out[row] = {**timed(["proofs"], repo, tmp / f"cache-{row}", limit, log, row[7:]), "edit": words}
                (repo / file).write_text(text)
        if "slack" in only:
            out["slack-cold"] = timed(["proofs", "--slack"], repo, tmp / "cache-slack", limit, log, "slack cold")
    return {"command": f"{PROG} --write", "cores": os.cpu_count(), "runs": out, "created": common.now()}


def main(argv=None) -> int:
    parser = common.parser(PROG, __doc__.split("\n\n")[0], OUTPUT)
    parser.add_argument("--only", nargs="+", choices=NAMES, default=list(NAMES), help="which commands to time")
    parser.add_argument("--limit", type=common.bounded(7200), default=1200,
                        help="seconds after which a run is stopped and stored as stopped (default: %(default)s)")
    args = parser.parse_args(argv)
    result = measure(tuple(args.only), float(args.limit))
    failed = [k for k, r in result["runs"].items() if not r["timed_out"] and r["exit"] not in (0, 1)]
    if failed:
        print(f"{PROG}: {', '.join(failed)} failed (exit status not 0 or 1); nothing written", file=sys.stderr)
        return 1
    if args.write:
        if OUTPUT.exists() and set(args.only) != set(NAMES):  # keep the figures of the commands not rerun
            from slt.inputs import read_json

            kept = read_json(OUTPUT, "benchmark file").get("runs", {})
            result["runs"] = {**{k: v for k, v in kept.items() if k.split("-")[0] not in args.only},
                              **result["runs"]}
        common.write(OUTPUT, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(common.run(main, PROG))
