"""The hand-written Coq mathematics under ``proofs/coq/math/``: compile it, scan it, and list what its theorems
rest on.

The files define the paper's objects (``Objects.v``) and prove lemmas about them (Lemma 8 and Lemma 5 for every
sequence length, width, mask and logit vector; an entry of a matrix bounded by its operator norm; the logit bound;
the block structure of Lemma 7's construction; a head equals its merged form; the induction over layers and over
blocks (and the chain of B blocks Theorem 14 runs); uniformity over inputs; Theorem 10 from Lemma 2's conclusion per layer; Lemma 12's logit step under the
hypothesis it needs, and false without it; Lemma 12 for the MHA and Lemma 13 for the block, under that
hypothesis; a pruned MHA close to its target from its merged matrices' entry errors; Lemma 2's construction and its
error for every input).  They import one another
under the logical name ``SlthMath``; ``order`` sorts them by their ``Require Import`` lines.  ``compile(dir)``
copies them into ``dir`` (never the repository) and runs coqc on each in that order.  ``assumptions(dir, names)``
runs ``Print Assumptions`` on the named theorems of a compiled ``dir``; ``unexpected(axioms)`` names those
outside Coq's standard families (the classical reals, and the primitive integers and floats CoqInterval computes
with).  ``forbidden(text)`` lists the ``Admitted``, ``admit``, ``Axiom``, ``Parameter`` and ``Conjecture`` of a
file outside its comments (a premise named in ``PREMISES`` may be an ``Axiom``; the list is empty: nothing is
assumed).

``Premises.v`` states each premise of ``bounds.premises`` as a Coq proposition (``PREMISE_COQ``),
and proves some of them (``PROVED_PREMISES``).  ``statements_file(catalogue)`` generates ``Statements.v``: for each statement of
``FORMAL``, one theorem ``stmt_<name>`` whose bound is the statement's conclusion printed from ``bounds`` by the
exporter's printer (and each ``{c:<key>}`` of its text, a constant of the statement, printed the same way),
inside a Section whose hypotheses are the premises it still rests on, or the conclusion of a cited statement not
proved in Coq (``CITED_COQ``); ``rests_on(dir)`` reads both back from each closed theorem's type, with its
``Print Assumptions``.  The other statements are not
formalized.

``printed_logit_check(dir)`` compiles the paper's proof of Lemma 12's logit step without ``||x'_i|| <= alpha``
(``PRINTED_LOGIT_STEP``; Coq rejects it) and with it (accepted), and reads what ``stmt_lemma12`` rests on;
``lemma12_logit_kernel()`` runs it on a fresh build, cached, for the run record and its finding.

``python -m bounds.prove.coq_math`` compiles the files and ``Statements.v`` (``build_folder()``, only what changed)
and prints what each theorem of ``THEOREMS`` and each statement's theorem rests on, then per statement of the catalogue the premises
its Coq theorem rests on (or that it is not formalized) and the counts "premises proved in Coq: N of M (M the premises of ``bounds.premises``);
statements proved in Coq from Lueker's corollary alone, probabilities included: K of S" (``statements_report``); it exits 1 when a file fails,
a forbidden word appears, a theorem rests on any other axiom or on other premises than declared, and 2 when coqc
or CoqInterval is missing."""
from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
import threading
from concurrent.futures import FIRST_COMPLETED, wait
from pathlib import Path

from slth_base import settings
from slth_base.files import holds

from . import external
from .coq.assumed import (declarations, family, locate_source, parse_assumptions, qualify,  # noqa: F401 (the API)
                          read_assumptions, strip_comments)
from .coq.build import build_lock, build_root, load_state, save_state, sha, write_atomic
from .coq.runner import LEAN_GC, WORKERS, CoqcFailure, coqc_version, first_error, missing_reason, run_coqc

ROOT = Path(__file__).resolve().parents[2]
MATH = ROOT / "proofs" / "coq" / "math"
LOGICAL = "SlthMath"
PARTS = ROOT / "proofs" / "coq" / "statements" / "parts"
"""The Coq text of ``Statements.v``, kept as ``.v`` fragments: ``Prelude.v``, ``StepPrelude.v``, ``lueker.v`` and one
Section per formalized statement (``<statement>.v``), whose placeholders (``{bound}``, ``{w:NAME}``, ``{c:NAME}``,
...: ``PLACEHOLDER``) are filled from ``bounds/`` by ``fill``; ``PrintedLogit.v`` is Lemma 12's printed logit step.
The filled file is committed as ``proofs/coq/statements/Statements.v`` (``slth docs`` writes it)."""
STATEMENTS_V = ROOT / "proofs" / "coq" / "statements" / "Statements.v"
"""The committed ``Statements.v``: exactly ``statements_file()`` (``tests/test_docs.py`` holds it so)."""


