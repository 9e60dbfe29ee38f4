"""One generic ``Statement`` (data) and its numeric evaluation with hypothesis checking.

A statement declares its parameters (``Param``: symbol, lower/upper bounds that ARE its hypotheses,
integrality, and the bounded box its proof steps are certified on), a conclusion bound, width
requirements, success probability, named terms and proof constants, and a proof builder
``proof(statement, get) -> list[Step]`` that composes steps from the expressions of the statements
it relies on (``get`` looks them up in a catalogue, so an edited statement breaks its users).

This module imports no statement: the catalogue is always passed explicitly (``Statement.steps(get)``;
``bounds.proof(name, catalogue)`` composes a proof from a catalogue).  Numbers come from ``bounds.evaluate``.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from typing import Callable

import mpmath
import sympy as sp

from .evaluate import evaluate as _evaluate
from .symbols import NAME, PARAMETER, text

_REL_TOL = 1e-12  # hypotheses are checked up to this relative slack (float inputs like alpha = sqrt(d1))


@dataclass(frozen=True)
class Param:
    """A parameter, its hypotheses (bounds) and the box on which proof steps are certified.

    ``lo``/``hi`` are tuples of SymPy bounds (all must hold); ``box`` is the numeric range of the
    parameter itself, or of its ratio to ``Max(lo)`` when a lower bound depends on other parameters
    (``alpha = r * max(sqrt(d1), sqrt(d2))`` with ``r`` in ``box``).  ``log`` subdivides in log scale.
    """

    name: str
    lo: tuple = ()
    hi: tuple = ()
    lo_open: bool = False
    hi_open: bool = False
    integer: bool = False
    box: tuple = (1, 64)
    log: bool = False

    @property
    def symbol(self) -> sp.Symbol:
        return PARAMETER[self.name]

    @property
    def dependent(self) -> bool:
        """True when a lower bound involves other parameters (verified by a change of variables)."""
        return any(sp.sympify(v).free_symbols for v in self.lo)

    def hypotheses(self) -> list["Hypothesis"]:
        return list(_hypotheses(self))


@functools.lru_cache(maxsize=None)
def _hypotheses(p: Param) -> tuple:
    """The hypotheses a parameter's declaration states (integrality, lower and upper bounds)."""
    out = [Hypothesis(f"{p.name} is an integer", sp.Contains(p.symbol, sp.Integers, evaluate=False))] if p.integer else []
    for v in p.lo:
        op, rel = (">", sp.Gt) if p.lo_open else (">=", sp.Ge)
        out.append(Hypothesis(f"{p.name} {op} {text(v)}", rel(p.symbol, v, evaluate=False)))
    for v in p.hi:
        op, rel = ("<", sp.Lt) if p.hi_open else ("<=", sp.Le)
        out.append(Hypothesis(f"{p.name} {op} {text(v)}", rel(p.symbol, v, evaluate=False)))
    return tuple(out)


@dataclass(frozen=True)
class Hypothesis:
    label: str
    relation: sp.Basic


@dataclass(frozen=True)
class Fact:
    """A named elementary inequality ``lhs <= rhs`` valid on ``domain`` (a Param of the variable x)."""

    name: str
    lhs: sp.Expr
    rhs: sp.Expr
    domain: Param
    note: str = ""

    def apply(self, expr: sp.Expr) -> sp.Expr:
        """Replace every instance of ``lhs`` (pattern in x) in ``expr`` by the matching ``rhs``."""
        return _replaced(self.lhs, self.rhs, expr)


@functools.lru_cache(maxsize=1024)
def _replaced(lhs: sp.Expr, rhs: sp.Expr, expr: sp.Expr) -> sp.Expr:
    """``Fact.apply``, kept per (fact, expression): SymPy's pattern replace costs 15 to 45 ms on Theorem 14's block
    step, whose proof is composed again for every lookup (``bounds.catalogue.proof``)."""
    w = sp.Wild("w")
    pat, rep = lhs.xreplace({PARAMETER["x"]: w}), rhs.xreplace({PARAMETER["x"]: w})
    return expr.replace(pat, rep)


IDENTITY, INEQUALITY = "identity", "inequality"


