"""The Coq files of the catalogue, the search for each step's tactic and its record, and the coqc runs: the kernel's
verdict per step.

The API (``kernel``/``check``): for a set of steps (default: every step of every proved statement and every scalar
fact), ``{(statement, step): verdict}``, each verdict one line starting with one of

- ``kernel-checked``: coqc compiled the step's lemma with its recorded tactic and, when a side is defined only in
  part of the reals, its definedness lemma (every denominator nonzero, every ``ln``/``Rpower`` argument positive,
  every ``sqrt`` argument nonnegative, on the declared domain); then a separate check file, compiled against the
  ``.vo`` files, found that each compiled constant has exactly the exported statement (``Check (name : statement)``)
  and that what the constants rest on (``Print Assumptions``) is Coq's standard axioms only;
- ``rejected: <Coq's first error>``: no candidate of the generated cascade proves it, a replayed proof fails, the
  recorded tactic is not a sentence of the proof language, or the compiled constant is not the exported statement;
- ``not checked: <why>``: ``no proof kernel: apt-get install coq libcoq-interval``; ``undefined at <point>`` (or
  ``undefined: ...``: the definedness lemma is not proved); ``coqc timed out after S s``; ``coqc killed by signal
  N``; ``folder not writable: DIR``; ``run slth proofs --coq`` (``compiling`` False and nothing compiled matches);
- ``not exported: <why>``: the harness does not certify it, or the printer refuses a construct.

``verdict_kind(verdict)`` gives the first of those words.  Nothing in an output folder is believed: the ``.v`` files
are written to ``DIR`` for reading (an edited one is rewritten) and compiled from their text as the exporter writes it
now in a build folder outside it (``build_dir(DIR)``: under ``$SLTH_COQ_BUILD``, else ``$XDG_CACHE_HOME/slth/coq``
or ``~/.cache/slth/coq``), whose record (``state.json``) binds each file's text and coqc version to the sha256 of the
``.vo`` coqc wrote; a ``.vo`` that does not match is compiled again.  Every coqc call runs in its own process group
under a time limit (``SLTH_COQC_SECONDS``, default 600; a search batch gets that per lemma), is killed with its
group on a timeout, an exception, SIGINT or SIGTERM, and dies with this process (``PR_SET_PDEATHSIG``).  Files are
written atomically.  ``python -m bounds.prove.coq`` writes the committed files; ``tactics.json`` records the search's
winners, each accepted only when it is a tactic expression (``tactic_problem``)."""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import sympy as sp
from slth_base import settings
from slth_base.files import InputError, holds, locked, read_bounded, read_text, replace_file

from ... import catalogue
from ...core import Step
from ...facts import SCALAR
from .export import NESTED, PRELUDE, Lemma, definedness, lemma
from .assumed import STANDARD, declarations, family, locate_source, qualify  # noqa: F401 (STANDARD: the API)
from .printer import CoqExportError

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = ROOT / "proofs" / "coq"
TACTICS = COMMITTED / "tactics.json"
LOGICAL = "Slth"
KERNEL, REJECTED, NOT_EXPORTED, NOT_CHECKED = "kernel-checked", "rejected", "not exported", "not checked"
NO_KERNEL = "no proof kernel: apt-get install coq libcoq-interval"
TIMEOUT = 8  # seconds per candidate tactic in the search (Coq's timeout: wall-clock)
NESTED_TIMEOUT = 30  # seconds per candidate that carries a cascade of its own (``export.NESTED``)
WORKERS = max(1, min(2, os.cpu_count() or 1))  # at most two coqc at once
FACTS = "facts"
SECONDS_ENV, JOBS_ENV = settings.COQC_SECONDS_ENV, settings.COQ_JOBS_ENV
PROBE_SECONDS = 60.0
"""The time limit of ``coqc --version`` and ``coqc -where`` (a probe, not a compile: ``SLTH_COQC_SECONDS`` is not
its limit, so a short compile limit never reads as a missing proof kernel)."""


class CoqSetupError(ValueError):
    """A folder or an environment the Coq check cannot use (one line, said before any work)."""


class CoqcFailure(RuntimeError):
    """coqc did not finish: timed out or killed (one line: never a verdict on a proof)."""


def verdict_kind(verdict: str) -> str:
    """``kernel-checked``, ``rejected``, ``not checked`` or ``not exported``: the class of a verdict line."""
    for k in (KERNEL, REJECTED, NOT_CHECKED, NOT_EXPORTED):
        if verdict == k or verdict.startswith(k + ":"):
            return k
    raise ValueError(f"not a Coq verdict: {verdict!r}")


# --- coqc: found, time-limited, killed with its group --------------------------------------------------------------

def coqc_seconds() -> float:
    """The time limit of one coqc call (``SLTH_COQC_SECONDS``, ``slth_base.settings.coqc_seconds``; ``CoqSetupError``
    for a value that is not a number of seconds in [1, 86400])."""
    try:
        return settings.coqc_seconds()
    except settings.SettingError as exc:
        raise CoqSetupError(str(exc)) from None


