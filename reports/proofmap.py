"""The proof map at the top of the report: a blueprint of what is proved and what rests on what, in one picture.

Nodes are the statements, the scalar facts the proofs use (verified like a step), the structural facts they assume
(cited) and the premises of ``bounds/premises.py``. A statement's **fill** is its proof verdict: certified means
every proof step was pre-checked and accepted by Coq's kernel (the record's kernel result: replayed in the run, or
the result committed for this exact ``bounds/``, as the record says); its **border** says whether the statement is
formalized in Coq (one theorem ``stmt_<name>``); a star marks the statements proved in Coq from Lueker's corollary
alone, probabilities included. A statement the harness found wrong as printed (``slt.claims.repairs``: its printed
statement false, or a step of its written proof) carries a tag in the fail colour saying which, and its fill and
tooltip are about the repaired form it encodes: green never says the printed statement is right. A premise is proved in Coq (``Premises.v``) or assumed, drawn differently. What is formalized and
proved is measured by the library (``bounds.prove.coq_math.blueprint``) and stored in the run record
(``record["formalization"]``); this module only draws it.

An arrow runs from a statement to everything it rests on: the statements and facts its steps rely on (each step's
``relies_on`` in the record), the premises its steps cite (dashed), and the premises its Coq theorem still assumes
(solid, dark). Every node links to where the page shows it.

The layout is Graphviz's ``dot`` (Debian package ``graphviz``; ``-Tplain`` gives the positions and the edges'
splines, drawn here as inline SVG so the page stays one offline file). Without ``dot`` the map falls back to rows
by layer (a statement one row above the highest thing it rests on, each row in the record's order) and says so in
its legend. Both are deterministic: two renders of one record draw one picture.
"""
from __future__ import annotations

import html
import re
import shutil
import subprocess
import textwrap

import networkx as nx

from slt import claims

__all__ = ["graph", "svg", "layout", "COLOURS", "fact_anchor", "premise_anchor", "dot_version"]

COLOURS = {"certified": ("#d7f0dc", "#17662a"), "refuted": ("#fadadd", "#b00020"),
           "not proved": ("#fbecc8", "#8a5a00"), "cited": ("#e6e6ef", "#4a4a6a"),
           "proved in Coq": ("#d7f0dc", "#17662a")}
"""Fill and stroke per verdict (the page's pass / fail / warn colours, grey-blue for cited; a structural fact proved
in Coq as a certified statement)."""
PREMISE = {"proved": ("#d7f0dc", "#17662a", ""), "assumed": ("#ffffff", "#8a5a00", "4 3")}
"""Fill, stroke and dash of a premise proved in Coq and of one assumed."""
FORMAL_STROKE = ("#1b2a6b", 3.0, "")
"""Border of a statement formalized in Coq: dark, thick, solid."""
INFORMAL_STROKE = ("#777777", 1.2, "5 3")
"""Border of a statement not formalized: grey, thin, dashed."""
UNKNOWN_STROKE = ("#777777", 1.2, "")
"""Border of a statement of a record that holds no formalization: grey, thin, solid."""
EDGES = {"relies on": ("#9aa3a3", 1.0, ""), "cites premise": ("#b9a27a", 1.0, "4 3"),
         "Coq assumes": ("#1b2a6b", 1.6, "")}
"""Stroke, width and dash per kind of arrow."""
PRINTED_TAG = {"statement": "printed: false", "step": "printed proof: a step false"}
"""The tag beside a statement whose printed form the harness found wrong (``slt.claims.repairs``): its fill is the
verdict of the repaired form the harness encodes, never of the printed one."""
PRINTED_STROKE = "#b00020"
STAR = "\u2605"
FONT = 11
CHAR = 6.4  # px per character at FONT (a sans-serif's average, generous)
HEIGHT = 22
ROW = 62


def fact_anchor(name: str) -> str:
    """The page id of a fact (``fact-`` and its name's letters and digits)."""
    return "fact-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


def premise_anchor(name: str) -> str:
    """The page id of a premise (``premise-`` and its name's letters and digits)."""
    return "premise-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


