"""The Coq text of the statements: the hand-written files (``sources``), ``Statements.v`` as ``.v`` fragments
filled from ``bounds/`` (``fill``, ``statements_file``; a statement's Section is ``proofs/coq/statements/parts/<statement>.v``,
declared in ``FORMAL``), the scalar steps' files, and the premises as ``Premises.v`` states them (``PREMISE_COQ``,
``proved_premises``) and as each statement's steps cite them (``cited_premises``)."""
from __future__ import annotations

import re
from pathlib import Path

from slth_base.files import read_text

from ..catalogue import STATEMENTS, lookup
from ..premises import ALL, BY_NAME
from .coq.assumed import strip_comments
from .coq.printer import coq

ROOT = Path(__file__).resolve().parents[2]
LOGICAL = "SlthMath"
MATH = ROOT / "proofs" / "coq" / "math"
PARTS = ROOT / "proofs" / "coq" / "statements" / "parts"
"""The Coq text of ``Statements.v``, kept as ``.v`` fragments: ``Prelude.v``, ``StepPrelude.v``, ``lueker.v`` and one
Section per formalized statement (``<statement>.v``), whose placeholders (``{bound}``, ``{w:NAME}``, ``{c:NAME}``,
...: ``PLACEHOLDER``) are filled from ``bounds/`` by ``fill``; ``PrintedLogit.v`` is Lemma 12's printed logit step.
The filled file is committed as ``proofs/coq/statements/Statements.v`` (``slth docs`` writes it)."""
STATEMENTS_V = ROOT / "proofs" / "coq" / "statements" / "Statements.v"
"""The committed ``Statements.v``: exactly ``statements_file()`` (``tests/test_docs.py`` holds it so)."""


def part(stem: str) -> str:
    """The text of fragment ``stem`` of ``PARTS`` (a regular UTF-8 file of the repository)."""
    return read_text(PARTS / f"{stem}.v", "Coq source")


def sources(folder: Path = MATH) -> dict[str, str]:
    """``{stem: text}`` of every ``.v`` file of ``folder``: each a regular UTF-8 file of bounded size
    (``slth_base.files.read_text``: a link, a FIFO or bytes that are not UTF-8 are refused in one line)."""
    return {p.stem: read_text(p, "Coq source") for p in sorted(Path(folder).glob("*.v"))}


PREMISE_COQ = {  # a premise of bounds.premises -> its Coq proposition in Premises.v
    "Lueker's item distribution": "premise_lueker_items",
    "Lueker for every z at once": "premise_lueker_event",
    "|W_ij| <= ||W||": "premise_entry_bound",
    "softmax perturbation identity": "premise_softmax_identity",
    "Hoelder step": "premise_hoelder",
    "induction over layers": "premise_induction_layers",
    "induction over blocks": "premise_induction_blocks",
    "uniformity over inputs": "premise_uniform_inputs",
    "n = d1 n' when d1 does not divide n": "premise_width_per_block",
    "Lemma 12's ||x'_i|| <= alpha": "premise_lemma12_x'",
    "target weights of norm <= 1": "premise_target_norms",
    "the proof's error and probability schedule": "premise_schedule",
    "merged attention targets": "premise_merged_targets",
    "rescaled sources in U[-1, 1]": "premise_rescaled_sources",
    "(1 + g)^L = exp(L log(1 + g)) and exp increasing": "premise_power_as_exp",
}
"""Every premise of ``bounds.premises`` as the Coq proposition that states it (``proofs/coq/math/Premises.v``).  A
premise is proved in Coq when ``Premises.v`` proves ``<its proposition>_holds``."""
LUEKER_EVENT = PREMISE_COQ["Lueker for every z at once"]
CITED_COQ: dict[str, str] = {}  # a statement of the catalogue -> the Coq proposition of its conclusion, stated and
# not proved here (none: Theorems 10, 11 and 14 are proved from Lemma 2, Theorem 9, Theorem 11 and Lemma 13)
"""Cited statements whose conclusion a statement's theorem assumes as a Section hypothesis (the statement itself is
not proved in Coq): ``rests_on`` lists each as ``"statement <name>"`` beside the premises, so a theorem resting on
one is not counted as proved from Lueker's corollary alone."""

