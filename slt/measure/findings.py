"""The findings of a run: what the paper got wrong, decided from the run record's data and stored in it.

``decide(record)`` returns ``{"banner": ..., "items": [...]}``, which ``reports.record.assemble.build`` stores as ``record["findings"]``
and the report renders first (``reports/sections/findings.py``; it decides nothing). The banner counts the
statements whose encoded proof is certified (every step on the whole domain), the printed statements refuted by a
counterexample, the statements not proved (a cited result without an encoded proof, or a step neither certified nor
refuted), and the empirical verdicts (``slt.measure.verdicts``: holds / fails / undecided at this power).

Each item is one finding of the README's list as a plain sentence, with the data it rests on from this record: a
small counterexample table (``{"columns", "rows"}``), the test that reproduces it (a pytest id), a command where
one exists, and the anchor of its evidence in the report. A finding whose data this record does not hold (a
proofs-only record has no printed variants) says so instead of asserting anything.

One finding is decided from Coq (``lemma12_kernel``, from the record's ``coq_lemma12``). Two findings need their
own measurement, run as cached tasks of the empirical plan (``tasks()``): Theorem 14's constant under each reading
of its block step (``bounds.prove.readings``: the smallest kappa, certified at both ends; about 2 min CPU, cached by
the source of ``bounds``), and what the mixed-integer solver reports against the true error of the subset it returns
(``slt.mip``).
"""
from __future__ import annotations

import math

import numpy as np

from bounds.prove import readings
from slt import targets as target_families
from slt.measure import verdicts

from slt import claims
from slt.measure.findings_constants import (fixed_c_growth, fmt as _fmt, heading as _heading, missing as _missing,
                                           worst_targets)

TASK_DEPENDS = ("bounds", "slt.mip", "slt.subset_sum", "slt._subset_sum_kernels")
"""The code the findings' tasks depend on (part of each cached result's fingerprint in ``slt.tasks``)."""

READINGS = ("printed", "exact-exp", "perturbed-logit", "norm-beta")
MIP_POINT = {"n": 40, "m": 4}
"""Finding 6's instances: Lemma 7's subset sums (items v u, targets, all uniform on [-1, 1]) as in
``scripts/compare_mip.py`` and ``tests/test_findings.py``."""

# ------------------------------------------------------------------------------------------ measurement tasks


def _num(x):
    if x is None or isinstance(x, (int, float)):  # bool included
        return x
    try:
        return float(x)
    except (TypeError, ValueError):
        return str(x)


def _cex(result) -> dict | None:
    cx = getattr(result, "counterexample", None)
    return None if cx is None else {str(k): _num(v) for k, v in cx.items()}


def theorem14_reading(seed: int, reading: str) -> dict:
    """One reading of Theorem 14's block step (``bounds.prove.readings.verdict``): the steps failing at the printed
    kappa (with counterexamples), the smallest kappa closing the block step and every step, and the failing steps
    one below (``seed`` unused: the verifier is deterministic)."""

    spec = readings.owner().readings
    printed_kappa = int(spec.printed)
    try:
        v = readings.verdict(reading)
    except readings.Undecided as exc:  # a step neither certified nor refuted: the bisection cannot decide
        label, description = spec.table[reading][:2]
        return {"reading": reading, "label": label, "description": description, "printed_kappa": printed_kappa,
                "printed": None, "block": None, "proof": None, "undecided": str(exc)}

    def threshold(t):
        return {"kappa": t.kappa, **{k: [{"statement": r.statement, "step": r.step, "counterexample": _cex(r)}
                                         for r in getattr(t, k)] for k in ("below", "never")}}

    return {"reading": reading, "label": v.label, "description": v.description, "printed_kappa": printed_kappa,
            "printed": [{"statement": r.statement, "step": r.step, "method": r.method, "counterexample": _cex(r)}
                        for r in v.printed],
            "block": threshold(v.block), "proof": threshold(v.proof)}


def mip_tolerance(seed: int, n: int, m: int) -> dict:
    """Lemma 7's ``m`` subset sums of ``n`` items (``seed``), solved by HiGHS through scipy: per entry the objective
    the solver reports, the true error of the subset it returns, and the exact optimum (``slt.subset_sum``)."""
    from slt import mip as mip_solver  # SciPy, Numba: imported by this task, not with the catalogue of findings
    from slt.subset_sum import solve

    rng = np.random.default_rng([seed, n])
    c = rng.uniform(-1, 1, (m, n)) * rng.uniform(-1, 1, (m, n))
    t = rng.uniform(-1, 1, m)
    _, exact = solve(c, t)
    _, true, _, reported = mip_solver.solve(c, t, backend="highs", return_reported=True)
    return {"seed": seed, "n": n, "m": m,
            "rows": [{"entry": i, "reported": float(reported[i]), "true": float(true[i]), "exact": float(exact[i])}
                     for i in range(m)]}


