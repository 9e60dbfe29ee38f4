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


VERDICTS = ("certified", "refuted", "not proved")


def step_verdict(step: dict) -> str:
    """The step's verdict (certified / refuted / not proved). A record written before verdicts were three-valued
    says "ok" / "FAILED": ok counts as certified only on the whole domain by symbolic or interval methods, a
    failure as refuted only with a counterexample; anything else is not proved."""
    v = step.get("verdict")
    if v in VERDICTS:
        return v
    if step.get("ok"):
        whole = step.get("domain") == "whole" and step.get("method") in ("symbolic", "interval")
        return "certified" if whole else "not proved"
    return "refuted" if step.get("counterexample") else "not proved"


def render(record: dict) -> Section:
    steps = [{**s, "verdict": step_verdict(s)} for s in record["steps"]]
    facts = [s for s in steps if not s["supported"] or s["statement"] == "facts"]
    proof = [s for s in steps if s not in facts]
    counts = {m: sum(s["verdict"] == "certified" and s["method"] == m for s in steps) for m in METHODS}
    verdicts = {v: sum(s["verdict"] == v for s in steps) for v in VERDICTS}
    failed = verdicts["refuted"]
    mutations = record["mutations"]
    html = render_template("sections/proofs.html", methods=METHODS, counts=counts, failed=failed, facts=facts,
                           verdicts=verdicts, steps=proof, identities=sum(
                               s["verdict"] == "certified" and s.get("kind") == "identity" for s in steps), variants=record["variants"], mutations=mutations, profile=record["profile"],
                           caught=sum(m["verdict"] == "caught" for m in mutations or []),
                           slack=record.get("slack"), arb_counts={a: sum((s.get("arb") or "").split(":")[0] == a
                                                                          for s in steps) for a in ("yes", "no", "failed")},
                           coq_counts={"kernel": sum((s.get("coq") or "").startswith("kernel-checked") for s in steps),
                                       "total": len(steps)})
    identities = sum(s["verdict"] == "certified" and s.get("kind") == "identity" for s in steps)
    summary = (f"{len(steps)} steps: {verdicts['certified']} certified ({counts['symbolic']} symbolic, "
               f"{counts['interval']} interval"
               + (f"; {verdicts['certified'] - identities} inequalities, {identities} identities" if any(
                   "kind" in s for s in steps) else "")
               + f"), {verdicts['refuted']} refuted, {verdicts['not proved']} not proved")
    return Section(id="proofs", title="Proof steps", html=html, summary=summary)
