"""Report section "Figures 7-8": edge-popup tickets of a small GPT-2 with the query/key weights scaled by s.

Renders the summaries of ``slth reproduce fig7`` / ``fig8`` stored in the run record (``record["figures"]``; the
verdicts are decided by ``slt.gpt2.figures`` and stored there): validation-loss curves with and without the
n_K^{1/4} scaling, the final loss against s per width with n_K^{1/4} marked, the tables and the verdicts. A record
without either summary gets no section.
"""
from __future__ import annotations

import base64
import html
import io

from reports.render import Section, render_template


def _figure():
    """A new Agg figure and axes, independent of any interactive backend."""
    import matplotlib  # late: 0.6 s of start-up (measured), paid only by a report with PNG figures

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(6.4, 4.0), dpi=110)


def _img(fig, ax, xlabel: str, ylabel: str, title: str, alt: str) -> str:
    """``fig`` with its labels, title and legend, rendered to PNG (then closed) as an ``<img>`` with a base64 data
    URI: no network needed to view it."""
    import matplotlib.pyplot as plt

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    uri = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{html.escape(alt, quote=True)}" src="{uri}">'


def _fig7_plot(payload):
    fig, ax = _figure()
    for w, color in zip(payload["summary"], ("tab:blue", "tab:orange", "tab:green")):
        for r in w["scales"]:
            if r["s"] != 1.0 and not r["theory"]:
                continue
            epochs = list(range(len(r["curve_mean"])))
            lo = [m - s for m, s in zip(r["curve_mean"], r["curve_std"])]
            hi = [m + s for m, s in zip(r["curve_mean"], r["curve_std"])]
            style = "-" if r["theory"] else "--"
            label = f"n_K = {w['n_K']}, s = {'n_K^1/4 = %.3g' % r['s'] if r['theory'] else '1'}"
            ax.plot(epochs, r["curve_mean"], style, color=color, lw=1.2, label=label)
            ax.fill_between(epochs, lo, hi, color=color, alpha=0.15)
    return _img(fig, ax, "epoch", "validation loss (nats per byte)", "Fig. 7 (ours): mean over seeds, band ±1 std",
                "Figure 7 reproduction: validation loss curves with and without the n_K^1/4 scaling")


def _fig8_plot(payload):
    fig, ax = _figure()
    for w, color in zip(payload["summary"], ("tab:blue", "tab:orange", "tab:green")):
        s = [r["s"] for r in w["scales"]]
        ax.errorbar(s, [r["mean"] for r in w["scales"]], yerr=[r["std"] for r in w["scales"]], fmt="o-", ms=3,
                    lw=1, capsize=2, color=color, label=f"n_K = {w['n_K']}")
        ax.axvline(w["theory_scale"], color=color, ls=":", lw=1)
    return _img(fig, ax, "query/key scale s (dotted: n_K^1/4)", "final validation loss (nats per byte)",
                "Fig. 8 (ours): mean ± std over seeds",
                "Figure 8 reproduction: final validation loss against the query/key scale")


#: The GPT-2 figures, in the order the section shows them.
GPT2_FIGURES = ("fig7", "fig8", "fig8-replication", "fig8-confirmation")


def render(record: dict) -> Section | None:
    figures = record.get("figures") or {}
    entries = {name: figures[name] for name in GPT2_FIGURES if name in figures}
    if not entries:
        return None
    blocks = [{"name": name, "p": p, "source": entry["source"],
               "diff_conf": f"{100 * (1 - p['alpha']):.4g}%" if "alpha" in p else "paired",
               "rule": p.get("rule_text", ""), "plot": (_fig7_plot if name == "fig7" else _fig8_plot)(p)}
              for name, entry in entries.items() for p in [entry["payload"]]]
    plan = next(iter(entries.values()))["payload"]["plan"]
    html = render_template("sections/gpt2.html", blocks=blocks, plan=plan)
    summary = "; ".join(f"{b['name']}: " + ", ".join(f"n_K = {w['n_K']} {w['verdict']}" for w in b["p"]["summary"])
                        for b in blocks)
    return Section("gpt2", "Figures 7-8: query/key scaling of GPT-2 tickets", html, summary)
