"""Assembling a run record: ``build(profile, ...)`` runs the harness and returns the record (validated).

Profiles: ``proofs`` (the proof steps, widths and constants only: seconds), ``quick`` (adds the printed
variants, the mutation suite, the quick empirical measurements and the quick figure summaries), ``full`` (the full
measurements and figure sweeps). Every part calls one entry point of ``bounds`` or the measuring library
(``slt.measure``, ``slt.figures``); nothing here measures on its own.
"""
from __future__ import annotations

import itertools
import json
import re
import math
import os
import sys
import time
from pathlib import Path

import sympy as sp

import bounds
from bounds import theorem14
from bounds.prove import coq_math, kernel
from bounds.prove.axioms import axioms
from bounds.prove.slack import CONSTANTS
from bounds.prove.slack import rows as constant_slack
from bounds.symbols import NAME, text
from slt import figures as sweeps
from slt.figures.token import training_finding
from slt.inputs import InputError
from slt.mathml import mathml
from slt.measure import calibration as cal
from slt.measure import committed
from slt.measure import empirical as emp
from slt.measure import findings
from slt.measure.calibrate import LARGE_WORST_FILE, trend_summary
from slt.measure.stats import CONFIDENCE, LEVEL

from reports.record import verified
from reports.record.files import dumps
from reports.record.provenance import ROOT, provenance
from reports.record.schema import PROFILES, SCHEMA, SCHEMA_VERSION, validate
from reports.record.suites import jsonable, params_of, mutations, open_ends, variants

GRID = {"d1": (2, 8, 64), "H": (1, 8), "eps": (0.1, 0.01), "L": (2,), "B": (3,), "b": (1, 2, 3)}
"""The default grid of the width requirements; d2 follows d1, alpha takes its smallest admissible value
max(sqrt(d1), sqrt(d2))."""
DEFAULT_C = 1
WIDTH_ORDER = ["d1", "d2", "H", "L", "B", "b", "alpha", "eps"]
FIGURES = ("fig4", "fig5", "fig6")
#: Figures read into the record only when their summaries are cached, full or quick (they need the [torch] extra
#: and long runs; ``slth reproduce NAME`` writes them): Figures 7-8, Figure 8's replication and the learned-token
#: Figures 4-5.
CACHED_FIGURES = ("fig7", "fig8", "fig8-replication", "fig8-confirmation", "fig4-learned-token", "fig5-learned-token")


def _formula(expr) -> dict:
    return {"text": str(expr), "mathml": mathml(expr)}


def _small(step) -> bool:
    return sp.count_ops(step.lhs) + sp.count_ops(step.rhs) <= 60


def _step_row(r, step=None, supported=True) -> dict:
    """A step's row; ``r`` a ``bounds.prove.kernel.Judged`` (the kernel's verdict, its first pass and Coq status) or a
    first-pass ``StepResult``."""
    margin = getattr(r, "margin", None)
    judged = isinstance(r, kernel.Judged)
    extra = {"first_pass": r.pre, "coq": r.coq, "kernel_source": r.source} if judged else {}
    if r.counterexample:
        extra["open_ends"] = open_ends(params_of(r.statement, step))
    return {**extra, "statement": r.statement, "step": r.step, "supported": supported, "method": r.method,
            "domain": str(getattr(r, "domain", "unknown")), "ok": bool(r.ok), "verdict": r.status,
            "margin": None if margin is None else float(margin), "detail": str(r.detail),
            "arb": str(getattr(r, "arb", "")),
            "box": jsonable(dict(r.box or {})), "counterexample": jsonable(r.counterexample),
            "note": getattr(step, "note", "") or "", "relies_on": [str(x) for x in getattr(step, "relies_on", ())],
            "inequality": (mathml(step.lhs) + " &le; " + mathml(step.rhs)) if step is not None and _small(step)
            else None,
            "text": None if step is None else f"{text(step.lhs)} <= {text(step.rhs)}",
            "kind": "inequality" if step is None else step.kind, "form": None if step is None else step.form(),
            "premises": [p.name for p in getattr(step, "premises", ())]}


def _grid_points(params: list[str]):
    axes = {k: v for k, v in GRID.items() if k in params}
    for values in itertools.product(*axes.values()):
        point = dict(zip(axes, values))
        if "b" in point and "B" in point and point["b"] > point["B"]:
            continue
        if "d2" in params:
            point["d2"] = point.get("d1", 2)
        if "alpha" in params:
            point["alpha"] = math.sqrt(max(point["d1"], point.get("d2", point["d1"])))
        yield point


