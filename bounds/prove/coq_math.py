"""The hand-written Coq mathematics under ``proofs/coq/math/``: compile it, scan it, and list what its theorems
rest on.

The files define the paper's objects (``Objects.v``) and prove lemmas about them, up to the statements' theorems
(``THEOREMS`` lists those reported).  They import one another under the logical name ``SlthMath``; ``order`` sorts
them by their ``Require Import`` lines, and ``compile(dir)`` copies them into ``dir`` (never the repository) and
runs coqc on each in that order.  ``forbidden`` refuses every axiom-declaring form outside comments (``PREMISES``,
the premises that may be an ``Axiom``, is empty: nothing is assumed), and ``unexpected`` names the axioms outside
Coq's standard families.  ``Statements.v`` (``coq_text.statements_file``) states each statement of ``FORMAL`` as a
theorem ``stmt_<name>`` inside a Section whose hypotheses are the premises it rests on; ``rests_on(dir)`` reads
them back from each closed theorem's type and ``Print Assumptions``.  ``printed_logit_check`` runs the paper's
proof of Lemma 12's logit step in Coq, with and without the hypothesis it needs.

``python -m bounds.prove.coq_math`` compiles the files and ``Statements.v`` and prints what each theorem rests on
and the counts of ``statements_report``; it exits 1 when a file fails, a forbidden word appears, or a theorem rests
on any other axiom or on other premises than declared, and 2 when coqc or CoqInterval is missing."""
from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, wait
from pathlib import Path

from slth_base import settings
from slth_base.files import holds

from . import coq_text, external
from .coq.assumed import (declarations, family, locate_source, parse_assumptions, qualify,  # noqa: F401 (the API)
                          read_assumptions, strip_comments)
from .coq.build import build_lock, build_root, current, load_state, now, save_state, sha, write_atomic
from .coq.runner import QUERY_GC, WORKERS, CoqcFailure, coqc_version, first_error, missing_reason, run_coqc
from .coq_statements import blueprint, counts, counts_line, declared_rests, statements_report  # noqa: F401 (the API)
from .coq_text import (CITED, CITED_COQ, FORMAL, LOGICAL, LUEKER_COQ, LUEKER_ITEMS, LUEKER_PREMISE, MATH,  # noqa: F401
                       PREMISE_COQ, PROVED_PREMISES, STATEMENTS_V, chain_premises, cited_premises, cited_statement,
                       coq_statement, fill, part, premise_table_errors, printed_bound, proved_premises, scalar_sources,
                       scalar_stems, sources, statements_file, with_statements)

ROOT = Path(__file__).resolve().parents[2]

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
def imports(text: str) -> list[str]:
    """The ``SlthMath`` files a file requires."""
    found = re.findall(rf"From\s+{LOGICAL}\s+Require\s+(?:Import\s+|Export\s+)?([^.]*)\.", strip_comments(text))
    return [stem for names in found for stem in names.split()]


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
    files = {**coq_text.sources(), **coq_text.scalar_sources()} if files is None else files
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
    fresh = {s for s in stems if current(done.get(s), digest[s], directory / f"{s}.vo")}
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


