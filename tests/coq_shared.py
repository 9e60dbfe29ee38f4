"""One compiled Coq mathematics library per test session, shared by every test module and every xdist worker.

The committed files of ``proofs/coq/math/``, the scalar step files and the generated ``Statements.v`` are compiled
once (``bounds.prove.coq_math.compile``, incremental: a second call only checks the build record) in the user's build
folder and copied, with the build record, into the session's base temporary folder, which the workers of one
``pytest -n`` run share (under a lock there).  What every statement's theorem
rests on (``rests_on``) and what the named theorems of the files rest on (``assumptions``) are asked of Coq once too,
and kept beside the build, keyed by the text they were asked of (each kind under a lock of its own, so one worker's
query never keeps the other from the library); so is the model of the statements' hypotheses
(``shared_model``: ``Model.v`` compiled in a private copy and ``Print Assumptions`` of each of its applications).

The shared folder is read-only to the tests: a test that writes files (a planted axiom, a mutated ``Statements.v``,
a model) works in a private copy (``private_copy``), so no test sees another's files and no coqc reads a file that
another is writing.

The session also keeps one verdict store of the working tree (``shared_verdicts``): the tests that run ``slth`` on an
edited copy start from a copy of it (``seeded_verdicts``), as a user's second run would."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from unittest import mock

from bounds.prove import coq_math
from slth_base.files import locked, replace_file

SHARED = "coq-math-shared"


def shared_root(factory) -> Path:
    """The folder every worker of this session shares: the parent of a worker's base temporary folder under
    pytest-xdist (``.../pytest-N/popen-gw0``), the base temporary folder itself in one process."""
    base = Path(factory.getbasetemp())
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


STARTED = dict(os.environ)
"""The environment as the test session started (set again by ``tests/conftest.py``'s session fixture before any
test's own fixtures run; a test may point ``$SLTH_COQ_BUILD`` elsewhere while it runs)."""


def user_build() -> Path:
    """The mathematics' build folder of this user's commands (``coq_math.build_folder()`` in the environment pytest
    started with): ``slth``, ``python -m bounds.prove.coq_math`` and CI's coqchk step compile there."""
    with mock.patch.dict(os.environ, STARTED, clear=True):
        return coq_math.build_folder()


def shared_build(factory) -> Path:
    """The shared compiled library (compiled by the first test that asks, in this session): the first call compiles
    the library in the user's build folder (``user_build``, under its lock: only what changed since the last compile
    there, as the user's commands do) and copies it with its build record, which ``coq_math.compile`` then checks
    here (every ``.vo`` against the sha256 coqc's output had), so a second session or CI's coqchk step finds the
    library compiled."""
    from tests.test_coq_math import needs_coq

    needs_coq()
    root = shared_root(factory)
    folder = root / SHARED
    files = coq_math.with_statements()
    with locked(root / f"{SHARED}.lock"):
        if not folder.exists():
            user = user_build()
            with coq_math.build_lock(user):
                ok, why = coq_math.compile(user, files)
                assert ok, why
                stage = root / f"{SHARED}.new"
                shutil.rmtree(stage, ignore_errors=True)  # a copy an earlier call of this session left unfinished
                stage.mkdir()
                for f in user.iterdir():
                    if f.name == coq_math.STATE or f.suffix in (".v", ".vo") and f.stem in files:
                        shutil.copy(f, stage / f.name)
            stage.rename(folder)
        ok, why = coq_math.compile(folder, files)
    assert ok, why
    return folder


def private_copy(factory, name: str, record: bool = False) -> Path:
    """A new folder of this worker holding the shared library's sources and compiled files, to write into: the
    library's files only, never a query's (``_cached``), which another worker may be writing.  ``record``: with the
    build record too (``coq_math.STATE``, sealed with this session's key), so that ``coq_math.compile`` there compiles
    only the files that differ from the shared library's."""
    shared = shared_build(factory)
    dest = Path(factory.mktemp(name))
    stems = set(coq_math.with_statements())
    with locked(shared_root(factory) / f"{SHARED}.lock"):  # never a library file shared_build is writing
        for f in shared.iterdir():
            if f.suffix in (".v", ".vo") and f.stem in stems:
                shutil.copy(f, dest / f.name)
        if record:
            shutil.copy(shared / coq_math.STATE, dest / coq_math.STATE)
    return dest


def seeded_build_env(factory, name: str) -> dict:
    """``{"SLTH_COQ_BUILD": seeded_build_root(...)}`` with coqc and CoqInterval, else ``{}`` (nothing to seed: the
    command's Coq parts say why they are undecided)."""
    return {"SLTH_COQ_BUILD": str(seeded_build_root(factory, name))} if coq_math.missing_reason() is None else {}


def seeded_build_root(factory, name: str) -> Path:
    """A new Coq build root (for ``$SLTH_COQ_BUILD``) whose ``math`` folder is a private copy of the shared library
    with its build record (``coq_math.STATE``, sealed with this session's key): a command started there compiles
    only the files that differ from the ones the shared library was compiled from (a Statements.v after an edit of
    ``bounds/``), not the whole library again."""
    root = Path(factory.mktemp(name))
    copy = private_copy(factory, f"{name}-math", record=True)
    copy.rename(root / "math")
    return root


def _cached(factory, kind: str, compute, extra: str = ""):
    """``compute(shared folder)``, asked of Coq once per session and per text of the files it reads (and ``extra``,
    the text of any other file it compiles): stored as JSON beside the shared build under a lock of its own kind.
    One query's coqc (a single process, a minute or more) holds neither the build's lock nor another kind's: the other
    worker copies the library (``private_copy``) or asks another query meanwhile. A query writes only its own files
    (``PrintAssumptions.v``, ``StatementAssumptions.v``, ...), never a library file."""
    folder = shared_build(factory)
    files = coq_math.with_statements()
    key = hashlib.sha256(json.dumps([sorted(files.items()), extra]).encode()).hexdigest()[:20]
    path = folder / f"{kind}-{key}.json"
    with locked(shared_root(factory) / f"{SHARED}-{kind}.lock"):
        if path.exists():
            return json.loads(path.read_text())
        result = compute(folder)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(result))
        os.replace(tmp, path)
    return json.loads(path.read_text())


