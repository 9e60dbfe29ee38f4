"""The verifier's verdicts kept on disk between processes, so that a run after an edit of ``bounds/`` verifies
again only the steps the edit changed (and the steps built from them), and reads every other verdict back.

A verdict is stored under a key that holds everything that decides it: ``bounds.prove.verify.verdict_key``, the
verifier's code (``verifier_hash``: read from the files, so any edit of the verifier is a miss), Python's
major.minor and the versions of the libraries the verifier calls (``key_digest``).  A verdict reached after the
time guard cut a stage is not stored (it depends on the machine's speed); one cut by the work budget is.

Where: ``$SLTH_VERDICT_CACHE`` (``off`` turns the cache off), else ``$XDG_CACHE_HOME/slth-harness/verdicts``.  One
file per verdict: JSON data, never code (``bounds.prove.verdict_json``), sealed with this user's key
(``slth_base.sealed``) and written atomically.  A file is validated on read before anything in it is used
(``_read``); one that fails is ignored with one ``VerdictCacheWarning`` naming the file and the problem, and the
verdict is computed again.  The first-pass verdicts and the Coq kernel's (``load_coq``/``store_coq``) share that
one read/write path, and so do the results of ``verify_step(search=False)`` on a step no certificate proves
(``load_unsearched``: a kind of their own, read only where no counterexample is searched for, never as a verdict).
The folder may be deleted at any time.  ``STATS`` counts, per process, the verdicts read
back (``hits``) and those computed (``verified``, with the steps' names in ``steps``).
"""
from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
import datetime
import warnings
from pathlib import Path

from .verdict_json import decode, roundtrip

from slth_base import settings
from slth_base.versions import python_release

__all__ = ["ENV", "FORMAT", "LIBRARIES", "VerdictCacheWarning", "directory", "default_directory", "verifier_files", "verifier_hash",
           "key_digest", "load", "store", "load_unsearched", "store_unsearched", "STATS", "reset_stats", "COQ_ENTRY", "COQ_STATS", "coq_directory",
           "coq_digest", "load_coq", "store_coq"]

ENV = "SLTH_VERDICT_CACHE"
FORMAT = 2
"""Raised when the stored layout changes."""
KIND, COQ_KIND, UNSEARCHED_KIND = "verdict", "coq-verdict", "unsearched"
"""The two kinds of stored verdict and the one kind of stored non-verdict (``slth_base.sealed``: a record of one kind
is never read as another)."""
LIBRARIES = ("sympy", "mpmath", "python-flint")
HERE = Path(__file__).resolve().parents[1]
"""The ``bounds`` package folder."""
ENTRY = "prove.verify"
"""The verifier's top module (dotted, under ``bounds``); its imports inside ``bounds`` (but ``SKIP``) are the
verifier's code."""
SKIP = frozenset({"catalogue"})

STATS: dict = {"hits": 0, "verified": 0, "steps": []}


class VerdictCacheWarning(UserWarning):
    """A stored verdict was unusable: it is ignored and computed again."""


def reset_stats() -> None:
    STATS.update(hits=0, verified=0, steps=[])
    COQ_STATS.update(hits=0, stored=0, checked=0)


def directory() -> Path | None:
    """The folder of the stored verdicts, or None when ``$SLTH_VERDICT_CACHE`` is ``off``."""
    where = settings.verdict_cache()  # checked: a folder (or off), never a file
    if where == "off":
        return None
    return where or default_directory()


def default_directory() -> Path:
    """``$XDG_CACHE_HOME/slth-harness/verdicts`` (``~/.cache/slth-harness/verdicts``)."""
    return settings.cache_home() / "slth-harness" / "verdicts"


def _imports(path: Path, root: Path = HERE) -> set[str]:
    """The dotted names (under ``bounds``) of the modules of ``bounds`` that the module at ``path`` (a module of
    ``bounds``) imports, anywhere in it (lazy imports inside functions too), relatively or as ``bounds.<name>``."""
    package = ".".join(["bounds", *path.resolve().relative_to(root).parts[:-1]])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            try:  # the module imported from, by its absolute name
                module = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            except ImportError:  # relative beyond the package
                continue
            by_name = not node.module or module == "bounds"  # ``from . import x``, ``from bounds import x``: modules
            found.update([f"{module}.{a.name}" for a in node.names] if by_name else [module])
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {name[len("bounds."):] for name in found if name.startswith("bounds.")}


def verifier_files(root: Path = HERE, entry: str = ENTRY) -> list[Path]:
    """``bounds/prove/verify.py`` (or the module ``entry``, dotted under ``bounds``) and every module of ``bounds`` it
    imports, directly or through others (``SKIP`` excepted; a subpackage counts with every file under it), sorted."""
    seen, files, todo = set(), set(), [entry]
    while todo:
        name = todo.pop()
        if name in seen or name in SKIP:
            continue
        seen.add(name)
        path = root.joinpath(*name.split(".")).with_suffix(".py")
        folder = root.joinpath(*name.split("."))
        if path.is_file():
            files.add(path)
            todo.extend(_imports(path, root))
        elif folder.is_dir():  # a subpackage: all of it
            files.update(p for p in folder.rglob("*.py"))
    return sorted(files)


