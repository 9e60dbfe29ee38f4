"""The empirical part of a run record: every measurement "bound versus empirical", as independent tasks.

``tasks(profile, seed, constants)`` lists the measurements as ``Task(kind, fn, params, seed)`` (the shared task
API of ``slt.tasks``): failure rates of each probabilistic statement at its calibrated constant times
``slt.measure.calibration.SAFETY`` on the registry's grids, Theorem 9's a-posteriori chain and its one-ticket
length sweep, the Lemma 8 / Lemma 5 length sweeps, and the adversarial searches of Lemmas 12 and 13 (the proofs'
readings and the printed ones). Each task function is called as ``function(seed=seed, **params)`` and returns a
JSON-able dict, so any executor (``slt.tasks.execute``: cached, distributed; or a plain loop) can run it.

``decide(tasks, results)`` turns the raw results into the record's decisions: every check's outcome (rate,
interval, p-value, power, worst ratio, re-run command, verdict), the tightness table (worst observed over bound),
the length sweeps, and per statement (or printed variant) the empirical verdict. ``measure(...)`` does both.
"""
from __future__ import annotations

import dataclasses
import math
import time

from slt.measure import findings, registry, verdicts

TASK_DEPENDS = ("bounds", "slt.measure", "slt.construct", "slt.models", "slt.samplers", "slt.subset_sum",
                "slt._subset_sum_kernels")
"""The code every empirical task depends on (part of each cached result's fingerprint in ``slt.tasks``)."""

# --------------------------------------------------------------------------------------------- task functions


def _case_row(case) -> dict:
    return {"parameters": dict(case.parameters), "seed": case.seed, "measured": float(case.measured),
            "bound": float(case.bound), "ratio": float(case.ratio), "violated": bool(case.violated),
            "command": case.command, "detail": case.detail, "counterexample": case.counterexample}


def _power(test) -> dict | None:
    """The power of a rate test, where ``slt.measure.stats`` states it: the smallest true failure rate the test
    detects with probability ``power``, the rate the checks must detect, and whether it does."""
    detectable = getattr(test, "detectable_rate", None)
    if detectable is None:
        return None
    return {"power": float(getattr(test, "power", float("nan"))), "detectable_rate": float(detectable),
            "target_rate": float(test.target_rate), "meets_target": bool(test.meets_target)}


def rate(seed: int, statement: str, C: float, params: dict, trials: int) -> dict:
    """Failure rate of ``trials`` independent sources of ``statement`` at constant ``C`` (one-sided binomial test)."""
    from slt.measure.probabilistic import failure_rate

    test, cases = failure_rate(registry.function(statement, "trial"), C, params, trials, seed)
    worst = max(cases, key=lambda c: c.ratio)
    return {"statement": statement, "params": params, "C": C, "widths": cases[0].widths, "failures": test.failures,
            "trials": test.trials, "rate": test.rate, "interval": list(test.interval), "pvalue": test.pvalue,
            "level": test.level, "power": _power(test), "passed": test.passed, "worst": float(worst.measured),
            "bound": float(worst.bound), "ratio": float(worst.ratio), "command": worst.command,
            "failing_commands": [c.command for c in cases if c.violated]}


def theorem9_chain(seed: int, C: float, point: dict) -> dict:
    """Theorem 9's a-posteriori chain on one ticket: per step, the worst measured/bound ratio over inputs."""
    chain_cases = registry.function("theorem9", "chain_cases")
    return {"cases": [_case_row(c) for c in chain_cases(seed, C, **point)]}