def width_params(st) -> list[str]:
    free = {NAME[s] for w in st.widths.values() for s in w.free_symbols} - {"C"}
    return [p for p in WIDTH_ORDER if p in free] + sorted(free - set(WIDTH_ORDER))


def widths() -> list[dict]:
    """Every width requirement of every statement on the default grid at C = DEFAULT_C."""
    rows = []
    for st in map(bounds.get, bounds.names()):
        needed = width_params(st)
        rows += [{"statement": st.name, "width": w, "point": point, "C": DEFAULT_C,
                  "value": int(st.width(w, C=DEFAULT_C, **point))}
                 for point in ({k: pt[k] for k in needed} for pt in _grid_points(needed)) for w in st.widths]
    return rows


def statements() -> tuple[list[dict], list[dict]]:
    """The statements as the report shows them (MathML of their SymPy objects) and Theorem 14's exponents."""
    out = [{"name": st.name, "title": st.title, "numbering": dict(st.numbering), "quantity": st.quantity,
            "hypotheses": [mathml(h.relation) for h in st.hypotheses], "conclusion": _formula(st.conclusion),
            "probability": None if st.probability is None else _formula(st.probability),
            "widths": {w: _formula(e) for w, e in st.widths.items()}, "width_params": width_params(st),
            "variants": [{"name": v.name, "description": v.description} for v in st.variants.values()],
            "axioms": [a.as_dict() for a in axioms(st.name)]} for st in map(bounds.get, bounds.names())]
    exps = [{"width": w, "base": str(base), "text": str(poly), "mathml": mathml(poly)}
            for w, ex in theorem14.exponents().items() for base, poly in ex.items()]
    return out, exps


def proofs(log=lambda msg: None) -> list[dict]:
    """Every proof step of the supported forms and the elementary facts, each with the kernel's verdict
    (``bounds.prove.kernel``; its statuses from ``verified.kernel``: the committed result for this exact ``bounds/``,
    or replayed in this run)."""
    results = bounds.verify_facts()
    steps_of = {}
    for name in bounds.proved():
        steps_of.update({(name, s.name): s for s in bounds.proof(name)})
        results += bounds.verify(name)
    judged = kernel.judge(results, *verified.kernel(results, log))
    return [_step_row(r, steps_of.get((r.statement, r.step))) for r in judged]


_POINT_FIELDS = ("trials", "seed", "C_point", "C_upper", "grid", "seconds", "start_C", "cpu_s", "seeds", "target")


def _required(name: str, C, point: dict) -> dict:
    """The statement's width requirements at ``point`` and the calibrated ``C`` (bounds/), {} when not defined."""
    try:
        st = bounds.get(name)
        params = {k: v for k, v in point.items() if k in st.parameters}
        return {w: int(st.width(w, C=C, **params)) for w in st.widths} if C else {}
    except (KeyError, ValueError):
        return {}


def _curves(name: str, rec: dict) -> list[dict]:
    """Per calibration grid point: its parameters, C_point / C_upper and, per C tried, the failure count, trials,
    the Clopper-Pearson upper bound, the worst error over eps and the widths (what the report plots)."""
    points = [(pt, {k: v for k, v in pt.items() if k not in _POINT_FIELDS and isinstance(v, (int, float))})
              for pt in rec.get("points", []) if isinstance(pt, dict)]
    return jsonable([{"point": point, "C_point": pt.get("C_point"), "C_upper": pt.get("C_upper"),
                      "required": _required(name, rec.get("C"), point),
                      "grid": [{k: g.get(k) for k in ("C", "failures", "trials", "upper", "worst_ratio", "widths")}
                               for g in pt.get("grid", []) if isinstance(g, dict)]} for pt, point in points])


def _target_columns(rec: dict) -> dict:
    """The random-target C (``C_random``, the column the worst-target C replaced), the worst target
    family, and the failure rate per target family (at the C the families were run at, and at the checks' C when
    verified): what the report shows per statement. Empty for a statement without target families."""
    out = {}
    if "C_random" in rec:
        out.update(C_random=rec.get("C_random"), worst_target=rec.get("worst_target"),
                   worst_command=rec.get("worst_command", ""))
    if isinstance(rec.get("growth"), dict):  # the fixed-C tests over eps with their GLM
        g = rec["growth"]
        out["growth"] = {"C": g.get("C"), "target": g.get("target"), "params": g.get("params") or {},
                         "command": g.get("command", ""),
                         "rows": [{k: r.get(k) for k in ("eps", "failures", "trials", "rate_over_eps", "ci_over_eps",
                                                         "pvalue", "passed", "power_2eps")} for r in g.get("rows", [])],
                         "verdict": (g.get("glm") or {}).get("verdict"),
                         "coefficients": (g.get("glm") or {}).get("coefficients")}
    for key in ("targets", "targets_verify"):
        t = rec.get(key)
        if isinstance(t, dict):
            out[key] = {"C": t.get("C"), "point": t.get("point"), "trials": t.get("trials"), "worst": t.get("worst"),
                        "command": t.get("command", ""), "families": [
                            {k: f.get(k) for k in ("family", "failures", "trials", "rate", "pvalue", "passed")}
                            for f in t.get("families", [])]}
    return out


