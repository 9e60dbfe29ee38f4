"""The held-out test of the law: the calibrated C, frozen, tested at points the calibration never saw.

The paper's claim is one universal C for every d1, d2, H, L, B and eps. The calibration fits C on its grids (the
checks grid of ``slt/measure/calibration.json`` and the large grids), so a check run on those grids is consistency,
not evidence. This module tests a prediction of the law outside them:

- **Design** (``DESIGN_FILE``, written by ``python -m slt.measure.heldout design`` and committed BEFORE any result):
  per statement its C frozen from the committed calibration (the file's SHA-256 recorded), its worst target family
  (``worst_target`` there), and points one factor at a time away from the large grid's base point: d1 and d2 four
  times the largest value any grid of the statement has, H, L and B twice theirs, eps below the smallest (down to
  0.001 where the trials afford it). ``HELDOUT`` lists the values; ``outside`` says by how much each lies beyond the
  grids (``tests/test_heldout.py`` holds every point to the ratios above). Each point gets the trials that detect a
  failure rate of 2 eps with power >= ``stats.POWER`` at the strictest level Holm's procedure applies over the M
  points, ``stats.FAMILY_WISE / M`` (``stats.trials_for_power``): Holm's power at every point is at least that.
- **Run** (``python -m slt.measure.heldout run``): every point's trials as ``slt.tasks`` blocks of the
  calibration's ``trial_block`` (one source per seed, the widths ``bounds`` requires at the frozen C), on
  dask.distributed, cached per task, and each finished block written at once into ``RESULT_FILE`` (atomically, with
  the design's and the calibration's SHA-256): a run stopped at any moment resumes where it stopped, and a later
  session continues it.
- **Verdict** (``verdicts``: the one function every page calls): per point the one-sided exact binomial test of
  'failure rate <= eps' (``stats.excess_test``), Holm across all M points. A point whose failures already reach the
  critical count at level FAMILY_WISE / M fails whatever its remaining trials give (Holm rejects it at its first
  step); a complete point whose p-value exceeds FAMILY_WISE is never rejected; any other point waits for every
  point to finish. Per statement: "the calibrated C holds at every held-out point", or the point where it fails
  with its counts, or "undecided at k of n points" (never shown as a pass).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from slt.cache import write_atomic
from slt.inputs import InputError, read_json
from slt.measure import stats

SCHEMA_DESIGN, SCHEMA_RESULT, VERSION = "slth-heldout-design", "slth-heldout-result", 1
ROOT = Path(__file__).resolve().parents[2]
DESIGN_FILE = Path(__file__).with_name("heldout-design.json")
RESULT_FILE = Path(__file__).with_name("committed") / "heldout.json"
CALIBRATION_FILE = Path(__file__).with_name("calibration.json")
LARGE_FILES = (Path(__file__).with_name("calibration-large-worst.json"),
               Path(__file__).with_name("calibration-large.json"))
SEED = 20261128
POINT_STRIDE = 100_000_007
"""Seeds of point k: ``SEED + POINT_STRIDE * k + j`` for its trial j (independent across points)."""

HOLDS, FAILS, UNDECIDED = "holds", "fails", "undecided"

RATIOS = {"d1": 4, "d2": 4, "H": 2, "L": 2, "B": 2}
"""How far beyond the largest grid value a held-out value lies at least (eps: below the smallest)."""

HELDOUT = {
    "lemma7": {"d1": [64], "d2": [64], "eps": [0.01, 0.001]},
    "lemma2": {"d1": [64], "d2": [64], "eps": [0.01, 0.001]},
    "theorem9": {"d1": [64], "d2": [64], "H": [16], "eps": [0.01, 0.001]},
    "theorem10": {"d1": [64], "L": [6], "eps": [0.01, 0.001]},
    "theorem11": {"d1": [64], "H": [16], "L": [6], "eps": [0.01, 0.001]},
    "theorem14": {"d1": [16], "H": [4], "L": [2], "B": [8], "eps": [0.01, 0.003]},
    "lueker": {"eps": [0.16]},
}
"""Per statement the held-out values of each factor it has, one factor at a time from the large grid's base point
(chosen before any held-out trial ran; ``excluded`` and ``NOTES`` say why a statement has none or a smaller step)."""

def excluded(calibration: dict) -> dict:
    """Statements with a failure-rate check but no held-out point, and why (stored in the design, printed with the
    verdicts): Lueker's exact covering radius stops at ``MAX_ITEMS`` items, which at its frozen C bounds eps from
    below by ``eps_floor(C)``; when that floor lies above its held-out eps, the point is not computable."""
    C, floor, grid, items = _lueker_limit(calibration)
    if floor <= min(HELDOUT["lueker"]["eps"]):
        return {}
    return {"lueker": f"at its frozen C = {C:g} the exact covering radius (at most {items} items) limits eps "
                      f"to >= {floor:.3g}, not below the calibration grid's eps ({min(grid):g} .. {max(grid):g}): "
                      f"no held-out eps is computable"}


def notes(calibration: dict) -> dict:
    """Where a statement's held-out points stop short of the targets (eps down to 0.001, ``RATIOS``), and why."""
    out = dict(NOTES)
    if "lueker" not in excluded(calibration):
        C, floor, grid, items = _lueker_limit(calibration)
        out["lueker"] = (f"eps down to {min(HELDOUT['lueker']['eps']):g} only ({min(grid) / min(HELDOUT['lueker']['eps']):g} "
                         f"x below the grid's {min(grid):g}): the exact covering radius stops at {items} items, "
                         f"which at its frozen C = {C:g} allows eps >= {floor:.3g}; eps is its only factor")
    return out


