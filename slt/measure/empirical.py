"""The empirical part of a run record: every measurement "bound versus empirical", as independent tasks.

``tasks(profile, seed, constants)`` lists the measurements as ``Task(kind, fn, params, seed)`` (the shared task
API of ``slt.tasks``), from the statements' ``Numerics`` in ``slt.measure.catalogue``: failure rates of each
probabilistic statement at its calibrated constant times ``slt.measure.calibration.SAFETY`` on its
``rate_points``, then every statement's ``searches`` (Theorem 9's a-posteriori chain and its one-ticket length
sweep, the Lemma 8 / Lemma 5 length sweeps, the adversarial searches of Lemmas 12 and 13 in the proofs' readings
and the printed ones, Lemma 13's stored counterexample). Each task function is called as ``function(seed=seed, **params)`` and returns a
JSON-able dict, so any executor (``slt.tasks.execute``: cached, distributed; or a plain loop) can run it.

``decide(tasks, results)`` turns the raw results into the record's decisions: every check's outcome (rate,
interval, p-value, power, worst ratio, re-run command, verdict), the tightness table (worst observed over bound),
the length sweeps, and per statement (or printed variant) the empirical verdict. ``measure(...)`` does both.
"""
from __future__ import annotations

import math
import shutil
import time
from pathlib import Path

from slt.measure import catalogue, findings, verdicts
from slt.measure.verdicts import deterministic_word
from slt.measure.calibration import build_constant
from slt.measure.checking import rate_level
from slt.measure.numerics import PROFILES
from slt.measure.probabilistic import failure_rate
from slt.measure.stats import LEVEL, min_trials
from slt.tasks import Task, execute, task_path

TASK_DEPENDS = ("bounds", "slt.measure", "slt.construct", "slt.models", "slt.samplers", "slt.subset_sum",
                "slt._subset_sum_kernels")
"""The code every empirical task depends on (part of each cached result's fingerprint in ``slt.tasks``: the
``deps`` of every task built here, wherever its function lives)."""

# --------------------------------------------------------------------------------------------- task functions


def power_record(test) -> dict:
    """The power of a rate test (``stats.RateTest``) as the record stores it: the smallest true failure rate it
    detects with probability ``power``, the rate the checks must detect, and whether it does."""
    return {"power": float(test.power), "detectable_rate": float(test.detectable_rate),
            "target_rate": float(test.target_rate), "meets_target": bool(test.meets_target)}


def rate(seed: int, statement: str, C: float, params: dict, trials: int) -> dict:
    """Failure rate of ``trials`` independent sources of ``statement`` at constant ``C`` (one-sided binomial test)."""
    test, cases = failure_rate(catalogue.get(statement).trial, C, params, trials, seed)
    worst = max(cases, key=lambda c: c.ratio)
    return {"statement": statement, "params": params, "C": C, "widths": cases[0].widths, "failures": test.failures,
            "trials": test.trials, "rate": test.rate, "interval": list(test.interval), "pvalue": test.pvalue,
            "level": test.level, "power": power_record(test), "passed": test.passed, "worst": float(worst.measured),
            "bound": float(worst.bound), "ratio": float(worst.ratio), "command": worst.command,
            "failing_commands": [c.command for c in cases if c.violated]}


# ------------------------------------------------------------------------------------------------- the plan

def new_task(kind, fn, params, seed):
    """A task of the run record's measurements (keyed on the code it depends on)."""
    return Task(kind=kind, fn=fn, params=params, seed=seed, deps=TASK_DEPENDS)


def constants(calibration: dict) -> dict:
    """Per statement the C every check builds with: SAFETY x the calibrated C (None if not calibrated)."""
    return {name: (build_constant(rec["C"]) if rec.get("C") else None)
            for name, rec in calibration["statements"].items()}


def worst_targets(calibration: dict) -> dict:
    """Per statement the target family its rate checks run at: the calibration's worst target, None for
    the random draw (a statement without one)."""
    return {name: rec.get("worst_target") for name, rec in calibration["statements"].items()}