def jobs() -> int:
    """How many coqc run at once in this process (``SLTH_COQ_JOBS``, default ``WORKERS``: two; each coqc that loads
    CoqInterval holds about 0.6 GB, so 1 keeps a run under 1 GB); ``CoqSetupError`` for anything but a whole number
    from 1 to 4 per core (``slth_base.settings.coq_jobs``)."""
    try:
        return settings.coq_jobs(WORKERS)
    except settings.SettingError as exc:
        raise CoqSetupError(str(exc)) from None


_LIVE: set = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()  # set by Ctrl-C or SIGTERM: no coqc starts any more in this process
_SLOTS: dict = {}  # jobs() -> the semaphore every coqc call of this process takes a place in


def _slot() -> threading.BoundedSemaphore:
    n = jobs()
    with _LIVE_LOCK:
        return _SLOTS.setdefault(n, threading.BoundedSemaphore(n))


def _die_with_parent():  # runs in the child before exec: SIGKILL when the thread that started it ends
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 (not Linux: the process group is still killed on every exit path)
        pass


def _kill(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_all(stop: bool = False) -> None:
    """Kill every coqc process group this process started and has not reaped; ``stop``: and start none after
    (Ctrl-C or SIGTERM: a thread waiting for its turn must not start one once the others are killed)."""
    if stop:
        _STOPPING.set()
    with _LIVE_LOCK:
        procs = list(_LIVE)
    for p in procs:
        _kill(p)


LEAN_GC = {"OCAMLRUNPARAM": "o=40"}  # Print Assumptions over CoqInterval's proofs: 0.6 GB instead of 1.1 GB


def run_coqc(args: list, cwd, timeout: float | None = None, env: dict | None = None) -> tuple[int, str]:
    """(exit status, stdout + stderr decoded with replacement) of ``coqc *args``; ``CoqcFailure`` when it runs past
    ``timeout`` (default ``coqc_seconds()``) or is killed by a signal."""
    exe = coqc()
    if not exe:
        raise CoqcFailure(NO_KERNEL)
    limit = coqc_seconds() if timeout is None else timeout
    if any(str(a).endswith(".v") for a in args):
        with _LIVE_LOCK:
            RUNS[0] += 1
    with _slot():  # at most jobs() coqc at once in this process, whichever thread starts them
        return _run_coqc(exe, args, cwd, limit, env)


def _run_coqc(exe, args, cwd, limit, env) -> tuple[int, str]:
    with _LIVE_LOCK:
        if _STOPPING.is_set():
            raise CoqcFailure("coqc not started: interrupted")
        proc = subprocess.Popen([exe, *map(str, args)], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_die_with_parent,
                                env={**os.environ, **env} if env else None)
        _LIVE.add(proc)
    try:
        out, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.communicate()
        raise CoqcFailure(f"coqc timed out after {limit:g} s") from None
    except BaseException:
        _kill(proc)
        proc.wait()
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
    text = out.decode("utf-8", errors="replace")
    if proc.returncode < 0:
        raise CoqcFailure(f"coqc killed by signal {-proc.returncode}")
    return proc.returncode, text


@contextmanager
def _reaped():
    """SIGTERM raised as SystemExit in the main thread, and every coqc group killed when an exception leaves
    (on a normal exit every coqc started inside has been waited for)."""
    old = None
    if threading.current_thread() is threading.main_thread():
        def term(signum, frame):
            raise SystemExit(128 + signum)
        try:
            old = signal.signal(signal.SIGTERM, term)
        except ValueError:
            old = None
    try:
        yield
    except BaseException as e:  # Ctrl-C and SIGTERM also stop any thread from starting another coqc
        kill_all(stop=isinstance(e, (KeyboardInterrupt, SystemExit)))
        raise
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)


@contextmanager
def _pool():
    """A pool of WORKERS threads whose coqc groups are killed before it waits for them, on any exception."""
    with ThreadPoolExecutor(WORKERS) as pool:
        try:
            yield pool
        except (KeyboardInterrupt, SystemExit):
            kill_all(stop=True)
            raise
        except BaseException:
            kill_all()
            raise


RUNS = [0]
"""coqc runs on a ``.v`` file in this process (a compile, the statement check, a query): a kernel verdict is "in this
run" only when one ran for it."""


def coqc() -> str | None:
    return shutil.which("coqc")


_RELEASE: list = []


def coq_release() -> str:
    """``Coq 8.16.1`` (``coqc --print-version``), once per process; "" without coqc."""
    if not _RELEASE:
        try:
            rc, out = run_coqc(["--print-version"], None, timeout=min(60.0, coqc_seconds())) if coqc() else (1, "")
        except CoqcFailure:
            rc, out = 1, ""
        words = out.split()
        _RELEASE.append(f"Coq {words[0]}" if rc == 0 and words else "")
    return _RELEASE[0]


def coqc_version() -> str:
    """The last line of ``coqc --version`` ("" when it prints nothing)."""
    if not coqc():
        return ""
    try:
        rc, out = run_coqc(["--version"], None, timeout=PROBE_SECONDS)
    except CoqcFailure:
        return ""
    return (out.strip().splitlines() or [""])[-1]