def graph(record: dict, verdicts: dict) -> nx.DiGraph:
    """The map as a directed graph: ``verdicts`` is a statement's proof verdict by name (``slt.claims``); what is
    formalized and proved in Coq is the record's ``formalization`` (measured by ``bounds.prove.coq_math.blueprint``
    when the record was built; a record without it draws no premise and says so)."""
    formal = record.get("formalization") or {"statements": {}, "premises": {}, "line": None}
    g = nx.DiGraph()
    g.graph["formal"] = formal
    g.graph["kernel_source"] = claims.kernel_source(record)
    labels = {s["name"]: claims.label(record, s["name"]) for s in record["statements"]}
    repairs = claims.repairs(record)  # printed vs repaired, as the findings decided it
    for s in record["statements"]:
        f = formal["statements"].get(s["name"], {})
        known = bool(formal["statements"])  # a record without its formalization: not recorded, not "not formalized"
        r = repairs.get(s["name"])
        g.add_node(s["name"], label=labels[s["name"]], kind="statement", verdict=verdicts[s["name"]],
                   link=f"#st-{s['name']}", title=s["title"], formalized=bool(f.get("formalized")) if known else None,
                   lueker_alone=bool(f.get("lueker_alone")), theorem=f.get("theorem"), rests_on=f.get("rests_on"),
                   alone_words=_alone_words(s["name"], f),
                   printed=(None if r is None else PRINTED_TAG[r.get("kind", "step")]),
                   repaired=None if r is None else r["what"], why=None if r is None else r["why"])
    facts = {s["step"]: s for s in record["steps"] if s["statement"] == "facts"}
    cites: dict[str, dict] = {}  # per statement the premises its steps cite, in order, once each
    for s in record["steps"]:
        if s["statement"] not in labels or not s.get("supported", True):
            continue
        cites.setdefault(s["statement"], {}).update(dict.fromkeys(s.get("premises") or ()))
        for dep in s.get("relies_on") or ():
            if dep not in g:
                if dep in facts:
                    verdict = claims.step_word(facts[dep])
                    g.add_node(dep, label=dep, kind="scalar fact", verdict=verdict, link=f"#{fact_anchor(dep)}",
                               title=f"scalar fact, verified like a proof step: {verdict}")
                else:
                    from bounds.prove.axioms import structural_status  # the one function deciding a fact's status

                    status = structural_status(dep)
                    g.add_node(dep, label=dep, kind="structural fact", link=f"#{fact_anchor(dep)}",
                               verdict="proved in Coq" if status.startswith("proved in Coq") else "cited",
                               title=f"structural fact: {status}")
            if dep != s["statement"]:
                g.add_edge(s["statement"], dep, rel="relies on")
    for name, p in formal["premises"].items():
        state = "proved" if p["proved"] else "assumed"
        how = (f"proved in Coq ({p['coq']}_holds, by {', '.join(p['by'])})" if p["proved"]
               else f"assumed: stated in Coq as {p['coq']}, not proved")
        g.add_node(name, label=name, kind="premise", verdict=state, link=f"#{premise_anchor(name)}",
                   title=f"premise: {how}")
    for st in labels:
        coq = (formal["statements"].get(st) or {}).get("rests_on") or []
        for p in coq:
            if p.startswith("statement ") and p.split(" ", 1)[1] in g:  # a cited statement's conclusion, assumed
                g.add_edge(st, p.split(" ", 1)[1], rel="Coq assumes")
                continue
            if p not in g or g.nodes[p]["kind"] != "premise":  # not among the record's premises: assumed all the same
                g.add_node(p, label=p, kind="premise", verdict="assumed", link=f"#{premise_anchor(p)}",
                           title="premise: assumed (not among the record's premises)")
            g.add_edge(st, p, rel="Coq assumes")
        for p in cites.get(st, ()):
            if p in g and p not in coq:
                g.add_edge(st, p, rel="cites premise")
    for n in nx.topological_sort(g.reverse(copy=True)) if nx.is_directed_acyclic_graph(g) else g:
        deps = [g.nodes[d]["layer"] for d in g.successors(n) if "layer" in g.nodes[d]]
        if g.nodes[n]["kind"] in ("structural fact", "premise"):
            g.nodes[n]["layer"] = 0
        elif g.nodes[n]["kind"] == "scalar fact" or not deps:
            g.nodes[n]["layer"] = 1
        else:
            g.nodes[n]["layer"] = max(max(deps), 1) + 1
    return g