def tasks(seed: int, make_task) -> list:
    """The findings' measurements as tasks (``make_task(kind, fn, params, seed)``), for the empirical plan."""
    out = [make_task(f"empirical:finding:theorem14:{r}", theorem14_reading, {"reading": r}, seed) for r in READINGS]
    out.append(make_task("empirical:finding:mip", mip_tolerance, dict(MIP_POINT), 0))
    return out


# ------------------------------------------------------------------------------------------------ decisions

def _table(cx: dict | None, keys=None) -> dict | None:
    """A counterexample as a small table: one row of its values (the numbers at 4 significant digits); without
    ``keys`` its columns in sorted order, so a result computed in this run and one read back from a store (whose
    keys are sorted) give the same table."""
    if not cx:
        return None
    keys = [k for k in (keys or sorted(cx)) if k in cx and not isinstance(cx[k], (list, dict))]
    shown = dict(claims.point_parts({k: cx[k] for k in keys}))
    return {"columns": keys, "rows": [[shown[k] for k in keys]]}


def _variant(record, statement, variant):
    return next((v for v in record.get("variants") or [] if v["statement"] == statement and v["variant"] == variant),
                None)


def _check(record, check_id):
    emp = record.get("empirical") or {}
    return next((c for c in emp.get("checks", []) if c["id"] == check_id), None)


def lemma13_printed(record) -> dict:
    test = ("checks/test_statements.py::"
            "test_property[lemma13-printed_is_violated_and_the_proof_form_holds_at_the_counterexample]")
    stored = _check(record, "stored:lemma13:printed")
    name = _heading(record, "lemma13")
    if stored is None:
        return _missing("lemma13-printed", f"{name} as printed: not measured in this record",
                        "This record holds no empirical measurements; slth run --quick evaluates the stored "
                        "counterexample.", test, "#empirical")
    case = max(stored["cases"], key=lambda c: c["ratio"])
    search = _check(record, "search:lemma13")
    proof = (f" The proof's form (factor 2) holds: its adversarial search found a worst ratio of "
             f"{claims.ratio_text(search['ratio'])}." if search and search["verdict"] == verdicts.HOLDS else "")
    if not case["violated"]:
        return {"id": "lemma13-printed", "status": "not reproduced", "title": f"{name} as printed: not refuted here",
                "sentences": [f"The stored counterexample gives {case['measured']:.6g} against the printed bound "
                              f"{case['bound']:.6g}: no violation in this run."], "counterexample": None,
                "test": test, "command": case["command"], "evidence": "#case-stored-lemma13-printed"}
    cx = dict(case["parameters"])
    cx.update({"measured max_i ||Blk(x_i) - Blk(x'_i)||": case["measured"], "printed bound": case["bound"],
               "ratio": case["ratio"]})
    return {"id": "lemma13-printed", "status": "refuted", "title": f"{name} as printed is false (measured over the printed bound: "
            f"{claims.ratio_text(case['ratio'])} at the stored counterexample); its proof's form, twice that bound, is "
            "what the harness encodes.",
            "sentences": [f"At the stored counterexample the block's output moves by {case['measured']:.5g}, more "
                          f"than the printed bound {case['bound']:.5g} (ratio {claims.ratio_text(case['ratio'])}; evaluated in "
                          f"mpmath). Its proof ends with twice the printed bound; the harness encodes that form."
                          + proof],
            "counterexample": _table(cx), "test": test, "command": case["command"],
            "evidence": "#case-stored-lemma13-printed",
            "repair": {"statement": "lemma13", "what": "twice the printed bound, the proof's last line",
                       "why": "the printed statement is false", "kind": "statement"}}