def assumptions(directory, theorems: dict[str, tuple[str, ...]] = THEOREMS,
                groups: dict[str, tuple[str, ...]] | None = None) -> dict[str, list[str]]:
    """``{theorem: [axiom names]}`` from ``Print Assumptions`` in a compiled ``directory``: one query per theorem of
    ``theorems`` (file stem -> names), or with ``groups`` (``{label: names of theorems}``) one per group, of the tuple
    of its theorems: ``{label: axioms}``, what they rest on together (a superset of each one's own, so an axiom
    outside Coq's standard ones in any of them is in it).  Each query walks every proof its theorems depend on, and
    Coq keeps nothing between two queries (about 1 s each, 7 s for the first that reaches CoqInterval's proofs)."""
    directory = Path(directory)
    if groups is None:
        queries = {n: n for stems in theorems.values() for n in stems}
        defs = ""
    else:
        known = {n for stems in theorems.values() for n in stems}
        odd = sorted({n for names in groups.values() for n in names} - known)
        if odd or any(not names for names in groups.values()):
            raise ValueError(f"groups name theorems outside the files asked of: {odd}" if odd else "an empty group")
        queries = {label: f"slth_group_{k}" for k, label in enumerate(groups)}
        defs = "".join(f"Definition {queries[label]} := ({', '.join(f'@{n}' for n in names)}, tt).\n"
                       for label, names in groups.items())
    text = (f"From {LOGICAL} Require Import {' '.join(theorems)}.\n{locate_source(PREMISES)}{defs}"
            + "".join(f"Print Assumptions {q}.\n" for q in queries.values()))
    write_atomic(directory / "PrintAssumptions.v", text)
    ok, out = compile_file(directory, "PrintAssumptions", env=QUERY_GC)
    if not ok:
        raise RuntimeError(f"Print Assumptions failed: {out}")
    blocks = read_assumptions(out, PREMISES)
    if len(blocks) != len(queries):
        raise RuntimeError(f"Print Assumptions printed {len(blocks)} blocks for {len(queries)} queries")
    return dict(zip(queries, blocks))


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


def rests_on(directory, names: tuple[str, ...] = tuple(FORMAL)) -> dict[str, tuple[list[str], list[str]]]:
    """``{statement: (premises, axioms)}`` for the compiled ``Statements.v`` of ``directory``: the premises (names of
    ``bounds.premises``) and the cited statements (``"statement <name>"``, through ``CITED_COQ``) that the closed
    type of ``stmt_<statement>`` quantifies over, and ``Print Assumptions``."""
    directory = Path(directory)
    together = _statement_query(directory, names, together=True)
    if any(unexpected(ax) for _, ax in together.values()):  # which statement: one query each
        return _statement_query(directory, names, together=False)
    return together


def _statement_query(directory: Path, names, together: bool) -> dict:
    """``rests_on``'s one coqc: ``Check`` of each ``stmt_<name>`` (its closed type, whence its premises), and ``Print
    Assumptions`` of each (``together`` False) or of the tuple of all, each statement given that list (what they
    rest on together: a superset of each one's own; one walk of CoqInterval's proofs instead of one per statement,
    about 7 s each)."""
    checks = "".join(f"Check stmt_{n}.\n" for n in names)
    if together:
        queries = (f"Definition slth_statements := ({', '.join(f'@stmt_{n}' for n in names)}, tt).\n"
                   "Print Assumptions slth_statements.\n")
    else:
        queries = "".join(f"Print Assumptions stmt_{n}.\n" for n in names)
    text = f"From {LOGICAL} Require Import Statements.\n{locate_source(PREMISES)}" + checks + queries
    write_atomic(directory / "StatementAssumptions.v", text)
    ok, out = compile_file(directory, "StatementAssumptions", env=QUERY_GC)
    if not ok:
        raise RuntimeError(f"Print Assumptions failed: {out}")
    by_coq = {**{c: p for p, c in PREMISE_COQ.items()}, **{c: f"statement {s}" for s, c in CITED_COQ.items()},
              LUEKER_COQ: LUEKER_PREMISE}
    parts = re.split(r"^stmt_(\w+)\s*$", out, flags=re.M)
    located = parts[0]  # the Locate answers, before the first statement
    chunks = dict(zip(parts[1::2], parts[2::2]))  # each: the closed type (and, one by one, its Print Assumptions)
    if set(chunks) != set(names):
        raise RuntimeError(f"Check printed {sorted(chunks)} for {sorted(names)}")
    blocks = qualify(parse_assumptions(out), located, PREMISES)
    if len(blocks) != (1 if together else len(names)):
        raise RuntimeError(f"Print Assumptions printed {len(blocks)} blocks for {len(names)} statements")
    result = {}
    for k, n in enumerate(names):
        typ = re.split(r"^(?:Axioms:|Closed under the global context|slth_statements\s*$)", chunks[n], flags=re.M)[0]
        used = dict.fromkeys(by_coq[c] for c in re.findall(r"\b([\w']+)", typ) if c in by_coq)
        result[n] = (list(used), list(blocks[0 if together else k]))
    return result


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
    rests = assumptions(directory, {"Lemma12": ("lemma12_logit", "lemma12_logit_printed_false")},
                        groups={"both": ("lemma12_logit", "lemma12_logit_printed_false")})
    stated = rests_on(directory, ("lemma12",))
    return {"proof": "accepted" if ok else "rejected", "error": "" if ok else why, "gap_line": gap,
            "with_hypothesis": "accepted" if with_ok else f"rejected ({with_why})",
            "refuted": all(not unexpected(a) for a in rests.values()),
            "theorem": stated["lemma12"][0] if not unexpected(stated["lemma12"][1]) else None}