def _width(d: dict) -> float:
    extra = (18 if d.get("lueker_alone") else 0) + (len(d["printed"]) * CHAR * 0.85 + 14 if d.get("printed") else 0)
    pad = 34 if d["kind"] == "premise" else 16
    return len(d["label"]) * CHAR + pad + extra


def dot_version() -> str | None:
    """Graphviz's version line (``dot - graphviz version 2.43.0 (0)``) or None when ``dot`` is not installed."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, "-V"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"graphviz version (\S+)", done.stderr + done.stdout)
    return f"Graphviz dot {m.group(1)}" if m else "Graphviz dot"


def _dot_text(g: nx.DiGraph, ids: dict) -> str:
    lines = ["digraph map {", 'graph [rankdir=LR, nodesep=0.12, ranksep=0.7, splines=true];',
             'node [fixedsize=true, label=""];', "edge [arrowhead=none];"]
    for n, d in g.nodes(data=True):  # the graph's insertion order: the record's, then the premises'
        shape = "ellipse" if d["kind"] == "premise" else "box"
        lines.append(f"{ids[n]} [shape={shape}, width={_width(d) / 72:.4f}, height={HEIGHT / 72:.4f}];")
    for a, b in g.edges:
        lines.append(f"{ids[a]} -> {ids[b]};")
    lines.append("}")
    return "\n".join(lines)


def _dot_layout(g: nx.DiGraph):
    """Positions and edge paths from ``dot -Tplain``, or None when ``dot`` is missing or fails."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    ids = {n: f"n{k}" for k, n in enumerate(g)}
    back = {v: k for k, v in ids.items()}
    try:
        done = subprocess.run([exe, "-Tplain"], input=_dot_text(g, ids), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    xy, paths, size = {}, {}, None
    for line in done.stdout.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "graph":
            scale, W, H = float(f[1]), float(f[2]), float(f[3])
            size = (W * 72 * scale, H * 72 * scale)
        elif f[0] == "node":
            x, y = float(f[2]) * 72, (H - float(f[3])) * 72
            xy[back[f[1]]] = (x + 10, y + 10, _width(g.nodes[back[f[1]]]))
        elif f[0] == "edge":
            n = int(f[3])
            pts = [(float(f[4 + 2 * i]) * 72 + 10, (H - float(f[5 + 2 * i])) * 72 + 10) for i in range(n)]
            d = f"M{pts[0][0]:.1f},{pts[0][1]:.1f}" + "".join(
                f" C{pts[i][0]:.1f},{pts[i][1]:.1f} {pts[i + 1][0]:.1f},{pts[i + 1][1]:.1f} "
                f"{pts[i + 2][0]:.1f},{pts[i + 2][1]:.1f}" for i in range(1, n - 2, 3))
            paths[(back[f[1]], back[f[2]])] = d
    if size is None or set(xy) != set(g) or set(paths) != set(g.edges):
        return None
    return xy, paths, (size[0] + 20, size[1] + 20)


def _rows_layout(g: nx.DiGraph, width: int = 1180):
    """Rows by layer (the statements that rest on most at the top), each row in the record's order; straight
    edges from the bottom of a node to the top of what it rests on."""
    layers = max(d["layer"] for _, d in g.nodes(data=True)) + 1
    rows: dict[int, list] = {}
    for n, d in g.nodes(data=True):  # the graph's insertion order: the record's
        rows.setdefault(d["layer"], []).append(n)
    xy = {}
    wide = width
    for layer, names in rows.items():
        total = sum(_width(g.nodes[n]) for n in names)
        gap = max(8.0, (width - 20 - total) / (len(names) + 1))
        x = 10 + gap if total + gap * (len(names) + 1) <= width - 20 else 10
        y = 20 + (layers - 1 - layer) * ROW
        for n in names:
            w = _width(g.nodes[n])
            xy[n] = (x + w / 2, y, w)
            x += w + gap
        wide = max(wide, x + 10)
    paths = {}
    for a, b in g.edges:
        (xa, ya, _), (xb, yb, _) = xy[a], xy[b]
        paths[(a, b)] = f"M{xa:.1f},{ya + HEIGHT / 2:.1f} L{xb:.1f},{yb - HEIGHT / 2 - 1:.1f}"
    return xy, paths, (wide, 20 + layers * ROW)


def layout(g: nx.DiGraph, engine: str = "dot"):
    """``(positions {node: (x, y, width)}, edge paths {(a, b): SVG path}, (width, height), engine line)``: laid
    out by Graphviz's ``dot`` when ``engine == "dot"`` and it is installed, else in rows by layer."""
    if engine == "dot":
        done = _dot_layout(g)
        if done is not None:
            return (*done, f"laid out by {dot_version()}")
        why = "Graphviz's dot is not installed (apt-get install graphviz)" if shutil.which("dot") is None \
            else "Graphviz's dot failed"
        return (*_rows_layout(g), f"{why}: rows by layer (networkx), in the record's order")
    return (*_rows_layout(g), "rows by layer (networkx), in the record's order")


def _alone_words(name: str, f: dict) -> str:
    """Whether the record's formalization proves statement ``name`` in Coq from Lueker's corollary alone, and of which
    form (``bounds.prove.coq_statements.alone_words`` with the record's differences from the printed statement)."""
    from bounds.prove.coq_statements import alone_words

    if "differences" not in f:  # a record written before the formalization named them
        return ("proved in Coq from Lueker's corollary alone (how its Coq theorem differs from the printed statement "
                "is not in this record)" if f.get("lueker_alone") else "")
    return alone_words(name, bool(f.get("lueker_alone")), f["differences"])


def _node(n: str, d: dict, x: float, y: float, w: float) -> str:
    label = html.escape(d["label"])
    attrs = (f'class="node" data-node="{html.escape(n)}" data-kind="{html.escape(d["kind"])}" '
             f'data-verdict="{html.escape(d["verdict"])}"')
    if d["kind"] == "statement":
        fill, _ = COLOURS[d["verdict"]]
        stroke, sw, dash = (FORMAL_STROKE if d["formalized"] else INFORMAL_STROKE if d["formalized"] is not None
                            else UNKNOWN_STROKE)
        attrs += (f' data-formalized="{ {True: "yes", False: "no", None: "not recorded"}[d["formalized"]]}"'
                  f' data-lueker-alone="{"yes" if d["lueker_alone"] else "no"}"')
        coq = (f"formalized in Coq ({d['theorem']}, resting on " + ("; ".join(d["rests_on"]) or "no premise") + ")"
               if d["formalized"] else "not formalized in Coq" if d["formalized"] is not None
               else "its formalization is not in this record")
        obj = (f" of the form the harness encodes, as repaired ({d['repaired']}); as printed: {d['why']}"
               if d.get("printed") else " as printed")
        tip = f"{d['label']}: {d['title']}; proof {d['verdict']}{obj}; {coq}" + (
            f"; {d['alone_words']}" if d["lueker_alone"] else "")
        if d.get("printed"):
            attrs += f' data-printed="{html.escape(d["printed"])}" data-repaired="{html.escape(d["repaired"])}"' 
        shape = (f'<rect x="{x - w / 2:.1f}" y="{y - HEIGHT / 2:.1f}" width="{w:.1f}" height="{HEIGHT}" rx="5" '
                 f'fill="{fill}" stroke="{stroke}" stroke-width="{sw}"{_dash(dash)}/>')
    elif d["kind"] == "premise":
        fill, stroke, dash = PREMISE[d["verdict"]]
        attrs += f' data-state="{d["verdict"]}"'
        tip = f"{d['label']}: {d['title']}"
        shape = (f'<ellipse cx="{x:.1f}" cy="{y:.1f}" rx="{w / 2:.1f}" ry="{HEIGHT / 2:.1f}" fill="{fill}" '
                 f'stroke="{stroke}" stroke-width="1.4"{_dash(dash)}/>')
    else:
        fill, stroke = COLOURS[d["verdict"]]
        tip = f"{d['label']}: {d['title']} ({d['verdict']})"
        shape = (f'<rect x="{x - w / 2:.1f}" y="{y - HEIGHT / 2:.1f}" width="{w:.1f}" height="{HEIGHT}" rx="3" '
                 f'fill="{fill}" stroke="{stroke}" stroke-width="1"/>')
    star = d.get("lueker_alone")
    tag = d.get("printed") if d["kind"] == "statement" else None
    tw = len(tag) * CHAR * 0.85 + 8 if tag else 0
    tx = x + (9 if star else 0) - (tw + 6) / 2
    text = (f'<text x="{tx:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="{FONT}" fill="#222"'
            + (' font-weight="600"' if d["kind"] == "statement" else "")
            + (' font-style="italic"' if d["kind"] == "premise" and d["verdict"] == "assumed" else "")
            + f">{label}</text>")
    if star:
        text += (f'<text class="lueker-alone" x="{x - w / 2 + 10:.1f}" y="{y + 4.5:.1f}" text-anchor="middle" '
                 f'font-size="{FONT + 2}" fill="#1b2a6b">{STAR}</text>')
    if tag:  # the printed form is wrong: said beside the name, in the fail colour; the fill is the repaired form's
        left = x + w / 2 - tw - 4
        text += (f'<rect class="printed" x="{left:.1f}" y="{y - HEIGHT / 2 + 3:.1f}" width="{tw:.1f}" '
                 f'height="{HEIGHT - 6}" rx="3" fill="#fadadd" stroke="{PRINTED_STROKE}" stroke-width="1"/>'
                 f'<text class="printed" x="{left + tw / 2:.1f}" y="{y + 3.5:.1f}" text-anchor="middle" '
                 f'font-size="{FONT - 2}" fill="{PRINTED_STROKE}">{html.escape(tag)}</text>')
    return (f'<a href="{html.escape(d["link"])}" {attrs}><title>{html.escape(tip)}</title>{shape}{text}</a>')


def _legend(g: nx.DiGraph, top: float, engine: str) -> tuple[list[str], float]:
    """The legend under the map: what border, fill, shape, star and arrow mean, where the kernel result comes from,
    the counts and the layout."""
    out = ['<g class="legend" font-size="11">']
    y = top

    def row(items, note=""):
        nonlocal y
        x = 10
        for glyph, word in items:
            out.append(glyph(x, y))
            out.append(f'<text x="{x + 34}" y="{y + 4}">{html.escape(word)}</text>')
            x += 44 + len(word) * CHAR
        if note:
            out.append(f'<text x="{x}" y="{y + 4}" fill="#555">{html.escape(note)}</text>')
        y += 20

    def box(fill, stroke, sw, dash="", rx=4):
        return lambda x, y: (f'<rect x="{x}" y="{y - 7}" width="28" height="14" rx="{rx}" fill="{fill}" '
                             f'stroke="{stroke}" stroke-width="{sw}"{_dash(dash)}/>')

    def oval(fill, stroke, dash):
        return lambda x, y: (f'<ellipse cx="{x + 14}" cy="{y}" rx="14" ry="7" fill="{fill}" stroke="{stroke}" '
                             f'stroke-width="1.4"{_dash(dash)}/>')

    def arrow(rel):
        stroke, sw, dash = EDGES[rel]
        return lambda x, y: (f'<path d="M{x},{y} L{x + 28},{y}" stroke="{stroke}" stroke-width="{sw}" fill="none" '
                             f'marker-end="url(#pm-arrow-{_key(rel)})"{_dash(dash)}/>')

    formal = g.graph["formal"]
    out.append(f'<text x="10" y="{y + 4}" font-weight="600">Legend</text>')
    y += 20
    row([(box("#ffffff", *FORMAL_STROKE[:2]), "border: formalized in Coq (one theorem stmt_<name>)"),
         (box("#ffffff", *INFORMAL_STROKE), "dashed border: not formalized")])
    row([(box(COLOURS[v][0], COLOURS[v][1], 1), word) for v, word in (
        ("certified", "fill: certified, every proof step kernel-checked by Coq"), ("refuted", "refuted"),
        ("not proved", "not proved"), ("cited", "cited (not proved here)"),
        ("proved in Coq", "structural fact proved in Coq"))],
        f"Coq kernel result: {g.graph['kernel_source']}")
    row([(oval(*PREMISE["proved"]), "premise proved in Coq (Premises.v)"),
         (oval(*PREMISE["assumed"]), "premise assumed (stated in Coq, not proved)"),
         (lambda x, y: f'<text x="{x + 14}" y="{y + 5}" text-anchor="middle" font-size="14" fill="#1b2a6b">{STAR}</text>',
          "proved in Coq from Lueker's corollary alone, probabilities included, each of the form its tooltip "
          "names (what 'alone' means: the count line below)")])
    row([(box("#fadadd", PRINTED_STROKE, 1, rx=3),
          f"{PRINTED_TAG['statement']} / {PRINTED_TAG['step']}: the paper's printed statement, or a step of its "
          "written proof, is false; the fill is then the verdict of the repaired form the harness encodes (named in "
          "the node's tooltip), never of the printed one")])
    row([(arrow("relies on"), "A \u2192 B: A's proof relies on statement or fact B"),
         (arrow("cites premise"), "a step of A cites premise B"),
         (arrow("Coq assumes"), "A's Coq theorem assumes premise B")])
    line = formal["line"] or "this record holds no Coq formalization (written before it was recorded)"
    for part in textwrap.wrap(f"{line}; {engine}; click a node for its section", 180, break_on_hyphens=False,
                              break_long_words=False):  # within the map's width
        out.append(f'<text x="10" y="{y + 4}" fill="#555" class="counts">{html.escape(part)}</text>')
        y += 16
    y += 4
    out.append("</g>")
    return out, y


def _dash(dash: str) -> str:
    return f' stroke-dasharray="{dash}"' if dash else ""


def _key(rel: str) -> str:
    return re.sub(r"[^a-z]+", "-", rel.lower())


def svg(g: nx.DiGraph, engine: str = "dot") -> str:
    """The graph as inline SVG: each node a link to its section (statements as boxes, their border the Coq
    formalization and their fill the proof verdict; premises as ovals, proved or assumed), each edge an arrow from
    a statement to what it rests on, and the legend."""
    xy, paths, (width, height), line = layout(g, engine)
    legend, bottom = _legend(g, height + 10, line)
    width = max(width, 1180)
    out = [f'<svg id="proof-map" class="proofmap" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} '
           f'{bottom + 6:.0f}" width="{width:.0f}" height="{bottom + 6:.0f}" role="img" data-layout="{html.escape(line)}" '
           'aria-label="proof map: statements, facts and premises; border: formalized in Coq, fill: proof verdict; '
           'an arrow for each rests-on">']
    out.append("<defs>" + "".join(
        f'<marker id="pm-arrow-{_key(rel)}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        f'markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{stroke}"/></marker>'
        for rel, (stroke, _, _) in EDGES.items()) + "</defs>")
    out.append('<g class="edges" fill="none">')
    for a, b, d in g.edges(data=True):
        stroke, sw, dash = EDGES[d["rel"]]
        out.append(f'<path d="{paths[(a, b)]}" stroke="{stroke}" stroke-width="{sw}"{_dash(dash)}'
                   + f' marker-end="url(#pm-arrow-{_key(d["rel"])})" data-from="{html.escape(a)}" '
                   f'data-to="{html.escape(b)}" data-rel="{d["rel"]}"/>')
    out.append("</g>")
    for n, d in g.nodes(data=True):
        x, y, w = xy[n]
        out.append(_node(n, d, x, y, w))
    out += legend
    out.append("</svg>")
    return "".join(out)