def check_cluster(given: str | None = None) -> None:
    """``InputError`` (one line, exit 2) before any work when ``--scheduler`` ``given``, or else $SLTH_SCHEDULER,
    names no running Dask scheduler (``slt.tasks.check_scheduler``)."""
    from slt.tasks import SCHEDULER_ENV, check_scheduler

    check_scheduler(given or os.environ.get(SCHEDULER_ENV) or None, "--scheduler" if given else f"${SCHEDULER_ENV}")


def calibration(results_dir: Path | None = None) -> dict:
    """The calibrated constants the run uses (``<results>/calibration.json`` if present, else the committed file)."""
    local = Path(results_dir) / "calibration.json" if results_dir else None
    path = local if local is not None and local.exists() else cal.DEFAULT
    data = cal.load(str(path))
    shown = _shown(path)
    stmts = {name: {"C": rec.get("C"), "C_low": rec.get("C_low"), "C_high": rec.get("C_high"),
                    **_target_columns(rec),
                    "points": len(rec.get("points", [])), "note": rec.get("note", ""),
                    "command": _writes(rec.get("command", ""), shown), "curves": _curves(name, rec)}
             for name, rec in data.get("statements", {}).items()}
    return {"file": shown, "command": _writes(data.get("command", ""), shown), "definition": data.get("definition", ""),
            "level": data.get("level", LEVEL), "confidence": data.get("confidence", CONFIDENCE),
            "safety": cal.SAFETY, "statements": stmts, "_data": data,
            "large": trend_summary(), "large_worst": trend_summary(LARGE_WORST_FILE),
            "heldout": _heldout()}


def _heldout() -> dict:
    """The held-out test of the law (``slt.measure.heldout.summary``), or why it cannot be read."""
    from slt.measure import heldout

    try:
        return heldout.summary()
    except InputError as exc:
        return {"error": str(exc), "answers": [f"the held-out test cannot be read: {exc}"], "verdicts": {}}


def _writes(command: str, shown: str) -> str:
    """A stored calibration command with its ``--output`` naming the file the record read (``shown``) when the
    path it stored is not a file of this tree (the file moved since): the page never names a file that does not
    exist, and the command rewrites the file it shows."""
    m = re.search(r"--output (\S+)", command)
    if m and not (ROOT / m.group(1)).exists() and not Path(m.group(1)).is_absolute():
        return command.replace(m.group(0), f"--output {shown}")
    return command


def figure_entry(figure: str, payload: dict, source: str) -> dict:
    """A figure summary as the record stores it: ``{"source", "payload"}``, the payload completed by the decisions
    the report shows but the summary does not hold (Figures 4-5: whether the target learns the task)."""
    if figure.startswith(("fig4", "fig5")) and "target" in payload:
        verdict, line = training_finding(payload["target"])
        payload = {**payload, "training": {"verdict": verdict, "line": line}}
    return {"source": source, "payload": jsonable(payload)}


def _shown(path) -> str:
    """``path`` as the page may show it: relative to the repository (or the working folder), never the absolute
    path of the machine that built the record."""
    path = Path(path)
    for base in (ROOT, Path.cwd()):
        try:
            return str(path.resolve().relative_to(base.resolve()))
        except ValueError:
            continue
    return path.name if path.is_absolute() else str(path)


