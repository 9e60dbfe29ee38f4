"""A committed full-power record of the failure rates: what the default report shows when the run's own are quick.

The quick profile's few trials cannot decide most probabilistic statements (20 trials at eps = 0.1 cannot show a
rate below 0.17), so a fresh clone's ``slth report`` would decide almost nothing. ``python -m
slt.measure.committed`` runs every failure-rate check of the empirical plan at the full profile
(``slt.measure.empirical``, each task cached under ``--cache-dir``, so an interrupted run resumes) and then, for every
point still undecided at this power, adds trials on fresh seeds (``extend``: disjoint from the first ones, counts
merged, verdict recomputed by ``slt.measure.verdicts``) until it is decided or ``--max-trials`` is reached. It
writes ``PATH`` atomically with its provenance: the command, the date, the git commit, the seed and the build
constant of every statement. ``--reuse DIR`` takes results of identical tasks (kind, function, parameters, seed)
from an earlier cache even when the code's fingerprint has changed since, and says so in the provenance.

``select(quick_empirical, profile, calibration)`` is what a record build uses: when the run's own measurements are
quick and the committed record was made at exactly the constants this run builds with, the failure-rate checks
are the committed ones (the deterministic checks, searches and length sweeps stay this run's own: they are cheap
and decided); otherwise the run's own, with the reason the committed one was not used. The record stores which it
holds (``empirical_source``) and the report says which the reader is looking at.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import subprocess
import sys
import time
from pathlib import Path

from slth_base.settings import refused
from slt.cache import write_atomic
from slt.inputs import InputError, read_json
from slt.measure import calibration, empirical as emp, stats, verdicts
from slt.tasks import execute

SCHEMA = "slth-committed-empirical"
VERSION = 1
PATH = Path(__file__).with_name("committed") / "empirical-full.json"
ROOT = Path(__file__).resolve().parents[2]


class CommittedError(InputError):
    """A committed empirical file that cannot be used (one line naming the file and the problem)."""


# --------------------------------------------------------------------------------------------------- decide

def merge_rate(check: dict, extra: dict) -> dict:
    """A rate check with ``extra`` (a ``empirical.rate`` result on disjoint seeds) added: counts summed, interval,
    p-value and power recomputed, the verdict decided again; the worst case kept."""
    failures, trials = check["failures"] + extra["failures"], check["trials"] + extra["trials"]
    test = stats.excess_test(failures, trials, check["params"]["eps"])
    worse = extra if extra["ratio"] > check["ratio"] else check
    out = {**check, "failures": failures, "trials": trials, "rate": test.rate, "interval": list(test.interval),
           "pvalue": test.pvalue, "passed": test.passed,
           "power": emp.power_record(test),
           "worst": worse["worst"], "bound": worse["bound"], "ratio": worse["ratio"], "command": worse["command"],
           "failing_commands": check.get("failing_commands", []) + extra.get("failing_commands", [])}
    out["decision"] = verdicts.rate_decision(out)
    out["verdict"] = out["decision"]["word"]
    return out


def undecided(empirical: dict) -> list[dict]:
    return [c for c in empirical["checks"] if c["kind"] == "rate" and c["verdict"] == verdicts.UNDECIDED]


def extend(empirical: dict, seed: int, max_trials: int, run_tasks, log=print) -> dict:
    """Add trials to every undecided rate point (each round doubles its count, on seeds after those used) until
    each is decided or would pass ``max_trials``; ``run_tasks(tasks) -> results``."""
    checks = list(empirical["checks"])
    while True:
        todo = [(i, c) for i, c in enumerate(checks) if c["kind"] == "rate" and c["verdict"] == verdicts.UNDECIDED
                and 2 * c["trials"] <= max_trials]
        if not todo:
            break
        tasks = [emp.new_task(f"empirical:rate:{c['statement']}", emp.rate,
                           {"statement": c["statement"], "C": c["C"], "params": dict(c["params"]),
                            "trials": c["trials"]}, seed + c["trials"]) for _, c in todo]
        log(f"[committed] {len(todo)} undecided point(s): {sum(c['trials'] for _, c in todo)} more trials")
        for (i, c), res in zip(todo, run_tasks(tasks)):
            checks[i] = merge_rate(c, res)
            log(f"[committed] {c['id']}: {checks[i]['failures']}/{checks[i]['trials']} -> {checks[i]['verdict']}")
    out = verdicts.redecide({**empirical, "checks": checks})
    return {**out, "tightness": _tightness(out)}


def _tightness(empirical: dict) -> list[dict]:
    return emp.rate_tightness(empirical["checks"]) + [t for t in empirical["tightness"]
                                                      if not t["check"].startswith("rate:")]


# ------------------------------------------------------------------------------------------------ the file

def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def document(empirical: dict, constants: dict, command: str, seed: int, wall_s: float, targets=None) -> dict:
    return {"schema": SCHEMA, "version": VERSION,
            "provenance": {"command": command, "created": datetime.datetime.now(datetime.timezone.utc)
                           .strftime("%Y-%m-%dT%H:%M:%SZ"), "git_commit": _git_commit(), "seed": seed,
                           "profile": "full", "constants": constants, "targets": targets or {}, "wall_s": wall_s},
            "empirical": empirical}


def write(path: Path, doc: dict) -> None:
    validate(doc, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(doc, indent=1, allow_nan=False) + "\n")


_RATE_FIELDS = {"id": (str,), "statement": (str,), "params": (dict,), "C": (int, float), "widths": (dict,),
                "failures": (int,), "trials": (int,), "rate": (int, float), "interval": (list,),
                "pvalue": (int, float), "level": (int, float), "passed": (bool,), "ratio": (int, float),
                "command": (str, type(None))}


def validate(doc, file: str) -> dict:
    """``doc`` if it is a committed empirical record whose numbers make sense; else ``CommittedError``."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or doc.get("version") != VERSION:
        raise CommittedError(f"{file}: not a committed empirical record (schema {SCHEMA!r} version {VERSION})")
    prov, e = doc.get("provenance"), doc.get("empirical")
    if not isinstance(prov, dict) or not isinstance(prov.get("constants"), dict) or not isinstance(e, dict):
        raise CommittedError(f"{file}: field 'provenance.constants' or 'empirical' missing")
    for key in ("command", "created"):
        if not isinstance(prov.get(key), str):
            raise CommittedError(f"{file}: field 'provenance.{key}' is not a string")
    if not isinstance(e.get("checks"), list) or not isinstance(e.get("verdicts"), dict):
        raise CommittedError(f"{file}: field 'empirical.checks' or 'empirical.verdicts' missing")
    for i, c in enumerate(e["checks"]):
        if not isinstance(c, dict) or c.get("verdict") not in verdicts.WORDS:
            raise CommittedError(f"{file}: field 'empirical.checks[{i}].verdict' is not one of {verdicts.WORDS}")
        if c.get("kind") == "rate":
            for key, kinds in _RATE_FIELDS.items():  # what a run record's rate check holds (reports.record.schema)
                if key not in c:
                    raise CommittedError(f"{file}: field 'empirical.checks[{i}].{key}' is missing")
                if not isinstance(c[key], kinds) or isinstance(c[key], bool) and bool not in kinds:
                    raise CommittedError(f"{file}: field 'empirical.checks[{i}].{key}' is "
                                         f"{type(c[key]).__name__}, expected {' or '.join(k.__name__ for k in kinds)}")
            eps = c["params"].get("eps")
            if not (isinstance(eps, (int, float)) and not isinstance(eps, bool) and 0 < eps < 1):
                raise CommittedError(f"{file}: field 'empirical.checks[{i}].params.eps' is {eps!r}, expected a "
                                     "number in (0, 1)")
            if not (math.isfinite(c["ratio"]) and c["ratio"] >= 0):
                raise CommittedError(f"{file}: field 'empirical.checks[{i}].ratio' is {c['ratio']!r}, expected a "
                                     "number >= 0")
            f, n, iv = c["failures"], c["trials"], c["interval"]  # of their types: _RATE_FIELDS above
            if not 0 <= f <= n or n <= 0:
                raise CommittedError(f"{file}: field 'empirical.checks[{i}]' has failures {f!r} of trials {n!r}")
            if not (len(iv) == 2 and all(isinstance(x, (int, float)) and math.isfinite(x) and 0 <= x <= 1 for x in iv)):
                raise CommittedError(f"{file}: field 'empirical.checks[{i}].interval' is not an interval in [0, 1]")
            if verdicts.rate_decision(c)["word"] != c["verdict"]:
                raise CommittedError(f"{file}: field 'empirical.checks[{i}].verdict' disagrees with its counts")
    return doc


