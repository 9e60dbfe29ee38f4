"""The modules of ``reports.record`` import one way: the import graph of the package, read from the source with
``ast`` (imports inside functions included, since a lazy import is still an arrow), has no cycle."""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "reports" / "record"


def import_graph(folder: Path, package: str) -> nx.DiGraph:
    """module -> module for every import (at any depth of the source) of one module of ``package`` by another."""
    modules = {f"{package}.{p.stem}" if p.stem != "__init__" else package: p for p in sorted(folder.glob("*.py"))}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                if target in modules and target != name and target != package:
                    graph.add_edge(name, target)
    return graph


def test_the_record_package_imports_one_way():
    graph = import_graph(PACKAGE, "reports.record")
    assert ("reports.record.assemble", "reports.record.verified") in graph.edges  # the graph is read at all
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"reports.record imports in a circle: {cycles}"


def test_a_circle_is_found(tmp_path):
    """The check fails on a package whose two modules import each other (one of them lazily, inside a function)."""
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "a.py").write_text("from pkg import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from pkg.a import g\n")
    graph = import_graph(tmp_path, "pkg")
    assert [sorted(c) for c in nx.simple_cycles(graph)] == [["pkg.a", "pkg.b"]]
