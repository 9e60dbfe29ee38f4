"""The mutation suite: deliberate edits of constants and exponents in the encoded statements and proof
constants, each declared beside its statement (``Statement.mutations``) with the step expected to catch it.
``run(m)`` applies one edit to a copy of the catalogue and verifies every proof (every statement with proof
steps, ``bounds.catalogue.proved``); a mutation survives when no step is refuted."""
from __future__ import annotations

from ..catalogue import STATEMENTS, canonical, mutations, proved
from ..core import Edit, Mutation
from .verify import StepResult, verify

MUTATIONS: tuple[Mutation, ...] = mutations()


def catalogue_with(*edits: Edit) -> dict:
    """A copy of the bounds catalogue with ``edits`` applied in order."""
    cat = dict(STATEMENTS)
    for e in edits:
        cat[canonical(e.statement)] = e.apply(cat[canonical(e.statement)])
    return cat


def verify_all(catalogue: dict, search: bool = True) -> list[StepResult]:
    """Every step of every encoded proof, in ``catalogue`` (``search`` as ``verify.verify_step``'s)."""
    return [r for name in proved(catalogue) for r in verify(name, catalogue, search=search)]


def run(mutation: Mutation, search: bool = True) -> list[StepResult]:
    """The steps of all proofs refuted after applying ``mutation`` (what catches it; a step the edit leaves true but
    not certifiable is not proved, no catch).  ``search=False``: only those the first pass refutes without its
    counterexample search (by its quick sample), a subset of the full run's, each with the full run's result."""
    return [r for r in verify_all(catalogue_with(mutation.edit), search) if r.verdict == "refuted"]