def part(stem: str) -> str:
    """The text of fragment ``stem`` of ``PARTS`` (a regular UTF-8 file of the repository)."""
    from slth_base.files import read_text
    return read_text(PARTS / f"{stem}.v", "Coq source")


PREMISES: tuple[str, ...] = ()
"""The one allow-list of premises the files may still assume: each the fully qualified name of an ``Axiom``
(``SlthMath.<File>.<name>``).  Every other axiom-declaring form is refused (``forbidden``), and ``Print
Assumptions`` names are accepted only as these exact names or Coq's standard ones (``unexpected``)."""
THEOREMS = {  # file stem -> the theorems whose assumptions are reported
    "Softmax": ("lemma8", "lemma5", "softmax_shift", "Z_bounds", "ratio_bound", "hoelder"),
    "Matrix": ("entry_le_op", "logit_bound", "uniform_in_x"),
    "Blocks": ("block_entry",),
    "Attention": ("head_merged_eq",),
    "Triangle": ("norm_triangle", "lemma8_rows", "softmax_rows_norm"),
    "Induction": ("layers_induction", "relu_layer_lipschitz", "relu_layer_norm", "pow_as_exp_increasing"),
    "Lemma12": ("lemma12_logit", "lemma12_logit_needs_x'_bound", "lemma12_logit_printed_false"),
    "Uniform": ("uniform_in_inputs", "relu_split_norm", "matvec_relu_split"),
    "Deep": ("pair_error_scaled", "deep_relu_net"),
    "Transformer": ("blocks_induction", "blocks_chain"),
    "Perturbation": ("vecmat_le_op", "WQK_op", "lemma12_head", "lemma12_mha", "relu_net_lipschitz", "lemma13_block"),
    "Mha": ("op_transpose", "WQK_op", "WVO_op", "head_gap", "mha_gap", "mha_norm", "src_QK", "src_VO"),
    "OneLayer": ("relu_mul", "one_layer_gap"),
    "Probability": ("union_bound", "whp_mono", "whp_and", "whp_all", "dirac", "outer_prob_exists"),
    "Events": ("lueker_event_all", "lemma7_on_event", "lemma2_on_event", "width_per_block", "block_width"),
    "Theorem10": ("theorem10_of_lemma2", "theorem10_whp"),
    "Theorem11": ("block_gap", "theorem11_of_theorem9_lemma2", "theorem11_whp"),
    "Theorem14": ("block_norm", "theorem14_of_theorem11_lemma13", "theorem14_whp"),
    "ChainModels": ("theorem10_model", "theorem11_model", "theorem14_model", "theorem10_whp_model",
                    "theorem11_whp_model", "theorem14_whp_model"),
}
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


def sources(folder: Path = MATH) -> dict[str, str]:
    """``{stem: text}`` of every ``.v`` file of ``folder``: each a regular UTF-8 file of bounded size
    (``slth_base.files.read_text``: a link, a FIFO or bytes that are not UTF-8 are refused in one line)."""
    from slth_base.files import read_text
    return {p.stem: read_text(p, "Coq source") for p in sorted(Path(folder).glob("*.v"))}


def imports(text: str) -> list[str]:
    """The ``SlthMath`` files a file requires."""
    out = []
    for m in re.finditer(rf"From\s+{LOGICAL}\s+Require\s+(?:Import\s+|Export\s+)?([^.]*)\.", strip_comments(text)):
        out += m.group(1).split()
    return out


def order(files: dict[str, str]) -> list[str]:
    """The stems in an order where each file comes after the files it imports; a cycle or a missing import is a
    ValueError naming it."""
    done: list[str] = []

    def visit(stem, path):
        if stem in done:
            return
        if stem in path:
            raise ValueError(f"import cycle: {' -> '.join(path + (stem,))}")
        if stem not in files:
            raise ValueError(f"{path[-1]}.v imports {stem}, which is not in the folder")
        for dep in imports(files[stem]):
            visit(dep, path + (stem,))
        done.append(stem)

    for stem in files:
        visit(stem, ())
    return done


def forbidden(text: str, premises: tuple[str, ...] = PREMISES, stem: str | None = None) -> list[str]:
    """``'line N: form'`` for each axiom-declaring form outside comments (``bounds.prove.coq.assumed.declarations``:
    ``Axiom(s)``, ``Parameter(s)``, ``Conjecture``, ``Hypothesis``/``Variable``/``Context`` outside a Section,
    ``Admitted``, ``admit``); an ``Axiom`` declaring a premise of ``premises`` in its own file (``stem``, when given)
    is allowed."""
    names = tuple(p.split(".")[-1] for p in premises
                  if stem is None or p.rsplit(".", 2)[-2:-1] == [stem])
    return declarations(text, names, strip=strip_comments)