def shared_rests(factory) -> dict:
    """``coq_math.rests_on`` of the shared build: ``{statement: (premises, axioms)}`` for every formalized statement."""
    return {n: (p, a) for n, (p, a) in _cached(factory, "rests", coq_math.rests_on).items()}


CHAIN = "coq-statements-chain"


def statement_cuts(text: str) -> list[int]:
    """Where a ``Statements.v`` text is cut into chunks: 0, then the end of each formalized statement's line
    ``End <name>.`` (chunk k holds statement k's Section and what stands between it and the Section before)."""
    cuts = [0]
    for name in coq_math.FORMAL:
        end = text.index(f"\nEnd {name}.") + len(f"\nEnd {name}.")
        cuts.append(text.find("\n", end) + 1 or len(text))
    return cuts


def _chain_head(k: int) -> str:
    """What a chunk after the first starts with: the chunk before it, exported, and the scope the file opens."""
    return f"From {coq_math.LOGICAL} Require Export StmtChunk{k - 1}.\nOpen Scope R_scope.\n" if k else ""


def statements_chain(factory) -> Path:
    """A copy of the shared library in which the committed ``Statements.v`` (the one the library was compiled with)
    is compiled again as a chain, once per session under a lock: ``StmtChunk<k>.v`` is chunk k (``statement_cuts``)
    on top of ``StmtChunk<k-1>``, every ``Require Import`` of the file made ``Require Export`` so that the next chunk
    sees what the whole file saw there.  Every chunk compiles: the control of ``compile_statements``.  Call it from a
    fixture, before a test patches the catalogue (the library is checked against ``statements_file()``)."""
    root = shared_root(factory)
    folder = root / CHAIN
    with locked(root / f"{CHAIN}.lock"):
        if not (folder / ".complete").exists():
            shutil.rmtree(folder, ignore_errors=True)
            stage = private_copy(factory, "statements-chain")
            text = (stage / "Statements.v").read_text()
            cuts = statement_cuts(text)
            for k in range(len(cuts) - 1):
                chunk = re.sub(r"\bRequire Import\b", "Require Export", text[cuts[k]:cuts[k + 1]])
                (stage / f"StmtChunk{k}.v").write_text(_chain_head(k) + chunk)
                ok, why = coq_math.compile_file(stage, f"StmtChunk{k}")
                assert ok, f"the committed Statements.v does not compile as a chain: {why}"
            (stage / ".complete").write_text("")
            shutil.move(str(stage), folder)
    return folder


