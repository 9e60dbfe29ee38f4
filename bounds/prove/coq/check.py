"""The kernel's verdict per step: the judge that writes the Coq files of the catalogue (``files``), searches the
tactics they lack (``search``), compiles them with coqc (``runner``) in a build folder (``build``) and checks each
compiled constant against its exported statement (``statement_check``).

The API (``kernel``/``check``): for a set of steps (default: every step of every proved statement and every scalar
fact), ``{(statement, step): verdict}``, each verdict one line starting with one of

- ``kernel-checked``: coqc compiled the step's lemma with its recorded tactic and, when a side is defined only in
  part of the reals, its definedness lemma (every denominator nonzero, every ``ln``/``Rpower`` argument positive,
  every ``sqrt`` argument nonnegative, on the declared domain); then a separate check file, compiled against the
  ``.vo`` files, found that each compiled constant has exactly the exported statement (``Check (name : statement)``)
  and that what the constants rest on is Coq's standard axioms only (coqchk's list of the environment's
  assumptions, which re-checks the files with its own kernel, and ``Print Assumptions`` of the sealed fields, or of
  each constant where those lists name another axiom: ``statement_check``);
- ``rejected: <Coq's first error>``: no candidate of the generated cascade proves it, a replayed proof fails, the
  recorded tactic is not a sentence of the proof language, or the compiled constant is not the exported statement;
- ``not checked: <why>``: ``no proof kernel: apt-get install coq libcoq-interval``; ``undefined at <point>`` (or
  ``undefined: ...``: the definedness lemma is not proved); ``coqc timed out after S s``; ``coqc killed by signal
  N``; ``folder not writable: DIR``; ``run slth proofs --coq`` (``compiling`` False and nothing compiled matches);
- ``not exported: <why>``: the harness does not certify it, or the printer refuses a construct.

Nothing in an output folder is believed: the ``.v`` files are written to ``DIR`` for reading (an edited one is
rewritten) and compiled from their text as the exporter writes it now in a build folder outside it (``build_dir(DIR)``:
under ``$SLTH_COQ_BUILD``, else ``$XDG_CACHE_HOME/slth/coq`` or ``~/.cache/slth/coq``), whose record (``state.json``)
binds each file's text and coqc version to the sha256 of the ``.vo`` coqc wrote; a ``.vo`` that does not match is
compiled again.  Every coqc call runs through ``bounds.prove.external`` under ``SLTH_COQC_SECONDS`` (default 600; a
search batch gets that per lemma).  ``python -m bounds.prove.coq`` writes the committed files; ``tactics.json``
records the search's winners, each accepted only when it is a tactic expression (``tactic_problem``)."""
from __future__ import annotations

import re
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import sympy as sp
from slth_base.files import holds

from .. import external
from .assumed import declarations, family, parse_assumptions  # noqa: F401 (the API)
from .build import (build_dir, build_lock, current, load_state, output_dir, save_state, sha,  # noqa: F401
                    writable_dir, write_atomic)
from .export import Lemma, definedness
from .files import FACTS, kept_in, libraries
from .files import (KERNEL, NOT_CHECKED, NOT_EXPORTED, REJECTED, entries, entries_of, file_key, text,  # noqa: F401
                    write)
from .runner import (LOGICAL, NO_KERNEL, RUNS, WORKERS, CoqcFailure, CoqSetupError, compile_file,  # noqa: F401
                     coq_release, coqc, coqc_seconds, coqc_version, first_error, jobs, missing_reason, run_coqc)
from .search import search
from .statement_check import LAST, assumptions, assumptions_text, check_statements  # noqa: F401 (the API)
from .tactics import COMMITTED, TACTICS, load_tactics, tactic, tactic_problem  # noqa: F401 (the API)


def prepare(directory, build=None) -> tuple[Path, Path]:
    """(output folder, build folder), both checked and created; ``CoqSetupError`` (one line) first of all, including
    the missing proof kernel and a bad ``SLTH_COQC_SECONDS``."""
    coqc_seconds()
    jobs()
    out = output_dir(directory)
    reason = missing_reason()
    if reason:
        raise CoqSetupError(reason)
    b = Path(build).resolve() if build else build_dir(out)
    writable_dir(b, "build folder")
    return out, b


