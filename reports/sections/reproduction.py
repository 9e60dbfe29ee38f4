"""Report section "Reproduction": the paper's Figures 4, 5 and 6 on the angular-velocity task, our curves with
the paper's fitted curve overlaid, the fits (ours with confidence intervals, the paper's), the mixed-integer floor,
and which source initialisation reproduces the paper.

Renders the figure summaries stored in the run record (``record["figures"]``, from ``slth reproduce`` or computed
by ``slth run``); a record without them gets no reproduction section.
"""
from __future__ import annotations

import numpy as np

from reports import figure_plots  # interactive inline SVG (hover, zoom)
from reports.figures import figure, img_tag
from reports.render import Section, render_template

FIGURES = ("fig4", "fig5", "fig6")
COLORS = {"theory": "tab:blue", "xavier": "tab:orange"}
FIT_KINDS = {"log": "mean, log space", "linear": "mean, linear space", "log_median": "median, log space"}


def _ci(lo, hi, digits=3) -> str:
    return f"[{lo:.{digits}g}, {hi:.{digits}g}]"


def _yerr(rows):
    """± one standard deviation, the lower bar clipped at the smallest source's error (log axes)."""
    return [[min(r["std"], r["mean"] - r["min"]) for r in rows], [r["std"] for r in rows]]


def _rows(payload, init, solver="exact"):
    return [r for r in payload["summary"] if r["init"] == init and r["solver"] == solver]


def _finish(fig, ax, xlabel, ylabel, title, alt):
    """Log error axis, labels, legend; the figure as an embedded <img>."""
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    return img_tag(fig, alt)


def _fig4_plot(p):
    fig, ax = figure()
    n_max = max(r["n"] for r in p["summary"])
    grid = np.linspace(0, n_max, 200)
    for init in ("theory", "xavier"):
        rows = _rows(p, init)
        n = np.array([r["n"] for r in rows])
        m = np.array([r["mean"] for r in rows])
        ax.errorbar(n, m, yerr=_yerr(rows), fmt="o-", ms=3, lw=1, capsize=2, color=COLORS[init], label=f"ours, {init} init")
        if "median" in rows[0]:
            ax.plot(n, [r["median"] for r in rows], ":", lw=1.2, color=COLORS[init], label=f"ours, {init} init, median")
        fit = p["fits"].get(init, {}).get("log", {})
        if "gamma" in fit:
            used = np.linspace(min(fit["n_used"]), max(fit["n_used"]), 50)
            ax.plot(used, fit["gamma"] * np.exp(-fit["delta"] * used), "--", color=COLORS[init], lw=1,
                    label=f"our log fit ({init}): {fit['gamma']:.2g} exp(-{fit['delta']:.3g} n)")
    mip = p.get("mip", {})
    for init in ("theory", "xavier"):
        rows = [r for r in mip.get("summary", []) if r["init"] == init]
        if rows:
            ax.plot([r["n"] for r in rows], [r["mean"] for r in rows], "s", ms=7, mfc="none", color=COLORS[init],
                    label=f"mixed-integer ({mip['backend']}), {init}, mean")
            ax.plot([r["n"] for r in rows], [r["median"] for r in rows], "x", ms=7, color=COLORS[init],
                    label=f"mixed-integer ({mip['backend']}), {init}, median")
    paper = p["paper"]
    ax.plot(grid, paper["gamma"] * np.exp(-paper["delta"] * grid), "k-", lw=1.5, label="paper: 0.8 exp(-0.06 n)")
    ax.axhline(p["fit_floor"], color="gray", lw=0.8, ls=":", label=f"fit floor {p['fit_floor']:g}")
    return _finish(fig, ax, "source hidden dimension n = n_K = n_V",
                   "error (mean ± sd over sources, lower bar clipped at the min)", "Figure 4: MHA, T = 4",
                   "Figure 4 reproduction: error against hidden dimension")


def _fig5_plot(p):
    fig, ax = figure()
    for init in ("theory", "xavier"):
        for n, style in zip(sorted({r["n"] for r in p["summary"]}), ("o-", "s--")):
            rows = [r for r in _rows(p, init) if r["n"] == n]
            ax.errorbar([r["T"] for r in rows], [r["mean"] for r in rows], yerr=_yerr(rows), fmt=style,
                        ms=3, lw=1, capsize=2, color=COLORS[init], label=f"{init} init, n = {n}")
    ax.set_xscale("log", base=2)
    return _finish(fig, ax, "input length T", "error (mean ± sd over sources)",
                   "Figure 5: MHA, error against input length", "Figure 5 reproduction: error against input length")


