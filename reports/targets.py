"""`slth targets`: targets as adversaries. Measuring lives in ``slt.measure.adversaries``.

    slth targets families [--statements lemma7 ...] [--trials N]     # failure rate per target family at the
                                                                      # checks' C, first checks grid point; stored
    slth targets calibrate [--statements lemma7 ...]                  # C at the worst family found, every checks
                                                                      # grid point; the random-target C kept as C_random
    slth targets calibrate --grid large [--statements ...]            # the large grid's ofat points at the worst
                                                                      # family, independent seeds per point and C;
                                                                      # slt/measure/calibration-large-worst.json
    slth targets families --verify [--statements lemma7 ...]          # every family again at the new (worst) C
    slth targets refit [--statements ...]                             # the worst-target C and the fixed-C failure
                                                                      # model re-read from stored rows
    slth targets fixed-c lemma7 d1=2 d2=2 --C 4 --target sign_matrix --eps 0.3,0.1,0.03,0.01,0.003 --per 30
    slth targets search lemma7 d1=2 d2=2 eps=0.3 --C 4 --seeds 40 --steps 40
    slth targets heldout theorem9:d1=64 [--trials N]                  # one point of the held-out test of the law
                                                                      # (slt.measure.heldout) again, as designed

``families`` and ``calibrate`` update the calibration file (default: the committed ``slt/measure/calibration.json``)
in place, atomically: per statement ``targets`` (the family table, its command, the worst family) and, after
``calibrate``, ``C`` (the worst-target C, what the checks read), ``C_random`` (the random-target C it replaced),
``points_random`` and ``worst_target``. Every trial is a cached ``slt.tasks`` task (resumable, with progress);
the CPU seconds are stored. Exit status: 0 done (a family failing its rate test is a finding, printed), 2 usage.
"""
from __future__ import annotations

import argparse
import difflib
import json
import math
import sys
import time
from pathlib import Path

from reports.cli import count, positive, positive_int, probabilities, workers

WITH_TARGETS = ("lemma7", "lemma2", "theorem9", "theorem10", "theorem11", "theorem14")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("mode", choices=["families", "calibrate", "refit", "fixed-c", "search", "heldout"])
    parser.add_argument("statement", nargs="?", help="fixed-c / search: the statement; heldout: the point id")
    parser.add_argument("parameters", nargs="*", metavar="NAME=VALUE")
    parser.add_argument("--statements", nargs="*", default=None, help="families / calibrate: which statements")
    parser.add_argument("--file", default=None, help="calibration file to update (default: the committed one)")
    parser.add_argument("--trials", type=positive_int, default=None, help="families: trials per family (default 100)")
    parser.add_argument("--C", type=positive, default=None, help="constant C (default: the file's C_random or C)")
    parser.add_argument("--verify", action="store_true",
                        help="families: at the file's C (the worst-target C the checks read), stored as targets_verify")
    parser.add_argument("--target", default="random", help="fixed-c: target family")
    parser.add_argument("--eps", type=probabilities, default="0.3,0.1,0.03,0.01,0.003",
                        help="fixed-c: eps values, comma-separated")
    parser.add_argument("--per", type=positive, default=30.0, help="fixed-c: trials = ceil(PER / eps)")
    parser.add_argument("--seeds", type=positive_int, default=40, help="search: seeds every candidate is scored on")
    parser.add_argument("--steps", type=count, default=40, help="search: hill-climbing steps")
    parser.add_argument("--seed", type=count, default=20260121, help="base seed (default: %(default)s)")
    parser.add_argument("--workers", type=workers, default=None, help="dask workers (0: in this process)")
    parser.add_argument("--cache-dir", default=None, help="task cache (default: the harness's)")
    parser.add_argument("--output", default=None, help="fixed-c / search: write the result (JSON) here")
    parser.add_argument("--grid", choices=["checks", "large"], default="checks",
                        help="calibrate: the checks grid (default; updates the calibration file) or the large grid's "
                             "points (written to --output, default slt/measure/calibration-large-worst.json)")
    parser.add_argument("--design", choices=["ofat", "full"], default="ofat", help="--grid large: the design")
    parser.add_argument("--min-trials", type=positive_int, default=14, help="calibrate: trials per (point, C) at least this "
                        "and twice the count whose zero failures give a Clopper-Pearson bound <= eps (default 14)")
    parser.add_argument("--estimate", action="store_true",
                        help="--grid large: time two trials at every point at the start C (the worst target) and "
                             "print the estimated cost of the walk (about 5 C per point); measure nothing else")
    parser.add_argument("--restart", action="store_true",
                        help="--grid large: recompute statements already in the output (cached tasks still reused)")
    parser.add_argument("--no-progress", action="store_true")


