"""Statements are listed in one place: no module of ``slt/`` or ``reports/`` other than the measuring
catalogue and the statements' own numerics modules holds a dict literal keyed by two or more statement names (a
registry keyed by name, the thing that fails silently when a statement is added). The few that remain are named in
``KNOWN`` with where they should go; a new one fails this test, and so does a known one that has gone (so the list
only shrinks)."""
from __future__ import annotations

import ast
from pathlib import Path

from slt.measure import catalogue

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {"slt/measure/catalogue.py"}
"""Besides ``slt/measure/statements/*.py``: the modules that may list statements by name."""
KNOWN = {
    ("slt/targets.py", "HYPOTHESIS"): "each statement's target hypothesis set: belongs in its Numerics",
    ("reports/targets.py", "_point_keys"): "each statement's point keys of `slth targets`: belongs in its Numerics",
    ("reports/sections/empirical.py", "_SERIES"): "the length sweeps' plot series: report styling, left for now",
    ("slt/measure/heldout.py", "HELDOUT"): "each statement's held-out values: belongs in its Numerics (the committed "
                                           "design's point order, which fixes its seeds, follows this dict)",
}


def keyed_by_statements(source: str, names: set[str]) -> list[str]:
    """The top-level definitions (assignment target or function name) of ``source`` that contain a dict literal
    with two or more of ``names`` as constant keys."""
    found = []
    for node in ast.parse(source).body:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Dict):
                keys = {k.value for k in sub.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                if len(keys & names) >= 2:
                    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                        found.append(node.name)
                    elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        found.append(", ".join(ast.unparse(t) for t in targets))
                    else:
                        found.append(f"line {sub.lineno}")
                    break
    return found


def test_the_scan_finds_a_dict_keyed_by_statement_names():
    names = set(catalogue.names())
    assert keyed_by_statements('DRAWS = {"lemma7": 1, "theorem9": 2}', names) == ["DRAWS"]
    assert keyed_by_statements('def f(p):\n    return {"lemma2": p, "theorem10": p}[p]\n', names) == ["f"]
    assert keyed_by_statements('X = {"lemma7": 1, "other": 2}\nY = {"d1": 1, "d2": 2}', names) == []


def test_no_module_outside_the_catalogue_lists_statements_by_name():
    names = set(catalogue.names())
    assert len(names) >= 2
    found = set()
    for folder in ("slt", "reports"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in ALLOWED or rel.startswith("slt/measure/statements/"):
                continue
            found |= {(rel, name) for name in keyed_by_statements(path.read_text(), names)}
    assert found - set(KNOWN) == set(), "dicts keyed by statement names outside the catalogue"
    assert set(KNOWN) - found == set(), "gone: remove them from KNOWN"
