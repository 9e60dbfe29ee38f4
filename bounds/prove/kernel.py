"""The judge of record: a proof step is **certified** only when Coq's kernel accepts the exact statement the exporter
(``bounds.prove.coq``) prints from the step and its declared domain.

The methods of ``bounds.prove.verify`` are the fast first pass: ``pre-checked`` (what they call certified),
``refuted`` (a counterexample Arb confirms: it stays a refutation) or ``not proved``.  Only the pre-checked steps go
to the kernel; each final verdict is ``certified`` (pre-checked and kernel-checked), ``refuted`` (by the first
pass) or ``not proved`` with the reason: the first pass's, "Coq rejected it: <Coq's first error>", "not exported:
<why>", or ``NO_KERNEL`` where coqc and CoqInterval are missing.

This module is the one place that calls the Coq checker (``bounds.prove.coq.check``).  Its files are compiled in
``folder()``, outside the repository and shared by every checkout, under a file lock; a warm replay runs no coqc,
and each lemma's verdict is also stored (``bounds.prove.verdict_cache``, under ``lemma_keys``), so that ``replay``
reads them back without writing or compiling anything.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from slth_base import settings
from slth_base.files import locked, read_text

from . import verdict_cache
from .coq import check as coq_check
from .coq.build import now  # noqa: F401 (when a verdict is checked: the API)
from .coq.export import Lemma
from .verify import CERTIFIED, NOT_PROVED, REFUTED, StepResult

PRECHECKED = "pre-checked"
"""The first pass's word for a step its SymPy / interval / Arb methods certify (the kernel has not judged it)."""
FIRST_WORDS = (PRECHECKED, REFUTED, NOT_PROVED)
NO_KERNEL = "no proof kernel: apt-get install coq libcoq-interval"
REPLAYED = "kernel-checked in this run"
STORED = "kernel verdicts read back, no coqc in this run"
COMMITTED = "kernel result committed for this exact bounds/ and exporter"
"""The sources of a record's kernel verdicts: coqc compiled or checked the Coq files in this run (``REPLAYED``,
nothing else says "in this run"); the verdicts were read back from the verdict store or the sealed build record of
an earlier run (``STORED``, followed by Coq's version and when coqc checked them: ``stored_source``); or the
committed result of a replay keyed by the hash of ``bounds/`` (the steps, the domains and the exporter) and of the
recorded tactics."""


def committed_source(coq, checked) -> str:
    """``COMMITTED`` with Coq's version and when coqc checked the committed result (as the result records them)."""
    coq = coq if isinstance(coq, str) and coq else "Coq version not recorded"
    checked = checked if isinstance(checked, str) and checked else "check time not recorded"
    return f"{COMMITTED}: {coq}, {checked}"


def stored_source(coq: set, when: list) -> str:
    """``STORED`` with the Coq versions and the time (or span of times) at which coqc checked the verdicts read."""
    versions = ", ".join(sorted(v for v in coq if v)) or "Coq of unknown version"
    when = sorted(w for w in when if w)
    at = (f"checked at {when[0]}" if when and when[0] == when[-1] else
          f"checked between {when[0]} and {when[-1]}" if when else "checked at an unknown time")
    return f"{STORED}: {versions}, {at}"
def sources_sentence(judged) -> str:
    """Where the kernel verdicts of ``judged`` come from: one label, or per label the number of steps, the steps
    replayed in this run named ("kernel-checked in this run for 3 steps (theorem11:B1a, ...); kernel result committed
    ... for 68 steps")."""
    by: dict = {}
    for r in judged:
        by.setdefault(r.source, []).append(f"{r.statement}:{r.step}")
    if len(by) <= 1:
        return next(iter(by), REPLAYED)
    parts = []
    for label, steps in sorted(by.items(), key=lambda kv: (not kv[0].startswith(REPLAYED), kv[0])):
        named = f" ({', '.join(steps)})" if label == REPLAYED or label.startswith(STORED) else ""
        parts.append(f"{label} for {len(steps)} step{'s' if len(steps) != 1 else ''}{named}")
    return "; ".join(parts)


KERNEL = "kernel-checked"
ROOT = Path(__file__).resolve().parents[2]


