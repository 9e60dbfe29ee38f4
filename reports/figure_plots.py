"""The reproduction figures (Figures 4, 5, 6) as interactive inline SVG (``reports.plots``): values on hover,
wheel zoom and drag on each plot. Renders the figure summaries stored in the run record; measures nothing."""
from __future__ import annotations

import math

from reports.plots import PALETTE, svg_plot

COLORS = {"theory": "#1f77b4", "xavier": "#ff7f0e"}


def _rows(payload, init, solver="exact"):
    return [r for r in payload["summary"] if r["init"] == init and r["solver"] == solver]


def _bars(rows, i=None):
    pick = (lambda r, k: r[k]) if i is None else (lambda r, k: r[k][i])
    lo = [pick(r, "mean") - min(pick(r, "std"), pick(r, "mean") - pick(r, "min")) for r in rows]
    hi = [pick(r, "mean") + pick(r, "std") for r in rows]
    return lo, hi


def _curve(gamma, delta, lo, hi, k=40):
    xs = [lo + (hi - lo) * j / (k - 1) for j in range(k)]
    return xs, [gamma * math.exp(-delta * x) for x in xs]


def fig4(p) -> str:
    series = []
    for init in ("theory", "xavier"):
        rows = _rows(p, init)
        if not rows:
            continue
        lo, hi = _bars(rows)
        series.append({"label": f"ours, {init} init: mean ± sd", "x": [r["n"] for r in rows],
                       "y": [r["mean"] for r in rows], "lo": lo, "hi": hi, "line": True, "color": COLORS[init],
                       "tips": [f"{init}, n = {r['n']}: mean {r['mean']:.3g}, sd {r['std']:.2g}, min {r['min']:.2g}"
                                + (f", median {r['median']:.3g}" if "median" in r else "") for r in rows]})
        if "median" in rows[0]:
            series.append({"label": f"ours, {init} init: median", "x": [r["n"] for r in rows],
                           "y": [r["median"] for r in rows], "line": True, "dash": "2 3", "marker": "square",
                           "color": COLORS[init]})
        fit = p.get("fits", {}).get(init, {}).get("log", {})
        if "gamma" in fit:
            xs, ys = _curve(fit["gamma"], fit["delta"], min(fit["n_used"]), max(fit["n_used"]))
            series.append({"label": f"our log fit ({init}): {fit['gamma']:.2g} exp({-fit['delta']:+.3g} n)", "x": xs,
                           "y": ys, "line": True, "dash": "6 3", "marker": "none", "color": COLORS[init]})
    for init in ("theory", "xavier"):
        rows = [r for r in (p.get("mip") or {}).get("summary", []) if r["init"] == init]
        if rows:
            series.append({"label": f"mixed-integer ({p['mip']['backend']}), {init}: mean", "x": [r["n"] for r in rows],
                           "y": [r["mean"] for r in rows], "marker": "square", "color": "#555"})
    paper = p["paper"]
    n_max = max(r["n"] for r in p["summary"])
    xs, ys = _curve(paper["gamma"], paper["delta"], 0, n_max)
    series.append({"label": f"paper: {paper['gamma']} exp(-{paper['delta']} n)", "x": xs, "y": ys, "line": True,
                   "marker": "none", "color": "#000"})
    return svg_plot(series, title="Figure 4: MHA, error against hidden dimension (T = 4)",
                    xlabel="source hidden dimension n = n_K = n_V", ylabel="error", ylog=True,
                    hlines=[(p["fit_floor"], f"fit floor {p['fit_floor']:g}", "#999")], plot_id="plot-fig4",
                    note="Bars: ± one standard deviation over sources (the lower bar clipped at the smallest source's "
                         "error). Hover for values; wheel to zoom, drag to pan, double click to reset.")


def fig5(p) -> str:
    series = []
    for init in ("theory", "xavier"):
        for n in sorted({r["n"] for r in p["summary"]}):
            rows = [r for r in _rows(p, init) if r["n"] == n]
            if not rows:
                continue
            lo, hi = _bars(rows)
            series.append({"label": f"{init} init, n = {n}", "x": [r["T"] for r in rows],
                           "y": [r["mean"] for r in rows], "lo": lo, "hi": hi, "line": True,
                           "tips": [f"{init}, n = {n}, T = {r['T']}: mean {r['mean']:.3g}, sd {r['std']:.2g}"
                                    for r in rows]})
    return svg_plot(series, title="Figure 5: MHA, error against input length", xlabel="input length T", xlog=True,
                    ylabel="error (mean ± sd over sources)", ylog=True, plot_id="plot-fig5")


def fig6(p, init) -> str:
    rows = _rows(p, init)
    series = []
    if rows:
        blocks = len(rows[0]["mean"])
        fits = p.get("fits", {}).get(init, {}).get("log")
        for b in range(blocks):
            lo, hi = _bars(rows, b)
            series.append({"label": f"{b + 1} block{'s' if b else ''}", "x": [r["n"] for r in rows],
                           "y": [r["mean"][b] for r in rows], "lo": lo, "hi": hi, "line": True,
                           "color": PALETTE[b % len(PALETTE)],
                           "tips": [f"{init}, block {b + 1}, n = {r['n']}: mean {r['mean'][b]:.3g}, sd {r['std'][b]:.2g}"
                                    for r in rows]})
            if isinstance(fits, list) and b < len(fits) and "gamma" in fits[b]:
                f = fits[b]
                xs, ys = _curve(f["gamma"], f["delta"], min(f["n_used"]), max(f["n_used"]))
                series.append({"label": f"fit, block {b + 1}", "x": xs, "y": ys, "line": True, "dash": "6 3",
                               "marker": "none", "color": PALETTE[b % len(PALETTE)]})
    return svg_plot(series, title=f"Figure 6: transformer, {init} init (dashed: shared-delta log fit)",
                    xlabel="source hidden dimension n = n_MHA = n_FC", ylabel="error after block b (mean ± sd)",
                    ylog=True, vlines=[(100, "the paper's range: 100", "#999"), (225, "to 225", "#999")],
                    plot_id=f"plot-fig6-{init}")
