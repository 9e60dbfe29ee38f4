"""The printed variants and the mutation suite of a run record, re-verified only when what decides them changed.

Both re-run every proof step under an edited catalogue (a minute of CPU and more), and both are a function of the
code of ``bounds/`` (the statements, the proofs and the verifier, which lives there) and of the libraries that
verifier calls (SymPy, mpmath, python-flint), nothing else: no seed, no measurement. ``cached(part, fn,
cache_dir)`` therefore stores ``fn()``'s rows under ``<cache_dir>/verified/`` keyed by ``key(part, fn)``: the
SHA-256 of every source file of ``bounds/`` (``reports.record.provenance.bounds_hash``, the hash the record's provenance states), the versions of Python and of those libraries, the source of ``fn``
itself (how the record turns results into rows) and ``VERSION``. Any edit of ``bounds/`` (or a library upgrade)
gives another key, so the part is verified again; the same tree reads the stored rows back (checksummed by
``slt.cache``; a corrupt file is recomputed, never used). The rows of the committed tree are committed too
(``slt/measure/committed/verified-<part>.json``, written by ``python -m reports.record.verified``), so a fresh clone
verifies nothing that its ``bounds/`` has not changed; after an edit of ``bounds/`` they no longer match and the
run verifies again (and the command refreshes them).

``kernel(results)`` gives the Coq kernel's statuses of the proof steps (``bounds.prove.kernel``): replayed in this run
where coqc and CoqInterval are installed, else read from the committed result of a replay
(``<committed>/verified-kernel.json``) when it was made for this exact ``bounds/`` (its steps, domains and the
exporter, ``bounds/coq``) and these recorded tactics (``proofs/coq/tactics.json``), labelled as such; with neither,
every pre-checked step is "not proved (no proof kernel ...)".
"""
from __future__ import annotations

import importlib.metadata
import inspect
import os
import platform
from pathlib import Path

from slt.cache import CorruptRecord, fingerprint, read_record, write_record

from reports.record.provenance import bounds_hash

__all__ = ["VERSION", "LIBRARIES", "cached", "key", "kernel", "kernel_key"]

VERSION = 1
"""Raised when the rows stored here change meaning without a change of ``bounds/`` or of ``fn``'s source."""
COMMITTED = Path(__file__).resolve().parents[2] / "slt" / "measure" / "committed"
"""Where the committed rows live (beside the committed full-power empirical record): a fresh clone reads them."""
LIBRARIES = ("sympy", "mpmath", "python-flint")
"""The libraries the verifier in ``bounds/`` calls: their versions are part of the key."""


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def key(part: str, fn) -> str:
    """Everything that decides ``fn()``'s rows, as one fingerprint."""
    return fingerprint({"part": part, "version": VERSION, "bounds": bounds_hash(),
                        "python": platform.python_version(), "libraries": {n: _version(n) for n in LIBRARIES},
                        "rows": inspect.getsource(fn)})


def _read(path: Path, want: str, log):
    try:
        rec = read_record(path)
    except FileNotFoundError:
        return None
    except (CorruptRecord, OSError) as exc:
        log(f"[run] {path.name}: stored rows unusable ({exc}); verifying again")
        return None
    return rec["result"] if rec.get("key") == want else None


def cached(part: str, fn, cache_dir=None, log=lambda msg: None, committed: Path = COMMITTED):
    """``fn()``: the committed rows (``<committed>/verified-<part>.json``) or those a run of this tree stored in
    ``<cache_dir>/verified/`` when either was made with this ``key``; computed (and stored in the cache) otherwise.
    ``cache_dir=None`` and ``committed=None`` never read or write."""
    want = key(part, fn)
    for path, where in ((committed and Path(committed) / f"verified-{part}.json", "committed"),
                        (cache_dir and Path(cache_dir) / "verified" / f"{part}-{want}.json", "cached")):
        rows = _read(path, want, log) if path else None
        if rows is not None:
            log(f"[run] {part}: bounds/ and the verifier unchanged since the {where} verification "
                f"({path.name}); its rows are used")
            return rows
    rows = fn()
    if cache_dir is not None:
        write_record(Path(cache_dir) / "verified" / f"{part}-{want}.json", {"part": part, "key": want, "result": rows})
    return rows