def compile(directory, files: dict[str, str] | None = None) -> tuple[bool, str]:
    """Write ``files`` (default: the committed ones) into ``directory`` and coqc each after the files it imports,
    two at once (``bounds.prove.coq.runner.run_coqc``: its own process group, a time limit, killed on Ctrl-C or
    SIGTERM).  A file is compiled again only when its text, coqc's version or a file it imports changed, or its
    ``.vo`` is not the one coqc wrote (the record ``.slth-math.json`` in ``directory`` binds each to the sha256 of
    its ``.vo``).  ``(True, "")`` or ``(False, "<file>.v line N: Coq's first error")``: the first file in import
    order that fails; no file is started after a failure."""
    directory = Path(directory)
    files = {**sources(), **scalar_sources()} if files is None else files
    stems = order(files)
    for stem in stems:  # an axiom-declaring form: refused before any coqc
        hits = forbidden(files[stem], stem=stem)
        if hits:
            return False, f"{stem}.v {hits[0]}: an axiom-declaring form (only the premises of PREMISES may be assumed)"
    version = coqc_version()
    state_path = directory / STATE
    state = load_state(state_path)
    done = state.get("files", {}) if state.get("version") == version and isinstance(state.get("files"), dict) else {}
    for stem in stems:
        path = directory / f"{stem}.v"
        if not holds(path, files[stem]):
            write_atomic(path, files[stem])
    digest = keys(files, version)
    fresh = {s for s in stems if isinstance(done.get(s), dict) and done[s].get("digest") == digest[s]
             and done[s].get("vo") and sha(directory / f"{s}.vo") == done[s]["vo"]}
    record = {s: done[s] for s in fresh}
    failed: dict = {}
    lock = threading.Lock()

    def one(stem):
        for ext in (".vo", ".vok", ".vos", ".glob"):
            (directory / f"{stem}{ext}").unlink(missing_ok=True)
        ok, why = compile_file(directory, stem)
        with lock:
            if ok:
                record[stem] = {"digest": digest[stem], "vo": sha(directory / f"{stem}.vo")}
            else:
                failed[stem] = why
        return stem

    built = set(fresh)
    running: dict = {}
    try:
        with external.reaped(), external.pool(WORKERS) as pool:
            while True:
                if not failed:
                    for stem in stems:
                        if stem not in built and stem not in running and \
                                all(d in built for d in imports(files[stem])):
                            running[stem] = pool.submit(one, stem)
                if not running:
                    break
                finished, _ = wait(list(running.values()), return_when=FIRST_COMPLETED)
                for stem in [s for s, f in running.items() if f in finished]:
                    running.pop(stem).result()
                    if stem not in failed:
                        built.add(stem)
    finally:
        save_state(state_path, {"version": version, "files": record})
    for stem in stems:
        if stem in failed:
            return False, failed[stem]
    missing = [s for s in stems if s not in built]
    return (False, f"{missing[0]}.v: not compiled") if missing else (True, "")


def keys(files: dict[str, str], version: str) -> dict[str, str]:
    """Each file's key in the compile record: its text, coqc's version and the keys of the files it imports."""
    digest: dict = {}
    for stem in order(files):
        digest[stem] = hashlib.sha256("\0".join([files[stem], version] + [digest[d] for d in imports(files[stem])])
                                      .encode()).hexdigest()
    return digest


STATE = ".slth-math.json"
"""The record of a compile folder: per file, the key of its text and imports and the sha256 of the ``.vo``."""


def compile_file(directory, stem: str, env: dict | None = None) -> tuple[bool, str]:
    """coqc on ``directory/stem.v`` with ``directory`` as ``SlthMath``: ``(ok, "<stem>.v line N: error")``
    (``"<stem>.v: coqc timed out after S s"`` when it does not finish)."""
    directory = Path(directory)
    try:
        rc, out = run_coqc(["-Q", str(directory), LOGICAL, f"{stem}.v"], directory, env=env)
    except CoqcFailure as e:
        return False, f"{stem}.v: {e}"
    if rc == 0:
        return True, out
    line, msg = first_error(out, "")
    return False, f"{stem}.v line {line or '?'}: {msg}"


