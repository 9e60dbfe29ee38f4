"""The printed variants and the mutation suite of a run record, re-verified only when what decides them changed.

Both re-run every proof step under an edited catalogue (a minute of CPU and more), and both are a function of the
code of ``bounds/`` (the statements, the proofs and the verifier) and of the libraries that verifier calls (SymPy,
mpmath, python-flint), nothing else: no seed, no measurement. ``cached(part, fn, cache_dir)`` therefore keeps
``fn()``'s rows under ``key(part, fn)``: any edit of ``bounds/`` (or a library upgrade) gives another key, so the
part is verified again. The rows of the committed tree are committed too (``slt/measure/committed/
verified-<part>.json``, written by ``python -m reports.record.verified``), so a fresh clone verifies nothing that its
``bounds/`` has not changed. They are made with the verifier's CPU-time guard off (``GUARD_OFF``): each stage is cut
by its work budget alone, a count that is the same on every machine, so the load of the machine that made them
decides no committed row.

``kernel(results)`` gives the Coq kernel's statuses of the proof steps and ``lemma12()`` Lemma 12's printed logit
step in Coq, each from the committed result when it was made for this exact ``bounds/`` (and recorded tactics),
else replayed where coqc and CoqInterval are installed. The test suite replays both with Coq and holds them equal
to the committed results when the keys match (``tests/test_coq.py::test_coq_replays_the_recorded_proofs``,
``tests/test_coq_math.py::test_finding10_coq_rejects_lemma12s_printed_logit_step_and_proves_it_false``), so a
committed result a report uses is one CI compiled and checked for that tree.
"""
from __future__ import annotations

import hashlib
import inspect
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from bounds.prove import coq_math
from bounds.prove import kernel as judge
from bounds.prove.coq import check
from bounds.prove.coq.check import coq_release
from slth_base.sealed import read_regular, seal, unseal
from slth_base.versions import python_release
from slt.cache import CorruptRecord, fingerprint, read_record, write_atomic, write_record, writing

from reports.record.provenance import bounds_hash, package_version

__all__ = ["VERSION", "LIBRARIES", "cached", "key", "kernel", "kernel_key", "lemma12", "lemma12_key"]

VERSION = 1
"""Raised when the rows stored here change meaning without a change of ``bounds/`` or of ``fn``'s source."""
COMMITTED = Path(__file__).resolve().parents[2] / "slt" / "measure" / "committed"
"""Where the committed rows live (beside the committed full-power empirical record): a fresh clone reads them."""
LIBRARIES = ("sympy", "mpmath", "python-flint")
"""The libraries the verifier in ``bounds/`` calls: their versions are part of the key."""


GUARD_OFF = 1e9
"""The CPU seconds of the verifier's time guard (``bounds.prove.verify_domain.STAGE_SECONDS``) while the committed
rows are made: none is ever reached, so a stage ends by its work budget (``verify_domain.STAGE_CALLS``) or finishes."""


def key(part: str, fn) -> str:
    """Everything that decides ``fn()``'s rows, as one fingerprint."""
    return fingerprint({"part": part, "version": VERSION, "bounds": bounds_hash(),
                        "python": python_release(), "libraries": {n: package_version(n) for n in LIBRARIES},
                        "rows": inspect.getsource(fn)})


def _load(path: Path, log, what: str, then: str = "") -> dict | None:
    """The record at ``path`` (read and checksummed by ``slt.cache``), or None when there is none or it is unusable
    (said in ``log``)."""
    try:
        return read_record(path)
    except FileNotFoundError:
        return None
    except (CorruptRecord, OSError) as exc:
        log(f"[run] {path.name}: {what} unusable ({exc}){then}")
        return None


def _read(path: Path, want: str, log):
    rec = _load(path, log, "stored rows", "; verifying again")
    return rec["result"] if rec is not None and rec.get("key") == want else None


SEALED = "verified-rows"
"""The kind of the rows a run keeps in its cache folder (``slth_base.sealed``): believed only when sealed by this
user's harness; the committed rows are files of the repository, reviewed like its code."""


