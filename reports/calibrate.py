"""`slth calibrate`: the smallest universal constant C that the observed failure rates support.

For every probabilistic statement whose check module (``slt.measure.statements.<name>``) declares ``CALIBRATION_GRID``
and ``trial``, and for every grid point (d1, d2, H, eps, ...): failure counts of independent seeded sources at
the widths ``bounds`` requires for C, over an ascending grid of C (``slt.measure.probabilistic.calibrate_point``).
Per point, ``C_point`` (smallest C with observed failure rate <= eps) and ``C_upper`` (smallest C whose one-sided
95% Clopper-Pearson upper bound is <= eps); per statement ``C = max C_upper`` with uncertainty
``[max C_point, max C_upper]``. The results file is rewritten atomically after every grid point and a re-run
skips the points it already holds (resume).
"""
from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", default="results/calibration.json",
                        help="results file (JSON; default: %(default)s)")
    parser.add_argument("--statements", nargs="*", default=None,
                        help="statements to calibrate (default: every probabilistic statement with a grid)")
    parser.add_argument("--seed", type=int, default=20251106, help="base seed (default: %(default)s)")
    parser.add_argument("--min-trials", type=int, default=20,
                        help="trials per (grid point, C); at least twice the number for which zero failures give a "
                             "Clopper-Pearson bound <= eps (default: %(default)s)")
    parser.add_argument("--restart", action="store_true",
                        help="recompute the selected statements instead of resuming from the output file")


def calibratable() -> list[str]:
    import importlib

    import bounds

    out = []
    for name in bounds.names():
        if bounds.get(name).probability is None:
            continue
        try:
            module = importlib.import_module(f"slt.measure.statements.{name}")
        except ModuleNotFoundError:
            continue
        if hasattr(module, "CALIBRATION_GRID") and hasattr(module, "trial"):
            out.append(name)
    return out


def main(args: argparse.Namespace) -> int:
    import importlib
    import json
    import time
    from pathlib import Path

    from slt.measure.calibration import SAFETY
    from slt.measure.probabilistic import C_GRID, calibrate_point, summarise, trials_needed
    from slt.measure.stats import CONFIDENCE, LEVEL
    from reports.build import write_atomic

    path = Path(args.output)
    command = f"slth calibrate --output {args.output} --seed {args.seed} --min-trials {args.min_trials}"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update({"command": command, "confidence": CONFIDENCE, "level": LEVEL, "safety": SAFETY,
                 "definition": "per grid point C_upper = smallest C on the C grid whose one-sided Clopper-Pearson "
                               "upper bound on the failure rate is <= eps; C_point = smallest C whose observed rate "
                               "is <= eps; per statement C = max C_upper, uncertainty [max C_point, max C_upper]"})
    data.setdefault("statements", {})
    names = args.statements or calibratable()
    for name in names:
        module = importlib.import_module(f"slt.measure.statements.{name}")
        if args.restart:
            data["statements"].pop(name, None)
        record = data["statements"].setdefault(name, {"points": []})
        record["command"] = f"{command} --statements {name}"
        done = {json.dumps({k: p[k] for k in ("trials", "seed", *module.CALIBRATION_GRID[0])}, sort_keys=True)
                for p in record["points"]}
        for i, point in enumerate(module.CALIBRATION_GRID):
            trials = max(args.min_trials, 2 * trials_needed(point["eps"]))
            key = json.dumps({"trials": trials, "seed": args.seed, **point}, sort_keys=True)
            label = f"[calibrate] {name} point {i + 1}/{len(module.CALIBRATION_GRID)} {point}"
            if key in done:
                print(f"{label}: already in {path}, skipped", flush=True)
                continue
            start = time.perf_counter()
            feasible = getattr(module, "feasible", lambda C, **p: True)
            grid_C = tuple(C for C in C_GRID if feasible(C, **point))
            result = calibrate_point(module.trial, point, trials, args.seed, grid_C,
                                     progress=lambda msg: print(f"{label} {msg}", flush=True))
            result["seconds"] = time.perf_counter() - start
            record["points"].append(result)
            record.update({k: v for k, v in summarise(record["points"]).items() if k != "points"})
            write_atomic(path, json.dumps(data, indent=1, default=float))
            print(f"{label}: C_point={result['C_point']} C_upper={result['C_upper']} "
                  f"({result['seconds']:.1f} s)", flush=True)
        print(f"[calibrate] {name}: C = {record.get('C')} (range {record.get('C_low')} .. {record.get('C_high')})")
    write_atomic(path, json.dumps(data, indent=1, default=float))
    print(f"wrote {path}")
    return 0