@functools.lru_cache(maxsize=4096)
def step_kind(lhs, rhs) -> str:
    """"identity" when ``lhs`` and ``rhs`` are equal by construction (the same expression, or the same polynomial
    after expanding products and powers: no inequality is proved), "inequality" otherwise.  Only cheap rewriting: a
    step whose sides are equal only through a real inequality argument (a fact, a bound) is an inequality."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    if lhs == rhs:
        return IDENTITY
    diff = lhs - rhs
    if diff == 0:
        return IDENTITY
    return IDENTITY if sp.expand(diff) == 0 else INEQUALITY


def exact_rational(f) -> str:
    """The exact rational a Float stands for, as SymPy source: the simplest one (denominator <= 10^6) that rounds to
    the same double, else the shortest decimal that does: ``Float(1e-20)`` -> ``Rational(1, 10**20)``,
    ``Float(1/3)`` -> ``Rational(1, 3)``."""
    from fractions import Fraction
    v = float(f)
    simple = Fraction(v).limit_denominator(10**6)
    q = sp.Rational(simple.numerator, simple.denominator) if float(simple) == v else sp.Rational(repr(v))
    if q.q == 1:
        return f"Integer({q.p})"

    def show(n):
        k = len(str(n)) - 1
        return f"10**{k}" if n > 10 and n == 10**k else str(n)
    return f"Rational({show(q.p) if q.p > 0 else '-' + show(-q.p)}, {show(q.q)})"


@dataclass(frozen=True)
class Step:
    """One proof step: ``lhs <= rhs`` on the statement's domain (plus ``params`` of extra variables).

    ``relies_on`` names the statements and facts it cites (verified or cited results); ``premises`` the
    non-arithmetic premises it rests on that nothing checks (``bounds.premises.Premise``); ``claim`` states what the
    step proves in the proof's own terms (named, unsubstituted), where ``lhs <= rhs`` after substitution does not
    say it.  ``kind`` is "identity" when the two sides are equal by construction, "inequality" otherwise.  A side
    holding a ``Float`` is refused (ValueError naming the exact rational to write): ``1 + Float(1e-20)`` would be
    ``1.0`` before any judge saw it."""

    name: str
    lhs: sp.Expr
    rhs: sp.Expr
    relies_on: tuple = ()
    note: str = ""
    params: tuple = ()
    premises: tuple = ()
    claim: str = ""

    def __post_init__(self):
        for side in ("lhs", "rhs"):
            floats = sp.sympify(getattr(self, side)).atoms(sp.Float)
            if floats:
                f = sorted(floats, key=sp.default_sort_key)[0]
                raise ValueError(f"step {self.name}: its {side} holds the Float {float(f)!r}, which is rounded (1 + "
                                 f"Float(1e-20) is already 1.0 before any check runs); write the exact rational meant, "
                                 f"{exact_rational(f)} for this one")

    @property
    def kind(self) -> str:
        return step_kind(self.lhs, self.rhs)

    @property
    def cites(self) -> tuple:
        """The names of everything the step rests on: ``relies_on`` and its premises."""
        return tuple(self.relies_on) + tuple(p.name for p in self.premises)

    def form(self) -> str:
        """What the step proves, as a reader should see it: its ``claim`` (or ``lhs <= rhs`` written with parameter
        names when it has none), marked "identity" when the sides are equal by construction."""
        body = self.claim or f"{text(self.lhs)} <= {text(self.rhs)}"
        return f"identity: {body}" if self.kind == IDENTITY else body

    def evaluate(self, dps: int = 50, **params) -> tuple:
        """(lhs, rhs) as mpmath numbers at ``params`` (parameter names), computed with ``dps`` digits."""
        return tuple(_evaluate(side, params, dps) for side in (self.lhs, self.rhs))


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` by ``new`` in one field of one statement (``where``: ``conclusion``,
    ``probability``, ``widths.<name>``, ``terms.<name>`` or ``constants.<name>``)."""

    statement: str
    where: str
    old: object
    new: object

    def apply(self, st: "Statement") -> "Statement":
        head, _, key = self.where.partition(".")
        if head == "params":
            return self._apply_param(st, key)
        old, new = sp.sympify(self.old), sp.sympify(self.new)
        value = getattr(st, head)
        target = value[key] if key else value
        edited = target.xreplace({old: new})
        if edited == target:
            raise ValueError(f"edit {self}: {text(old)} does not occur in {self.statement}.{self.where}")
        if key:
            return dataclasses.replace(st, **{head: {**value, key: edited}})
        return dataclasses.replace(st, **{head: edited})

    def _apply_param(self, st: "Statement", key: str) -> "Statement":
        """``where = "params.<name>.<field>"``: a hypothesis of parameter <name> (``lo``/``hi``: ``old`` replaced
        by ``new`` in its bounds; ``lo_open``/``hi_open``: the flag ``old`` set to ``new``), or the box its steps
        are sampled on (``box``: ``old`` replaced by ``new`` in it)."""
        name, _, attr = key.partition(".")
        p = st.param(name)
        if attr in ("lo", "hi", "box"):
            cur = getattr(p, attr)
            edited = tuple(sp.sympify(v).xreplace({sp.sympify(self.old): sp.sympify(self.new)}) for v in cur)
            changed = edited != tuple(sp.sympify(v) for v in cur)
        elif attr in ("lo_open", "hi_open"):
            edited, changed = bool(self.new), getattr(p, attr) == bool(self.old) and bool(self.old) != bool(self.new)
        else:
            raise ValueError(f"edit {self}: a parameter's field is lo, hi, lo_open, hi_open or box, not {attr!r}")
        if not changed:
            raise ValueError(f"edit {self}: {self.old!r} does not occur in {self.statement}.{self.where}")
        q = dataclasses.replace(p, **{attr: edited})
        return dataclasses.replace(st, params=tuple(q if r.name == name else r for r in st.params))


