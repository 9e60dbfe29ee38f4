"""Report section "Proof steps": every step of every encoded proof with the strongest method that verified it,
the printed variants and where they break, and the mutation suite (the same calls as `slth proofs`)."""
from __future__ import annotations

import html

from reports.build import Context, Section
from reports.sections.statements import mathml

_METHOD_NOTE = {
    "symbolic": "proved by SymPy",
    "interval": "certificate by mpmath interval arithmetic on the stated box",
    "sampled": "evidence only: seeded high-precision sampling",
}


def _cex(cex: dict | None) -> str:
    if not cex:
        return ""
    return ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}" for k, v in cex.items())


def _status(ok: bool) -> str:
    return '<span class="pass">ok</span>' if ok else '<span class="fail">FAILED</span>'


def _evidence(r) -> str:
    if not r.ok:
        return "counterexample: " + html.escape(_cex(r.counterexample) or r.detail)
    text = html.escape(r.detail)
    if r.method != "symbolic" and r.box:
        text += "<br>box: " + html.escape("; ".join(r.box.values()))
    return text


def step_table(steps_by_statement: dict, results: list) -> str:
    by_key = {(r.statement, r.step): r for r in results}
    rows = []
    for name, steps in steps_by_statement.items():
        for s in steps:
            r = by_key[(name, s.name)]
            inequality = mathml(s.lhs) + " &le; " + mathml(s.rhs) if _small(s) else "<i>(large; see bounds/)</i>"
            rows.append(
                f"<tr><td>{name}</td><td>{html.escape(s.name)}</td><td>{html.escape(s.note)}<br>{inequality}</td>"
                f"<td>{html.escape(', '.join(map(str, s.relies_on)))}</td><td>{r.method}</td><td>{_status(r.ok)}</td>"
                f"<td>{_evidence(r)}</td></tr>")
    return ("<table><tr><th>statement</th><th>step</th><th>inequality</th><th>relies on</th><th>method</th>"
            f"<th>status</th><th>box / counterexample</th></tr>{''.join(rows)}</table>")


def _small(step) -> bool:
    import sympy as sp

    return sp.count_ops(step.lhs) + sp.count_ops(step.rhs) <= 60


def variants_table() -> str:
    import bounds
    from bounds.mutations import catalogue_with, verify_all

    rows = []
    for st in (bounds.get(n) for n in bounds.names()):
        for v in st.variants.values():
            broken = [r for r in verify_all(v.apply(catalogue_with())) if not r.ok]
            got = {(r.statement, r.step) for r in broken}
            verdict = ('<span class="pass">breaks exactly the declared steps</span>' if got == set(v.breaks)
                       else f'<span class="fail">expected {html.escape(str(sorted(v.breaks)))}</span>')
            found = "<br>".join(f"{r.statement}:{r.step} ({r.method}) {html.escape(_cex(r.counterexample))}"
                                for r in broken) or "nothing breaks"
            rows.append(f"<tr><td>{st.name}:{v.name}</td><td>{html.escape(v.description)}</td><td>{found}</td>"
                        f"<td>{verdict}</td></tr>")
    return ("<h3>Printed variants (the readings the proofs do not support)</h3>"
            "<table><tr><th>variant</th><th>reading</th><th>failing steps with counterexample</th><th>verdict</th></tr>"
            f"{''.join(rows)}</table>")


def mutations_table() -> str:
    from bounds.mutations import MUTATIONS, run

    rows, survived = [], 0
    for m in MUTATIONS:
        caught = run(m)
        survived += not caught
        by = "<br>".join(f"{r.statement}:{r.step}" for r in caught) or '<span class="fail">SURVIVED</span>'
        cex = html.escape(_cex(caught[0].counterexample)) if caught else ""
        rows.append(f"<tr><td>{html.escape(m.name)}</td><td>{by}</td><td>{cex}</td></tr>")
    return (f"<h3>Mutation suite: {len(MUTATIONS) - survived} of {len(MUTATIONS)} deliberate edits caught</h3>"
            "<p>Each mutation edits one constant or exponent of the encoded statements or proof constants; "
            "a mutation is caught when some step of some proof fails.</p>"
            "<table><tr><th>mutation</th><th>caught by</th><th>counterexample</th></tr>"
            f"{''.join(rows)}</table>")


def render(ctx: Context) -> Section:
    import bounds
    from bounds.mutations import PROVED

    steps = {name: bounds.get(name).proof for name in PROVED}
    results = bounds.verify_facts() + [r for name in PROVED for r in bounds.verify(name)]
    facts = [r for r in results if r.statement not in steps]
    counts = {m: sum(r.ok and r.method == m for r in results) for m in _METHOD_NOTE}
    failed = sum(not r.ok for r in results)
    intro = ("<p>Methods: " + "; ".join(f"<b>{m}</b>: {note} ({counts[m]} steps)" for m, note in _METHOD_NOTE.items())
             + f". <b>{failed}</b> step(s) FAILED. Each step reports the strongest method that succeeded. "
             "Re-run with <code>slth proofs --variants --mutations --boxes</code>.</p>")
    fact_rows = "".join(f"<tr><td>{html.escape(r.step)}</td><td>{r.method}</td><td>{_status(r.ok)}</td>"
                        f"<td>{_evidence(r)}</td></tr>" for r in facts)
    body = [intro, "<h3>Elementary facts</h3><table><tr><th>fact</th><th>method</th><th>status</th><th>box</th></tr>"
            f"{fact_rows}</table>", "<h3>Proof steps of the supported forms</h3>", step_table(steps, results),
            variants_table(), mutations_table()]
    summary = (f"{len(results)} steps: {counts['symbolic']} symbolic, {counts['interval']} interval, "
               f"{counts['sampled']} sampled, {failed} failed")
    return Section(id="proofs", title="Proof steps", html="\n".join(body), summary=summary)
