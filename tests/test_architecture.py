"""The rooms of the house, kept by their source (read with ``ast``; an import inside a function is still an arrow):
no import cycle among the house's modules, no module reaching into another's private (underscore) names, the one
module that runs external provers (``bounds.prove.external``) free of Coq's syntax, ``bounds/`` (the paper and its
prover) importing nothing of ``slt/`` or ``reports/``, and no module over ``MAX_LINES`` lines.  Each checker is run
on the house and on a planted violation it must report."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
HOUSE = ("bounds", "slt", "reports", "slth_base", "benchmarks", "scripts")
"""The house's Python (tests excluded)."""
PROCESS = "bounds/prove/external.py"
"""The one module that runs external provers: process groups, pools, time limits, kill on exit."""
MAX_LINES = 600
KEYED = {"slt/mip.py:25 slt.subset_sum._validate":
         "slt.mip and slt.subset_sum are code the committed figures are keyed on (slt.figures._mha.DEPENDS): "
         "renaming the name changes the keys of slt/figures/committed/fig4.json and fig5.json"}
"""The one private reach left, and why: the next refresh of the committed figures may take it away."""


def house(root: Path = ROOT) -> dict[str, str]:
    """``{path relative to root: source}`` of every module of the house."""
    return {p.relative_to(root).as_posix(): p.read_text() for top in HOUSE for p in sorted((root / top).rglob("*.py"))}


def _module(path: str) -> str:
    parts = path[:-len(".py")].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _arrows(path: str, source: str, names: set[str]):
    """``(module imported, name taken from it or None, line)`` for every import of a house module in ``source``, and
    ``(module, attribute, line)`` for every attribute read off a name bound to a house module."""
    here = _module(path)
    package = here if path.endswith("__init__.py") else here.rpartition(".")[0]
    bound: dict = {}
    tree = ast.parse(source, path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in names:
                    bound[alias.asname or alias.name] = full
                    yield full, None, node.lineno
                elif base in names:
                    yield base, alias.name, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in names:
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    yield alias.name, None, node.lineno
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            yield bound[node.value.id], node.attr, node.lineno


def import_graph(sources: dict[str, str]) -> nx.DiGraph:
    """module -> module for every import of one house module by another."""
    names = {_module(p) for p in sources}
    graph = nx.DiGraph()
    graph.add_nodes_from(names)
    for path, source in sources.items():
        here = _module(path)
        for target, _, _ in _arrows(path, source, names):
            if target != here:
                graph.add_edge(here, target)
    return graph


def cycles(sources: dict[str, str]) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.simple_cycles(import_graph(sources)))


def private_reaches(sources: dict[str, str]) -> list[str]:
    """``path:line module._name`` for every private name one module imports or reads off another."""
    names = {_module(p) for p in sources}
    return [f"{path}:{line} {target}.{name}" for path, source in sources.items()
            for target, name, line in _arrows(path, source, names)
            if name and name.startswith("_") and not name.startswith("__") and target != _module(path)]


COQ = re.compile(r"(?i)\bcoq\w*|\.vo\b|\bR_scope\b|Print Assumptions")


def coq_syntax(source: str) -> list[str]:
    """The words of Coq in ``source``: Coq named at all, a vernacular keyword of the tactic filter's list
    (``bounds.prove.coq.tactics.VERNACULAR``: ``Require``, ``Lemma``, ``Qed``, ...), a ``.vo`` file, a scope."""
    from bounds.prove.coq.tactics import VERNACULAR

    words = set(re.findall(r"\b[A-Z][A-Za-z_]*\b", source)) & VERNACULAR
    return sorted(words | {m.group(0) for m in COQ.finditer(source)})


def starts_processes(sources: dict[str, str]) -> list[str]:
    """The modules of ``bounds/`` that import ``subprocess``."""
    return sorted(p for p, s in sources.items() if p.startswith("bounds/") and any(
        isinstance(n, (ast.Import, ast.ImportFrom)) and "subprocess" in ([a.name for a in n.names] if
                                                                         isinstance(n, ast.Import) else [n.module])
        for n in ast.walk(ast.parse(s))))


def upward(sources: dict[str, str]) -> list[str]:
    """``module -> module`` for every import by ``bounds`` (the paper or its prover) of ``slt`` or ``reports``."""
    return sorted(f"{a} -> {b}" for a, b in import_graph(sources).edges
                  if a.split(".")[0] == "bounds" and b.split(".")[0] in ("slt", "reports"))


def long_modules(sources: dict[str, str], limit: int = MAX_LINES) -> list[str]:
    return sorted(f"{p}: {len(s.splitlines())} lines" for p, s in sources.items() if len(s.splitlines()) > limit)


# --- the house ------------------------------------------------------------------------------------------------------

def test_no_import_cycle():
    sources = house()
    graph = import_graph(sources)
    assert ("reports.record.assemble", "reports.record.verified") in graph.edges  # the graph is read at all
    assert ("bounds.prove.coq.check", "bounds.prove.external") in graph.edges
    assert cycles(sources) == []