def theorem9_length(seed: int, C: float, point: dict, lengths: list) -> dict:
    """One Theorem 9 ticket, worst error per T: random inputs (every mask kind) and the adversarial T=4 inputs
    found on the ticket, lifted to length T (first three tokens kept, the fourth repeated); with the
    a-posteriori chain bound and the Lipschitz bound through ||X|| at each T."""
    import numpy as np

    import bounds
    from slt.measure.attention import output_error, worst_adversarial, worst_random

    d1, d2, alpha = point["d1"], point["d2"], point["alpha"]
    target, ticket, widths = registry.function("theorem9", "build")(seed, C, **point)
    _, X4, _ = worst_adversarial(ticket.pruned, target, seed, 4, d1, alpha, restarts=2)
    st = bounds.get("theorem9")
    rows = []
    for T in lengths:
        rand, _ = worst_random(ticket.pruned, target, seed, [T], d1, alpha, batch=1)
        X = np.concatenate([X4[:3], np.repeat(X4[3:], max(T - 3, 0), axis=0)])[:T] if T >= 4 else X4[:T]
        adv = output_error(ticket.pruned, target, X)
        lip = sum(st.term("lipschitz", d1=d1, d2=d2, alpha=alpha, T=T, dQK_max=float(q)) +
                  st.term("S3b", d1=d1, d2=d2, alpha=alpha, dVO_max=float(v))
                  for q, v in zip(ticket.qk_max_error, ticket.vo_max_error))
        chain = sum(st.term("head", d1=d1, d2=d2, alpha=alpha, dQK_max=float(q), dVO_max=float(v))
                    for q, v in zip(ticket.qk_max_error, ticket.vo_max_error))
        rows.append({"T": T, "random": float(rand), "adversarial": float(adv), "bound": point["eps"],
                     "chain": float(chain), "lipschitz": float(lip),
                     "violated": bool(max(rand, adv) > point["eps"])})
    return {"info": {**point, "C": C, "widths": widths}, "rows": rows}


def softmax_length(seed: int, statement: str, lengths: list, d1: int, alpha: float, eps_max: float) -> dict:
    """Lemma 8 / Lemma 5 for T = 2 .. 2^14: worst random and adversarial left side per T, the bound, and the
    Lipschitz term through ||X|| (grows like sqrt T)."""
    from slt.measure.softmax_perturbation import length_sweep

    rows = length_sweep(statement, lengths, d1, alpha, eps_max, seed)
    return {"info": {"d1": d1, "alpha": alpha, "eps_max": eps_max},
            "rows": [{k: (bool(v) if k == "violated" else float(v) if k != "T" else int(v)) for k, v in r.items()}
                     for r in rows]}


def lipschitz_search(seed: int, statement: str, form: str, points: list, restarts: int) -> dict:
    """Adversarial searches of Lemma 12 / 13: ``form`` "proof" (the reading the proofs support) or "printed"."""
    module = registry.get(statement).load()
    if form == "proof":
        found = [registry.function(statement, "measure")(seed, **p, restarts=restarts) for p in points]
    else:
        found = registry.function(statement, "printed_search")(seed, points, restarts=restarts)
    return {"cases": [_case_row(c) for c in found], "module": module.__name__}


def stored_counterexample(seed: int, statement: str) -> dict:
    """A statement's stored counterexample, re-evaluated (mpmath)."""
    return {"cases": [_case_row(registry.function(statement, "counterexample_case")())]}


# ------------------------------------------------------------------------------------------------- the plan

def _task(kind, fn, params, seed):
    try:
        from slt.tasks import Task
    except ImportError:  # the shared executor has not landed: a plain record of the same fields
        Task = _Task
    return Task(kind=kind, fn=fn, params=params, seed=seed)


@dataclasses.dataclass(frozen=True)
class _Task:
    kind: str
    fn: str
    params: dict
    seed: int


_HERE = "slt.measure.empirical:"


def constants(calibration: dict) -> dict:
    """Per statement the C every check builds with: SAFETY x the calibrated C (None if not calibrated)."""
    from slt.measure.calibration import build_constant

    return {name: (build_constant(rec["C"]) if rec.get("C") else None)
            for name, rec in calibration["statements"].items()}


def rate_trials(statement: str, eps: float, profile: str) -> int:
    """Trials of one failure-rate check: the registry's count for the profile, at least the fewest for which the
    test can reject at all (``stats.min_trials``), and in the full profile at least the statement's power target
    (``RATE.trials_at(eps, "thorough")``, the count the thorough checks draw)."""
    from slt.measure.stats import LEVEL, min_trials

    entry = registry.get(statement)
    trials = max(entry.rates.trials[profile], min_trials(eps, LEVEL))
    check = getattr(entry.load(), "RATE", None)
    if profile == "full" and check is not None:
        trials = max(trials, check.trials_at(eps, "thorough"))
    return int(trials)


