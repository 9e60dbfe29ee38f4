"""`slth calibrate`: the smallest universal constant C that the observed failure rates support.

Argument parsing and printing only; the measuring, the search over C, the trend fits and the file format live in
``slt.measure.calibrate`` (see its docstring). Tasks run on dask.distributed (a LocalCluster by default,
``--scheduler ADDRESS`` or $SLTH_SCHEDULER for a running cluster, ``--workers N``) and are cached per task under
``--cache-dir``: an interrupted run resumes with nothing computed twice. The results file is written atomically
once, when every point is done (an interrupted run leaves the previous file, or none; a statement left without
points is refused, never written with ``C: null``); points already in it are skipped (``--restart`` recomputes
them).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from pathlib import Path

from slt.cache import write_atomic, writing
from slt.measure import calibrate as cal
from slt.measure import catalogue
from slt.measure.calibrate import CalibrationError
from slt.measure.calibration import SAFETY
from slt.measure.catalogue import CatalogueError
from slt.measure.stats import CONFIDENCE, LEVEL

from slt.measure.resources import check_trials

from reports.cli import count, positive_int, workers
from reports.paths import check_outputs
from reports.sections.calibration_trend import markdown_table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", default=None,
                        help="results file (JSON; default: results/calibration.json, or "
                             "results/calibration-large.json with --grid large)")
    parser.add_argument("--statements", nargs="*", default=None,
                        help="statements to calibrate, names or aliases such as 'Theorem 9' (default: every "
                             "probabilistic statement with a grid)")
    parser.add_argument("--grid", choices=["checks", "large"], default="checks",
                        help="checks: each statement's calibration grid (its Numerics; what the checks read); large: the large "
                             "grid over d1, d2, H, eps, L, B (default: %(default)s)")
    parser.add_argument("--design", choices=["ofat", "full"], default="ofat",
                        help="with --grid large: one-factor-at-a-time around a base point plus corners, or the full "
                             "factorial (default: %(default)s)")
    parser.add_argument("--seed", type=count, default=20251106, help="base seed (default: %(default)s)")
    parser.add_argument("--min-trials", type=positive_int, default=None,
                        help="trials per (grid point, C); at least twice the number for which zero failures give a "
                             "Clopper-Pearson bound <= eps (default: 20, 50 with --grid large)")
    parser.add_argument("--restart", action="store_true",
                        help="recompute the selected statements' points instead of keeping those in the output file "
                             "(cached tasks are still reused)")
    parser.add_argument("--scheduler", default=None,
                        help="address of a running Dask scheduler (tcp://HOST:PORT), or 'synchronous' (default: "
                             "$SLTH_SCHEDULER, else a LocalCluster on this machine)")
    parser.add_argument("--workers", type=workers, default=None,
                        help="LocalCluster worker processes (default: one per core; 0: run in this process; at most 4 "
                             "per core)")
    parser.add_argument("--cache-dir", default=None,
                        help="per-task result cache (default: $SLTH_CACHE_DIR or results/tasks)")
    parser.add_argument("--where", action="append", default=[], metavar="FACTOR=V1,V2",
                        help="keep only the grid points whose FACTOR is one of the values (repeatable; a factor a "
                             "statement does not have is ignored for it, one no statement of the grid has is refused): "
                             "run a large grid in stages, cheap points first")
    parser.add_argument("--estimate", action="store_true",
                        help="time a few trials at every point (at the search's start C), print the estimated cost "
                             "of the run and exit")
    parser.add_argument("--refit", action="store_true",
                        help="measure nothing: recompute each statement's C and (large grid) trend from the points "
                             "stored in the output file")
    parser.add_argument("--table", action="store_true",
                        help="measure nothing: print the markdown table of a large calibration (as in docs/calibration.md) from "
                             "--output, default the committed slt/measure/calibration-large.json")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def main(args: argparse.Namespace) -> int:
    try:
        with contextlib.ExitStack() as held:  # the output's lock, held until the command ends
            return _main(args, held)
    except (CalibrationError, CatalogueError) as exc:
        print(f"slth calibrate: error: {exc}", file=sys.stderr)
        return 2


def _main(args: argparse.Namespace, held: contextlib.ExitStack) -> int:
    if args.cache_dir is not None:  # the first existing folder on its path must be a folder
        existing = next(p for p in (Path(args.cache_dir), *Path(args.cache_dir).absolute().parents) if p.exists())
        if not existing.is_dir():
            raise cal.CalibrationError(f"--cache-dir {args.cache_dir}: {existing} is a file, not a directory")
    min_trials = args.min_trials if args.min_trials is not None else (50 if args.grid == "large" else 20)
    if args.table:
        summary = cal.trend_summary(args.output or cal.LARGE_FILE)
        if summary is None:
            raise cal.CalibrationError(f"--table: no calibration file {args.output or cal.LARGE_FILE}")
        print(markdown_table(summary))
        return 0
    names = catalogue.resolve(args.statements, args.grid)
    output = args.output or ("results/calibration-large.json" if args.grid == "large" else "results/calibration.json")
    path = Path(output)
    check_outputs(("--output", output), create=("--output",) if args.output is None else ())  # OutputError: exit 2
    held.enter_context(writing(path, what="--output"))  # a second writer of the same file is refused, not merged away
    if args.refit:
        return _refit(path, args.grid, args.statements and names)
    if not args.estimate:
        from reports.record.assemble import check_cluster
        check_cluster(args.scheduler)
    for item in args.where:  # select() names a malformed item; a value that is no finite number is refused here
        for value in item.partition("=")[2].split(","):
            try:
                finite = math.isfinite(float(value))
            except ValueError:
                continue
            if not finite:
                raise cal.CalibrationError(f"--where {item!r}: {value.strip()} is not a finite number")
    planned = cal.select(cal.plan(names, args.grid, args.design, min_trials, args.seed), args.where,
                         cal.factor_names(args.grid, args.design) if args.where else None)
    # one round: one C at every point, its tasks and their results held at once (cal.TRIAL_BYTES a trial)
    check_trials(sum(p["trials"] for p in planned) or 1, "--min-trials", per_trial=cal.TRIAL_BYTES)

    if args.estimate:
        total = 0.0
        for p in planned:
            s = cal.estimate_cost(p["statement"], p["point"], p["grid_C"][p["start"]])
            rows = 3  # typical C values evaluated per point by the galloping search
            total += s * p["trials"] * rows
            print(f"{p['statement']} {p['point']}: {s:.3f} s/trial x {p['trials']} trials x ~{rows} C "
                  f"= {s * p['trials'] * rows:.0f} s", flush=True)
        print(f"estimated total: {total:.0f} s of trials ({total / 3600:.2f} h on one worker at this machine's "
              f"current load) for {len(planned)} points")
        return 0

    command = (f"slth calibrate --grid {args.grid}" + (f" --design {args.design}" if args.grid == "large" else "")
               + f" --output {output} --seed {args.seed} --min-trials {min_trials}"
               + "".join(f" --where {w}" for w in args.where))
    data = cal.load_results(path) if path.exists() else {}
    data.update({"command": command, "grid": args.grid, "confidence": CONFIDENCE, "level": LEVEL, "safety": SAFETY,
                 "definition": "per grid point C_upper = smallest C on the C grid whose one-sided Clopper-Pearson "
                               "upper bound on the failure rate is <= eps; C_point = smallest C whose observed rate "
                               "is <= eps; per statement C = max C_upper, uncertainty [max C_point, max C_upper]",
                 "search": "galloping from start_C (the checks calibration's C) then bisection over the C grid; "
                           "failure counts of the same seeds assumed non-increasing in C"})
    if args.grid == "large":
        design = data.setdefault("design", {})
        per = design.setdefault("per_statement", {})
        for n in data.get("statements", {}):
            per.setdefault(n, design.get("name", args.design))  # files written before designs were per statement
        before = dict(per)
        this = args.design + (f" where {', '.join(args.where)}" if args.where else "")
        for n in names:  # the whole factorial contains every other design's points: a file holding it is "full"
            kept = per.get(n) if not args.restart else None
            if kept is None or kept == "full" or this == "full" or this in kept.split(" + "):
                per[n] = "full" if "full" in (kept, this) else this
            else:
                per[n] = f"{kept} + {this}"
        design["name"] = per[names[0]] if len(set(per.values())) == 1 else "mixed (see per_statement)"
        for field in ("factors", "fixed", "alpha"):
            design.setdefault(field, {}).update({n: catalogue.get(n).large.get(field) for n in names})
        design.setdefault("where", {}).update({n: list(args.where) for n in names})
    statements = data.setdefault("statements", {})

    def key(p):
        return json.dumps({k: v for k, v in p.items() if k not in ("grid", "C_point", "C_upper", "seconds", "cpu_s",
                                                                  "statement", "start", "grid_C")},
                          sort_keys=True)

    todo = []
    for name in names:
        if args.restart:
            statements.pop(name, None)
        record = statements.setdefault(name, {"points": []})
        record["command"] = f"{command} --statements {name}"
        record["commands"] = list(dict.fromkeys([*record.get("commands", []), record["command"]]))
        if args.grid == "large":
            record["design"] = data["design"]["per_statement"][name]
            # the points of every design run into this record (what "points run / in the design" counts against)
            old = record.get("planned")
            if old is None or args.restart:
                old = cal.large_points(name, before.get(name, "ofat")) if record["points"] else []
            union = {json.dumps(q, sort_keys=True): q for q in old}
            union.update({json.dumps(p["point"], sort_keys=True): p["point"] for p in planned
                          if p["statement"] == name})
            record["planned"] = list(union.values())
        have = {key(p) for p in record["points"]}
        for p in planned:
            if p["statement"] != name:
                continue
            if key({**p["point"], "trials": p["trials"], "seed": p["seed"]}) in have:
                print(f"[calibrate] {name} {p['point']}: already in {path}, skipped", flush=True)
            else:
                todo.append(p)
        if not record["points"] and not any(p["statement"] == name for p in todo):
            raise cal.CalibrationError(f"{name}: no grid point to calibrate"
                                       + (f" matches --where {' '.join(args.where)}" if args.where else "")
                                       + f"; nothing written to {path}")

    start = time.perf_counter()
    previous = data.get("cost", {}).get("wall_s", 0.0)

    results = cal.calibrate(todo, cache_dir=args.cache_dir, scheduler=args.scheduler, workers=args.workers,
                            progress=not args.no_progress) if todo else []
    fresh = {}
    for r in results:
        fresh.setdefault(r["statement"], []).append({k: v for k, v in r.items() if k != "statement"})
    for name in names:
        record = statements[name]
        kept = [p for p in record["points"] if key(p) not in {key(q) for q in fresh.get(name, [])}]
        points = kept + fresh.get(name, [])
        record.update(cal.summarise(points), points=points)
        if args.grid == "large":
            record["trend"] = cal.trend(points)
    rows = [row for rec in statements.values() for p in rec["points"] for row in p["grid"]]
    data["cost"] = {"wall_s": previous + time.perf_counter() - start, "trials": int(sum(r["trials"] for r in rows)),
                    "cpu_s": float(sum(r.get("cpu_s", 0.0) for r in rows)),
                    "trial_s": float(sum(r.get("seconds", 0.0) for r in rows)),
                    "note": "wall_s: summed over the runs that wrote this file; cpu_s/trial_s: CPU and wall "
                            "seconds of the trials themselves (cached tasks counted once)"}
    write_atomic(path, json.dumps(data, indent=1, default=float))
    for name in names:
        record = statements[name]
        for p in record["points"]:
            params = {k: v for k, v in p.items() if k not in ("grid", "C_point", "C_upper", "seconds", "cpu_s",
                                                            "trials", "seed")}
            print(f"[calibrate] {name} {params}: C in [{p['C_point']}, {p['C_upper']}] ({p['trials']} trials per C)")
        print(f"[calibrate] {name}: C = {record.get('C')} (range {record.get('C_low')} .. {record.get('C_high')})")
        if "trend" in record:
            print(f"[calibrate] {name} trend: {record['trend'].get('verdict') or record['trend'].get('error')}")
    print(f"wrote {path} ({data['cost']['trials']} trials, {data['cost']['cpu_s']:.0f} CPU s)")
    return 0


def _refit(path, grid, names) -> int:
    """``--refit``: C and trend of every stored statement from its stored points; nothing measured."""
    if not path.exists():
        raise cal.CalibrationError(f"--refit: no calibration file {path}")
    data = cal.load_results(path)
    for name, record in data.get("statements", {}).items():
        if names and name not in names:
            continue
        record.update(cal.summarise(record["points"]))
        if grid == "large":
            record["trend"] = cal.trend(record["points"])
        print(f"[calibrate] {name}: C = {record.get('C')} ({len(record['points'])} points)"
              + (f"; trend: {record['trend'].get('verdict') or record['trend'].get('error')}" if grid == "large" else ""))
    write_atomic(path, json.dumps(data, indent=1, default=float))
    print(f"wrote {path} (refitted, nothing measured)")
    return 0
