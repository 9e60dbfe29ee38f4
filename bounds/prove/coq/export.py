"""Per proof step, a Coq lemma: its premises are the hypotheses of the step's domain, read from the ``Param``
declarations (``Domain(step, params).params``: lower and upper bounds, strict where open, dependent lower bounds,
integrality), never from SymPy's symbol assumptions; its proof is the first candidate of the generated cascade
(``cascade``) that Coq accepts (``search``), recorded in ``proofs/coq/tactics.json``."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from ...core import Step
from ..verify import exact
from ..verify_domain import Domain
from .cascade import candidates, lemma_name, lower_bounds
from .printer import coq, ident

COMMON = Path(__file__).resolve().parents[3] / "proofs" / "coq" / "Common.v"
"""The committed prelude's one source: ``Common.v`` (which ``check.text`` writes back as this prelude and the facts)."""


def prelude(path: Path = COMMON) -> str:
    """The Coq prelude every exported file starts from: ``Common.v`` from its first ``Require`` up to its first
    fact lemma (``(* facts:``); a missing or malformed file is a ValueError naming it."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise ValueError(f"{path}: cannot read the Coq prelude: {e.strerror or e}") from None
    start = text.find("From Coq Require Import")
    if start < 0:
        raise ValueError(f"{path}: no 'From Coq Require Import' line: not the Coq prelude")
    end = text.find("\n(* facts:", start)
    return text[start:] if end < 0 else text[start:end]


PRELUDE = prelude()


_CANDIDATES: dict = {}


@dataclass(frozen=True)
class Lemma:
    statement: str
    step: str
    name: str  # Coq identifier
    text: str  # "forall ..., premises -> lhs <= rhs"
    premises: tuple  # (label, coq text) per hypothesis
    binders: tuple  # Coq identifiers of the parameters
    lhs: str
    rhs: str
    sides: tuple = field(default=(), compare=False, repr=False)  # (lhs, rhs, Domain) in SymPy, for the search

    @property
    def candidates(self) -> tuple:
        """The tactic scripts of the generated cascade, tried in order (computed on first use: SymPy's seconds)."""
        if self.key not in _CANDIDATES:
            _CANDIDATES[self.key] = tuple(candidates(*self.sides))
        return _CANDIDATES[self.key]

    @property
    def key(self) -> str:
        """Hash of the lemma's statement: the key of its recorded tactic."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def_pre: str = ""  # tactics before the definedness proof: constant lower bounds of dependent parameters
    defined: tuple = ()  # Coq propositions: every denominator nonzero, every ln/Rpower argument positive, ...

    def proof(self, tactic: str) -> str:
        return (f"Lemma {self.name} : {self.text}.\nProof.\n  intros.\n  {tactic}.\nQed.\n")

    def proof_by(self, constant: str) -> str:
        """The lemma proved by a constant whose type is its statement (a proof the search kept)."""
        return f"Lemma {self.name} : {self.text}.\nProof.\n  exact {constant}.\nQed.\n"

    @property
    def def_name(self) -> str:
        return "def_" + self.name

    @property
    def def_text(self) -> str | None:
        """``forall ..., premises -> c1 /\\ c2 ...``: both sides are defined on the domain (None: nothing to prove)."""
        if not self.defined:
            return None
        body = " -> ".join([t for _, t in self.premises] + [" /\\ ".join(f"({c})" for c in self.defined)])
        return f"forall {' '.join(self.binders)} : R, {body}" if self.binders else body

    def def_proof(self) -> str:
        """The definedness lemma (its proof generated here, the same for every step: ``slth_def`` per condition)."""
        if self.def_text is None:
            return ""
        return (f"Lemma {self.def_name} : {self.def_text}.\nProof.\n  intros.\n  {self.def_pre}repeat split; slth_def.\n"
                "Qed.\n")


def premises(dom: Domain) -> list[tuple[str, str]]:
    """(label, Coq proposition) for every hypothesis of the step's parameters, from their ``Param``s."""
    out = []
    for p in dom.params:
        v = ident(p.symbol)
        if p.integer:
            out.append((f"{p.name} is an integer", f"is_int {v}"))
        for lo in p.lo:
            op = "<" if p.lo_open else "<="
            out.append((f"{lo} {op} {p.name}", f"{coq(exact(lo))} {op} {v}"))
        for hi in p.hi:
            op = "<" if p.hi_open else "<="
            out.append((f"{p.name} {op} {hi}", f"{v} {op} {coq(exact(hi))}"))
    return out


def definedness(*exprs) -> list[tuple[str, sp.Expr, str]]:
    """(Coq proposition, SymPy base, kind) for every place a side is defined only in part of the reals, as the
    printer writes it: a denominator (``/ b``: b <> 0), a square root (``sqrt b``: 0 <= b; 0 < b in a denominator),
    a logarithm (``ln b``: 0 < b) and every other non-integer power (``Rpower b e``: 0 < b, since Coq's
    ``Rpower 0 e`` is 1 where the reals give 0 for e > 0).  A positive number as the base needs nothing."""
    out = {}

    def add(kind, base, prop):
        base = sp.sympify(base)
        if base.is_number and base.is_positive:
            return
        out.setdefault(prop, (prop, base, kind))

    for e in exprs:
        for a in sp.preorder_traversal(sp.sympify(e)):
            if isinstance(a, sp.Pow):
                b, x = a.base, a.exp
                if b is sp.E:
                    continue
                if x.is_Integer:
                    if x < 0:
                        add("a denominator is 0", b, f"{coq(b)} <> 0")
                elif x.is_Rational and x.q == 2:
                    add("a square root's argument is below 0" if x > 0 else "a denominator is 0", b,
                        f"0 <= {coq(b)}" if x > 0 else f"0 < {coq(b)}")
                else:
                    add("a power's base is not positive", b, f"0 < {coq(b)}")
            elif isinstance(a, sp.log):
                add("a logarithm's argument is not positive", a.args[0], f"0 < {coq(a.args[0])}")
    return list(out.values())


def lemma(statement: str, step: Step, params: tuple) -> Lemma:
    """The Coq lemma of one step (``CoqExportError`` if a side holds an unhandled construct)."""
    lhs, rhs = exact(step.lhs), exact(step.rhs)
    dom = Domain(Step(step.name, lhs, rhs, step.relies_on, params=step.params), params)
    prem = premises(dom)
    binders = tuple(ident(p.symbol) for p in dom.params)
    concl = f"{coq(lhs)} <= {coq(rhs)}"
    body = " -> ".join([t for _, t in prem] + [concl])
    text = f"forall {' '.join(binders)} : R, {body}" if binders else body
    return Lemma(statement, step.name, lemma_name(statement, step.name), text, tuple(prem), binders, coq(lhs),
                 coq(rhs), (lhs, rhs, dom), lower_bounds(dom), tuple(c for c, _, _ in definedness(lhs, rhs)))


