"""The hand-written Coq mathematics under ``proofs/coq/math/``: compile it, scan it, and list what its theorems
rest on.

The files define the paper's objects (``Objects.v``) and prove lemmas about them (Lemma 8 and Lemma 5 for every
sequence length, width, mask and logit vector; an entry of a matrix bounded by its operator norm; the logit bound;
the block structure of Lemma 7's construction; a head equals its merged form; the induction over layers and
blocks; Lemma 12's logit step under the hypothesis it needs, and false without it).  They import one another
under the logical name ``SlthMath``; ``order`` sorts them by their ``Require Import`` lines.  ``compile(dir)``
copies them into ``dir`` (never the repository) and runs coqc on each in that order.  ``assumptions(dir, names)``
runs ``Print Assumptions`` on the named theorems of a compiled ``dir``; ``unexpected(axioms)`` names those
outside Coq's standard families (the classical reals, and the primitive integers and floats CoqInterval computes
with).  ``forbidden(text)`` lists the ``Admitted``, ``admit``, ``Axiom``, ``Parameter`` and ``Conjecture`` of a
file outside its comments (a premise named in ``PREMISES`` may be an ``Axiom``; the list is empty: nothing is
assumed).

``python -m bounds.coq_math`` compiles the files into a temporary folder and prints what each theorem of
``THEOREMS`` rests on, and how many premises of ``bounds.premises`` have a Coq proof (``PROVED_PREMISES``); it
exits 1 when a file fails, a forbidden word appears or a theorem rests on any other axiom, and 2 when coqc or
CoqInterval is missing."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .coq.check import coqc, family, missing_reason, parse_assumptions

ROOT = Path(__file__).resolve().parents[1]
MATH = ROOT / "proofs" / "coq" / "math"
LOGICAL = "SlthMath"
PREMISES: tuple[str, ...] = ()
"""The axioms the files may declare (premises still assumed); every other ``Axiom`` is refused."""
THEOREMS = {  # file stem -> the theorems whose assumptions are reported
    "Softmax": ("lemma8", "lemma5", "softmax_shift", "Z_bounds", "ratio_bound", "hoelder"),
    "Matrix": ("entry_le_op", "logit_bound", "uniform_in_x"),
    "Blocks": ("block_entry",),
    "Attention": ("head_merged_eq",),
    "Triangle": ("norm_triangle", "lemma8_rows", "softmax_rows_norm"),
    "Induction": ("layers_induction", "relu_layer_lipschitz", "relu_layer_norm"),
    "Lemma12": ("lemma12_logit", "lemma12_logit_needs_x'_bound"),
}
PROVED_PREMISES = {  # a premise of bounds.premises -> the theorems above that prove it
    "softmax perturbation identity": ("softmax_shift", "Z_bounds", "ratio_bound"),
    "Hoelder step": ("hoelder",),
    "|W_ij| <= ||W||": ("entry_le_op",),
    "induction over layers": ("layers_induction", "relu_layer_lipschitz", "relu_layer_norm"),
    "induction over blocks": ("layers_induction",),
}
"""Premises proved here as lemmas (the steps still cite them: the lemmas are not yet chained into the statements'
theorems).  Uniformity over inputs is proved for one matrix only (``uniform_in_x``), and Lemma 12's
``||x'_i|| <= alpha`` is shown to be a needed hypothesis (``lemma12_logit_needs_x'_bound``), not proved."""
FORBIDDEN = ("Admitted", "admit", "Axiom", "Parameter", "Parameters", "Conjecture")


def sources(folder: Path = MATH) -> dict[str, str]:
    """``{stem: text}`` of every ``.v`` file of ``folder``."""
    return {p.stem: p.read_text() for p in sorted(Path(folder).glob("*.v"))}


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


def strip_comments(text: str) -> str:
    """``text`` with Coq's (nested) comments blanked out; an unclosed comment is a ValueError."""
    out, depth, k = [], 0, 0
    while k < len(text):
        two = text[k:k + 2]
        if two == "(*":
            depth, k = depth + 1, k + 2
            out.append("  ")
        elif two == "*)" and depth:
            depth, k = depth - 1, k + 2
            out.append("  ")
        else:
            out.append(text[k] if depth == 0 or text[k] == "\n" else " ")
            k += 1
    if depth:
        raise ValueError("unclosed comment")
    return "".join(out)


def forbidden(text: str, premises: tuple[str, ...] = PREMISES) -> list[str]:
    """``'line N: word'`` for each forbidden word outside comments (an ``Axiom`` named in ``premises`` is allowed)."""
    found = []
    for n, line in enumerate(strip_comments(text).splitlines(), 1):
        for m in re.finditer(r"\b(" + "|".join(FORBIDDEN) + r")\b(\s+(\w+))?", line):
            if m.group(1) == "Axiom" and m.group(3) in premises:
                continue
            found.append(f"line {n}: {m.group(1)}")
    return found


