"""The report's proof map is one picture per record: its rows are laid out in the record's order, never in an
order that changes with Python's string hashing (``PYTHONHASHSEED``), so two renders of one record are equal."""
from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

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


def test_a_row_follows_the_record_order(proofs_record):
    from reports import proofmap

    g = proofmap.graph(proofs_record, {s["name"]: "certified" for s in proofs_record["statements"]})
    picture = proofmap.svg(g)
    x = {html.unescape(n): float(v) for n, v in re.findall(r'data-node="([^"]*)".*?<rect x="([-\d.]+)"', picture)}
    assert set(x) == set(g)
    for layer in {d["layer"] for _, d in g.nodes(data=True)}:
        row = [n for n, d in g.nodes(data=True) if d["layer"] == layer]
        assert sorted(row, key=x.get) == row  # drawn left to right in the record's order
