"""The run record: one versioned JSON document holding everything a run of the harness decides.

``build(profile, ...)`` runs the harness and returns the record; ``write(path, record)`` writes it atomically;
``load(path)`` reads one and validates it (``RecordError``: one line naming the file and the field). ``slth run``
writes records, ``slth report --from`` renders one, ``slth diff`` compares two (``slt.diff``).

Profiles: ``proofs`` (the proof steps, widths and constants only: seconds), ``quick`` (adds the printed
variants, the mutation suite, the quick empirical measurements and the quick figure summaries), ``full`` (the full
measurements and figure sweeps).

Schema, version ``SCHEMA_VERSION`` (every field listed is required; ``|null`` marks fields that may be null,
``[...]`` lists of objects whose fields are required likewise)::

    schema           "slth-run-record"
    schema_version   1
    profile          "proofs" | "quick" | "full"
    parts            which parts were run: "proofs", "variants", "mutations", "empirical", "figures", "slack"
    provenance       git_commit|null, git_dirty|null, bounds_hash (SHA-256 of bounds/*.py), packages {name:
                     version}, python, platform, seeds {base, verifier}, created (UTC, ISO 8601), command,
                     wall_s {part: seconds, total}
    statements [...] name, title, numbering, quantity, hypotheses [MathML], conclusion {text, mathml},
                     probability {text, mathml}|null, widths {name: {text, mathml}}, width_params [names],
                     variants [{name, description}]
    exponents [...]  Theorem 14's per-block width exponents: width, base, text, mathml
    steps [...]      statement ("facts" for the elementary facts), step, supported (a step of a supported form),
                     method (symbolic | interval | sampled), domain ("whole", "box: ..." or "sampled"), ok,
                     verdict ("ok" | "FAILED"), margin (smallest rhs/lhs found)|null, detail, box {},
                     counterexample {}|null, note, relies_on [], inequality (MathML, small steps)|null
    variants [...]|null   statement, variant, description, expected [[statement, step]], broken [{statement, step,
                     method, counterexample}], verdict ("as expected" | "unexpected")
    mutations [...]|null   name, statement, expected [statement, step], caught_by [[statement, step]],
                     verdict ("caught" | "SURVIVED"), counterexample|null
    widths [...]     statement, width, point {parameter: value}, C, value (smallest integer width on the
                     default grid GRID at C = DEFAULT_C)
    calibration      file, command, definition, level, confidence, safety, statements {name: {C|null,
                     C_low|null, C_high|null, points, note}}
    empirical|null   checks [{id, statement, kind, verdict, ratio, command|null, ...}] (a rate check also
                     holds params, C, widths, failures, trials, rate, interval, pvalue, level, power|null,
                     passed, worst, bound), tightness [{check, statement, ratio, where}], length_sweeps {name:
                     {info, rows}}, verdicts {statement or "statement:printed": "holds" | "fails" |
                     "undecided at this power" (slt.measure.verdicts)},
                     decisions {probabilistic statement: "holds" | "fails" | "undecided at this power"} (a rate
                     check also holds its decision {word, text}), wall_s, tasks
    figures|null     {fig4|fig5|fig6: {source, payload (the figure summary: fits, findings when present)}}
    findings|null    (optional: absent in older records) ``slt.measure.findings.decide``: banner {proofs, empirical,
                     printed_refuted, profile}, items [{id, status, title, sentences, counterexample {columns,
                     rows}|null, test, command|null, evidence}] (the README's findings as sentences)
    slack [...]|null (optional: absent or null when not computed; ``slth run --slack``, always in ``--full``) the
                     slack of every proof constant (``bounds.slack.rows``): statement, constant, printed,
                     printed_exact, tightest|null, tightest_exact|null, first_failing|null,
                     first_failing_exact|null, ratio|null, forced, direction, fails_at|null,
                     counterexample|null, probes, note
"""
from __future__ import annotations

import datetime
import hashlib
import itertools
import json
import math
import platform
import subprocess
import sys
import time
from pathlib import Path

