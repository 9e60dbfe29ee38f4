"""`slth diff OLD NEW` or `slth diff --against REF`: what changed between two run records.

Prints every proof step whose verdict (certified / refuted / not proved) or domain (whole / box / sampled) changed,
and steps or statements added or removed, each with its inequality before and after, the counterexample and the
statements that rely on it; margins that moved by more than ``--tolerance``,
width requirements that changed (old, new, ratio), variants and mutations whose verdict changed, statements whose
empirical verdict changed and calibrated constants that moved outside their intervals (``slt.diff``).
``--against REF`` builds the record of the git ref REF in a temporary ``git worktree`` with REF's own code (cached
by commit under ``<results>/records/``) and compares it with a record of the working tree, built at the same time.
Proof-only by default; ``--empirical`` adds the quick empirical measurements and figure summaries.
The verdicts of steps an edit leaves unchanged are read back from the verdict cache (``bounds.prove.verdict_cache``), so
only the changed steps (and the steps built from them) are verified again; so are Coq's verdicts, per lemma
(``bounds.prove.kernel.replay``): from the second run after an edit no Coq file is compiled.  stderr says how many.
The working tree's record itself is stored beside REF's, under a key of everything it is built from
(``worktree_key``): run again on the same files, it is read back, not rebuilt (``SLTH_VERDICT_CACHE=off``: never).  The Coq block
shows each step's Coq status with its reason (``slt.diff.coq_status``).

Exit status: 1 on any downgrade of a step of a supported form (a verdict worse than before, e.g. certified -> not
proved, a narrower domain, a new step that is not certified, a statement whose proof is gone), 0 otherwise, 2 on a
usage error (bad arguments, a
record that does not validate, a ref that does not exist or predates ``slth run``).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from slt import diff
from slt.claims import point_text
from slt.diff import die_with_parent, ref_worktree
from slt.cache import write_atomic, writing

from reports import record, terminal
from reports.record.provenance import package_version
from reports.paths import OutputError, announce, check_distinct, check_outputs
from reports.run import assembler


ROOT = Path(__file__).resolve().parent.parent
"""The repository whose git refs ``--against`` names."""


class UsageError(Exception):
    pass


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("records", nargs="*", metavar="RECORD", help="OLD NEW: two record files written by slth run")
    parser.add_argument("--against", metavar="REF",
                        help="compare the working tree with the git ref REF (e.g. HEAD, main~3, a commit)")
    parser.add_argument("--empirical", action="store_true",
                        help="with --against: also run the quick empirical measurements")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="relative change of a step's margin (smallest rhs/lhs) reported as moved "
                             "(default: 0.01)")
    parser.add_argument("--html", metavar="FILE", help="also write the diff as an HTML page")
    parser.add_argument("--results", default="results", help="folder of cached records (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the records built (default: %(default)s)")


def _git(root: Path, *args, check=True) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise UsageError(f"git {' '.join(args)} failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return done.stdout.strip() if done.returncode == 0 else ""


def _build_worktree(ref: str, profile: str, seed: int, results: Path, log) -> dict:
    """The working tree's record, built now (verdicts of unchanged steps read back from the verdict store)."""
    log("[diff] building the record of the working tree ...")
    new = assembler().build(profile, seed=seed, results_dir=results, command=f"slth diff --against {ref}",
                            log=lambda m: None)
    from bounds.prove import verdict_cache  # loaded by the build already

    where = verdict_cache.directory()
    log(f"[diff] working tree: {verdict_cache.STATS['verified']} verification(s) run (sub-steps included), "
        f"{verdict_cache.STATS['hits']} verdict(s) of unchanged steps read back from "
        + (f"{where} (bounds/prove/verdict_cache.py)" if where else "nowhere (SLTH_VERDICT_CACHE=off)")
        + f"; Coq: {verdict_cache.COQ_STATS['checked']} check(s) of the Coq files run, "
          f"{verdict_cache.COQ_STATS['hits']} kernel verdict(s) read back")
    return new


