"""Report section "Findings", first on the page: the count banner (statements certified / refuted / not proved;
empirical holds / fails / undecided at this power) and the findings as plain sentences, each with its
counterexample as a small table, the test that reproduces it and a link to its evidence. Everything is decided by
``slt.measure.findings`` and stored in the run record (``record["findings"]``); this module renders it."""
from __future__ import annotations

from reports.render import Section, empirical_source, render_template


def render(record: dict) -> Section:
    found = record.get("findings")
    labels = {s["name"]: (s["numbering"].get("appendix") or s["name"]) for s in record["statements"]}
    html = render_template("sections/findings.html", findings=found, labels=labels, profile=record["profile"],
                           source=empirical_source(record))
    if not found:
        return Section("findings", "Findings", html, "not decided in this record")
    p = found["banner"]["proofs"]["counts"]
    summary = (f"{p['certified']} statements certified, {len(found['banner']['printed_refuted'])} printed "
               f"statement(s) refuted, {p['not proved']} not proved; {len(found['items'])} findings")
    return Section("findings", "Findings", html, summary)
