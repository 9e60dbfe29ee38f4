"""Report section "Bound versus empirical": per statement, what ``checks`` measures, next to the bound.

Every number comes from the measurement functions of ``slt.measure.statements.<statement>`` (the same code ``pytest
checks`` runs), at the calibrated C times ``slt.measure.calibration.SAFETY``. Measurements are cached in
``ctx.results_dir/empirical-<quick|full>-<seed>.json`` and reused when present.
"""
from __future__ import annotations

import dataclasses
import html
import json
import math
import time

QUICK = {"lengths": [2**k for k in range(1, 15)], "t9_lengths": [2**k for k in range(1, 13)], "rate_trials": 20,
         "t9_trials": 6, "search_restarts": 1}
FULL = {"lengths": [2**k for k in range(1, 15)], "t9_lengths": [2**k for k in range(1, 15)], "rate_trials": 200,
        "t9_trials": 40, "search_restarts": 6}


def _calibration(ctx) -> dict:
    from slt.measure import calibration

    local = ctx.results_dir / "calibration.json"
    data = calibration.load(str(local) if local.exists() else None)
    return {"file": str(local if local.exists() else calibration.DEFAULT), **data}


def _fingerprint(calibration_file: str) -> str:
    """Short hash of the calibration file and of every source file of ``bounds`` and ``slt``: part of
    the cache name, so an edited check, construction, bound or calibration is measured again, never reused."""
    import hashlib
    from pathlib import Path

    import bounds
    import slt

    digest = hashlib.sha256(Path(calibration_file).read_bytes())
    for package in (bounds, slt):
        for source in sorted(Path(package.__file__).parent.rglob("*.py")):
            digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def _case_row(case) -> dict:
    return {"parameters": case.parameters, "seed": case.seed, "measured": case.measured, "bound": case.bound,
            "ratio": case.ratio, "violated": case.violated, "command": case.command, "detail": case.detail,
            "counterexample": case.counterexample}


def _rate(statement, module, C, params, trials, seed) -> dict:
    from slt.measure.probabilistic import failure_rate

    test, cases = failure_rate(module.trial, C, params, trials, seed)
    worst = max(cases, key=lambda c: c.ratio)
    return {"statement": statement, "params": params, "C": C, "widths": cases[0].widths, "failures": test.failures,
            "trials": test.trials, "interval": test.interval, "pvalue": test.pvalue, "passed": test.passed,
            "worst": worst.measured, "bound": worst.bound, "ratio": worst.ratio, "command": worst.command}


def _t9_length_sweep(C, lengths, seed, log) -> list[dict]:
    """One Theorem 9 ticket, worst error per T: random inputs (every mask kind) and the adversarial T=4 inputs
    found on the ticket, lifted to length T (first three tokens kept, the fourth repeated)."""
    import bounds
    import numpy as np

    from slt.measure.attention import output_error, worst_adversarial, worst_random
    from slt.measure.statements.theorem9 import build

    d1, d2, H, alpha, eps = 2, 2, 2, 2**0.5, 0.2
    target, ticket, widths = build(seed, C, d1, d2, H, alpha, eps)
    _, X4, kind = worst_adversarial(ticket.pruned, target, seed, 4, d1, alpha, restarts=2)
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
        rows.append({"T": T, "random": rand, "adversarial": adv, "bound": eps, "chain": chain, "lipschitz": lip})
        log(f"[empirical] theorem9 T={T}: worst {max(rand, adv):.3g}")
    return [{"d1": d1, "d2": d2, "H": H, "alpha": alpha, "eps": eps, "C": C, "widths": widths}] + rows