def theorem14_kappa(record) -> dict:
    test = "checks/test_variants.py::test_reading_proof_thresholds"
    emp = record.get("empirical") or {}
    rows = (emp.get("findings_data") or {}).get("theorem14") or []
    name = _heading(record, "theorem14")
    if not rows:
        return _missing("theorem14-kappa", f"{name}'s constant kappa: not computed in this record",
                        "The readings of the block step are computed by slth run --quick (bounds.prove.readings, about 2 "
                        "min CPU, cached).", test)
    printed_kappa = rows[0]["printed_kappa"]
    table_rows, closes = [], []
    table = {"columns": ["reading", f"fails at kappa = {printed_kappa}", "block step closes from",
                         "every step closes from"], "rows": table_rows}
    for r in rows:
        label = f"({r['label'].strip('()')}) {r['reading']}"
        if r.get("undecided"):  # the verifier neither certified nor refuted a step: said, not guessed
            table_rows.append([label, "not decided", f"not decided ({r['undecided']})", "not decided"])
            continue
        failing = ", ".join(f"{f['step']}" for f in r["printed"]) or "every step verifies"
        block, proof = r["block"]["kappa"], r["proof"]["kappa"]
        table_rows.append([label, failing, "never" if block is None else str(block),
                           "never" if proof is None else str(proof)])
        if not r["printed"]:
            closes.append(r)
    encoded = next((r for r in rows if r["reading"] == "printed" and not r.get("undecided")), None)
    if encoded is None:
        return {"id": "theorem14-kappa", "status": "not decided", "title": f"{name}'s constant kappa: not decided",
                "sentences": ["The verifier neither certified nor refuted a step of the harness's reading: "
                              + "; ".join(r["undecided"] for r in rows if r.get("undecided")) + "."],
                "table": table, "counterexample": None, "test": test, "command": None,
                "evidence": "#variant-theorem14-printed"}
    first = encoded["printed"][0] if encoded["printed"] else None
    sentences = [f"At the printed kappa = {printed_kappa} a step of the written proof fails under "
                 + ("every" if not closes else "all but " + str(len(closes))) + f" of the {len(rows)} readings of "
                 f"the block step; no counterexample to the theorem itself was found."]
    if first:
        sentences.append(f"Under the harness's reading ({encoded['label'].strip('()')}: {encoded['description']}) "
                         f"step {first['step']} fails at kappa = {printed_kappa}; the proof closes from kappa = "
                         f"{encoded['proof']['kappa']}, which is the kappa the harness verifies.")
    for r in closes:
        sentences.append(f"Under reading ({r['label'].strip('()')}) every step verifies at the printed "
                         f"{printed_kappa}: {r['description']}.")
    title = (f"{name}'s printed constant kappa = {printed_kappa}: a step of the written proof fails, not the theorem "
             f"(the harness's reading closes from kappa = {encoded['proof']['kappa']})." if first else
             f"{name}'s printed constant kappa = {printed_kappa}: every step of the harness's reading verifies.")
    return {"id": "theorem14-kappa", "status": "proof step fails" if first else "no step fails", "title": title,
            "sentences": sentences,
            "table": table,
            "counterexample": _table(first["counterexample"]) if first else None,
            "test": test, "command": "python -m pytest checks/test_variants.py -m slow -k full_bisection",
            "evidence": "#variant-theorem14-printed",
            "repair": {"statement": "theorem14", "what": f"kappa = {encoded['proof']['kappa']} for the printed "
                       f"{printed_kappa}", "why": f"step {first['step']} of the written proof fails at the printed "
                       "kappa", "kind": "step", "step": f"step {first['step']} at kappa = {printed_kappa}"} if first else None}


def _no_variants(fid: str, what: str, test: str) -> dict:
    return _missing(fid, f"{what}: the printed variants were not run in this record",
                    "slth run --quick runs the printed variants.", test)


def _broken_rows(variant) -> dict:
    cols = ["variant", "step", "counterexample"]
    rows = [[f"{variant['statement']}:{variant['variant']}", f"{b['statement']}:{b['step']}",
             claims.point_text(b["counterexample"], b.get("open_ends"))] for b in variant["broken"]]
    return {"columns": cols, "rows": rows}