def _lueker_limit(calibration: dict) -> tuple:
    """Lueker's frozen C, the smallest eps whose width at C is exact (``eps_floor``), its checks grid's eps and its
    exact limit ``MAX_ITEMS``."""
    from slt.measure import catalogue
    from slt.measure.statements import lueker

    C = float(calibration["statements"]["lueker"]["C"])
    return C, lueker.eps_floor(C), [p["eps"] for p in catalogue.get("lueker").calibration], lueker.MAX_ITEMS


NOTES = {
    "theorem14": "eps down to 0.003, not 0.001 (its trials cost about 0.2-1 CPU s each; 0.001 needs about 20,000 "
                 "of them); its grids hold eps fixed at 0.3",
}
"""Where a statement's held-out points stop short of the task's targets, and why (Lueker's: ``notes``)."""


class HeldoutError(InputError):
    """A design or result file that cannot be used (one line naming the file and the problem)."""


# ------------------------------------------------------------------------------------------------------ design

def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def shown(path) -> str:
    full = Path(path).resolve()
    return str(full.relative_to(ROOT)) if full.is_relative_to(ROOT) else str(path)


def grid_extent(statement: str) -> dict:
    """The largest value of every factor (the smallest eps) over every grid the statement was calibrated on: its
    checks grid, its large grid's values and the points of the committed large-grid files."""
    from slt.measure import catalogue

    numerics = catalogue.get(statement)
    points = [dict(p) for p in numerics.calibration]
    if numerics.large is not None:
        points += [{k: max(v) if k != "eps" else min(v) for k, v in numerics.large.factors.items()},
                   dict(numerics.large.fixed)]
    for path in LARGE_FILES:
        if path.exists():
            rec = (json.loads(path.read_text()).get("statements") or {}).get(statement) or {}
            points += [p for p in rec.get("points", []) if isinstance(p, dict)]
    out = {}
    for p in points:
        for k in ("d1", "d2", "H", "L", "B"):
            if isinstance(p.get(k), (int, float)):
                out[k] = max(out.get(k, 0), p[k])
        if isinstance(p.get("eps"), (int, float)):
            out["eps"] = min(out.get("eps", 1.0), p["eps"])
    return out