def _read_cached(path: Path, want: str, log):
    try:
        raw = read_regular(path)
    except OSError as exc:
        log(f"[run] {path}: stored rows unusable ({exc.strerror or exc}); verifying again")
        return None
    if raw is None:
        return None
    problem, rec = unseal(raw, SEALED)
    if problem is None and (rec.get("key") != want or "result" not in rec):
        problem = "stored under another key"
    if problem:
        log(f"[run] {path}: stored rows unusable ({problem}); verifying again")
        return None
    return rec["result"]


def cached(part: str, fn, cache_dir=None, log=lambda msg: None, committed: Path = COMMITTED):
    """``fn()``: the committed rows (``<committed>/verified-<part>.json``) or those a run of this tree stored in
    ``<cache_dir>/verified/`` when either was made with this ``key``; computed (and stored in the cache) otherwise.
    ``cache_dir=None`` and ``committed=None`` never read or write."""
    want = key(part, fn)
    for path, where in ((committed and Path(committed) / f"verified-{part}.json", "committed"),
                        (cache_dir and Path(cache_dir) / "verified" / f"{part}-{want}.json", "cached")):
        rows = (_read(path, want, log) if where == "committed" else _read_cached(path, want, log)) if path else None
        if rows is not None:
            log(f"[run] {part}: bounds/ and the verifier unchanged since the {where} verification "
                f"({path.name}); its rows are used")
            return rows
    rows = fn()
    if cache_dir is not None:
        write_atomic(Path(cache_dir) / "verified" / f"{part}-{want}.json",
                     seal(SEALED, {"part": part, "key": want, "result": rows}))
    return rows


def kernel_key() -> str:
    """What decides the kernel's statuses: the hash of ``bounds/`` (the steps, their domains, the exporter and the
    checker), of the recorded tactics, and the text of every Coq file a replay compiles (every step of the
    catalogue in memory exported with its recorded tactic, ``bounds.prove.coq.check.text``): a catalogue changed
    in memory gives another key too."""
    tactics = hashlib.sha256(check.TACTICS.read_bytes()).hexdigest() if check.TACTICS.exists() else None
    recorded = check.load_tactics()
    files = {stem: check.text(stem, items, recorded) for stem, items in check.entries().items()}
    return fingerprint({"part": "kernel", "version": VERSION, "bounds": bounds_hash(), "tactics": tactics,
                        "files": files})


def _committed_record(committed, part: str, log) -> dict | None:
    """``<committed>/verified-<part>.json`` (read and checksummed) when it holds a result, whatever its key."""
    rec = _load(Path(committed) / f"verified-{part}.json", log, "committed result") if committed else None
    return rec if isinstance(rec, dict) and isinstance(rec.get("result"), dict) else None


def _committed(committed, part: str, want: str, log):
    """``(result, its label: bounds.prove.kernel.committed_source)`` of ``<committed>/verified-<part>.json`` when it was made with key ``want``."""
    rec = _committed_record(committed, part, log)
    if rec is None or rec.get("key") != want:
        return None
    return rec["result"], judge.committed_source(rec.get("coq"), rec.get("checked"))


def _committed_steps(committed, log) -> dict | None:
    """The committed kernel result of another tree, for ``bounds.prove.kernel.replay(committed=...)``: its verdicts
    and the digests of its steps' lemmas (``bounds.prove.kernel.committed_lemmas``) and their tactics (tried first
    for a changed step: ``committed_tactics``), keyed by step, with its label."""
    rec = _committed_record(committed, "kernel", log)
    lemmas = rec.get("lemmas") if rec else None
    if not isinstance(lemmas, dict):
        return None
    split = lambda rows: {tuple(k.split("\t", 1)): v for k, v in rows.items() if isinstance(k, str) and "\t" in k}
    tactics = rec.get("tactics") if isinstance(rec.get("tactics"), dict) else {}
    return {"result": split(rec["result"]), "lemmas": split(lemmas), "tactics": split(tactics),
            "source": judge.committed_source(rec.get("coq"), rec.get("checked"))}