def test_no_module_reaches_into_another_s_private_names():
    assert private_reaches(house()) == sorted(KEYED)  # KEYED: still there, or this test says to drop it


def test_the_process_module_knows_no_coq():
    source = (ROOT / PROCESS).read_text()
    assert "def run(" in source and "killpg" in source  # it is the module that runs them
    assert coq_syntax(source) == []


def test_the_prover_starts_processes_through_the_process_module_only():
    """coqc and coqchk, for the Coq judge and the mathematics build alike: no other module of ``bounds/`` imports
    ``subprocess``."""
    assert starts_processes(house()) == [PROCESS]


def test_bounds_imports_nothing_of_slt_or_reports():
    assert upward(house()) == []


def test_no_module_over_the_limit():
    assert long_modules(house()) == []


# --- each check reports a planted violation -------------------------------------------------------------------------

def test_a_planted_cycle_is_found():
    planted = {"pkg/__init__.py": "", "pkg/a.py": "from .b import f\n",
               "pkg/b.py": "def f():\n    from pkg import a\n    return a\n"}
    assert cycles(planted) == [["pkg.a", "pkg.b"]]


def test_a_planted_private_import_is_found():
    planted = {"pkg/__init__.py": "", "pkg/b.py": "def _hidden():\n    pass\n",
               "pkg/a.py": "from .b import (f, _hidden)\n", "pkg/c.py": "from . import b\nb._hidden()\n",
               "pkg/d.py": "import pkg.b as bee\n\ndef g():\n    return bee._hidden, bee.__name__\n"}
    assert private_reaches(planted) == ["pkg/a.py:1 pkg.b._hidden", "pkg/c.py:2 pkg.b._hidden",
                                        "pkg/d.py:4 pkg.b._hidden"]


def test_planted_coq_in_the_process_module_is_found():
    assert coq_syntax('ARGS = ["-Q", ".", "Slth"]\nHEAD = "From Coq Require Import Reals."\n') == \
        ["Coq", "From", "Import", "Require"]
    assert coq_syntax("def f(out):\n    return out.endswith('x.vo')\n") == [".vo"]


def test_a_planted_upward_import_is_found():
    planted = {"bounds/__init__.py": "", "bounds/prove/__init__.py": "",
               "bounds/prove/x.py": "def f():\n    from slt.cache import fingerprint\n", "slt/__init__.py": "",
               "slt/cache.py": "def fingerprint():\n    pass\n"}
    assert upward(planted) == ["bounds.prove.x -> slt.cache"]


def test_a_planted_process_start_is_found():
    planted = {"bounds/prove/external.py": "import subprocess\n", "bounds/prove/x.py": "from subprocess import run\n",
               "slt/y.py": "import subprocess\n"}
    assert starts_processes(planted) == ["bounds/prove/external.py", "bounds/prove/x.py"]


def test_a_planted_long_module_is_found():
    assert long_modules({"slt/long.py": "x = 1\n" * (MAX_LINES + 1), "slt/ok.py": "x = 1\n" * MAX_LINES}) == \
        [f"slt/long.py: {MAX_LINES + 1} lines"]


# --- the page that draws the rooms ----------------------------------------------------------------------------------

def unlisted(page: str, sources: dict[str, str]) -> list[str]:
    """The prover's modules (``bounds/prove/``, packages' ``__init__``/``__main__`` aside) that the "prover's rooms"
    section of ``page`` does not name."""
    section = page.split("## The prover's rooms", 1)[-1].split("\n## ", 1)[0]
    return sorted(p for p in sources if p.startswith("bounds/prove/") and not p.endswith(("__init__.py", "__main__.py"))
                  and p.rsplit("/", 1)[1] not in section)


def test_the_architecture_page_names_every_prover_module():
    assert unlisted((ROOT / "docs" / "architecture.md").read_text(), house()) == []


def test_a_module_missing_from_the_page_is_found():
    page = "## The prover's rooms\n\nbounds/prove/verify.py  decides\n\n## Adding a statement\nbounds/prove/kernel.py\n"
    assert unlisted(page, {"bounds/prove/verify.py": "", "bounds/prove/kernel.py": "", "bounds/prove/__init__.py": ""}) \
        == ["bounds/prove/kernel.py"]


def test_a_statement_s_coq_theorem_is_its_parts_file():
    """What the page says: the Section of each formalized statement is read from
    ``proofs/coq/statements/parts/<statement>.v`` and nowhere else."""
    from bounds.prove import coq_text

    assert coq_text.FORMAL and coq_text.PARTS == ROOT / "proofs" / "coq" / "statements" / "parts"
    for name, (_, _, text) in coq_text.FORMAL.items():
        assert text == (coq_text.PARTS / f"{name}.v").read_text(), name
        assert f"Theorem stmt_{name}" in text and f"stmt_{name}" in coq_text.statements_file(), name