def lemma12_logit_run() -> tuple[dict, dict | None]:
    """``(result, cached)``: ``printed_logit_check`` on the committed files and the generated ``Statements.v``,
    compiled in ``build_folder()`` (only what changed since the last compile there, under its lock), cached under
    ``$XDG_CACHE_HOME/slth-harness/coq-math`` by the fingerprint of every text it compiles and coqc's version;
    ``cached``: None when coqc ran now, else ``{"coq", "checked"}`` of the run whose answer was read back
    (``reports.record.verified.lemma12`` words it as ``bounds.prove.kernel`` does); ``{"undecided": reason}`` when
    coqc or CoqInterval is missing, a file is rejected or the build folder cannot be made."""
    reason = missing_reason()
    if reason:
        return {"undecided": reason}, None
    files = coq_text.with_statements()
    key = hashlib.sha256(json.dumps([files, PRINTED_LOGIT_STEP, coqc_version()]).encode()).hexdigest()[:24]
    base = settings.cache_home() / "slth-harness" / "coq-math"
    path = base / f"lemma12-logit-{key}.json"
    state = load_state(path)  # sealed with this user's key, as every build record
    cached = state.get("result")
    if isinstance(cached, dict):
        return cached, {"coq": state.get("coq") or "", "checked": state.get("checked") or ""}
    try:
        folder = build_folder()
    except OSError as e:
        return {"undecided": f"the Coq build folder cannot be made: {e.strerror or e}"}, None
    with build_lock(folder):
        ok, why = compile(folder, files)
        result = printed_logit_check(folder) if ok else {"undecided": f"rejected: {why}"}
    try:
        base.mkdir(parents=True, exist_ok=True)
        save_state(path, {"result": result, "coq": coqc_version(), "checked": now()})
    except OSError:
        pass
    return result, None


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
    bad = [f"{stem}.v {hit}" for stem, text in coq_text.with_statements().items() for hit in forbidden(text, stem=stem)]
    for b in bad:
        print(f"forbidden: {b}")
    folder = build_folder()
    with external.reaped(), build_lock(folder):
        files = coq_text.with_statements()
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
                                     list(coq_text.FORMAL), locate_source(PREMISES)]).encode()).hexdigest()
    rec = load_state(directory / RESTS)
    if rec.get("key") == key and isinstance(rec.get("result"), dict) and set(rec["result"]) == set(coq_text.FORMAL):
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
        files = coq_text.with_statements()
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


def declared_errors(stated: dict) -> list[str]:
    """One line per formalized statement whose theorem rests on other premises than ``FORMAL`` declares, and one if
    ``PROVED_PREMISES`` is not the set of premises ``Premises.v`` proves."""
    out = [f"stmt_{n} rests on {prem}, declared {list(coq_text.FORMAL[n][1])}" for n, (prem, _) in stated.items()
           if list(prem) != list(coq_text.FORMAL[n][1])]
    if set(PROVED_PREMISES) != set(coq_text.proved_premises()):
        out.append(f"PROVED_PREMISES {sorted(PROVED_PREMISES)} differs from Premises.v's {sorted(coq_text.proved_premises())}")
    return out


if __name__ == "__main__":
    sys.exit(main())