def main(args: argparse.Namespace) -> int:
    try:
        return _main(args)
    except (ValueError, KeyError) as exc:
        print(f"slth targets: error: {exc}", file=sys.stderr)
        return 2


def _write(path, data):
    from slt.cache import write_atomic

    write_atomic(path, json.dumps(data, indent=1) + "\n")


def _heldout(args) -> int:
    """``slth targets heldout POINT``: one held-out point rerun as designed; exit 1 when its test rejects."""
    from slt.measure import heldout

    if not args.statement:
        raise ValueError("heldout: name a point (python -m slt.measure.heldout verdict lists them)")
    out = heldout.rerun_point(args.statement, args.trials, cache_dir=args.cache_dir,  # InputError: a ValueError
                              workers=0 if args.workers is None else args.workers)
    print(out["line"])
    if args.output:
        _write(args.output, out)
    return 1 if out["pvalue"] < out["level"] else 0


def _main(args) -> int:
    if args.mode == "heldout":
        return _heldout(args)

    from slt.cache import writing
    from slt.measure import calibrate, calibration

    from reports.paths import check_distinct, check_outputs

    path = Path(args.file) if args.file else calibration.DEFAULT
    names = list(dict.fromkeys(args.statements or WITH_TARGETS))
    for n in names:
        if n not in WITH_TARGETS:
            close = difflib.get_close_matches(n, WITH_TARGETS, n=1, cutoff=0.6)
            raise ValueError(f"--statements: {n} has no target family" + (f"; did you mean {close[0]!r}?" if close
                             else "") + f" (choose from {', '.join(WITH_TARGETS)})")
    large = args.mode == "calibrate" and args.grid == "large"
    writes_file = args.mode in ("families", "refit", "fixed-c") or (args.mode == "calibrate" and not large)
    output = (args.output or str(calibrate.LARGE_WORST_FILE)) if large else args.output
    if args.mode in ("fixed-c", "search") and not args.statement:
        raise ValueError(f"{args.mode}: name a statement")
    # before any work: every path this command writes can be written, and the file it reads makes sense
    check_outputs(("--file", path if writes_file else None), ("--output", output),
                  create=("--output",) if large and not args.output else ())
    check_distinct(reads=[("--file", None if writes_file else path)],
                   writes=[("--output", output), ("--file", path if writes_file else None)])
    data = calibration.read(path) if args.mode != "search" or args.C is None else None
    if args.mode != "refit" and args.workers != 0:  # the cluster named before the first trial, not after it
        from reports.record.assemble import check_cluster
        check_cluster()
    with writing(path if writes_file else None, output):
        return _run(args, path, names, data, output)