def folder() -> Path:
    """Where the Coq files are compiled: ``$SLTH_COQ_DIR``, else the user's cache folder.  One folder serves every
    checkout: a file is recompiled only when its content (or Common's, or coqc's version) differs from its last
    compile there, so clones and worktrees share what they have in common; a lock serialises them."""
    return settings.coq_dir() or settings.cache_home() / "slth-harness" / "coq"  # checked: folders, never files


def first_word(r) -> str:
    """The first pass's verdict of a ``StepResult``: pre-checked, refuted or not proved."""
    return PRECHECKED if r.ok else r.verdict


def missing() -> str | None:
    """None when coqc and CoqInterval are usable, else the line every pre-checked step reads instead of certified."""
    why = coq_check.missing_reason()
    if why is None:
        return None
    return NO_KERNEL if why.startswith("coqc not found") else f"{NO_KERNEL}; {why}"


def replay(results, directory=None, searching: bool = True, log=None, committed: dict | None = None) -> tuple[dict, str]:
    """``({(statement, step): Coq status}, source)`` of the pre-checked ``results``: the Coq files written,
    searched (a step without a recorded tactic, when ``searching``) and compiled in ``directory`` (default
    ``folder()``); ``({}, "no proof kernel ...")`` without coqc or CoqInterval.

    Each lemma's verdict (kernel-checked, or rejected with Coq's reason) is stored by ``bounds.prove.verdict_cache``
    under ``lemma_keys`` (with the exporter's code).  When every pre-checked step of ``results`` has a stored verdict,
    they are read back and no Coq file is written or compiled; otherwise (and always when the caller names
    ``directory``: its files are wanted there) the files are checked (``bounds.prove.coq.check.check``: unchanged files
    are not recompiled) and the verdicts stored.

    ``committed``: the committed kernel result of another tree (``{"result": {step: verdict}, "lemmas": {step: digest},
    "source": its label}``, ``reports.record.verified.kernel``).  A step whose ``committed_keys`` digest equals the
    committed one takes the committed verdict and is not given to Coq; only the others are replayed, in
    ``folder()/CHANGED`` (files holding only those steps, beside the whole facts' file they import).  The source is then
    a dict, per step: the committed label, or where its verdict was found in this run."""
    why = missing()
    if why:
        return {}, why
    reading = directory is None  # a folder named by the caller (slth proofs --coq DIR) gets its files written
    directory = Path(directory) if directory is not None else folder()
    certified = _AllBut({(r.statement, r.step) for r in results if not r.ok})
    wanted = [(r.statement, r.step) for r in results if r.ok]
    reused: dict = {}
    whole = coq_check.entries(certified)
    if committed and reading:
        reused = _reusable(wanted, committed, committed_keys(whole, known_tactics(directory)[1]))
        if reused:
            directory = directory / CHANGED
            directory.mkdir(parents=True, exist_ok=True)
            wanted = [k for k in wanted if k not in reused]
            if log:
                log(f"{len(reused)} step(s) unchanged since the committed kernel result ({committed['source']}): "
                    f"its verdicts are used; {len(wanted)} step(s) replayed: "
                    + (", ".join(f"{s}:{t}" for s, t in wanted) or "none"))
            if not wanted:
                return dict(reused), {k: committed["source"] for k in reused}
    with locked(directory / ".slth-kernel.lock"):  # slth_base.files.locked: never through a planted link
        searched, tactics = known_tactics(directory)
        ents = whole
        if reused:  # the facts' file whole (the steps import it); of the other files only the steps replayed
            todo = set(wanted)
            ents = {stem: items for stem, items in
                    ((s, [e for e in items if s == "Common" or (e[0], e[1]) in todo]) for s, items in ents.items())
                    if items}
        keys = lemma_keys(ents, tactics)
        stored = _stored(wanted, keys) if reading else None
        if stored is not None:
            found = stored.values()
            source = stored_source({v["coq"] for v in found}, [v["checked_at"] for v in found])
            status = {k: v["verdict"] for k, v in stored.items()}
        else:
            verdict_cache.COQ_STATS["checked"] += 1
            runs = coq_check.RUNS[0]
            hints = _hints(ents, tactics, committed) if committed and reading else None
            status = coq_check.check(directory, certified, tactics=tactics, searching=searching, log=log, ents=ents,
                                     **({"hints": hints} if hints else {}))
            ran = coq_check.RUNS[0] > runs  # a coqc compiled or checked a file in this run
            release, when = coq_check.coq_release(), coq_check.LAST.get("checked_at", "")
            found = status.pop(None) or {}
            new = {k: v for k, v in found.items() if isinstance(v, str) and tactics.get(k) != v}
            if new:
                coq_check.write_atomic(directory / SEARCHED, json.dumps({**searched, **new}, indent=1, sort_keys=True))
            for k, digest in lemma_keys(ents, found or tactics).items():
                if k in status and _lemma_verdict(k, status, ents):
                    verdict_cache.store_coq(digest, status[k], release, when or None)
            source = REPLAYED if ran else stored_source({release}, [when])
    if not reused:
        return status, source
    status = {**{k: v for k, v in status.items() if k not in reused}, **reused}
    return status, {k: committed["source"] if k in reused else source for k in status}