def undefined_point(lem: Lemma) -> str:
    """``undefined at <point>`` for a definedness condition false at a corner of the domain (each parameter at its
    lower end, or its upper end, integers rounded in), else ``undefined: Coq proves no ... on the domain``."""
    lhs, rhs, dom = lem.sides
    conds = definedness(lhs, rhs)
    for end in ("lo", "hi"):
        point = {}
        for p in dom.params:
            ends = p.lo if end == "lo" or not p.hi else p.hi  # no upper bound: the lower ones; none at all: 1
            vals = [sp.sympify(v).xreplace(point) for v in ends] or [sp.Integer(1)]
            v = max(vals) if end == "lo" else min(vals)
            if v.free_symbols:
                break
            if p.integer:
                v = sp.ceiling(v) if end == "lo" else sp.floor(v)
            elif p.lo_open if end == "lo" else p.hi_open:  # inside an open end, where the step must be defined
                v = v + sp.Rational(1, 10**9) * (1 if end == "lo" else -1)
            point[p.symbol] = sp.nsimplify(v)
        else:
            found = _undefined_at(conds, point, dom)
            if found:
                return found
    return "undefined: Coq proves no " + " /\\ ".join(c for c, _, _ in conds) + " on the declared domain"


def _undefined_at(conds, point: dict, dom) -> str | None:
    """``undefined at <point>: ...`` for the first definedness condition false at ``point``, else None."""
    for prop, base, kind in conds:
        try:
            val = sp.sympify(base).xreplace(point)  # exact: the point's coordinates are rationals
            if val.free_symbols:
                continue
            if not val.is_real:  # a pole or an undefined value at the point itself
                bad = True
            elif "denominator" in kind:
                bad = bool(sp.simplify(val) == 0)
            elif "root" in kind:
                bad = bool(val < 0)
            else:
                bad = bool(val <= 0)
        except (TypeError, ValueError):  # a sign SymPy cannot decide at the point: no point shown
            continue
        if bad:
            where = ", ".join(f"{p.name} = {point[p.symbol]}" for p in dom.params
                              if p.symbol in sp.sympify(base).free_symbols)
            return f"undefined at {where}: {kind} ({prop} fails)"
    return None


def check(directory, certified=None, tactics: dict | None = None, searching: bool = True, log=None,
          compiling: bool = True, ents: dict | None = None, build=None, hints: dict | None = None,
          rests: bool = False) -> dict:
    """The kernel's verdict per step: ``{(statement, step): verdict}`` plus the tactics under the key None.

    Writes the ``.v`` files into ``directory`` (an edited one is rewritten), searches tactics for lemmas without one
    (when ``searching``), compiles each file whose text or ``.vo`` changed in the build folder (``build_dir``) and
    checks every compiled constant against its exported statement and its axioms.  With ``compiling`` False nothing
    is written or run: a step is kernel-checked only when its file's text is what the exporter writes now, the
    ``.vo`` in the build folder is the one coqc wrote for it and the statement check passed on it; else ``not
    checked``.  ``ents``: the entries to check (default every step and fact, ``entries(certified)``); ``build``: the
    build folder (default ``build_dir(directory)``); ``hints``: tactics the search tries first (``search``); ``rests``:
    the caller will ask what the lemmas rest on (``assumptions``), so the statement check prints it
    (``statement_check``)."""
    tactics = dict(load_tactics() if tactics is None else tactics)
    ents = entries(certified) if ents is None else ents
    status: dict = {}
    _static(ents, tactics, status)  # not exported, no tactic, a refused tactic: known before any coqc
    if compiling:
        try:
            directory, build = prepare(directory, build)
        except CoqSetupError as e:
            return _all(ents, f"{NOT_CHECKED}: {e}", status, tactics)
    else:
        directory = Path(directory).resolve() if str(directory).strip() else None
        build = (Path(build) if build else build_dir(directory)) if directory else None
        if not coqc():
            return _all(ents, f"{NOT_CHECKED}: {NO_KERNEL}", status, tactics)
        if build is None or not build.is_dir():
            return _all(ents, f"{NOT_CHECKED}: run slth proofs --coq", status, tactics)
    lems = [l for items in ents.values() for _, _, l in items if isinstance(l, Lemma)]
    if compiling:
        with build_lock(build):
            try:
                with external.reaped():
                    todo = [l for l in lems if l.key not in tactics] if searching else []
                    kept: dict = {}

                    def searched(ls, into=None, ready=None):
                        tactics.update(search(ls, log, tactics, hints, into=into, kept=kept, ready=ready))
                        for l in ls:  # "no tactic" was said before the search: a lemma it proved is compiled
                            if tactics.get(l.key) is not None:
                                status.pop((l.statement, l.step), None)
                    facts = [l for l in todo if l.statement == FACTS]  # Common proves them: searched first
                    if facts:
                        searched(facts)
                    rest = [l for l in todo if l.statement != FACTS]
                    later = (lambda into, ready: searched(rest, into, ready)) if rest else None
                    return _compile_and_check(directory, build, ents, tactics, status, log, rests, later, kept)
            except CoqcFailure as e:
                return _all(ents, f"{NOT_CHECKED}: {e}", status, tactics)
    return _recorded(build, ents, tactics, status)