SCHEMA = "slth-run-record"
SCHEMA_VERSION = 1
PROFILES = ("proofs", "quick", "full")
ROOT = Path(__file__).resolve().parent.parent

GRID = {"d1": (2, 8, 64), "H": (1, 8), "eps": (0.1, 0.01), "L": (2,), "B": (3,), "b": (1, 2, 3)}
"""The default grid of the width requirements; d2 follows d1, alpha takes its smallest admissible value
max(sqrt(d1), sqrt(d2))."""
DEFAULT_C = 1
WIDTH_ORDER = ["d1", "d2", "H", "L", "B", "b", "alpha", "eps"]
PACKAGES = ("slth-harness", "numpy", "scipy", "sympy", "mpmath", "numba", "jinja2", "matplotlib", "hypothesis",
            "dask", "distributed", "torch", "gurobipy", "highspy")
FIGURES = ("fig4", "fig5", "fig6")
#: Figures read into the record only when their summaries are cached, full or quick (they need the [torch] extra
#: and long runs; ``slth reproduce NAME`` writes them): Figures 7-8 and the learned-token Figures 4-5.
CACHED_FIGURES = ("fig7", "fig8", "fig4-learned-token", "fig5-learned-token")


class RecordError(ValueError):
    """A record that cannot be used: the message is one line naming the file and the field."""


# --------------------------------------------------------------------------------------------------- schema

_ANY = object()
_NUM = (int, float)
_STR_OR_NONE = (str, type(None))
_FORMULA = {"text": str, "mathml": str}

_SPEC = {
    "schema": str,
    "schema_version": int,
    "profile": str,
    "parts": list,
    "provenance": {"git_commit": _STR_OR_NONE, "git_dirty": (bool, type(None)), "bounds_hash": str,
                   "packages": dict, "python": str, "platform": str, "seeds": {"base": int, "verifier": int},
                   "created": str, "command": str, "wall_s": {"total": _NUM}},
    "statements": [{"name": str, "title": str, "numbering": dict, "quantity": str, "hypotheses": list,
                    "conclusion": _FORMULA, "probability": (dict, type(None)), "widths": dict,
                    "width_params": list, "variants": list}],
    "exponents": [{"width": str, "base": str, "text": str, "mathml": str}],
    "steps": [{"statement": str, "step": str, "supported": bool, "method": str, "domain": str, "ok": bool,
               "verdict": str, "margin": (int, float, type(None)), "detail": str, "box": dict,
               "counterexample": (dict, type(None)), "note": str, "relies_on": list,
               "inequality": _STR_OR_NONE}],
    "variants": ([{"statement": str, "variant": str, "description": str, "expected": list, "broken": list,
                   "verdict": str}], None),
    "mutations": ([{"name": str, "statement": str, "expected": list, "caught_by": list, "verdict": str,
                    "counterexample": (dict, type(None))}], None),
    "widths": [{"statement": str, "width": str, "point": dict, "C": _NUM, "value": int}],
    "calibration": {"file": str, "command": str, "definition": str, "level": _NUM, "confidence": _NUM,
                    "safety": _NUM, "statements": dict},
    "empirical": ({"checks": [{"id": str, "statement": str, "kind": str, "verdict": str, "ratio": _NUM,
                               "command": _STR_OR_NONE}],
                   "tightness": [{"check": str, "statement": str, "ratio": _NUM, "where": _ANY}],
                   "length_sweeps": dict, "verdicts": dict, "decisions": dict, "wall_s": _NUM, "tasks": int}, None),
    "figures": (dict, None),
}

_NUM_OR_NONE = (int, float, type(None))
#: The optional top-level "findings" section (``slt.measure.findings``; absent from older records, still version 1).
_FINDINGS_SPEC = {"banner": dict, "items": [{"id": str, "status": str, "title": str, "sentences": list,
                                             "counterexample": (dict, type(None)), "test": str,
                                             "command": _STR_OR_NONE, "evidence": str, "statements": list}], "notes": dict}
