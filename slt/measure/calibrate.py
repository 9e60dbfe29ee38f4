"""Calibration of the universal constant C (``slth calibrate``): grids, tasks, the search over C, trends.

For a probabilistic statement with a ``trial`` in ``slt.measure.statements.<name>`` and a grid point (d1, d2, H,
eps, ...): failure counts of independent seeded sources at the widths ``bounds`` requires for C, over the ascending
grid ``C_GRID`` (common random numbers across C: the same seeds at every C). Two estimates per point:

- ``C_point``: the smallest grid C whose observed failure rate is <= eps;
- ``C_upper``: the smallest grid C whose one-sided 95% Clopper-Pearson upper bound on the rate is <= eps (the C the
  observations SUPPORT; ``[C_point, C_upper]`` is the point's interval).

Per statement ``C = max C_upper`` with uncertainty ``[max C_point, max C_upper]``.

Work is a list of ``slt.tasks.Task`` (one per (statement, point, C, block of ``CHUNK`` seeds)), executed by
dask.distributed and cached per task (resume after an interruption, nothing computed twice). The search over C
runs for every point at once, in rounds: each round submits the next C of every unfinished point. It starts at
``start_C`` (the C of the committed checks calibration, else 1.0), walks down (or up, doubling its step) until the
criterion flips, then bisects: a few C per point instead of the whole grid (failure counts of the same seeds are
non-increasing in C up to noise, the assumption of every search here).

Grids (each statement's ``Numerics``): ``checks`` (what ``pytest checks`` reads) and ``large`` (``large_points``).
After a large grid, ``trend`` fits log C against the logs of the factors and states a verdict per factor.
"""
from __future__ import annotations

import itertools
import json
import math
import time
from pathlib import Path

from slt.fit import power_trend
from slt.inputs import InputError, read_json
from slt.measure import calibration, catalogue
from slt.measure.probabilistic import C_GRID, trials_needed
from slt.measure.stats import CONFIDENCE, upper_bound
from slt.tasks import Task, cluster, execute, returns

__all__ = ["CHUNK", "grid_points", "large_points", "plan", "calibrate",
           "trend", "load_results", "CalibrationError", "trial_block", "start_C", "trials_for", "summarise",
           "estimate_cost", "row_tasks", "feasible_grid", "select", "LARGE_FILE", "trend_summary"]

LARGE_FILE = Path(__file__).with_name("calibration-large.json")
"""The committed large calibration (``slth calibrate --grid large``): trends of C, not read by the checks."""

LARGE_WORST_FILE = Path(__file__).with_name("calibration-large-worst.json")
"""The large grid's ofat points at each statement's worst target family (``slth targets calibrate --grid large``):
trends of the worst-target C, not read by the checks."""

CHUNK = 10
"""Trials per task (a block of consecutive seeds at one (point, C))."""