def assumptions(directory, theorems: dict[str, tuple[str, ...]] = THEOREMS) -> dict[str, list[str]]:
    """``{theorem: [axiom names]}`` from ``Print Assumptions`` in a compiled ``directory``."""
    directory = Path(directory)
    names = [n for stems in theorems.values() for n in stems]
    text = (f"From {LOGICAL} Require Import {' '.join(theorems)}.\n{locate_source(PREMISES)}"
            + "".join(f"Print Assumptions {n}.\n" for n in names))
    write_atomic(directory / "PrintAssumptions.v", text)
    ok, out = compile_file(directory, "PrintAssumptions", env=LEAN_GC)
    if not ok:
        raise RuntimeError(f"Print Assumptions failed: {out}")
    blocks = read_assumptions(out, PREMISES)
    if len(blocks) != len(names):
        raise RuntimeError(f"Print Assumptions printed {len(blocks)} blocks for {len(names)} theorems")
    return dict(zip(names, blocks))


def unexpected(axioms: list[str], premises: tuple[str, ...] = PREMISES) -> list[str]:
    """The axioms that are neither Coq's standard ones nor a premise of ``premises``, each judged by its fully
    qualified name (``read_assumptions``; a premise only as ``SlthMath.<File>.<name>``), never by a prefix or its
    last component."""
    return [a for a in axioms if family(a) is None and not (a in premises and a.startswith(f"{LOGICAL}."))]


def families(axioms: list[str]) -> list[str]:
    """The standard families an axiom list draws on, in a fixed order (other axioms as themselves)."""
    fams = {family(a) or a for a in axioms}
    known = ["classical reals", "primitive 63-bit integers", "primitive floats"]
    return [f for f in known if f in fams] + sorted(fams - set(known))


def premise_map_errors(mapping: dict = PROVED_PREMISES) -> list[str]:
    """One line per premise name that ``bounds.premises`` does not know, or theorem that ``THEOREMS`` lacks."""
    from ..premises import BY_NAME
    known = {n for names in THEOREMS.values() for n in names}
    return ([f"unknown premise {p!r}" for p in mapping if p not in BY_NAME]
            + [f"{p!r}: theorem {t} is not reported" for p, ts in mapping.items() for t in ts if t not in known])


# --------------------------------------------------------------------------------- premises and statements

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
    from ..catalogue import STATEMENTS
    from .coq.printer import coq
    st = (STATEMENTS if catalogue is None else catalogue)[name]
    return _naturals(name, coq(st.conclusion if expr is None else expr))


PLACEHOLDER = re.compile(r"\{(bound|fail|c:[\w-]+|w:[\w#-]+|t:[\w#-]+|lo:\w+:\d+|hi:\w+:\d+|step:[\w-]+)\}")
"""What a statement's text may leave to the exporter: ``{bound}`` (its conclusion), ``{fail}`` (its failure
probability, 1 - probability), ``{w:NAME}`` (its width NAME), ``{lo:P:I}``/``{hi:P:I}`` (the I-th lower/upper bound
of its parameter P, a hypothesis), ``{c:NAME}`` (its constant NAME),
``{t:NAME}`` (its term NAME, an expression of its parameters; ``{t:NAME#k}``, ``{w:NAME#k}``: piece k of a piecewise
term or width, e.g. Theorem 14's block 1 and blocks b >= 2) and ``{step:NAME}`` (its exported scalar step NAME applied to the statement's parameters, the lemma of
``proofs/coq/<statement>.v``)."""


def fill(name: str, text: str, catalogue: dict | None = None) -> str:
    """``text`` with each placeholder of ``PLACEHOLDER`` printed from ``catalogue``'s statement ``name``; an unknown
    constant or step is a KeyError naming it."""
    import sympy as sp

    from ..catalogue import STATEMENTS, lookup
    from .coq.export import lemma
    from .coq.printer import coq
    cat = STATEMENTS if catalogue is None else catalogue
    st = cat[name]

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
        if kind == "c":
            if what not in st.constants:
                raise KeyError(f"{name} has no constant {what!r}")
            return _naturals(name, coq(st.constants[what]))
        if kind in ("w", "t"):
            what, _, piece = what.partition("#")
            table, label = (st.widths, "width") if kind == "w" else (st.terms, "term")
            if what not in table:
                raise KeyError(f"{name} has no {label} {what!r}")
            expr = table[what]
            return _naturals(name, coq(expr.args[int(piece)].expr if piece else expr))
        steps = {s.name: s for s in st.steps(lookup(cat))}
        if what not in steps:
            raise KeyError(f"{name} has no step {what!r}")
        lem = lemma(name, steps[what], st.params)
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
    from ..premises import BY_NAME
    text = strip_comments((MATH / "Premises.v").read_text() if text is None else text)
    defined = set(re.findall(r"\bDefinition\s+([\w']+)", text))
    return ([f"premise {p!r} has no Coq statement" for p in BY_NAME if p not in table]
            + [f"{p!r} is not a premise of bounds.premises" for p in table if p not in BY_NAME]
            + [f"{p!r}: {c} is not defined in Premises.v" for p, c in table.items() if c not in defined])