STATEMENT_PRELUDE = part("Prelude")

LUEKER_TEXT = part("lueker")
"""Lueker's corollary as the statements cite it, filled from the catalogue's statement ``lueker``."""

CITED = "lueker"
"""The one cited result: stated in Coq (``LUEKER_TEXT``) as a hypothesis of the theorems that use it, proved nowhere."""


def cited_statement(catalogue: dict | None = None) -> str:
    """The Coq text of the cited result as ``Statements.v`` writes it: its printed definitions and ``lueker_cited``."""
    return fill(CITED, LUEKER_TEXT, catalogue).split("\n(* at eps = 1")[0].strip("\n")


FORMAL = {  # statement -> (its nat parameters, the premises it rests on, its Section text: parts/<statement>.v)
    name: (params, premises, part(name)) for name, (params, premises) in {
        "lemma8": (("d1",), ()),
        "lemma5": (("d1",), ()),
        "lemma12": (("d1", "H"), ("Lemma 12's ||x'_i|| <= alpha",)),
        "lemma13": (("d1", "H"), ("Lemma 12's ||x'_i|| <= alpha",)),
        "lemma7": (("d1", "d2"), ("Lueker for every z at once", "Lueker's item distribution")),
        "lemma2": (("d1", "d2"), ("Lueker for every z at once", "Lueker's item distribution")),
        "theorem9": (("H", "d1", "d2", "d_K"), ("Lueker for every z at once", "Lueker's item distribution")),
        "theorem10": (("d1", "d2", "L"), ("Lueker for every z at once", "Lueker's item distribution")),
        "theorem11": (("H", "d1", "L"), ("Lueker for every z at once", "Lueker's item distribution")),
        "theorem14": (("d1", "H", "B", "b", "L"), ("Lueker for every z at once", "Lueker's item distribution")),
    }.items()}
"""The statements formalized (the others are not): each one Coq theorem ``stmt_<name>`` in a Section whose
hypotheses are the premises it still rests on (declared here; ``rests_on`` reads them back from Coq).
``{bound}`` is the statement's conclusion printed by ``bounds.prove.coq.printer.coq`` (its natural
parameters read as reals through ``INR``)."""


def _naturals(name: str, term: str) -> str:
    """``term`` with statement ``name``'s natural parameters read as reals (``INR n``)."""
    for n in FORMAL.get(name, ((),))[0]:
        term = re.sub(rf"(?<![\w']){re.escape(n)}(?![\w'])", f"(INR {n})", term)
    return term


def printed_bound(name: str, catalogue: dict | None = None, expr=None) -> str:
    """The Coq term of statement ``name``'s bound (or of ``expr``, another of its expressions), printed from
    ``bounds`` (``CoqExportError`` if it cannot be)."""
    st = (STATEMENTS if catalogue is None else catalogue)[name]
    return _naturals(name, coq(st.conclusion if expr is None else expr))


PLACEHOLDER = re.compile(r"\{(bound|fail|c:[\w-]+|w:[\w#-]+|t:[\w#-]+|lo:\w+:\d+|hi:\w+:\d+|step:[\w-]+)\}")
"""What a statement's text may leave to the exporter: ``{bound}`` (its conclusion), ``{fail}`` (its failure probability,
1 - probability), ``{w:NAME}`` (its width NAME), ``{lo:P:I}``/``{hi:P:I}`` (the I-th lower/upper bound of its parameter
P, a hypothesis), ``{c:NAME}`` (its constant NAME), ``{t:NAME}`` (its term NAME, an expression of its parameters;
``{t:NAME#k}``, ``{w:NAME#k}``: piece k of a piecewise term or width, e.g. Theorem 14's block 1 and blocks b >= 2) and
``{step:NAME}`` (its exported scalar step NAME applied to the statement's parameters, the lemma of
``proofs/coq/<statement>.v``)."""