def sqrt_d1(record) -> dict:
    test = "checks/test_variants.py::test_lemma8_with_d1_breaks_theorem9_S2c_for_every_d1_at_least_2"
    found = [v for v in (_variant(record, s, "d1") for s in ("lemma8", "theorem11", "lemma12", "lemma13")) if v]
    if not found:
        return _no_variants("sqrt-d1", "sqrt(d1), not d1", test)
    broken = [v for v in found if v["broken"]]
    # every step each reading breaks, with the verifier's counterexample
    table = {"columns": ["variant", "step", "counterexample"],
             "rows": [r for v in broken for r in _broken_rows(v)["rows"]]}
    steps = sorted({f"{_heading(record, b['statement'])} step {b['step']}" for v in broken for b in v["broken"]})
    hit = [b for v in broken for b in v["broken"]]  # in the readings' order; a theorem's step first
    lead = next((b for b in hit if b["statement"].startswith("theorem")), hit[0]) if hit else None
    example = f"{_heading(record, lead['statement'])} step {lead['step']}" if lead else ""
    return {"id": "sqrt-d1", "status": "proof step fails" if broken else "no step fails",
            "title": (f"The available copy prints d1 where the proofs need sqrt(d1) (the radical was lost; the harness "
                      f"encodes sqrt(d1)): with d1 the written proofs break ({len(steps)} step(s), among them "
                      f"{example})." if broken else
                      "With d1 for sqrt(d1) no step of the written proofs breaks."),
            "sentences": [f"Reading d1 where the proofs need sqrt(d1) ({len(broken)} of {len(found)} readings: "
                          + ", ".join(f"{v['statement']}:{v['variant']}" for v in broken)
                          + f") breaks {len(steps)} step(s): " + "; ".join(steps) + "."],
            "counterexample": table, "test": test, "command": None, "evidence": "#variant-lemma8-d1"}


def lemma12_logit(record) -> dict:
    test = "checks/test_variants.py::test_lemma12_printed_logit_step_fails_for_every_perturbation"
    v = _variant(record, "lemma12", "printed")
    name = _heading(record, "lemma12")
    if v is None:
        return _no_variants("lemma12-logit", f"{name}'s logit step", test)
    search = _check(record, "search:lemma12:printed")
    tail = (f" The lemma's conclusion itself was not violated by the adversarial search at that reading (worst "
            f"ratio {claims.ratio_text(search['ratio'])})." if search and search["verdict"] == verdicts.HOLDS else
            " The adversarial search at that reading found a violation (see its evidence)." if search else "")
    steps = ", ".join(b["step"] for b in v["broken"]) or "no step"
    return {"id": "lemma12-logit", "status": "proof step fails" if v["broken"] else "no step fails",
            "title": (f"{name}'s logit step assumes ||x'_i|| <= alpha, which a perturbed input need not satisfy."
                      if v["broken"] else f"{name}'s logit step holds with ||x'_i|| <= alpha + eps_max."),
            "sentences": [f"With ||x'_i|| <= alpha + eps_max, step {steps} of the written proof fails." + tail],
            "counterexample": _broken_rows(v) if v["broken"] else None, "test": test, "command": None,
            "evidence": "#variant-lemma12-printed",
            "repair": {"statement": "lemma12", "what": "||x'_i|| <= alpha added as a hypothesis",
                       "why": f"its printed logit step {steps} is false without it", "kind": "step",
                       "step": f"logit step {steps}"} if v["broken"] else None}


def theorem11_budget(record) -> dict:
    test = "tests/test_findings.py::test_finding5_theorem11_mha_budget_alone_at_eps_over_3_leaves_a_valid_proof"
    v = _variant(record, "theorem11", "mha-eps/3")
    name = _heading(record, "theorem11")
    if v is None:
        return _no_variants("theorem11-budget", f"{name}'s error budget", test)
    return {"id": "theorem11-budget", "status": "no step fails" if not v["broken"] else "proof step fails",
            "title": (f"{name}: the eps/4 -> eps/3 edit of the MHA budget alone leaves a valid proof." if not v["broken"]
                      else f"{name}: the eps/4 -> eps/3 edit of the MHA budget alone breaks the proof."),
            "sentences": ["The mutation eps/4 -> eps/3 is caught only because one constant budgets both the MHA "
                          "error and the FC error; changed in the MHA budget alone, "
                          + ("no step of the proof breaks." if not v["broken"] else
                             "it breaks " + ", ".join(b["step"] for b in v["broken"]) + ".")],
            "counterexample": None, "test": test, "command": None, "evidence": "#variant-theorem11-mha-eps/3"}


THEOREM10_THRESHOLDS = {"L": (2, 3, 10, 100), "eps": (0.5, 0.01)}
"""Where Finding 7 states alpha*(L, eps), the input norm below which Theorem 10's proof gives more than printed."""


def _alpha_domain(name: str) -> str:
    """"alpha >= 1": the lower end of alpha the harness encodes for statement ``name`` (from ``bounds``)."""
    from bounds.catalogue import STATEMENTS

    a = next(p for p in STATEMENTS[name].params if p.name == "alpha")
    return "alpha " + ", ".join(f"{'>' if a.lo_open else '>='} {_fmt(float(v))}" for v in a.lo)