def rests_on(directory, names: tuple[str, ...] = tuple(FORMAL)) -> dict[str, tuple[list[str], list[str]]]:
    """``{statement: (premises, axioms)}`` for the compiled ``Statements.v`` of ``directory``: the premises (names of
    ``bounds.premises``) and the cited statements (``"statement <name>"``, through ``CITED_COQ``) that the closed
    type of ``stmt_<statement>`` quantifies over, and ``Print Assumptions``."""
    directory = Path(directory)
    text = f"From {LOGICAL} Require Import Statements.\n{locate_source(PREMISES)}" + "".join(
        f"Check stmt_{n}.\nPrint Assumptions stmt_{n}.\n" for n in names)
    write_atomic(directory / "StatementAssumptions.v", text)
    ok, out = compile_file(directory, "StatementAssumptions", env=LEAN_GC)
    if not ok:
        raise RuntimeError(f"Print Assumptions failed: {out}")
    by_coq = {**{c: p for p, c in PREMISE_COQ.items()}, **{c: f"statement {s}" for s, c in CITED_COQ.items()},
              LUEKER_COQ: LUEKER_PREMISE}
    parts = re.split(r"^stmt_(\w+)\s*$", out, flags=re.M)
    located = parts[0]  # the Locate answers, before the first statement
    chunks = dict(zip(parts[1::2], parts[2::2]))  # each: the closed type, then its Print Assumptions block
    if set(chunks) != set(names):
        raise RuntimeError(f"Check printed {sorted(chunks)} for {sorted(names)}")
    result = {}
    for n in names:
        typ = re.split(r"^(?:Axioms:|Closed under the global context)", chunks[n], flags=re.M)[0]
        (axioms,) = qualify(parse_assumptions(chunks[n]), located, PREMISES)
        used = dict.fromkeys(by_coq[c] for c in re.findall(r"\b([\w']+)", typ) if c in by_coq)
        result[n] = (list(used), axioms)
    return result


def cited_premises(name: str, catalogue: dict | None = None) -> list[str]:
    """The premises the steps of statement ``name`` cite (``Step.premises``), in ``bounds.premises`` order."""
    from ..catalogue import STATEMENTS, lookup
    from ..premises import ALL
    cat = STATEMENTS if catalogue is None else catalogue
    cited = {p.name for s in cat[name].steps(lookup(cat)) for p in s.premises}
    return [p.name for p in ALL if p.name in cited]


def chain_premises(name: str, catalogue: dict | None = None) -> list[str]:
    """The premises cited by the steps of statement ``name`` and, through the statements those steps rely on, by
    theirs (Lemma 13 rests on Lemma 12's premises through its step citing Lemma 12), in ``bounds.premises`` order."""
    from ..catalogue import STATEMENTS, lookup
    from ..premises import ALL
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


def lueker_alone(premises) -> bool:
    """Whether a Coq theorem resting on ``premises`` (names of ``bounds.premises``) is proved from Lueker's corollary
    alone: it rests on no premise but the corollary and its hypothesis that the construction's items are in its
    class (or on none)."""
    return set(premises) <= {LUEKER_PREMISE, LUEKER_ITEMS}


def declared_rests() -> dict[str, list[str]]:
    """``{statement: premises}`` for each formalized statement, as ``FORMAL`` declares them (``declared_errors``
    holds this equal to what Coq's closed types say, ``rests_on``)."""
    return {name: list(entry[1]) for name, entry in FORMAL.items()}


def counts(rests: dict | None = None, catalogue: dict | None = None, text: str | None = None,
           files: dict[str, str] | None = None) -> dict[str, int]:
    """``{"proved", "premises", "alone", "statements"}``: the premises ``Premises.v`` proves (of all of
    ``bounds.premises``), and the statements with an encoded proof whose Coq theorem proves them from Lueker's
    corollary alone, probabilities included (``proved_alone``; of all statements with an encoded proof).
    ``rests``: ``{statement: premises}`` or ``rests_on``'s ``{statement: (premises, axioms)}`` (default:
    ``declared_rests()``); ``text``: a ``Premises.v`` to read instead of the committed one; ``files``: the Coq files
    whose ``Statements`` the theorems are read from (default: ``with_statements()``)."""
    from ..premises import ALL
    from .coq_statements import proved_alone, proved_statements
    rests = declared_rests() if rests is None else rests
    prem = {n: (r[0] if isinstance(r, tuple) else r) for n, r in rests.items()}
    names = proved_statements(catalogue)
    files = with_statements() if files is None and any(n in prem for n in names) else files
    return {"proved": len(proved_premises(text)), "premises": len(ALL),
            "alone": sum(n in prem and proved_alone(n, prem[n], catalogue, files) for n in names),
            "statements": len(names)}