def tasks(profile: str, seed: int, C: dict) -> list:
    """Every measurement of the empirical part at ``profile`` ("quick" or "full"), as independent tasks."""
    if profile not in registry.PROFILES:
        raise ValueError(f"profile must be one of {registry.PROFILES}, got {profile!r}")
    out = []
    for name, entry in registry.REGISTRY.items():
        if entry.rates is None or not C.get(name):
            continue
        points = entry.rates.points
        if name == "lueker":  # the exact covering radius needs n' <= 22: no eps below the floor at this C
            floor = registry.function("lueker", "eps_floor")(C[name])
            floor = math.ceil(floor * 1000) / 1000  # up to 3 decimals: still feasible, and a command without noise
            points = [{"eps": e} for e in sorted({max(p["eps"], floor) for p in points})]
        for p in points:
            out.append(_task(f"empirical:rate:{name}", _HERE + "rate",
                             {"statement": name, "C": C[name], "params": dict(p),
                              "trials": rate_trials(name, p["eps"], profile)}, seed))
    if C.get("theorem9"):
        out.append(_task("empirical:chain:theorem9", _HERE + "theorem9_chain",
                         {"C": C["theorem9"], "point": registry.T9_CHAIN_POINT}, seed))
        out.append(_task("empirical:length:theorem9", _HERE + "theorem9_length",
                         {"C": C["theorem9"], "point": registry.T9_LENGTH_POINT,
                          "lengths": registry.T9_LENGTHS[profile]}, seed))
    for name in ("lemma8", "lemma5"):
        out.append(_task(f"empirical:length:{name}", _HERE + "softmax_length",
                         {"statement": name, "lengths": registry.LENGTHS[profile], **registry.SOFTMAX_POINT}, seed))
    restarts = registry.SEARCH_RESTARTS[profile]
    for name in ("lemma12", "lemma13"):
        printed = registry.get(name).load().PRINTED_POINTS
        out.append(_task(f"empirical:search:{name}", _HERE + "lipschitz_search",
                         {"statement": name, "form": "proof", "points": registry.LIPSCHITZ_PROOF_POINTS,
                          "restarts": restarts}, seed))
        out.append(_task(f"empirical:search:{name}:printed", _HERE + "lipschitz_search",
                         {"statement": name, "form": "printed",
                          "points": printed[:: 1 if profile == "full" else 2], "restarts": restarts}, seed))
    out.append(_task("empirical:stored:lemma13:printed", _HERE + "stored_counterexample", {"statement": "lemma13"},
                     seed))
    out += findings.tasks(seed, _task)  # Theorem 14's readings and the MIP tolerances (slt.measure.findings)
    return out


def execute(task_list: list, *, progress=None, cache_dir=None, workers=None, scheduler=None) -> list[dict]:
    """Results of ``task_list`` in order: by ``slt.tasks.execute`` (cached per task, on a dask cluster; ``workers=0``
    runs in this process) when the shared executor is present, else a plain loop in this process."""
    try:
        from slt.tasks import execute as shared
    except ImportError:
        shared = None
    if shared is not None:
        return shared(task_list, cache_dir=cache_dir, progress=progress is not None, desc="empirical",
                      workers=workers, scheduler=scheduler)
    out = []
    for i, t in enumerate(task_list):
        start = time.perf_counter()
        out.append(registry.resolve(t.fn)(seed=t.seed, **t.params))
        if progress:
            progress(f"[empirical] {i + 1}/{len(task_list)} {t.kind} ({time.perf_counter() - start:.1f} s)")
    return out


# ------------------------------------------------------------------------------------------------- decisions

def _verdict(violated: bool) -> str:
    return verdicts.deterministic_word(violated)


