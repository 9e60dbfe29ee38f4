"""Report section "The regression token, read two ways": Figures 4 and 5 with Appendix B.1's regression token as
a constant zero vector (``fig4``, ``fig5``) and as a learned vector trained with the target (``fig4-learned-token``,
``fig5-learned-token``), side by side: does the target learn the task, and do the Fig. 4 fits and the Fig. 5
length trends hold under both readings?

Reads the summaries in ``record["figures"]`` (the learned-token ones are written by ``slth reproduce
fig4-learned-token`` / ``fig5-learned-token``); the training statement of each reading is decided by
``slt.figures.token.training_finding`` when the record is built (``payload["training"]``). A record without a learned-token summary gets no
section.
"""
from __future__ import annotations

from reports.render import Section, render_template


def _reading(entry, figure):
    p = entry["payload"]
    training = p.get("training") or {"verdict": {"learns": None}, "line": "The target's training is not decided in "
                                     "this record."}
    verdict, line = training["verdict"], training["line"]
    fits = (p.get("fits") or {}).get("theory", {})
    return {"figure": figure, "quick": p.get("quick"), "source": entry["source"], "training": line,
            "learns": verdict.get("learns"), "fits": [(k, fits[k]) for k in ("log_median", "log", "linear") if k in fits],
            "trend": [t for t in p.get("length_trend", []) if t["init"] == "theory"],
            "findings": [f for f in p.get("findings", []) if not f.startswith("Target training")]}


def render(record: dict) -> Section | None:
    figures = record.get("figures") or {}
    rows = [{"base": base, "readings": [_reading(figures[name], name) for name in (base, f"{base}-learned-token")
                                        if name in figures]}
            for base in ("fig4", "fig5") if f"{base}-learned-token" in figures]
    if not rows:
        return None
    html = render_template("sections/token.html", rows=rows)
    learns = {r["figure"]: r["learns"] for row in rows for r in row["readings"]}
    summary = ", ".join(f"{k}: target {'learns' if v else 'does not learn' if v is False else 'untrained'}"
                        for k, v in learns.items())
    return Section("regression-token", "The regression token, read two ways (Figures 4-5)", html, summary)