#: The optional top-level "slack" section (absent from records written before it existed; still version 1).
_SLACK_SPEC = ([{"statement": str, "constant": str, "printed": _NUM, "printed_exact": str,
                 "tightest": _NUM_OR_NONE, "tightest_exact": _STR_OR_NONE, "first_failing": _NUM_OR_NONE,
                 "first_failing_exact": _STR_OR_NONE, "ratio": _NUM_OR_NONE, "forced": bool, "direction": str,
                 "fails_at": _STR_OR_NONE, "counterexample": (dict, type(None)), "probes": int, "note": str}], None)


def _type_name(t) -> str:
    if isinstance(t, tuple):
        return " or ".join(_type_name(x) for x in t)
    if t is type(None) or t is None:
        return "null"
    if isinstance(t, dict):
        return "object"
    if isinstance(t, list):
        return "list"
    return {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", list: "list"}.get(t, str(t))


def _check(value, spec, where: str, file: str) -> None:
    if spec is _ANY:
        return
    if isinstance(spec, tuple) and any(isinstance(s, (dict, list)) or s is None for s in spec):
        if value is None and None in spec:
            return
        structured = [s for s in spec if s is not None]
        if len(structured) == 1:
            return _check(value, structured[0], where, file)
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            raise RecordError(f"{file}: field '{where}' is {_type_name(type(value))}, expected an object")
        for key, sub in spec.items():
            path = f"{where}.{key}" if where else key
            if key not in value:
                raise RecordError(f"{file}: field '{path}' is missing")
            _check(value[key], sub, path, file)
        return
    if isinstance(spec, list):
        if not isinstance(value, list):
            raise RecordError(f"{file}: field '{where}' is {_type_name(type(value))}, expected a list")
        for i, item in enumerate(value):
            _check(item, spec[0], f"{where}[{i}]", file)
        return
    types = spec if isinstance(spec, tuple) else (spec,)
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if not ok:
        raise RecordError(f"{file}: field '{where}' is {_type_name(type(value))}, expected {_type_name(spec)}")


def validate(record, file: str = "<record>") -> dict:
    """``record`` if it follows the schema of version ``SCHEMA_VERSION``; else ``RecordError`` (one line)."""
    if not isinstance(record, dict):
        raise RecordError(f"{file}: not a run record (a JSON object expected, got {_type_name(type(record))})")
    if record.get("schema") != SCHEMA:
        raise RecordError(f"{file}: field 'schema' is {record.get('schema')!r}, expected {SCHEMA!r} (not a run record)")
    if "schema_version" not in record:
        raise RecordError(f"{file}: field 'schema_version' is missing")
    if record["schema_version"] != SCHEMA_VERSION:
        raise RecordError(f"{file}: field 'schema_version' is {record['schema_version']!r}; this harness reads "
                          f"version {SCHEMA_VERSION} (rebuild the record with `slth run`)")
    _check(record, _SPEC, "", file)
    if "slack" in record:
        _check(record["slack"], _SLACK_SPEC, "slack", file)
    if record.get("findings") is not None:
        _check(record["findings"], _FINDINGS_SPEC, "findings", file)
    if record["profile"] not in PROFILES:
        raise RecordError(f"{file}: field 'profile' is {record['profile']!r}, expected one of {', '.join(PROFILES)}")
    return record


def load(path) -> dict:
    """Read and validate the record at ``path``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return validate(data, str(path))


def dumps(record: dict) -> str:
    return json.dumps(record, indent=1, default=_default, allow_nan=True)


def write(path, record: dict) -> None:
    """Validate ``record`` and write it to ``path`` atomically."""
    from slt.cache import write_atomic

    validate(record, str(path))
    write_atomic(Path(path), dumps(record))


def _default(obj):
    try:
        return float(obj)
    except (TypeError, ValueError):
        return str(obj)


# ------------------------------------------------------------------------------------------------ the parts

def mathml(expr, display: bool = False) -> str:
    """``expr`` (SymPy) as a self-contained MathML element."""
    import sympy as sp

    from slt.mathml import presentation

    body = presentation(sp.sympify(expr)).replace("<mo><</mo>", "<mo>&lt;</mo>").replace(
        "<mo>></mo>", "<mo>&gt;</mo>")
    attr = ' display="block"' if display else ""
    return f"<math{attr}>{body}</math>"


def _formula(expr) -> dict:
    return {"text": str(expr), "mathml": mathml(expr)}


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def _small(step) -> bool:
    import sympy as sp

    return sp.count_ops(step.lhs) + sp.count_ops(step.rhs) <= 60


def _step_row(r, step=None, supported=True) -> dict:
    margin = getattr(r, "margin", None)
    return {"statement": r.statement, "step": r.step, "supported": supported, "method": r.method,
            "domain": str(getattr(r, "domain", "unknown")), "ok": bool(r.ok), "verdict": r.status,
            "margin": None if margin is None else float(margin), "detail": str(r.detail),
            "arb": str(getattr(r, "arb", "")),
            "box": _jsonable(dict(r.box or {})), "counterexample": _jsonable(r.counterexample),
            "note": getattr(step, "note", "") or "", "relies_on": [str(x) for x in getattr(step, "relies_on", ())],
            "inequality": (mathml(step.lhs) + " &le; " + mathml(step.rhs)) if step is not None and _small(step)
            else None}


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
    from bounds.symbols import NAME

    free = {NAME[s] for w in st.widths.values() for s in w.free_symbols} - {"C"}
    return [p for p in WIDTH_ORDER if p in free] + sorted(free - set(WIDTH_ORDER))


def widths() -> list[dict]:
    """Every width requirement of every statement on the default grid at C = DEFAULT_C."""
    import bounds

    rows = []
    for name in bounds.names():
        st = bounds.get(name)
        needed = width_params(st)
        for pt in _grid_points(needed):
            point = {k: pt[k] for k in needed}
            for w in st.widths:
                rows.append({"statement": name, "width": w, "point": point, "C": DEFAULT_C,
                             "value": int(st.width(w, C=DEFAULT_C, **point))})
    return rows


def statements() -> tuple[list[dict], list[dict]]:
    """The statements as the report shows them (MathML of their SymPy objects) and Theorem 14's exponents."""
    import bounds
    from bounds import theorem14

    out = []
    for name in bounds.names():
        st = bounds.get(name)
        out.append({"name": st.name, "title": st.title, "numbering": dict(st.numbering), "quantity": st.quantity,
                    "hypotheses": [mathml(h.relation) for h in st.hypotheses],
                    "conclusion": _formula(st.conclusion),
                    "probability": None if st.probability is None else _formula(st.probability),
                    "widths": {w: _formula(e) for w, e in st.widths.items()}, "width_params": width_params(st),
                    "variants": [{"name": v.name, "description": v.description} for v in st.variants.values()]})
    exps = [{"width": w, "base": str(base), "text": str(poly), "mathml": mathml(poly)}
            for w, ex in theorem14.exponents().items() for base, poly in ex.items()]
    return out, exps


def proofs() -> list[dict]:
    """Every proof step of the supported forms and the elementary facts."""
    import bounds

    steps = [_step_row(r, None) for r in bounds.verify_facts()]
    for name in bounds.proved():
        proof = bounds.proof(name) if hasattr(bounds, "proof") else bounds.get(name).proof
        by_name = {s.name: s for s in proof}
        steps += [_step_row(r, by_name.get(r.step)) for r in bounds.verify(name)]
    return steps


def variants(names: list[str] | None = None) -> list[dict]:
    """Every printed variant (of the statements ``names``, default all): the steps it breaks, against the steps it
    is declared to break."""
    import bounds
    from bounds.mutations import catalogue_with, verify_all

    variants = []
    for st in (bounds.get(n) for n in (names or bounds.names())):
        for v in st.variants.values():
            broken = [r for r in verify_all(v.apply(catalogue_with())) if not r.ok]
            got = {(r.statement, r.step) for r in broken}
            variants.append({"statement": st.name, "variant": v.name, "description": v.description,
                             "expected": [list(x) for x in sorted(v.breaks)],
                             "broken": [{"statement": r.statement, "step": r.step, "method": r.method,
                                         "counterexample": _jsonable(r.counterexample)} for r in broken],
                             "verdict": "as expected" if got == set(v.breaks) else "unexpected"})
    return variants


def mutations() -> list[dict]:
    """The mutation suite: per deliberate edit, the steps that catch it."""
    from bounds.mutations import MUTATIONS, run

    out = []
    for m in MUTATIONS:
        caught = run(m)
        out.append({"name": m.name, "statement": m.edit.statement, "expected": list(m.caught_by),
                    "caught_by": [[r.statement, r.step] for r in caught],
                    "verdict": "caught" if caught else "SURVIVED",
                    "counterexample": _jsonable(caught[0].counterexample) if caught else None})
    return out


_POINT_FIELDS = ("trials", "seed", "C_point", "C_upper", "grid", "seconds", "start_C")


def _required(name: str, C, point: dict) -> dict:
    """The statement's width requirements at ``point`` and the calibrated ``C`` (bounds/), {} when not defined."""
    import bounds

    try:
        st = bounds.get(name)
        params = {k: v for k, v in point.items() if k in st.parameters}
        return {w: int(st.width(w, C=C, **params)) for w in st.widths} if C else {}
    except (KeyError, ValueError):
        return {}


def _curves(name: str, rec: dict) -> list[dict]:
    """Per calibration grid point: its parameters, C_point / C_upper and, per C tried, the failure count, trials,
    the Clopper-Pearson upper bound, the worst error over eps and the widths (what the report plots)."""
    out = []
    for pt in rec.get("points", []):
        if not isinstance(pt, dict):
            continue
        point = {k: v for k, v in pt.items() if k not in _POINT_FIELDS and isinstance(v, (int, float))}
        out.append({"point": point, "C_point": pt.get("C_point"), "C_upper": pt.get("C_upper"),
                    "required": _required(name, rec.get("C"), point),
                    "grid": [{k: g.get(k) for k in ("C", "failures", "trials", "upper", "worst_ratio", "widths")}
                             for g in pt.get("grid", []) if isinstance(g, dict)]})
    return _jsonable(out)


def calibration(results_dir: Path | None = None) -> dict:
    """The calibrated constants the run uses (``<results>/calibration.json`` if present, else the committed file)."""
    from slt.measure import calibration as cal
    from slt.measure.stats import CONFIDENCE, LEVEL

    local = Path(results_dir) / "calibration.json" if results_dir else None
    path = local if local is not None and local.exists() else cal.DEFAULT
    data = cal.load(str(path))
    stmts = {name: {"C": rec.get("C"), "C_low": rec.get("C_low"), "C_high": rec.get("C_high"),
                    "points": len(rec.get("points", [])), "note": rec.get("note", ""),
                    "command": rec.get("command", ""), "curves": _curves(name, rec)}
             for name, rec in data.get("statements", {}).items()}
    return {"file": _shown(path), "command": data.get("command", ""), "definition": data.get("definition", ""),
            "level": data.get("level", LEVEL), "confidence": data.get("confidence", CONFIDENCE),
            "safety": cal.SAFETY, "statements": stmts, "_data": data,
            "large": _large_calibration()}


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


def _large_calibration():
    """The large calibration's trends (``slt.measure.calibrate.trend_summary``), or None without the file."""
    from slt.measure.calibrate import trend_summary

    return trend_summary()


def figure_entry(figure: str, payload: dict, source: str) -> dict:
    """A figure summary as the record stores it: ``{"source", "payload"}``, the payload completed by the decisions
    the report shows but the summary does not hold (Figures 4-5: whether the target learns the task)."""
    if figure.startswith(("fig4", "fig5")) and "target" in payload:
        from slt.figures.token import training_finding

        verdict, line = training_finding(payload["target"])
        payload = {**payload, "training": {"verdict": verdict, "line": line}}
    return {"source": source, "payload": _jsonable(payload)}


def figures(results_dir: Path, quick: bool, log=print, compute: bool = True) -> dict:
    """The figure summaries (fits and findings), first found of: the full sweep's under ``results_dir``, the
    committed full sweep's (``slt/figures/committed/<figure>.json``, shipped with the package), the quick sweep's
    under ``results_dir`` (quick runs only); else computed by the figure sweeps (resuming from their per-item
    caches). The source is stored with the payload, so the report says which one it shows."""
    from slt import figures as sweeps

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
            payload = sweeps.reproduce(figure, quick=quick, results_dir=results_dir, log=log, stream=sys.stderr)
            source = "computed for this run"
        out[figure] = figure_entry(figure, payload, source)
    return out


# ------------------------------------------------------------------------------------------------ provenance

def _git(*args) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def bounds_hash() -> str:
    digest = hashlib.sha256()
    base = ROOT / "bounds"
    for source in sorted(base.rglob("*.py")):
        digest.update(str(source.relative_to(base)).encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def provenance(seed: int, command: str, wall: dict) -> dict:
    from importlib import metadata

    from bounds.verify import SEED

    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain")
    return {"git_commit": commit.strip() if commit else None, "git_dirty": None if status is None else bool(status.strip()),
            "bounds_hash": bounds_hash(), "packages": packages, "python": platform.python_version(),
            "platform": platform.platform(), "seeds": {"base": int(seed), "verifier": int(SEED)},
            "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": command, "wall_s": wall}


# ------------------------------------------------------------------------------------------------ build

def slack(log=print) -> list[dict]:
    """The slack of every proof constant (``bounds.slack.rows``; minutes of CPU), progress to ``log``."""
    from bounds.slack import CONSTANTS, rows

    seen = []

    def progress(constant, value, ok):
        if constant.label not in seen:
            seen.append(constant.label)
            log(f"[slack] {len(seen)}/{len(CONSTANTS)} {constant.statement}: {constant.label}")

    return _jsonable(rows(None, progress))


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
    steps = timed("proofs", proofs)
    width_rows = timed("widths", widths)
    calib = calibration(results_dir)
    calib_data = calib.pop("_data")
    variant_rows = mutation_rows = empirical = figs = None
    if profile != "proofs":
        from slt.measure import empirical as emp

        variant_rows = timed("variants", variants)
        parts.append("variants")
        mutation_rows = timed("mutations", mutations)
        parts.append("mutations")
        empirical = timed("empirical", emp.measure, profile, seed, calib_data, progress=log, cache_dir=cache_dir,
                          workers=workers, scheduler=scheduler)
        parts.append("empirical")
        figs = timed("figures", figures, results_dir, profile == "quick", log)
        parts.append("figures")
    slack_rows = None
    if with_slack or profile == "full":
        slack_rows = timed("slack", slack, log)
        parts.append("slack")
    wall["total"] = time.perf_counter() - start
    record = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "profile": profile, "parts": parts,
              "provenance": provenance(seed, command or " ".join(["slth", "run"] + sys.argv[1:]), wall),
              "statements": stmts, "exponents": exps, "steps": steps, "variants": variant_rows,
              "mutations": mutation_rows, "widths": width_rows, "calibration": calib, "empirical": empirical,
              "figures": figs, "slack": slack_rows}
    from slt.measure import findings  # the findings of this record's data (slt.measure.findings), stored in it

    record["findings"] = findings.decide(json.loads(dumps(record)))
    return validate(json.loads(dumps(record)))


def failed_steps(record: dict) -> list[dict]:
    """Steps of the supported forms (and facts) that failed."""
    return [s for s in record["steps"] if not s["ok"]]
