"""Report section "Bound against the evidence": plots that put each bound next to what was measured.

- per calibrated (probabilistic) statement, from the calibration file's failure counts per C
  (``record["calibration"]["statements"][name]["curves"]``): the worst error over eps against the width, with
  eps (ratio 1) and the width the theorem requires at the calibrated C marked, so the empirical transition stands
  next to the requirement; and the failure rate against C with its 95% upper bound (the calibration criterion),
  each eps and the calibrated C marked (counts on hover);
- per deterministic statement: the worst ratio found against each parameter that varies (adversarial searches,
  the length sweeps);
- the tightness of every check across statements.

Renders the run record; measures nothing.
"""
from __future__ import annotations

from reports.render import Section, fmt, render_template
from slt import claims
from reports.plots import PALETTE, bar_chart, svg_plot

SKIP = {"restarts", "maxiter", "inside", "form", "stored", "C", "seed"}


def _primary(widths: dict):
    """The first width requirement and its value (the first block's for per-block lists)."""
    for k, v in (widths or {}).items():
        if isinstance(v, list):
            v = v[0] if v else None
        if isinstance(v, (int, float)):
            return k, v
    return None, None


def _label(point: dict) -> str:
    return ", ".join(f"{k}={fmt(v, 3)}" for k, v in point.items() if k != "alpha")


def calibration_plots(name: str, cal: dict) -> dict | None:
    curves = [c for c in cal.get("curves", []) if c["grid"]]
    if not curves:
        return None
    C = cal.get("C")
    width_name = next((w for c in curves for w in [_primary(c["grid"][0]["widths"])[0]] if w), "n")
    err_series, rate_series, vlines_w, eps_lines = [], [], [], {}
    for i, c in enumerate(curves):
        color = PALETTE[i % len(PALETTE)]
        label = _label(c["point"])
        eps = c["point"].get("eps")
        grid = sorted(c["grid"], key=lambda g: g["C"])
        pts = [(n, g) for g in grid for _, n in [_primary(g["widths"])]
               if n is not None and g.get("worst_ratio") is not None]  # (its width, the grid row)
        if pts:
            tips = [f"{label}; C = {fmt(g['C'], 3)}, {width_name} = {n}: worst error / eps = "
                    f"{fmt(g['worst_ratio'], 3)} over {g['trials']} trials ({g['failures']} above eps)" for n, g in pts]
            err_series.append({"label": label, "x": [n for n, _ in pts], "y": [g["worst_ratio"] for _, g in pts],
                               "tips": tips, "line": True, "color": color})
        req = c.get("required", {}).get(width_name)
        if req is None:  # the grid's own width at the calibrated C, when it was tried
            req = next((_primary(g["widths"])[1] for g in grid if C is not None and abs(g["C"] - C) < 1e-12), None)
        if req is not None:
            vlines_w.append((req, f"required {width_name} at C = {fmt(C, 3)} ({label})", color, False))
        rates = [g["failures"] / g["trials"] for g in grid]
        ctips = [f"{label}; C = {fmt(g['C'], 3)}: {g['failures']}/{g['trials']} failures, 95% upper bound "
                 f"{fmt(g['upper'], 3)}" for g in grid]
        rate_series.append({"label": label, "x": [g["C"] for g in grid], "y": rates,
                            "tips": ctips, "color": color})
        rate_series.append({"label": f"{label}: 95% upper bound", "x": [g["C"] for g in grid],
                            "y": [g["upper"] for g in grid], "tips": ctips, "line": True, "dash": "5 3",
                            "marker": "none", "color": color, "legend": False})
        if eps is not None:
            eps_lines[eps] = (eps, f"eps = {fmt(eps, 3)}", "#555")
    error_plot = svg_plot(
        err_series, title=f"{name}: worst error against the width, at each C tried",
        xlabel=f"width {width_name}", ylabel="worst error / eps (max over trials)", xlog=True, ylog=True,
        hlines=[(1.0, "eps: the bound (ratio 1)", "#000")], vlines=vlines_w, plot_id=f"plot-{name}-width",
        legend_extra=[("vline", f"required {width_name} at the calibrated C", "#000")]
        if vlines_w else [],
        note=f"Each point: one C of the calibration grid (its width {width_name} on the x axis); the dotted lines mark "
             f"the width the theorem requires at the calibrated C = {fmt(C, 3)}. Points above the dashed line are "
             f"trials whose error exceeded eps.")
    rate_plot = svg_plot(
        rate_series, title=f"{name}: failure rate against C", xlabel="C", ylabel="failure rate", xlog=True,
        legend_extra=[("hline", "dashed: 95% upper bound of the rate", "#555")],
        hlines=list(eps_lines.values()), vlines=[(C, f"calibrated C = {fmt(C, 3)}", "#000")] if C else [],
        plot_id=f"plot-{name}-rate",
        note="Dots: observed failure rate; dashed: its one-sided 95% Clopper-Pearson upper bound. The calibrated C of "
             "a point is the smallest C whose upper bound is at most eps; the statement's C is the largest over its "
             "points. Hover for the counts.")
    return {"name": name, "C": C, "range": (cal.get("C_low"), cal.get("C_high")), "points": len(curves),
            "plots": [error_plot, rate_plot], "families": family_tables(cal), "growth": growth_table(cal)}