def compile_statements(chain: Path, dest: Path, text: str) -> tuple[bool, str]:
    """``text`` compiled as ``Statements.v`` in ``dest`` beside the library of ``chain`` (``statements_chain``):
    ``coq_math.compile_file``'s answer, its line numbers those of ``text``.  The chunks of ``text`` before the first
    that differs from the committed file's are not compiled again: the rest of ``text`` is compiled on top of the
    committed chunks (``StmtChunk<k-1>``), where the committed chunk k compiled, so a failure is the edit's own."""
    base = (chain / "Statements.v").read_text()
    bc, tc = statement_cuts(base), statement_cuts(text)
    n = len(bc) - 1
    k = next((i for i in range(n) if text[tc[i]:tc[i + 1]] != base[bc[i]:bc[i + 1]]), n)
    for f in chain.iterdir():
        if f.stem.startswith("StmtChunk"):
            keep = f.suffix == ".vo" and int(f.stem[len("StmtChunk"):]) < k  # the committed chunks it is compiled on
        else:
            keep = f.suffix in (".v", ".vo") and f.stem != "Statements"
        if keep:
            shutil.copy(f, dest / f.name)
    head = _chain_head(k)
    (dest / "Statements.v").write_text(head + text[tc[k]:])
    ok, why = coq_math.compile_file(dest, "Statements")
    shift = text.count("\n", 0, tc[k]) - head.count("\n")
    if not ok:
        why = re.sub(r"^Statements\.v line (\d+)", lambda m: f"Statements.v line {int(m.group(1)) + shift}", why)
    return ok, why


def fails_in(chain: Path, dest: Path, text: str, begins: str, name: str) -> str:
    """``text`` compiled as ``compile_statements`` does: Coq's error, which must lie inside Section ``name``, from the
    line holding ``begins`` to the Section's end."""
    ok, why = compile_statements(chain, dest, text)
    assert not ok, f"stmt_{name} still compiles"
    line = int(re.match(r"Statements\.v line (\d+)", why).group(1))
    start, end = text.index(begins), text.index(f"End {name}.")
    assert text[:start].count("\n") < line <= text[:end].count("\n") + 1, why
    return why


REAL_ONLY = ("softmax_shift", "Z_bounds", "ratio_bound", "hoelder", "entry_le_op", "logit_bound", "uniform_in_x",
             "block_entry", "head_merged_eq", "norm_triangle", "lemma8_rows", "softmax_rows_norm", "layers_induction",
             "relu_layer_lipschitz", "relu_layer_norm", "lemma12_logit", "lemma12_logit_needs_x'_bound",
             "uniform_in_inputs", "relu_split_norm", "matvec_relu_split", "pair_error_scaled", "deep_relu_net",
             "blocks_induction", "vecmat_le_op", "WQK_op", "lemma12_head", "lemma12_mha", "relu_net_lipschitz",
             "lemma13_block", "op_transpose", "head_gap", "mha_gap", "mha_norm", "src_QK", "one_layer_gap")
"""Theorems of ``coq_math.THEOREMS`` that rest on the classical reals and nothing else (no CoqInterval proof)."""


def assumption_groups() -> dict:
    """The groups ``shared_assumptions`` asks about: every theorem of ``coq_math.THEOREMS`` together, Lemma 8 and
    Lemma 5 each alone, and ``REAL_ONLY`` together."""
    every = tuple(n for names in coq_math.THEOREMS.values() for n in names)
    return {"every": every, "lemma8": ("lemma8",), "lemma5": ("lemma5",), "real only": REAL_ONLY}


def shared_assumptions(factory) -> dict:
    """``coq_math.assumptions`` of the shared build by ``assumption_groups``: ``{group: [axioms]}``, what the
    theorems of each group rest on together (four walks of their proofs instead of one per theorem: 68 queries
    took about 75 s of one coqc, the four about 12 s)."""
    groups = assumption_groups()
    return _cached(factory, "assumptions", lambda folder: coq_math.assumptions(folder, groups=groups),
                   extra=json.dumps(groups))