TYPESET = "as typeset in the available copy (a reading apart from 'as printed', which reads sqrt(d1))"
"""How a variant that reads the available copy's d1 for sqrt(d1) begins: the copy's typesetting, not what "as
printed" means in a statement-level verdict (``slt.claims.PRINTED_MEANS``)."""


@dataclass(frozen=True)
class Variant:
    """A named alternative reading (e.g. the printed form) and the steps it is expected to break."""

    name: str
    description: str
    edits: tuple
    breaks: tuple  # ((statement, step), ...)

    def apply(self, catalogue: dict) -> dict:
        out = dict(catalogue)
        for e in self.edits:
            out[e.statement] = e.apply(out[e.statement])
        return out


@dataclass(frozen=True)
class Mutation:
    """A planted error in the declaring statement: ``old`` -> ``new`` in its field ``where`` (as in ``Edit``), and
    the proof step expected to catch it: ``step`` of statement ``by`` (default: the declaring statement).
    ``statement`` is filled in by the declaring ``Statement``."""

    name: str
    where: str
    old: object
    new: object
    step: str
    by: str = ""
    statement: str = ""

    @property
    def edit(self) -> Edit:
        return Edit(self.statement, self.where, self.old, self.new)

    @property
    def caught_by(self) -> tuple:
        """(statement, step) expected to fail."""
        return (self.by or self.statement, self.step)


SLACK_C = sp.Symbol("_C", positive=True)  # the candidate value in a ``Constant.template``


@dataclass(frozen=True)
class Constant:
    """A number ``value`` in the fields ``where`` of the declaring statement, whose slack ``bounds.prove.slack`` finds;
    ``tighter`` is -1 when a smaller value makes the statement stronger (a width's factor, a bound's factor), +1 when
    a larger one does (an error budget handed to a sub-step; Theorem 11's split, whose lower end is forced by the 32
    of n_MHA, is searched upwards to show its room); ``old`` is the SymPy sub-expression edited (default: the number
    itself) and ``template`` the expression in ``SLACK_C`` replacing it.  ``statement`` is filled in by the
    declaring ``Statement``."""

    label: str
    where: tuple
    value: object
    tighter: int = -1
    old: object = None
    template: object = None
    statement: str = ""

    def edits(self, c) -> list[Edit]:
        old = sp.sympify(self.value if self.old is None else self.old)
        new = c if self.template is None else sp.sympify(self.template).xreplace({SLACK_C: c})
        return [Edit(self.statement, w, old, new) for w in self.where]


@dataclass(frozen=True)
class Readings:
    """The readings of one proof constant of the declaring statement (``bounds.prove.readings`` bisects each for the
    smallest integer value that closes it).  ``table``: reading name -> (label, description, edits other than the
    constant, steps that fail at the printed value); ``edits(value)``: the edits setting the constant;
    ``block_steps``: the steps the constant decides, ``decisive`` the one verified first (fails fastest);
    ``exact_step(st, get)``: the block inequality with the exact function the reading bounds, and ``chord``
    ``(where, bound)``: the edit of that bound certifying the exact inequality."""

    constant: str
    declared: object
    printed: object
    table: dict
    edits: Callable
    block_steps: tuple
    decisive: str
    exact_step: Callable
    chord: tuple