def fill(name: str, text: str, catalogue: dict | None = None) -> str:
    """``text`` with each placeholder of ``PLACEHOLDER`` printed from ``catalogue``'s statement ``name``; an unknown
    constant or step is a KeyError naming it."""
    import sympy as sp

    from .coq.export import lemma
    cat = STATEMENTS if catalogue is None else catalogue
    st = cat[name]
    proof: dict = {}  # the statement's steps by name, composed once per text (not once per placeholder)

    def one(m):
        key = m.group(1)
        if key == "bound":
            return printed_bound(name, cat)
        if key == "fail":
            return _naturals(name, coq(1 - st.probability))
        kind, what = key.split(":", 1)
        if kind in ("lo", "hi"):
            param, index = what.split(":")
            (p,) = [q for q in st.params if q.name == param] or [None]
            bounds_ = getattr(p, kind, ()) if p is not None else ()
            if int(index) >= len(bounds_):
                raise KeyError(f"{name} has no {kind} bound {index} of {param!r}")
            return _naturals(name, coq(sp.sympify(bounds_[int(index)])))
        if kind in ("w", "t", "c"):
            what, _, piece = what.partition("#")
            table, label = {"w": (st.widths, "width"), "t": (st.terms, "term"), "c": (st.constants, "constant")}[kind]
            if what not in table:
                raise KeyError(f"{name} has no {label} {what!r}")
            expr = table[what]
            return _naturals(name, coq(expr.args[int(piece)].expr if piece else expr))
        if not proof:
            proof.update({s.name: s for s in st.steps(lookup(cat))})
        if what not in proof:
            raise KeyError(f"{name} has no step {what!r}")
        lem = lemma(name, proof[what], st.params)
        args = [f"(INR {b})" if b in FORMAL[name][0] else b for b in lem.binders]
        return f"({' '.join([lem.name] + args)})" if args else lem.name

    return PLACEHOLDER.sub(one, text)


SCALAR = ROOT / "proofs" / "coq"
"""The exported scalar steps (``python -m bounds.prove.coq``); a statement's theorem cites its steps' lemmas."""


def scalar_stems() -> list[str]:
    """The formalized statements whose texts cite their exported step lemmas (``{step:NAME}``)."""
    return [name for name, (_, _, text) in FORMAL.items() if "{step:" in text]


def scalar_sources(stems=None) -> dict[str, str]:
    """``{stem: text}`` of the committed scalar files the statements cite, as ``SlthMath`` files: ``Scalar_Common``
    and ``Scalar_<statement>`` (their ``From Slth Require Import Common`` read as ``Scalar_Common``)."""
    stems = scalar_stems() if stems is None else stems
    if not stems:
        return {}
    out = {"Scalar_Common": (SCALAR / "Common.v").read_text()}
    for stem in stems:
        text = (SCALAR / f"{stem}.v").read_text()
        out[f"Scalar_{stem}"] = re.sub(r"From\s+Slth\s+Require\s+Import\s+Common\.",
                                       f"From {LOGICAL} Require Import Scalar_Common.", text)
    return out


STEP_PRELUDE = part("StepPrelude")


def statements_file(catalogue: dict | None = None) -> str:
    """The text of ``Statements.v``: one theorem per formalized statement, its bound printed from ``catalogue``."""
    stems = scalar_stems()
    steps = (f"From {LOGICAL} Require Import " + " ".join(scalar_sources(stems)) + ".\n" + STEP_PRELUDE
             if stems else "")
    return STATEMENT_PRELUDE + steps + fill("lueker", LUEKER_TEXT, catalogue) + "".join(
        "\n" + fill(name, text, catalogue) for name, (_, _, text) in FORMAL.items())


def coq_statement(name: str, catalogue: dict | None = None) -> str | None:
    """The Coq statement of ``name`` as ``Statements.v`` writes it (its Section's variables and premises, and the
    theorem up to its proof), or None when the statement is not formalized."""
    if name not in FORMAL:
        return None
    text = fill(name, FORMAL[name][2], catalogue)
    return text.split("\nProof.")[0].split("\n", 1)[1].rstrip()


def with_statements(catalogue: dict | None = None) -> dict[str, str]:
    """The committed files, the scalar step files the statements cite, and the generated ``Statements.v``."""
    return {**sources(), **scalar_sources(), "Statements": statements_file(catalogue)}