def measure(ctx) -> dict:
    """All measurements of the section (cached)."""
    from slt.measure import calibration
    from slt.measure.statements import lemma7 as check_lemma7, lemma12 as check_lemma12, lemma13 as check_lemma13, lueker as check_lueker, theorem9 as check_theorem9
    from slt.measure.softmax_perturbation import length_sweep

    calib = _calibration(ctx)
    path = ctx.results_dir / f"empirical-{'quick' if ctx.quick else 'full'}-{ctx.seed}-{_fingerprint(calib['file'])}.json"
    if path.exists():
        ctx.log(f"[empirical] reusing {path}")
        return json.loads(path.read_text())
    knobs = QUICK if ctx.quick else FULL
    safety = calibration.SAFETY
    C = {name: (rec.get("C") and safety * rec["C"]) for name, rec in calib["statements"].items()}
    out = {"calibration": calib, "safety": safety, "knobs": knobs, "rates": [], "deterministic": {}}
    seed = ctx.seed
    start = time.perf_counter()
    log = ctx.log
    ctx = dataclasses.replace(ctx, log=lambda msg: log(f"{msg} [{time.perf_counter() - start:.0f} s]"))
    if C.get("lueker"):
        eps_lo = check_lueker.eps_floor(C["lueker"])
        for eps in sorted({max(e, eps_lo) for e in (0.9, 0.7, 0.5, 0.4, 0.3)}):
            out["rates"].append(_rate("lueker", check_lueker, C["lueker"], {"eps": eps}, knobs["rate_trials"], seed))
    if C.get("lemma7"):
        for d1, d2, eps in ((2, 2, 0.1), (4, 4, 0.1), (8, 8, 0.2)):
            out["rates"].append(_rate("lemma7", check_lemma7, C["lemma7"], {"d1": d1, "d2": d2, "eps": eps},
                                      knobs["rate_trials"], seed))
            ctx.log(f"[empirical] lemma7 {d1}x{d2} eps={eps}: {out['rates'][-1]['failures']} failures")
    if C.get("theorem9"):
        for d1, d2, H, eps in ((2, 2, 1, 0.2), (2, 3, 2, 0.2), (4, 4, 4, 0.3)):
            p = {"d1": d1, "d2": d2, "H": H, "alpha": max(d1, d2) ** 0.5, "eps": eps}
            out["rates"].append(_rate("theorem9", check_theorem9, C["theorem9"], p, knobs["t9_trials"], seed))
            ctx.log(f"[empirical] theorem9 {p}: {out['rates'][-1]['failures']} failures")
        out["deterministic"]["theorem9_chain"] = [
            _case_row(c) for c in check_theorem9.chain_cases(seed, C["theorem9"], 3, 2, 2, 3**0.5, 0.2)]
        out["theorem9_length"] = _t9_length_sweep(C["theorem9"], knobs["t9_lengths"], seed, ctx.log)
    if C.get("lemma2"):
        from slt.measure.statements import lemma2 as check_lemma2

        for p in ({"d1": 2, "d2": 2, "eps": 0.1}, {"d1": 4, "d2": 3, "eps": 0.2}):
            out["rates"].append(_rate("lemma2", check_lemma2, C["lemma2"], p, knobs["t9_trials"] * 2, seed))
    if C.get("theorem10"):
        from slt.measure.statements import theorem10 as check_theorem10

        p = {"d1": 2, "L": 2, "eps": 0.2, "alpha": 1.5}
        out["rates"].append(_rate("theorem10", check_theorem10, C["theorem10"], p, knobs["t9_trials"] * 2, seed))
    if C.get("theorem11"):
        from slt.measure.statements import theorem11 as check_theorem11

        p = {"d1": 2, "H": 2, "L": 1, "alpha": 2**0.5, "eps": 0.2}
        out["rates"].append(_rate("theorem11", check_theorem11, C["theorem11"], p, knobs["t9_trials"], seed))
    if C.get("theorem14"):
        from slt.measure.statements import theorem14 as check_theorem14

        for B in (2, 3, 4):
            p = {"d1": 2, "H": 1, "L": 1, "alpha": 1.5, "eps": 0.2, "B": B}
            out["rates"].append(_rate("theorem14", check_theorem14, C["theorem14"], p,
                                      max(3, knobs["t9_trials"] // 2), seed))
            ctx.log(f"[empirical] theorem14 B={B}: {out['rates'][-1]['failures']} failures")
    for name, eps_max in (("lemma8", 0.25), ("lemma5", 0.25)):
        out[f"{name}_length"] = length_sweep(name, knobs["lengths"], 2, 2**0.5, eps_max, seed, progress=ctx.log)
    r = knobs["search_restarts"]
    out["deterministic"]["lemma12_proof"] = [_case_row(check_lemma12.measure(seed, 1, 1, 1.0, e, 3, restarts=r))
                                             for e in (0.01, 0.1)]
    out["deterministic"]["lemma12_printed"] = [_case_row(c) for c in check_lemma12.printed_search(
        seed, check_lemma12.PRINTED_POINTS[:: 1 if not ctx.quick else 2], restarts=r)]
    out["deterministic"]["lemma13_proof"] = [_case_row(check_lemma13.measure(seed, 1, 1, 1.0, e, 3, restarts=r))
                                             for e in (0.01, 0.1)]
    out["deterministic"]["lemma13_printed"] = [_case_row(c) for c in check_lemma13.printed_search(
        seed, check_lemma13.PRINTED_POINTS[:: 1 if not ctx.quick else 2], restarts=r)]
    out["deterministic"]["lemma13_printed"].append(_case_row(check_lemma13.counterexample_case()))
    from reports.build import write_atomic

    write_atomic(path, json.dumps(out, indent=1, default=float))
    return out


# ------------------------------------------------------------------------------------------------- rendering

def _fmt(v):
    if isinstance(v, float):
        return "inf" if math.isinf(v) else f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}={_fmt(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def _table(rows: list[dict], columns: list[str]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(c, '')))}</td>" for c in columns) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _length_plot(rows, title, series):
    from reports.figures import figure, img_tag

    fig, ax = figure()
    Ts = [r["T"] for r in rows]
    for key, label, style in series:
        ax.plot(Ts, [r[key] for r in rows], style, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length T")
    ax.set_ylabel("error")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return img_tag(fig, title)


def _rate_plot(rates, statement):
    from reports.figures import figure, img_tag

    fig, ax = figure()
    xs = list(range(len(rates)))
    lo = [r["failures"] / r["trials"] - r["interval"][0] for r in rates]
    hi = [r["interval"][1] - r["failures"] / r["trials"] for r in rates]
    ax.errorbar(xs, [r["failures"] / r["trials"] for r in rates], yerr=[lo, hi], fmt="o", capsize=3,
                label="observed failure rate (95% Clopper-Pearson)")
    ax.plot(xs, [r["params"]["eps"] for r in rates], "r_", markersize=20, label="allowed: eps")
    ax.set_xticks(xs, [_fmt({k: v for k, v in r["params"].items() if k != "alpha"}) for r in rates], rotation=20,
                  fontsize=7)
    ax.set_ylabel("failure rate")
    ax.set_title(f"{statement}: failure rate at the calibrated width")
    ax.legend(fontsize=8)
    return img_tag(fig, f"{statement} failure rates")


def render(ctx):
    from reports.build import Section

    data = measure(ctx)
    parts = [f"<p>Measured by the functions of <code>checks/</code> (the same code <code>pytest checks</code> runs). "
             f"Probabilistic statements at C = {data['safety']} &times; calibrated C (calibration file "
             f"<code>{html.escape(data['calibration']['file'])}</code>, produced by "
             f"<code>{html.escape(data['calibration'].get('command', ''))}</code>); failure rates with 95% "
             f"Clopper-Pearson intervals and the one-sided binomial test at level "
             f"{data['calibration'].get('level')}. Each statement is built at its own calibrated constant; "
             f"Theorem 14 on d1 = 2, H = 1, L = 1, B = 2..4 (see slt/measure/statements/theorem14.py).</p>"]
    calib_rows = [{"statement": k, "C": v.get("C"), "C_low": v.get("C_low"), "C_high": v.get("C_high"),
                   "grid points": len(v.get("points", [])), "note": v.get("note", "")}
                  for k, v in data["calibration"]["statements"].items()]
    parts.append("<h3>Calibrated constants</h3>" + _table(calib_rows, ["statement", "C", "C_low", "C_high",
                                                                      "grid points", "note"]))
    parts.append(f"<p>{html.escape(data['calibration'].get('definition', ''))}</p>")
    tight = []
    for statement in ("lueker", "lemma7", "lemma2", "theorem9", "theorem10", "theorem11", "theorem14"):
        rates = [r for r in data["rates"] if r["statement"] == statement]
        if not rates:
            continue
        rows = [{**r, "rate": r["failures"] / r["trials"], "verdict": "pass" if r["passed"] else "FAIL"} for r in rates]
        parts.append(f"<h3>{statement}</h3>" + _rate_plot(rates, statement) + _table(
            rows, ["params", "C", "widths", "bound", "worst", "ratio", "failures", "trials", "rate", "interval",
                   "pvalue", "verdict", "command"]))
        tight.append({"statement": statement, "worst / bound": max(r["ratio"] for r in rates),
                      "where": _fmt(max(rates, key=lambda r: r["ratio"])["params"])})
    for name, title in (("lemma8", "Lemma 8"), ("lemma5", "Lemma 5")):
        rows = data[f"{name}_length"]
        parts.append(f"<h3>{title}: length independence</h3>" + _length_plot(
            rows, f"{title}: worst observed vs T", [("random", "worst random", "o-"),
                                                    ("adversarial", "worst adversarial", "s-"),
                                                    ("bound", "paper's bound", "k--"),
                                                    ("lipschitz", "Lipschitz through ||X|| (grows like sqrt T)", "r:")])
            + _table(rows, ["T", "random", "adversarial", "bound", "lipschitz", "violated"]))
        tight.append({"statement": name, "worst / bound": max(max(r["random"], r["adversarial"]) / r["bound"]
                                                             for r in rows), "where": "d1=2, alpha=sqrt 2, eps_max=0.25"})
    if "theorem9_length" in data:
        info, *rows = data["theorem9_length"]
        parts.append("<h3>Theorem 9: length independence of one ticket</h3><p>" + html.escape(_fmt(info)) + "</p>" +
                     _length_plot(rows, "Theorem 9: worst observed vs T",
                                  [("random", "worst random", "o-"), ("adversarial", "adversarial (lifted)", "s-"),
                                   ("bound", "eps", "k--"), ("chain", "a-posteriori chain bound", "g-."),
                                   ("lipschitz", "Lipschitz through ||X||", "r:")])
                     + _table(rows, ["T", "random", "adversarial", "bound", "chain", "lipschitz"]))
    for key, title in (("theorem9_chain", "Theorem 9: a-posteriori chain (per step, worst ratio over inputs)"),
                       ("lemma12_proof", "Lemma 12 (||x'|| <= alpha): adversarial search"),
                       ("lemma12_printed", "Lemma 12 as printed (||x'|| up to alpha + eps_max)"),
                       ("lemma13_proof", "Lemma 13, proof's form (factor 2): adversarial search"),
                       ("lemma13_printed", "Lemma 13 as printed (no factor 2): adversarial search")):
        rows = data["deterministic"].get(key, [])
        if rows:
            parts.append(f"<h3>{title}</h3>" + _table(rows, ["parameters", "seed", "measured", "bound", "ratio",
                                                              "violated", "command"]))
            bad = [r for r in rows if r["violated"]]
            for r in bad:
                parts.append("<p><b>Counterexample</b>: <code>" + html.escape(json.dumps(r["counterexample"]))
                             + "</code></p>")
            tight.append({"statement": key, "worst / bound": max(r["ratio"] for r in rows),
                          "where": _fmt(max(rows, key=lambda r: r["ratio"])["parameters"])})
    parts.insert(2, "<h3>Tightness: worst observed over bound</h3>" + _table(tight, ["statement", "worst / bound",
                                                                                     "where"]))
    violations = sum(r["violated"] for rows in data["deterministic"].values() for r in rows)
    failed = sum(not r["passed"] for r in data["rates"])
    summary = f"{failed} failure-rate test(s) failed, {violations} deterministic violation(s) found"
    return Section("empirical", "Bound versus empirical", "\n".join(parts), summary)