def outside(statement: str, factor: str, value: float, extent: dict | None = None) -> float:
    """How far ``value`` lies beyond the grids: value / largest grid value (eps: smallest grid eps / value)."""
    extent = extent if extent is not None else grid_extent(statement)
    return extent[factor] / value if factor == "eps" else value / extent[factor]


def _point(statement: str, factor: str, value) -> dict:
    """The large grid's base point (every factor at its first value, the fixed ones) with ``factor`` at ``value``,
    alpha by the grid's rule."""
    from slt.measure import catalogue

    large = catalogue.get(statement).large
    if large is None:  # Lueker: eps is its only factor
        return {factor: value}
    point = {**large.fixed, **{k: v[0] for k, v in large.factors.items()}, factor: value}
    point.update(large.alpha_of(point))
    return point


def make_design(calibration_path=CALIBRATION_FILE, seed: int = SEED) -> dict:
    """The held-out design (deterministic): frozen C and worst target per statement from ``calibration_path``, the
    points of ``HELDOUT``, and the trials of each at the strictest Holm level over all of them."""
    data = read_json(Path(calibration_path), "calibration file")
    out = excluded(data)
    rows = [(name, factor, value, data["statements"][name]) for name, factors in HELDOUT.items() if name not in out
            for factor, values in factors.items() for value in values]
    m = len(rows)
    level = stats.FAMILY_WISE / m
    points = []
    for k, (name, factor, value, rec) in enumerate(rows):
        point = _point(name, factor, value)
        points.append({"id": f"{name}:{factor}={value:g}", "statement": name, "factor": factor, "value": value,
                       "point": point, "C": float(rec["C"]), "target": rec.get("worst_target"),
                       "trials": stats.trials_for_power(point["eps"], level=level), "seed": seed + POINT_STRIDE * k,
                       "outside": round(outside(name, factor, value), 6)})
    return {"schema": SCHEMA_DESIGN, "version": VERSION,
            "calibration": {"file": shown(calibration_path), "sha256": sha256(calibration_path)},
            "family_wise": stats.FAMILY_WISE, "power": stats.POWER, "points_total": m, "level_for_power": level,
            "rule": "trials: the fewest whose one-sided exact binomial test of 'failure rate <= eps' at level "
                    "family_wise / points_total detects a failure rate of 2 eps with probability >= power",
            "ratios": RATIOS, "excluded": out, "notes": notes(data),
            "grid_extent": {name: grid_extent(name) for name in HELDOUT},
            "points": points}


def load_design(path=DESIGN_FILE) -> dict:
    """The committed design, validated: ``HeldoutError`` on a file that is not one."""
    doc = read_json(Path(path), "held-out design", HeldoutError)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_DESIGN or doc.get("version") != VERSION:
        raise HeldoutError(f"{path}: not a held-out design (schema {SCHEMA_DESIGN!r} version {VERSION})")
    pts = doc.get("points")
    if not isinstance(pts, list) or len(pts) != doc.get("points_total") or not pts:
        raise HeldoutError(f"{path}: field 'points' does not hold points_total points")
    for i, p in enumerate(pts):
        for key, kind in (("id", str), ("statement", str), ("point", dict), ("C", (int, float)),
                          ("trials", int), ("seed", int)):
            if not isinstance(p.get(key) if isinstance(p, dict) else None, kind):
                raise HeldoutError(f"{path}: field 'points[{i}].{key}' is missing or of the wrong type")
        eps = p["point"].get("eps")
        if not (isinstance(eps, (int, float)) and 0 < eps < 1) or p["trials"] < 1 or p["C"] <= 0:
            raise HeldoutError(f"{path}: field 'points[{i}]' has eps {eps!r}, trials {p['trials']}, C {p['C']}")
    if len({p["id"] for p in pts}) != len(pts):
        raise HeldoutError(f"{path}: two points share an id")
    return doc


# ------------------------------------------------------------------------------------------------------ result

def empty_result(design_path=DESIGN_FILE) -> dict:
    design = load_design(design_path)
    return {"schema": SCHEMA_RESULT, "version": VERSION,
            "design": {"file": shown(design_path), "sha256": sha256(design_path)},
            "calibration": design["calibration"], "commands": [], "cost": {"cpu_s": 0.0, "wall_s": 0.0},
            "blocks": {}}


