"""Report section "Proof steps": every step of every encoded proof with the strongest method that verified it,
its domain and margin, the printed variants and where they break, the mutation suite and, when the record holds
it, the slack of every proof constant (from the record)."""
from __future__ import annotations

from reports.render import Section, render_template

METHODS = {
    "symbolic": "proved by SymPy",
    "interval": "certificate by mpmath interval arithmetic (on the whole domain unless a box is stated), re-checked "
                "by Arb",
    "sampled": "evidence only: seeded high-precision sampling",
}


def render(record: dict) -> Section:
    steps = record["steps"]
    facts = [s for s in steps if not s["supported"] or s["statement"] == "facts"]
    proof = [s for s in steps if s not in facts]
    counts = {m: sum(s["ok"] and s["method"] == m for s in steps) for m in METHODS}
    failed = sum(not s["ok"] for s in steps)
    mutations = record["mutations"]
    html = render_template("sections/proofs.html", methods=METHODS, counts=counts, failed=failed, facts=facts,
                           steps=proof, variants=record["variants"], mutations=mutations, profile=record["profile"],
                           caught=sum(m["verdict"] == "caught" for m in mutations or []),
                           slack=record.get("slack"), arb_counts={a: sum((s.get("arb") or "").split(":")[0] == a
                                                                          for s in steps) for a in ("yes", "no", "failed")})
    summary = (f"{len(steps)} steps: {counts['symbolic']} symbolic, {counts['interval']} interval, "
               f"{counts['sampled']} sampled, {failed} failed")
    return Section(id="proofs", title="Proof steps", html=html, summary=summary)
