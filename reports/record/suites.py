"""The printed variants and the mutation suite of a run record: each re-runs every proof step under an edited
catalogue (``bounds.prove.mutations``) and turns the results into the record's rows.

Both the assembly (``reports.record.assemble``, which reads them through the committed-rows cache) and the cache's
refresh (``reports.record.verified``, which writes them) call these, so they live here, below both: the record's
modules import one way (``tests/test_record_imports.py``).
"""
from __future__ import annotations

import sys

from tqdm import tqdm

import bounds
import sympy as sp

from bounds.symbols import text
from bounds.prove.mutations import MUTATIONS, catalogue_with, verify_all
from bounds.prove.mutations import run as run_mutation

__all__ = ["jsonable", "mutations", "open_ends", "params_of", "variants"]


def jsonable(value):
    """``value`` with string keys and lists for tuples: what JSON holds."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def open_ends(params) -> dict:
    """``{name: [[bound, "eps < 1"], ...]}``: the numeric open ends of the parameters' declared domains (what a
    printed counterexample next to one says, ``slt.claims.point_parts``)."""
    out = {}
    for p in params:
        for bounds_, is_open, op in ((p.lo, p.lo_open, ">"), (p.hi, p.hi_open, "<")):
            for v in bounds_ if is_open else ():
                v = sp.sympify(v)
                if not v.free_symbols and v.is_finite:
                    out.setdefault(p.name, []).append([float(v), f"{p.name} {op} {text(v)}"])
    return out


def params_of(statement: str, step=None) -> tuple:
    """The parameters a step of ``statement`` is stated over (its own, then the statement's that it does not redeclare)."""
    try:
        own = tuple(getattr(step, "params", ()) or ())
        names = {p.name for p in own}
        return own + tuple(p for p in bounds.get(statement).params if p.name not in names)
    except KeyError:
        return tuple(getattr(step, "params", ()) or ())


def variants(names: list[str] | None = None) -> list[dict]:
    """Every printed variant (of the statements ``names``, default all): the steps it breaks, against the steps it
    is declared to break."""
    variants = []
    todo = [(st, v) for st in (bounds.get(n) for n in (names or bounds.names())) for v in st.variants.values()]
    for st, v in tqdm(todo, desc="variants", unit="variant", file=sys.stderr, disable=None, leave=False):
        results = verify_all(v.apply(catalogue_with()))
        broken = [r for r in results if r.verdict == "refuted"]
        got = {(r.statement, r.step) for r in broken}
        variants.append({"statement": st.name, "variant": v.name, "description": v.description,
                         "expected": [list(x) for x in sorted(v.breaks)],
                         "broken": [{"statement": r.statement, "step": r.step, "method": r.method,
                                     "counterexample": jsonable(r.counterexample),
                                     "open_ends": open_ends(params_of(r.statement))} for r in broken],
                         "unproved": [{"statement": r.statement, "step": r.step} for r in results
                                      if r.verdict == "not proved"],
                         "verdict": "as expected" if got == set(v.breaks) else "unexpected"})
    return variants


def mutations() -> list[dict]:
    """The mutation suite: per deliberate edit, the steps that catch it."""
    out = []
    for m in tqdm(MUTATIONS, desc="mutations", unit="mutation", file=sys.stderr, disable=None, leave=False):
        caught = run_mutation(m)
        out.append({"name": m.name, "statement": m.edit.statement, "expected": list(m.caught_by),
                    "caught_by": [[r.statement, r.step] for r in caught],
                    "verdict": "caught" if caught else "SURVIVED",
                    "counterexample": jsonable(caught[0].counterexample) if caught else None})
    return out
