"""Report section "Reproduction": the paper's Figures 4, 5 and 6 on the angular-velocity task, our curves with
the paper's fitted curve overlaid, the fits (ours with confidence intervals, the paper's), the mixed-integer floor,
and which source initialisation reproduces the paper.

Renders the figure summaries stored in the run record (``record["figures"]``, from ``slth reproduce`` or computed
by ``slth run``); a record without them gets no reproduction section.
"""
from __future__ import annotations

from reports import figure_plots  # interactive inline SVG (hover, zoom)
from reports.render import Section, render_template

FIGURES = ("fig4", "fig5", "fig6")
FIT_KINDS = {"log": "mean, log space", "linear": "mean, linear space", "log_median": "median, log space"}


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
    return [{**r, "exact_mean": e["mean"], "exact_median": e["median"], "qk": q["mean"], "qk_exact": qe["mean"],
             "vo": v["mean"]} for r, q, v in zip(mip["summary"], mip["qk_entry_error"], mip["vo_entry_error"])
            for e, qe in [(exact.get((r["init"], r["n"]), missing), qk_exact.get((r["init"], r["n"]), missing))]]


def _fig6_rows(p6) -> list[dict]:
    return [{"label": f"{init}, {kind}", **({"error": fits.get("error")} if isinstance(fits, dict) else {"fits": fits})}
            for init, by_space in p6["fits"].items() for space, kind in FIT_KINDS.items() for fits in [by_space[space]]]


def render(record: dict) -> Section | None:
    figures = record.get("figures") or {}
    if not all(f in figures for f in FIGURES):
        return None
    sources = {f: figures[f]["source"] for f in FIGURES}
    p4, p5, p6 = (figures[f]["payload"] for f in FIGURES)
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