def _run(args, path, names, data, output) -> int:
    from slt import targets
    from slt.measure import adversaries, calibration, catalogue
    from slt.measure.calibrate import TRIAL_BYTES, feasible_grid, trials_for
    from slt.measure.resources import check_request, check_trials, user_parameters

    kw = dict(cache_dir=args.cache_dir, workers=args.workers, progress=not args.no_progress)
    argv = " ".join(["slth", "targets"] + sys.argv[2:] if sys.argv[1:2] == ["targets"] else ["slth"] + sys.argv[1:])

    def record(name):
        if data is None or name not in data["statements"]:
            raise ValueError(f"{path}: statement {name} is not in the calibration file")
        return data["statements"][name]

    def constant(name, rec, key):
        C = rec.get(key) if key in rec else rec.get("C")
        if not (isinstance(C, (int, float)) and C > 0):
            raise ValueError(f"{path}: field 'statements.{name}.{key}' is {C!r}, expected a number > 0 "
                             "(or give --C)")
        return C

    if args.mode == "refit":  # the worst-target C re-read from the stored rows (no trial run)
        for name in names:
            rec = record(name)
            if "worst_target" not in rec:
                continue
            for p in rec["points"]:
                rows = [{k: v for k, v in g.items() if k not in ("fit_rate", "pooled_failures", "pooled_trials")}
                        for g in p["grid"]]
                est = adversaries.antitonic_C(rows, p["eps"])
                p.update(C_point=est["C_point"], C_upper=est["C_upper"], grid=est["fit"])
            rec.update(_worst_C(rec["points"]))
            print(f"{name}: C at target {rec['worst_target']} = {rec['C']} (random targets: {rec['C_random']})")
            g = rec.get("growth")
            if isinstance(g, dict) and g.get("rows"):  # the failure model re-read from the stored fixed-C rows
                g["glm"] = _growth_glm(rec, g["rows"], g.get("params") or {}, g.get("target"), args.seed)
                print(f"{name}: fixed-C failure model: {g['glm']['verdict']}")
        _write(path, data)
        return 0

    if args.mode in ("families", "calibrate"):
        todo, trials = [], args.trials or 100
        for name in names:  # every statement's request checked before the first trial
            rec, point, C, points = record(name), None, None, None
            if args.mode == "families":
                point = {k: v for k, v in rec["points"][0].items() if k in _point_keys(name)}
                C = args.C or constant(name, rec, "C" if args.verify else "C_random")
                check_request(name, C, point)
                check_trials(trials * len(targets.families(name)), "--trials")
            elif args.grid != "large":
                if rec.get("targets", {}).get("worst") is None:
                    raise ValueError(f"{name}: run `slth targets families --statements {name}` first")
                points = [dict(p) for p in catalogue.get(name).calibration]  # the statement's checks grid
                check_trials(sum(trials_for(p["eps"], args.min_trials) for p in points)
                             * len(feasible_grid(name, points[0])), "--min-trials", per_trial=TRIAL_BYTES)
            todo.append((name, rec, point, C, points))
        for name, rec, point, C, points in todo:
            C_random = rec.get("C_random", rec.get("C"))
            start = time.process_time()
            if args.mode == "families":
                rows = adversaries.family_rates(name, C, point, trials, args.seed, **kw)
                rec["targets_verify" if args.verify else "targets"] = {
                                  "command": argv, "C": C, "point": point, "trials": trials,
                                  "seed": args.seed, "families": rows, "worst": rows[0]["family"],
                                  "cpu_s": sum(r["cpu_s"] for r in rows),
                                  "note": "same seeds for every family (common random numbers across families)"}
                for r in rows:
                    print(f"{name} C={r['C']:g} {point}: {r['family']:>18}: {r['failures']}/{r['trials']} "
                          f"(rate {r['rate']:.3g}, p = {r['pvalue']:.2g}) " + ("pass" if r["passed"] else "FAIL"))
            elif args.grid == "large":
                _large(name, rec, args, kw, argv, Path(output))
                continue
            else:
                worst = rec["targets"]["worst"]  # checked above
                grid = feasible_grid(name, points[0])
                out = adversaries.calibrate_worst(name, points, worst, grid, C_random,
                                                  lambda eps: trials_for(eps, args.min_trials), args.seed, **kw)
                rec.setdefault("points_random", rec["points"])
                rec.update({"C_random": C_random, "C_low_random": rec.get("C_low_random", rec.get("C_low")),
                            "worst_target": worst, "points": out, "worst_command": argv, **_worst_C(out),
                            "worst_cpu_s": sum(p["cpu_s"] for p in out)})
                print(f"{name}: C at target {worst} = {rec['C']} (random targets: {C_random}); "
                      + "; ".join(f"{ {k: p[k] for k in _point_keys(name) if k in p} }: C_point {p['C_point']}, "
                                  f"C_upper {p['C_upper']}" for p in out))
            data.setdefault("cpu_s", {})[f"targets {args.mode} {name}"] = time.process_time() - start
            _write(path, data)
            calibration.load.cache_clear()
        return 0

    name = args.statement
    if name not in WITH_TARGETS:
        raise ValueError(f"{name} has no target family (choose from {', '.join(WITH_TARGETS)})")
    params = user_parameters(name, args.parameters, extra=("target",) if args.mode == "search" else ())
    if args.mode == "search" and "target" in params:
        raise ValueError("search: the search chooses the target; give no target= parameter")
    if args.mode == "fixed-c" and "target" in params:
        raise ValueError("fixed-c: give the target family with --target, not target=")
    C = args.C if args.C is not None else constant(name, record(name), "C")
    if args.mode == "fixed-c":
        eps_values = args.eps if isinstance(args.eps, list) else [float(e) for e in args.eps.split(",")]
        if "eps" in params:
            raise ValueError("fixed-c: give eps with --eps, not eps=")
        allowed = list(dict.fromkeys(["random", *targets.families(name)]))
        if args.target not in allowed:
            raise ValueError(f"--target {args.target!r}: not a target family of {name} "
                             f"(choose from {', '.join(allowed)})")
        check_request(name, C, {**params, "eps": min(eps_values)})
        check_trials(sum(max(1, math.ceil(args.per / e)) for e in eps_values), "--per")
        kept, earlier = _kept_growth(record(name), name, C, params, args.target, eps_values, path)
        rows = adversaries.fixed_C(name, C, {**params, "target": args.target}, eps_values, args.per, args.seed, **kw)
        for r in rows:
            print(f"{name} C={C:g} target={args.target} eps={r['eps']:g}: {r['failures']}/{r['trials']} failures, "
                  f"rate/eps {r['rate_over_eps']:.3g} (95% CI [{r['ci_over_eps'][0]:.3g}, {r['ci_over_eps'][1]:.3g}]),"
                  f" p = {r['pvalue']:.2g}, power vs 2 eps {r['power_2eps']:.2f}")
        result = {"command": argv, "statement": name, "C": C, "params": params, "target": args.target, "rows": rows,
                  "cpu_s": sum(r["cpu_s"] for r in rows)}
        rec = record(name)
        every = sorted(kept + rows, key=lambda r: -r["eps"])  # the stored rows of other eps are kept, never dropped
        result["glm"] = _growth_glm(rec, every, params, args.target, args.seed)
        print(f"{name}: {result['glm']['model']} over {result['glm']['rows']} rows"
              + (f" (with {len(kept)} stored rows of other eps)" if kept else "") + f": {result['glm']['verdict']}")
        rec["growth"] = ({k: v for k, v in result.items() if k != "command"}
                         | {"rows": every, "cpu_s": sum(r.get("cpu_s", 0.0) for r in every),
                            "command": "; ".join(dict.fromkeys([*earlier, argv]))})
        if args.output:  # the result first: a failure to write it leaves the calibration file as it was
            _write(Path(args.output), result)
        _write(path, data)
        return 0
    check_request(name, C, params)  # search
    check_trials(args.seeds, "--seeds")  # every candidate's trials on every seed are kept until it is scored
    result = targets.search(catalogue.get(name).trial, C, params, range(args.seed, args.seed + args.seeds),
                            steps=args.steps, start_seed=args.seed - 1, hypothesis=targets.HYPOTHESIS[name],
                            draw=adversaries.random_draw(name, params), rng=args.seed,
                            progress=None if args.no_progress else print)
    result["command"] = argv
    print(f"{name} C={C:g}: found {result['kinds']} with {result['failures']}/{result['trials']} failures")
    if args.output:
        _write(Path(args.output), result)
    return 0


