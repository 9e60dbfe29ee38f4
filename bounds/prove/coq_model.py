"""The model of the probabilistic statements' hypotheses (``proofs/coq/model/Model.v``): the Dirac probability at one
sample, a class of items for which Lueker's corollary holds there, and widths, budgets and weights meeting every
hypothesis of every probabilistic statement theorem (``stmt_lemma7``, ``stmt_lemma2``, ``stmt_theorem9``,
``stmt_theorem10``, ``stmt_theorem11``, ``stmt_theorem14``), each theorem applied to them; and one token, mask and
zero targets meeting every premise of ``stmt_lemma8``, ``stmt_lemma5``, ``stmt_lemma12`` and ``stmt_lemma13``.  That the model
compiles shows that no one of these theorems holds because its hypotheses contradict one another.

``model_check(directory)`` compiles ``Model.v`` in a folder where the files and ``Statements.v`` are compiled
(``bounds.prove.coq_math.compile``) and reads ``Print Assumptions`` of each application: ``{"ok", "error",
"instances": {name: [axioms]}}``; ``assumptions=False`` compiles only (each query walks CoqInterval's proofs again:
about six seconds of CPU each, ten of them)."""
from __future__ import annotations

import shutil
from pathlib import Path

from . import coq_math
from .coq.assumed import locate_source, read_assumptions
from .coq.build import write_atomic
from .coq.runner import LEAN_GC

MODEL = coq_math.ROOT / "proofs" / "coq" / "model" / "Model.v"
INSTANCES = {  # statement -> the definition of Model.v that applies its theorem to the model
    "lemma7": "lemma7_in_the_model",
    "lemma2": "lemma2_in_the_model",
    "theorem9": "theorem9_in_the_model",
    "theorem10": "theorem10_in_the_model",
    "theorem11": "theorem11_in_the_model",
    "theorem14": "theorem14_in_the_model",
    "lemma8": "lemma8_in_the_model",
    "lemma5": "lemma5_in_the_model",
    "lemma12": "lemma12_in_the_model",
    "lemma13": "lemma13_in_the_model",
}


def model_check(directory, text: str | None = None, assumptions: bool = True) -> dict:
    """``Model.v`` (or ``text``) compiled in ``directory`` beside the compiled ``Statements.v``: ``ok``, ``error``
    (Coq's, with the line) and, when it compiles and ``assumptions`` is true, ``instances``: the axioms each
    application rests on (with ``assumptions`` false, ``instances`` is empty: nothing was asked)."""
    directory = Path(directory)
    if text is None:
        shutil.copy(MODEL, directory / "Model.v")
    else:
        write_atomic(directory / "Model.v", text)
    ok, why = coq_math.compile_file(directory, "Model")
    if not ok:
        return {"ok": False, "error": why, "instances": {}}
    if not assumptions:
        return {"ok": True, "error": "", "instances": {}}
    names = list(INSTANCES.values())
    write_atomic(directory / "ModelAssumptions.v", f"From {coq_math.LOGICAL} Require Import Model.\n"
                 + locate_source(coq_math.PREMISES) + "".join(f"Print Assumptions {n}.\n" for n in names))
    ok, out = coq_math.compile_file(directory, "ModelAssumptions", env=LEAN_GC)
    if not ok:
        return {"ok": False, "error": out, "instances": {}}
    blocks = read_assumptions(out, coq_math.PREMISES)  # each name fully qualified (coq.assumed)
    return {"ok": True, "error": "", "instances": dict(zip(INSTANCES, blocks))}