def load_result(path=RESULT_FILE, design_path=DESIGN_FILE) -> dict | None:
    """The result file, validated against the design (its SHA-256, the points' trials, every block's counts);
    None when there is none. ``HeldoutError`` names the file and the field when it is not usable."""
    path = Path(path)
    if not path.exists():
        return None
    doc = read_json(path, "held-out result", HeldoutError)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_RESULT or doc.get("version") != VERSION:
        raise HeldoutError(f"{path}: not a held-out result (schema {SCHEMA_RESULT!r} version {VERSION})")
    want = sha256(design_path)
    if (doc.get("design") or {}).get("sha256") != want:
        raise HeldoutError(f"{path}: made for another design (sha256 {(doc.get('design') or {}).get('sha256')!r}, "
                           f"{shown(design_path)} has {want})")
    design = load_design(design_path)
    if (doc.get("calibration") or {}).get("sha256") != design["calibration"]["sha256"]:
        raise HeldoutError(f"{path}: field 'calibration.sha256' differs from the design's")
    blocks = doc.get("blocks")
    if not isinstance(blocks, dict):
        raise HeldoutError(f"{path}: field 'blocks' is not an object")
    trials_of = {p["id"]: p["trials"] for p in design["points"]}
    for pid, got in blocks.items():
        if pid not in trials_of or not isinstance(got, dict):
            raise HeldoutError(f"{path}: field 'blocks.{pid}' names no point of the design")
        total = 0
        for start, b in got.items():
            f, n = (b.get("failures"), b.get("trials")) if isinstance(b, dict) else (None, None)
            if not (start.isdigit() and isinstance(f, int) and isinstance(n, int) and 0 <= f <= n and n > 0):
                raise HeldoutError(f"{path}: field 'blocks.{pid}.{start}' has failures {f!r} of trials {n!r}")
            total += n
        if total > trials_of[pid]:
            raise HeldoutError(f"{path}: field 'blocks.{pid}' holds {total} trials, the design {trials_of[pid]}")
    return doc


def counts(design: dict, result: dict | None) -> dict:
    """Per point id: failures and trials so far (summed over its finished blocks), and whether it is complete."""
    out = {}
    for p in design["points"]:
        blocks = ((result or {}).get("blocks") or {}).get(p["id"], {})
        f = sum(b["failures"] for b in blocks.values())
        n = sum(b["trials"] for b in blocks.values())
        out[p["id"]] = {"failures": f, "trials": n, "complete": n == p["trials"]}
    return out


# ----------------------------------------------------------------------------------------------------- verdict

def point_decisions(design: dict, result: dict | None) -> dict:
    """Per point id: ``{"decision": "fails" | "not rejected" | "pending", "failures", "trials", "planned",
    "pvalue", "critical"}`` under Holm across every point of the design (see the module docstring)."""
    m, alpha = design["points_total"], design["family_wise"]
    got = counts(design, result)
    out, pvals = {}, {}
    for p in design["points"]:
        c = got[p["id"]]
        eps, n = p["point"]["eps"], p["trials"]
        critical = stats.critical_failures(n, eps, alpha / m)
        row = {"failures": c["failures"], "trials": c["trials"], "planned": n, "critical": critical,
               "pvalue": None, "decision": "pending"}
        if c["complete"]:
            row["pvalue"] = stats.excess_test(c["failures"], n, eps, alpha / m).pvalue
            pvals[p["id"]] = row["pvalue"]
        if c["failures"] >= critical:
            row["decision"] = FAILS  # Holm's first step rejects it whatever the remaining trials give
        elif c["complete"] and row["pvalue"] > alpha:
            row["decision"] = "not rejected"  # no step of Holm's procedure reaches a p-value above alpha
        out[p["id"]] = row
    if len(pvals) == m:  # every point complete: Holm over all of them decides the rest
        ids = list(pvals)
        for pid, rejected in zip(ids, stats.holm([pvals[i] for i in ids], alpha)):
            out[pid]["decision"] = FAILS if rejected else "not rejected"
    return out