def counts_line(c: dict[str, int]) -> str:
    """The counts as one line: "premises proved in Coq: N of M; statements proved in Coq from Lueker's corollary
    alone, probabilities included: K of S"."""
    return (f"premises proved in Coq: {c['proved']} of {c['premises']}; statements proved in Coq from Lueker's "
            f"corollary alone, probabilities included: {c['alone']} of {c['statements']}")


def blueprint(catalogue: dict | None = None, text: str | None = None) -> dict:
    """What the proof map draws of the Coq formalization, per statement and per premise, from this tree's
    declarations (``FORMAL``, ``Premises.v``, ``PROVED_PREMISES``; ``tests/test_coq_math.py`` holds them to Coq's
    own ``Print Assumptions`` and closed types):

    ``{"statements": {name: {"formalized", "theorem", "rests_on", "lueker_alone", "probability", "cites"}},
      "premises": {name: {"proved", "coq", "by", "says"}}, "counts": counts(), "line": counts_line(...)}``

    ``rests_on``: the premises its Coq theorem rests on (None when not formalized); ``lueker_alone``: a statement
    with an encoded proof that its Coq theorem proves from Lueker's corollary alone, probabilities included
    (``proved_alone``); ``probability``: its Coq theorem states the statement's probability; ``cites``: the premises its proof steps cite; ``proved``: the premise
    is proved in ``Premises.v`` (else it is assumed), ``by``: the theorems that prove it."""
    from ..catalogue import STATEMENTS
    from ..premises import ALL
    from .coq_statements import proved_alone, proved_statements, states_probability
    cat = STATEMENTS if catalogue is None else catalogue
    rests = declared_rests()
    done = set(proved_premises(text))
    files = with_statements() if any(n in rests for n in cat) else None
    proved = proved_statements(cat)
    statements = {}
    for name in cat:
        formal = name in rests
        statements[name] = {"formalized": formal, "theorem": f"stmt_{name}" if formal else None,
                            "rests_on": rests[name] if formal else None,
                            "lueker_alone": formal and name in proved and proved_alone(name, rests[name], cat, files),
                            "probability": formal and states_probability(name, cat, files),
                            "cites": cited_premises(name, cat)}
    premises = {p.name: {"proved": p.name in done, "coq": PREMISE_COQ.get(p.name),
                         "by": list(PROVED_PREMISES.get(p.name, ())) if p.name in done else [], "says": p.says}
                for p in ALL}
    c = counts(rests, cat, text, files)
    return {"statements": statements, "premises": premises, "counts": c, "line": counts_line(c)}


def statements_report(rests: dict, catalogue: dict | None = None, names=None, files: dict | None = None) -> str:
    """Per statement of the catalogue (or of ``names``), what its Coq theorem is (``statement_lines``), then the
    counts of premises proved in Coq and of statements proved from Lueker's corollary alone, probabilities
    included (``counts``)."""
    from ..catalogue import STATEMENTS
    from .coq_statements import statement_lines
    cat = STATEMENTS if catalogue is None else catalogue
    files = with_statements() if files is None and rests else files
    lines = []
    for name in (names or cat):
        lines += statement_lines(name, rests, cat, files)
    lines.append(counts_line(counts(rests, cat, files=files)))
    return "\n".join(lines)


# ------------------------------------------------------------------- Lemma 12's printed logit step in Coq

PRINTED_LOGIT_STEP = part("PrintedLogit")
"""The paper's proof of Lemma 12's logit step, without the hypothesis ``||x'_i|| <= alpha`` it uses: the line
bounding ``||x'_i|| ||x_k - x'_k||`` by ``alpha eps`` has nothing to stand on, and Coq rejects it
(``printed_logit_check``).  ``Lemma12.v`` proves the printed step false (``lemma12_logit_printed_false``) and the
step under the hypothesis (``lemma12_logit``), and ``stmt_lemma12`` keeps it as a Section hypothesis."""
PRINTED_LOGIT_WITH_HYPOTHESIS = PRINTED_LOGIT_STEP.replace(
    "Theorem lemma12_logit_as_printed : lemma12_logit_printed.",
    "Theorem lemma12_logit_with_hypothesis : forall d W xi xk xi' xk' alpha eps, op_bound d d W 1 ->\n"
    "  norm d xi <= alpha -> norm d xk <= alpha -> norm d (vsub xi xi') <= eps -> norm d (vsub xk xk') <= eps ->\n"
    "  norm d xi' <= alpha -> Rabs (bilin d xi W xk - bilin d xi' W xk') <= 2 * alpha * eps.").replace(
    "HW Hi Hk Hdi Hdk.", "HW Hi Hk Hdi Hdk Hi'.")
