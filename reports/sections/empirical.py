"""Report section "Bound versus empirical": per statement, what the measuring library measured (stored in the run
record by ``slt.measure.empirical``), next to the bound; calibrated constants, tightness, length independence."""
from __future__ import annotations

# inline SVG plots: values on hover, zoom; counts and the interval's upper end, not error bars
from slt import claims
from reports.figure_plots import length_sweep, rate_checks
from reports.sections.gpt2 import GPT2_FIGURES
from reports.render import Section, empirical_source, render_template

RATE_COLUMNS = ["params", "C", "widths", "bound", "worst", "ratio", "failures", "trials", "interval", "verdict",
                "command"]
"""The per-point table's columns; the verdict cell carries the decision's sentence (p-value, power as one
sentence), so no column holds a raw dict."""


_SERIES = {
    "lemma8": [("random", "worst random", "o-"), ("adversarial", "worst adversarial", "s-"),
               ("bound", "paper's bound", "k--"), ("lipschitz", "Lipschitz through ||X|| (grows like sqrt T)", "r:")],
    "theorem9": [("random", "worst random", "o-"), ("adversarial", "adversarial (lifted)", "s-"), ("bound", "eps", "k--"),
                 ("chain", "a-posteriori chain bound", "g-."), ("lipschitz", "Lipschitz through ||X||", "r:")],
}
_SERIES["lemma5"] = _SERIES["lemma8"]


def render(record: dict) -> Section:
    emp, calib = record["empirical"], record["calibration"]
    calibration_rows = [{"statement": k, "C": v["C"], "C_low": v["C_low"], "C_high": v["C_high"],
                         "grid points": v["points"], "note": v["note"]} for k, v in calib["statements"].items()]
    rate_blocks, length_blocks, case_blocks, tightness = [], [], [], []
    summary = "not measured in this record"
    if emp is not None:
        rates = [c for c in emp["checks"] if c["kind"] == "rate"]
        for statement in dict.fromkeys(c["statement"] for c in rates):
            rows = [c for c in rates if c["statement"] == statement]
            rate_blocks.append({"statement": statement, "rows": rows, "plot": rate_checks(rows, statement)})
        for name in ("lemma8", "lemma5", "theorem9"):
            sweep = emp["length_sweeps"].get(name)
            if sweep:
                title = sweep.get("title") or f"length:{name}"  # headings live in the statements' Numerics
                columns = [s[0] for s in _SERIES[name]] + ([] if name == "theorem9" else ["violated"])
                length_blocks.append({"title": title, "rows": sweep["rows"], "columns": ["T"] + columns,
                                      "info": sweep["info"] if name == "theorem9" else None,
                                      "plot": length_sweep(sweep["rows"], f"{title}: worst observed vs T",
                                                          _SERIES[name])})
        case_blocks = [{"title": c.get("title") or c["id"], "rows": c["cases"], "id": c["id"].replace(":", "-")}
                       for c in emp["checks"] if "cases" in c]
        probabilistic = {st["name"] for st in record["statements"] if st["probability"] is not None}
        tightness = [{"statement": t["statement"], "check": t["check"], "worst / bound": t["ratio"],
                      "where": t["where"],
                      "note": ("above 1 at some source: the bound holds with probability 1 - eps, so a fraction eps of "
                               "sources may exceed it; the failure rate decides" if t["ratio"] > 1 and
                               t["check"].startswith("rate:") and t["statement"] in probabilistic else
                               "above 1: exceeds the bound" if t["ratio"] > 1 else "")}
                     for t in emp["tightness"]]
        summary = f"{claims.empirical_sentence(record)}; {claims.check_sentence(record)}"
    figures = record.get("figures") or {}
    lead = {"heldout": calib.get("heldout") or {"answers": ["no held-out test in this record"]},
            "gpt2": [line for name in GPT2_FIGURES
                     for line in ((figures.get(name) or {}).get("payload") or {}).get("findings", [])]}
    html = render_template("sections/empirical.html", lead=lead, empirical=emp, calibration=calib, profile=record["profile"],
                           source=empirical_source(record),
                           calibration_rows=calibration_rows, tightness=tightness, rate_blocks=rate_blocks,
                           rate_columns=RATE_COLUMNS, length_blocks=length_blocks, case_blocks=case_blocks)
    return Section("empirical", "Bound versus empirical", html, summary)