CHANGED = "changed-steps"
"""The subfolder of the Coq folder where only the steps changed since the committed kernel result are compiled (the
whole files of the unchanged tree stay as a full replay left them)."""


def _hints(ents: dict, tactics: dict, committed: dict) -> dict:
    """``{lemma key: tactic}`` for the steps to replay that have no tactic: the tactic that proved the same step in
    the committed tree (``committed["tactics"]``), which the search tries first (``bounds.prove.coq.search``)."""
    old = committed.get("tactics") or {}
    return {lem.key: old[(s, t)] for items in ents.values() for s, t, lem in items
            if isinstance(lem, Lemma) and lem.key not in tactics and isinstance(old.get((s, t)), str)}


def _reusable(wanted: list, committed: dict, keys: dict) -> dict:
    """``{step: committed verdict}`` for the steps of ``wanted`` whose ``committed_keys`` digest is the committed
    one and whose committed verdict is Coq's on that lemma (kernel-checked or a rejection of it, not of its file)."""
    rows, lemmas = committed.get("result") or {}, committed.get("lemmas") or {}
    out = {}
    for k in wanted:
        digest, verdict = keys.get(k), rows.get(k)
        if digest is not None and lemmas.get(k) == digest and isinstance(verdict, str) \
                and (verdict == KERNEL or verdict.startswith("rejected: ") and not any(w in verdict for w in FILE_LEVEL)):
            out[k] = verdict
    return out


def _stored(wanted: list, keys: dict) -> dict | None:
    """``{step: stored kernel verdict}`` for every step of ``wanted``, or None at the first that has none (the
    verdicts read before it are then not counted as read back: the check decides them all)."""
    out = {}
    for k in wanted:
        verdict = verdict_cache.load_coq(keys[k]) if k in keys else None
        if verdict is None:
            verdict_cache.COQ_STATS["hits"] -= len(out)
            return None
        out[k] = verdict
    return out


SEARCHED = "searched-tactics.json"
"""The tactics a search found for changed steps, kept in the Coq folder beside the committed ones."""


def known_tactics(directory) -> tuple[dict, dict]:
    """``(searched, tactics)``: the tactics kept in ``directory`` by earlier searches, and every tactic a replay
    there uses (those, and the committed ones, ``proofs/coq/tactics.json``, which win)."""
    kept = Path(directory) / SEARCHED
    try:
        searched = json.loads(read_text(kept, "searched tactics")) if kept.exists() else {}
    except (OSError, ValueError):  # InputError (a FIFO, a link, not UTF-8) is a ValueError
        searched = {}
    if not isinstance(searched, dict):
        searched = {}
    return searched, {**{k: v for k, v in searched.items() if isinstance(v, str)}, **coq_check.load_tactics()}


FILE_LEVEL = ("the file does not compile", "the statement check does not compile")
"""Rejections that speak of a whole file (or of the check of all files), not of one lemma: never stored per lemma."""