def compile(directory, files: dict[str, str] | None = None) -> tuple[bool, str]:
    """Write ``files`` (default: the committed ones) into ``directory`` and coqc each in import order.
    ``(True, "")`` or ``(False, "<file>.v line N: Coq's first error")``; stops at the first failure."""
    directory = Path(directory)
    files = sources() if files is None else files
    for stem in order(files):
        (directory / f"{stem}.v").write_text(files[stem])
    for stem in order(files):
        ok, why = compile_file(directory, stem)
        if not ok:
            return False, why
    return True, ""


def compile_file(directory, stem: str) -> tuple[bool, str]:
    """coqc on ``directory/stem.v`` with ``directory`` as ``SlthMath``: ``(ok, "<stem>.v line N: error")``."""
    directory = Path(directory)
    r = subprocess.run([coqc(), "-Q", str(directory), LOGICAL, f"{stem}.v"], capture_output=True, text=True,
                       cwd=directory)
    if r.returncode == 0:
        return True, r.stdout
    out = r.stdout + r.stderr
    m = re.search(r"line (\d+)", out)
    err = re.search(r"Error:\s*(.*?)(?:\n\n|\Z)", out, re.S)
    msg = " ".join(err.group(1).split())[:300] if err else (out.strip().splitlines() or ["coqc failed"])[-1]
    return False, f"{stem}.v line {m.group(1) if m else '?'}: {msg}"


def assumptions(directory, theorems: dict[str, tuple[str, ...]] = THEOREMS) -> dict[str, list[str]]:
    """``{theorem: [axiom names]}`` from ``Print Assumptions`` in a compiled ``directory``."""
    directory = Path(directory)
    names = [n for stems in theorems.values() for n in stems]
    text = (f"From {LOGICAL} Require Import {' '.join(theorems)}.\n"
            + "".join(f"Print Assumptions {n}.\n" for n in names))
    (directory / "PrintAssumptions.v").write_text(text)
    ok, out = compile_file(directory, "PrintAssumptions")
    if not ok:
        raise RuntimeError(f"Print Assumptions failed: {out}")
    blocks = parse_assumptions(out)
    if len(blocks) != len(names):
        raise RuntimeError(f"Print Assumptions printed {len(blocks)} blocks for {len(names)} theorems")
    return dict(zip(names, blocks))


def unexpected(axioms: list[str], premises: tuple[str, ...] = PREMISES) -> list[str]:
    """The axioms outside Coq's standard families and outside ``premises``."""
    return [a for a in axioms if family(a) is None and a.split(".")[-1] not in premises]


def families(axioms: list[str]) -> list[str]:
    """The standard families an axiom list draws on, in a fixed order (other axioms as themselves)."""
    fams = {family(a) or a for a in axioms}
    known = ["classical reals", "primitive 63-bit integers", "primitive floats"]
    return [f for f in known if f in fams] + sorted(fams - set(known))


def premise_map_errors(mapping: dict = PROVED_PREMISES) -> list[str]:
    """One line per premise name that ``bounds.premises`` does not know, or theorem that ``THEOREMS`` lacks."""
    from .premises import BY_NAME
    known = {n for names in THEOREMS.values() for n in names}
    return ([f"unknown premise {p!r}" for p in mapping if p not in BY_NAME]
            + [f"{p!r}: theorem {t} is not reported" for p, ts in mapping.items() for t in ts if t not in known])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        print("usage: python -m bounds.coq_math  (no arguments)", file=sys.stderr)
        return 2
    reason = missing_reason()
    if reason:
        print(f"error: {reason}", file=sys.stderr)
        return 2
    bad = [f"{stem}.v {hit}" for stem, text in sources().items() for hit in forbidden(text)]
    for b in bad:
        print(f"forbidden: {b}")
    with tempfile.TemporaryDirectory(prefix="slth-coq-math-") as tmp:
        ok, why = compile(tmp)
        if not ok:
            print(f"rejected: {why}")
            return 1
        rests = assumptions(tmp)
    other = False
    for name, axioms in rests.items():
        odd = unexpected(axioms)
        other = other or bool(odd)
        print(f"{name}: " + (", ".join(families(axioms)) or "closed (no axioms)")
              + (f"; OTHER AXIOMS: {', '.join(odd)}" if odd else ""))
    from .premises import ALL
    print(f"premises proved in Coq: {len(PROVED_PREMISES)} of {len(ALL)} (" + "; ".join(PROVED_PREMISES) + ")")
    errors = premise_map_errors()
    for e in errors:
        print(f"error: {e}")
    return 1 if bad or other or errors else 0


if __name__ == "__main__":
    sys.exit(main())