def theorem10_alpha(record) -> dict:
    """README finding 7: Theorem 10 as printed (alpha > 0), computed from ``bounds.prove.theorem10_alpha``: a reachable
    counterexample to step T10b of the written proof (not to the theorem), the region where the bound the proof
    delivers exceeds the printed one, and the printed bound for every alpha > 0 with C doubled, verified."""
    from bounds.prove import theorem10_alpha as t10

    test = "tests/test_findings.py::test_finding7_theorem10_alpha_below_one"
    v = _variant(record, "theorem10", "printed")
    name = _heading(record, "theorem10")
    if v is None:
        return _no_variants("theorem10-alpha", f"{name} for alpha < 1", test)
    cx = t10.reachable_counterexample()
    pt = {k: float(val) for k, val in cx["point"].items()}
    fails = cx["lhs"] > cx["rhs"]
    rows = [[str(n)] + [_fmt(float(t10.threshold(n, e, 30))) for e in THEOREM10_THRESHOLDS["eps"]]
            for n in THEOREM10_THRESHOLDS["L"]]
    doubled = t10.doubled_c()
    l1 = t10.l1_step()
    follows = all(r.verdict == "certified" for r in doubled)
    never_at_1 = all(r.verdict == "certified" for r in l1)
    ends = next((b.get("open_ends") for b in v["broken"] if b["step"] == "T10b"), None)
    shown = dict(claims.point_parts({**pt, "e_l": float(cx["e_l"]), "lhs": float(cx["lhs"]), "rhs": float(cx["rhs"])},
                                    ends))  # the one printer of a point: never rounded across a hypothesis
    at = f"L = {shown['L']}, alpha = {shown['alpha']}, eps = {shown['eps']}"
    own = float(t10.excess(pt["alpha"], pt["eps"], int(pt["L"])))
    sentences = [
        (f"Step T10b of the written proof, (alpha + e_l) eps/(2L) <= (1 + e_l) alpha eps/(2L), fails at a point the "
         f"proof reaches: {at}, e_2 = alpha eps/(2L) = {shown['e_l']} (the error after layer 1) gives "
         f"{shown['lhs']} > {shown['rhs']}. This is not a counterexample to the theorem."
         if fails else f"Step T10b holds at {at}: not reproduced."),
        ("Tracking alpha + e_l instead, the proof gives alpha ((1 + eps/(2L))^L - 1); it exceeds the printed "
         "exp(alpha eps/2) - 1 exactly for L >= 2 and 0 < alpha < alpha*(L, eps) (table), never at L = 1"
         + (" (pre-checked by the first pass)" if never_at_1 else " (not pre-checked)") + f"; at {at} it is below the printed bound "
         f"(difference {own:.2g}), so the printed bound follows there although T10b fails."),
        ("With the universal constant C doubled the printed bound follows for every alpha > 0: the width "
         "d_l (2C) log(4 L d_l d_(l+1)/eps) covers Lemma 2 at the layer budget eps/(4L), and alpha (exp(eps/4) - 1) "
         "<= alpha eps/2 <= exp(alpha eps/2) - 1; "
         + ("every step pre-checked by the first pass (SymPy, intervals, Arb; the variants are not sent to Coq)."
            if follows else "NOT every step pre-checked: "
            + ", ".join(f"{r.step} {r.verdict}" for r in doubled if r.verdict != "certified") + ".")),
    ]
    return {"id": "theorem10-alpha", "status": "proof step fails" if fails else "not reproduced",
            "title": (f"{name} as printed (alpha > 0): a step of the written proof fails for alpha < 1 ({at}: "
                      f"{shown['lhs']} > {shown['rhs']}), not the theorem"
                      f"{'; with C doubled it follows for every alpha > 0' if follows else ''}." if fails else
                      f"{name} as printed (alpha > 0): step T10b holds at {at}: not reproduced."),
            "sentences": sentences,
            "table": {"columns": ["L", *(f"alpha* at eps = {e:g}" for e in THEOREM10_THRESHOLDS["eps"])],
                      "rows": rows},
            "counterexample": {"columns": ["L", "alpha", "eps", "e_l", "(alpha + e_l) eps/(2L)",
                                           "(1 + e_l) alpha eps/(2L)"],
                               "rows": [[shown[k] for k in ("L", "alpha", "eps", "e_l", "lhs", "rhs")]]},
            "test": test, "command": None, "evidence": "#variant-theorem10-printed",
            "reachable": {"step": "T10b", "point": {**pt, "e_l": float(cx["e_l"]), "lhs": float(cx["lhs"]),
                                                    "rhs": float(cx["rhs"])}} if fails else None,
            "repair": {"statement": "theorem10", "what": f"{_alpha_domain('theorem10')} for the printed alpha > 0"
                       + (" (or C doubled)" if follows else ""),
                       "why": "step T10b of the written proof fails for alpha < 1", "kind": "step",
                       "step": "step T10b for alpha < 1"} if fails else None}