def _lemma_verdict(key, status: dict, ents: dict) -> bool:
    """Whether ``status[key]`` is Coq's verdict on that lemma alone: kernel-checked, or a rejection that is neither
    file-level (``FILE_LEVEL``) nor shared word for word by every lemma of its file (an error before any lemma; a
    file of one lemma cannot tell the two apart)."""
    verdict = status[key]
    if verdict == KERNEL:
        return True
    if not verdict.startswith("rejected: ") or any(w in verdict for w in FILE_LEVEL):
        return False
    for items in ents.values():
        keys = [(s, t) for s, t, l in items if isinstance(l, Lemma)]
        if key in keys:  # a file of one lemma cannot tell its lemma's error from an error before it
            return len(keys) > 1 and not all(status.get(k) == verdict for k in keys)
    return False


_COQ_ID: list = []
_COQ_PORTABLE: list = []


def coq_identity(portable: bool = False) -> tuple:
    """Coq's version (``coqc --version``) and its libraries' (the name, size and time of every compiled file under
    ``coqc -where``'s ``user-contrib``: CoqInterval, Coquelicot, Flocq, ...), once per process.  ``portable``:
    without the times, so that another machine with the same Coq packages gives the same identity (the key of a
    committed verdict, ``committed_keys``)."""
    kept = _COQ_PORTABLE if portable else _COQ_ID
    if not kept:
        h = hashlib.sha256()
        try:
            rc, where = coq_check.run_coqc(["-where"], None, timeout=60.0)
            contrib = Path(where.strip()) / "user-contrib"
            for path in sorted(contrib.rglob("*.vo")):
                st = path.stat()
                h.update(f"{path.relative_to(contrib).as_posix()}\0{st.st_size}".encode()
                         + (b"\n" if portable else f"\0{st.st_mtime_ns}\n".encode()))
        except (coq_check.CoqcFailure, OSError):
            h.update(b"unknown")
        kept.append((coq_check.coqc_version(), h.hexdigest()) + (("portable",) if portable else ()))
    return kept[0]


def committed_keys(ents: dict, tactics: dict) -> dict:
    """``lemma_keys`` as a committed kernel result records them, the same on every machine with the same Coq
    packages: what Coq is given for each lemma, the code of the judge and of the checker (``bounds.prove.kernel``
    and what it imports: the exporter, the statement check, the reading of Coq's answers) and Coq's and its
    libraries' versions (``coq_identity(portable=True)``).  A step whose digest is unchanged is the same statement
    with the same proof text the committed result checked."""
    return lemma_keys(ents, tactics, coq_identity(portable=True), verdict_cache.verifier_hash(entry="prove.kernel"))


def committed_lemmas(status: dict, directory=None) -> dict:
    """``{"statement\tstep": digest}`` for a committed kernel result of this tree: the ``committed_keys`` digest of
    every step whose status is Coq's verdict on its lemma alone (``_lemma_verdict``), with the tactics a replay in
    ``directory`` (default ``folder()``) uses.  ``replay(..., committed=...)`` reuses a verdict only where the digest
    is the same again."""
    ents = coq_check.entries(_AllBut(set()))
    keys = committed_keys(ents, known_tactics(Path(directory) if directory is not None else folder())[1])
    return {f"{s}\t{t}": d for (s, t), d in sorted(keys.items()) if (s, t) in status and _lemma_verdict((s, t), status, ents)}


def committed_tactics(directory=None) -> dict:
    """``{"statement\tstep": tactic}``: the tactic of every exported step of this tree (the recorded ones and those
    searched in ``directory``, default ``folder()``), kept in the committed kernel result so that after an edit the
    search tries a changed step's old tactic first (``replay``)."""
    tactics = known_tactics(Path(directory) if directory is not None else folder())[1]
    return {f"{s}\t{t}": tactics[lem.key] for items in coq_check.entries(_AllBut(set())).values()
            for s, t, lem in items if isinstance(lem, Lemma) and isinstance(tactics.get(lem.key), str)}