def proved_premises(text: str | None = None) -> list[str]:
    """The premises (names of ``bounds.premises``) whose proposition ``Premises.v`` proves (``<prop>_holds``)."""
    text = strip_comments((MATH / "Premises.v").read_text() if text is None else text)
    done = set(re.findall(r"\b(?:Lemma|Theorem)\s+([\w']+)_holds\b", text))
    return [p for p, c in PREMISE_COQ.items() if c in done]


def premise_table_errors(table: dict = PREMISE_COQ, text: str | None = None) -> list[str]:
    """One line per premise of ``bounds.premises`` the table lacks, name it has that is no premise, or proposition
    ``Premises.v`` does not define."""
    text = strip_comments((MATH / "Premises.v").read_text() if text is None else text)
    defined = set(re.findall(r"\bDefinition\s+([\w']+)", text))
    return ([f"premise {p!r} has no Coq statement" for p in BY_NAME if p not in table]
            + [f"{p!r} is not a premise of bounds.premises" for p in table if p not in BY_NAME]
            + [f"{p!r}: {c} is not defined in Premises.v" for p, c in table.items() if c not in defined])


def cited_premises(name: str, catalogue: dict | None = None) -> list[str]:
    """The premises the steps of statement ``name`` cite (``Step.premises``), in ``bounds.premises`` order."""
    cat = STATEMENTS if catalogue is None else catalogue
    cited = {p.name for s in cat[name].steps(lookup(cat)) for p in s.premises}
    return [p.name for p in ALL if p.name in cited]


def chain_premises(name: str, catalogue: dict | None = None) -> list[str]:
    """The premises cited by the steps of statement ``name`` and, through the statements those steps rely on, by
    theirs (Lemma 13 rests on Lemma 12's premises through its step citing Lemma 12), in ``bounds.premises`` order."""
    cat = STATEMENTS if catalogue is None else catalogue
    seen, todo, cited = set(), [name], set()
    while todo:
        n = todo.pop()
        if n in seen or n not in cat:
            continue
        seen.add(n)
        for s in cat[n].steps(lookup(cat)):
            cited |= {p.name for p in s.premises}
            todo += [r for r in s.relies_on if r in cat]
    return [p.name for p in ALL if p.name in cited]


LUEKER_PREMISE = next(p for p, c in PREMISE_COQ.items() if c == LUEKER_EVENT)
"""The premise that states Lueker's corollary (as the event it gives)."""
LUEKER_COQ = "lueker_cited"
"""The Coq proposition of Lueker's corollary as the statements cite it (``LUEKER_TEXT``): a theorem whose closed type
quantifies over it rests on ``LUEKER_PREMISE``."""
LUEKER_ITEMS = next(p for p, c in PREMISE_COQ.items() if c == "premise_lueker_items")
"""The corollary's modelling hypothesis: the construction's items are in the class the corollary is cited for."""


PROVED_PREMISES = {  # a premise of bounds.premises -> the theorems above that prove it
    "softmax perturbation identity": ("softmax_shift", "Z_bounds", "ratio_bound"),
    "Hoelder step": ("hoelder",),
    "|W_ij| <= ||W||": ("entry_le_op",),
    "induction over layers": ("layers_induction", "relu_layer_lipschitz", "relu_layer_norm"),
    "induction over blocks": ("blocks_induction",),
    "merged attention targets": ("head_merged_eq",),
    "(1 + g)^L = exp(L log(1 + g)) and exp increasing": ("pow_as_exp_increasing",),
    "uniformity over inputs": ("uniform_in_x", "uniform_in_inputs"),
}
"""Premises proved here as lemmas (``Premises.v`` proves each as ``<its proposition>_holds``; the scalar steps still
cite them).  Uniformity over inputs is proved for every error that is a matrix of entry errors applied to features
of the input no longer than it (one matrix, and Lemma 2's halves ReLU(x), ReLU(-x): ``relu_split_norm``); Lemma
12's ``||x'_i|| <= alpha`` is shown to be a needed hypothesis (``lemma12_logit_needs_x'_bound``), not proved."""
