"""The catalogue of statements: canonical names, aliases (main-text numbers), lookup and proofs.

The statements are discovered, not listed: every module of ``bounds/`` (a plain module, not a subpackage) whose
source assigns ``DECLARED`` at its top level is imported, and ``DECLARED`` is read as ``(order, statement)`` pairs.
``STATEMENTS`` holds them sorted by ``order``, the statement's place in the paper's order (the order of
docs/statements.md: a statement comes after every statement its proof uses); keys are spaced by 10 so a new
statement takes a free one. The modules are found by reading their source, so the prover's modules are never
imported here. Two statements with one name or one order key are refused (``CatalogueError``).

The only module that imports every statement; statements and ``bounds.core`` never import it (a proof is
composed from the catalogue it is given: ``proof(name, catalogue)``)."""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

DECLARES = re.compile(r"^DECLARED\s*(:[^=]*)?=", re.MULTILINE)
"""A top-level assignment of ``DECLARED`` in a module's source: the module declares statements."""


class CatalogueError(ValueError):
    """The statement modules declare something the catalogue cannot order (a one-line message naming it)."""


def discover(path=None, package: str = __package__) -> dict:
    """name -> statement for every statement the modules of ``package`` (found on ``path``, default the package's
    own ``__path__``) declare in ``DECLARED``, in the order of their keys."""
    if path is None:
        path = importlib.import_module(package).__path__
    by_order: dict = {}
    by_name: dict = {}
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if info.ispkg or info.name == "catalogue":
            continue
        source = Path(info.module_finder.path) / f"{info.name}.py"
        if not source.is_file() or not DECLARES.search(source.read_text(encoding="utf-8")):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        for order, statement in module.DECLARED:
            for seen, key, what in ((by_order, order, "order key"), (by_name, statement.name, "name")):
                if key in seen:
                    raise CatalogueError(f"{package}.{info.name}: {statement.name!r} has the {what} {key!r} of "
                                         f"{seen[key].name!r}")
                seen[key] = statement
    return {by_order[order].name: by_order[order] for order in sorted(by_order)}


STATEMENTS = discover()
ALIASES = {"lemma4": "lemma7", "theorem3": "theorem9", "theorem6": "theorem14"}
OWN_HYPOTHESES = {"Lemma 12's ||x'_i|| <= alpha": ("lemma12", "lemma13")}
"""Premises that are hypotheses of the statement as the harness encodes it (its repaired form: Lemma 12 and Lemma
13 carry ``||x'_i|| <= alpha``, which the printed statements lack; ``bounds/perturbation.py``), so a Coq theorem
resting on one is proved of that repaired form, not from an assumption beyond it."""


def names() -> list[str]:
    """Canonical statement names, in the order of docs/statements.md."""
    return list(STATEMENTS)


def canonical(name: str, catalogue: dict | None = None) -> str:
    """The canonical name of ``name`` in ``catalogue`` (default: the bounds catalogue); KeyError if unknown."""
    cat = STATEMENTS if catalogue is None else catalogue
    key = re.sub(r"[\s_\-.]+", "", str(name)).lower()
    key = ALIASES.get(key, key)
    if key not in cat:
        raise KeyError(f"unknown statement {name!r}; known: {list(cat)} and aliases {sorted(ALIASES)}")
    return key


def get(name: str):
    """The statement called ``name`` (canonical name or alias such as "Theorem 3")."""
    return STATEMENTS[canonical(name)]


def lookup(catalogue: dict | None = None):
    """``get`` for ``catalogue`` (default: the bounds catalogue), as passed to ``Statement.steps``."""
    cat = STATEMENTS if catalogue is None else catalogue
    return lambda name: cat[canonical(name, cat)]


def proof(name: str, catalogue: dict | None = None) -> list:
    """The proof steps of statement ``name``, composed from ``catalogue`` (default: the bounds catalogue)."""
    get_ = lookup(catalogue)
    return get_(name).steps(get_)


def proved(catalogue: dict | None = None) -> list[str]:
    """The statements with proof steps (their builders yield steps), in catalogue order: what is verified.
    A statement without steps is cited, no proof encoded."""
    cat = STATEMENTS if catalogue is None else catalogue
    return [name for name in cat if proof(name, cat)]


def dependents(names, catalogue: dict | None = None) -> list[str]:
    """The proved statements whose proofs use any of ``names`` (directly or through others), and ``names``
    themselves when proved, in catalogue order."""
    cat = STATEMENTS if catalogue is None else catalogue
    done = proved(cat)
    uses = {n: {d for s in proof(n, cat) for d in s.relies_on if d in cat} for n in done}
    out = users(uses, {canonical(n, cat) for n in names})
    return [n for n in done if n in out]


def users(uses: dict, names) -> set:
    """``names`` and every key of ``uses`` (name -> the names it relies on) that relies on one of them, directly
    or through others: the transitive closure that both the catalogue and ``slt.diff`` (over a record) need."""
    out, grow = set(names), True
    while grow:
        grow = False
        for n, deps in uses.items():
            if n not in out and set(deps) & out:
                out.add(n)
                grow = True
    return out


def mutations(catalogue: dict | None = None) -> tuple:
    """Every statement's planted mutations (``Statement.mutations``), in catalogue order."""
    cat = STATEMENTS if catalogue is None else catalogue
    return tuple(m for st in cat.values() for m in st.mutations)


def constants(catalogue: dict | None = None) -> tuple:
    """Every statement's slack constants (``Statement.slack``), in catalogue order."""
    cat = STATEMENTS if catalogue is None else catalogue
    return tuple(c for st in cat.values() for c in st.slack)