def lemma_keys(ents: dict, tactics: dict, ident: tuple | None = None, code: str | None = None) -> dict:
    """``{(statement, step): digest}`` (``bounds.prove.verdict_cache.coq_digest``) of every exported lemma of
    ``ents`` (``bounds.prove.coq.check.entries``) that has a tactic to compile: what Coq is given for it (its
    file's header and name, the facts' file it imports, its definedness lemma and its lemma with the tactic, the
    exported statement), and Coq's and its libraries' versions (``coq_identity``)."""
    ident = coq_identity() if ident is None else ident
    common = coq_check.text("Common", ents.get("Common", []), tactics)
    out = {}
    for stem, items in ents.items():
        head = coq_check.text(stem, [], tactics)
        for statement, step, lem in items:
            if not isinstance(lem, Lemma):
                continue
            tac, why = coq_check.tactic(tactics, lem.key)
            if tac is None or why:
                continue  # no tactic, or a refused one: the verdict is said before any coqc
            material = (stem, head, common, lem.text, lem.def_text, lem.def_proof() + lem.proof(tac), ident)
            out[(statement, step)] = verdict_cache.coq_digest(material, code)
    return out


class _AllBut:
    """The steps exported to Coq: every step of the catalogue except those this run's first pass did not pre-check.
    A run over some statements thus writes the same files as a run over all (a step of another statement keeps its
    lemma) and recompiles nothing that a full run compiled; only the steps of ``results`` are read back."""

    def __init__(self, excluded: set):
        self.excluded = frozenset(excluded)

    def __contains__(self, key) -> bool:
        return key not in self.excluded


@dataclasses.dataclass(frozen=True)
class Judged:
    """A first-pass ``StepResult`` with the kernel's verdict: every field of the result is read through, except
    ``ok``, ``verdict``/``status`` (the final verdict) and ``detail`` (the reason first when not certified)."""
    first: StepResult
    coq: str  # the Coq status: kernel-checked / rejected: ... / not exported: ... / not checked ... / no proof kernel
    source: str = REPLAYED  # REPLAYED or COMMITTED; the reason (NO_KERNEL ...) when no kernel judged

    def __getattr__(self, name):
        if name == "first":  # not yet set (copying, unpickling): never recurse
            raise AttributeError(name)
        return getattr(self.first, name)

    @property
    def pre(self) -> str:
        return first_word(self.first)

    @property
    def ok(self) -> bool:
        return self.first.ok and self.coq == KERNEL

    @property
    def verdict(self) -> str:
        return CERTIFIED if self.ok else REFUTED if self.first.counterexample else NOT_PROVED

    status = verdict

    @property
    def reason(self) -> str:
        """Why a pre-checked step is not certified ("" otherwise): no kernel, Coq's rejection or not exported."""
        if not self.first.ok or self.ok:
            return ""
        if self.coq.startswith(NO_KERNEL):
            return self.coq
        if self.coq.startswith("rejected"):
            return "Coq rejected it" + self.coq[len("rejected"):]
        return f"Coq: {self.coq}"

    @property
    def detail(self) -> str:
        why = self.reason
        return f"not proved ({why}); first pass: {self.first.detail}" if why else self.first.detail


def judge(results, status: dict, source) -> list[Judged]:
    """Each result with its final verdict: ``status`` the Coq statuses (``replay``), ``source`` where they come
    from (``REPLAYED``, ``COMMITTED``, or the no-kernel line when ``status`` is empty), or per step a dict of them
    (``replay`` with a committed result: the committed label for the steps it kept, the replay's for the rest; a
    step the dict does not name, never given to Coq, gets the label most steps have)."""
    per_step = source if isinstance(source, dict) else {}
    if per_step:
        labels = list(per_step.values())
        source = max(sorted(set(labels)), key=labels.count)
    out = []
    for r in results:
        key = (r.statement, r.step)
        if not r.ok:  # never given to Coq: the first pass says why
            coq = ("not exported: the first pass refutes it" if r.verdict == REFUTED else
                   "not exported: the first pass does not pre-check it")
        elif key in status:
            coq = status[key]
        elif source.startswith(NO_KERNEL):
            coq = source
        else:
            coq = "not checked: no kernel result for this step"
        out.append(Judged(r, coq, per_step.get(key, source)))
    return out


def verdicts(results, directory=None, searching: bool = True, log=None) -> list[Judged]:
    """``judge(results, *replay(results, ...))``: the final verdict of every step, the kernel replayed."""
    return judge(results, *replay(results, directory, searching, log))