def verdicts(design: dict | None = None, result: dict | None = None) -> dict:
    """The held-out verdict per statement (the one function every page and test calls): ``{name: {"word":
    "holds" | "fails" | "undecided", "sentence": str, "points": [...], "decided": k, "total": n}}``, plus the
    statements of ``EXCLUDED`` with their reason; of the committed design and result when not given."""
    if design is None:
        design = load_design()
        result = load_result() if result is None else result
    decisions = point_decisions(design, result)
    out = {}
    for name in dict.fromkeys(p["statement"] for p in design["points"]):
        pts = [p for p in design["points"] if p["statement"] == name]
        rows = [{"id": p["id"], "factor": p["factor"], "value": p["value"], "eps": p["point"]["eps"], "C": p["C"],
                 "target": p["target"], **decisions[p["id"]]} for p in pts]
        failed = [r for r in rows if r["decision"] == FAILS]
        decided = sum(r["decision"] != "pending" for r in rows)
        C = pts[0]["C"]
        if failed:
            word = FAILS
            sentence = "the calibrated C = {:g} fails at ".format(C) + "; ".join(
                f"{r['factor']} = {r['value']:g} (eps = {r['eps']:g}{_target(name, r['target'], ', ')}): "
                f"{r['failures']}/{r['trials']} failures" + ("" if r["trials"] == r["planned"] else
                                                            f" of {r['planned']} planned") for r in failed)
        elif decided == len(rows):
            word = HOLDS
            sentence = (f"the calibrated C = {C:g} holds at every held-out point ({len(rows)} point{'s' if len(rows) > 1 else ''}: "
                        + ", ".join(f"{r['factor']} = {r['value']:g}: {r['failures']}/{r['trials']}" for r in rows)
                        + f"; Holm across {design['points_total']} points, each test detecting 2 eps with power "
                          f">= {design['power']:g})")
        else:
            word = UNDECIDED
            done = sum(r["trials"] for r in rows)
            pending = [r for r in rows if r["decision"] == "pending"]
            unrun = sum(not r["trials"] for r in pending)
            where = " and ".join(w for w in (f"undecided at {len(pending) - unrun}" if len(pending) > unrun else "",
                                             f"not run at {unrun}" if unrun else "") if w)
            sentence = (f"{where} of {len(rows)} points ({decided} decided without a failure; {done:,} of "
                        f"{sum(r['planned'] for r in rows):,} trials at C = {C:g}; never read as a pass)"
                        if done else f"not run (0 of {len(rows)} points)")
        out[name] = {"word": word, "sentence": sentence, "points": rows, "decided": decided, "total": len(rows),
                     "C": C, "target": pts[0]["target"]}
    for name, why in design.get("excluded", {}).items():
        out[name] = {"word": "excluded", "sentence": f"no held-out point: {why}", "points": [], "decided": 0,
                     "total": 0, "C": None, "target": None}
    return out


def _target(statement: str, target, before: str = "", after: str = "") -> str:
    """"<family> target" (random when none was found worst), or "" for a statement without targets (Lueker)."""
    from slt.measure import catalogue

    return "" if catalogue.get(statement).target_draw is None else f"{before}{target or 'random'} target{after}"


def answer(design: dict | None = None, result: dict | None = None) -> list[str]:
    """The held-out answer as sentences, one per statement named as every surface names it (its numbering label),
    for the README, docs/calibration.md and the report."""
    from slt.measure import catalogue

    from bounds.catalogue import STATEMENTS
    from slth_base.numbering import numbering_label

    v = verdicts(design, result)
    order = {n: i for i, n in enumerate(catalogue.names())}
    return [f"{numbering_label(STATEMENTS[name].numbering, name) if name in STATEMENTS else name}: "
            f"{v[name]['sentence']}" for name in sorted(v, key=lambda n: order.get(n, 99))]