"""The same proof with the hypothesis ``||x'_i|| <= alpha`` added to the statement (Coq accepts it)."""
PRINTED_LOGIT_GAP = "assert (norm d xi' * norm d (vsub xk xk') <= alpha * eps)"
"""The line of ``PRINTED_LOGIT_STEP`` that needs ``||x'_i|| <= alpha``."""


def printed_logit_check(directory, text: str = PRINTED_LOGIT_STEP) -> dict:
    """Lemma 12's logit step in Coq, in a ``directory`` where the files and ``Statements.v`` are compiled:
    ``proof`` ("rejected" or "accepted") and ``error`` (Coq's, with the line) for the paper's argument without
    ``||x'_i|| <= alpha`` (``text``), ``gap_line`` (whether the rejected line is ``PRINTED_LOGIT_GAP``'s),
    ``with_hypothesis`` (the same proof with the hypothesis added, ``PRINTED_LOGIT_WITH_HYPOTHESIS``),
    ``refuted`` (``lemma12_logit_printed_false`` and ``lemma12_logit`` rest on Coq's standard axioms only), and
    ``theorem`` (the premises ``stmt_lemma12`` rests on)."""
    directory = Path(directory)
    write_atomic(directory / "LogitWithHypothesis.v", PRINTED_LOGIT_WITH_HYPOTHESIS)
    with_ok, with_why = compile_file(directory, "LogitWithHypothesis")
    write_atomic(directory / "PrintedLogitStep.v", text)
    ok, why = compile_file(directory, "PrintedLogitStep")
    m = re.match(r"PrintedLogitStep\.v line (\d+)", why or "")
    lines = text.splitlines()
    gap = bool(m) and int(m.group(1)) <= len(lines) and PRINTED_LOGIT_GAP in lines[int(m.group(1)) - 1]
    rests = assumptions(directory, {"Lemma12": ("lemma12_logit", "lemma12_logit_printed_false")})
    stated = rests_on(directory, ("lemma12",))
    return {"proof": "accepted" if ok else "rejected", "error": "" if ok else why, "gap_line": gap,
            "with_hypothesis": "accepted" if with_ok else f"rejected ({with_why})",
            "refuted": all(not unexpected(a) for a in rests.values()),
            "theorem": stated["lemma12"][0] if not unexpected(stated["lemma12"][1]) else None}


def lemma12_logit_kernel() -> dict:
    """``printed_logit_check`` on the committed files and the generated ``Statements.v``, compiled in a temporary
    folder, cached under ``$XDG_CACHE_HOME/slth-harness/coq-math`` by the fingerprint of every text it compiles and
    coqc's version; ``{"undecided": reason}`` when coqc or CoqInterval is missing, or a file is rejected."""
    reason = missing_reason()
    if reason:
        return {"undecided": reason}
    files = with_statements()
    key = hashlib.sha256(json.dumps([files, PRINTED_LOGIT_STEP, coqc_version()]).encode()).hexdigest()[:24]
    base = settings.cache_home() / "slth-harness" / "coq-math"
    path = base / f"lemma12-logit-{key}.json"
    cached = load_state(path).get("result")  # sealed with this user's key, as every build record
    if isinstance(cached, dict):
        return cached
    with tempfile.TemporaryDirectory(prefix="slth-coq-math-") as tmp:
        ok, why = compile(tmp, files)
        result = printed_logit_check(tmp) if ok else {"undecided": f"rejected: {why}"}
    try:
        base.mkdir(parents=True, exist_ok=True)
        save_state(path, {"result": result})
    except OSError:
        pass
    return result


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        print("usage: python -m bounds.prove.coq_math  (no arguments)", file=sys.stderr)
        return 2
    bad = settings.refused("python -m bounds.prove.coq_math")
    if bad:
        return bad
    reason = missing_reason()
    if reason:
        print(f"error: {reason}", file=sys.stderr)
        return 2
    bad = [f"{stem}.v {hit}" for stem, text in with_statements().items() for hit in forbidden(text, stem=stem)]
    for b in bad:
        print(f"forbidden: {b}")
    folder = build_folder()
    with external.reaped(), build_lock(folder):
        files = with_statements()
        ok, why = compile(folder, files)
        if not ok:
            print(f"rejected: {why}")
            return 1
        rests = assumptions(folder)
        stated = recorded_rests_on(folder, files)
    other = False
    for name, axioms in list(rests.items()) + [(f"stmt_{n}", ax) for n, (_, ax) in stated.items()]:
        odd = unexpected(axioms)
        other = other or bool(odd)
        print(f"{name}: " + (", ".join(families(axioms)) or "closed (no axioms)")
              + (f"; OTHER AXIOMS: {', '.join(odd)}" if odd else ""))
    print(statements_report(stated))
    errors = premise_map_errors() + premise_table_errors() + declared_errors(stated)
    for e in errors:
        print(f"error: {e}")
    return 1 if bad or other or errors else 0