TASK_BYTES = 480
"""Bytes one task of a round holds before it runs (its ``Task``: kind, parameters, seed; 483 measured with
``tracemalloc`` over 10,000 ``row_tasks`` of lueker, CPython 3.11, 64-bit)."""
RESULT_BYTES = 870
"""Bytes one task's result holds until its round ends (873 measured with ``tracemalloc`` over 10,000 parsed
``trial_block`` results of lueker)."""
TRIAL_BYTES = -(-(TASK_BYTES + RESULT_BYTES) // CHUNK)
"""Bytes a round of the calibration holds per trial, 135: what ``--min-trials`` is checked against (a round
builds every task of one C at every pending point before the first trial runs)."""

TASK_DEPENDS = ("slt.measure.statements", "slt.measure.probabilistic", "slt.measure.stats", "slt.measure.evidence",
                "slt.measure.sources", "slt.measure.networks", "slt.measure.attention", "slt.measure.adversarial",
                "slt.construct", "slt.subset_sum", "slt._subset_sum_kernels", "slt.models", "slt.samplers", "slt.targets", "bounds")
"""What a trial's result depends on (fingerprinted into every calibration task)."""

class CalibrationError(InputError):
    """Bad input to the calibration (a one-line message naming the problem)."""


# ------------------------------------------------------------------------------------------------------ grids

def large_points(statement: str, design: str = "ofat") -> list[dict]:
    """Points of the large grid. ``full``: the factorial. ``ofat``: the base point (every factor at its first
    value), each factor through all its values with the others at base, and the corners where every factor takes
    its second value and where the dimension factors (d1, d2, H) take their second value together with the
    smallest eps (interactions seen at moderate cost)."""
    spec = catalogue.get(statement).large
    if spec is None:
        raise CalibrationError(f"{statement} has no large calibration grid")
    factors = spec.factors
    names = list(factors)
    if design == "full":
        combos = [dict(zip(names, values)) for values in itertools.product(*factors.values())]
    elif design == "ofat":
        base = {k: v[0] for k, v in factors.items()}
        combos = [base] + [{**base, k: v} for k in names for v in factors[k][1:]]
        combos.append({k: v[1] for k, v in factors.items()})
        if "eps" in factors:
            combos.append({**{k: (v[1] if k in ("d1", "d2", "H") else v[0]) for k, v in factors.items()},
                           "eps": factors["eps"][-1]})
    else:
        raise CalibrationError(f"unknown design {design!r}; expected ofat or full")
    out = []
    for combo in combos:
        point = {**spec.fixed, **combo}
        point.update(spec.alpha_of(point))
        if point not in out:
            out.append(point)
    return out


def grid_points(statement: str, grid: str = "checks", design: str = "ofat") -> list[dict]:
    if grid == "checks":
        return [dict(p) for p in catalogue.get(statement).calibration]
    if grid == "large":
        return large_points(statement, design)
    raise CalibrationError(f"unknown grid {grid!r}; expected checks or large")


def feasible_grid(statement: str, point: dict) -> tuple:
    numerics = catalogue.get(statement)
    return tuple(C for C in C_GRID if numerics.allows(C, point))


def trials_for(eps: float, min_trials: int) -> int:
    """Trials per (point, C): at least ``min_trials`` and twice the number for which zero failures give a
    Clopper-Pearson upper bound <= eps."""
    return max(int(min_trials), 2 * trials_needed(eps))


# ------------------------------------------------------------------------------------------------------ tasks

@returns(failures=int, trials=int, worst_ratio=(float, None), widths=dict, seconds=float, cpu_s=float)
def trial_block(seed: int, statement: str, point: dict, C: float, trials: int) -> dict:
    """``trials`` independent trials of ``statement`` at ``point`` and constant C, seeds ``seed .. seed+trials-1``
    (with the wall and CPU seconds they took: the calibration's compute cost)."""
    trial = catalogue.get(statement).trial
    start, cpu = time.perf_counter(), time.process_time()
    cases = [trial(seed + k, C, **point) for k in range(trials)]
    ratios = [c.ratio for c in cases if math.isfinite(c.ratio)]
    return {"failures": int(sum(bool(c.violated) for c in cases)), "trials": len(cases),
            "worst_ratio": max(ratios) if ratios else None,
            "widths": {k: list(v) if isinstance(v, tuple) else v for k, v in dict(cases[0].widths).items()},
            "seconds": time.perf_counter() - start, "cpu_s": time.process_time() - cpu}


def row_tasks(statement: str, point: dict, C: float, trials: int, seed: int, chunk: int = CHUNK) -> list[Task]:
    return [Task(f"calibrate:{statement}", trial_block,
                 {"statement": statement, "point": point, "C": C, "trials": min(chunk, trials - start)}, seed + start)
            for start in range(0, trials, chunk)]


def run_rows(tasks_of, *, cache_dir=None, workers=None, progress=True, desc="") -> dict:
    """Execute the row tasks ``[(key, [Task])]`` (``row_tasks``) in one call; per key its blocks summed:
    ``{failures, trials, worst_ratio, widths, cpu_s, seconds}``."""
    results = iter(execute([t for _, ts in tasks_of for t in ts], cache_dir=cache_dir, workers=workers,
                           progress=progress, desc=desc))
    out = {}
    for key, ts in tasks_of:
        blocks = [next(results) for _ in ts]
        ratios = [b["worst_ratio"] for b in blocks if b["worst_ratio"] is not None]
        out[key] = {"failures": sum(b["failures"] for b in blocks), "trials": sum(b["trials"] for b in blocks),
                    "worst_ratio": max(ratios) if ratios else None, "widths": blocks[0]["widths"],
                    "cpu_s": sum(b["cpu_s"] for b in blocks), "seconds": sum(b["seconds"] for b in blocks)}
    return out


# ----------------------------------------------------------------------------------------------------- search

def _smallest(n: int, start: int, ok):
    """Generator: the smallest index in range(n) satisfying ``ok`` (monotone), galloping from ``start`` and
    bisecting; yields the indices it needs (receives their rows), returns the index or None."""
    row = yield start
    if ok(row):
        good, bad, step = start, None, 1
        while good > 0:
            j = max(0, good - step)
            if ok((yield j)):
                good, step = j, step * 2
            else:
                bad = j
                break
        if bad is None:
            return 0
    else:
        bad, good, step = start, None, 1
        while bad < n - 1:
            j = min(n - 1, bad + step)
            if ok((yield j)):
                good = j
                break
            bad, step = j, step * 2
        if good is None:
            return None
    while good - bad > 1:
        mid = (good + bad) // 2
        if ok((yield mid)):
            good = mid
        else:
            bad = mid
    return good


def _point_search(grid: tuple, eps: float, start: int):
    """Generator over one point: yields grid indices, receives rows; returns (C_point, C_upper)."""
    rows = {}

    def run(ok, first):
        gen = _smallest(len(grid), first, ok)
        try:
            i = next(gen)
            while True:
                if i not in rows:
                    rows[i] = yield i
                i = gen.send(rows[i])
        except StopIteration as stop:
            return stop.value

    upper = yield from run(lambda r: r["upper"] <= eps, start)
    point = yield from run(lambda r: r["failures"] <= eps * r["trials"], start if upper is None else upper)
    return (None if point is None else grid[point]), (None if upper is None else grid[upper]), rows


def start_C(statement: str) -> float:
    """Where the search starts: the statement's C in the committed checks calibration, else 1.0."""
    try:
        return float(calibration.constant(statement))
    except (OSError, KeyError, TypeError, ValueError):
        return 1.0


def plan(statements, grid="checks", design="ofat", min_trials=20, seed=20251106) -> list[dict]:
    """The points to calibrate: one dict per (statement, point) with its trials, C grid and start."""
    out = []
    for name in statements:
        start = start_C(name)
        for point in grid_points(name, grid, design):
            grid_C = feasible_grid(name, point)
            i0 = min(range(len(grid_C)), key=lambda i: abs(math.log(grid_C[i] / start)))
            out.append({"statement": name, "point": point, "trials": trials_for(point["eps"], min_trials),
                        "seed": seed, "grid_C": grid_C, "start": i0})
    return out


def factor_names(grid: str = "checks", design: str = "ofat") -> list[str]:
    """Every factor a point of ``grid`` has, over every statement calibrated on it (what ``--where`` may name)."""
    return sorted({k for name in catalogue.calibratable(grid) for p in grid_points(name, grid, design) for k in p})


def select(planned: list[dict], where: list[str], factors: list[str] | None = None) -> list[dict]:
    """The planned points whose factors take the listed values: ``where`` items "FACTOR=V1,V2" (a factor a point
    does not have does not filter it). ``CalibrationError`` on a malformed item, or on a factor that is none of
    ``factors`` (default: the planned points' own; ``--where esp=0.5``: with "did you mean"), which would otherwise
    select everything."""
    import difflib

    factors = sorted(factors if factors is not None else {k for p in planned for k in p["point"]})
    wanted = {}
    for item in where or ():
        key, sep, values = item.partition("=")
        try:
            if not sep or not key.strip():
                raise ValueError
            wanted[key.strip()] = {float(v) for v in values.split(",")}
        except ValueError:
            raise CalibrationError(f"--where {item!r}: expected FACTOR=V1,V2 with numeric values") from None
        if factors and key.strip() not in factors:
            close = difflib.get_close_matches(key.strip(), factors, n=1, cutoff=0.5)
            raise CalibrationError(f"--where {item!r}: no point of this grid has a factor "
                                   f"{key.strip()!r}" + (f"; did you mean {close[0]!r}?" if close else "")
                                   + f" (factors: {', '.join(factors)})")
    return [p for p in planned
            if all(k not in p["point"] or float(p["point"][k]) in vs for k, vs in wanted.items())]


def calibrate(points: list[dict], *, cache_dir=None, scheduler=None, workers=None, progress=True, on_round=None,
              chunk: int = CHUNK) -> list[dict]:
    """Run the search of every planned point (``plan``) in rounds; returns one result per point:
    ``{**point params, trials, seed, C_point, C_upper, grid: [rows], seconds, cpu_s}``. ``on_round(results so far)``
    is called after every round (e.g. to write the results file)."""
    searches = [_point_search(p["grid_C"], p["point"]["eps"], p["start"]) for p in points]
    pending = {k: next(s) for k, s in enumerate(searches)}
    done: dict[int, tuple] = {}
    rows_of = {k: {} for k in range(len(points))}
    rounds = 0
    with cluster(scheduler, workers):
        while pending:
            rounds += 1
            todo = [((k, i), row_tasks(points[k]["statement"], points[k]["point"], points[k]["grid_C"][i],
                                       points[k]["trials"], points[k]["seed"], chunk)) for k, i in pending.items()]
            rows = run_rows(todo, cache_dir=cache_dir, progress=progress,
                            desc=f"calibrate round {rounds} ({len(pending)} points)")
            nxt = {}
            for (k, i), r in rows.items():
                rows_of[k][i] = row = {"C": points[k]["grid_C"][i], "failures": r["failures"], "trials": r["trials"],
                                       "upper": upper_bound(r["failures"], r["trials"]),
                                       **{f: r[f] for f in ("worst_ratio", "widths", "seconds", "cpu_s")}}
                try:
                    nxt[k] = searches[k].send(row)
                except StopIteration as stop:
                    done[k] = stop.value
            pending = nxt
            if on_round:
                on_round(_results(points, done, rows_of))
    return _results(points, done, rows_of)


def _results(points, done, rows_of) -> list[dict]:
    out = []
    for k, p in enumerate(points):
        if k not in done:
            continue
        c_point, c_upper, rows = done[k]
        grid = [rows[i] for i in sorted(rows)]
        out.append({"statement": p["statement"], **p["point"], "trials": p["trials"], "seed": p["seed"],
                    "C_point": c_point, "C_upper": c_upper, "grid": grid,
                    "seconds": sum(r["seconds"] for r in grid), "cpu_s": sum(r["cpu_s"] for r in grid)})
    return out


def summarise(points: list[dict]) -> dict:
    """Statement-level constant: C = max over grid points of C_upper; C_low = max of C_point."""
    ups = [p["C_upper"] for p in points]
    if not points or any(u is None for u in ups):
        return {"C": None, "C_low": None, "C_high": None,
                "note": "some grid point never met the criterion within the C grid"}
    lows = [p["C_point"] for p in points if p["C_point"] is not None]
    return {"C": max(ups), "C_low": max(lows) if lows else None, "C_high": max(ups)}


# ------------------------------------------------------------------------------------------------------ trend

TREND_FACTORS = (("d1", "log d1"), ("d2", "log d2"), ("H", "log H"), ("L", "log L"), ("eps", "log 1/eps"),
                 ("B", "log B"))


def trend(points: list[dict], confidence: float = CONFIDENCE, response: str = "C_upper") -> dict:
    """Does C grow with d1, d2, H, L, 1/eps (or B)? Least squares of log C_upper on the logs of the factors that
    vary among the points (``slt.fit.power_trend``), with ``confidence`` intervals per exponent, and a verdict per
    factor: "no significant trend" when the interval contains 0, else "grows like d1^a, a in [lo, hi]" (or
    "shrinks like"). Points whose C_upper was not found within the C grid are left out and counted.

    ``sensitivity``: the same fit with ``C_point`` (the smallest C whose observed rate is <= eps) as the response.
    C_upper's Clopper-Pearson margin is relatively stricter at small eps (at eps = 0.3 with 50 trials it allows about
    18% observed failures, at eps = 0.03 with 198 trials about 0.5%), which by itself could make C_upper grow with
    1/eps; C_point has no margin (but more noise). A trend both responses show is not that artefact."""
    used = [p for p in points if p.get(response) is not None]
    factors = [(k, label) for k, label in TREND_FACTORS
               if len({p.get(k) for p in used}) > 1 and all(p.get(k) is not None for p in used)]
    censored = [{k: v for k, v in p.items() if k in dict(TREND_FACTORS)} for p in used if p[response] <= C_GRID[0]]
    out = {"points_used": len(used), "points_left_out": len(points) - len(used), "confidence": confidence,
           "response": f"log {response}",
           "censored_low": censored,
           "censoring_note": (f"{len(censored)} point(s) met the criterion at the smallest grid C = {C_GRID[0]} (their C "
                              "is at most that; the fit uses the grid value, so a decreasing trend there is a lower "
                              "bound on the decrease)") if censored else ""}
    if not factors:
        return {**out, "error": "no factor varies among the calibrated points"}
    X = {label: [math.log(1 / p[k]) if k == "eps" else math.log(p[k]) for p in used] for k, label in factors}
    try:
        fit = power_trend(X, [math.log(p[response]) for p in used], confidence)
    except ValueError as exc:
        return {**out, "error": str(exc)}
    verdicts = {}
    for k, label in factors:
        c = fit["coefficients"][label]
        lo, hi = c["ci"]
        name = "1/eps" if k == "eps" else k
        if lo <= 0 <= hi:
            verdicts[k] = f"no significant trend in {name} (exponent {c['estimate']:.2f}, {confidence:.0%} CI [{lo:.2f}, {hi:.2f}])"
        else:
            verdicts[k] = (f"{'grows' if lo > 0 else 'shrinks'} like {name}^a, a in [{lo:.2f}, {hi:.2f}] "
                           f"(estimate {c['estimate']:.2f})")
    out.update(fit, verdicts=verdicts,
               verdict="; ".join(verdicts.values()),
               significant=[k for k, v in verdicts.items() if not v.startswith("no significant")])
    if response == "C_upper":
        alt = trend(points, confidence, response="C_point")
        out["sensitivity"] = {k: alt.get(k) for k in ("response", "verdict", "verdicts", "coefficients", "significant",
                                                      "points_used", "censoring_note", "error") if k in alt}
    return out


# ------------------------------------------------------------------------------------------------------- file

_SHAPES = {"command": str, "commands": list, "design": (str, dict), "planned": list, "target": (str, type(None)),
           "trend": dict}
"""Types of the optional fields of a statement's record that the report and ``trend_summary`` read."""


def load_results(path) -> dict:
    """A calibration results file, validated: ``CalibrationError`` naming the file and the field when it is not
    one (missing, empty, truncated, nested too deep, a field of the wrong type or value)."""
    path = Path(path)
    data = read_json(path, "calibration file", CalibrationError)
    if not isinstance(data, dict) or not isinstance(data.get("statements", {}), dict):
        raise CalibrationError(f"{path}: not a calibration file (expected an object with 'statements')")
    for key, kind in (("command", str), ("cost", dict), ("design", dict)):
        if key in data and not isinstance(data[key], kind):
            raise CalibrationError(f"{path}: field '{key}' is {type(data[key]).__name__}, expected "
                                   f"{'a string' if kind is str else 'an object'}")
    for name, rec in data.get("statements", {}).items():
        if not isinstance(rec, dict) or not isinstance(rec.get("points", []), list):
            raise CalibrationError(f"{path}: statements.{name} is not a calibration record")
        for key, kind in _SHAPES.items():
            if key in rec and not isinstance(rec[key], kind):
                raise CalibrationError(f"{path}: field 'statements.{name}.{key}' is {json.dumps(rec[key])[:40]}, "
                                       f"expected {'an object' if kind is dict else kind.__name__ if isinstance(kind, type) else 'a string'}")
        verdict = rec.get("trend", {}).get("verdict")
        if verdict is not None and not isinstance(verdict, str):
            raise CalibrationError(f"{path}: field 'statements.{name}.trend.verdict' is not a string")
    bad = calibration.problem({"statements": {}, **data})
    if bad:
        raise CalibrationError(f"{path}: {bad}")
    return data


def estimate_cost(statement: str, point: dict, C: float, trials: int = 2, seed: int = 0) -> float:
    """Seconds per trial of ``statement`` at ``point`` and C (mean over ``trials`` trials, after one warm-up)."""
    trial = catalogue.get(statement).trial
    trial(seed + 10_000, C, **point)  # compile / warm caches
    start = time.perf_counter()
    for k in range(trials):
        trial(seed + k, C, **point)
    return (time.perf_counter() - start) / trials


def _checks_constant(name: str, C_large) -> dict | None:
    """The checks' calibrated C of ``name`` (``slt/measure/calibration.json``), the C they build at (times the
    safety factor), and whether that covers the large grid's C; None when the checks do not calibrate ``name``."""
    try:
        C = calibration.calibrated(name)["C"]
    except (KeyError, FileNotFoundError):
        return None
    except InputError as exc:  # the committed checks file is broken: say so, never a traceback
        raise CalibrationError(str(exc)) from None
    if C is None:
        return None
    build = calibration.build_constant(C)
    return {"C": float(C), "safety": calibration.SAFETY, "build_C": build,
            "covers": None if C_large is None else bool(build >= C_large)}


def trend_summary(path=None) -> dict | None:
    """What a report shows of a large calibration (JSON): per statement its C, the calibrated C of every point with
    its interval and factor values, and the fitted trend with its verdicts; the file, command and compute cost.
    None when there is no such file."""
    path = Path(path) if path else LARGE_FILE
    if not path.exists():
        return None
    data = load_results(path)
    large = catalogue.calibratable("large")
    factors = dict(TREND_FACTORS)
    out = {}
    for name, rec in data.get("statements", {}).items():
        points = [{**{k: p[k] for k in factors if k in p}, "C_point": p.get("C_point"), "C_upper": p.get("C_upper"),
                   "trials": p.get("trials")} for p in rec.get("points", [])]
        trend_ = rec.get("trend") or trend(rec.get("points", []))
        design = (rec.get("design") or data.get("design", {}).get("per_statement", {}).get(name)
                  or data.get("design", {}).get("name", ""))
        out[name] = {"C": rec.get("C"), "C_low": rec.get("C_low"), "C_high": rec.get("C_high"), "points": points,
                     "target": rec.get("target"),
                     "checks": _checks_constant(name, rec.get("C")),
                     "command": rec.get("command", ""),
                     "commands": rec.get("commands") or ([rec["command"]] if rec.get("command") else []),
                     "design": design,
                     "planned": len(rec["planned"]) if "planned" in rec else (
                         len(large_points(name, design)) if design in ("ofat", "full") and name in large else None),
                     "trend": {k: trend_.get(k) for k in ("verdict", "verdicts", "coefficients", "dof", "residual_sd",
                                                          "points_used", "points_left_out", "censoring_note",
                                                          "error", "confidence", "sensitivity")}}
    root = Path(__file__).resolve().parents[2]
    shown = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    not_run = {name: len(large_points(name, "ofat")) for name in large
               if not data.get("statements", {}).get(name, {}).get("points")}
    return {"file": shown, "command": data.get("command", ""), "cost": data.get("cost", {}),
            "order": large + [n for n in out if n not in large], "not_run": not_run,
            "design": data.get("design", {}), "statements": out}