_CODE: dict = {}


def verifier_hash(root: Path = HERE, entry: str = ENTRY) -> str:
    """The SHA-256 of the verifier's source files (names and contents; ``entry``: another top module's, such as the
    Coq exporter's ``COQ_ENTRY``), read once per process."""
    where = root if entry == ENTRY else (root, entry)
    if where not in _CODE:
        h = hashlib.sha256()
        for path in verifier_files(root, entry):
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        _CODE[where] = h.hexdigest()
    return _CODE[where]


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


_VERSIONS: list = []


def versions() -> tuple:
    if not _VERSIONS:
        _VERSIONS.append((("python", python_release()),) + tuple((n, _version(n)) for n in LIBRARIES))
    return _VERSIONS[0]


def key_digest(key: tuple, code: str | None = None, libraries: tuple | None = None) -> str:
    """The file name of the verdict under ``key`` (``verdict_key``'s tuple of strings and numbers), the verifier's
    code hash and the libraries' versions: a SHA-256."""
    text = repr(("slth-verdict", FORMAT, key, verifier_hash() if code is None else code,
                 versions() if libraries is None else libraries))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _path(folder: Path, digest: str) -> Path:
    return folder / digest[:2] / f"{digest}.json"


def _valid(value) -> str | None:
    """What is wrong with a stored verdict tuple, or None (``bounds.prove.verify``'s per-process cache entry:
    method, ok, detail, box, counterexample, domain, margin, certificate, arb)."""
    if not isinstance(value, tuple) or len(value) != 9:
        return "not a verdict (a tuple of 9 fields)"
    method, ok, detail, box, cex, domain, margin, cert, arb = value
    problems = [(not isinstance(method, str), "method"), (not isinstance(ok, bool), "ok"),
                (not isinstance(detail, str), "detail"), (not isinstance(box, dict), "box"),
                (cex is not None and not isinstance(cex, dict), "counterexample"),
                (not isinstance(domain, str), "domain"),
                (margin is not None and not isinstance(margin, (int, float)), "margin"),
                (cert is not None and not isinstance(cert, tuple), "certificate"), (not isinstance(arb, str), "arb")]
    bad = [name for wrong, name in problems if wrong]
    return f"field(s) of the wrong type: {', '.join(bad)}" if bad else None


# --- the one read/write path of both kinds of stored verdict ----------------------------------------------------

def _read(kind: str, folder: Path | None, digest: str, decode, what: str):
    """The payload stored as ``kind`` under ``digest`` in ``folder``, decoded by ``decode`` (which raises
    ``ValueError`` or returns ``(problem, value)``), or None: none stored, the store off, or a file that is not a
    regular file, is not sealed by this user's harness (``slth_base.sealed``), names another key or holds no
    verdict (then one ``VerdictCacheWarning`` names the file and the problem, and ``what`` is computed again)."""
    if folder is None:
        return None
    from slth_base.sealed import read_regular, unseal
    path = _path(folder, digest)
    try:
        raw = read_regular(path)
    except OSError as exc:
        _note(path, f"unreadable ({exc.strerror or exc})", what)
        return None
    if raw is None:
        return None
    problem, record = unseal(raw, kind)
    if problem is None and (record.get("key") != digest or record.get("format") != FORMAT):
        problem = "stored under another key"  # checked before anything of the entry is used
    if problem is None:
        try:
            problem, value = decode(record.get("value"))
        except Exception as exc:  # noqa: BLE001 - any malformed value makes the file unusable, never a crash
            problem = f"cannot be read back ({type(exc).__name__}: {str(exc)[:80]})"
    if problem:
        _note(path, problem, what)
        return None
    return value


def _write(kind: str, folder: Path | None, digest: str, data) -> bool:
    """Store ``data`` (JSON data) as ``kind`` under ``digest``, sealed, atomically; a folder that cannot be written is
    noted once per process.  True when written."""
    if folder is None:
        return False
    from slth_base.files import replace_file as write_atomic  # an entry is replaced, never written through
    from slth_base.sealed import seal

    path = _path(folder, digest)
    try:
        if path.is_symlink() or (path.exists() and not path.is_dir() and not path.is_file()):
            path.unlink()  # a link or a FIFO planted in the store: replaced, never written through
        write_atomic(path, seal(kind, {"format": FORMAT, "key": digest, "value": data}))
    except OSError as exc:
        if not STATS.get("unwritable"):
            STATS["unwritable"] = True
            warnings.warn(f"verdict cache {folder}: cannot write ({exc.strerror or exc}); verdicts are not kept",
                          VerdictCacheWarning, stacklevel=3)
        return False
    return True


def _note(path: Path, problem: str, what: str = "verified") -> None:
    warnings.warn(f"verdict cache {path}: {problem}; ignored, {what} again", VerdictCacheWarning, stacklevel=4)


def _decode_verdict(data):
    value = decode(data)
    problem = _valid(value)
    return (problem, None) if problem else (None, value)