def load(path: Path = PATH) -> dict | None:
    """The committed record at ``path``, validated; None when there is none."""
    path = Path(path)
    if not path.exists():
        return None
    return validate(read_json(path, "committed empirical record", CommittedError), str(path))


def shown(path: Path) -> str:
    full = Path(path).resolve()
    return str(full.relative_to(ROOT)) if full.is_relative_to(ROOT) else Path(path).name


def select(own: dict | None, profile: str, calibration: dict, path: Path = PATH) -> tuple[dict | None, dict]:
    """``(empirical, source)``: the committed full-power record when the run's own measurements are quick and it
    was made at the constants this run builds with, else the run's own; ``source`` says which, and why."""
    base = {"kind": "this run", "profile": profile, "file": None, "command": None, "created": None,
            "git_commit": None, "why": ""}
    if profile != "quick" or own is None:
        return own, base
    try:
        doc = load(path)
    except CommittedError as exc:
        return own, {**base, "why": f"the committed full-power record is not used: {exc}"}
    if doc is None:
        return own, {**base, "why": f"no committed full-power record ({shown(path)})"}
    for what, now, made, word in (
            ("constants", emp.constants(calibration), doc["provenance"]["constants"], str),
            ("target families", {k: v for k, v in emp.worst_targets(calibration).items() if v},
             {k: v for k, v in (doc["provenance"].get("targets") or {}).items() if v}, lambda v: v or "random")):
        differ = sorted(k for k in set(now) | set(made) if now.get(k) != made.get(k))
        if differ:
            return own, {**base, "why": f"the committed full-power record was made at other {what} ("
                         + ", ".join(f"{k}: {word(made.get(k))} then, {word(now.get(k))} now" for k in differ)
                         + "); not used"}
    p = doc["provenance"]
    own_counts = verdicts.counts(v for k, v in own["verdicts"].items() if ":" not in k
                                 and any(c["statement"] == k and c["kind"] == "rate" for c in own["checks"]))
    rates = [c for c in doc["empirical"]["checks"] if c["kind"] == "rate"]
    merged = {**own, "checks": rates + [c for c in own["checks"] if c["kind"] != "rate"]}
    data = verdicts.redecide(merged)
    data["tightness"] = _tightness({**data, "tightness": own["tightness"]})
    return data, {"kind": "committed", "profile": "full", "file": shown(path), "command": p["command"],
                  "created": p["created"], "git_commit": p.get("git_commit"), "why": "",
                  "note": p.get("reused", ""),
                  "own_quick": own_counts,
                  "undecided": [f"{c['id']} ({c['failures']}/{c['trials']} failures, 95% upper end "
                                f"{c['interval'][1]:.2g} above eps = {c['params']['eps']:.3g} at the trial cap)"
                                for c in undecided(data)]}


