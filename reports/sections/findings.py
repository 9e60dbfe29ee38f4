"""Report section "Findings", first on the page: the count banner (statements certified / refuted / not proved /
cited; empirical holds / fails / undecided at this power), the proof map (``reports.proofmap``) and the findings
as plain sentences, each with its counterexample as a small table, the test that reproduces it and a link to its
evidence. Every count and verdict sentence comes from ``slt.claims`` (the one function per claim the rest
of the page uses too); the findings are decided by ``slt.measure.findings`` and stored in the run record
(``record["findings"]``); this module renders them."""
from __future__ import annotations

from slt import claims as claim
from reports import proofmap
from reports.render import Section, empirical_source, render_template


def banner(record: dict) -> dict:
    """The banner's sentences (``slt.claims``)."""
    return {"proofs": claim.proof_sentence(record), "empirical": claim.empirical_sentence(record),
            "empirical_measured": record.get("empirical") is not None,
            "printed": [claim.reading_words(record, k) for k in claim.printed_refuted(record)]}


def render(record: dict) -> Section:
    found = record.get("findings")
    labels = {s["name"]: claim.label(record, s["name"]) for s in record["statements"]}
    html = render_template("sections/findings.html", findings=found, labels=labels, profile=record["profile"],
                           groups=claim.findings_by_about(record),
                           source=empirical_source(record), claims=banner(record),
                           proof_map=proofmap.svg(proofmap.graph(record, claim.proof_verdicts(record))))
    summary = (f"proofs: {claim.proof_sentence(record)}; empirical: {claim.empirical_sentence(record)}"
               + (f"; {len(found['items'])} findings" if found else ""))  # the banner's sentences
    return Section("findings", "Findings", html, summary)