def missing_reason() -> str | None:
    """None when coqc and CoqInterval are usable, else one line saying what is missing."""
    if not coqc():
        return f"{NO_KERNEL} (coqc not found)"
    try:
        rc, where = run_coqc(["-where"], None, timeout=PROBE_SECONDS)
    except CoqcFailure as e:
        return f"{NO_KERNEL} (coqc -where: {e})"
    where = where.strip()
    if rc != 0 or not where:
        return f"{NO_KERNEL} (coqc -where printed nothing)"
    if not (Path(where) / "user-contrib" / "Interval").is_dir():
        return f"{NO_KERNEL} (CoqInterval not found under {where}/user-contrib)"
    return None


# --- folders ---------------------------------------------------------------------------------------------------

def _writable_dir(d: Path, what: str) -> None:
    try:
        d.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise CoqSetupError(f"{what} {d} is a file, not a folder") from None
    except RuntimeError:
        raise CoqSetupError(f"{what} {d} is a symlink loop") from None
    except OSError as e:
        if e.errno == 40:
            raise CoqSetupError(f"{what} {d} is a symlink loop") from None
        if isinstance(e, (PermissionError,)) or e.errno in (13, 30):
            raise CoqSetupError(f"folder not writable: {d}") from None
        raise CoqSetupError(f"{what} {d}: {e.strerror}") from None
    if not d.is_dir():
        raise CoqSetupError(f"{what} {d} is not a folder")
    if not os.access(d, os.W_OK | os.X_OK):
        raise CoqSetupError(f"folder not writable: {d}")


def output_dir(directory) -> Path:
    """The resolved output folder, created and writable; ``CoqSetupError`` (one line) for '' , a file, a symlink
    loop or a folder that cannot be written."""
    if directory is None or str(directory).strip() == "":
        raise CoqSetupError("--coq needs a folder name, not ''")
    p = Path(directory)
    try:
        p = p.resolve(strict=False)
    except RuntimeError:
        raise CoqSetupError(f"output folder {directory} is a symlink loop") from None
    except OSError as e:
        raise CoqSetupError(f"output folder {directory}: {e.strerror}") from None
    _writable_dir(p, "output folder")
    return p


def build_root() -> Path:
    try:
        return settings.coq_build() or settings.cache_home() / "slth" / "coq"
    except settings.SettingError as exc:
        raise CoqSetupError(str(exc)) from None