def worktree_key(root: Path, profile: str, seed: int, results: Path) -> str:
    """A SHA-256 of everything the working tree's record is built from: HEAD, the changes of tracked files against
    it, the untracked files git does not ignore (by content), the ``results`` folder's files other than the records
    (by size and modification time), the settings (``$SLTH_*``), the interpreter, the packages that decide or print a
    verdict, and the ``coqc`` on the path.  The same key, the same record."""
    h = hashlib.sha256()

    def add(*parts) -> None:
        for part in parts:
            h.update(part if isinstance(part, bytes) else str(part).encode())
            h.update(b"\0")

    add("profile", profile, "seed", seed, sys.version, _git(root, "rev-parse", "HEAD"))
    add(subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=root, capture_output=True).stdout)
    untracked = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=root,
                               capture_output=True).stdout.split(b"\0")
    inside = results.resolve()
    for name in sorted(n for n in untracked if n):
        path = root / name.decode()
        if path.resolve().is_relative_to(inside):
            continue  # the results folder is read below, its records left out
        add(name, hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "not a file")
    records = (results / "records").resolve()
    for folder, dirs, files in os.walk(results):
        dirs[:] = sorted(d for d in dirs if (Path(folder) / d).resolve() != records)
        for f in sorted(files):
            st = (Path(folder) / f).stat()
            add(os.path.relpath(Path(folder) / f, results), st.st_size, st.st_mtime_ns)
    add(*sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("SLTH_")))
    for package in ("sympy", "mpmath", "python-flint", "numpy"):
        add(package, package_version(package) or "absent")
    coqc = shutil.which("coqc")
    for where in (coqc, "/var/lib/dpkg/status", sysconfig.get_paths()["purelib"]):  # Coq, its libraries, pip's
        st = os.stat(where) if where and os.path.exists(where) else None
        add(where, *((st.st_size, st.st_mtime_ns) if st else ("absent",)))
    return h.hexdigest()


def _stored(path: Path | None, found: str, what: str, log) -> dict | None:
    """The valid record at ``path`` (``found`` logged), else None (an invalid one logged as ignored)."""
    if path is None or not path.exists():
        return None
    try:
        rec = record.load(path)
    except record.RecordError as exc:
        log(f"[diff] ignoring {what}: {exc}")
        return None
    log(found)
    return rec