def build_folder() -> Path:
    """Where the files are compiled (never the repository): ``math`` beside the steps' build folders
    (``bounds.prove.coq.build.build_root``), created; ``OSError`` when it cannot be."""
    folder = build_root() / "math"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


RESTS = ".slth-math-rests.json"
"""The record of ``rests_on`` in a compile folder, keyed by the sha256 of every ``.vo`` it read."""


def recorded_rests_on(directory, files: dict[str, str]) -> dict:
    """``rests_on(directory)``, run again only when a ``.vo`` of ``files`` differs from the one it last ran on."""
    directory = Path(directory)
    key = hashlib.sha256(json.dumps([sorted((s, sha(directory / f"{s}.vo")) for s in files),
                                     list(FORMAL), locate_source(PREMISES)]).encode()).hexdigest()
    rec = load_state(directory / RESTS)
    if rec.get("key") == key and isinstance(rec.get("result"), dict) and set(rec["result"]) == set(FORMAL):
        return {n: (list(p), list(a)) for n, (p, a) in rec["result"].items()}
    stated = rests_on(directory)
    save_state(directory / RESTS, {"key": key, "result": stated})
    return stated


def statements_rests() -> tuple[int, dict | None, list[str]]:
    """``(exit status, {statement: (premises, axioms)} or None, error lines)``: the files and ``Statements.v``
    compiled in ``build_folder()`` (only what changed since the last compile there) and what each statement's
    theorem rests on (``recorded_rests_on``); 1 when a file is rejected or a theorem rests on other axioms or premises
    than declared, 2 when coqc or CoqInterval is missing or the folder cannot be made."""
    reason = missing_reason()
    if reason:
        return 2, None, [f"error: {reason}"]
    try:
        folder = build_folder()
    except OSError as e:
        return 2, None, [f"error: the Coq build folder cannot be made: {e.strerror or e}"]
    with external.reaped(), build_lock(folder):
        files = with_statements()
        ok, why = compile(folder, files)
        if not ok:
            return 1, None, [f"rejected: {why}"]
        try:
            stated = recorded_rests_on(folder, files)
        except RuntimeError as e:
            return 1, None, [f"rejected: {e}"]
    odd = [f"stmt_{n} rests on other axioms: {', '.join(unexpected(ax))}" for n, (_, ax) in stated.items()
           if unexpected(ax)]
    errors = odd + premise_table_errors() + declared_errors(stated)
    return (1 if errors else 0), stated, [f"error: {e}" for e in errors]


def statements_text() -> tuple[int, str]:
    """``(exit status, text)``: ``statements_rests()`` in words, per statement what its Coq theorem is and the two
    counts (``statements_report``), then the error lines."""
    rc, stated, errors = statements_rests()
    if stated is None:
        return rc, "\n".join(errors)
    text = "== the statements in Coq (bounds.prove.coq_math)\n" + statements_report(stated)
    return rc, "\n".join([text] + errors)


def declared_errors(stated: dict) -> list[str]:
    """One line per formalized statement whose theorem rests on other premises than ``FORMAL`` declares, and one if
    ``PROVED_PREMISES`` is not the set of premises ``Premises.v`` proves."""
    out = [f"stmt_{n} rests on {prem}, declared {list(FORMAL[n][1])}" for n, (prem, _) in stated.items()
           if list(prem) != list(FORMAL[n][1])]
    if set(PROVED_PREMISES) != set(proved_premises()):
        out.append(f"PROVED_PREMISES {sorted(PROVED_PREMISES)} differs from Premises.v's {sorted(proved_premises())}")
    return out


if __name__ == "__main__":
    sys.exit(main())