@dataclass(frozen=True)
class Statement:
    name: str
    title: str
    numbering: dict
    params: tuple
    conclusion: sp.Expr
    quantity: str
    widths: dict = field(default_factory=dict)
    probability: sp.Expr | None = None
    terms: dict = field(default_factory=dict)
    constants: dict = field(default_factory=dict)
    variants: dict = field(default_factory=dict)
    builder: Callable | None = None
    notes: str = ""
    mutations: tuple = ()  # planted errors (``Mutation``), each with the step that must catch it
    slack: tuple = ()  # numeric constants (``Constant``) whose slack ``slth proofs --slack`` finds
    readings: Readings | None = None

    def __post_init__(self):
        for attr in ("mutations", "slack"):
            bound = tuple(dataclasses.replace(m, statement=self.name) for m in getattr(self, attr))
            object.__setattr__(self, attr, bound)

    # ----- declarative views -------------------------------------------------------------------
    @property
    def symbols(self) -> dict:
        return {p.name: p.symbol for p in self.params}

    @property
    def parameters(self) -> list[str]:
        return [p.name for p in self.params]

    @property
    def hypotheses(self) -> list[Hypothesis]:
        return [h for p in self.params for h in p.hypotheses()]

    @property
    def domain(self) -> dict:
        """Per parameter: ``{"lo": SymPy|None, "hi": SymPy|None, "lo_open", "hi_open", "integer"}``."""
        def join(vals, f):
            return None if not vals else (sp.sympify(vals[0]) if len(vals) == 1 else f(*vals))
        return {p.name: {"lo": join(p.lo, sp.Max), "hi": join(p.hi, sp.Min), "lo_open": p.lo_open,
                         "hi_open": p.hi_open, "integer": p.integer} for p in self.params}

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def steps(self, get: Callable) -> list[Step]:
        """The proof, composed from the statements that ``get`` returns (a catalogue lookup)."""
        return [] if self.builder is None else self.builder(self, get)

    def variant(self, name: str) -> "Statement":
        """This statement as edited by its variant ``name`` (e.g. ``get("lemma13").variant("printed")``)."""
        if name not in self.variants:
            raise ValueError(f"{self.name} has no variant {name!r}; variants: {sorted(self.variants)}")
        st = self
        for e in self.variants[name].edits:
            st = e.apply(st) if e.statement == self.name else st
        return st

    # ----- numbers -----------------------------------------------------------------------------
    def evaluate(self, **params) -> float:
        """The conclusion's bound at ``params`` (float)."""
        return self._eval(self.conclusion, params, "conclusion")

    def width(self, width_name: str, C=None, **params) -> int:
        """Smallest integer width (>= 1) meeting the requirement ``width_name`` at ``params``."""
        if width_name not in self.widths:
            raise ValueError(f"{self.name} has no width {width_name!r}; widths: {sorted(self.widths)}")
        if C is None:
            raise ValueError(f"{self.name}.width({width_name!r}) needs the universal constant C")
        value = self._eval(self.widths[width_name], {**params, "C": C}, width_name, exact=True)
        return max(1, int(mpmath.ceil(value)))

    def term(self, term_name: str, **params) -> float:
        if term_name not in self.terms:
            raise ValueError(f"{self.name} has no term {term_name!r}; terms: {sorted(self.terms)}")
        return self._eval(self.terms[term_name], params, term_name)

    def check(self, **params) -> None:
        """Raise ValueError naming the first violated hypothesis among the given parameters."""
        known = {p.name: p for p in self.params}
        for k, v in params.items():
            if k not in known:
                raise ValueError(f"{self.name}: unknown parameter {k!r}; parameters: {self.parameters}")
            try:
                fv = float(v)
            except OverflowError:
                raise ValueError(f"{self.name}: parameter {k} is too large to evaluate (beyond the float64 range, "
                                 f"1.8e308)") from None
            except (TypeError, ValueError):
                raise ValueError(f"{self.name}: parameter {k}={v!r} is not a number") from None
            if math.isnan(fv) or math.isinf(fv):
                raise ValueError(f"{self.name}: parameter {k} is {v!r} (hypothesis: {k} finite)")
        values = {PARAMETER[k]: float(v) for k, v in params.items()}
        for p in self.params:
            if p.name not in params:
                continue
            for h in p.hypotheses():
                if not all(s in values for s in h.relation.free_symbols):
                    continue
                if not _holds(h, values):
                    shown = ", ".join(f"{NAME[s]}={float(values[s])!r}" for s in sorted(h.relation.free_symbols, key=str))
                    raise ValueError(f"{self.name}: hypothesis '{h.label}' violated ({shown})")

    def _eval(self, expr, params, what, exact=False):
        self.check(**params)
        needed = {NAME[s] for s in sp.sympify(expr).free_symbols}
        missing = sorted(needed - set(params))
        if missing:
            raise ValueError(f"{self.name}.{what} needs parameters {missing}")
        value = _evaluate(expr, {n: float(params[n]) for n in needed}, 30)
        if isinstance(value, mpmath.mpc) or value != value:
            raise ValueError(f"{self.name}.{what} is not real at {params}")
        return value if exact else float(value)


def _holds(h: Hypothesis, values: dict) -> bool:
    rel = h.relation
    if isinstance(rel, sp.Contains):  # integrality
        v = float(values[rel.args[0]])
        return v == int(v)
    named = {NAME[k]: v for k, v in values.items()}
    lhs, rhs = (float(_evaluate(side, named, 30)) for side in rel.args)
    slack = _REL_TOL * max(abs(lhs), abs(rhs), 1.0)
    if isinstance(rel, sp.Ge):
        return lhs >= rhs - slack
    if isinstance(rel, sp.Gt):
        return lhs > rhs
    if isinstance(rel, sp.Le):
        return lhs <= rhs + slack
    return lhs < rhs