def against(ref: str, profile: str, results: Path, seed: int, log) -> tuple[dict, dict]:
    """``(record of REF, record of the working tree)``; REF's built by its own code in a temporary worktree
    (in a subprocess, concurrently with the working tree's), cached by commit."""
    root = ROOT
    if not _git(root, "rev-parse", "--is-inside-work-tree", check=False):
        raise UsageError(f"{root} is not a git checkout; --against needs one")
    sha = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if not sha:
        raise UsageError(f"{ref!r} is not a commit of {root}")
    # REF's record is built by REF's own `slth run` (python -m reports.cli run), whatever module assembled it then
    if subprocess.run(["git", "cat-file", "-e", f"{sha}:reports/run.py"], cwd=root, capture_output=True).returncode:
        raise UsageError(f"{ref} ({sha[:10]}) predates `slth run` (no reports/run.py in its tree): it has no run record")
    results = results if results.is_absolute() else root / results
    cached = results / "records" / f"{sha}-{profile}.json"
    proc = tmp = None
    old = _stored(cached, f"[diff] {ref} ({sha[:10]}): cached record {cached}", "the cached record", log)
    if old is None:
        tmp = ref_worktree(root, sha, log)  # after pruning what an earlier, killed `slth diff` left (slt.diff)
        tree = tmp / "tree"
        out = tmp / "record.json"
        flag = {"proofs": "--proofs-only", "quick": "--quick", "full": "--full"}[profile]
        # REF's own results folder: its committed calibration, its own figure summaries (never the working tree's)
        env = {**os.environ, "PYTHONPATH": str(tree)}
        log(f"[diff] building the record of {ref} ({sha[:10]}) in {tree} ...")
        logfile = open(tmp / "run.log", "w")
        proc = subprocess.Popen([sys.executable, "-m", "reports.cli", "run", flag, "--seed", str(seed), "-o", str(out),
                                 "--results", str(tmp / "results")], cwd=tree, env=env, stdout=logfile,
                                stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
    try:
        off = os.environ.get("SLTH_VERDICT_CACHE", "").strip().lower() == "off"  # nothing read back, this record too
        mine = None if off else results / "records" / f"worktree-{worktree_key(root, profile, seed, results)}.json"
        new = _stored(mine, f"[diff] working tree: the record built from these same files, read back from {mine}",
                      "the working tree's stored record", log)
        if new is None:
            new = _build_worktree(ref, profile, seed, results, log)
            if mine is not None:
                record.write(mine, new)  # its folder made when missing
        if proc is not None:
            rc = proc.wait()
            logfile.close()
            if not out.exists():
                last = [x for x in (tmp / "run.log").read_text().strip().splitlines() if x.strip()] or ["(no output)"]
                raise UsageError(f"building the record of {ref} failed (exit {rc}): {last[-1]}")
            old = record.load(out)
            record.write(cached, old)
            log(f"[diff] cached {cached}")
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        if tmp is not None:
            _git(root, "worktree", "remove", "--force", str(tmp / "tree"), check=False)
            shutil.rmtree(tmp, ignore_errors=True)
    return old, new


def _fmt(v, digits=4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}={_fmt(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def _who(desc: dict) -> str:
    commit = (desc["commit"] or "no commit")[:10]
    return f"{commit}{' (dirty)' if desc['dirty'] else ''}, {desc['profile']}, {desc['created']}"


def coq_counts(counts: dict) -> str:
    """``{word: steps}`` as "70 kernel-checked, 1 not checked"."""
    return ", ".join(f"{n} {w}" for w, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))) or "no steps"


def _coq_line(c) -> str:
    if c["old_word"] == c["new_word"] or ":" in c["old"] or ":" in c["new"]:  # the reasons say what changed
        return f"  {c['statement']}:{c['step']}\n    before: {c['old']}\n    after:  {c['new']}"
    return f"  {c['statement']}:{c['step']}  {c['old']} -> {c['new']}"


def format_text(d, old_name: str, new_name: str) -> str:
    info = d.as_dict()
    lines = [f"slth diff: {old_name} [{_who(info['old'])}] -> {new_name} [{_who(info['new'])}]"]
    sections = [
        ("proof steps whose verdict or domain changed", d.flipped, _flipped),
        ("proof steps whose Coq status changed (kernel-checked / rejected / not exported / not checked, with the "
         "reason)", d.coq, _coq_line),
        (f"margins (smallest rhs/lhs) moved by more than {d.tolerance:g} (relative)", d.margins,
         lambda m: f"  {m['statement']}:{m['step']}  {_fmt(m['old'])} -> {_fmt(m['new'])}"
                   + (f"  (x{m['ratio']:.4g})" if m["ratio"] is not None else "")),
        ("width requirements changed on the default grid (C = 1)", d.widths,
         lambda w: f"  {w['statement']}.{w['width']}  at {_fmt(w['point'])}: {_fmt(w['old'])} -> {_fmt(w['new'])}"
                   + (f"  (ratio {w['ratio']:.4g})" if w["ratio"] is not None else "")),
        ("printed variants whose verdict changed", d.variants,
         lambda v: f"  {v['variant']}  {v['old']} -> {v['new']}; breaks {v['old_broken']} -> {v['new_broken']}"),
        ("mutations whose verdict changed", d.mutations,
         lambda m: f"  {m['mutation']}  {m['old']} -> {m['new']} (caught by {m['old_caught_by']} -> "
                   f"{m['new_caught_by']})"),
        ("statements whose empirical verdict changed", d.empirical,
         lambda e: f"  {e['statement']}  {e['old']} -> {e['new']}"),
        ("checks whose verdict changed", d.checks,
         lambda c: f"  {c['check']}  {c['old']} -> {c['new']} (worst ratio {_fmt(c['ratio'])})"
                   + (f"  re-run: {c['command']}" if c["command"] else "")),
        ("calibrated constants outside their intervals", d.constants,
         lambda c: f"  {c['statement']}  C {_fmt(c['old'])} {_fmt(c['old_interval'])} -> {_fmt(c['new'])} "
                   f"{_fmt(c['new_interval'])}: {c['why']}"),
    ]
    for title, rows, fmt in sections:
        if rows:
            lines.append(f"{title} ({len(rows)}):")
            lines += [fmt(r) for r in rows]
    if d.coq or d.coq_counts.get("old") != d.coq_counts.get("new"):
        lines.append(f"Coq statuses: {old_name}: {coq_counts(d.coq_counts.get('old', {}))}; {new_name}: "
                     f"{coq_counts(d.coq_counts.get('new', {}))}")
    lines += [f"note: {n}" for n in d.notes]
    if not d.changed:
        lines.append("no change in any decision")
    bad = d.newly_failing
    lines.append(f"{len(bad)} downgrade(s) of a supported form" + (": " + ", ".join(
        f"{f['statement']}:{f['step']} {f['old']} -> {f['new']}" for f in bad) if bad else ""))
    return "\n".join(lines)


def _flipped(f) -> str:
    """One changed step: verdicts and domains, DOWNGRADE, counterexample, inequality before/after, who relies on it."""
    def side(verdict, domain):
        return verdict if domain in ("absent", "whole") or verdict == "refuted" else f"{verdict} ({domain})"
    out = [f"  {f['statement']}:{f['step']}  {side(f['old'], f['old_domain'])} -> {side(f['new'], f['new_domain'])}"
           f"  ({f['method']})" + ("  DOWNGRADE" if f["downgrade"] else "")
           + (f"  counterexample: {point_text(f['counterexample'])}" if f["counterexample"] else "")
           + ("" if f["supported"] else "  [not a supported form]")]
    if f.get("form"):  # what the step proves, in the proof's own terms (records before it had none)
        out.append(f"    proves: {f['form']}" + (f"  [{f['note']}]" if f.get("note") else ""))
    before, after = f.get("old_inequality"), f.get("new_inequality")
    if before != after or f["downgrade"]:
        out.append(f"    before: {before if before is not None else '(absent or not recorded)'}")
        out.append(f"    after:  {after if after is not None else '(absent or not recorded)'}")
    if f.get("relied_on_by"):
        out.append(f"    relied on by: {', '.join(f['relied_on_by'])}")
    return "\n".join(out)


def main(args: argparse.Namespace) -> int:
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    tolerance = diff.DEFAULT_TOLERANCE if args.tolerance is None else args.tolerance
    try:
        if not tolerance >= 0:
            raise UsageError(f"--tolerance must be a non-negative number, got {args.tolerance}")
        check_outputs(("--html", args.html))
        check_distinct(reads=[("record", p) for p in args.records or ()], writes=[("--html", args.html)])
        if args.against:
            if args.records:
                raise UsageError("give either two records or --against REF, not both")
            profile = "quick" if args.empirical else "proofs"
            old, new = against(args.against, profile, Path(args.results), args.seed, log)
            names = (args.against, "working tree")
        else:
            if len(args.records) != 2:
                raise UsageError(f"expected two records OLD NEW (or --against REF), got {len(args.records)}")
            if args.empirical:
                raise UsageError("--empirical applies to --against; records hold what their run measured")
            old, new = (record.load(p) for p in args.records)
            names = tuple(args.records)
    except (UsageError, OutputError, record.RecordError) as exc:
        print(terminal.safe(f"slth diff: {exc}"), file=sys.stderr)
        return 2
    d = diff.compare(old, new, tolerance)
    print(terminal.safe(format_text(d, *names)))  # a record's strings may hold escape sequences
    if args.html:
        with writing(args.html, what="--html"):
            from reports.build import render_diff_html  # jinja2 and the sections: only for --html

            write_atomic(Path(args.html), render_diff_html(d, *names))
        announce(args.html, f"wrote {args.html}")
    return d.exit_status