def kernel(results, log=lambda msg: None, committed: Path = COMMITTED) -> tuple[dict, str | dict]:
    """``({(statement, step): Coq status}, source)`` for ``bounds.prove.kernel.judge``: the committed result for this
    ``kernel_key()`` when it holds every step the first pass pre-checks (``committed_source``), else replayed
    (``bounds.prove.kernel.replay``) when coqc and CoqInterval are installed, else ``({}, the no-kernel line)``.
    A replay after an edit gives Coq only the steps whose exported lemma differs from the committed result's
    (``bounds.prove.kernel.committed_keys``: the exact statement and proof text, the judge's code, Coq's and its
    libraries' versions); the others keep the committed verdict, and ``source`` is then per step."""
    found = _committed(committed, "kernel", kernel_key(), log)
    if found is not None:
        rows, source = found
        status = {tuple(k.split("\t", 1)): v for k, v in rows.items()}
        if all((r.statement, r.step) in status for r in results if r.ok):
            log(f"[run] Coq: bounds/, the exporter and the tactics unchanged since the committed kernel result "
                f"({source}); it is used (slth proofs --coq replays it)")
            return status, source
    why = judge.missing()
    if why is None:
        steps = _committed_steps(committed, log)
        return judge.replay(results, log=log, **({"committed": steps} if steps else {}))
    log(f"[run] Coq: {why}; no committed kernel result for this bounds/")
    return {}, why


def lemma12_key() -> str:
    """What decides Lemma 12's check in Coq but Coq itself: ``bounds/`` (the code that writes ``Statements.v``, runs
    the check and reads Coq's answers) and every text it compiles (``bounds.prove.coq_math.with_statements``)."""
    return fingerprint({"part": "lemma12", "version": VERSION, "bounds": bounds_hash(),
                        "files": coq_math.with_statements()})


def lemma12(log=lambda msg: None, committed: Path = COMMITTED) -> dict:
    """Lemma 12's printed logit step in Coq for the run record: the committed result for this ``lemma12_key()``
    (its ``source`` ``committed_source``), else ``bounds.prove.coq_math.lemma12_logit_run()`` (its ``source``
    ``bounds.prove.kernel.REPLAYED`` when coqc ran now, ``stored_source`` when its cached answer was read back;
    ``{"undecided": why}`` without coqc)."""
    found = _committed(committed, "lemma12", lemma12_key(), log)
    if found is not None:
        log(f"[run] Coq: Lemma 12's files unchanged since the committed check ({found[1]}); "
            "it is used (python -m bounds.prove.coq_math replays it)")
        return {**found[0], "source": found[1]}
    result, cached = coq_math.lemma12_logit_run()  # coqc run now, or its cached answer read back
    if "undecided" in result:
        return result
    return {**result, "source": judge.REPLAYED if cached is None else
            judge.stored_source({cached["coq"]}, [cached["checked"]])}


def write_lemma12(folder: Path = COMMITTED, log=print) -> None:
    """Check Lemma 12's printed logit step in Coq (``coq_math.lemma12_logit_run``: compiled in the build folder, or
    the answer it stored for these exact files and coqc) and write it as the committed result
    (``verified-lemma12.json``, keyed by ``lemma12_key()``, with Coq's version and when coqc gave that answer)."""
    result, cached = coq_math.lemma12_logit_run()
    if "undecided" in result:
        log(f"[verified] lemma12: {result['undecided']}; the committed result is left as it is")
        return
    when = cached["checked"] if cached and cached.get("checked") else judge.now()
    write_record(Path(folder) / "verified-lemma12.json", {"part": "lemma12", "key": lemma12_key(), "coq": coq_release(),
                                                          "checked": f"checked at {when}", "result": result})
    log(f"[verified] wrote {Path(folder) / 'verified-lemma12.json'}")


def write_kernel(folder: Path = COMMITTED, log=print) -> None:
    """Replay the Coq kernel on every pre-checked step of this tree and write its statuses as the committed result
    (``verified-kernel.json``, keyed by ``kernel_key()``)."""
    import bounds

    if judge.missing():
        log(f"[verified] kernel: {judge.missing()}; the committed kernel result is left as it is")
        return
    results = bounds.verify_facts() + [r for n in bounds.proved() for r in bounds.verify(n)]
    status, source = judge.replay(results, log=log)
    rows = {f"{s}\t{t}": v for (s, t), v in sorted(status.items())}
    # when coqc checked the verdicts: now, or (read back from the verdict store) when they were checked then
    checked = f"checked at {judge.now()}" if source == judge.REPLAYED else source.rsplit(", ", 1)[-1]
    write_record(Path(folder) / "verified-kernel.json", {"part": "kernel", "key": kernel_key(), "result": rows,
                                                         "lemmas": judge.committed_lemmas(status),
                                                         "tactics": judge.committed_tactics(),
                                                         "coq": coq_release(), "checked": checked})
    log(f"[verified] wrote {Path(folder) / 'verified-kernel.json'}")