def rate_trials(statement: str, eps: float, profile: str) -> int:
    """Trials of one failure-rate check: the statement's count for the profile (``Numerics.rate_trials``), at least
    the fewest for which the test can reject at all (``stats.min_trials``), and in the full profile at least the
    statement's power target at the ci checks run's level (``rate.trials_at(eps, checking.rate_level("ci"))``: power
    0.8 against 2 eps)."""
    numerics = catalogue.get(statement)
    trials = max(numerics.rate_trials[profile], min_trials(eps, LEVEL))
    if profile == "full" and numerics.rate is not None:
        trials = max(trials, numerics.rate.trials_at(eps, rate_level("ci")))
    return int(trials)


def tasks(profile: str, seed: int, C: dict, targets: dict | None = None) -> list:
    """Every measurement of the empirical part at ``profile`` ("quick" or "full"), as independent tasks: the
    failure-rate checks of every statement (at its worst target family where ``targets`` names one, as the checks
    run), then the searches of every statement (catalogue order)."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    out = []
    for name, numerics in catalogue.NUMERICS.items():
        if not numerics.rate_points or not C.get(name):
            continue
        points = numerics.rate_points
        if numerics.rate_floor is not None:  # no eps below the smallest the statement supports at this C
            floor = numerics.rate_floor(C[name])
            floor = math.ceil(floor * 1000) / 1000  # up to 3 decimals: still feasible, and a command without noise
            points = [{"eps": e} for e in sorted({max(p["eps"], floor) for p in points})]
        target = (targets or {}).get(name) if numerics.target_draw is not None else None
        for p in points:
            out.append(new_task(f"empirical:rate:{name}", rate,
                             {"statement": name, "C": C[name], "params": {**p, **({"target": target} if target else {})},
                              "trials": rate_trials(name, p["eps"], profile)}, seed))
    for name, numerics in catalogue.NUMERICS.items():
        for search in numerics.searches:
            if search.needs_C and not C.get(name):
                continue
            out.append(new_task(f"empirical:{search.kind}", search.fn, search.params(profile, C.get(name)), seed))
    # Theorem 14's readings and the MIP tolerances (slt.measure.findings), cached like every task
    out += findings.tasks(seed, lambda kind, fn, params, s: Task(kind=kind, fn=fn, params=params, seed=s,
                                                                 deps=findings.TASK_DEPENDS))
    return out


COMMITTED_TASKS = Path(__file__).with_name("committed") / "tasks"
"""Committed results of the default report's deterministic tasks (searches, length sweeps, the findings' proof
readings and solver checks), stored as ``slt.tasks`` caches them: a file is used only for a task with the same
fingerprint (kind, function, parameters, seed and the source of the code it depends on), so an edit of that code
makes the run compute it again. ``python -m reports.record.verified`` refreshes them."""


def seed_cache(task_list: list, cache_dir, committed: Path = COMMITTED_TASKS) -> int:
    """Copy the committed result of every task in ``task_list`` that has one (same fingerprint) into ``cache_dir``
    where that has none; the number copied. ``slt.tasks.execute`` reads them as its own cache (checksummed)."""
    n = 0
    for t in task_list:
        src, dst = task_path(committed, t), task_path(cache_dir, t)
        if src.exists() and not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            n += 1
    return n


def commit_tasks(seed: int, calibration: dict, committed: Path = COMMITTED_TASKS, progress=None) -> int:
    """Run the default report's deterministic tasks (quick profile, no failure rates) into a fresh ``committed``
    folder; the number of task files written."""
    if committed.exists():
        shutil.rmtree(committed)
    measure("quick", seed, calibration, progress=progress, cache_dir=committed, workers=0, rates=False)
    return len(list(committed.glob("*/*.json")))


# ------------------------------------------------------------------------------------------------- decisions

rate_decision = verdicts.rate_decision
"""A failure-rate check's verdict ``{"word", "text"}`` (``slt.measure.verdicts.rate_decision``)."""


def titles() -> dict:
    """The report's heading of every search, by its task kind (``Search.title`` in the statements' ``Numerics``)."""
    return {f"empirical:{s.kind}": s.title for n in catalogue.NUMERICS.values() for s in n.searches if s.title}


def rate_tightness(checks: list[dict]) -> list[dict]:
    """The tightness rows of the rate checks: per statement its worst ratio over its rate checks, and where."""
    out: dict[str, dict] = {}
    for c in checks:
        if c["kind"] == "rate":
            t = out.setdefault(c["statement"], {"check": f"rate:{c['statement']}", "statement": c["statement"],
                                                "ratio": -1.0, "where": None})
            if c["ratio"] > t["ratio"]:
                t.update(ratio=c["ratio"], where=c["params"])
    return list(out.values())