def kernel_key() -> str:
    """What decides the kernel's statuses: the hash of ``bounds/`` (the steps, their domains and the exporter) and
    of the recorded tactics."""
    import hashlib

    from bounds.prove.coq.check import TACTICS
    tactics = hashlib.sha256(TACTICS.read_bytes()).hexdigest() if TACTICS.exists() else None
    return fingerprint({"part": "kernel", "version": VERSION, "bounds": bounds_hash(), "tactics": tactics})


def kernel(results, log=lambda msg: None, committed: Path = COMMITTED) -> tuple[dict, str]:
    """``({(statement, step): Coq status}, source)`` for ``bounds.prove.kernel.judge``: replayed (``bounds.prove.kernel.replay``)
    when coqc and CoqInterval are installed, else the committed result for this ``kernel_key()``, else ``({}, the
    no-kernel line)``."""
    from bounds.prove import kernel as judge

    why = judge.missing()
    if why is None:
        return judge.replay(results, log=log)
    rows = _read(Path(committed) / "verified-kernel.json", kernel_key(), log) if committed else None
    if rows is None:
        log(f"[run] Coq: {why}; no committed kernel result for this bounds/")
        return {}, why
    log(f"[run] Coq: {why}; the committed kernel result for this exact bounds/ and exporter is used")
    return {tuple(k.split("\t", 1)): v for k, v in rows.items()}, judge.COMMITTED


def write_kernel(folder: Path = COMMITTED, log=print) -> None:
    """Replay the Coq kernel on every pre-checked step of this tree and write its statuses as the committed result
    (``verified-kernel.json``, keyed by ``kernel_key()``)."""
    import bounds
    from bounds.prove import kernel as judge

    if judge.missing():
        log(f"[verified] kernel: {judge.missing()}; the committed kernel result is left as it is")
        return
    results = bounds.verify_facts() + [r for n in bounds.proved() for r in bounds.verify(n)]
    status, _ = judge.replay(results, log=log)
    rows = {f"{s}\t{t}": v for (s, t), v in sorted(status.items())}
    write_record(Path(folder) / "verified-kernel.json", {"part": "kernel", "key": kernel_key(), "result": rows})
    log(f"[verified] wrote {Path(folder) / 'verified-kernel.json'}")


def write_committed(folder: Path = COMMITTED, log=print) -> None:
    """Verify the printed variants and the mutation suite of this tree and write them as the committed rows; run the
    default report's deterministic empirical tasks (seed 0, the default report's) into ``<folder>/tasks``.

    Everything is built in a new folder beside ``folder`` (a copy of it, so the files this refresh does not make,
    the committed empirical record, come along) and swapped in whole at the end, with Ctrl-C held off during the two
    renames: an interrupted or failed refresh leaves the committed files as they were and no half-built folder."""
    import shutil
    import tempfile

    from slt.cache import writing

    from reports.record.suites import mutations, variants

    folder = Path(folder)
    _recover(folder)
    with writing(folder, what="the committed folder"):  # a second refresh at the same time is refused
        stage = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}-new-"))
        try:
            shutil.copytree(folder, stage, dirs_exist_ok=True, symlinks=True)
            for part, fn in (("variants", variants), ("mutations", mutations)):
                if _read(stage / f"verified-{part}.json", key(part, fn), log) is not None:
                    log(f"[verified] {part}: the committed rows are this tree's already")
                    continue
                log(f"[verified] {part} ...")
                write_record(stage / f"verified-{part}.json", {"part": part, "key": key(part, fn), "result": fn()})
            write_kernel(stage, log)
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
    import shutil
    import signal

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
    import sys

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