def _large(name, rec, args, kw, argv, out_path):
    """``calibrate --grid large``: the worst-target C at every point of the large grid's design (the family the
    checks grid found worst; independent seeds per point and per C; read without assuming monotone counts), with the
    trend of C over the factors, written atomically after each statement (a re-run skips the statements done)."""
    from slt.measure import adversaries, calibrate

    from slt.inputs import read_json

    data = read_json(out_path, "--output") if out_path.exists() else {
        "command": "", "grid": "large", "design": {"name": args.design}, "statements": {}, "cost": {},
        "definition": "per point C_upper = smallest C on the C grid whose own one-sided 95% Clopper-Pearson upper "
                      "bound, and every larger evaluated C's, is <= eps; C_point the same on the antitonic fit; "
                      "per statement C = max C_upper",
        "search": "from the checks' worst-target C, gallop up the C grid to the first passing C, confirm the next, "
                  "walk down to the last failure; rows read by an antitonic (isotonic) fit, no monotone counts "
                  "assumed (slt.measure.adversaries.calibrate_worst)",
        "seeds": f"seed + {adversaries.POINT_STRIDE} x point index + {adversaries.SEED_STRIDE} x C grid index: "
                 "independent across points and across C"}
    if not (isinstance(data, dict) and isinstance(data.get("statements"), dict)):
        raise ValueError(f"--output {out_path}: not a calibration file (no 'statements' object)")
    if name in data["statements"] and not args.restart:
        print(f"{name}: already in {out_path} (--restart to recompute)")
        return
    worst = rec.get("worst_target")
    if worst is None:
        raise ValueError(f"{name}: no worst target yet; run `slth targets calibrate --statements {name}` first")
    points = calibrate.large_points(name, args.design)
    if args.estimate:
        total = 0.0
        for p in points:
            per = calibrate.estimate_cost(name, {**p, "target": worst}, rec["C"])
            n = calibrate.trials_for(p["eps"], args.min_trials)
            total += per * n * 5
            print(f"{name} {p}: {per:.3f} s/trial x {n} trials x ~5 C = {per * n * 5:.0f} s")
        print(f"{name}: estimated {total:.0f} s of trials ({total / 3600:.2f} h on one worker at this load)")
        return
    wall = time.perf_counter()
    out = adversaries.calibrate_worst(name, points, worst, lambda p: calibrate.feasible_grid(name, p), rec["C"],
                                      lambda eps: calibrate.trials_for(eps, args.min_trials), args.seed,
                                      point_stride=adversaries.POINT_STRIDE, **kw)
    record = {"points": out, "command": argv, "design": args.design, "target": worst, **_worst_C(out),
              "trend": calibrate.trend(out)}
    data["statements"][name] = record
    data["command"] = argv
    cost = data.setdefault("cost", {})
    cost["cpu_s"] = cost.get("cpu_s", 0) + sum(p["cpu_s"] for p in out)
    cost["wall_s"] = cost.get("wall_s", 0) + time.perf_counter() - wall
    cost["trials"] = cost.get("trials", 0) + sum(g["trials"] for p in out for g in p["grid"])
    _write(out_path, data)
    print(f"{name}: large grid at target {worst}: C = {record['C']} over {len(out)} points; trend: "
          f"{record['trend'].get('verdict') or record['trend'].get('error')}")