def load(key: tuple):
    """The stored verdict under ``key``, or None (none stored, the cache off, or the file unusable: then a
    ``VerdictCacheWarning`` names it and the problem)."""
    value = _read(KIND, directory(), key_digest(key), _decode_verdict, "verified")
    if value is not None:
        STATS["hits"] += 1
    return value


def store(key: tuple, value: tuple, name: str = "", keep: bool = True) -> None:
    """Count one verification (``STATS``, the step's ``name``) and store ``value`` (a verdict tuple) under ``key``
    unless ``keep`` is False (a verdict reached past the time guard).  A value that does not come back equal from its
    JSON form is not stored; a cache that cannot be written (a read-only folder, a full disk) is noted once and
    otherwise ignored."""
    STATS["verified"] += 1
    STATS["steps"].append(name)
    folder = directory()
    if not keep or folder is None or _valid(value):
        return
    data = roundtrip(value)
    if data is not None:
        _write(KIND, folder, key_digest(key), data)


def _decode_unsearched(data):
    problem, value = _decode_verdict(data)
    if problem is None and (value[0] != "unsearched" or value[1] or value[4] is not None):
        problem, value = "not an unsearched result (method unsearched, not ok, no counterexample)", None
    return problem, value


def _unsearched_digest(key: tuple) -> str:
    return key_digest(("unsearched", key))


def load_unsearched(key: tuple):
    """The stored result of ``verify_step(search=False)`` under ``key`` where no certificate proved the step (method
    ``unsearched``, not ok, no counterexample), or None.  Never a verdict: the full verifier does not read it."""
    return _read(UNSEARCHED_KIND, directory(), _unsearched_digest(key), _decode_unsearched, "verified")


def store_unsearched(key: tuple, value: tuple, keep: bool = True) -> None:
    """Store such a result (``keep`` False: a stage was cut by the time guard, so it depends on the machine)."""
    folder = directory()
    data = roundtrip(value) if keep and folder is not None else None
    if data is not None and _decode_unsearched(data)[0] is None:
        _write(UNSEARCHED_KIND, folder, _unsearched_digest(key), data)


# --- the Coq kernel's verdicts per lemma ------------------------------------------------------------------------

COQ_ENTRY = "prove.coq.check"
"""The Coq exporter and checker's top module (dotted, under ``bounds``): its source and that of every module of
``bounds`` it imports (the exporter, the printer, the facts, ...; the statements' catalogue excepted) is part of the
key of a stored kernel verdict."""
COQ_STATS: dict = {"hits": 0, "stored": 0, "checked": 0}
"""Per process: kernel verdicts read back (``hits``), written (``stored``) and Coq checks run (``checked``: calls of
``bounds.prove.coq.check.check`` by ``bounds.prove.kernel.replay``)."""


def coq_directory() -> Path | None:
    """The folder of the stored kernel verdicts (``coq/`` in ``directory()``), or None when the cache is off."""
    folder = directory()
    return None if folder is None else folder / "coq"


def coq_digest(material: tuple, code: str | None = None) -> str:
    """The file name of a kernel verdict: a SHA-256 of ``material`` (what Coq compiles for the lemma and Coq's
    versions: ``bounds.prove.kernel.lemma_keys``) and of the exporter's code (``verifier_hash(entry=COQ_ENTRY)``, or
    ``code``)."""
    text = repr(("slth-coq-verdict", FORMAT, material, verifier_hash(entry=COQ_ENTRY) if code is None else code))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _decode_coq(data):
    if not isinstance(data, dict) or set(data) != {"verdict", "coq", "checked_at"} \
            or not all(isinstance(v, str) for v in data.values()):
        return "not a kernel verdict (verdict, coq, checked_at)", None
    verdict = data["verdict"]
    if not (verdict == "kernel-checked" or verdict.startswith("rejected: ")):
        return "not a kernel verdict (kernel-checked or rejected: ...)", None
    return None, data


def load_coq(digest: str) -> dict | None:
    """The kernel verdict stored under ``digest``: ``{"verdict": "kernel-checked" or "rejected: ...", "coq": Coq's
    version, "checked_at": when coqc checked it (UTC, ISO 8601)}``, or None (none stored, the cache off, or an
    unusable file: then a ``VerdictCacheWarning`` names it and the problem)."""
    found = _read(COQ_KIND, coq_directory(), digest, _decode_coq, "checked")
    if found is not None:
        COQ_STATS["hits"] += 1
    return found


def store_coq(digest: str, verdict: str, coq: str = "", checked_at: str | None = None) -> None:
    """Store a kernel verdict ("kernel-checked" or "rejected: ...") under ``digest``, with Coq's version ``coq`` and
    when coqc checked it (default now); anything else (not checked, not exported: no verdict of Coq on the lemma)
    is not stored.  A folder that cannot be written is noted once."""
    if not (verdict == "kernel-checked" or verdict.startswith("rejected: ")):
        return
    when = checked_at or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if _write(COQ_KIND, coq_directory(), digest, {"verdict": verdict, "coq": coq, "checked_at": when}):
        COQ_STATS["stored"] += 1