def decide(task_list: list, results: list[dict]) -> dict:
    """The record's empirical decisions from the raw task results (same order as ``task_list``); each search's
    check and length sweep carries its ``title`` (the report's heading) where its ``Search`` declares one."""
    checks, tightness, lengths, findings_data = [], [], {}, {}
    headings = titles()
    for task, res in zip(task_list, results):
        _, family, *rest = task.kind.split(":")
        name = rest[0]
        title = {"title": headings[task.kind]} if task.kind in headings else {}
        if family == "finding":  # data of slt.measure.findings, decided there
            if name == "theorem14":
                findings_data.setdefault("theorem14", []).append(res)
            else:
                findings_data[name] = res
            continue
        if family == "rate":
            check_id = f"rate:{name}:" + ",".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                                   for k, v in res["params"].items())
            decision = rate_decision(res)
            checks.append({"id": check_id, "statement": name, "kind": "rate", **res,
                           "verdict": decision["word"], "decision": decision})
            continue
        if family == "length":
            lengths[name] = {**res, **title}
            rows = res["rows"]
            worst = max(rows, key=lambda r: max(r["random"], r["adversarial"]) / r["bound"])
            ratio = max(worst["random"], worst["adversarial"]) / worst["bound"]
            checks.append({"id": f"length:{name}", "statement": name, "kind": "length",
                           "verdict": deterministic_word(any(r["violated"] for r in rows)),
                           "ratio": ratio, "worst": max(worst["random"], worst["adversarial"]),
                           "bound": worst["bound"], "where": {**res["info"], "T": worst["T"]},
                           "T_max": max(r["T"] for r in rows), "command": None, **title})
            tightness.append({"check": f"length:{name}", "statement": name, "ratio": ratio,
                              "where": {k: v for k, v in {**res["info"], "T": worst["T"]}.items() if k != "widths"}})
            continue
        # deterministic case lists: chain, search (proof or printed form), stored counterexample
        key = name + (":printed" if "printed" in rest[1:] else "")
        cases = res["cases"]
        worst = max(cases, key=lambda c: c["ratio"])
        checks.append({"id": ":".join([family, *rest]), "statement": key, "kind": family,
                       "verdict": deterministic_word(any(c["violated"] for c in cases)), "ratio": worst["ratio"],
                       "worst": worst["measured"], "bound": worst["bound"], "where": worst["parameters"],
                       "command": worst["command"], "cases": cases, **title})
        tightness.append({"check": ":".join([family, *rest]), "statement": key, "ratio": worst["ratio"],
                          "where": worst["parameters"]})
    decided = verdicts.redecide({"checks": checks})  # per statement (a length sweep of one ticket left out)
    return {"checks": checks, "tightness": rate_tightness(checks) + tightness, "length_sweeps": lengths,
            "verdicts": decided["verdicts"], "findings_data": findings_data, "decisions": decided["decisions"]}


def measure(profile: str, seed: int, calibration: dict, *, progress=None, cache_dir=None, workers=None,
            scheduler=None, rates: bool = True) -> dict:
    """Plan, run and decide the empirical part of a run record (``calibration``: the loaded calibration file);
    ``rates=False`` leaves the failure-rate checks out (a quick run whose rates the committed full-power record
    replaces, ``slt.measure.committed.select``)."""
    task_list = tasks(profile, seed, constants(calibration), worst_targets(calibration))
    if not rates:
        task_list = [t for t in task_list if not t.kind.startswith("empirical:rate:")]
    if cache_dir is not None and cache_dir is not False:
        seeded = seed_cache(task_list, cache_dir)
        if seeded and progress:
            progress(f"[run] empirical: {seeded} task result(s) of identical tasks taken from {COMMITTED_TASKS.name}/ "
                     "(same kind, function, parameters, seed and code)")
    start = time.perf_counter()
    results = execute(task_list, cache_dir=cache_dir, progress=progress is not None, desc="empirical",
                      workers=workers, scheduler=scheduler)
    out = decide(task_list, results)
    out["wall_s"] = time.perf_counter() - start
    out["tasks"] = len(task_list)
    return out