def build_dir(directory) -> Path:
    """Where the files of output folder ``directory`` are compiled (outside it: nothing in it is believed)."""
    key = hashlib.sha256(str(Path(directory).resolve()).encode()).hexdigest()[:16]
    return build_root() / key


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
    _writable_dir(b, "build folder")
    return out, b


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` as the file ``path`` of an output or build folder, atomically and never through what is there
    (a symbolic link or a FIFO planted at ``path`` is replaced, what it points at untouched:
    ``slth_base.files.replace_file``)."""
    replace_file(path, text)


# --- tactics: a sentence of the proof language, nothing else -------------------------------------------------------

VERNACULAR = frozenset("""Abort Admitted Defined Qed Save Proof Lemma Theorem Fact Remark Corollary Proposition Property
Example Definition Fixpoint CoFixpoint Let Axiom Axioms Parameter Parameters Conjecture Conjectures Hypothesis
Hypotheses Variable Variables Context Require Import Export From Section End Module Include Set Unset Local Global
Print Check Eval Compute Search Locate About Ltac Tactic Notation Infix Reserved Arguments Opaque Transparent Strategy
Time Fail Succeed Redirect Timeout Instance Class Existing Hint Goal Restart Undo Back Declare Canonical Coercion
Inductive CoInductive Record Structure Variant Primitive Register Extraction Program Obligation Next Drop Quit Reset
Show Focus Unfocus Add Remove Create Scheme Combined Universe Universes Polymorphic Monomorphic Cumulative Type_Scope
Open Close Bind Delimit Enable Disable Attributes""".split())
FORBIDDEN_TACTICS = frozenset("""admit give_up exact_no_check vm_cast_no_check native_cast_no_check change_no_check
abstract transparent_abstract""".split())
_TACTIC_CHARS = re.compile(r"[A-Za-z0-9_' \t\n()\[\]|;,:=+\-*/^<>?]*")


def tactic_problem(tactic) -> str | None:
    """None when ``tactic`` is one tactic expression of the cascade's vocabulary (identifiers, numbers, the
    punctuation ``( ) [ ] | ; , : = + - * / ^ < > ?``), else why not: a '.' (it would end the proof's sentence and
    start vernacular), a quote, a brace, a comment, a vernacular keyword (``Abort``, ``Lemma``, ``Qed``, ...) or a
    tactic that admits or skips the check (``admit``, ``give_up``, ``exact_no_check``, ...)."""
    if not isinstance(tactic, str) or not tactic.strip():
        return "not a tactic (empty or not text)"
    if "(*" in tactic or "*)" in tactic:
        return "a comment"
    bad = sorted(set(re.sub(r"[A-Za-z0-9_' \t\n()\[\]|;,:=+\-*/^<>?]", "", tactic)))
    if bad:
        return "characters outside a tactic expression: " + " ".join(repr(c) for c in bad)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", tactic))
    if words & VERNACULAR:
        return "vernacular: " + ", ".join(sorted(words & VERNACULAR))
    if words & FORBIDDEN_TACTICS:
        return "a tactic that admits or skips the check: " + ", ".join(sorted(words & FORBIDDEN_TACTICS))
    return None


# --- entries and file texts ------------------------------------------------------------------------------------

def entries(certified=None) -> dict:
    """``{file stem: [(statement, step, Lemma | "not exported: why")]}``, Common (the facts) first."""
    out = {"Common": []}
    for f in SCALAR:
        out["Common"].append(_entry(FACTS, Step(f.name, f.lhs, f.rhs), (f.domain,), certified))
    for name in catalogue.proved():
        st = catalogue.get(name)
        out[name] = [_entry(name, s, st.params, certified) for s in catalogue.proof(name)]
    return out


def entries_of(steps, stem: str = "Steps") -> dict:
    """The entries of steps outside the catalogue (``[(statement, Step, params)]``) in one file ``stem``, beside
    the scalar facts' Common."""
    return {"Common": entries()["Common"], stem: [_entry(st, s, params, None) for st, s, params in steps]}


def _entry(statement: str, step: Step, params: tuple, certified):
    if certified is not None and (statement, step.name) not in certified:
        return statement, step.name, f"{NOT_EXPORTED}: the harness does not certify it"
    try:
        return statement, step.name, lemma(statement, step, params)
    except CoqExportError as e:
        return statement, step.name, f"{NOT_EXPORTED}: {e}"


def load_tactics(path: Path = TACTICS) -> dict:
    """The recorded tactics ``{key: tactic | None}``; an entry that is not a tactic expression is kept as
    ``{"refused": why}`` (the lemma is then rejected, never compiled with it)."""
    if not path.exists():
        return {}
    try:
        raw = json.loads(read_text(path, "recorded tactics"))
    except ValueError as exc:
        raise CoqSetupError(f"{path}: not a JSON object of recorded tactics ({exc})") from None
    if not isinstance(raw, dict):
        raise CoqSetupError(f"{path}: not a JSON object of recorded tactics")
    out = {}
    for k, v in raw.items():
        why = None if v is None else tactic_problem(v)
        out[k] = {"refused": why} if why else v
    return out


def _tactic(tactics: dict, key: str):
    """(tactic or None, why it is refused or None)."""
    t = tactics.get(key)
    if isinstance(t, dict):
        return None, t.get("refused", "not a tactic")
    if t is not None:
        why = tactic_problem(t)
        if why:
            return None, why
    return t, None


def text(stem: str, items: list, tactics: dict, defined: bool = True) -> str:
    """The ``.v`` text of one file: per exported step its definedness lemma (when ``defined``) and its lemma with
    the recorded tactic; a comment for the rest."""
    head = PRELUDE if stem == "Common" else (f"From {LOGICAL} Require Import Common.\n"
                                              "From Coq Require Import Reals Lra.\nFrom Interval Require Import "
                                              "Tactic.\nOpen Scope R_scope.\n")
    title = "scalar facts" if stem == "Common" else f"statement {stem}"
    parts = [f"(* Generated by bounds.prove.coq from the slth-harness catalogue ({title}); do not edit. *)\n", head]
    for statement, step, lem in items:
        if isinstance(lem, Lemma):
            tac, why = _tactic(tactics, lem.key)
            if why:
                parts.append(f"\n(* {statement}:{step}: the recorded tactic is refused: {why} *)\n")
            elif tac is None:  # searched, and no candidate of the cascade proves it
                parts.append(f"\n(* {statement}:{step}: no tactic of the generated cascade proves it *)\n")
            else:
                parts.append(f"\n(* {statement}:{step} *)\n" + (lem.def_proof() if defined else "") + lem.proof(tac))
        else:
            parts.append(f"\n(* {statement}:{step}: {lem} *)\n")
    return "".join(parts)


def write(directory, tactics: dict | None = None, certified=None) -> list[Path]:
    """Write every ``.v`` file into ``directory`` (no coqc); the paths written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tactics = load_tactics() if tactics is None else tactics
    out = []
    for stem, items in entries(certified).items():
        path = directory / f"{stem}.v"
        src = text(stem, items, tactics)
        if not holds(path, src):
            write_atomic(path, src)
        out.append(path)
    return out


# --- the search ------------------------------------------------------------------------------------------------

def search(lems: list[Lemma], log=None, tactics: dict | None = None) -> dict:
    """``{key: tactic}`` for the lemmas (the first candidate that closes each; None: none does).  One coqc run
    per batch of lemmas, each candidate under a timeout; a candidate that is not a tactic expression
    (``tactic_problem``) is never tried.  The scalar facts' lemmas (which the steps apply) are proved with
    ``tactics`` (default: the recorded ones); facts among ``lems`` are searched first, without themselves, and their
    proofs join those of the rest.  ``CoqcFailure`` when a batch's coqc times out or is killed."""
    tactics = dict(load_tactics() if tactics is None else tactics)
    facts = [l for l in lems if l.statement == FACTS]
    if facts and len(facts) < len(lems):
        tactics.update(search(facts, log, tactics))
        rest = search([l for l in lems if l.statement != FACTS], log, tactics)
        return {**{l.key: tactics[l.key] for l in facts}, **rest}
    found: dict = {}
    if not lems:
        return found
    cascades = {lem.key: [c for c in lem.candidates if tactic_problem(c) is None] for lem in lems}
    batches = [b for b in (lems[i::WORKERS] for i in range(WORKERS)) if b]
    with tempfile.TemporaryDirectory() as tmp, _reaped(), _pool() as pool:
        def run(k, batch):
            searched = {x.key for x in facts}
            common = [(s, t, l) for s, t, l in entries()["Common"] if getattr(l, "key", None) not in searched]
            body = [text("Common", common, tactics, defined=False)]  # the prelude and the facts' lemmas
            for lem in batch:
                tries = " | ".join(f"assert_succeeds (timeout {NESTED_TIMEOUT if c in NESTED else TIMEOUT} "
                                   f"(solve [ {c} ])); idtac \"SLTH-WIN {lem.key} {i}\""
                                   for i, c in enumerate(cascades[lem.key]))
                body.append(f"\nGoal {lem.text}.\nProof.\n  intros.\n  first [ {tries} | idtac \"SLTH-WIN {lem.key} -1\" ].\nAbort.\n")
            f = Path(tmp) / f"Search{k}.v"
            f.write_text("".join(body))
            return run_coqc([f], tmp, timeout=coqc_seconds() * len(batch))[1]
        for out in pool.map(lambda kb: run(*kb), enumerate(batches)):
            for key, i in re.findall(r"SLTH-WIN (\w+) (-?\d+)", out):
                lem = next(l for l in lems if l.key == key)
                found[key] = cascades[key][int(i)] if int(i) >= 0 else None
                if log:
                    log(f"{lem.statement}:{lem.step}: " + (f"candidate {i}" if int(i) >= 0 else "no candidate closes it"))
    return found


# --- compiling and checking ------------------------------------------------------------------------------------

def _first_error(out: str, source: str):
    """(line number, Coq's first error line) of a coqc failure."""
    m = re.search(r'line (\d+)', out)
    line = int(m.group(1)) if m else 0
    err = re.search(r"Error:\s*(.*?)(?:\n\n|\Z)", out, re.S)
    msg = " ".join(err.group(1).split()) if err else (out.strip().splitlines() or ["coqc failed"])[-1]
    return line, msg[:300]


def _lemma_at(source: str, line: int) -> str | None:
    name = None
    for k, ln in enumerate(source.splitlines(), 1):
        if k > line:
            break
        m = re.match(r"Lemma (\w+) :", ln)
        if m:
            name = m.group(1)
    return name


def compile_file(path: Path, directory: Path) -> tuple[bool, str]:
    """(compiled, coqc's output) of one file in ``directory``; ``CoqcFailure`` when coqc times out or is killed."""
    rc, out = run_coqc(["-Q", directory, LOGICAL, path], directory)
    return rc == 0, out


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(read_bounded(path, "compiled file", regular=True)).hexdigest()
    except (OSError, InputError):
        return None


BUILD_KIND = "coq-build"
"""The kind of a sealed build record (``slth_base.sealed``): ``state.json`` of a build folder and the mathematics
build's records."""


def _load_state(path: Path, log=None) -> dict:
    """A build record written by this user's harness (sealed, ``slth_base.sealed``), or {}: none, or one that is
    not a regular file, not sealed with this user's key (rewritten by hand or by anyone else, whatever digests it
    holds) or not a record; then ``log`` says so and everything it would vouch for is compiled again."""
    from slth_base.sealed import read_regular, unseal
    try:
        raw = read_regular(Path(path))
    except OSError as exc:
        raw, problem = b"", f"unreadable ({exc.strerror or exc})"
    else:
        problem = None
    if raw is None:
        return {}
    state = None
    if problem is None:
        problem, state = unseal(raw, BUILD_KIND)
    if problem is None and not isinstance(state.get("files", {}), dict):
        problem = "not a record"
    if problem:
        if log:
            log(f"ignored the build record {path}: {problem} (compiling again)")
        return {}
    return state


def save_state(path: Path, state: dict) -> None:
    """Write a build record, sealed with this user's key (``_load_state`` believes no other), atomically."""
    from slth_base.sealed import seal
    write_atomic(Path(path), seal(BUILD_KIND, state).decode("utf-8"))


def undefined_point(lem: Lemma) -> str:
    """``undefined at <point>`` for a definedness condition false at a corner of the domain (each parameter at its
    lower end, or its upper end, integers rounded in), else ``undefined: Coq proves no ... on the domain``."""
    lhs, rhs, dom = lem.sides
    conds = definedness(lhs, rhs)
    for end in ("lo", "hi"):
        point = {}
        ok = True
        for p in dom.params:
            vals = [sp.sympify(v).xreplace(point) for v in (p.lo if end == "lo" or not p.hi else p.hi)]
            if not vals:
                vals = [sp.Integer(1)] if not p.lo else [sp.sympify(p.lo[0]).xreplace(point)]
            v = max(vals) if end == "lo" else min(vals)
            if v.free_symbols:
                ok = False
                break
            if p.integer:
                v = sp.ceiling(v) if end == "lo" else sp.floor(v)
            elif p.lo_open if end == "lo" else p.hi_open:  # inside an open end, where the step must be defined
                v = v + sp.Rational(1, 10**9) * (1 if end == "lo" else -1)
            point[p.symbol] = sp.nsimplify(v)
        if not ok:
            continue
        for prop, base, kind in conds:
            try:
                val = sp.sympify(base).xreplace(point)  # exact: the point's coordinates are rationals
                val = val if val.free_symbols == set() else None
                if val is None:
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
    return "undefined: Coq proves no " + " /\\ ".join(c for c, _, _ in conds) + " on the declared domain"


def check(directory, certified=None, tactics: dict | None = None, searching: bool = True, log=None,
          compiling: bool = True, ents: dict | None = None, build=None) -> dict:
    """The kernel's verdict per step: ``{(statement, step): verdict}`` plus the tactics under the key None.

    Writes the ``.v`` files into ``directory`` (an edited one is rewritten), searches tactics for lemmas without one
    (when ``searching``), compiles each file whose text or ``.vo`` changed in the build folder (``build_dir``) and
    checks every compiled constant against its exported statement and its axioms.  With ``compiling`` False nothing
    is written or run: a step is kernel-checked only when its file's text is what the exporter writes now, the
    ``.vo`` in the build folder is the one coqc wrote for it and the statement check passed on it; else ``not
    checked``.  ``ents``: the entries to check (default every step and fact, ``entries(certified)``); ``build``: the
    build folder (default ``build_dir(directory)``)."""
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
        with _locked(build):
            try:
                with _reaped():
                    todo = [l for l in lems if l.key not in tactics]
                    if todo and searching:
                        tactics.update(search(todo, log, tactics))
                        for l in todo:  # "no tactic" was said before the search: a lemma it proved is compiled
                            if tactics.get(l.key) is not None:
                                status.pop((l.statement, l.step), None)
                    return _compile_and_check(directory, build, ents, tactics, status, log)
            except CoqcFailure as e:
                return _all(ents, f"{NOT_CHECKED}: {e}", status, tactics)
    return _recorded(build, ents, tactics, status)


@contextmanager
def _locked(build: Path):
    with locked(build / ".lock"):  # slth_base.files.locked: a link planted at the lock's name is replaced
        yield


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
            tac, why = _tactic(tactics, l.key)
            if why:
                status[(statement, step)] = f"{REJECTED}: the recorded tactic is not a proof script: {why}"
            elif tac is None:
                status[(statement, step)] = f"{REJECTED}: no tactic of the generated cascade proves it"


def _sources(ents, tactics, dropped_of) -> dict:
    return {stem: text(stem, [(s, t, l) for s, t, l in items
                              if not (isinstance(l, Lemma) and l.name in dropped_of(stem))], tactics)
            for stem, items in ents.items()}


def _recorded(build: Path, ents, tactics, status) -> dict:
    """The verdicts of the last compiling run, believed only where the record matches the texts and .vo files now."""
    _static(ents, tactics, status)
    state = _load_state(build / "state.json")
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
        vo_ok = rec.get("digest") == digest and rec.get("vo") and _sha(build / f"{stem}.vo") == rec.get("vo")
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


def file_key(text_: str, version: str, common: str) -> str:
    """A step file's key in the build record: its text, coqc's version and Common's key ('' for Common itself)."""
    return hashlib.sha256((text_ + version + common).encode()).hexdigest()


def _compile_and_check(directory: Path, build: Path, ents, tactics, status, log) -> dict:
    _static(ents, tactics, status)
    state_path = build / "state.json"
    state = _load_state(state_path, log)
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
        if rec.get("digest") == key and rec.get("vo") and isinstance(rec.get("dropped"), dict) \
                and _sha(build / f"{stem}.vo") == rec["vo"]:
            dropped = rec["dropped"]
        else:
            files.pop(stem, None)
            while True:
                src = text(stem, [(s, t, l) for s, t, l in items
                                  if not (isinstance(l, Lemma) and l.name in dropped)], tactics)
                path = build / f"{stem}.v"
                write_atomic(path, src)
                for ext in (".vo", ".vok", ".vos", ".glob"):
                    (build / f"{stem}{ext}").unlink(missing_ok=True)
                ok, out = compile_file(path, build)
                if ok:
                    with lock:
                        files[stem] = {"digest": key, "vo": _sha(build / f"{stem}.vo"), "dropped": dropped}
                    break
                line, msg = _first_error(out, src)
                name = _lemma_at(src, line)
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
        one("Common")
        with _pool() as pool:
            # the longest proofs first (their text's length as the measure): the largest file is the critical path
            size = {stem: sum(len(str(tactics.get(l.key) or "")) for _, _, l in ents[stem] if isinstance(l, Lemma))
                    for stem in ents}
            list(pool.map(one, sorted((s for s in ents if s != "Common"), key=lambda s: -size[s])))
        checked = _statement_check(build, ents, tactics, drops, files, state, version)
    except CoqSetupError as e:
        _save(state_path, version, files, state)
        return _all(ents, f"{NOT_CHECKED}: {e}", status, tactics)
    _save(state_path, version, files, state)
    for stem, items in ents.items():
        for statement, step, l in items:
            if isinstance(l, Lemma) and (statement, step) not in status:
                status[(statement, step)] = (_verdict(l, drops.get(stem, {}), checked) if stem in files
                                             or drops.get(stem) else f"{REJECTED}: the file does not compile")
    status[None] = tactics
    return status


def _save(path: Path, version: str, files: dict, state: dict) -> None:
    save_state(path, {**state, "version": version, "files": files})


def _statement_check(build: Path, ents, tactics, drops, files, state, version) -> dict:
    """``{lemma name: "ok" | why not}``: a separate file, compiled against the ``.vo`` files, states each compiled
    constant's exported type (``Check (Slth.<file>.<name> : <statement>)``, for the definedness lemma too) and
    prints what each file's constants rest on (``Print Assumptions`` of their tuple); a constant whose type differs
    or a file resting on an axiom beyond Coq's standard ones fails.  Recorded in the build folder's state with the
    ``.vo`` hashes it ran against."""
    rows = []  # (stem, lemma, [(constant, type)])
    for stem, items in ents.items():
        if stem not in files:
            continue
        for _, _, l in items:
            if isinstance(l, Lemma) and l.name not in drops.get(stem, {}) and _tactic(tactics, l.key)[0]:
                consts = [(f"{LOGICAL}.{stem}.{l.name}", l.text)]
                if l.def_text:
                    consts.append((f"{LOGICAL}.{stem}.{l.def_name}", l.def_text))
                rows.append((stem, l, consts))
    key = hashlib.sha256(json.dumps([version, sorted((s, f.get("vo")) for s, f in files.items()),
                                     [(s, c) for s, _, c in rows], locate_source()]).encode()).hexdigest()
    prev = state.get("check", {}) if isinstance(state.get("check"), dict) else {}
    if prev.get("key") == key and isinstance(prev.get("result"), dict):
        state["checked"] = prev["result"]
        LAST["checked_at"] = str(prev.get("at", ""))
        return prev["result"]
    LAST["checked_at"] = _now()
    result: dict = {}
    pending = list(rows)
    while pending:
        stems = sorted({s for s, _, _ in pending} | {"Common"})
        src = [f"From Coq Require Import Reals.\nOpen Scope R_scope.\nFrom {LOGICAL} Require {' '.join(stems)}.\n"
               f"Import {LOGICAL}.Common.\n", locate_source()]
        for stem, l, consts in pending:
            for c, t in consts:
                src.append(f"Check ({c} : {t}).\n")
        consts = [c for _, _, cs in pending for c, _ in cs]
        src.append(f"Definition slth_all := ({', '.join(consts)}, tt).\nPrint Assumptions slth_all.\n")
        path = build / "SlthCheck.v"
        write_atomic(path, "".join(src))
        rc, out = run_coqc(["-Q", build, LOGICAL, path], build, env=LEAN_GC)
        if rc != 0:
            line, msg = _first_error(out, "".join(src))
            text_ = "".join(src).splitlines()
            bad = text_[line - 1] if 0 < line <= len(text_) else ""
            m = re.match(r"Check \((\S+) :", bad)
            culprit = next((r for r in pending if m and m.group(1) in [c for c, _ in r[2]]), None)
            if culprit is None:
                for _, l, _ in pending:
                    result[l.name] = f"the statement check does not compile: {msg}"
                break
            result[culprit[1].name] = f"the compiled constant is not the exported statement: {msg}"
            pending = [r for r in pending if r is not culprit]
            continue
        blocks = read_assumptions(out)
        other = [n for n in (blocks[-1] if blocks else ["(no Print Assumptions output)"]) if family(n) is None]
        if not other:
            result.update({l.name: "ok" for _, l, _ in pending})
        else:  # the union rests on an axiom beyond the standard ones: find the lemmas, one at a time
            per = _print_assumptions(build, [(stem, c) for stem, _, cs in pending for c, _ in cs])
            for stem, l, cs in pending:
                odd = sorted({n for c, _ in cs for n in per.get(c, []) if family(n) is None})
                result[l.name] = "ok" if not odd else f"rests on axioms beyond Coq's standard ones: {', '.join(odd)}"
        break
    state["check"] = {"key": key, "result": result, "at": _now()}
    state["checked"] = result
    return result


def _now() -> str:
    import datetime
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


LAST: dict = {}
"""When the statement check whose verdicts the last ``check`` gave ran (``checked_at``, UTC), read from the build
record or just now."""


def _print_assumptions(build: Path, consts: list, together: bool = False) -> dict:
    """``{constant: [axiom names]}`` by ``Print Assumptions``, one coqc per file (at most two at once), each loading
    only that file's library; ``together``: one query for the tuple of each file's constants (each walk of
    CoqInterval's proofs costs seconds), every constant of the file given the file's list."""
    by: dict = {}
    for stem, c in consts:
        by.setdefault(stem, []).append(c)

    def run(stem):
        if together:
            src = (f"From {LOGICAL} Require {stem}.\n{locate_source()}"
                   f"Definition slth_file := ({', '.join(by[stem])}, tt).\nPrint Assumptions slth_file.\n")
            path = build / f"SlthAxioms_{stem}.v"
            write_atomic(path, src)
            rc, out = run_coqc(["-Q", build, LOGICAL, path], build, env=LEAN_GC)
            if rc != 0:
                raise CoqcFailure(f"Print Assumptions failed: {_first_error(out, src)[1]}")
            names = (read_assumptions(out) or [[]])[-1]
            return {c: names for c in by[stem]}
        src = f"From {LOGICAL} Require {stem}.\n{locate_source()}" + "".join(f"Print Assumptions {c}.\n"
                                                                             for c in by[stem])
        path = build / f"SlthAxioms_{stem}.v"
        write_atomic(path, src)
        rc, out = run_coqc(["-Q", build, LOGICAL, path], build, env=LEAN_GC)
        if rc != 0:
            raise CoqcFailure(f"Print Assumptions failed: {_first_error(out, src)[1]}")
        return dict(zip(by[stem], read_assumptions(out)))
    from .cost import table
    measured = table()  # the longest walks first: the last one to start is a short one

    def longest(stem):
        return -measured.get(f"axioms:{stem}", {}).get("cpu_s", 0.0), -len(by[stem]), stem
    found: dict = {}
    with _pool() as pool:
        for part in pool.map(run, sorted(by, key=longest)):
            found.update(part)
    return found


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


# --- what each kernel-checked lemma rests on (Print Assumptions) -----------------------------------------------

def parse_assumptions(out: str) -> list[list[str]]:
    """The axiom names of each ``Print Assumptions`` block of coqc's output, in order ([] when closed)."""
    blocks: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("Closed under the global context"):
            blocks.append([])
        elif line.startswith("Axioms:"):
            blocks.append([])
        elif blocks and line and not line[0].isspace():
            m = re.match(r"([\w.']+)\s*(?::|$)", line)
            if m and m.group(1) not in blocks[-1]:
                blocks[-1].append(m.group(1))
    return blocks


def read_assumptions(out: str, extra=()) -> list[list[str]]:
    """The axioms of each ``Print Assumptions`` block of a query's output, each by its fully qualified name where
    the query's ``Locate`` answers (``assumed.locate_source``) prove it one of the allowed ones, else as printed
    (``assumed.qualify``)."""
    return qualify(parse_assumptions(out), out, extra)


def assumptions(directory, status: dict) -> dict:
    """``{(statement, step): [axiom names]}`` for every kernel-checked lemma (files compiled by ``check`` into the
    build folder of ``directory``): ``Print Assumptions`` of the tuple of each file's lemmas (what the file's lemmas
    rest on together), and per lemma in a file that rests on an axiom beyond Coq's standard ones; one coqc per file;
    recorded in the build folder's state with the ``.vo`` hashes it ran against."""
    directory = Path(directory).resolve()
    build = build_dir(directory)
    state_path = build / "state.json"
    ents = entries()
    lems = [(s, t, l, stem) for stem, items in ents.items() for s, t, l in items
            if isinstance(l, Lemma) and status.get((s, t)) == KERNEL]
    with _locked(build):
        state = _load_state(state_path)
        files = state.get("files", {}) if isinstance(state.get("files"), dict) else {}
        key = hashlib.sha256(json.dumps([state.get("version"), sorted((s, f.get("vo")) for s, f in files.items()
                                                                        if isinstance(f, dict)),
                                         [l.name for *_, l, _ in lems], locate_source()]).encode()).hexdigest()
        prev = state.get("axioms", {}) if isinstance(state.get("axioms"), dict) else {}
        if prev.get("key") != key or not isinstance(prev.get("lemmas"), dict):
            consts = [(stem, f"{LOGICAL}.{stem}.{l.name}") for *_, l, stem in lems]
            with _reaped():
                per = _print_assumptions(build, consts, together=True)
                odd = {stem for stem, c in consts if any(family(n) is None for n in per[c])}
                if odd:  # a file rests on an axiom beyond the standard ones: which lemmas, one at a time
                    per.update(_print_assumptions(build, [(s, c) for s, c in consts if s in odd]))
            found = {f"{s}\t{t}": per.get(f"{LOGICAL}.{stem}.{l.name}", []) for s, t, l, stem in lems}
            state["axioms"] = prev = {"key": key, "lemmas": found}
            state = {**_load_state(state_path), "axioms": prev}  # the record as it is now, with the axioms
            save_state(state_path, state)
    got = prev["lemmas"]  # in the catalogue's order, read from the record or just found
    return {(s, t): got[f"{s}\t{t}"] for s, t, _, _ in lems if f"{s}\t{t}" in got}


def assumptions_text(axioms: dict, statements=None) -> str:
    """Per statement: the families of Coq axioms its kernel-checked lemmas rest on, and any other axiom by name."""
    lines = ["== Coq: what the kernel-checked lemmas rest on (Print Assumptions)"]
    by: dict = {}
    for (s, t), names in axioms.items():
        by.setdefault(s, []).append((t, names))
    for s, rows in by.items():
        if statements and s not in statements:
            continue
        fams: dict = {}
        other = []
        for t, names in rows:
            for n in names:
                f = family(n)
                if f:
                    fams.setdefault(f, set()).add(n)
                else:
                    other.append(f"{t}: {n}")
        desc = "; ".join(f"{f} ({len(v)})" for f, v in sorted(fams.items())) or "no axioms"
        lines.append(f"  {s}: {len(rows)} lemma(s): Coq's standard axioms only: {desc}" if not other else
                     f"  {s}: {len(rows)} lemma(s): {desc}; OTHER AXIOMS: {', '.join(other)}")
    return "\n".join(lines)
