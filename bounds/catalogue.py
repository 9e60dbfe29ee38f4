"""The catalogue of statements: canonical names, aliases (main-text numbers), lookup and proofs.

The only module that imports every statement; statements and ``bounds.core`` never import it (a proof is
composed from the catalogue it is given: ``proof(name, catalogue)``)."""
from __future__ import annotations

import re

from .attention import theorem9, theorem11
from .perturbation import lemma12, lemma13
from .softmax import lemma5, lemma8
from .subset_sum import lemma2, lemma7, lueker, theorem10
from .theorem14 import theorem14

STATEMENTS = {s.name: s for s in (lueker, lemma2, lemma7, lemma8, lemma5, theorem9, theorem10, theorem11,
                                  lemma12, lemma13, theorem14)}
ALIASES = {"lemma4": "lemma7", "theorem3": "theorem9", "theorem6": "theorem14"}


def names() -> list[str]:
    """Canonical statement names, in the order of theorems.md."""
    return list(STATEMENTS)


def canonical(name: str) -> str:
    key = re.sub(r"[\s_\-.]+", "", str(name)).lower()
    key = ALIASES.get(key, key)
    if key not in STATEMENTS:
        raise KeyError(f"unknown statement {name!r}; known: {names()} and aliases {sorted(ALIASES)}")
    return key


def get(name: str):
    """The statement called ``name`` (canonical name or alias such as "Theorem 3")."""
    return STATEMENTS[canonical(name)]


def lookup(catalogue: dict | None = None):
    """``get`` for ``catalogue`` (default: the bounds catalogue), as passed to ``Statement.steps``."""
    cat = STATEMENTS if catalogue is None else catalogue
    return lambda name: cat[canonical(name)]


def proof(name: str, catalogue: dict | None = None) -> list:
    """The proof steps of statement ``name``, composed from ``catalogue`` (default: the bounds catalogue)."""
    get_ = lookup(catalogue)
    return get_(name).steps(get_)
