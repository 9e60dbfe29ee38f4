"""Report section "Proof steps": every step of every encoded proof with the strongest method that verified it,
its domain and margin, the premises (proved in Coq or assumed: the record's ``formalization``), the printed
variants and where they break, the mutation suite and, when the record holds it, the slack of every proof constant
(from the record)."""
from __future__ import annotations

from slt import claims as claim
from reports.proofmap import fact_anchor, premise_anchor
from reports.render import Section, render_template

METHODS = {
    "symbolic": "proved by SymPy",
    "interval": "certificate by mpmath interval arithmetic (on the whole declared domain unless a box is stated), re-checked "
                "by Arb",
    "sampled": "evidence only: seeded high-precision sampling",
}


VERDICTS = ("certified", "refuted", "not proved")


def render(record: dict) -> Section:
    steps = [{**s, "verdict": claim.step_word(s)} for s in record["steps"]]
    facts = [s for s in steps if not s["supported"] or s["statement"] == "facts"]
    proof = [s for s in steps if s not in facts]
    counts = {m: sum(s["verdict"] == "certified" and s["method"] == m for s in steps) for m in METHODS}
    verdicts = {v: sum(s["verdict"] == v for s in steps) for v in VERDICTS}
    mutations = record["mutations"]
    labels = {st["name"]: claim.label(record, st["name"]) for st in record["statements"]}
    words = claim.proof_verdicts(record)
    groups = [g for g in ({"name": n, "label": labels[n], "word": words[n],
                           "steps": [s for s in proof if s["statement"] == n]} for n in labels) if g["steps"]]
    fact_names = {s["step"] for s in facts}
    structural = sorted({r for s in proof for r in s.get("relies_on") or () if r not in labels and r not in fact_names})
    formal = record.get("formalization") or {"statements": {}, "premises": {}, "line": None}
    cited_by = {p: [labels[n] for n in labels if p in formal["statements"].get(n, {}).get("cites", ())
                    or p in (formal["statements"].get(n, {}).get("rests_on") or ())] for p in formal["premises"]}
    items = (record.get("findings") or {}).get("items") or []
    html = render_template(
        "sections/proofs.html", methods=METHODS, premises=formal["premises"], premise_anchor=premise_anchor,
        cited_by=cited_by, formal_line=formal["line"], counts=counts, failed=verdicts["refuted"], facts=facts,
        verdicts=verdicts, steps=proof, groups=groups, labels=labels, structural=structural, anchor=fact_anchor,
        identities=sum(s["verdict"] == "certified" and s.get("kind") == "identity" for s in steps),
        variants=record["variants"], mutations=mutations, profile=record["profile"],
        caught=sum(m["verdict"] == "caught" for m in mutations or []), slack=record.get("slack"),
        arb_counts={a: sum((s.get("arb") or "").split(":")[0] == a for s in steps) for a in ("yes", "no", "failed")},
        coq_counts={"kernel": sum((s.get("coq") or "").startswith("kernel-checked") for s in steps),
                    "pre": sum(s.get("first_pass", "pre-checked" if s.get("ok") else "") == "pre-checked"
                               for s in steps)},
        kernel_source=claim.kernel_source(record),
        read_with={f["evidence"].lstrip("#"): (f["id"], i) for i, f in enumerate(items, 1)
                   if str(f.get("evidence", "")).startswith("#variant-")},
        reachable={f["evidence"].lstrip("#"): f["reachable"] for f in items if f.get("reachable")})
    return Section(id="proofs", title="Proof steps", html=html, summary=claim.step_sentence(record))