rate_decision = verdicts.rate_decision
"""A failure-rate check's verdict ``{"word", "text"}`` (``slt.measure.verdicts.rate_decision``)."""


def statement_decisions(checks: list[dict]) -> dict:
    """Per probabilistic statement, the verdict of its rate checks together (``verdicts.combine``): "fails" if one
    fails, else "undecided at this power" if one is undecided, else "holds"."""
    out: dict[str, list] = {}
    for c in checks:
        if c["kind"] == "rate":
            out.setdefault(c["statement"], []).append(c["decision"]["word"])
    return {k: verdicts.combine(v) for k, v in out.items()}


def decide(task_list: list, results: list[dict]) -> dict:
    """The record's empirical decisions from the raw task results (same order as ``task_list``)."""
    checks, tightness, lengths = [], [], {}
    words: dict[str, list] = {}

    def mark(key, word):
        words.setdefault(key, []).append(word)

    findings_data: dict = {}
    for task, res in zip(task_list, results):
        _, family, *rest = task.kind.split(":")
        name = rest[0]
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
            mark(name, decision["word"])
            continue
        if family == "length":
            lengths[name] = res
            rows = res["rows"]
            worst = max(rows, key=lambda r: max(r["random"], r["adversarial"]) / r["bound"])
            ratio = max(worst["random"], worst["adversarial"]) / worst["bound"]
            violated = any(r["violated"] for r in rows)
            checks.append({"id": f"length:{name}", "statement": name, "kind": "length", "verdict": _verdict(violated),
                           "ratio": ratio, "worst": max(worst["random"], worst["adversarial"]),
                           "bound": worst["bound"], "where": {**res["info"], "T": worst["T"]},
                           "T_max": max(r["T"] for r in rows), "command": None})
            if name != "theorem9":  # Theorem 9's sweep is one ticket: its verdict is its rate checks
                mark(name, _verdict(violated))
            tightness.append({"check": f"length:{name}", "statement": name, "ratio": ratio,
                              "where": {k: v for k, v in {**res["info"], "T": worst["T"]}.items() if k != "widths"}})
            continue
        # deterministic case lists: chain, search (proof or printed form), stored counterexample
        key = name + (":printed" if "printed" in rest[1:] else "")
        cases = res["cases"]
        worst = max(cases, key=lambda c: c["ratio"])
        violated = any(c["violated"] for c in cases)
        checks.append({"id": ":".join([family, *rest]), "statement": key, "kind": family,
                       "verdict": _verdict(violated), "ratio": worst["ratio"], "worst": worst["measured"],
                       "bound": worst["bound"], "where": worst["parameters"], "command": worst["command"],
                       "cases": cases})
        mark(key, _verdict(violated))
        tightness.append({"check": ":".join([family, *rest]), "statement": key, "ratio": worst["ratio"],
                          "where": worst["parameters"]})
    by_statement: dict[str, dict] = {}
    for c in checks:
        if c["kind"] == "rate":
            t = by_statement.setdefault(c["statement"], {"check": f"rate:{c['statement']}", "statement": c["statement"],
                                                         "ratio": -1.0, "where": None})
            if c["ratio"] > t["ratio"]:
                t.update(ratio=c["ratio"], where=c["params"])
    tightness = list(by_statement.values()) + tightness
    return {"checks": checks, "tightness": tightness, "length_sweeps": lengths,
            "verdicts": {k: verdicts.combine(v) for k, v in words.items()}, "findings_data": findings_data,
            "decisions": statement_decisions(checks)}


def measure(profile: str, seed: int, calibration: dict, *, progress=None, cache_dir=None, workers=None,
            scheduler=None) -> dict:
    """Plan, run and decide the empirical part of a run record (``calibration``: the loaded calibration file)."""
    task_list = tasks(profile, seed, constants(calibration))
    start = time.perf_counter()
    results = execute(task_list, progress=progress, cache_dir=cache_dir, workers=workers, scheduler=scheduler)
    out = decide(task_list, results)
    out["wall_s"] = time.perf_counter() - start
    out["tasks"] = len(task_list)
    return out