def growth_table(cal: dict) -> dict | None:
    """The fixed-C tests over eps the record stores for a statement (``growth``: one C, one target,
    trials proportional to 1/eps), one row per eps, with the failure model's verdict; None without them."""
    g = cal.get("growth")
    if not isinstance(g, dict) or not g.get("rows"):
        return None
    return {"caption": f"C = {fmt(g['C'], 3)} fixed, target {g['target']}, eps from {fmt(max(r['eps'] for r in g['rows']))} "
                       f"to {fmt(min(r['eps'] for r in g['rows']))} (trials proportional to 1/eps); command: "
                       f"{g.get('command', '')}",
            "rows": [[fmt(r["eps"]), f"{r['failures']}/{r['trials']}", fmt(r["rate_over_eps"], 2),
                      f"[{fmt(r['ci_over_eps'][0], 2)}, {fmt(r['ci_over_eps'][1], 2)}]", fmt(r["pvalue"], 2),
                      fmt(r["power_2eps"], 2)] for r in sorted(g["rows"], key=lambda r: -r["eps"])],
            "verdict": g.get("verdict") or "",
            "model": (f"fitted to {g['glm']['rows']} rows ({g['glm']['trials']} trials): the rows above and those at "
                      "the other C values of the calibration, so its failures need not be among the rows above"
                      if isinstance(g.get("glm"), dict) and g["glm"].get("rows") else "")}


def family_tables(cal: dict) -> list[dict]:
    """The failures per target family the record stores for a statement (``targets``: at the C the
    families ran at; ``targets_verify``: again at the calibrated C), one table each, worst first as stored."""
    ran = [(key, what, cal.get(key)) for key, what in (("targets", "target families"),
                                                       ("targets_verify", "target families again at the calibrated C"))]
    return [{"id": key, "caption": f"{what}: C = {fmt(t['C'], 3)} at {fmt(t['point'])}, {t['trials']} trials per "
             f"family on the same seeds; worst: {t['worst']}",
             "rows": [[f["family"], f"{f['failures']}/{f['trials']}", fmt(f["pvalue"], 2),
                       {True: "yes", False: "no (exceeds eps)"}.get(f.get("passed"), "-")] for f in t["families"]]}
            for key, what, t in ran if isinstance(t, dict) and t.get("families")]


def deterministic_plots(emp: dict) -> list[dict]:
    out = []
    for c in emp["checks"]:
        cases = c.get("cases") or []
        if not cases or c["kind"] == "chain":
            continue
        params = [k for k in cases[0]["parameters"] if k not in SKIP
                  and isinstance(cases[0]["parameters"][k], (int, float))
                  and len({cc["parameters"].get(k) for cc in cases}) > 1]
        plots = []
        for p in params:
            pts = sorted((cc["parameters"][p], cc["ratio"], cc) for cc in cases
                         if isinstance(cc["parameters"].get(p), (int, float)))
            tips = [f"{claims.point_text({k: v for k, v in cc['parameters'].items() if k not in SKIP})}: measured "
                    f"{fmt(cc['measured'], 4)}, bound {fmt(cc['bound'], 4)}, ratio {fmt(r, 3)}" for _, r, cc in pts]
            plots.append(svg_plot([{"label": "worst ratio found", "x": [x for x, _, _ in pts],
                                    "y": [r for _, r, _ in pts], "tips": tips, "line": True}],
                                  title=f"{c['id']}: worst ratio against {p}", xlabel=p,
                                  ylabel="worst measured / bound", ylog=True,
                                  hlines=[(1.0, "the bound (ratio 1)", "#000")], plot_id=f"plot-{c['id']}-{p}"
                                  .replace(":", "-")))
        if plots:
            out.append({"title": c["id"], "verdict": c["verdict"], "plots": plots})
    for name, sweep in emp.get("length_sweeps", {}).items():
        rows = sweep["rows"]
        series = [{"label": key, "x": [r["T"] for r in rows], "y": [r[key] / r["bound"] for r in rows], "line": True,
                   "tips": [f"T = {r['T']}: {key} {fmt(r[key], 4)}, bound {fmt(r['bound'], 4)}" for r in rows]}
                  for key in ("random", "adversarial", "lipschitz", "chain") if key in rows[0]]
        out.append({"title": f"length:{name}", "verdict": "", "plots": [svg_plot(
            series, title=f"{name}: worst over bound against the sequence length T", xlabel="T", xlog=True,
            ylabel="worst / bound", ylog=True, hlines=[(1.0, "the bound (ratio 1)", "#000")],
            plot_id=f"plot-length-{name}")]})
    return out


def render(record: dict) -> Section:
    calib = record["calibration"]["statements"]
    blocks = [b for b in (calibration_plots(name, cal) for name, cal in calib.items()) if b]
    emp = record["empirical"]
    det = deterministic_plots(emp) if emp else []
    tightness = None
    if emp and emp["tightness"]:
        rows = [{"label": f"{t['statement']}: {t['check']}", "value": t["ratio"], "group": t["statement"],
                 "tip": f"{t['check']}: worst / bound = {fmt(t['ratio'], 3)} at {fmt(t['where'])}"}
                for t in sorted(emp["tightness"], key=lambda t: -t["ratio"])]
        tightness = bar_chart(rows, title="Tightness across statements: worst observed over bound",
                              xlabel="worst observed / bound", plot_id="plot-tightness")
        probabilistic = {st["name"] for st in record["statements"] if st["probability"] is not None}
        over = sorted({t["statement"] for t in emp["tightness"] if t["ratio"] > 1 and t["statement"] in probabilistic
                       and t["check"].startswith("rate:")})
        if over:
            tightness += ("<p class=\"note\">Above 1 for " + ", ".join(over) + ": these bounds hold with probability "
                          "1 - eps, so a fraction eps of random sources may exceed them; a bar past 1 is one such "
                          "source, and the failure rate against eps (above) decides whether the statement holds.</p>")
    html = render_template("sections/evidence.html", blocks=blocks, det=det, tightness=tightness,
                           profile=record["profile"], calibration_file=record["calibration"]["file"])
    return Section("evidence", "Bound against the evidence", html,
                   f"{len(blocks)} calibrated statements, {len(det)} deterministic checks plotted")
