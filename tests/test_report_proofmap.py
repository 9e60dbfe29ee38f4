"""The report's proof map is one picture per record: laid out by Graphviz's dot (or, without it, in rows in the
record's order), never in an order that changes with Python's string hashing (``PYTHONHASHSEED``), so two renders of
one record are equal.  It is a blueprint: a linked node per statement, fact and premise; a statement's border says
whether it is formalized in Coq and its fill its proof verdict (kernel-checked); a premise is proved in Coq or
assumed; a star marks the statements proved from Lueker's corollary alone; every edge an arrow with a head; a legend.
A statement taken out of ``FORMAL``, a premise no longer proved in ``Premises.v`` and a step the kernel did not
check each change their node."""
from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

DRAW = """
import json, sys
from reports import proofmap
rec = json.load(open(sys.argv[1]))
print(proofmap.svg(proofmap.graph(rec, {s["name"]: "certified" for s in rec["statements"]})))
"""


def _draw(path: Path, hashseed: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": hashseed}
    done = subprocess.run([sys.executable, "-c", DRAW, str(path)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_two_renders_of_one_record_draw_one_proof_map(tmp_path, proofs_record):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(proofs_record))
    first = _draw(path, "1")
    assert 'id="proof-map"' in first and 'data-node="lemma7"' in first
    assert all(_draw(path, seed) == first for seed in ("2", "3"))


def test_without_dot_a_row_follows_the_record_order(proofs_record):
    from reports import proofmap

    g = proofmap.graph(proofs_record, {s["name"]: "certified" for s in proofs_record["statements"]})
    picture = proofmap.svg(g, engine="rows")
    x = {}
    for n, d in _nodes(picture).items():
        v = dict(re.findall(r'([a-z]+)="([-\d.]+)"', d["style"]))
        x[n] = float(v["cx"]) if d["shape"] == "ellipse" else float(v["x"]) + float(v["width"]) / 2
    assert set(x) == set(g)
    for layer in {d["layer"] for _, d in g.nodes(data=True)}:
        row = [n for n, d in g.nodes(data=True) if d["layer"] == layer]
        assert sorted(row, key=x.get) == row  # drawn left to right in the record's order


# --- the map as a blueprint: formalized (border), kernel-checked (fill), premises proved or assumed ----------------

NODE = re.compile(r'<a href="([^"]*)" class="node" data-node="([^"]*)" data-kind="([^"]*)" data-verdict="([^"]*)"'
                  r'([^>]*)><title>[^<]*</title><(rect|ellipse) ([^>]*)/>(.*?)</a>')


def _nodes(picture: str) -> dict:
    """``{name: {href, kind, verdict, attrs, shape, style, text}}`` of every node of a map."""
    out = {}
    for href, name, kind, verdict, attrs, shape, style, text in NODE.findall(picture):
        out[html.unescape(name)] = {"href": href, "kind": kind, "verdict": verdict, "shape": shape, "style": style,
                                    "text": text, **dict(re.findall(r'data-([a-z-]+)="([^"]*)"', attrs))}
    return out


def _map(record, **kw):
    from reports import proofmap
    from slt import claims

    return proofmap.svg(proofmap.graph(record, claims.proof_verdicts(record)), **kw)


def _measured(record):
    """``record`` with its formalization measured again (``reports.record.assemble.formalization``), as a run of
    this tree would store it."""
    from reports.record import assemble

    return {**record, "formalization": assemble.formalization()}


def _needs_dot():
    import shutil

    if shutil.which("dot") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true and Graphviz's dot is not installed: .ci/run must install graphviz")
        pytest.skip("Graphviz's dot is not installed (apt-get install graphviz)")


def test_the_map_has_a_linked_node_per_statement_and_per_premise(proofs_record):
    from bounds.premises import ALL
    from reports import proofmap

    picture = _map(proofs_record)
    nodes = _nodes(picture)
    statements = {n for n, d in nodes.items() if d["kind"] == "statement"}
    premises = {n for n, d in nodes.items() if d["kind"] == "premise"}
    assert statements == {s["name"] for s in proofs_record["statements"]}
    assert premises == {p.name for p in ALL}
    assert picture.count('class="node"') == len(nodes)  # every node parsed, none without its link
    assert all(nodes[n]["href"] == f"#st-{n}" for n in statements)
    assert all(nodes[n]["href"] == f"#{proofmap.premise_anchor(n)}" for n in premises)
    assert all(d["href"].startswith("#fact-") for d in nodes.values() if d["kind"].endswith("fact"))


def test_every_node_links_to_an_id_of_the_page(proofs_record):
    from reports.build import render_html, render_sections

    page = render_html(render_sections(proofs_record, ["findings", "statements", "proofs"]), proofs_record)
    picture = page[page.index('<svg id="proof-map"'):]
    picture = picture[:picture.index("</svg>")]
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    links = [d["href"][1:] for d in _nodes(picture).values()]
    assert links and [h for h in links if h not in ids] == []


def test_formalized_kernel_checked_and_proved_are_drawn_apart(proofs_record, monkeypatch):
    """Every statement of the catalogue has its Coq theorem; with one taken out of ``FORMAL`` (as a statement not
    yet formalized would be) both borders are on the map and each node carries the one its state asks for."""
    from bounds.prove import coq_statements, coq_text
    from reports import proofmap
    from slt import claims

    monkeypatch.setattr(coq_text, "FORMAL", {k: v for k, v in coq_text.FORMAL.items() if k != "theorem11"})
    nodes = _nodes(_map(_measured(proofs_record)))
    verdicts = claims.proof_verdicts(proofs_record)
    formal = set(coq_text.FORMAL)
    assert formal and formal != set(verdicts)  # both kinds are on the map
    for name, verdict in verdicts.items():
        d = nodes[name]
        stroke, width, dash = proofmap.FORMAL_STROKE if name in formal else proofmap.INFORMAL_STROKE
        assert d["formalized"] == ("yes" if name in formal else "no"), name
        assert f'stroke="{stroke}" stroke-width="{width}"' in d["style"], name
        assert ("stroke-dasharray" in d["style"]) == (name not in formal), name
        assert d["verdict"] == verdict and f'fill="{proofmap.COLOURS[verdict][0]}"' in d["style"], name
        alone = name in formal and name in coq_statements.proved_statements() and coq_statements.proved_alone(
            name, coq_text.FORMAL[name][1])
        assert d["lueker-alone"] == ("yes" if alone else "no"), name
        assert (proofmap.STAR in d["text"]) == alone, name
    proved = set(coq_text.proved_premises())
    assert proved and proved != set(coq_text.PREMISE_COQ)  # proved and assumed premises both present
    for name, d in nodes.items():
        if d["kind"] == "premise":
            state = "proved" if name in proved else "assumed"
            fill, stroke, dash = proofmap.PREMISE[state]
            assert d["state"] == state and d["shape"] == "ellipse", name
            assert f'fill="{fill}" stroke="{stroke}"' in d["style"], name
            assert ("stroke-dasharray" in d["style"]) == bool(dash), name


def test_the_legend_says_what_each_mark_means_and_the_counts(proofs_record):
    from bounds.prove import coq_math
    from slt import claims

    picture = _map(proofs_record)
    legend = picture[picture.index('<g class="legend"'):]
    for words in ("formalized in Coq", "not formalized", "every proof step kernel-checked by Coq", "refuted",
                  "not proved", "premise proved in Coq", "premise assumed", "Lueker's corollary alone",
                  "relies on", "cites premise", "Coq theorem assumes premise"):
        assert words in html.unescape(legend), words
    shown = " ".join(re.sub(r"<[^>]+>", " ", html.unescape(legend)).split())  # the line wraps over text rows
    assert coq_math.blueprint()["line"] in shown
    assert f"Coq kernel result: {claims.kernel_source(proofs_record)}" in html.unescape(legend)


def test_every_edge_is_an_arrow_with_a_head(proofs_record):
    from reports import proofmap
    from slt import claims

    g = proofmap.graph(proofs_record, claims.proof_verdicts(proofs_record))
    for engine in ("dot", "rows"):
        picture = proofmap.svg(g, engine=engine)
        markers = dict(re.findall(r'<marker id="([^"]+)"[^>]*><path d="([^"]+)"', picture))
        edges = re.findall(r'<path d="([^"]+)"[^>]*marker-end="url\(#([^)]+)\)" data-from="([^"]*)" '
                           r'data-to="([^"]*)" data-rel="([^"]*)"', picture)
        assert len(edges) == g.number_of_edges() > 0
        assert all(m in markers and markers[m].endswith("z") for _, m, *_ in edges)  # a closed, filled head
        assert {(html.unescape(a), html.unescape(b)) for _, _, a, b, _ in edges} == set(g.edges)
        rels = {(html.unescape(a), html.unescape(b)): r for _, _, a, b, r in edges}
        assert rels[("lemma7", "Lueker for every z at once")] == "Coq assumes"
        assert rels[("lemma7", "lueker")] == "relies on"
        assert rels[("theorem14", "induction over blocks")] == "cites premise"


def test_a_statement_taken_out_of_formal_changes_its_node(proofs_record, monkeypatch):
    from bounds.prove import coq_math, coq_statements, coq_text
    from reports import proofmap

    before = _nodes(_map(proofs_record))["lemma8"]
    assert before["formalized"] == "yes" and before["lueker-alone"] == "yes" and proofmap.STAR in before["text"]
    monkeypatch.setattr(coq_text, "FORMAL", {k: v for k, v in coq_text.FORMAL.items() if k != "lemma8"})
    picture = _map(_measured(proofs_record))
    after = _nodes(picture)["lemma8"]
    assert after["formalized"] == "no" and after["lueker-alone"] == "no" and proofmap.STAR not in after["text"]
    assert "stroke-dasharray" in after["style"] and "stroke-dasharray" not in before["style"]
    c = coq_math.counts()
    assert f"probabilities included: {c['alone']} of" in html.unescape(picture) and c["alone"] == len(
        [n for n in coq_text.FORMAL if n in coq_statements.proved_statements()
         and coq_statements.proved_alone(n, coq_text.FORMAL[n][1])])


def test_a_premise_no_longer_proved_is_drawn_assumed(proofs_record, monkeypatch, tmp_path):
    from bounds.prove import coq_text

    text = (coq_text.MATH / "Premises.v").read_text()
    assert "premise_hoelder_holds" in text
    (tmp_path / "Premises.v").write_text(text.replace("premise_hoelder_holds", "premise_hoelder_was"))
    monkeypatch.setattr(coq_text, "MATH", tmp_path)
    node = _nodes(_map(_measured(proofs_record)))["Hoelder step"]
    assert node["state"] == "assumed" and "stroke-dasharray" in node["style"]


def test_a_step_the_kernel_did_not_check_changes_the_fill(proofs_record):
    import copy

    from reports import proofmap

    rec = copy.deepcopy(proofs_record)
    step = next(s for s in rec["steps"] if s["statement"] == "lemma8")
    step.update(verdict="not proved", coq="rejected: planted", ok=False)
    node = _nodes(_map(rec))["lemma8"]
    assert node["verdict"] == "not proved" and f'fill="{proofmap.COLOURS["not proved"][0]}"' in node["style"]


def test_the_map_is_laid_out_by_dot_and_says_so(proofs_record):
    _needs_dot()
    from reports import proofmap

    picture = _map(proofs_record)
    assert re.search(r'data-layout="laid out by Graphviz dot [\d.]+"', picture)
    assert proofmap.dot_version() in html.unescape(picture[picture.index('<g class="legend"'):])


def test_without_dot_the_map_is_drawn_in_rows_and_says_so(proofs_record, monkeypatch):
    from reports import proofmap

    monkeypatch.setattr(proofmap.shutil, "which", lambda name: None)
    picture = _map(proofs_record)
    assert "Graphviz's dot is not installed (apt-get install graphviz): rows by layer" in html.unescape(picture)
    assert len(_nodes(picture)) == len(proofmap.graph(proofs_record, {s["name"]: "certified" for s in
                                                                      proofs_record["statements"]}))


def test_the_record_stores_what_the_library_measures_and_an_older_record_says_it_lacks_it(proofs_record):
    import copy

    from bounds.prove import coq_math

    assert proofs_record["formalization"] == json.loads(json.dumps(coq_math.blueprint()))
    older = copy.deepcopy(proofs_record)
    del older["formalization"]
    picture = _map(older)
    nodes = _nodes(picture)
    assert not [n for n, d in nodes.items() if d["kind"] == "premise"]
    assert {d["formalized"] for d in nodes.values() if d["kind"] == "statement"} == {"not recorded"}
    assert "this record holds no Coq formalization" in html.unescape(picture)


def test_a_statement_found_wrong_as_printed_is_marked_beside_its_repaired_form(docs_record):
    """Lemma 13 (printed statement false), Lemma 12, Theorem 10 and Theorem 14 (a step of the printed proof false)
    carry a tag in the fail colour saying so, and their repaired form (``slt.claims.repairs``); the green fill is
    then the repaired form's verdict.  No other statement has a tag, and a record whose findings repair nothing
    draws none."""
    from reports import proofmap
    from slt import claims

    rep = claims.repairs(docs_record)
    assert {"lemma12", "lemma13", "theorem10", "theorem14"} <= set(rep)
    nodes = _nodes(_map(docs_record))
    for name, d in nodes.items():
        if d["kind"] != "statement":
            continue
        if name in rep:
            assert d["printed"] == proofmap.PRINTED_TAG[rep[name]["kind"]], name
            assert html.unescape(d["repaired"]) == rep[name]["what"], name
            assert 'class="printed"' in d["text"] and f'stroke="{proofmap.PRINTED_STROKE}"' in d["text"], name
        else:
            assert "printed" not in d and 'class="printed"' not in d["text"], name
    assert nodes["lemma13"]["printed"] == "printed: false"
    assert nodes["theorem14"]["printed"] == "printed proof: a step false"
    plain = {**docs_record, "findings": {**docs_record["findings"], "items": [
        {k: v for k, v in f.items() if k != "repair"} for f in docs_record["findings"]["items"]]}}
    assert not any("printed" in d for d in _nodes(_map(plain)).values())


def test_a_structural_fact_reads_the_status_the_axioms_command_gives(proofs_record, monkeypatch):
    """A structural fact proved in proofs/coq/math/ is drawn proved, with ``bounds.prove.axioms.structural_status``'s
    words as its title (what ``slth proofs --axioms`` prints); one whose theorem is taken away is drawn cited."""
    from bounds.prove import axioms
    from reports import proofmap
    from slt import claims

    g = proofmap.graph(proofs_record, claims.proof_verdicts(proofs_record))
    facts = {n: d for n, d in g.nodes(data=True) if d["kind"] == "structural fact"}
    assert facts and facts.get("ReLU decomposition", {}).get("verdict") == "proved in Coq"
    for name, d in facts.items():
        assert d["title"] == f"structural fact: {axioms.structural_status(name)}", name
    monkeypatch.setitem(axioms.STRUCTURAL_COQ, "ReLU decomposition", ({}, "taken away for this test"))
    g = proofmap.graph(proofs_record, claims.proof_verdicts(proofs_record))
    d = g.nodes["ReLU decomposition"]
    assert d["verdict"] == "cited" and d["title"] == "structural fact: not proved in Coq: taken away for this test"