def mip(record) -> dict:
    test = "tests/test_findings.py::test_finding6_highs_reports_zero_for_subsets_that_miss"
    emp = record.get("empirical") or {}
    data = (emp.get("findings_data") or {}).get("mip")
    if not data:
        return _missing("mip-tolerance", "The solvers' tolerances: not measured in this record",
                        "slth run --quick solves the instances.", test, "#findings")
    hidden = [r for r in data["rows"] if r["true"] - r["reported"] > 1e-8 and r["true"] > 1e3 * r["exact"]]
    rows = [[str(r["entry"]), _fmt(r["reported"]), _fmt(r["true"]), _fmt(r["exact"])] for r in data["rows"]]
    if hidden:
        worst = max(hidden, key=lambda r: (r["reported"] == 0.0, r["true"] - r["reported"]))  # "0" says it best
        zero = sum(r["reported"] == 0.0 for r in hidden)
        sentence = (f"On {len(hidden)} of {data['m']} subset-sum instances (n' = {data['n']}, seed {data['seed']}) "
                    f"HiGHS (through scipy) reports an objective below the true error of the subset it returns, which "
                    f"is more than a thousand times the exact optimum (table); on {zero} of them it reports "
                    f"{_fmt(0.0)}. The worst: it reports {_fmt(worst['reported'])} for a subset whose true error is "
                    f"{_fmt(worst['true'])}, while the exact optimum is {_fmt(worst['exact'])}: the solver's "
                    f"tolerance hides the error.")
    else:
        sentence = (f"On these {data['m']} instances HiGHS's reported objective matched the true error of its subset "
                    f"(within 1e-8): not reproduced with this solver version.")
    return {"id": "mip-tolerance", "status": "tolerance" if hidden else "not reproduced",
            "title": (f"Mixed-integer solvers hide their tolerances: HiGHS reports {_fmt(worst['reported'])} for a "
                      f"subset that misses by {_fmt(worst['true'])}." if hidden else
                      "Mixed-integer solvers' tolerances: not reproduced with this solver version."),
            "sentences": [sentence],
            "counterexample": {"columns": ["entry", "objective reported", "true error of that subset",
                                           "exact optimum"], "rows": rows},
            "test": test, "command": "python -m pip install -e .[mip] && python scripts/compare_mip.py",
            "evidence": "#findings-mip-tolerance"}


KERNEL_TEST = "tests/test_coq_math.py::test_finding10_coq_rejects_lemma12s_printed_logit_step_and_proves_it_false"


def lemma12_kernel(record) -> dict:
    """Lemma 12's printed logit step in Coq, from the record's ``coq_lemma12`` (``bounds.prove.coq_math.
    lemma12_logit_run``, part of every record, the proof-only one too): the paper's argument without
    ``||x'_i|| <= alpha`` rejected by Coq at the line that needs it and accepted with it, the printed step proved
    false, and the Coq theorem of Lemma 12 resting on that hypothesis.  "not decided" without coqc; "not reproduced"
    when Coq says otherwise."""
    from bounds.prove import coq_math

    name = _heading(record, "lemma12")
    premise = next(p for p, c in coq_math.PREMISE_COQ.items() if c == "premise_lemma12_x'")
    k = record.get("coq_lemma12")
    base = {"id": "lemma12-kernel", "counterexample": None, "test": KERNEL_TEST,
            "command": "python -m bounds.prove.coq_math", "evidence": "#proofs"}
    if k is None:
        return _missing("lemma12-kernel", f"{name}'s printed logit step in Coq: not run for this record",
                        "This record holds no Coq check of the step (slth run writes it).", KERNEL_TEST)
    if "undecided" in k:
        return {**base, "status": "not decided", "title": f"{name}'s printed logit step in Coq: not decided",
                "sentences": [f"Coq was not run: {k['undecided']}."]}
    found = (k["proof"] == "rejected" and k["gap_line"] and k["with_hypothesis"] == "accepted" and k["refuted"]
             and k["theorem"] == [premise])
    sentences = [
        f"The paper's argument for the logit step |x_i W x_k - x'_i W x'_k| <= 2 alpha eps_max, written in Coq "
        f"without the hypothesis ||x'_i|| <= alpha, is {k['proof']} by Coq"
        + (f" ({k['error'].rstrip('.')}), at the line bounding ||x'_i|| ||x_k - x'_k|| by alpha eps_max" if k["error"] else "")
        + f"; with that hypothesis added the same proof is {k['with_hypothesis']}.",
        "Coq proves the printed step false (lemma12_logit_printed_false, from a one-dimensional point where every "
        "token moves outwards: lemma12_logit_needs_x'_bound)" + ("" if k["refuted"] else ": NOT on the standard "
                                                                 "axioms alone") + ".",
        (f"stmt_lemma12, whose bound is the statement's own, printed from bounds/, is proved about the MHA of "
         f"the Coq objects and rests on exactly this premise, {premise!r}, as a Section hypothesis; so does Lemma "
         f"13's theorem." if k["theorem"] == [premise] else
         f"stmt_lemma12 rests on {k['theorem']!r}, not on {premise!r} alone."),
    ] + ([f"Coq's answers to this check (its own, apart from the proof steps' kernel verdicts): {k['source']}."]
         if k.get("source") else [])
    return {**base, "status": "proof step fails" if found else "not reproduced",
            "title": (f"{name}'s printed logit step is false in Coq: the paper's proof fails without "
                      f"||x'_i|| <= alpha, and {name} is a Coq theorem under that hypothesis." if found else
                      f"{name}'s printed logit step in Coq: not reproduced"),
            "sentences": sentences}