# ---------------------------------------------------------------------------------------------------- main

def rate_tasks(seed: int, calibration: dict) -> list:
    """The failure-rate tasks of the empirical plan at the full profile."""
    return [t for t in emp.tasks("full", seed, emp.constants(calibration), emp.worst_targets(calibration))
            if t.kind.startswith("empirical:rate:")]


def reuse(tasks: list, cache_dir) -> tuple[list, list]:
    """``(results, missing)``: the result of every task found in ``cache_dir`` with the same kind, function,
    parameters and seed (whatever code fingerprint it was stored under; checksum verified), None where none is."""
    from slt.cache import CorruptRecord, read_record

    found, seconds = {}, {}
    for path in sorted(Path(cache_dir).glob("empirical_rate_*/*.json")):
        try:
            rec = read_record(path)
        except (CorruptRecord, OSError, ValueError):
            continue
        key = (rec.get("kind"), rec.get("fn"), json.dumps(rec.get("params"), sort_keys=True), rec.get("seed"))
        found[key], seconds[key] = rec["result"], float(rec.get("seconds") or 0.0)
    keys = [(t.kind, t.fn, json.dumps(t.params, sort_keys=True), t.seed) for t in tasks]
    results = [found.get(k) for k in keys]
    reuse.seconds = sum(seconds.get(k, 0.0) for k in keys)  # the reused tasks' own wall seconds
    return results, [t for t, r in zip(tasks, results) if r is None]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slt.measure.committed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=str(PATH), help="file to write (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", default="results/tasks", help="task cache (resumable; default %(default)s)")
    parser.add_argument("--reuse", metavar="DIR", default=None,
                        help="take results of identical rate tasks from this cache even if the code changed since")
    parser.add_argument("--workers", type=int, default=0, help="dask workers (0: in this process; default 0)")
    parser.add_argument("--max-trials", type=int, default=2000,
                        help="most trials per point when extending undecided points (default %(default)s)")
    args = parser.parse_args(argv)
    bad = refused(parser.prog)
    if bad:
        return bad

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    def run_tasks(tasks):
        return execute(tasks, cache_dir=args.cache_dir, workers=args.workers, progress=True, desc="committed")

    start = time.perf_counter()
    calib = calibration.load()
    tasks = rate_tasks(args.seed, calib)
    results, missing = reuse(tasks, args.reuse) if args.reuse else ([None] * len(tasks), tasks)
    if missing:
        computed = iter(run_tasks(missing))
        results = [r if r is not None else next(computed) for r in results]
    out = emp.decide(tasks, results)
    out = extend(out, args.seed + 10**6, args.max_trials, run_tasks, log)
    out.update(wall_s=time.perf_counter() - start, tasks=len(tasks))
    command = "python -m slt.measure.committed " + " ".join(argv if argv is not None else sys.argv[1:])
    doc = document(out, emp.constants(calib), command.strip(), args.seed, time.perf_counter() - start,
                   {k: v for k, v in emp.worst_targets(calib).items() if v})
    if args.reuse:
        doc["provenance"]["reused"] = (f"{len(tasks) - len(missing)} of {len(tasks)} rate tasks taken from "
                                       f"{shown(Path(args.reuse))}: identical tasks (kind, function, parameters, "
                                       f"seed) computed by an earlier version of the code, "
                                       f"{reuse.seconds:.0f} s of trials")
    write(Path(args.output), doc)
    left = undecided(out)
    log(f"wrote {args.output}: " + ", ".join(f"{k} {v}" for k, v in out["verdicts"].items())
        + (f"; {len(left)} point(s) still undecided at {args.max_trials} trials" if left else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
