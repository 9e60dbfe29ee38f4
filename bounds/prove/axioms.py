"""The axioms of a statement: the results its proof finally rests on that the harness does not prove
(``slth proofs --axioms [NAME]``; the analogue of Lean's ``#print axioms``).

Found by following every step's ``relies_on`` through the catalogue: a statement with an encoded proof is entered
(its own steps' dependencies are followed in turn); a statement without one (Lueker's corollary) is an axiom with
its width requirement and universal constant; a scalar fact (``facts.SCALAR``) is an axiom with the domain it is
certified on; a structural fact (``facts.STRUCTURAL``: triangle inequality, union bound, ...) is an axiom cited by
name; a premise a step names (``Step.premises``, declared in ``bounds.premises``: Lueker's hypothesis on the items,
an induction, a bound on the inputs, ...) is an axiom with what it assumes.  A dependency that names none of these
is an error (a misspelt ``relies_on``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..catalogue import STATEMENTS, canonical, lookup
from ..facts import SCALAR, STRUCTURAL
from ..symbols import text
from .verify import verify_facts

KINDS = ("statement", "premise", "scalar fact", "structural fact")


@dataclass(frozen=True)
class Axiom:
    kind: str  # one of KINDS
    name: str
    says: str  # what it states
    detail: str  # constant C / certified domain / "cited, not verified" / where a premise is used
    cited_by: tuple  # ((statement, step), ...) the steps that cite it directly

    def as_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "says": self.says, "detail": self.detail,
                "cited_by": [list(c) for c in self.cited_by]}


def _statement_name(dep: str, catalogue: dict):
    try:
        return canonical(dep, catalogue)
    except KeyError:
        return None


def _statement_axiom(st, cited_by) -> Axiom:
    widths = "; ".join(f"{w} >= {text(e)}" for w, e in st.widths.items())
    from slth_base.numbering import numbering_heading  # the one heading every surface gives a statement

    says = f"{st.title} ({numbering_heading(st.numbering, st.name)}): error <= {text(st.conclusion)}" + \
        (f" with probability >= {text(st.probability)}" if st.probability is not None else "") + \
        (f" if {widths}" if widths else "")
    detail = "cited, not proved in the harness" + \
        ("; C is a universal constant it does not give (calibrated empirically: slth calibrate)"
         if "C" in st.parameters else "")
    return Axiom("statement", st.name, says, detail, tuple(cited_by))


def _fact_domain(fact) -> str:
    result = {r.step: r for r in verify_facts()}[fact.name]
    hyps = ", ".join(h.label for h in fact.domain.hypotheses())
    how = f"certified on its whole domain ({result.method})" if result.ok and result.domain == "whole" else \
        f"{'certified' if result.ok else 'NOT certified'} on {result.domain}"
    return f"domain {hyps}: {how}"


def premise_status(p) -> str:
    """What is known of premise ``p``: "proved in Coq (...)" when ``proofs/coq/math/Premises.v`` proves its
    proposition (``bounds.prove.coq_text.proved_premises``, the list the proof map and ``slth docs`` print), else
    "assumed, not checked" with its role."""
    from . import coq_text

    if p.name in coq_text.proved_premises():
        by = ", ".join(coq_text.PROVED_PREMISES.get(p.name, ()))
        return f"proved in Coq ({coq_text.PREMISE_COQ[p.name]}_holds" + (f", by {by}" if by else "") + ")"
    return f"assumed, not checked ({p.role})" if p.role else "assumed, not checked"


STRUCTURAL_COQ = {  # a structural fact -> ({Coq theorem: its file in proofs/coq/math}, what it covers) or why not
    "triangle": ({"norm_triangle": "Triangle.v"}, ""),
    "operator norm": ({"vecmat_le_op": "Perturbation.v"}, ""),
    "max-entry norm": ({"norm_le_sqrt_dim_max": "Sums.v", "uniform_in_x": "Matrix.v"},
                       "vectors by norm_le_sqrt_dim_max; a matrix by uniform_in_x (||D x|| <= sqrt(m) sqrt(n) "
                       "max|D_ij| ||x||)"),
    "convex combination": ({"norm_combination": "Triangle.v", "softmax_rows_norm": "Triangle.v"},
                           "norm_combination: ||sum_k q_k x_k|| <= sum_k |q_k| ||x_k||, and for the masked softmax "
                           "weights softmax_rows_norm"),
    "1-Lipschitz ReLU net": ({"relu_net_lipschitz": "Perturbation.v"}, ""),
    "ReLU decomposition": ({"relu_split": "OneLayer.v", "relu_split_norm": "Uniform.v"}, ""),
    "positive homogeneity": ({"pair_scale": "Deep.v", "pair_error_scaled": "Deep.v"},
                             "for the two-layer pair network of Lemma 2's construction (the net the proofs scale); "
                             "not for every bias-free ReLU net"),
    "union bound": ({}, "the Coq statements hold on the event that every subset-sum problem is solved; the Coq "
                        "development has no probability, so the union bound that gives that event's probability "
                        "is not stated there"),
}
"""Where ``proofs/coq/math/`` proves each structural fact of ``bounds.facts.STRUCTURAL`` (``structural_errors``
holds every name to a theorem its file declares), with what the theorem covers, or why no theorem does."""


def structural_status(fact: str) -> str:
    """A structural fact's real status: "proved in Coq: norm_triangle (proofs/coq/math/Triangle.v)", with what it
    covers, or "not proved in Coq: <why>"."""
    theorems, note = STRUCTURAL_COQ.get(fact, ({}, "no theorem of proofs/coq/math/ is declared to prove it"))
    if not theorems and fact == "union bound":  # proved once a file of the development declares it
        found = _declared(r"\w*(?:union_bound|boole)\w*")
        if found:
            theorems, note = found, ""
    if not theorems:
        return f"not proved in Coq: {note}"
    return ("proved in Coq: " + ", ".join(f"{t} (proofs/coq/math/{f})" for t, f in theorems.items())
            + (f"; {note}" if note else ""))


def _declared(pattern: str) -> dict[str, str]:
    """``{theorem: file}`` of the theorems of ``proofs/coq/math/`` (outside comments) whose name matches
    ``pattern``."""
    from . import coq_math, coq_text

    out = {}
    for stem, text in coq_text.sources().items():
        for m in re.finditer(rf"^\s*(?:Theorem|Lemma|Corollary)\s+({pattern})\b", coq_math.strip_comments(text),
                             re.M | re.I):
            out[m.group(1)] = f"{stem}.v"
    return out


def structural_errors(mapping: dict = STRUCTURAL_COQ, folder=None) -> list[str]:
    """One line per theorem of ``mapping`` its file does not declare (outside comments), per fact of
    ``bounds.facts.STRUCTURAL`` the mapping lacks, and per name it has that is no structural fact."""
    from . import coq_math, coq_text

    folder = Path(folder) if folder is not None else coq_text.MATH
    out = [f"{f}: no entry in STRUCTURAL_COQ" for f in STRUCTURAL if f not in mapping]
    out += [f"{f}: no structural fact of bounds.facts" for f in mapping if f not in STRUCTURAL]
    for fact, (theorems, _) in mapping.items():
        for thm, file in theorems.items():
            path = folder / file
            text = coq_math.strip_comments(path.read_text()) if path.is_file() else ""
            if not re.search(rf"^\s*(?:Theorem|Lemma|Corollary)\s+{re.escape(thm)}\b", text, re.M):
                out.append(f"{fact}: {thm} is not declared in proofs/coq/math/{file}")
    return out


def axioms(name: str, catalogue: dict | None = None) -> list[Axiom]:
    """The axioms of statement ``name`` in ``catalogue`` (default: the bounds catalogue), statements first, then
    scalar facts, then structural facts, each with the steps that cite it."""
    cat = STATEMENTS if catalogue is None else catalogue
    get = lookup(cat)
    scalar = {f.name: f for f in SCALAR}
    cited: dict = {}
    premises: dict = {}
    seen, todo = set(), [canonical(name, cat)]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        st = get(current)
        steps = st.steps(get)
        if not steps:
            cited.setdefault(("statement", st.name), [])
            continue
        for s in steps:
            for p in s.premises:
                cited.setdefault(("premise", p.name), []).append((st.name, s.name))
                premises[p.name] = p
            for dep in s.relies_on:
                key = _statement_name(dep, cat)
                if key is not None and get(key).steps(get):  # a proved statement: its own steps' dependencies
                    todo.append(key)
                    continue
                kind = ("statement" if key is not None else "scalar fact" if dep in scalar else
                        "structural fact" if dep in STRUCTURAL else None)
                if kind is None:
                    raise ValueError(f"{st.name}:{s.name} relies on {dep!r}, which is no statement and no fact "
                                     f"(bounds.facts)")
                cited.setdefault((kind, key or dep), []).append((st.name, s.name))
    out = []
    for (kind, dep), by in cited.items():
        if kind == "statement":
            out.append(_statement_axiom(get(dep), by))
        elif kind == "premise":
            p = premises[dep]
            out.append(Axiom(kind, dep, p.says, premise_status(p), tuple(by)))
        elif kind == "scalar fact":
            f = scalar[dep]
            out.append(Axiom(kind, dep, f"{text(f.lhs)} <= {text(f.rhs)}", _fact_domain(f), tuple(by)))
        else:
            out.append(Axiom(kind, dep, STRUCTURAL[dep], structural_status(dep), tuple(by)))
    return sorted(out, key=lambda a: (KINDS.index(a.kind), a.name))