LUEKER_TEST = "tests/test_coq_math.py::test_lueker_as_printed_fails_for_one_item_and_coq_proves_it"
LUEKER_CS = (1, 5, 30)
"""The constants C at which the finding's table evaluates the printed width (every C > 0 behaves alike)."""


def _lueker_scope(record, name: str) -> str:
    """How this finding (a point eps = exp(-1/C)) and the corollary's failure-rate check (``claims.tested_scope``)
    are about different points, with the record's own: "" when the record has no such check."""
    scope = claims.tested_scope(record, "lueker")
    rates = [c for c in ((record.get("empirical") or {}).get("checks") or ())
             if c["statement"] == "lueker" and c["kind"] == "rate" and isinstance(c.get("C"), (int, float))]
    if not scope or not rates:
        return ""
    c = max(r["C"] for r in rates)
    at = math.exp(-1 / c)
    tested = [r["params"].get("eps") for r in rates if isinstance((r.get("params") or {}).get("eps"), (int, float))]
    where = ("outside them" if tested and not min(tested) <= at <= max(tested) else "among them")
    return (f"The failure-rate check of {name} is {scope}; this finding is about eps = exp(-1/C), at C = {c:g} "
            f"eps = {at:.4g}, {where}: the check's verdict is of its points, this one of that point.")


def lueker_printed(record) -> dict:
    """Lueker's corollary as the paper cites it (``bounds``' statement ``lueker``: width n >= C log(1/eps), error eps,
    probability 1 - eps, every 0 < eps < 1): decided from its printed width, exactly (SymPy): at eps = exp(-1/C) the
    width is 1 for every C > 0, and one item (the subset sums 0 and x) never covers both -1 and 1 within eps < 1, so
    the event fails at every sample while its probability must be at least 1 - eps > 0."""
    import sympy as sp

    from bounds.catalogue import STATEMENTS
    from bounds.symbols import C, eps

    name = _heading(record, "lueker")
    width = STATEMENTS["lueker"].widths["n"]
    at = sp.simplify(width.subs(eps, sp.exp(-1 / C)))
    rows = [[str(c), _fmt(float(sp.exp(-sp.Integer(1) / c))), _fmt(float(width.subs({eps: sp.exp(-sp.Integer(1) / c),
                                                                                      C: c}))), "1"]
            for c in LUEKER_CS]
    found = at == 1
    sentences = [
        (f"With the printed width n >= {sp.sstr(width)}, the width at eps = exp(-1/C) is exactly {sp.sstr(at)} for "
         "every C > 0 (SymPy), so one item is allowed. One item x has the subset sums 0 and x; covering z = 1 within "
         "eps < 1 needs x >= 1 - eps > 0 and covering z = -1 needs x <= -(1 - eps) < 0, so the cover fails at every "
         "sample, with probability 1 > eps." if found else
         f"The printed width at eps = exp(-1/C) is {sp.sstr(at)}, not 1: not reproduced."),
        "This is the corollary as the paper cites it (every 0 < eps < 1), not Lueker's theorem: a form that allows "
        "only eps <= eps_0 < 1, or a width C log(2/eps) with C large enough, escapes this counterexample.",
        _lueker_scope(record, name),
        "So the Coq theorems of the probabilistic statements, which take the corollary as printed as their one "
        "cited hypothesis (lueker_cited), are proved from a hypothesis that no item law with a one-item family "
        "satisfies, the uniform products of the construction included: the test compiles a Coq proof of this "
        "(lueker_as_printed_fails_one_item in Statements.v, on Coq's standard axioms).",
    ]
    return {"id": "lueker-printed", "status": "refuted" if found else "not reproduced",
            "title": (f"{name} as cited (n >= C log(1/eps) for every 0 < eps < 1) is false for every C: at eps = "
                      "exp(-1/C) it allows one item, which never covers both -1 and 1; the Coq theorems rest on "
                      "it as printed." if found else f"{name} as cited: not reproduced."),
            "sentences": [x for x in sentences if x],
            "counterexample": {"columns": ["C", "eps = exp(-1/C)", "printed width", "items n"], "rows": rows},
            "test": LUEKER_TEST, "command": None, "evidence": "#st-lueker"}