def _worst_C(points) -> dict:
    """C and C_high: the largest C_upper of ``points`` (None when one has none); C_low: the largest C_point."""
    ups = [p["C_upper"] for p in points]
    C = None if None in ups else max(ups)
    return {"C": C, "C_high": C, "C_low": max((p["C_point"] for p in points if p["C_point"] is not None), default=None)}


def _kept_growth(rec, name, C, params, target, eps_values, path):
    """The stored fixed-C rows (``growth``) this run keeps (those of eps it does not measure again) and the
    commands that made them; ``ValueError`` before any trial when the stored rows are of another C, target or
    point: this run would replace them, and a misdirected run never deletes stored rows."""
    g = rec.get("growth")
    if not isinstance(g, dict) or not g.get("rows"):
        return [], []
    if not (g.get("C") == C and (g.get("params") or {}) == params and g.get("target") == target):
        trials = sum(r.get("trials", 0) for r in g["rows"])
        raise ValueError(f"{path}: statements.{name}.growth holds {len(g['rows'])} stored rows ({trials:,} trials) "
                         f"at C={g.get('C')}, target {g.get('target')}, {g.get('params')}; this run (C={C:g}, "
                         f"target {target}, {params}) would replace them: give --file a copy of the file to keep "
                         "both")
    earlier = [c for c in str(g.get("command") or "").split("; ") if c]
    return [r for r in g["rows"] if r.get("eps") not in eps_values], earlier


def _growth_glm(rec, rows, params, target, seed):
    """The failure model of the fixed-C ``rows`` together with the worst-target calibration's rows at the same point
    (the same parameters but eps; other C, same target: rows of other points would confound eps with them)."""
    from slt.measure import adversaries

    glm_rows = [{"C": r["C"], "eps": r["eps"], "failures": r["failures"], "trials": r["trials"]} for r in rows]
    if rec.get("worst_target") == target:
        same = [p for p in rec["points"] if all(p.get(k) == v for k, v in params.items() if k != "eps")]
        glm_rows += [{"C": g["C"], "eps": p["eps"], "failures": g["failures"], "trials": g["trials"]}
                     for p in same for g in p["grid"]]
    return adversaries.failure_glm(glm_rows, seed=seed)


def _point_keys(name):
    return {"lemma7": ("d1", "d2", "eps"), "lemma2": ("d1", "d2", "eps"),
            "theorem9": ("d1", "d2", "H", "alpha", "eps"), "theorem10": ("d1", "L", "eps", "alpha"),
            "theorem11": ("d1", "H", "L", "alpha", "eps"), "theorem14": ("d1", "H", "L", "alpha", "eps", "B")}[name]