def _all(ents, verdict, status, tactics):
    for items in ents.values():
        for statement, step, l in items:
            status.setdefault((statement, step), l if not isinstance(l, Lemma) else verdict)
    status[None] = tactics
    return status


def _static(ents, tactics, status):
    """The verdicts known before coqc: not exported, no tactic, a refused tactic."""
    for items in ents.values():
        for statement, step, l in items:
            if not isinstance(l, Lemma):
                status[(statement, step)] = l
                continue
            tac, why = tactic(tactics, l.key)
            if why:
                status[(statement, step)] = f"{REJECTED}: the recorded tactic is not a proof script: {why}"
            elif tac is None:
                status[(statement, step)] = f"{REJECTED}: no tactic of the generated cascade proves it"


def _recorded(build: Path, ents, tactics, status) -> dict:
    """The verdicts of the last compiling run, believed only where the record matches the texts and .vo files now
    (``status``: the verdicts ``_static`` knew before)."""
    state = load_state(build / "state.json")
    files = state.get("files", {}) if isinstance(state.get("files"), dict) else {}
    version = coqc_version()
    if state.get("version") != version:
        files = {}
    common = files.get("Common", {}).get("digest", "") if isinstance(files.get("Common"), dict) else ""
    for stem, items in ents.items():
        rec = files.get(stem, {}) if isinstance(files.get(stem), dict) else {}
        dropped = rec.get("dropped", {}) if isinstance(rec.get("dropped"), dict) else {}
        full = text(stem, items, tactics)
        digest = file_key(full, version, "" if stem == "Common" else common)
        vo_ok = current(rec, digest, build / f"{stem}.vo")
        checked = state.get("checked", {}) if isinstance(state.get("checked"), dict) else {}
        LAST["checked_at"] = str(state.get("check", {}).get("at", "")) if isinstance(state.get("check"), dict) else ""
        for statement, step, l in items:
            if not isinstance(l, Lemma) or (statement, step) in status:
                continue
            if not vo_ok:
                status[(statement, step)] = f"{NOT_CHECKED}: run slth proofs --coq"
            else:
                status[(statement, step)] = _verdict(l, dropped, checked)
    status[None] = tactics
    return status


def _verdict(l: Lemma, dropped: dict, checked: dict) -> str:
    if l.def_name in dropped:
        return f"{NOT_CHECKED}: {dropped[l.def_name]}"
    if l.name in dropped:
        return f"{REJECTED}: {dropped[l.name]}"
    c = checked.get(l.name)
    if c == "ok":
        return KERNEL
    if isinstance(c, str):
        return f"{REJECTED}: {c}"
    return f"{NOT_CHECKED}: run slth proofs --coq"