def _fig6_plot(p, init):
    fig, ax = figure()
    rows = _rows(p, init)
    n = np.array([r["n"] for r in rows])
    means = np.array([r["mean"] for r in rows]).T
    stds = np.array([r["std"] for r in rows]).T
    lows = np.minimum(stds, means - np.array([r["min"] for r in rows]).T)
    fits = p["fits"].get(init, {}).get("log")
    for b, (m, s, low) in enumerate(zip(means, stds, lows)):
        line = ax.errorbar(n, m, yerr=[low, s], fmt="o-", ms=3, lw=1, capsize=2, label=f"{b + 1} block{'s' if b else ''}")
        if isinstance(fits, list) and b < len(fits):
            f = fits[b]
            used = np.linspace(min(f["n_used"]), max(f["n_used"]), 50)
            ax.plot(used, f["gamma"] * np.exp(-f["delta"] * used), "--", lw=1, color=line[0].get_color())
    ax.axvspan(100, 225, color="0.92", zorder=0, label="the paper's range")
    return _finish(fig, ax, "source hidden dimension n = n_MHA = n_FC", "error after block b (mean ± sd)",
                   f"Figure 6: transformer, {init} init (dashed: shared-delta log fit)",
                   f"Figure 6 reproduction, {init} initialisation")


def _timing(p) -> str:
    return (f"sweep compute time {p['compute_s']:.0f} s (the sum over its items, in whichever runs they were computed; "
            f"the run that wrote this summary took {p['wall_s']:.0f} s)")


def _mip_rows(p4) -> list[dict]:
    mip = p4.get("mip") or {}
    if not mip or "error" in mip:
        return []
    exact = {(r["init"], r["n"]): r for r in mip["exact_same_sources"]}
    qk_exact = {(r["init"], r["n"]): r for r in mip["exact_qk_same_sources"]}
    missing = {"mean": float("nan"), "median": float("nan")}
    rows = []
    for r, q, v in zip(mip["summary"], mip["qk_entry_error"], mip["vo_entry_error"]):
        e = exact.get((r["init"], r["n"]), missing)
        qe = qk_exact.get((r["init"], r["n"]), missing)
        rows.append({**r, "exact_mean": e["mean"], "exact_median": e["median"], "qk": q["mean"], "qk_exact": qe["mean"],
                     "vo": v["mean"]})
    return rows


def _fig6_rows(p6) -> list[dict]:
    rows = []
    for init, by_space in p6["fits"].items():
        for space in FIT_KINDS:
            fits = by_space[space]
            label = f"{init}, {FIT_KINDS[space]}"
            rows.append({"label": label, "error": fits.get("error")} if isinstance(fits, dict)
                        else {"label": label, "fits": fits})
    return rows


def render(record: dict) -> Section | None:
    figures = record.get("figures") or {}
    if not all(f in figures for f in FIGURES):
        return None
    payloads = {f: figures[f]["payload"] for f in FIGURES}
    sources = {f: figures[f]["source"] for f in FIGURES}
    p4, p5, p6 = (payloads[f] for f in FIGURES)
    # The verdict and the findings are decided by slt.figures and stored in the summaries; rendered here.
    verdict = p4.get("verdict") or {}
    verdict_lines = verdict.get("lines", [])
    reproducing = verdict.get("reproducing", [])
    findings = [line for p in (p4, p5, p6) for line in p.get("findings", [])]
    target = p4["target"]
    plots = {"fig4": figure_plots.fig4(p4), "fig5": figure_plots.fig5(p5), "fig6_theory": figure_plots.fig6(p6, "theory"),
             "fig6_xavier": figure_plots.fig6(p6, "xavier")}
    html_text = render_template(
        "sections/reproduction.html", p4=p4, p5=p5, p6=p6, sources=sources, findings=findings, target=target,
        not_learned=target.get("val_mse", 0) > 0.95 * target.get("baseline_mse", 0), nan=float("nan"),
        timing4=_timing(p4), timing5=_timing(p5), timing6=_timing(p6), plots=plots, verdict_lines=verdict_lines,
        reproducing=reproducing, mip=p4.get("mip"), mip_rows=_mip_rows(p4), fig6_rows=_fig6_rows(p6))
    summary = (f"Fig. 4 decays exponentially with the {', '.join(reproducing) or 'no'} initialisation; "
               + "; ".join(verdict_lines))
    return Section("reproduction", "Reproduction of Figures 4, 5 and 6", html_text, summary)
