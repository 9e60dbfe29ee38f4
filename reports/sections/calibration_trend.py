"""Report section "Does C grow?": the large calibration's C per point against each parameter, and the fitted trends
with their verdicts (decided by ``slt.measure.calibrate.trend`` and stored in the calibration file; rendered here).

Reads ``record["calibration"]["large"]`` (``slt.measure.calibrate.trend_summary``); a record without it gets no
section.
"""
from __future__ import annotations

from slt import claims
from reports.plots import svg_plot
from reports.render import Section, render_template

_LABELS = {"d1": "d1", "d2": "d2", "H": "H", "L": "L", "eps": "1/eps", "B": "B"}


def _plot(name: str, rec: dict, prefix: str = "") -> str | None:
    """C (the supported C_upper, bar down to C_point) against each factor that varies, log-log; inline SVG with the
    point's parameters and C on hover (``reports.plots``)."""
    points = [p for p in rec["points"] if p.get("C_upper") is not None]
    factors = [k for k in _LABELS if len({p.get(k) for p in points if k in p}) > 1]
    if not factors:
        return None
    plots = []
    for k in factors:
        pts = [p for p in points if k in p]
        ups = [p["C_upper"] for p in pts]
        lows = [p["C_point"] if p.get("C_point") is not None else p["C_upper"] for p in pts]
        tips = [", ".join(f"{f}={p[f]:.3g}" if isinstance(p[f], float) else f"{f}={p[f]}" for f in _LABELS if f in p)
                + f": C_upper {u:.3g}, C_point {lo:.3g}" for p, u, lo in zip(pts, ups, lows)]
        plots.append(svg_plot([{"label": "C_upper (bar down to C_point)", "x": [1 / p[k] if k == "eps" else p[k]
                                                                                for p in pts],
                                "y": ups, "lo": lows, "hi": ups, "tips": tips}],
                              title=f"{name}: calibrated C against {_LABELS[k]}", xlabel=_LABELS[k], xlog=True,
                              ylabel="calibrated C", ylog=True, plot_id=f"plot-trend{prefix}-{name}-{k}"))
    return '<div class="pair">' + "".join(plots) + "</div>"


def _blocks(large: dict, prefix: str = "") -> list[dict]:
    return [{"name": name, "rec": rec, "trend": trend,
             "coef": [{"factor": f, "exponent": c["estimate"], "CI low": c["ci"][0], "CI high": c["ci"][1]}
                      for f, c in (trend.get("coefficients") or {}).items()],
             "plot": _plot(name, rec, prefix), "verdicts": list((trend.get("verdicts") or {}).values())}
            for name, rec in large["statements"].items() for trend in [rec.get("trend") or {}]]


def render(record: dict) -> Section | None:
    cal = record.get("calibration") or {}
    grids = [(key, cal.get(key)) for key in ("large_worst", "large") if (cal.get(key) or {}).get("statements")]
    if not grids:
        return None
    html = render_template("sections/calibration_trend_answer.html", answers=claims.growth(record),
                           answer=claims.growth_answer(record))
    for key, large in grids:
        blocks = _blocks(large, "-worst" if key == "large_worst" else "")
        html += render_template("sections/calibration_trend.html", large=large, blocks=blocks, worst=key == "large_worst",
                                grouped=len(grids) > 1)
    return Section("calibration-trend", "Does C grow? The large calibration", html, claims.growth_sentence(record))


def _checks(checks: dict | None) -> str:
    """'8: covers this grid' (the C the checks build with against the large grid's C; '1.5 x 4 = 6: ...' with a
    safety factor), or '-' when not calibrated there."""
    if not checks:
        return "-"
    covers = {True: "covers this grid", False: "below this grid's C", None: "-"}[checks["covers"]]
    if checks["safety"] == 1:
        return f"{checks['build_C']:g}: {covers}"
    return f"{checks['safety']:g} x {checks['C']:g} = {checks['build_C']:g}: {covers}"


def markdown_table(summary: dict) -> str:
    """The docs' table of the large calibration (one row per statement of the large grid: design,
    points run against the points of that design, C with its range, the trend verdicts), from ``trend_summary``.
    ``slth calibrate --table`` prints it; a test holds docs/calibration.md to it."""
    cost = summary.get("cost", {})
    lines = [f"Committed result (`{summary['file']}`): {cost.get('trials', 0)} trials, "
             f"{cost.get('cpu_s', 0):.0f} CPU s in the trials, {cost.get('wall_s', 0):.0f} s wall over the runs that "
             "wrote it.", "",
             "| statement | design | points run / in the design | C (range) | the checks build at | "
             "trend of C_upper (95% intervals) | the same fit on C_point |",
             "|---|---|---|---|---|---|---|"]
    for name in summary.get("order") or list(summary["statements"]):
        rec = summary["statements"].get(name)
        if not rec or not rec["points"]:
            planned = (rec or {}).get("planned") or summary.get("not_run", {}).get(name, "?")
            lines.append(f"| {name} | ofat | 0 / {planned} | not run | - | - | - |")
            continue
        design = (rec.get("design") or "ofat") + (f" at target {rec['target']}" if rec.get("target") else "")
        planned = rec.get("planned") or "?"
        trend = rec["trend"]
        verdict = trend.get("verdict") or trend.get("error") or "-"
        if trend.get("censoring_note"):
            verdict += f"; {trend['censoring_note']}"
        C = "none found within the C grid" if rec["C"] is None else f"{rec['C']:g} ({rec['C_low']:g} .. {rec['C_high']:g})"
        sens = trend.get("sensitivity") or {}
        lines.append(f"| {name} | {design} | {len(rec['points'])} / {planned} | {C} | {_checks(rec.get('checks'))} | "
                     f"{verdict} | {sens.get('verdict') or sens.get('error') or '-'} |")
    return "\n".join(lines)

