"""Report section "Does C grow?": the large calibration's C per point against each parameter, and the fitted trends
with their verdicts (decided by ``slt.measure.calibrate.trend`` and stored in the calibration file; rendered here).

Reads ``record["calibration"]["large"]`` (``slt.measure.calibrate.trend_summary``); a record without it gets no
section.
"""
from __future__ import annotations

from reports.build import Section, render_template

_LABELS = {"d1": "d1", "d2": "d2", "H": "H", "L": "L", "eps": "1/eps", "B": "B"}


def _plot(name: str, rec: dict) -> str | None:
    """C (the supported C_upper, bar down to C_point) against each factor that varies, log-log."""
    from reports.figures import figure, img_tag

    points = [p for p in rec["points"] if p.get("C_upper") is not None]
    factors = [k for k in _LABELS if len({p.get(k) for p in points if k in p}) > 1]
    if not factors:
        return None
    fig, _ = figure()
    fig.clf()
    fig.set_size_inches(3.0 * len(factors), 2.8)
    for i, k in enumerate(factors):
        ax = fig.add_subplot(1, len(factors), i + 1)
        xs = [1 / p[k] if k == "eps" else p[k] for p in points]
        ups = [p["C_upper"] for p in points]
        lows = [p["C_point"] if p.get("C_point") is not None else p["C_upper"] for p in points]
        ax.errorbar(xs, ups, yerr=[[u - lo for u, lo in zip(ups, lows)], [0] * len(ups)], fmt="o", ms=4, capsize=2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(_LABELS[k])
        if i == 0:
            ax.set_ylabel("calibrated C")
    fig.suptitle(f"{name}: C per grid point (bar: C_point .. C_upper)", fontsize=9)
    fig.tight_layout()
    return img_tag(fig, f"{name}: calibrated C against each parameter")


def render(record: dict) -> Section | None:
    large = (record.get("calibration") or {}).get("large")
    if not large or not large.get("statements"):
        return None
    blocks = []
    for name, rec in large["statements"].items():
        trend = rec.get("trend") or {}
        coef = [{"factor": f, "exponent": c["estimate"], "CI low": c["ci"][0], "CI high": c["ci"][1]}
                for f, c in (trend.get("coefficients") or {}).items()]
        blocks.append({"name": name, "rec": rec, "trend": trend, "coef": coef, "plot": _plot(name, rec),
                       "verdicts": list((trend.get("verdicts") or {}).values())})
    significant = [b["name"] for b in blocks
                   if any(not v.startswith("no significant") for v in b["verdicts"])]
    html = render_template("sections/calibration_trend.html", large=large, blocks=blocks)
    summary = (f"C varies significantly with a parameter for {', '.join(significant)}" if significant
               else "no significant trend of C in any parameter") + f" ({large['file']})"
    return Section("calibration-trend", "Does C grow? The large calibration", html, summary)
