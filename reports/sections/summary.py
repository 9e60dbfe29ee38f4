"""Report section "Summary": one row per statement, first on the page: its proof (verified, or the failing step
and its domain), the empirical verdict with its power, the tightness, the calibrated C and the findings, each
linking to where the report shows the evidence. Renders the run record; measures nothing.

A verdict is stated only when its interval decides it (decided by ``slt.measure.empirical.rate_decision`` and
stored in the record): a failure-rate check "holds" when the upper end of its 95% interval is at most eps, "fails"
when the test rejects; otherwise "undecided at this power" with the interval.
"""
from __future__ import annotations

from slt import claims as claim
from reports.render import Section, empirical_source, fmt, heading, render_template, verdict_css


def rate_verdict(c: dict) -> dict:
    """A failure-rate check's decision as the record holds it (``slt.measure.empirical.rate_decision``)."""
    d = c["decision"]
    return {"word": d["word"], "css": verdict_css(d["word"]), "text": d["text"]}


def _proof_cell(word: str, steps: list[dict], note: str | None = None) -> dict:
    """The proof cell: the statement's verdict word (``slt.claims.proof_verdicts``, as the banner counts
    it) and what it rests on."""
    if word == "cited":
        return {"css": "", "word": word, "text": "a cited result: no proof to encode", "link": None}
    failed = [s for s in steps if claim.step_word(s) != "certified"]
    css = verdict_css(word)
    if failed:
        s = failed[0]
        return {"css": css, "word": word, "text": f"step {s['step']}: {claim.step_word(s)} "
                f"({claim.domain_words(s['domain'])})"
                + (f" and {len(failed) - 1} more" if len(failed) > 1 else ""), "link": "#proofs"}
    methods = {m: sum(s["method"] == m for s in steps) for m in ("symbolic", "interval", "sampled")}
    shown = ", ".join(f"{n} {m}" for m, n in methods.items() if n)
    return {"css": css, "word": word, "text": f"{len(steps)} steps ({shown})" + (f"; {note}" if note else ""),
            "link": f"#proofs-{steps[0]['statement']}" if steps else "#proofs"}


def _empirical_cell(name: str, emp: dict | None, profile: str, record: dict) -> dict:
    if emp is None:
        return {"css": "", "text": f"not measured ({profile} profile)", "details": []}
    checks = [c for c in emp["checks"] if c["statement"] == name]
    if not checks:
        return {"css": "", "text": "no empirical check in this record", "details": []}
    rates = [c for c in checks if c["kind"] == "rate"]
    details = []
    word = emp["verdicts"][name]  # slt.measure.verdicts, stored by slt.measure.empirical.decide
    css = verdict_css(word)
    if rates:
        verdicts = [rate_verdict(c) for c in rates]
        trials = sum(c["trials"] for c in rates)
        failures = sum(c["failures"] for c in rates)
        widest = max(c["interval"][1] for c in rates)
        decided = sum(v["word"] != "undecided at this power" for v in verdicts)
        text = (f"{word} {claim.tested_scope(record, name)}: {failures}/{trials} failures, {decided} of the "
                f"{len(rates)} points decided; the largest 95% upper end {fmt(widest, 2)}")
        details = [{"params": c["params"], "word": v["word"], "css": v["css"], "text": v["text"]}
                   for c, v in zip(rates, verdicts)]
    else:
        shown = word if word != "holds" else "holds: no violation found"
        text = f"{shown} ({len(checks)} deterministic check(s), worst ratio {fmt(max(c['ratio'] for c in checks), 3)})"
    if profile == "quick":
        text += "; quick profile (few trials: low power)"
    return {"css": css, "text": text, "details": details}


def rows(record: dict) -> list[dict]:
    emp, calib = record["empirical"], record["calibration"]["statements"]
    targets = next((f for f in (record.get("findings") or {}).get("items", []) if f["id"] == "worst-targets"), {})
    random_only = set(targets.get("random_only") or ())  # decided by slt.measure.findings.worst_targets
    out = []
    words = claim.proof_verdicts(record)
    for st in record["statements"]:
        name = st["name"]
        steps = [s for s in record["steps"] if s["statement"] == name and s["supported"]]
        tight = [t for t in (emp or {}).get("tightness", []) if t["statement"] == name]
        worst = max(tight, key=lambda t: t["ratio"]) if tight else None
        cal = calib.get(name)
        large = ((record["calibration"].get("large") or {}).get("statements") or {}).get(name) or {}
        below = (large.get("checks") or {}).get("covers") is False
        findings = [{"text": f"Finding {i}", "title": f["title"], "link": f"#findings-{f['id']}"}
                    for i, f in enumerate((record.get("findings") or {}).get("items", []), 1)
                    if name in f.get("statements", ()) and f["status"] != "not in this record"]
        findings += [{"text": f"reading '{v['variant']}': {n} step{'s fail' if n > 1 else ' fails'}",
                      "title": v["description"], "link": f"#variant-{v['statement']}-{v['variant']}"}
                     for v in record["variants"] or [] if v["statement"] == name and v["broken"]
                     for n in [len(v["broken"])]]
        findings += [{"text": f"{claim.reading_words(record, key)}: violated by a measured counterexample",
                      "title": "", "link": "#empirical"} for key in claim.printed_refuted(record)
                     if key.startswith(name + ":")]
        out.append({"name": name, "heading": heading(st["numbering"], name), "title": st["title"],
                    "probabilistic": st["probability"] is not None,
                    "proof": _proof_cell(words[name], steps, (record.get("findings") or {}).get("notes", {}).get(name)),
                    "object": claim.object_words(record, name) if words[name] != "cited" else "",
                    "empirical": _empirical_cell(name, emp, empirical_source(record)["profile"], record),
                    "tightness": worst, "calibration": cal, "findings": findings,
                    "below_large": {"build_C": large["checks"]["build_C"], "C": large["C"]} if below else None,
                    "random_only": name in random_only})
    return out


def render(record: dict) -> Section:
    table = rows(record)
    html = render_template("sections/summary.html", rows=table, profile=empirical_source(record)["profile"],
                           calibration_file=record["calibration"]["file"], figures=record.get("figures") or {},
                           first_pass=claim.first_pass_sentence(record["steps"]))
    return Section("summary", "Summary", html, claim.proof_sentence(record))