STATEMENTS_OF = {"lemma13_printed": ("lemma13",), "theorem14_kappa": ("theorem14",),
                 "sqrt_d1": ("lemma8", "theorem9", "theorem11", "lemma12", "lemma13"), "lemma12_logit": ("lemma12",),
                 "theorem11_budget": ("theorem11",), "theorem10_alpha": ("theorem10",), "mip": ("lemma7",),
                 "worst_targets": tuple(target_families.HYPOTHESIS),
                 "fixed_c_growth": tuple(target_families.HYPOTHESIS), "lemma12_kernel": ("lemma12", "lemma13"),
                 "lueker_printed": ("lueker",)}
"""The statements each finding concerns (their summary rows link to it)."""

FINDINGS = (lemma13_printed, theorem14_kappa, sqrt_d1, lemma12_logit, theorem11_budget, mip, theorem10_alpha,
            worst_targets, fixed_c_growth, lemma12_kernel, lueker_printed)
"""The README's findings, in its order; each a function of the record."""


ABOUT_PAPER, ABOUT_HARNESS, ABOUT_SOLVER = claims.ABOUT_PAPER, claims.ABOUT_HARNESS, claims.ABOUT_SOLVER
ABOUT = {"worst_targets": ABOUT_HARNESS, "fixed_c_growth": ABOUT_HARNESS, "mip": ABOUT_SOLVER}
"""What each finding is about (``slt.claims.ABOUT_ORDER`` says what each means; HiGHS's tolerances are a solver's,
not the paper's subset-sum claim); every finding not named here is about the paper."""


def banner(record: dict, items: list | None = None) -> dict:
    """The counts the page opens with (each from ``slt.claims``), each verdict with its object (as printed, or as
    repaired: ``claims.repairs`` of the findings' ``items``)."""
    emp = claims.empirical_verdicts(record)
    return {"proofs": {"counts": claims.proof_counts(record), "by_statement": claims.proof_verdicts(record),
                       "objects": claims.object_counts(record, items), "repaired": claims.repairs(record, items)},
            "printed_refuted": claims.printed_refuted(record),
            "empirical": None if emp is None else {"counts": claims.empirical_counts(record), "by_statement": emp},
            "profile": record.get("profile")}


def notes(items: list[dict]) -> dict:
    """Per statement, what its summary row must say about the form it verifies (from the findings)."""
    out = {}
    for f in items:
        if f["id"] == "theorem14-kappa" and f.get("table"):
            printed = next((r for r in f["table"]["rows"] if r[0].endswith(" printed")), None)
            if printed:
                out["theorem14"] = (f"verifies reading {printed[0]} with kappa = {printed[3]}, not the printed "
                                    f"{f['title'].split('kappa = ')[1].split(':')[0]} (at which step {printed[1]} "
                                    f"fails)")
        if f["id"] == "lemma13-printed" and f["status"] == "refuted":
            out["lemma13"] = "verifies the proof's form (twice the printed bound); the printed form is false"
    return out


def decide(record: dict) -> dict:
    """The findings of ``record`` (its steps, variants and empirical part), to be stored as ``record["findings"]``."""
    items = [{"statements": list(STATEMENTS_OF[f.__name__]), "about": ABOUT.get(f.__name__, ABOUT_PAPER), **f(record)}
             for f in FINDINGS]
    return {"banner": banner(record, items), "items": items, "notes": notes(items)}
