"""The model of the probabilistic statements' hypotheses (``proofs/coq/model/Model.v``): the Dirac probability at one
sample, a class of items for which Lueker's corollary holds there, and widths, budgets and weights meeting every
hypothesis of every probabilistic statement theorem (``stmt_lemma7``, ``stmt_lemma2``, ``stmt_theorem9``,
``stmt_theorem10``, ``stmt_theorem11``, ``stmt_theorem14``), each theorem applied to them; and one token, mask and zero
targets meeting every premise of ``stmt_lemma8``, ``stmt_lemma5``, ``stmt_lemma12`` and ``stmt_lemma13``.  That the
model compiles shows that no one of these theorems holds because its hypotheses contradict one another."""
from __future__ import annotations

import shutil
from pathlib import Path

from . import coq_math
from .coq.assumed import locate_source, read_assumptions
from .coq.build import write_atomic
from .coq.runner import QUERY_GC

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
    (Coq's, with the line) and, when it compiles and ``assumptions`` is true, ``applied`` (the statements whose
    theorem the model applies) and ``axioms``: what the ten applications rest on together, from one ``Print
    Assumptions`` of their tuple (a superset of each one's own list; Coq keeps nothing between two queries, and each
    walks CoqInterval's proofs again: about six seconds of CPU a query).  When that list names an axiom beyond Coq's
    standard ones and the premises, ``instances`` gives each application's own list, asked one by one, so the one
    that rests on it is named; else ``instances`` is empty."""
    directory = Path(directory)
    if text is None:
        shutil.copy(MODEL, directory / "Model.v")
    else:
        write_atomic(directory / "Model.v", text)
    ok, why = coq_math.compile_file(directory, "Model")
    if not ok or not assumptions:
        return {"ok": ok, "error": "" if ok else why, "applied": [], "axioms": [], "instances": {}}
    together = _print_assumptions(directory, {"slth_model_all": list(INSTANCES.values())})
    if isinstance(together, str):
        return {"ok": False, "error": together, "applied": [], "axioms": [], "instances": {}}
    axioms, instances = together[0], {}
    if coq_math.unexpected(axioms):  # which application rests on it: one query each
        each = _print_assumptions(directory, {f"slth_model_{n}": [d] for n, d in INSTANCES.items()})
        if isinstance(each, str):
            return {"ok": False, "error": each, "applied": [], "axioms": [], "instances": {}}
        instances = dict(zip(INSTANCES, each))
    return {"ok": True, "error": "", "applied": list(INSTANCES), "axioms": axioms, "instances": instances}


def _print_assumptions(directory: Path, queries: dict[str, list[str]]):
    """One coqc: ``Print Assumptions`` of each query's tuple of definitions of ``Model.v``: its axiom lists in order
    (each name fully qualified, ``coq.assumed``), or Coq's error."""
    write_atomic(directory / "ModelAssumptions.v", f"From {coq_math.LOGICAL} Require Import Model.\n"
                 + locate_source(coq_math.PREMISES)
                 + "".join(f"Definition {q} := ({', '.join(ds)}, tt).\n" for q, ds in queries.items())
                 + "".join(f"Print Assumptions {q}.\n" for q in queries))
    ok, out = coq_math.compile_file(directory, "ModelAssumptions", env=QUERY_GC)
    if not ok:
        return out
    blocks = read_assumptions(out, coq_math.PREMISES)
    if len(blocks) != len(queries):
        return f"Print Assumptions printed {len(blocks)} blocks for {len(queries)} queries"
    return blocks