def _compile_and_check(directory: Path, build: Path, ents, tactics, status, log, rests=False, later=None,
                       kept: dict | None = None) -> dict:
    """Compile each file whose text or ``.vo`` changed (Common first), then the statement check.  ``later(into,
    ready)``: the search of the lemmas without a tactic, run while Common compiles (``into``: the build folder, where
    the search keeps its winners' proofs in libraries, ``kept``; ``ready()`` waits for Common and says whether it
    compiled: the search writes SymPy's cascades meanwhile, and its coqc runs once Common is there): a file is
    compiled with those proofs (``files.text``'s ``found``), its record naming each library with the sha256 of its
    ``.vo``."""
    kept = {} if kept is None else kept
    state_path = build / "state.json"
    state = load_state(state_path, log)
    version = coqc_version()
    files = state.get("files", {}) if state.get("version") == version else {}
    digests: dict = {}
    lock = threading.Lock()

    def one(stem):
        items = ents[stem]
        full = text(stem, items, tactics)
        out_path = directory / f"{stem}.v"
        try:
            if not holds(out_path, full):
                write_atomic(out_path, full)  # what the exporter writes now: an edited file is rewritten
        except OSError as e:
            raise CoqSetupError(f"folder not writable: {directory} ({e.strerror})") from None
        try:
            forms = declarations(full)
        except ValueError as e:
            forms = [str(e)]
        if forms:  # an axiom-declaring form in a generated file: refused before any coqc
            with lock:
                drops[stem] = {l.name: f"an axiom-declaring form in {stem}.v: {forms[0]}" for _, _, l in items
                               if isinstance(l, Lemma)}
                digests[stem] = ""
                files.pop(stem, None)
            return
        common = "" if stem == "Common" else digests.get("Common", "")
        key = file_key(full, version, common)  # Common's too: it is imported
        rec = files.get(stem) if isinstance(files.get(stem), dict) else {}
        dropped: dict = {}
        if current(rec, key, build / f"{stem}.vo") and isinstance(rec.get("dropped"), dict):
            dropped = rec["dropped"]
        else:
            files.pop(stem, None)
            while True:
                kept_items = [(s, t, l) for s, t, l in items if not (isinstance(l, Lemma) and l.name in dropped)]
                src = text(stem, kept_items, tactics, found=kept)
                path = build / f"{stem}.v"
                write_atomic(path, src)
                for ext in (".vo", ".vok", ".vos", ".glob"):
                    (build / f"{stem}{ext}").unlink(missing_ok=True)
                ok, out = compile_file(path, build)
                if ok:
                    libs = libraries(kept_in(kept_items, kept))
                    with lock:
                        files[stem] = {"digest": key, "vo": sha(build / f"{stem}.vo"), "dropped": dropped,
                                       **({"libs": {n: sha(build / f"{n}.vo") for n in libs}} if libs else {})}
                    break
                line, msg = first_error(out, src)
                names = re.findall(r"^Lemma (\w+) :", "\n".join(src.splitlines()[:line]), re.M)
                name = names[-1] if names else None  # the last lemma declared at or before the error's line
                if name is None or name in dropped:
                    for _, _, l in items:
                        if isinstance(l, Lemma):
                            dropped.setdefault(l.name, msg)
                    break
                if name.startswith("def_"):
                    lem = next(l for _, _, l in items if isinstance(l, Lemma) and l.def_name == name)
                    dropped[name] = undefined_point(lem)
                    dropped[lem.name] = "undefined"
                else:
                    dropped[name] = msg
        with lock:
            digests[stem] = files.get(stem, {}).get("digest", "")
            drops[stem] = dropped

    drops: dict = {}
    try:
        if later is None:
            one("Common")
        else:
            with ThreadPoolExecutor(1) as first:
                common = first.submit(one, "Common")

                def ready() -> bool:
                    common.result()
                    return "Common" in files and (build / "Common.vo").exists()
                later(build, ready)
                common.result()
        with external.pool(WORKERS) as pool:
            # the longest proofs first (their text's length as the measure): the largest file is the critical path
            size = {stem: sum(len(str(tactics.get(l.key) or "")) for _, _, l in ents[stem] if isinstance(l, Lemma))
                    for stem in ents}
            list(pool.map(one, sorted((s for s in ents if s != "Common"), key=lambda s: -size[s])))
        checked = check_statements(build, ents, tactics, drops, files, state, version, rests)
    except CoqSetupError as e:
        save_state(state_path, {**state, "version": version, "files": files})
        return _all(ents, f"{NOT_CHECKED}: {e}", status, tactics)
    save_state(state_path, {**state, "version": version, "files": files})
    _unused_libraries(build, files)
    for stem, items in ents.items():
        for statement, step, l in items:
            if isinstance(l, Lemma) and (statement, step) not in status:
                status[(statement, step)] = (_verdict(l, drops.get(stem, {}), checked) if stem in files
                                             or drops.get(stem) else f"{REJECTED}: the file does not compile")
    status[None] = tactics
    return status


def _unused_libraries(build: Path, files: dict) -> None:
    """Remove the search's libraries (``Found_*``) no file's record names."""
    named = {n for rec in files.values() if isinstance(rec, dict) for n in (rec.get("libs") or {})}
    for p in build.glob("Found_*.*"):
        if p.name.split(".")[0] not in named:
            p.unlink(missing_ok=True)


def kernel(steps=None, directory=None, tactics: dict | None = None, searching: bool = False, log=None) -> dict:
    """The kernel's verdict per step, ``{(statement, step): verdict}`` (see the module docstring): ``steps`` a list
    of ``(statement, Step, params)`` outside the catalogue (default: every catalogue step and fact), checked in
    ``directory`` (default a temporary folder)."""
    ents = entries() if steps is None else entries_of(steps)
    if directory is None:
        with tempfile.TemporaryDirectory() as tmp:
            st = check(f"{tmp}/out", tactics=tactics, searching=searching, log=log, ents=ents, build=f"{tmp}/build")
    else:
        st = check(directory, tactics=tactics, searching=searching, log=log, ents=ents)
    st.pop(None, None)
    return st