def summary(design_path=DESIGN_FILE, result_path=RESULT_FILE) -> dict:
    """What the run record and the pages carry of the held-out test: the files with their SHA-256, the compute
    spent, the verdict word per statement and the answer's sentences (``answer``), the commands."""
    design = load_design(design_path)
    result = load_result(result_path, design_path)
    v = verdicts(design, result)
    return {"design": shown(design_path), "design_sha256": sha256(design_path),
            "calibration": design["calibration"], "result": shown(result_path) if result else None,
            "cost": (result or {}).get("cost") or {"cpu_s": 0.0, "wall_s": 0.0},
            "points": design["points_total"], "verdicts": {n: a["word"] for n, a in v.items()},
            "answers": answer(design, result), "run": "python -m slt.measure.heldout run",
            "rerun": "slth targets heldout POINT", "test": "tests/test_heldout.py"}


# --------------------------------------------------------------------------------------------------------- run

def cost_class(p: dict) -> float:
    """A rough relative cost per trial, only to order the run (cheapest points first, so that the most points are
    decided soonest; it changes no result): widths grow like d1 log d1 and the tickets' heads like H, so a point
    whose d1, d2 or H lies far outside the grids costs about a hundred trials at the grids' sizes."""
    return 100.0 if p["factor"] in ("d1", "d2", "H") and p["value"] >= 16 else 1.0


def point_tasks(p: dict, done: dict, chunk: int):
    """The blocks of point ``p`` not yet in ``done`` (its finished blocks, by start index): ``[(start, Task)]``."""
    from slt.measure.calibrate import row_tasks

    tasks = row_tasks(p["statement"], {**p["point"], **({"target": p["target"]} if p["target"] else {})}, p["C"],
                      p["trials"], p["seed"], chunk)
    return [(k * chunk, t) for k, t in enumerate(tasks) if str(k * chunk) not in done]


def run(ids=None, *, design_path=DESIGN_FILE, result_path=RESULT_FILE, cache_dir=None, workers=1, chunk=10,
        batch=8, max_seconds=None, threads=1, progress=False, command="", log=print) -> dict:
    """Run the design's points (or those of ``ids``), cheapest first (``cost_class``), ``batch`` blocks at a time, writing every
    finished block into ``result_path`` at once; stops after ``max_seconds`` (a later run resumes)."""
    from slt.tasks import cluster, execute

    design = load_design(design_path)
    result = load_result(result_path, design_path) or empty_result(design_path)
    if command:
        result["commands"] = list(dict.fromkeys([*result.get("commands", []), command]))
    points = [p for p in design["points"] if ids is None or p["id"] in ids]
    points.sort(key=lambda p: (p["trials"] * cost_class(p), p["id"]))
    start = time.perf_counter()
    with cluster(None, workers) as client:
        if client is not None:  # one Numba thread per worker: the run shares its cores with other work
            from slt.tasks import set_worker_threads

            client.run(set_worker_threads, threads)
        for p in points:
            while True:
                done = result["blocks"].setdefault(p["id"], {})
                decisions = point_decisions(design, result)
                if decisions[p["id"]]["decision"] == FAILS:
                    log(f"[heldout] {p['id']}: fails already ({decisions[p['id']]['failures']} failures reach "
                        f"the critical count {decisions[p['id']]['critical']}); its remaining trials are skipped")
                    break
                todo = point_tasks(p, done, chunk)[:batch]
                if not todo:
                    break
                if max_seconds is not None and time.perf_counter() - start > max_seconds:
                    log(f"[heldout] stopped after {max_seconds:g} s (resumable)")
                    return result
                cpu = time.process_time()
                out = execute([t for _, t in todo], cache_dir=cache_dir, progress=progress, desc=p["id"])
                for (s, _), b in zip(todo, out):
                    done[str(s)] = {"failures": b["failures"], "trials": b["trials"], "cpu_s": round(b["cpu_s"], 3),
                                    "seconds": round(b["seconds"], 3), "worst_ratio": b["worst_ratio"]}
                result["cost"]["cpu_s"] = round(result["cost"]["cpu_s"] + sum(b["cpu_s"] for b in out), 3)
                result["cost"]["wall_s"] = round(result["cost"]["wall_s"] + sum(b["seconds"] for b in out), 3)
                write_result(result_path, result)
                c = counts(design, result)[p["id"]]
                log(f"[heldout] {p['id']}: {c['failures']}/{c['trials']} of {p['trials']} trials "
                    f"({time.process_time() - cpu:.0f} s client CPU)")
    return result