def write_committed(folder: Path = COMMITTED, log=print) -> None:
    """Verify the printed variants and the mutation suite of this tree and write them as the committed rows; run the
    default report's deterministic empirical tasks (seed 0, the default report's) into ``<folder>/tasks``.

    Everything is built in a new folder beside ``folder`` (a copy of it, so the files this refresh does not make,
    the committed empirical record, come along) and swapped in whole at the end, with Ctrl-C held off during the two
    renames: an interrupted or failed refresh leaves the committed files as they were and no half-built folder."""
    from bounds.prove import verify_domain
    from reports.record.suites import mutations, variants

    folder = Path(folder)
    _recover(folder)
    with writing(folder, what="the committed folder"):  # a second refresh at the same time is refused
        stage = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}-new-"))
        try:
            shutil.copytree(folder, stage, dirs_exist_ok=True, symlinks=True)
            guard, verify_domain.STAGE_SECONDS = verify_domain.STAGE_SECONDS, GUARD_OFF
            try:
                for part, fn in (("variants", variants), ("mutations", mutations)):
                    if _read(stage / f"verified-{part}.json", key(part, fn), log) is not None:
                        log(f"[verified] {part}: the committed rows are this tree's already")
                        continue
                    log(f"[verified] {part} ...")
                    rows = {"part": part, "key": key(part, fn), "result": fn()}
                    write_record(stage / f"verified-{part}.json", rows)
            finally:
                verify_domain.STAGE_SECONDS = guard
            write_kernel(stage, log)
            write_lemma12(stage, log)
            from slt.measure import calibration, empirical

            log("[verified] the default report's deterministic empirical tasks ...")
            n = empirical.commit_tasks(0, calibration.load(), committed=stage / "tasks", progress=log)
            _swap(stage, folder)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
    log(f"[verified] wrote {folder / 'verified-variants.json'}, {folder / 'verified-mutations.json'} and {n} task "
        f"results under {folder / 'tasks'}")


def _old(folder: Path) -> Path:
    return folder.with_name(f".{folder.name}-old")


def _swap(stage: Path, folder: Path) -> None:
    """``stage`` in place of ``folder``: two renames with SIGINT and SIGTERM held until both are done (the old folder
    is kept as ``.<name>-old`` between them, so ``_recover`` puts it back after a power cut)."""
    old = _old(folder)
    if old.exists():
        shutil.rmtree(old)
    held = {signal.SIGINT, signal.SIGTERM}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        os.rename(folder, old)
        os.rename(stage, folder)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
    shutil.rmtree(old, ignore_errors=True)


def _recover(folder: Path) -> None:
    """A swap cut between its two renames (the machine stopped): the old folder is put back."""
    old = _old(folder)
    if old.exists() and not folder.exists():
        os.rename(old, folder)


def main(argv=None) -> int:
    """``python -m reports.record.verified``: refresh the committed rows after an edit of ``bounds/`` (no options;
    anything else is a usage error, one line, exit 2)."""
    from reports.cli import INTERRUPTED, Parser
    from reports.terminal import escaped_streams
    from slt.inputs import InputError
    from slth_base.settings import refused

    parser = Parser(prog="python -m reports.record.verified",
                    description="Refresh the committed verification rows and task results of this tree "
                                f"(under {COMMITTED}).")
    with escaped_streams():
        try:
            parser.parse_args(sys.argv[1:] if argv is None else argv)
        except SystemExit as exc:
            return int(exc.code or 0)
        bad = refused(parser.prog)
        if bad:
            return bad
        try:
            write_committed()
        except KeyboardInterrupt:
            print(f"{parser.prog}: interrupted; the committed files under {COMMITTED} are as they were",
                  file=sys.stderr)
            return INTERRUPTED
        except InputError as exc:
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":  # python -m reports.record.verified: refresh the committed rows after an edit of bounds/
    raise SystemExit(main())
