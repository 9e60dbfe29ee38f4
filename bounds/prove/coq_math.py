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

from .coq.assumed import declarations, locate_source, qualify, strip_comments
from .coq.check import (LEAN_GC, coqc, family, missing_reason, parse_assumptions, read_assumptions,
                         write_atomic)

ROOT = Path(__file__).resolve().parents[2]
MATH = ROOT / "proofs" / "coq" / "math"
LOGICAL = "SlthMath"
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
from .coq.assumed import FORMS as FORBIDDEN  # noqa: E402 (every axiom-declaring form)


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
    two at once (``bounds.prove.coq.check.run_coqc``: its own process group, a time limit, killed on Ctrl-C or
    SIGTERM).  A file is compiled again only when its text, coqc's version or a file it imports changed, or its
    ``.vo`` is not the one coqc wrote (the record ``.slth-math.json`` in ``directory`` binds each to the sha256 of
    its ``.vo``).  ``(True, "")`` or ``(False, "<file>.v line N: Coq's first error")``: the first file in import
    order that fails; no file is started after a failure."""
    from .coq import check
    directory = Path(directory)
    files = {**sources(), **scalar_sources()} if files is None else files
    stems = order(files)
    for stem in stems:  # an axiom-declaring form: refused before any coqc
        hits = forbidden(files[stem], stem=stem)
        if hits:
            return False, f"{stem}.v {hits[0]}: an axiom-declaring form (only the premises of PREMISES may be assumed)"
    version = check.coqc_version()
    state_path = directory / STATE
    state = check._load_state(state_path)
    done = state.get("files", {}) if state.get("version") == version and isinstance(state.get("files"), dict) else {}
    for stem in stems:
        path = directory / f"{stem}.v"
        if not holds(path, files[stem]):
            check.write_atomic(path, files[stem])
    digest = keys(files, version)
    fresh = {s for s in stems if isinstance(done.get(s), dict) and done[s].get("digest") == digest[s]
             and done[s].get("vo") and check._sha(directory / f"{s}.vo") == done[s]["vo"]}
    record = {s: done[s] for s in fresh}
    failed: dict = {}
    lock = threading.Lock()

    def one(stem):
        for ext in (".vo", ".vok", ".vos", ".glob"):
            (directory / f"{stem}{ext}").unlink(missing_ok=True)
        ok, why = compile_file(directory, stem)
        with lock:
            if ok:
                record[stem] = {"digest": digest[stem], "vo": check._sha(directory / f"{stem}.vo")}
            else:
                failed[stem] = why
        return stem

    built = set(fresh)
    running: dict = {}
    try:
        with check._reaped(), check._pool() as pool:
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
        check.save_state(state_path, {"version": version, "files": record})
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
    from .coq import check
    directory = Path(directory)
    try:
        rc, out = check.run_coqc(["-Q", str(directory), LOGICAL, f"{stem}.v"], directory, env=env)
    except check.CoqcFailure as e:
        return False, f"{stem}.v: {e}"
    if rc == 0:
        return True, out
    m = re.search(r"line (\d+)", out)
    err = re.search(r"Error:\s*(.*?)(?:\n\n|\Z)", out, re.S)
    msg = " ".join(err.group(1).split())[:300] if err else (out.strip().splitlines() or ["coqc failed"])[-1]
    return False, f"{stem}.v line {m.group(1) if m else '?'}: {msg}"


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

STATEMENT_PRELUDE = f"""(* Generated by bounds.prove.coq_math from the bounds catalogue: each statement's theorem, its
   conclusion's bound printed from bounds/ by the exporter's printer.  Premises still assumed are Section
   hypotheses: the closed theorem is universally quantified over them, and its type names them. *)
From Coq Require Import Reals Lra Lia.
From {LOGICAL} Require Import Objects Sums Softmax Matrix Blocks Attention Triangle Induction Deep Perturbation Mha OneLayer Transformer Premises Probability Events.
Open Scope R_scope.

(* a choice for each of finitely many indices *)
Lemma finite_choice : forall (P : nat) (Q : nat -> (nat -> R) -> Prop),
  (forall p, (p < P)%nat -> exists m, Q p m) -> exists M : nat -> nat -> R, forall p, (p < P)%nat -> Q p (M p).
Proof.
  induction P as [|P IH]; intros Q H; [exists (fun _ _ => 0); intros; lia|].
  destruct (IH Q) as [M HM]; [intros; apply H; lia|]. destruct (H P) as [m Hm]; [lia|].
  exists (fun p => if Nat.eqb p P then m else M p). intros p Hp.
  destruct (Nat.eqb_spec p P) as [->|N]; [exact Hm | apply HM; lia].
Qed.
"""

LUEKER_TEXT = """
(* Lueker's corollary as the paper cites it (Events.v: lueker_corollary), its width, error and failure printed from
   the bounds catalogue: the one cited result, a hypothesis of every theorem that uses it, proved nowhere *)
Definition n_lueker (C eps : R) : R := {w:n}.
Definition err_lueker (eps : R) : R := {bound}.
Definition fail_lueker (eps : R) : R := {fail}.
Definition lueker_cited {Omega} (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R)
  : Prop := lueker_corollary P lueker_class (n_lueker C) err_lueker fail_lueker.

(* at eps = 1 the failure budget is 1, met by every event: the corollary extends to 0 < eps <= 1 (the steps bound
   each per-problem budget by 1) *)
Lemma lueker_upto1 : forall {Omega} (P : outer_prob Omega) lueker_class C, lueker_cited P lueker_class C ->
  forall N X eps, premise_lueker_items lueker_class N X -> 0 < eps <= 1 -> n_lueker C eps <= INR N ->
  whp P (fun w => subset_sums_cover N (fun k => X k w) (err_lueker eps)) (fail_lueker eps).
Proof.
  intros Omega P cl C L N X eps HX [He0 He1] Hw. destruct (Rle_lt_or_eq_dec eps 1 He1) as [Hlt|Heq].
  - apply L; [exact HX | split; assumption | exact Hw].
  - apply whp_one. unfold fail_lueker. rewrite Heq. lra.
Qed.
"""
"""Lueker's corollary as the statements cite it, filled from the catalogue's statement ``lueker``."""

CITED = "lueker"
"""The one cited result: stated in Coq (``LUEKER_TEXT``) as a hypothesis of the theorems that use it, proved nowhere."""


def cited_statement(catalogue: dict | None = None) -> str:
    """The Coq text of the cited result as ``Statements.v`` writes it: its printed definitions and ``lueker_cited``."""
    return fill(CITED, LUEKER_TEXT, catalogue).split("\n(* at eps = 1")[0].strip("\n")


_SOFTMAX_GAP = ("norm d1 (vsub (vecmat T (softmax T a z) X) (vecmat T (softmax T a (vadd z e)) X))")
FORMAL = {  # statement -> (its nat parameters, the premises it rests on, its Section text with {bound})
    "lemma8": (("d1",), (), f"""Section lemma8.
(* ||sigma(z;a) X - sigma(z+e;a) X|| for ||e||_max <= eps_max and rows of X of norm at most alpha *)
Theorem stmt_lemma8 : forall (T d1 : nat) (a z e : vec) (X : mat) (alpha eps_max : R),
  is_mask T a -> norm_max T e <= eps_max -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  {_SOFTMAX_GAP} <= {{bound}}.
Proof.
  intros T d1 a z e X alpha eps_max Ha He HX.
  eapply Rle_trans; [apply (lemma8 T d1 a z e X alpha eps_max Ha He HX) | right; ring].
Qed.
End lemma8.
"""),
    "lemma5": (("d1",), (), f"""Section lemma5.
(* the same difference when moreover eps_max <= 1/2 *)
Theorem stmt_lemma5 : forall (T d1 : nat) (a z e : vec) (X : mat) (alpha eps_max : R),
  is_mask T a -> norm_max T e <= eps_max -> eps_max <= {{hi:eps_max:0}} -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  {_SOFTMAX_GAP} <= {{bound}}.
Proof.
  intros T d1 a z e X alpha eps_max Ha He Hh HX.
  eapply Rle_trans; [apply (lemma5 T d1 a z e X alpha eps_max Ha He Hh HX) | right; ring].
Qed.
End lemma5.
"""),
    "lemma12": (("d1", "H"), ("Lemma 12's ||x'_i|| <= alpha",), """Section lemma12.