def rerun_point(pid: str, trials: int | None = None, *, design_path=DESIGN_FILE, cache_dir=None, workers=0,
                chunk: int = 10) -> dict:
    """One held-out point again, exactly as designed (frozen C, target, seeds), its first ``trials`` trials (default:
    all): its failures, the test at the design's level and the point's line. ``HeldoutError`` on an unknown id."""
    import difflib

    from slt.tasks import execute

    design = load_design(design_path)
    ids = [p["id"] for p in design["points"]]
    if pid not in ids:
        close = difflib.get_close_matches(pid, ids, n=1, cutoff=0.5)
        raise HeldoutError(f"no held-out point {pid!r}" + (f"; did you mean {close[0]!r}?" if close else "")
                           + f" (points: {', '.join(ids)})")
    p = next(q for q in design["points"] if q["id"] == pid)
    n = p["trials"] if trials is None else int(trials)
    if not 0 < n <= p["trials"]:
        raise HeldoutError(f"--trials {n}: expected 1 .. {p['trials']} (the design's trials at {pid})")
    tasks = [t for _, t in point_tasks(dict(p, trials=n), {}, chunk)]
    out = execute(tasks, cache_dir=cache_dir, workers=workers, progress=False, desc=pid)
    failures, done = sum(b["failures"] for b in out), sum(b["trials"] for b in out)
    level = design["family_wise"] / design["points_total"]
    test = stats.excess_test(failures, done, p["point"]["eps"], level)
    return {"id": pid, "C": p["C"], "target": p["target"], "point": p["point"], "failures": failures,
            "trials": done, "planned": p["trials"], "pvalue": test.pvalue, "level": level,
            "line": f"{pid} at C = {p['C']:g}{_target(p['statement'], p['target'], ' (', ')')}, seeds {p['seed']}..: "
                    + test.describe()}


def write_result(path, result: dict) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(Path(path), json.dumps(result, indent=1, allow_nan=False) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slt.measure.heldout", description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["design", "run", "verdict"])
    parser.add_argument("--design", default=str(DESIGN_FILE), help="design file (default: the committed one)")
    parser.add_argument("--output", default=str(RESULT_FILE), help="result file (default: the committed one)")
    parser.add_argument("--points", nargs="*", default=None, help="run: only these point ids")
    parser.add_argument("--cache-dir", default=None, help="task cache (default: the harness's)")
    parser.add_argument("--workers", type=int, default=1, help="dask workers (0: in this process; default 1)")
    parser.add_argument("--max-seconds", type=float, default=None, help="run: stop after this long (resumable)")
    args = parser.parse_args(argv)
    try:
        if args.mode == "design":
            if Path(args.design).exists():
                raise HeldoutError(f"{args.design} exists: a design is written once, before any result")
            write_atomic(Path(args.design), json.dumps(make_design(), indent=1) + "\n")
            print(f"wrote {args.design} (sha256 {sha256(args.design)})")
            return 0
        elif args.mode == "run":
            cmd = "python -m slt.measure.heldout " + " ".join(argv if argv is not None else sys.argv[1:])
            run(args.points, design_path=args.design, result_path=args.output, cache_dir=args.cache_dir,
                workers=args.workers, max_seconds=args.max_seconds, command=cmd.strip(),
                log=lambda m: print(m, file=sys.stderr, flush=True))
        design = load_design(args.design)
        for line in answer(design, load_result(args.output, args.design)):
            print(line)
    except InputError as exc:
        print(f"heldout: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
