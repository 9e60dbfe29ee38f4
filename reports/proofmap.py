"""The proof map at the top of the report: what is proved and what rests on what, in one picture.

Nodes are the statements (coloured by their proof verdict: certified, refuted, not proved, or cited: a result the
paper cites and the harness does not prove), the scalar facts the proofs use (verified like a step) and the
structural facts they assume (cited); an edge runs from a statement to everything its proof steps rely on (each
step's ``relies_on`` in the record). Every node links to where the page shows it. The layout: one row per layer, a
statement one row above the highest thing it relies on, each row in the record's order (statements in the paper's
order, facts in the order the proofs first use them), so two renders of one record draw one picture. The picture is
inline SVG, so the page stays one offline file with no external program (docs/dependencies.md says why not
Graphviz).
"""
from __future__ import annotations

import html
import re

import networkx as nx

from slt import claims

__all__ = ["graph", "svg", "COLOURS", "fact_anchor"]

COLOURS = {"certified": ("#d7f0dc", "#17662a"), "refuted": ("#fadadd", "#b00020"),
           "not proved": ("#fbecc8", "#8a5a00"), "cited": ("#e6e6ef", "#4a4a6a")}
"""Fill and stroke per verdict (the page's pass / fail / warn colours, grey-blue for cited)."""
FONT = 11
CHAR = 6.4  # px per character at FONT (a sans-serif's average, generous)
ROW = 62


def fact_anchor(name: str) -> str:
    """The page id of a fact (``fact-`` and its name's letters and digits)."""
    return "fact-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


def graph(record: dict, verdicts: dict) -> nx.DiGraph:
    """The map as a directed graph: ``verdicts`` is a statement's proof verdict by name (``slt.claims``)."""
    g = nx.DiGraph()
    labels = {s["name"]: claims.label(record, s["name"]) for s in record["statements"]}
    for s in record["statements"]:
        g.add_node(s["name"], label=labels[s["name"]], kind="statement", verdict=verdicts[s["name"]],
                   link=f"#st-{s['name']}", title=s["title"])
    facts = {s["step"]: s for s in record["steps"] if s["statement"] == "facts"}
    for s in record["steps"]:
        if s["statement"] not in labels or not s.get("supported", True):
            continue
        for dep in s.get("relies_on") or ():
            if dep not in g:
                if dep in facts:
                    verdict = claims.step_word(facts[dep])
                    g.add_node(dep, label=dep, kind="scalar fact", verdict=verdict, link=f"#{fact_anchor(dep)}",
                               title=f"scalar fact, verified like a proof step: {verdict}")
                else:
                    g.add_node(dep, label=dep, kind="structural fact", verdict="cited", link=f"#{fact_anchor(dep)}",
                               title="structural fact: assumed, not proved in the harness")
            if dep != s["statement"]:
                g.add_edge(s["statement"], dep)
    for n in nx.topological_sort(g.reverse(copy=True)) if nx.is_directed_acyclic_graph(g) else g:
        deps = [g.nodes[d]["layer"] for d in g.successors(n) if "layer" in g.nodes[d]]
        if g.nodes[n]["kind"] == "structural fact":
            g.nodes[n]["layer"] = 0
        elif g.nodes[n]["kind"] == "scalar fact" or not deps:
            g.nodes[n]["layer"] = 1
        else:
            g.nodes[n]["layer"] = max(max(deps), 1) + 1
    return g


def _width(label: str) -> float:
    return len(label) * CHAR + 16


def svg(g: nx.DiGraph, width: int = 1180) -> str:
    """The graph as inline SVG: rows by layer (the statements that rely on most at the top), node boxes coloured by
    verdict, each a link to its section, edges as thin lines from a statement down to what it relies on."""
    layers = max(d["layer"] for _, d in g.nodes(data=True)) + 1
    rows: dict[int, list] = {}
    for n, d in g.nodes(data=True):  # the graph's insertion order: the record's
        rows.setdefault(d["layer"], []).append(n)
    xy = {}
    for layer, names in rows.items():
        total = sum(_width(g.nodes[n]["label"]) for n in names)
        gap = max(8.0, (width - 20 - total) / (len(names) + 1))
        x = 10 + gap if total + gap * (len(names) + 1) <= width - 20 else 10
        y = 20 + (layers - 1 - layer) * ROW
        for n in names:
            w = _width(g.nodes[n]["label"])
            xy[n] = (x + w / 2, y, w)
            x += w + gap
    height = 20 + layers * ROW + 30
    out = [f'<svg id="proof-map" class="proofmap" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" role="img" aria-label="proof map: statements and facts, coloured by '
           'verdict, with an edge for each relies-on">']
    out.append('<g class="edges" stroke="#9aa" stroke-width="1" fill="none">')
    for a, b in g.edges:
        (xa, ya, _), (xb, yb, _) = xy[a], xy[b]
        out.append(f'<line x1="{xa:.1f}" y1="{ya + 11:.1f}" x2="{xb:.1f}" y2="{yb - 11:.1f}" '
                   f'data-from="{html.escape(a)}" data-to="{html.escape(b)}"/>')
    out.append("</g>")
    for n, d in g.nodes(data=True):
        x, y, w = xy[n]
        fill, stroke = COLOURS[d["verdict"]]
        label = html.escape(d["label"])
        bold = ' font-weight="600"' if d["kind"] == "statement" else ""
        out.append(f'<a href="{html.escape(d["link"])}" class="node" data-node="{html.escape(n)}" '
                   f'data-kind="{d["kind"]}" data-verdict="{d["verdict"]}"><title>{label}: {html.escape(d["title"])} '
                   f'({d["verdict"]})</title><rect x="{x - w / 2:.1f}" y="{y - 11}" width="{w:.1f}" height="22" rx="5" '
                   f'fill="{fill}" stroke="{stroke}" stroke-width="{2 if d["kind"] == "statement" else 1}"/>'
                   f'<text x="{x:.1f}" y="{y + 4}" text-anchor="middle" font-size="{FONT}" fill="#222"{bold}>{label}</text></a>')
    lx = 10
    for word, (fill, stroke) in COLOURS.items():
        out.append(f'<rect x="{lx}" y="{height - 22}" width="14" height="12" fill="{fill}" stroke="{stroke}"/>'
                   f'<text x="{lx + 19}" y="{height - 12}" font-size="{FONT}">{word}</text>')
        lx += 19 + _width(word) + 10
    out.append(f'<text x="{lx + 10}" y="{height - 12}" font-size="{FONT}" fill="#555">bold: a statement of the paper; '
               "a line: relies on (from the upper to the lower); click a box for its section</text>")
    out.append("</svg>")
    return "".join(out)