Variables (T d1 : nat) (X' : mat) (alpha : R).
(* what the proof's logit step needs and the printed lemma does not assume: the perturbed tokens are in the ball *)
Hypothesis x'_in_ball : premise_lemma12_x' T d1 X' alpha.
(* ||Attn_T(x_i) - Attn_T(x'_i)|| for target weights of norm <= 1 and tokens ||x_k|| <= alpha moved by <= eps_max *)
Theorem stmt_lemma12 : forall (H dK dV d2 : nat) (WQ WK WV WO : nat -> mat) (X a : mat) (i : nat) (eps_max : R),
  (forall h, (h < H)%nat -> op_bound d1 dK (WQ h) 1 /\\ op_bound d1 dK (WK h) 1 /\\ op_bound d1 dV (WV h) 1 /\\
                            op_bound dV d2 (WO h) 1) ->
  is_mask T (a i) -> (i < T)%nat -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  (forall k, (k < T)%nat -> norm d1 (vsub (X k) (X' k)) <= eps_max) ->
  norm d2 (vsub (mha H T d1 dK dV WQ WK WV WO X a i) (mha H T d1 dK dV WQ WK WV WO X' a i)) <= {bound}.
Proof.
  intros H dK dV d2 WQ WK WV WO X a i eps_max HW Ha Hi HX Hd.
  eapply Rle_trans; [exact (lemma12_mha H T d1 dK dV d2 WQ WK WV WO X X' a i alpha eps_max HW Ha Hi HX x'_in_ball Hd)|].
  replace (4 * eps_max * alpha) with (4 * alpha * eps_max) by ring. right; ring.
Qed.
End lemma12.
"""),
    "lemma13": (("d1", "H"), ("Lemma 12's ||x'_i|| <= alpha",), """Section lemma13.
Variables (T d1 : nat) (X' : mat) (alpha : R).
Hypothesis x'_in_ball : premise_lemma12_x' T d1 X' alpha.
(* ||Blk_T(x_i) - Blk_T(x'_i)|| for the block of an MHA (d2 = d1) and a ReLU net of L >= 1 layers of width d1, every
   target weight of norm <= 1: the bound of the proof's last line (the printed statement has half of it) *)
Theorem stmt_lemma13 : forall (H dK dV : nat) (WQ WK WV WO : nat -> mat) (L : nat) (W : nat -> mat) (X a : mat)
    (i : nat) (eps_max : R),
  (1 <= H)%nat -> (1 <= d1)%nat -> (1 <= L)%nat ->
  (forall h, (h < H)%nat -> op_bound d1 dK (WQ h) 1 /\\ op_bound d1 dK (WK h) 1 /\\ op_bound d1 dV (WV h) 1 /\\
                            op_bound dV d1 (WO h) 1) ->
  (forall l, (l < L)%nat -> op_bound d1 d1 (W l) 1) ->
  is_mask T (a i) -> (i < T)%nat -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  (forall k, (k < T)%nat -> norm d1 (vsub (X k) (X' k)) <= eps_max) ->
  norm d1 (vsub (block H T d1 dK dV WQ WK WV WO L (fun _ => d1) W X a i)
                (block H T d1 dK dV WQ WK WV WO L (fun _ => d1) W X' a i)) <= {bound}.
Proof.
  intros H dK dV WQ WK WV WO L W X a i eps_max HH Hd1 HL HW HF Ha Hi HX Hd.
  eapply Rle_trans;
    [exact (lemma13_block H T d1 dK dV WQ WK WV WO L W X X' a i alpha eps_max HH Hd1 HL HW HF Ha Hi HX x'_in_ball Hd)|].
  replace (4 * eps_max * alpha) with (4 * alpha * eps_max) by ring. right; ring.
Qed.
End lemma13.
"""),
    "lemma7": (("d1", "d2"), ("Lueker for every z at once", "Lueker's item distribution"), """(* Lemma 7: width, error and failure probability as the paper prints them *)
Definition n_lemma7 (C : R) (d1 d2 : nat) (eps : R) : R := {w:n}.
Definition err_lemma7 (d1 d2 : nat) (eps : R) : R := {bound}.
Definition fail_lemma7 (d1 d2 : nat) (eps : R) : R := {fail}.
(* the event of Lemma 7 for the random weights v, u at the sample w: for every target W with entries in [-1, 1],
   masks m_ijk in {0, 1} put every entry of the pruned product within err *)
Definition lemma7_event {Omega} (d1 d2 n : nat) (v : nat -> nat -> nat -> Omega -> R) (u : nat -> nat -> Omega -> R)
    (err : R) (w : Omega) : Prop :=
  forall W : mat, (forall i j, (i < d2)%nat -> (j < d1)%nat -> Rabs (W i j) <= 1) ->
  exists m : nat -> nat -> nat -> R,
    (forall i j k, (i < d2)%nat -> (j < d1)%nat -> m i j k = 0 \\/ m i j k = 1) /\\
    forall i j, (i < d2)%nat -> (j < d1)%nat ->
      Rabs (matmul (d1 * (n / d1)) (second_block (n / d1) m (fun i j k => v i j k w)) (first_block (n / d1) (fun j k => u j k w)) i j
            - W i j) <= err.

Section lemma7.
(* the sample space, its outer probability, Lueker's class of items and the universal constant C > 0 *)
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
(* the cited result *)
Hypothesis lueker : lueker_cited P lueker_class C.
(* the random weights: W~1 (.) M1 keeps in hidden rows j n' .. j n' + n' - 1 only column j, entries u_jk; row i of
   W~2 splits into blocks v_ijk (Lemma 7's construction, n = d1 n' hidden units) *)
Variables (d1 d2 n : nat) (eps : R) (v : nat -> nat -> nat -> Omega -> R) (u : nat -> nat -> Omega -> R).
(* 0 < eps <= 1: the printed statement has eps < 1; at eps = 1 the failure budget is 1 and the theorem holds for
   every event (Theorem 9's budgets eps_QK, eps_VO are only shown <= 1) *)
Hypotheses (Hd1 : (1 <= d1)%nat) (Hd2 : (1 <= d2)%nat) (Heps0 : 0 < eps) (Heps1 : eps <= 1).
(* the printed width *)
Hypothesis Hn : n_lemma7 C d1 d2 eps <= INR n.
(* not in the printed statement: d1 divides n, so that each of the d1 blocks has n' = n / d1 units and
   n' >= C log(d1 d2 / eps) follows from the printed width (for d1 not dividing n, floor(n / d1) can miss it) *)
Hypothesis Hdiv : (n mod d1 = 0)%nat.
(* the modelling hypothesis: the items v_ijk u_jk (k < n') of each entry (i, j), products of uniform weights, are in
   Lueker's class *)
Hypothesis items : forall i j, (i < d2)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n / d1) (fun k w => v i j k w * u j k w).
(* Lemma 7 (Lemma 4 of the main text) as the appendix states it: with probability at least 1 - eps, for every target
   W with entries in [-1, 1], masks m_ijk in {0, 1} put every entry of the pruned product within the printed error.
   Differences from the printed statement: d1 divides n (above); the event is one for all targets at once
   (stronger than the printed order "for W, with probability") *)
Theorem stmt_lemma7 : whp P (lemma7_event d1 d2 n v u (err_lemma7 d1 d2 eps)) (fail_lemma7 d1 d2 eps).
Proof.
  destruct (Rle_lt_or_eq_dec eps 1 Heps1) as [Hlt|Heq]; [| apply whp_one; unfold fail_lemma7; rewrite Heq; lra].
  unfold lemma7_event.
  set (n' := (n / d1)%nat). set (ep := eps / (INR d1 * INR d2)).
  assert (0 < INR d1) by (apply lt_0_INR; lia). assert (0 < INR d2) by (apply lt_0_INR; lia).
  assert (Hep : 0 < ep <= 1).
  { unfold ep. split; [apply Rdiv_lt_0_compat; [lra | nra]|].
    assert (1 <= INR d1) by (apply one_le_INR; exact Hd1). assert (1 <= INR d2) by (apply one_le_INR; exact Hd2).
    apply Rle_trans with eps; [| lra]. unfold Rdiv. rewrite <- (Rmult_1_r eps) at 2.
    apply Rmult_le_compat_l; [lra|]. rewrite <- Rinv_1. apply Rinv_le_contravar; nra. }
  (* L7a: the printed width gives n' >= C log(d1 d2 / eps) per block *)
  assert (Hw : n_lueker C ep <= INR n').
  { apply block_width; [exact Hd1 | exact Hdiv|]. eapply Rle_trans; [| exact Hn].
    unfold n_lueker, n_lemma7, ep. via {step:L7a}. }
  (* Lueker's corollary for each of the d2 d1 problems, problem p = i d1 + j *)
  assert (Hp : forall p, (p < d2 * d1)%nat -> whp P (fun w => subset_sums_cover n'
      (fun k => v (p / d1)%nat (p mod d1)%nat k w * u (p mod d1)%nat k w) (err_lueker ep)) (fail_lueker ep)).
  { intros p Hp. assert (Hd : d1 <> 0%nat) by lia.
    apply (lueker_upto1 P lueker_class C lueker n' (fun k w => v (p / d1)%nat (p mod d1)%nat k w * u (p mod d1)%nat k w));
      [| exact Hep | exact Hw].
    apply items; [apply Nat.div_lt_upper_bound; [exact Hd | lia] | apply Nat.mod_upper_bound; exact Hd]. }
  (* L7c: the union bound over the d1 d2 entries *)
  eapply whp_mono; [| | exact (whp_all_const P (d2 * d1) _ _ Hp)].
  - (* L7b: on the event, the construction (lemma7_on_event) *)
    intros w Hall W HW.
    destruct (lemma7_on_event d1 d2 n' (fun i j k => v i j k w) (fun j k => u j k w) (err_lueker ep)
      (proj1 (lueker_event_all _ _ _ _) Hall) W HW) as [m [Hm Hb]].
    exists m. split; [exact Hm|]. intros i j Hi Hj. eapply Rle_trans; [apply Hb; assumption|].
    unfold err_lueker, err_lemma7, ep. via {step:L7b}.
  - unfold fail_lueker, fail_lemma7, ep. rewrite mult_INR. via {step:L7c}.
Qed.
End lemma7.

(* the main text's form (Lemma 4): ||W|| <= 1 gives every entry in [-1, 1] *)
Corollary lemma7_op_norm : forall Omega (P : outer_prob Omega) lueker_class C, 0 < C -> lueker_cited P lueker_class C ->
  forall (d1 d2 n : nat) (eps : R) v u, (1 <= d1)%nat -> (1 <= d2)%nat -> 0 < eps -> eps <= 1 ->
  n_lemma7 C d1 d2 eps <= INR n -> (n mod d1 = 0)%nat ->
  (forall i j, (i < d2)%nat -> (j < d1)%nat -> premise_lueker_items lueker_class (n / d1) (fun k w => v i j k w * u j k w)) ->
  whp P (fun w => forall W : mat, op_bound d2 d1 W 1 ->
  exists m : nat -> nat -> nat -> R,
    (forall i j k, (i < d2)%nat -> (j < d1)%nat -> m i j k = 0 \\/ m i j k = 1) /\\
    forall i j, (i < d2)%nat -> (j < d1)%nat ->
      Rabs (matmul (d1 * (n / d1)) (second_block (n / d1) m (fun i j k => v i j k w)) (first_block (n / d1) (fun j k => u j k w)) i j
            - W i j) <= err_lemma7 d1 d2 eps) (fail_lemma7 d1 d2 eps).
Proof.
  intros Omega P cl C HC L d1 d2 n eps v u Hd1 Hd2 He0 He1 Hn Hdiv Hi.
  eapply whp_mono; [| apply Rle_refl | exact (stmt_lemma7 Omega P cl C HC L d1 d2 n eps v u Hd1 Hd2 He0 He1 Hn Hdiv Hi)].
  intros w G W HW. unfold lemma7_event in G. apply G. intros i j Hi' Hj'. exact (entry_le_op d2 d1 W 1 i j HW Hi' Hj').
Qed.
"""),
    "lemma2": (("d1", "d2"), ("Lueker for every z at once", "Lueker's item distribution"), """(* Lemma 2: width, error and failure probability as the paper prints them *)
Definition n_lemma2 (C : R) (d1 d2 : nat) (eps : R) : R := {w:n}.
Definition err_lemma2 (d1 d2 : nat) (eps : R) : R := {bound}.
Definition fail_lemma2 (d1 d2 : nat) (eps : R) : R := {fail}.

Section lemma2.
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
(* the random weights of the construction (n = d1 n' hidden units, unit j n' + k with first weight u_jk and second
   weights v_ijk) *)
Variables (d1 d2 n : nat) (eps : R) (v : nat -> nat -> nat -> Omega -> R) (u : nat -> nat -> Omega -> R).
Hypotheses (Hd1 : (1 <= d1)%nat) (Hd2 : (1 <= d2)%nat) (Heps0 : 0 < eps) (Heps1 : eps < 1).
Hypothesis Hn : n_lemma2 C d1 d2 eps <= INR n.
(* not in the printed statement: d1 divides n (n' = n / d1 units per input coordinate) *)
Hypothesis Hdiv : (n mod d1 = 0)%nat.
(* the modelling hypothesis: the half-rectified products v_ijk max(0, u_jk) and v_ijk max(0, -u_jk) of uniform
   weights are in Lueker's class *)
Hypothesis items_pos : forall i j, (i < d2)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n / d1) (fun k w => v i j k w * relu (u j k w)).
Hypothesis items_neg : forall i j, (i < d2)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n / d1) (fun k w => v i j k w * relu (- u j k w)).
(* Lemma 2 (Pensia et al.): with probability at least 1 - eps, for every target W with ||W|| <= 1, masks m_ijk in
   {0, 1} put the pruned pair within the printed error of W x for every x with ||x|| <= 1 at once.  Differences from
   the printed statement: d1 divides n; one event for all targets *)
Theorem stmt_lemma2 : whp P (fun w => forall W : mat, op_bound d2 d1 W 1 ->
  exists m : nat -> nat -> nat -> R,
    (forall i j k, (i < d2)%nat -> (j < d1)%nat -> m i j k = 0 \\/ m i j k = 1) /\\
    forall x : vec, norm d1 x <= 1 ->
      norm d2 (vsub (matvec d1 W x) (matvec (d1 * (n / d1)) (second_block (n / d1) m (fun i j k => v i j k w))
                     (vrelu (matvec d1 (first_block (n / d1) (fun j k => u j k w)) x)))) <= err_lemma2 d1 d2 eps)
  (fail_lemma2 d1 d2 eps).
Proof.
  set (n' := (n / d1)%nat).
  assert (Hper : 0 < {c:per_problem} <= 1).
  { split; [| let S := fresh in instance {step:L2b-eps} S; eapply Rle_trans; [| exact S]; right; sf].
    assert (0 < INR d1) by (apply lt_0_INR; lia). assert (0 < INR d2) by (apply lt_0_INR; lia).
    repeat (apply Rmult_lt_0_compat || apply Rdiv_lt_0_compat || apply Rinv_0_lt_compat); lra. }
  (* L2b: the printed width gives n' >= C log(2 d1 d2 / eps) per block *)
  assert (Hw : n_lueker C {c:per_problem} <= INR n').
  { apply block_width; [exact Hd1 | exact Hdiv|]. eapply Rle_trans; [| exact Hn].
    unfold n_lueker, n_lemma2. via {step:L2b}. }
  assert (Hd : d1 <> 0%nat) by lia.
  assert (Hij : forall p, (p < d2 * d1)%nat -> (p / d1 < d2)%nat /\\ (p mod d1 < d1)%nat)
    by (intros p Hp; split; [apply Nat.div_lt_upper_bound; [exact Hd | lia] | apply Nat.mod_upper_bound; exact Hd]).
  assert (Hpos : forall p, (p < d2 * d1)%nat -> whp P (fun w => subset_sums_cover n'
      (fun k => v (p / d1)%nat (p mod d1)%nat k w * relu (u (p mod d1)%nat k w)) (err_lueker {c:per_problem}))
      (fail_lueker {c:per_problem})).
  { intros p Hp. apply (lueker_upto1 P lueker_class C lueker n'); [| exact Hper | exact Hw].
    apply items_pos; apply Hij, Hp. }
  assert (Hneg : forall p, (p < d2 * d1)%nat -> whp P (fun w => subset_sums_cover n'
      (fun k => v (p / d1)%nat (p mod d1)%nat k w * relu (- u (p mod d1)%nat k w)) (err_lueker {c:per_problem}))
      (fail_lueker {c:per_problem})).
  { intros p Hp. apply (lueker_upto1 P lueker_class C lueker n'); [| exact Hper | exact Hw].
    apply items_neg; apply Hij, Hp. }
  pose proof (whp_and P _ _ _ _ (whp_all_const P (d2 * d1) _ _ Hpos) (whp_all_const P (d2 * d1) _ _ Hneg)) as Hboth.
  eapply whp_mono; [| | exact Hboth].
  - (* L2c, L2d: on the event, the construction (lemma2_on_event) for the 2 d1 d2 problems *)
    intros w [Ep En] W HW.
    destruct (lemma2_on_event d1 d2 n' (fun i j k => v i j k w) (fun j k => u j k w) (err_lueker {c:per_problem})
      Hd1 Hd2 (proj1 (lueker_event_all _ _ _ _) Ep) (proj1 (lueker_event_all _ _ _ _) En) W HW) as [m [Hm Hb]].
    exists m. split; [exact Hm|]. intros x Hx. eapply Rle_trans; [exact (Hb x Hx)|].
      unfold err_lueker, err_lemma2. via {step:L2d}.
  - (* L2e: the union bound over the problems counted by the printed constant problems *)
    unfold fail_lueker, fail_lemma2.
    apply Rle_trans with ({c:problems} * (1 - (1 - {c:per_problem}))); [right; rewrite mult_INR; sf|].
    via {step:L2e}.
Qed.
End lemma2.
"""),
    "theorem9": (("H", "d1", "d2", "d_K"), ("Lueker for every z at once", "Lueker's item distribution"), """(* Theorem 9: widths, error and failure probability as the paper prints them *)
Definition n_K_theorem9 (C : R) (H d1 d2 : nat) (alpha eps : R) : R := {w:n_K}.
Definition n_V_theorem9 (C : R) (H d1 d2 : nat) (alpha eps : R) : R := {w:n_V}.
Definition err_theorem9 (H d1 d2 : nat) (alpha eps : R) : R := {bound}.
Definition fail_theorem9 (H d1 d2 : nat) (alpha eps : R) : R := {fail}.

Section theorem9.
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
Variables (H d1 d2 d_K dV n_K n_V : nat) (alpha eps : R).
(* alpha >= max(sqrt d1, sqrt d2) as the paper assumes (Ha2 is used by the union bound S4) *)
Hypotheses (HH : (1 <= H)%nat) (Hd1 : (1 <= d1)%nat) (Hd2 : (1 <= d2)%nat) (HdK : (1 <= d_K)%nat)
  (Heps0 : 0 < eps) (Heps1 : eps < 1) (Ha1 : {lo:alpha:0} <= alpha) (Ha2 : {lo:alpha:1} <= alpha).
(* the printed widths n_K (query/key) and n_V (value/output) *)
Hypotheses (HnK : n_K_theorem9 C H d1 d2 alpha eps <= INR n_K) (HnV : n_V_theorem9 C H d1 d2 alpha eps <= INR n_V).
(* not in the printed statement: d1 divides n_K and n_V (each of Lemma 7's d1 blocks has n_K / d1, n_V / d1 units) *)
Hypotheses (HdivK : (n_K mod d1 = 0)%nat) (HdivV : (n_V mod d1 = 0)%nat).
(* the rescaled random items of head h: query/key v_Q h i j k and u_Q h j k, value/output v_V h i j k and
   u_V h j k (Lemma 7's construction on each head's merged matrices) *)
Variables (vQ vV : nat -> nat -> nat -> nat -> Omega -> R) (uQ uV : nat -> nat -> nat -> Omega -> R).
(* the modelling hypothesis: each entry's items, products of uniform weights, are in Lueker's class *)
Hypothesis itemsQ : forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_K / d1) (fun k w => vQ h i j k w * uQ h j k w).
Hypothesis itemsV : forall h, (h < H)%nat -> forall i j, (i < d2)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_V / d1) (fun k w => vV h i j k w * uV h j k w).
(* Theorem 9 (Theorem 3 of the main text): with probability at least 1 - eps, for all target heads with ||W_Q||,
   ||W_K||, ||W_V||, ||W_O|| <= 1, masks m_Q, m_V in {0, 1} put the pruned MHA within the printed error of the
   target MHA on every input X with rows of norm at most alpha, every mask and every token.  Differences from the
   printed statement: d1 divides n_K and n_V; one event for all targets; the masks M_K and M_O are the fixed block
   masks of Lemma 7's construction (src_K, src_O) *)
Theorem stmt_theorem9 : whp P (fun w => forall WQ WK WV WO : nat -> mat,
  (forall h, (h < H)%nat -> op_bound d1 d_K (WQ h) 1 /\\ op_bound d1 d_K (WK h) 1 /\\ op_bound d1 dV (WV h) 1 /\\
     op_bound dV d2 (WO h) 1) ->
  exists mQ mV : nat -> nat -> nat -> nat -> R,
    (forall h i j k, (h < H)%nat -> (i < d1)%nat -> (j < d1)%nat -> mQ h i j k = 0 \\/ mQ h i j k = 1) /\\
    (forall h i j k, (h < H)%nat -> (i < d2)%nat -> (j < d1)%nat -> mV h i j k = 0 \\/ mV h i j k = 1) /\\
    forall (T : nat) (X a : mat), (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
    forall i, (i < T)%nat -> is_mask T (a i) ->
      norm d2 (vsub (mha H T d1 (d1 * (n_K / d1)) (d1 * (n_V / d1))
                      (fun h => src_Q (n_K / d1) d1 (mQ h) (fun i j k => vQ h i j k w))
                      (fun h => src_K (n_K / d1) d1 (fun j k => uQ h j k w)) (fun h => src_V (n_V / d1) (fun j k => uV h j k w))
                      (fun h => src_O (n_V / d1) (mV h) (fun i j k => vV h i j k w)) X a i)
                    (mha H T d1 d_K dV WQ WK WV WO X a i)) <= err_theorem9 H d1 d2 alpha eps)
  (fail_theorem9 H d1 d2 alpha eps).
Proof.
  assert (Halpha : 0 < alpha) by (eapply Rlt_le_trans; [| exact Ha1]; apply sqrt_lt_R0, lt_0_INR; lia).
  assert (HH' : 1 <= INR H) by (apply one_le_INR; exact HH).
  assert (Hd1' : 1 <= INR d1) by (apply one_le_INR; exact Hd1).
  assert (Hd2' : 1 <= INR d2) by (apply one_le_INR; exact Hd2).
  (* S2a-eps, S2d-eps: Lemma 7's budgets eps_QK, eps_VO lie in (0, 1] *)
  assert (HQK : 0 < {c:eps_QK} <= 1).
  { split; [| let S := fresh in instance {step:S2a-eps} S; eapply Rle_trans; [| exact S]; right; sf].
    repeat (apply Rmult_lt_0_compat || apply Rdiv_lt_0_compat || apply Rinv_0_lt_compat || apply pow_lt
            || apply sqrt_lt_R0); lra. }
  assert (HVO : 0 < {c:eps_VO} <= 1).
  { split; [| let S := fresh in instance {step:S2d-eps} S; eapply Rle_trans; [| exact S]; right; sf].
    repeat (apply Rmult_lt_0_compat || apply Rdiv_lt_0_compat || apply Rinv_0_lt_compat || apply pow_lt
            || apply sqrt_lt_R0); lra. }
  (* S2a, S2d: the printed widths are Lemma 7's at eps_QK (d2 := d1) and at eps_VO *)
  assert (HwK : n_lemma7 C d1 d1 {c:eps_QK} <= INR n_K)
    by (eapply Rle_trans; [| exact HnK]; unfold n_lemma7, n_K_theorem9; via {step:S2a}).
  assert (HwV : n_lemma7 C d1 d2 {c:eps_VO} <= INR n_V)
    by (eapply Rle_trans; [| exact HnV]; unfold n_lemma7, n_V_theorem9; via {step:S2d}).
  (* Lemma 7 for each head, on W_QK and on W_VO^T *)
  pose proof (whp_all_const P H _ _ (fun h Hh => stmt_lemma7 Omega P lueker_class C HC lueker d1 d1 n_K {c:eps_QK}
    (vQ h) (uQ h) Hd1 Hd1 (proj1 HQK) (proj2 HQK) HwK HdivK (itemsQ h Hh))) as EQ.
  pose proof (whp_all_const P H _ _ (fun h Hh => stmt_lemma7 Omega P lueker_class C HC lueker d1 d2 n_V {c:eps_VO}
    (vV h) (uV h) Hd1 Hd2 (proj1 HVO) (proj2 HVO) HwV HdivV (itemsV h Hh))) as EV.
  (* S4: the union bound over the 2H applications of Lemma 7 *)
  eapply whp_mono; [| | exact (whp_and P _ _ _ _ EQ EV)].
  2: { unfold fail_lemma7, fail_theorem9. via {step:S4}. }
  intros w [LQ LV] WQ WK WV WO HW. unfold lemma7_event, err_lemma7 in LQ, LV.
  set (n' := (n_K / d1)%nat) in *. set (n'' := (n_V / d1)%nat) in *.
  assert (S1 : / sqrt (INR d_K) <= 1) by (let S := fresh in instance {step:S1} S; exact S).
  (* S2a, S2d: Lemma 7 on each head's W_QK and W_VO^T, on the event *)
  pose proof (fun h (Hh : (h < H)%nat) => LQ h Hh (WQK d_K (WQ h) (WK h)) (fun r c Hr Hc => entry_le_op d1 d1 _ 1 r c
    (WQK_op d1 d_K (WQ h) (WK h) HdK S1 (proj1 (HW h Hh)) (proj1 (proj2 (HW h Hh)))) Hr Hc)) as L7Q.
  pose proof (fun h (Hh : (h < H)%nat) => LV h Hh (transpose (WVO dV (WV h) (WO h))) (fun r c Hr Hc => entry_le_op d2 d1 _ 1 r c
    (WVO_op d1 dV d2 (WV h) (WO h) (proj1 (proj2 (proj2 (HW h Hh)))) (proj2 (proj2 (proj2 (HW h Hh))))) Hr Hc)) as L7V.
  destruct (finite_choice_of _ (fun _ _ _ => 0) H _ L7Q) as [mQ HmQ].
  destruct (finite_choice_of _ (fun _ _ _ => 0) H _ L7V) as [mV HmV].
  cbv beta in HmQ, HmV.
  exists mQ, mV. split; [intros h i j k Hh Hi Hj; apply (proj1 (HmQ h Hh)); assumption|].
  split; [intros h i j k Hh Hi Hj; apply (proj1 (HmV h Hh)); assumption|].
  intros T X a HX i Hi Ha. unfold err_theorem9.
  (* S3c: the heads' errors add up; S1-S3b per head (head_gap) *)
  eapply Rle_trans; [eapply mha_gap; intros h Hh; cbv beta; rewrite norm_heads_merged; eapply head_gap|].
  - exact Hd1.
  - exact Hd2.
  - exact Hi.
  - exact Ha.
  - exact HX.
  - apply WVO_op; apply HW; exact Hh.
  - intros r c Hr Hc. rewrite src_QK. apply (proj2 (HmQ h Hh)); assumption.
  - intros r c Hr Hc. rewrite src_VO. apply (proj2 (HmV h Hh)); assumption.
  - apply Rle_refl.
  - (* S2b-S2c (the logit error, Lemma 8 and exp(x) - 1 <= 2x), S3b, and S3c's sum over the heads *)
    apply Rle_trans with (INR H * ({c:S3a} + {c:S3b})).
    + apply Rmult_le_compat_l; [apply pos_INR|]. apply Rplus_le_compat; [via {step:S2c-i} | via {step:S3b}].
    + via {step:S3c}.
Qed.
End theorem9.
"""),
    "theorem10": (('d1', 'd2', 'L'), ("Lueker for every z at once", "Lueker's item distribution"), """From SlthMath Require Import Theorem10.
(* Theorem 10's width, error and failure probability as the paper prints them *)
Definition n_theorem10 (C : R) (d1 d2 L : nat) (eps : R) : R := {w:n_l}.
Definition err_theorem10 (alpha eps : R) : R := {bound}.
Definition fail_theorem10 (eps : R) : R := {fail}.
(* the budget eps / (2L) at which each layer's Lemma 2 is applied *)
Definition budget_theorem10 (L : nat) (eps : R) : R := {c:budget}.

Section theorem10.
(* T10a: Lemma 2 with (d1, d2) = (d_l, d_(l+1)) at the layer budget needs at most the printed width *)
Lemma theorem10_layer_width : forall C (d1 d2 L : nat) eps, 0 < C -> (1 <= d1)%nat -> (1 <= d2)%nat -> (1 <= L)%nat ->
  0 < eps -> eps < 1 -> n_lemma2 C d1 d2 (budget_theorem10 L eps) <= n_theorem10 C d1 d2 L eps.
Proof.
  intros C d1 d2 L eps HC Hd1 Hd2 HL He0 He1. unfold n_lemma2, n_theorem10, budget_theorem10.
  let S := fresh in instance {step:T10a} S; eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le;
    [f_equal; f_equal; sf | reflexivity].
Qed.
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
(* the target's widths dims 0 .. dims L, the source's hidden widths n 0 .. n (L-1) *)
Variables (L : nat) (dims n : nat -> nat) (alpha eps : R).
(* alpha >= 1: the written proof's step T10b fails for alpha < 1 (a repaired reading of the printed alpha > 0) *)
Hypotheses (HL : (1 <= L)%nat) (Hdims : forall l, (l <= L)%nat -> (1 <= dims l)%nat) (Ha : 1 <= alpha)
  (Heps0 : 0 < eps) (Heps1 : eps < 1).
(* the printed width of every layer *)
Hypothesis Hn : forall l, (l < L)%nat -> n_theorem10 C (dims l) (dims (S l)) L eps <= INR (n l).
(* not in the printed statement: d_l divides n_l (Lemma 2's n_l / d_l units per input coordinate) *)
Hypothesis Hdiv : forall l, (l < L)%nat -> (n l mod dims l = 0)%nat.
(* layer l's random weights, Lemma 2's construction: first weights u l j k, second weights v l i j k *)
Variables (v : nat -> nat -> nat -> nat -> Omega -> R) (u : nat -> nat -> nat -> Omega -> R).
(* the modelling hypothesis of Lemma 2, for every layer *)
Hypothesis items_pos : forall l, (l < L)%nat -> forall i j, (i < dims (S l))%nat -> (j < dims l)%nat ->
  premise_lueker_items lueker_class (n l / dims l) (fun k w => v l i j k w * relu (u l j k w)).
Hypothesis items_neg : forall l, (l < L)%nat -> forall i j, (i < dims (S l))%nat -> (j < dims l)%nat ->
  premise_lueker_items lueker_class (n l / dims l) (fun k w => v l i j k w * relu (- u l j k w)).
(* Theorem 10 (Pensia et al. 2020, Theorem 1): with probability at least 1 - eps, for every target net of L layers
   with ||W_l|| <= 1, masks in {0, 1} put the pruned net of 2L layers (pruned_net, Theorem10.v) within the printed
   error of the target on every input of norm at most alpha.  Differences from the printed statement: alpha >= 1
   (above); d_l divides n_l; one event for all targets *)
Theorem stmt_theorem10 : whp P (fun w => forall W : nat -> mat,
  (forall l, (l < L)%nat -> op_bound (dims (S l)) (dims l) (W l) 1) ->
  exists m : nat -> nat -> nat -> nat -> R,
    (forall l, (l < L)%nat -> binary3 (dims (S l)) (dims l) (m l)) /\\
    forall x : vec, norm (dims O) x <= alpha ->
      norm (dims L) (vsub (pruned_net L dims (fun l => n l / dims l)%nat (fun l j k => u l j k w)
                             (fun l i j k => v l i j k w) m x) (relu_net L dims W x)) <= err_theorem10 alpha eps)
  (fail_theorem10 eps).
Proof.
  assert (HLr : 1 <= INR L) by (apply one_le_INR; exact HL).
  assert (Hb : 0 < budget_theorem10 L eps < 1) by (unfold budget_theorem10; split; [apply Rdiv_lt_0_compat; lra|];
    apply (Rmult_lt_reg_r (2 * INR L)); [lra|]; unfold Rdiv; rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra; lra).
  (* T10a: Lemma 2 at every layer, on its event *)
  assert (H2 : forall l, (l < L)%nat -> whp P (fun w => forall Wl : mat, op_bound (dims (S l)) (dims l) Wl 1 ->
      lemma2_masks (dims l) (dims (S l)) (n l / dims l) (fun j k => u l j k w) (fun i j k => v l i j k w) Wl
        (eps / (2 * INR L))) (budget_theorem10 L eps)).
  { intros l Hl. assert (Hd : (1 <= dims l)%nat) by (apply Hdims; lia). assert (Hd' : (1 <= dims (S l))%nat) by (apply Hdims; lia).
    eapply whp_mono; [| | exact (stmt_lemma2 Omega P lueker_class C HC lueker (dims l) (dims (S l)) (n l) (budget_theorem10 L eps)
      (v l) (u l) Hd Hd' (proj1 Hb) (proj2 Hb)
      (Rle_trans _ _ _ (theorem10_layer_width C (dims l) (dims (S l)) L eps HC Hd Hd' HL Heps0 Heps1) (Hn l Hl))
      (Hdiv l Hl) (items_pos l Hl) (items_neg l Hl))].
    - intros w G Wl HW. destruct (G Wl HW) as [m [Hm Hx]]. exists m. split; [exact Hm|].
      intros x Hx1. eapply Rle_trans; [exact (Hx x Hx1)|]. unfold err_lemma2, budget_theorem10. right. field. lra.
    - unfold fail_lemma2. right. reflexivity. }
  (* T10b-T10e on the event (theorem10_of_lemma2), T10f: the union bound over the L layers *)
  eapply whp_mono; [| | exact (theorem10_whp Omega P L dims (fun l => n l / dims l)%nat (fun w l j k => u l j k w)
                                 (fun w l i j k => v l i j k w) alpha eps (fun _ => budget_theorem10 L eps) HL Ha ltac:(lra) H2)].
  - intros w G W HW. destruct (G W HW) as [m [Hm Hx]]. exists m. split; [exact Hm|].
    intros x Hx1. eapply Rle_trans; [exact (Hx x Hx1)|]. unfold err_theorem10. via {step:T10e}.
  - rewrite sum_const. unfold fail_theorem10, budget_theorem10. via {step:T10f}.
Qed.
End theorem10.
"""),
    "theorem11": (('H', 'd1', 'L'), ("Lueker for every z at once", "Lueker's item distribution"), """From SlthMath Require Import Theorem11.
(* Theorem 11's widths, error and failure probability as the paper prints them *)
Definition n_MHA_theorem11 (C : R) (H d1 : nat) (alpha eps : R) : R := {w:n_MHA}.
Definition n_FC_theorem11 (C : R) (H d1 L : nat) (alpha eps : R) : R := {w:n_FC}.
Definition err_theorem11 (eps : R) : R := {bound}.
Definition fail_theorem11 (eps : R) : R := {fail}.

Section theorem11.
Lemma div_lt_1 : forall a c, 0 <= a < 1 -> 1 <= c -> a / c < 1.
Proof.
  intros a c [Ha0 Ha1] Hc. unfold Rdiv. apply Rle_lt_trans with a; [| exact Ha1].
  rewrite <- (Rmult_1_r a) at 2. apply Rmult_le_compat_l; [exact Ha0|].
  rewrite <- Rinv_1. apply Rinv_le_contravar; lra.
Qed.
(* B3a with T10a: Lemma 2 at Theorem 10's layer budget for the FC net (input norm fc_in, eps_10 = 2 split eps / fc_in)
   needs at most the printed n_FC *)
Lemma theorem11_fc_width : forall C (H d1 L : nat) alpha eps, 0 < C -> (1 <= H)%nat -> (1 <= d1)%nat -> (1 <= L)%nat ->
  0 < eps -> eps < 1 -> sqrt (INR d1) <= alpha -> 0 < 2 * {c:split} * eps / {c:fc_in} < 1 ->
  n_lemma2 C d1 d1 (budget_theorem10 L (2 * {c:split} * eps / {c:fc_in})) <= n_FC_theorem11 C H d1 L alpha eps.
Proof.
  intros C H d1 L alpha eps HC HH Hd1 HL He0 He1 Ha [H10a H10b].
  assert (0 < sqrt (INR d1)) by (apply sqrt_lt_R0, lt_0_INR; lia). assert (0 < alpha) by lra.
  eapply Rle_trans.
  - exact (theorem10_layer_width C d1 d1 L _ HC Hd1 Hd1 HL H10a H10b).
  - unfold n_theorem10, n_FC_theorem11.
    let S := fresh in instance {step:B3a} S; eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le;
      [f_equal; f_equal; sf | reflexivity].
Qed.
(* B1a, B1b: Theorem 9 at the MHA's share of eps needs at most the printed n_MHA for n_K and for n_V *)
Lemma theorem11_mha_widths : forall C (H d1 : nat) alpha eps, 0 < C -> (1 <= H)%nat -> (1 <= d1)%nat -> 0 < eps ->
  eps < 1 -> sqrt (INR d1) <= alpha ->
  n_K_theorem9 C H d1 d1 alpha ({c:mha_share} * {c:split} * eps) <= n_MHA_theorem11 C H d1 alpha eps /\\
  n_V_theorem9 C H d1 d1 alpha ({c:mha_share} * {c:split} * eps) <= n_MHA_theorem11 C H d1 alpha eps.
Proof.
  intros C H d1 alpha eps HC HH Hd1 He0 He1 Ha. unfold n_K_theorem9, n_V_theorem9, n_MHA_theorem11.
  assert (0 < sqrt (INR d1)) by (apply sqrt_lt_R0, lt_0_INR; lia). assert (0 < alpha) by lra.
  split.
  - let S := fresh in instance {step:B1a} S; eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le;
      [f_equal; f_equal; sf | reflexivity].
  - let S := fresh in instance {step:B1b} S; eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le;
      [f_equal; f_equal; sf | reflexivity].
Qed.
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
(* H heads, tokens of size d1 (d2 = d1), target heads with d_K, d_V, a target ReLU net of L layers of width d1; the
   source MHA has n_K = n_V = n_MHA units, the source ReLU net 2L layers with n_FC hidden units each *)
Variables (H d1 dK dV L n_MHA n_FC : nat) (alpha eps : R).
Hypotheses (HH : (1 <= H)%nat) (Hd1 : (1 <= d1)%nat) (HdK : (1 <= dK)%nat) (HL : (1 <= L)%nat)
  (Heps0 : 0 < eps) (Heps1 : eps < 1) (Ha : sqrt (INR d1) <= alpha).
(* the printed widths *)
Hypotheses (HnM : n_MHA_theorem11 C H d1 alpha eps <= INR n_MHA) (HnF : n_FC_theorem11 C H d1 L alpha eps <= INR n_FC).
(* not in the printed statement: d1 divides n_MHA and n_FC *)
Hypotheses (HdivM : (n_MHA mod d1 = 0)%nat) (HdivF : (n_FC mod d1 = 0)%nat).
(* the block's random items (Theorem11.v's record items: those of Theorem 9's construction for the MHA, of Lemma 2's
   for each layer of the ReLU net), functions of the sample w *)
Variable s : Omega -> items.
(* the modelling hypotheses of Theorem 9 and Lemma 2 *)
Hypothesis itemsQ : forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_MHA / d1) (fun k w => vQ (s w) h i j k * uQ (s w) h j k).
Hypothesis itemsV : forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_MHA / d1) (fun k w => vV (s w) h i j k * uV (s w) h j k).
Hypothesis itemsF_pos : forall l, (l < L)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_FC / d1) (fun k w => vF (s w) l i j k * relu (uF (s w) l j k)).
Hypothesis itemsF_neg : forall l, (l < L)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_FC / d1) (fun k w => vF (s w) l i j k * relu (- uF (s w) l j k)).
(* Theorem 11: with probability at least 1 - eps, for every target block with all weights of norm <= 1, masks in
   {0, 1} put the pruned block (pruned_block, Theorem11.v) within the printed error of the target block
   (target_block) on every input whose tokens have norm at most alpha, every length, every attention mask and every
   token (theorem11_masks).  Differences from the printed statement: d1 divides n_MHA and n_FC; one event for all
   targets; the masks M_K, M_O are Lemma 7's fixed block masks *)
Theorem stmt_theorem11 : whp P (fun w => forall t : target, target_norms H d1 dK dV L t ->
  theorem11_masks H d1 dK dV (n_MHA / d1) (n_FC / d1) L (s w) t alpha (err_theorem11 eps)) (fail_theorem11 eps).
Proof.
  assert (Hs1 : 1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt, one_le_INR, Hd1).
  assert (Halpha : 0 < alpha) by lra.
  assert (HHr : 1 <= INR H) by (apply one_le_INR; exact HH).
  assert (HLr : 1 <= INR L) by (apply one_le_INR; exact HL).
  set (e9 := {c:mha_share} * {c:split} * eps). set (e10 := 2 * {c:split} * eps / {c:fc_in}).
  assert (He9 : 0 < e9 < 1) by (unfold e9; split; lra).
  assert (Hin : 1 <= {c:fc_in}) by (via {step:B3-alpha}).
  assert (He10 : 0 < e10 < 1) by (unfold e10; split; [apply Rdiv_lt_0_compat; lra | apply div_lt_1; [lra | exact Hin]]).
  destruct (theorem11_mha_widths C H d1 alpha eps HC HH Hd1 Heps0 Heps1 Ha) as [HwK HwV].
  (* B1: Theorem 9 at e9, on its event *)
  assert (H9 : whp P (fun w => forall t : target, target_norms H d1 dK dV L t ->
      theorem9_masks H d1 dK dV (n_MHA / d1) (s w) t alpha e9) e9).
  { eapply whp_mono; [| | exact (stmt_theorem9 Omega P lueker_class C HC lueker H d1 d1 dK dV n_MHA n_MHA alpha e9
        HH Hd1 Hd1 HdK (proj1 He9) (proj2 He9) Ha Ha (Rle_trans _ _ _ HwK HnM) (Rle_trans _ _ _ HwV HnM) HdivM HdivM
        (fun h i j k w => vQ (s w) h i j k) (fun h i j k w => vV (s w) h i j k) (fun h j k w => uQ (s w) h j k)
        (fun h j k w => uV (s w) h j k) itemsQ itemsV)].
    - intros w G t [HW _]. destruct (G (tQ t) (tK t) (tV t) (tO t) HW) as [mQ' [mV' [HbQ [HbV G9]]]].
      exists mQ', mV'. split; [intros h Hh; split; intros i j k Hi Hj; auto|].
      intros T X a HX i Hi Hm. exact (G9 T X a HX i Hi Hm).
    - apply Req_le. reflexivity. }
  (* B3: Lemma 2 at Theorem 10's layer budget for e10, every layer, on its event *)
  pose proof (theorem11_fc_width C H d1 L alpha eps HC HH Hd1 HL Heps0 Heps1 Ha He10) as HwF.
  assert (Hb : 0 < budget_theorem10 L e10 < 1)
    by (unfold budget_theorem10; split; [apply Rdiv_lt_0_compat; lra | apply div_lt_1; lra]).
  assert (H2 : forall l, (l < L)%nat -> whp P (fun w => forall Wl : mat, op_bound d1 d1 Wl 1 ->
      lemma2_masks d1 d1 (n_FC / d1) (uF (s w) l) (vF (s w) l) Wl (e10 / (2 * INR L))) (budget_theorem10 L e10)).
  { intros l Hl. eapply whp_mono; [| | exact (stmt_lemma2 Omega P lueker_class C HC lueker d1 d1 n_FC
        (budget_theorem10 L e10) (fun i j k w => vF (s w) l i j k) (fun j k w => uF (s w) l j k) Hd1 Hd1
        (proj1 Hb) (proj2 Hb) (Rle_trans _ _ _ HwF HnF) HdivF (itemsF_pos l Hl) (itemsF_neg l Hl))].
    - intros w G Wl HW. destruct (G Wl HW) as [m [Hm Hx]]. exists m. split; [exact Hm|].
      intros x Hx1. eapply Rle_trans; [exact (Hx x Hx1)|]. unfold err_lemma2, budget_theorem10. right. field. lra.
    - unfold fail_lemma2. right. reflexivity. }
  (* B2: the FC net's input norm; B4: the error; B5: the union bound (Theorem11.v: theorem11_whp) *)
  assert (HB2 : alpha + e9 + INR H * alpha <= {c:fc_in}).
  { assert (HB2a : INR H * alpha <= alpha * INR H * sqrt (INR d1)) by (via {step:B2a}).
    apply Rle_trans with (alpha + e9 + alpha * INR H * sqrt (INR d1)); [lra|]. unfold e9. via {step:B2b}. }
  eapply whp_mono; [| | exact (theorem11_whp Omega P H d1 dK dV (n_MHA / d1) (n_FC / d1) L s alpha e9 {c:fc_in} e10
                                 e9 (fun _ => budget_theorem10 L e10) HL Hin (Rlt_le _ _ (proj1 He10)) HB2 H9 H2)].
  - intros w G t Ht. destruct (G t Ht) as [m [Hm G11]]. exists m. split; [exact Hm|].
    intros T X a HX i Hi Ha'. eapply Rle_trans; [exact (G11 T X a HX i Hi Ha')|]. unfold err_theorem11, e9, e10.
    via {step:B4}.
  - rewrite sum_const. unfold fail_theorem11, budget_theorem10.
    apply Rle_trans with (e9 + e10); [assert (INR L * (e10 / (2 * INR L)) = e10 / 2) by (field; lra); lra|]. unfold e9, e10. via {step:B5}.
Qed.
End theorem11.
"""),
    "theorem14": (('d1', 'H', 'B', 'b', 'L'), ("Lueker for every z at once", "Lueker's item distribution"), """From SlthMath Require Import Theorem14.
(* Theorem 14's widths (block 1, blocks b >= 2), error and failure probability as the paper prints them (with the
   repaired kappa), and the proof's schedule: the input norm beta_b of block b, the error delta_b it receives, the
   budgets eps_1 (block 1) and eps_b (blocks b >= 2) *)
Definition n_MHA_first_theorem14 (C : R) (d1 H B : nat) (alpha eps : R) : R := {w:n_MHA#0}.
Definition n_MHA_theorem14 (C : R) (d1 H B b : nat) (alpha eps : R) : R := {w:n_MHA#1}.
Definition n_FC_first_theorem14 (C : R) (d1 H B L : nat) (alpha eps : R) : R := {w:n_FC#0}.
Definition n_FC_theorem14 (C : R) (d1 H B b L : nat) (alpha eps : R) : R := {w:n_FC#1}.
Definition err_theorem14 (eps : R) : R := {bound}.
Definition fail_theorem14 (eps : R) : R := {fail}.
Definition beta_theorem14 (d1 H b : nat) (alpha : R) : R := {t:beta}.
Definition delta_theorem14 (d1 H B b : nat) (alpha eps : R) : R := {t:delta}.
Definition eps_first_theorem14 (d1 H B : nat) (alpha eps : R) : R := {t:eps_b#0}.
Definition eps_block_theorem14 (d1 H B b : nat) (alpha eps : R) : R := {t:eps_b#1}.

Lemma Rpower_ge_1 : forall x y, 1 <= x -> 0 <= y -> 1 <= Rpower x y.
Proof.
  intros x y Hx Hy. unfold Rpower. rewrite <- exp_0. apply exp_mono.
  apply Rmult_le_pos; [exact Hy | apply slth_ln_nonneg; lra].
Qed.

Lemma Rpower_le_1 : forall x y, 1 <= x -> y <= 0 -> Rpower x y <= 1.
Proof.
  intros x y Hx Hy. unfold Rpower. rewrite <- exp_0. apply exp_mono.
  assert (0 <= ln x) by (apply slth_ln_nonneg; lra). nra.
Qed.

Section theorem14.
(* T14w: Theorem 11's widths at block b's input norm and budget are the printed closed forms: the logarithms of
   both sides agree once every power is expanded (ln_eq; the numerals as multiples of ln 2 and ln 3: ln_num) *)
Ltac ln_num :=
  let two k n := replace (ln n) with (INR k * ln 2) by (rewrite <- ln_pow by lra; f_equal; simpl; ring) in
  let three k n := replace (ln n) with (INR k * ln 2 + ln 3)
                     by (rewrite <- ln_pow, <- ln_mult by (try apply pow_lt; lra); f_equal; simpl; ring) in
  try two 2%nat constr:(4); try two 3%nat constr:(8); try two 4%nat constr:(16); try two 5%nat constr:(32);
  try two 6%nat constr:(64); try two 7%nat constr:(128); try two 8%nat constr:(256);
  try two 9%nat constr:(512); try two 10%nat constr:(1024); try three 1%nat constr:(6);
  try three 2%nat constr:(12); try three 3%nat constr:(24); try three 4%nat constr:(48);
  try three 5%nat constr:(96); try three 6%nat constr:(192); try three 7%nat constr:(384).
Ltac ln_eq := apply ln_inv; [slth_ppos | slth_ppos | unfold Rpower; slth_lnx; ln_num; simpl INR; field].
Ltac width_step S := eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le; [f_equal; f_equal; ln_eq | reflexivity].

Lemma theorem14_widths : forall C (d1 H B b L : nat) alpha eps, 0 < C -> (1 <= H)%nat -> (1 <= d1)%nat ->
  (1 <= L)%nat -> (2 <= b)%nat -> (b <= B)%nat -> 0 < eps -> eps < 1 -> sqrt (INR d1) <= alpha ->
  n_MHA_theorem11 C H d1 ({c:perturbed_norm} * beta_theorem14 d1 H b alpha) (eps_block_theorem14 d1 H B b alpha eps)
    <= n_MHA_theorem14 C d1 H B b alpha eps /\\
  n_FC_theorem11 C H d1 L ({c:perturbed_norm} * beta_theorem14 d1 H b alpha) (eps_block_theorem14 d1 H B b alpha eps)
    <= n_FC_theorem14 C d1 H B b L alpha eps.
Proof.
  intros C d1 H B b L alpha eps HC HH Hd1 HL Hb HbB He0 He1 Ha.
  assert (2 <= INR b) by (apply (le_INR 2); exact Hb). assert (INR b <= INR B) by (apply le_INR; exact HbB).
  assert (1 <= INR H) by (apply one_le_INR; exact HH). assert (1 <= INR d1) by (apply one_le_INR; exact Hd1).
  assert (1 <= INR L) by (apply one_le_INR; exact HL).
  assert (1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt; lra). assert (0 < alpha) by lra.
  unfold n_MHA_theorem11, n_MHA_theorem14, n_FC_theorem11, n_FC_theorem14, beta_theorem14, eps_block_theorem14.
  split; [let S := fresh in instance {step:T14w-n_MHA} S; width_step S
         | let S := fresh in instance {step:T14w-n_FC} S; width_step S].
Qed.

Lemma theorem14_widths_first : forall C (d1 H B L : nat) alpha eps, 0 < C -> (1 <= H)%nat -> (1 <= d1)%nat ->
  (1 <= L)%nat -> (2 <= B)%nat -> 0 < eps -> eps < 1 -> sqrt (INR d1) <= alpha ->
  n_MHA_theorem11 C H d1 alpha (eps_first_theorem14 d1 H B alpha eps) <= n_MHA_first_theorem14 C d1 H B alpha eps /\\
  n_FC_theorem11 C H d1 L alpha (eps_first_theorem14 d1 H B alpha eps) <= n_FC_first_theorem14 C d1 H B L alpha eps.
Proof.
  intros C d1 H B L alpha eps HC HH Hd1 HL HB He0 He1 Ha.
  assert (2 <= INR B) by (apply (le_INR 2); exact HB).
  assert (1 <= INR H) by (apply one_le_INR; exact HH). assert (1 <= INR d1) by (apply one_le_INR; exact Hd1).
  assert (1 <= INR L) by (apply one_le_INR; exact HL).
  assert (1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt; lra). assert (0 < alpha) by lra.
  unfold n_MHA_theorem11, n_MHA_first_theorem14, n_FC_theorem11, n_FC_first_theorem14, eps_first_theorem14.
  split; [let S := fresh in instance {step:T14w-n_MHA-1} S; width_step S
         | let S := fresh in instance {step:T14w-n_FC-1} S; width_step S].
Qed.

(* the union bound's geometric sum: sum_(k < n) 32^((k + 1) - n) <= 32/31 *)
Lemma geometric_32 : forall n, sum n (fun k => Rpower 32 (INR k + 1 - INR n)) <= 32 / 31.
Proof.
  induction n as [|n IH]; [simpl; lra|]. rewrite S_INR. change (sum (S n) ?f) with (sum n f + f n). cbv beta.
  rewrite (sum_ext n _ (fun k => Rpower 32 (INR k + 1 - INR n) * / 32)).
  - rewrite sum_scal_r. replace (INR n + 1 - (INR n + 1)) with 0 by ring. rewrite Rpower_O by lra. lra.
  - intros k _. replace (INR k + 1 - (INR n + 1)) with ((INR k + 1 - INR n) + - (1)) by ring.
    rewrite Rpower_plus, Rpower_Ropp, Rpower_1 by lra. reflexivity.
Qed.

Lemma sum_first : forall n f, sum (S n) f = f O + sum n (fun k => f (S k)).
Proof.
  induction n as [|n IH]; intros f; [simpl; ring|]. change (sum (S (S n)) f) with (sum (S n) f + f (S n)).
  rewrite IH. change (sum (S n) (fun k => f (S k))) with (sum n (fun k => f (S k)) + f (S n)). ring.
Qed.

Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
(* B >= 2 blocks, each with H heads on tokens of size d1, target heads with d_K, d_V and a target ReLU net of L
   layers of width d1; block k (k = 0 .. B-1, the paper's block k + 1) has n_MHA = nM k and n_FC = nF k *)
Variables (d1 H B L dK dV : nat) (alpha eps : R) (nM nF : nat -> nat).
Hypotheses (HH : (1 <= H)%nat) (Hd1 : (1 <= d1)%nat) (HdK : (1 <= dK)%nat) (HB : (2 <= B)%nat) (HL : (1 <= L)%nat)
  (Heps0 : 0 < eps) (Heps1 : eps < 1) (Ha : sqrt (INR d1) <= alpha).
(* the printed widths of block 1 and of the blocks b >= 2 *)
Hypotheses (HnM0 : n_MHA_first_theorem14 C d1 H B alpha eps <= INR (nM O))
  (HnF0 : n_FC_first_theorem14 C d1 H B L alpha eps <= INR (nF O)).
Hypotheses (HnM : forall k, (1 <= k < B)%nat -> n_MHA_theorem14 C d1 H B (S k) alpha eps <= INR (nM k))
  (HnF : forall k, (1 <= k < B)%nat -> n_FC_theorem14 C d1 H B (S k) L alpha eps <= INR (nF k)).
(* not in the printed statement: d1 divides every width *)
Hypotheses (HdivM : forall k, (k < B)%nat -> (nM k mod d1 = 0)%nat) (HdivF : forall k, (k < B)%nat -> (nF k mod d1 = 0)%nat).
(* block k's random items (Theorem11.v's record items), functions of the sample w *)
Variable s : Omega -> nat -> items.
(* the modelling hypotheses of Theorem 11 for every block *)
Hypothesis itemsQ : forall b, (b < B)%nat -> forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (nM b / d1) (fun k w => vQ (s w b) h i j k * uQ (s w b) h j k).
Hypothesis itemsV : forall b, (b < B)%nat -> forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (nM b / d1) (fun k w => vV (s w b) h i j k * uV (s w b) h j k).
Hypothesis itemsF_pos : forall b, (b < B)%nat -> forall l, (l < L)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (nF b / d1) (fun k w => vF (s w b) l i j k * relu (uF (s w b) l j k)).
Hypothesis itemsF_neg : forall b, (b < B)%nat -> forall l, (l < L)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (nF b / d1) (fun k w => vF (s w b) l i j k * relu (- uF (s w b) l j k)).
(* Theorem 14 (Theorem 6 of the main text): with probability at least 1 - eps, for every target transformer of B
   blocks with all weights of norm <= 1, masks in {0, 1} put the pruned transformer (tf_pruned, Theorem14.v) within
   the printed error of the target (tf_target) on every input whose tokens have norm at most alpha, every length,
   every attention mask, every token.  Differences from the printed statement: kappa = 65 (the printed 16 does not
   close the proof's block step with Lemma 13 in the form its proof gives, factor 2); d1 divides every width; one
   event for all targets *)
Theorem stmt_theorem14 : whp P (fun w => forall t : nat -> target,
  (forall k, (k < B)%nat -> target_norms H d1 dK dV L (t k)) ->
  exists m : nat -> masks, (forall k, (k < B)%nat -> masks_binary H d1 L (m k)) /\\
  forall (T : nat) (a : mat), (forall i, (i < T)%nat -> is_mask T (a i)) ->
  forall X : mat, tokens_le T d1 X alpha ->
    tokens_near T d1 (blocks (tf_pruned H T d1 L (fun k => nM k / d1)%nat (fun k => nF k / d1)%nat (s w) m a) B X)
                     (blocks (tf_target H T d1 dK dV L t a) B X) (err_theorem14 eps))
  (fail_theorem14 eps).
Proof.
  assert (HK : 0 < {c:growth}) by (assert (1 <= INR H) by (apply one_le_INR; exact HH);
    assert (0 < sqrt (INR d1)) by (apply sqrt_lt_R0, lt_0_INR; lia); nra).
  assert (Hs1 : 1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt, one_le_INR, Hd1).
  assert (Hal : 1 <= alpha) by lra.
  assert (HHr : 1 <= INR H) by (apply one_le_INR; exact HH).
  assert (HBr : 2 <= INR B) by (apply (le_INR 2); exact HB).
  assert (Hd1r : 1 <= INR d1) by (apply one_le_INR; exact Hd1).
  (* the schedule, block k = the paper's block k + 1 *)
  set (beta' := fun k => beta_theorem14 d1 H (S k) alpha).
  set (delta' := fun k => delta_theorem14 d1 H B (S k) alpha eps).
  set (eps' := fun k => match k with O => eps_first_theorem14 d1 H B alpha eps
                                   | S _ => eps_block_theorem14 d1 H B (S k) alpha eps end).
  set (c' := fun k => match k with O => alpha | S _ => {c:perturbed_norm} * beta_theorem14 d1 H (S k) alpha end).
  assert (Hbeta_ge : forall b, (1 <= b)%nat -> alpha <= beta_theorem14 d1 H b alpha).
  { intros b Hb. unfold beta_theorem14. assert (1 <= INR b) by (apply one_le_INR; exact Hb).
    pose proof (Rpower_ge_1 {c:growth} (- 1 + INR b) ltac:(nra) ltac:(lra)). nra. }
  assert (Hbeta0 : beta' O = alpha)
    by (unfold beta', beta_theorem14; simpl INR; replace (- 1 + 1) with 0 by ring; rewrite Rpower_O by exact HK; ring).
  assert (Hgrow : forall k, beta' (S k) = {c:growth} * beta' k).
  { intros k. unfold beta', beta_theorem14. rewrite (S_INR (S k)). replace (- 1 + (INR (S k) + 1)) with ((- 1 + INR (S k)) + 1) by ring.
    rewrite Rpower_plus, Rpower_1 by exact HK. ring. }
  (* block k's budget lies in (0, 1) and its input norm is >= sqrt d1 *)
  assert (Heps' : forall k, (k < B)%nat -> 0 < eps' k < 1).
  { intros [|k] Hk; cbv beta iota delta [eps' c']; unfold eps_first_theorem14, eps_block_theorem14.
    - split; [slth_ppos|]. let S := fresh in instance {step:U1} S. lra.
    - assert (2 <= INR (S (S k))) by (apply (le_INR 2); lia). assert (INR (S (S k)) <= INR B) by (apply le_INR; lia).
      split; [slth_ppos|]. set (b := S (S k)) in *. let S := fresh in instance {step:U2b} S.
      pose proof (Rpower_le_1 32 (INR b + - 1 * INR B) ltac:(lra) ltac:(lra)). nra. }
  assert (Hc' : forall k, sqrt (INR d1) <= c' k).
  { intros [|k]; cbv beta iota delta [eps' c']; [exact Ha|]. pose proof (Hbeta_ge (S (S k)) ltac:(lia)). lra. }
  (* T14w: each block's widths are Theorem 11's at its input norm and budget *)
  assert (Hw : forall k, (k < B)%nat -> n_MHA_theorem11 C H d1 (c' k) (eps' k) <= INR (nM k) /\\
                                        n_FC_theorem11 C H d1 L (c' k) (eps' k) <= INR (nF k)).
  { intros [|k] Hk; cbv beta iota delta [eps' c'].
    - destruct (theorem14_widths_first C d1 H B L alpha eps HC HH Hd1 HL HB Heps0 Heps1 Ha) as [W1 W2].
      split; [exact (Rle_trans _ _ _ W1 HnM0) | exact (Rle_trans _ _ _ W2 HnF0)].
    - destruct (theorem14_widths C d1 H B (S (S k)) L alpha eps HC HH Hd1 HL ltac:(lia) ltac:(lia) Heps0 Heps1 Ha)
        as [W1 W2].
      split; [exact (Rle_trans _ _ _ W1 (HnM (S k) ltac:(lia))) | exact (Rle_trans _ _ _ W2 (HnF (S k) ltac:(lia)))]. }
  (* Theorem 11 at every block, on its event *)
  assert (H11 : forall k, (k < B)%nat -> whp P (fun w => forall tb : target, target_norms H d1 dK dV L tb ->
      theorem11_masks H d1 dK dV (nM k / d1) (nF k / d1) L (s w k) tb (c' k) (eps' k)) (eps' k)).
  { intros k Hk. eapply whp_mono; [| | exact (stmt_theorem11 Omega P lueker_class C HC lueker H d1 dK dV L (nM k) (nF k)
        (c' k) (eps' k) HH Hd1 HdK HL (proj1 (Heps' k Hk)) (proj2 (Heps' k Hk)) (Hc' k) (proj1 (Hw k Hk))
        (proj2 (Hw k Hk)) (HdivM k Hk) (HdivF k Hk) (fun w => s w k) (itemsQ k Hk) (itemsV k Hk) (itemsF_pos k Hk)
        (itemsF_neg k Hk))].
    - intros w G tb Ht. exact (G tb Ht).
    - unfold fail_theorem11. right. reflexivity. }
  (* the chain (Theorem14.v: theorem14_whp) with T14a-T14d *)
  eapply whp_mono; [| | apply (theorem14_whp Omega P H d1 dK dV L B (fun k => nM k / d1)%nat (fun k => nF k / d1)%nat
                                 s beta' delta' eps' c' eps' HH Hd1 HL ltac:(lia))].
  - (* T14e: the error after block B is delta_(B+1) <= eps *)
    intros w G t Ht. destruct (G t Ht) as [m [Hm G14]]. exists m. split; [exact Hm|].
    intros T a Ham X HX i Hi. eapply Rle_trans; [apply (G14 T a Ham X); [rewrite Hbeta0; exact HX | exact Hi]|].
    unfold delta', delta_theorem14, err_theorem14. instance {step:T14e} ST14e.
    eapply Rle_trans; [| exact ST14e]. right. rewrite S_INR.
    repeat match goal with |- context [Rpower ?x ?a] => match goal with |- context [Rpower x ?c] =>
      tryif constr_eq a c then fail else replace a with c by ring end end.
    repeat match goal with |- context [Rpower ?x ?e] => tryif constr_eq e 0 then fail else replace e with 0 by ring end.
    rewrite !Rpower_O by (repeat apply Rmult_lt_0_compat; first [lra | apply pow_lt; lra | apply sqrt_lt_R0; lra]).
    ring.
  - (* the union bound over the blocks: U1, U2b, the geometric sum, U4, U5 *)
    unfold fail_theorem14. assert (HBs : B = S (pred B)) by lia. rewrite HBs at 1. rewrite sum_first.
    instance {step:U4} SU4. instance {step:U5} SU5.
    apply Rle_trans with ({c:union} * eps); [| nra].
    apply Rle_trans with ({c:first_share} * eps + {c:later_share} * eps); [apply Rplus_le_compat | nra].
    + cbv beta iota delta [eps']. instance {step:U1} SU1. eapply Rle_trans; [exact SU1 | right; field].
    + apply Rle_trans with (sum (pred B) (fun k => eps / 2 * Rpower 32 (INR k + 1 - INR (pred B)))).
      * apply sum_le. intros k Hk. cbv beta iota delta [eps'].
        assert (2 <= INR (S (S k))) by (apply (le_INR 2); lia). assert (INR (S (S k)) <= INR B) by (apply le_INR; lia).
        set (b := S (S k)) in *. instance {step:U2b} SU2b. eapply Rle_trans; [exact SU2b|]. right.
        replace (INR k + 1 - INR (pred B)) with (INR b + - 1 * INR B); [field|].
        unfold b. rewrite !S_INR.
        assert (HP : INR B = INR (pred B) + 1) by (rewrite <- S_INR, <- HBs; reflexivity). rewrite HP. ring.
      * rewrite sum_scal_l. pose proof (geometric_32 (pred B)). nra.
  - (* T14a: the target block's norm *)
    intros k Hk. rewrite Hgrow. let S := fresh in instance {step:T14a} S.
    assert (0 <= beta' k) by (pose proof (Hbeta_ge (S k) ltac:(lia)); unfold beta'; lra).
    assert (INR H <= INR H * sqrt (INR d1)) by nra. nra.
  - (* block 1 receives the exact input *)
    rewrite Hbeta0. cbv beta iota delta [eps' c']. lra.
  - (* T14c: the perturbed tokens' norm *)
    intros [|k] Hk; [lia|]. cbv beta iota delta [eps' c']. unfold beta', delta'.
    assert (2 <= INR (S (S k))) by (apply (le_INR 2); lia). assert (INR (S (S k)) <= INR B) by (apply le_INR; lia).
    set (b := S (S k)) in *. instance {step:T14c} ST14c.
    eapply Rle_trans; [| eapply Rle_trans; [exact ST14c|]]; right; unfold beta_theorem14, delta_theorem14; ring.
  - (* T14b: block 1's budget eps_1 <= delta_2 *)
    cbv beta iota delta [eps' c']. unfold delta', eps_first_theorem14, delta_theorem14.
    let S := fresh in instance {step:T14b} S; eapply Rle_trans; [exact S | right].
    rewrite !S_INR; change (INR 0) with 0.
    repeat match goal with |- context [Rpower ?x ?a] => match goal with |- context [Rpower x ?c] =>
      tryif constr_eq a c then fail else replace a with c by ring end end. ring.
  - (* T14d: block b >= 2 adds eps_b and Lemma 13's bound (lemma13_block's factor 2) <= delta_(b+1) *)
    intros [|k] Hk; [lia|]. cbv beta iota delta [eps' c']. unfold beta', delta'.
    assert (2 <= INR (S (S k))) by (apply (le_INR 2); lia). assert (INR (S (S k)) <= INR B) by (apply le_INR; lia).
    set (b := S (S k)) in *.
    instance {step:T14d-i} Si. instance {step:T14d-ii} Sii.
    eapply Rle_trans; [apply Rplus_le_compat_l; eapply Rle_trans; [| exact Si] |].
    + (* Lemma 13's bound as lemma13_block proves it is the bound the step T14d-i starts from *)
      right. unfold lemma13_bound, beta_theorem14, delta_theorem14. same_exp. ring.
    + eapply Rle_trans; [| eapply Rle_trans; [exact Sii | right]].
      * right. unfold eps_block_theorem14. ring.
      * unfold delta_theorem14. rewrite (S_INR b).
        repeat match goal with |- context [Rpower ?x ?a] => match goal with |- context [Rpower x ?c] =>
          tryif constr_eq a c then fail else replace a with c by ring end end. ring.
  - exact H11.
Qed.
End theorem14.
"""),
}
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


STEP_PRELUDE = f"""
(* The exported scalar steps (proofs/coq/<statement>.v, compiled here as Scalar_<statement>) applied to the
   statements' parameters: [dom] proves a step's hypotheses (integrality, lower bounds, the domain of eps and
   alpha), [sf] an equation between two printed expressions (each sqrt (INR n) abstracted as s with s * s = INR n,
   then field), [via S] closes a <= b through step S: a = S's left side, S, S's right side = b. *)
Lemma one_le_INR : forall n, (1 <= n)%nat -> 1 <= INR n.
Proof. intros n H. apply (le_INR 1) in H. exact H. Qed.

Ltac dom := first [ assumption | match goal with |- is_int (INR ?n) => exists (Z.of_nat n); apply INR_IZR_INZ end
                  | apply one_le_INR; assumption | lra ].
Ltac sqrt_out n :=
  let s := fresh "s" in let E := fresh "E" in let P := fresh "P" in
  assert (P : 0 < sqrt (INR n)) by (apply sqrt_lt_R0, lt_0_INR; lia);
  assert (E : sqrt (INR n) * sqrt (INR n) = INR n) by (apply sqrt_sqrt, pos_INR);
  revert P E; generalize (sqrt (INR n)); intros s P E; rewrite <- E.
Ltac nonzero := first [ apply not_0_INR; lia | apply Rgt_not_eq; assumption | apply Rgt_not_eq; lra | lra | nra ].
Ltac sf := repeat match goal with |- context [sqrt (INR ?n)] => sqrt_out n end; field; repeat split; nonzero.
Ltac same_exp := repeat match goal with
  | |- context [exp ?a] => match goal with
    | |- context [exp ?b] => tryif constr_eq a b then fail else replace a with b by sf end end.
Ltac same_ln := repeat match goal with
  | |- context [ln ?a] => match goal with
    | |- context [ln ?b] => tryif constr_eq a b then fail else replace a with b by sf end end.
Ltac instance S T := pose proof S as T; repeat (specialize (T ltac:(dom))).
Ltac via S := let T := fresh "step" in instance S T;
  eapply Rle_trans; [| eapply Rle_trans; [exact T |]]; [apply Req_le; same_exp; same_ln; sf | apply Req_le; same_ln; sf].
"""


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

PRINTED_LOGIT_STEP = f"""From Coq Require Import Reals Lra.
From {LOGICAL} Require Import Objects Sums Triangle Lemma12.
Open Scope R_scope.

(* Lemma 12's logit step as printed (only ||x_i||, ||x_k|| <= alpha), with the paper's argument:
   |x_i W x_k - x'_i W x'_k| <= ||x_i - x'_i|| ||x_k|| + ||x'_i|| ||x_k - x'_k|| <= eps alpha + alpha eps *)
Theorem lemma12_logit_as_printed : lemma12_logit_printed.
Proof.
  intros d W xi xk xi' xk' alpha eps HW Hi Hk Hdi Hdk. rewrite bilin_split.
  eapply Rle_trans; [apply Rabs_triang|].
  pose proof (bilin_le d (vsub xi xi') W xk HW). pose proof (bilin_le d xi' W (vsub xk xk') HW).
  pose proof (norm_nonneg d (vsub xi xi')). pose proof (norm_nonneg d xk).
  pose proof (norm_nonneg d xi'). pose proof (norm_nonneg d (vsub xk xk')).
  assert (norm d (vsub xi xi') * norm d xk <= eps * alpha) by (apply Rmult_le_compat; lra).
  assert (norm d xi' * norm d (vsub xk xk') <= alpha * eps) by (apply Rmult_le_compat; lra).
  lra.
Qed.
"""
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
    from slt.cache import CorruptRecord, fingerprint, read_record, write_record
    from .coq.check import coqc_version
    reason = missing_reason()
    if reason:
        return {"undecided": reason}
    files = with_statements()
    key = fingerprint(files, PRINTED_LOGIT_STEP, coqc_version())
    base = settings.cache_home() / "slth-harness" / "coq-math"
    path = base / f"lemma12-logit-{key}.json"
    try:
        return read_record(path)["result"]
    except (OSError, CorruptRecord, KeyError, TypeError):
        pass
    with tempfile.TemporaryDirectory(prefix="slth-coq-math-") as tmp:
        ok, why = compile(tmp, files)
        result = printed_logit_check(tmp) if ok else {"undecided": f"rejected: {why}"}
    try:
        base.mkdir(parents=True, exist_ok=True)
        write_record(path, {"result": result})
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
    from .coq.check import _locked, _reaped
    folder = build_folder()
    with _reaped(), _locked(folder):
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
    (``bounds.prove.coq.check.build_root``), created; ``OSError`` when it cannot be."""
    from .coq.check import build_root
    folder = build_root() / "math"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


RESTS = ".slth-math-rests.json"
"""The record of ``rests_on`` in a compile folder, keyed by the sha256 of every ``.vo`` it read."""


def recorded_rests_on(directory, files: dict[str, str]) -> dict:
    """``rests_on(directory)``, run again only when a ``.vo`` of ``files`` differs from the one it last ran on."""
    from .coq.check import _load_state, _sha, save_state
    directory = Path(directory)
    key = hashlib.sha256(json.dumps([sorted((s, _sha(directory / f"{s}.vo")) for s in files),
                                     list(FORMAL), locate_source(PREMISES)]).encode()).hexdigest()
    rec = _load_state(directory / RESTS)
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
    from .coq.check import _locked, _reaped
    try:
        folder = build_folder()
    except OSError as e:
        return 2, None, [f"error: the Coq build folder cannot be made: {e.strerror or e}"]
    with _reaped(), _locked(folder):
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