def figures(results_dir: Path, quick: bool, log=print, compute: bool = True) -> dict:
    """The figure summaries (fits and findings), first found of: the full sweep's under ``results_dir``, the
    committed full sweep's (``slt/figures/committed/<figure>.json``, shipped with the package), the quick sweep's
    under ``results_dir`` (quick runs only); else computed by the figure sweeps (resuming from their per-item
    caches). The source is stored with the payload, so the report says which one it shows."""
    out = {}
    for figure in FIGURES + CACHED_FIGURES:
        payload, source = None, None
        candidates = [sweeps.summary_path(results_dir, figure, False), sweeps.committed_summary_path(figure)]
        if quick or figure in CACHED_FIGURES:
            candidates.append(sweeps.summary_path(results_dir, figure, True))
        for path in candidates:
            if path.exists():
                try:
                    payload, source = sweeps.load_summary(path), f"cached {_shown(path)}"
                    break
                except ValueError as exc:  # garbage, not an object, no summary: named, never used
                    log(f"[record] {exc}; recomputing")
        if payload is None:
            if not compute or figure in CACHED_FIGURES:
                continue
            log(f"[record] no cached {figure} summary; running the {'quick' if quick else 'full'} sweep")
            payload = sweeps.reproduce(figure, quick=quick, results_dir=results_dir, log=log)
            source = "computed for this run"
        out[figure] = figure_entry(figure, payload, source)
    return out


def slack(log=print) -> list[dict]:
    """The slack of every proof constant (``bounds.prove.slack.rows``; minutes of CPU), progress to ``log``."""
    seen = []

    def progress(constant, value, ok):
        if constant.label not in seen:
            seen.append(constant.label)
            log(f"[slack] {len(seen)}/{len(CONSTANTS)} {constant.statement}: {constant.label}")

    return jsonable(constant_slack(None, progress))


def formalization() -> dict:
    """What is formalized and proved in Coq, per statement and premise, and the counts
    (``bounds.prove.coq_math.blueprint``: read from the declarations, no Coq run)."""
    return jsonable(coq_math.blueprint())


def build(profile: str = "quick", seed: int = 0, results_dir="results", command: str = "", log=print,
          cache_dir=None, workers=None, scheduler=None, with_slack: bool = False) -> dict:
    """Run the harness at ``profile`` and return its record (validated). ``with_slack`` computes the slack
    section (``slack()``); the full profile always does."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    results_dir = Path(results_dir)
    wall, parts = {}, ["proofs"]
    start = time.perf_counter()

    def timed(part, fn, *a, **k):
        t = time.perf_counter()
        log(f"[run] {part} ...")
        out = fn(*a, **k)
        wall[part] = time.perf_counter() - t
        log(f"[run] {part} done in {wall[part]:.1f} s")
        return out

    stmts, exps = timed("statements", statements)
    steps = timed("proofs", proofs, log)
    width_rows = timed("widths", widths)
    calib = calibration(results_dir)
    calib_data = calib.pop("_data")
    variant_rows = mutation_rows = empirical = figs = source = slack_rows = None
    if profile != "proofs":
        parts += ["variants", "mutations", "empirical", "figures"]
        variant_rows = timed("variants", verified.cached, "variants", variants, cache_dir, log)
        mutation_rows = timed("mutations", verified.cached, "mutations", mutations, cache_dir, log)
        # a quick run shows the committed full-power failure rates when they were made at this run's constants: its
        # own quick rates (which the page would replace) are measured only when the committed ones cannot be used
        empirical = timed("empirical", emp.measure, profile, seed, calib_data, progress=log, cache_dir=cache_dir,
                          workers=workers, scheduler=scheduler, rates=profile != "quick")
        empirical, source = committed.select(empirical, profile, calib_data)
        if profile == "quick" and source["kind"] != "committed":
            empirical = timed("empirical", emp.measure, profile, seed, calib_data, progress=log, cache_dir=cache_dir,
                              workers=workers, scheduler=scheduler)
            empirical, source = committed.select(empirical, profile, calib_data)
        if source["why"]:
            log(f"[run] empirical: {source['why']}")
        figs = timed("figures", figures, results_dir, profile == "quick", log)
    if with_slack or profile == "full":
        slack_rows = timed("slack", slack, log)
        parts.append("slack")
    record = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "profile": profile, "parts": parts,
              "provenance": provenance(seed, command or " ".join(["slth", "run"] + sys.argv[1:]), wall),
              "statements": stmts, "exponents": exps, "steps": steps, "variants": variant_rows,
              "mutations": mutation_rows, "widths": width_rows, "calibration": calib, "empirical": empirical,
              "figures": figs, "slack": slack_rows, "empirical_source": source,
              "formalization": timed("formalization", formalization)}
    record["coq_lemma12"] = timed("coq", verified.lemma12, log)
    wall["total"] = time.perf_counter() - start  # every phase, the Coq ones included (the provenance holds ``wall``)
    record["findings"] = findings.decide(json.loads(dumps(record)))  # slt.measure.findings: stored, rendered later
    return validate(json.loads(dumps(record)))
