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


def rate_checks(rates: list[dict], statement: str) -> str:
    """Failure-rate checks of one statement as SVG: per point the observed rate, the 95% interval's upper end (what
    the data allow) and eps (what the statement allows); the counts on hover. Zero failures show as a zero under
    a finite upper end, not as an error bar."""
    numeric = [k for k in rates[0]["params"] if all(isinstance(r["params"].get(k), (int, float)) for r in rates)]
    # against the parameter that varies most over the points (eps when none does): never a "check number"
    axis = max(numeric, key=lambda k: (len({r["params"][k] for r in rates}), k == "eps")) if numeric else None
    xs = [r["params"][axis] for r in rates] if axis else list(range(1, len(rates) + 1))
    names = [", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in r["params"].items()
                       if k != "alpha") for r in rates]
    tips = [f"{n}: {r['failures']}/{r['trials']} failures (rate {r['rate']:.3g}), 95% interval "
            f"[{r['interval'][0]:.3g}, {r['interval'][1]:.3g}], eps = {r['params'].get('eps')}" for n, r in zip(names, rates)]
    series = [{"label": "observed failure rate", "x": xs, "y": [r["rate"] for r in rates], "tips": tips,
               "color": "#1f77b4"},
              {"label": "upper end of its 95% interval", "x": xs, "y": [r["interval"][1] for r in rates],
               "tips": tips, "marker": "square", "color": "#7fb3de"},
              {"label": "allowed: eps", "x": xs, "y": [r["params"].get("eps") for r in rates], "tips": tips,
               "marker": "square", "color": "#d62728"}]
    others = [k for k in numeric if k != axis and len({r["params"][k] for r in rates}) > 1]
    return svg_plot(series, title=f"{statement}: failure rate at the checked width against {axis or 'the point'}",
                    xlabel=axis or "point", ylabel="failure rate", plot_id=f"plot-rate-{statement}", zoom=False,
                    note="Points: " + "; ".join(names)
                    + (f" ({', '.join(others)} vary too: hover a point for its parameters)" if others else "")
                    + ". The statement is decided to hold at a point only when the upper end of its interval is "
                    "at most eps.")


def length_sweep(rows: list[dict], title: str, series: list[tuple]) -> str:
    """A length sweep (worst error per T, the bound, other bounds) as SVG on log-log axes."""
    dashes = {"--": "6 3", ":": "2 3", "-.": "6 2 2 2"}
    out = [{"label": label, "x": [r["T"] for r in rows], "y": [r[key] for r in rows], "line": True,
            "dash": next((d for k, d in dashes.items() if k in style), None),
            "marker": "square" if "s" in style else ("circle" if "o" in style else "none"),
            "tips": [f"T = {r['T']}: {label} {r[key]:.4g}" for r in rows]} for key, label, style in series]
    return svg_plot(out, title=title, xlabel="sequence length T", xlog=True, ylabel="error", ylog=True,
                    plot_id="plot-" + "".join(c if c.isalnum() else "-" for c in title.lower())[:60])