def shared_model(factory) -> dict:
    """``coq_model.model_check`` of the committed ``Model.v``, in a private copy of the shared build, once per session:
    ``{"ok", "error", "instances": {statement: [axioms]}}``."""
    from bounds.prove import coq_model

    text = coq_model.MODEL.read_text()
    copy = private_copy(factory, "coq_model_shared")
    return _cached(factory, "model", lambda _shared: coq_model.model_check(copy, text), extra=text)


def without_interval(ents: dict, stems) -> dict:
    """The entries of ``stems`` without the lemmas whose recorded tactic calls CoqInterval: a statement check of
    them walks none of CoqInterval's proofs (``Print Assumptions`` of a lemma ``interval`` proves walks them, about
    8 s of every coqc that asks), for the tests of the check's mechanics, which are the same for every lemma."""
    from bounds.prove.coq import check

    tactics = check.load_tactics()

    def plain(item):
        return not isinstance(item[2], check.Lemma) or "interval" not in (tactics.get(item[2].key) or "")
    return {stem: [e for e in ents[stem] if plain(e)] for stem in stems}


VERDICTS = "verdicts-shared"


RECORD = "proofs-record.json"

_BUILD = ("import sys; from reports import record; from reports.record import assemble; "
          "record.write(sys.argv[1], assemble.build('proofs', seed=0, command='pytest', log=lambda msg: None))")
"""The proof-only run record of the working tree (``slth run --proofs-only``), written to the path given."""


def shared_verdicts(factory) -> Path:
    """A verdict store (``bounds.prove.verdict_cache``) holding the first-pass verdict of every step of the working
    tree as it is now: the store a user's second run reads.  Made once per session, under a lock the workers share,
    by the one build of the session's proof-only run record (``shared_record``), in a process of its own with
    ``$SLTH_VERDICT_CACHE`` naming the store."""
    root = shared_root(factory)
    folder = root / VERDICTS
    with locked(root / f"{VERDICTS}.lock"):
        if not (folder / ".complete").exists():
            root_dir = Path(__file__).resolve().parents[1]
            env = {**os.environ, "SLTH_VERDICT_CACHE": str(folder), "PYTHONPATH": str(root_dir)}
            done = subprocess.run([sys.executable, "-c", _BUILD, str(root / RECORD)], cwd=root_dir, env=env,
                                  capture_output=True, text=True, timeout=900)
            assert done.returncode == 0 and any(folder.rglob("*.json")), \
                f"the proof-only record was not built (exit {done.returncode}):\n" + done.stderr[-2000:]
            _share_with_the_checks(folder)
            (folder / ".complete").write_text("")
    return folder


def shared_record(factory) -> Path:
    """The session's proof-only run record of the working tree (built with ``shared_verdicts``)."""
    shared_verdicts(factory)
    return shared_root(factory) / RECORD


def _share_with_the_checks(folder: Path) -> None:
    """The verdicts of ``folder`` added to the store the checks of this session read and write
    (``checks/conftest.py``: ``$SLTH_VERDICT_CACHE`` as pytest was given it, else the user's store; none when
    ``off``), each entry that store lacks written whole and atomically (``slth_base.files.replace_file``): sealed
    entries keyed by what they verify, as the checks would have stored them."""
    from bounds.prove import verdict_cache

    given = STARTED.get("SLTH_VERDICT_CACHE_GIVEN", "")  # set by the root conftest.py from what pytest was given
    env = {k: v for k, v in STARTED.items() if k != verdict_cache.ENV}
    if given:
        env[verdict_cache.ENV] = given
    with mock.patch.dict(os.environ, env, clear=True):
        store = verdict_cache.directory()
    if store is None:
        return
    for entry in folder.rglob("*.json"):
        dest = store / entry.relative_to(folder)
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            replace_file(dest, entry.read_bytes(), within=store)


def seeded_verdicts(factory, name: str) -> dict:
    """``{"SLTH_VERDICT_CACHE": a private copy of shared_verdicts}``: a command started with it reads back the
    verdict of every step an edit left unchanged and verifies the others (and stores them in its copy only)."""
    shared = shared_verdicts(factory)
    dest = Path(factory.mktemp(name)) / "verdicts"
    with locked(shared_root(factory) / f"{VERDICTS}.lock"):
        shutil.copytree(shared, dest)
    return {"SLTH_VERDICT_CACHE": str(dest)}
