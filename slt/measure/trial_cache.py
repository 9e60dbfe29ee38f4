"""Seeded trials kept on disk, content-addressed: a block of trials (``trial(seed + k, C, **params)`` for k < n), or
any seeded measurement returning a list of ``Case`` (``call(fn, *args)``: a deterministic check's cases at a drawn
point, a chain), is computed once and read back by every later run whose code and inputs are the same.

The key is the SHA-256 of: the function's name (``module:function``; a ``functools.partial`` with the names of the
functions and the values it binds), the arguments (C, the parameters, the seeds, the count); the SHA-256 of the
source of every module of ``slt`` and ``bounds`` each named function's module imports,
directly or through others (``closure``: found by reading the files' import statements, lazy ones included; a
package's ``__init__.py`` with each of its modules), so that an edit of any code that decides a trial (a width in
``bounds/``, the solver, a sampler, the statement's measurement) is a miss; Python's major.minor
(``slth_base.versions.python_release``: a patch release changes no arithmetic) and the versions of NumPy, SciPy,
Numba, SymPy, mpmath and python-flint.  Only module-level functions (or partials of them) with JSON arguments are
stored (a lambda, a closure or a planted solver, as the tests that make checks fail use, is always computed).

On: ``$SLTH_TRIAL_CACHE`` names the folder (``checks/conftest.py`` sets it for the checks, by default to
``~/.cache/slth-harness/trials``); unset or ``off``, nothing is read or written.  Each block is one file
``<first two hex digits>/<key>.json``: JSON data sealed with this user's key (``slth_base.sealed``), written atomically,
and only when its cases read back exactly; a file that does not read back (not a regular file, garbage, a seal that
does not match, as a checksum anyone can compute never does, another key, a case of the wrong shape) is ignored with
a ``TrialCacheWarning`` naming it and the problem, and computed again.  ``STATS``
counts the results read back and computed in this process.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import warnings
from pathlib import Path

from slth_base import settings
from slth_base.versions import python_release
from slth_base.sealed import read_regular, seal, unseal
from slt.cache import fingerprint
from slth_base.files import replace_file as write_atomic  # an entry is replaced, never written through

KIND = "trials"
"""The kind of a sealed trial-cache entry (``slth_base.sealed``)."""
from slt.measure.evidence import Case

__all__ = ["ENV", "FORMAT", "LIBRARIES", "TrialCacheWarning", "directory", "closure", "code_hash", "describe", "key",
           "call", "block", "cases", "STATS", "default_directory"]

ENV = "SLTH_TRIAL_CACHE"
FORMAT = 1
PACKAGES = ("slt", "bounds")
"""Code outside these packages (NumPy, SciPy, ...) enters the key by its version."""
LIBRARIES = ("numpy", "scipy", "numba", "sympy", "mpmath", "python-flint")
ROOT = Path(__file__).resolve().parents[2]
STATS: dict = {"hits": 0, "computed": 0}


class TrialCacheWarning(UserWarning):
    """A stored block of trials was unusable: it is ignored and computed again."""


def default_directory() -> Path:
    return settings.cache_home() / "slth-harness" / "trials"


def directory() -> Path | None:
    """The folder of stored trials, or None (``$SLTH_TRIAL_CACHE`` unset or ``off``)."""
    where = settings.trial_cache()  # checked: a folder (or off), never a file
    return None if where in (None, "off") else where


def _imported(path: Path, module: str) -> set[str]:
    """Dotted names ``path`` (the source of ``module``) imports from ``PACKAGES``, as modules or as names that may
    be modules (``from slt.measure import calibration``)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return {m for m in out if m.split(".")[0] in PACKAGES}


@functools.lru_cache(maxsize=None)
def closure(module: str, root: Path = ROOT) -> tuple[Path, ...]:
    """The source files of ``module`` and of every module of ``PACKAGES`` it imports, directly or through others
    (each with the ``__init__.py`` of its packages), sorted."""
    seen, files, todo = set(), set(), [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        for k in range(1, len(parts) + 1):  # the packages above it run first
            init = root.joinpath(*parts[:k], "__init__.py")
            if init.is_file() and init not in files:
                files.add(init)
                todo.extend(_imported(init, ".".join(parts[:k])))
        path = next((p for p in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py"))
                     if p.is_file()), None)
        if path is not None and path not in files:
            files.add(path)
            todo.extend(_imported(path, name))
            todo.extend(_discovered(name, root))
    return tuple(sorted(files))


def _discovered(module: str, root: Path) -> list[str]:
    """The modules a catalogue imports by discovery rather than by name: ``bounds.catalogue`` every module of
    ``bounds`` that assigns ``DECLARED``, ``slt.measure.catalogue`` every module of ``slt.measure.statements``
    (an edit of a statement's constants changes the trials that read it through the catalogue)."""
    if module == "bounds.catalogue":
        from bounds.catalogue import DECLARES
        return [f"bounds.{p.stem}" for p in sorted((root / "bounds").glob("*.py"))
                if DECLARES.search(p.read_text(encoding="utf-8"))]
    if module == "slt.measure.catalogue":
        return [f"slt.measure.statements.{p.stem}" for p in sorted((root / "slt" / "measure" / "statements").glob("*.py"))
                if p.stem != "__init__"]
    return []


@functools.lru_cache(maxsize=None)
def code_hash(module: str, root: Path = ROOT) -> str:
    """The SHA-256 of the source files of ``closure(module)`` (names and contents), read once per process."""
    h = hashlib.sha256()
    for path in closure(module, root):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def versions() -> dict:
    def version(name):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None
    return {"python": python_release(), **{n: version(n) for n in LIBRARIES}}


def _name(fn) -> str | None:
    """``module:function`` of a module-level function that this name resolves back to, else None."""
    module, qual = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not module or not qual or "<" in qual or "." in qual:
        return None
    try:
        found = getattr(importlib.import_module(module), qual, None)
    except ImportError:
        return None
    return f"{module}:{qual}" if found is fn else None


class _Unnamed(Exception):
    pass


def describe(fn):
    """A JSON description of ``fn``: a module-level function (``{"fn": "module:function"}``) or a
    ``functools.partial`` of one whose arguments are such functions or JSON values; raises ``_Unnamed`` otherwise."""
    if isinstance(fn, functools.partial):
        return {"partial": describe(fn.func), "args": [_argument(a) for a in fn.args],
                "kwargs": {k: _argument(v) for k, v in sorted(fn.keywords.items())}}
    name = _name(fn)
    if name is None:
        raise _Unnamed(repr(fn))
    return {"fn": name}


def _argument(value):
    if callable(value):
        return describe(value)
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise _Unnamed(repr(value)) from None
    return value


def _modules(description) -> set[str]:
    if isinstance(description, dict):
        own = {description["fn"].split(":")[0]} if isinstance(description.get("fn"), str) else set()
        return own.union(*map(_modules, description.values()))
    return set().union(*map(_modules, description)) if isinstance(description, list) else set()


def key(fn, *args, **kwargs) -> str | None:
    """The key of ``fn(*args, **kwargs)``, or None when it cannot be stored (a function that is not module-level,
    arguments that are not JSON)."""
    try:
        what = describe(fn)
        return fingerprint(FORMAT, what, args, kwargs, sorted([m, code_hash(m)] for m in _modules(what)), versions())
    except (_Unnamed, ValueError, TypeError):
        return None


FIELDS = tuple(f.name for f in dataclasses.fields(Case))
TUPLE = "__tuple__"


def _encode(value):
    """``value`` with every tuple marked (JSON has lists only), so that a case reads back exactly."""
    if isinstance(value, tuple):
        return {TUPLE: [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


def _decoded(value):
    if isinstance(value, dict):
        if set(value) == {TUPLE} and isinstance(value[TUPLE], list):
            return tuple(_decoded(v) for v in value[TUPLE])
        return {k: _decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def _decode(stored: dict, k: str):
    if stored.get("key") != k:
        return "stored under another key", None
    rows = stored["result"]
    if not isinstance(rows, list):
        return "not a list of cases", None
    out = []
    for row in rows:
        if not isinstance(row, dict) or set(row) != set(FIELDS):
            return "a case of the wrong shape", None
        if not isinstance(row["violated"], bool) or not all(isinstance(row[f], (int, float)) and not
                                                            isinstance(row[f], bool) for f in ("measured", "bound")):
            return "a case whose numbers or verdict are of the wrong type", None
        out.append(Case(**_decoded(row)))
    return None, out


def call(fn, *args, **kwargs) -> list:
    """``fn(*args, **kwargs)`` (a list of ``Case``), read back from the folder when stored there, else computed
    (and stored when it reads back exactly)."""
    return _call(fn, args, kwargs, None)


def _call(fn, args: tuple, kwargs: dict, compute) -> list:
    """``call``; ``compute()``, when given, computes instead of ``fn``: ``(cases, whether they are fn's whole
    result)``, stored only when whole."""
    folder = directory()
    k = key(fn, *args, **kwargs) if folder is not None else None
    if k is not None:
        path, raw, problem, out = folder / k[:2] / f"{k}.json", None, None, None
        try:
            raw = read_regular(path)
        except OSError as exc:
            problem = f"unreadable ({exc.strerror or exc})"
        if raw is not None:
            problem, stored = unseal(raw, KIND)  # the seal, then the key, before anything of the entry is used
            if problem is None:
                try:
                    problem, out = _decode(stored, k)
                except (KeyError, TypeError, ValueError) as exc:
                    problem, out = f"cannot be read back ({type(exc).__name__})", None
        if problem:
            warnings.warn(f"trial cache {path}: {problem}; ignored, computed again", TrialCacheWarning, stacklevel=2)
        if out is not None:
            STATS["hits"] += 1
            return out
    out, whole = compute() if compute is not None else (fn(*args, **kwargs), True)
    STATS["computed"] += 1
    if k is not None and whole and isinstance(out, list) and all(isinstance(c, Case) for c in out):
        rows = [_encode({f: getattr(c, f) for f in FIELDS}) for c in out]
        try:
            if [Case(**_decoded(r)) for r in json.loads(json.dumps(rows, allow_nan=True))] == out:  # reads back exactly
                if path.is_symlink() or (path.exists() and not path.is_dir() and not path.is_file()):
                    path.unlink()  # a link or a FIFO planted in the store: replaced, never written through
                write_atomic(path, seal(KIND, {"key": k, "result": rows}))
        except (TypeError, ValueError, OSError):
            pass
    return out


def block(trial, seed: int, C: float, params: dict, trials: int) -> list:
    """``[trial(seed + k, C, **params) for k in range(trials)]``: one block of independent trials."""
    return [trial(seed + k, C, **params) for k in range(trials)]


def cases(trial, C: float, params: dict, seed: int, trials: int, stop_at: int | None = None) -> list:
    """The block ``block(trial, seed, C, params, trials)``, read back when stored (``call``).  ``stop_at``: when the
    block is computed, it stops at the trial that brings the failures to ``stop_at`` (the others are not run, and
    that shorter block is not stored)."""
    fn = functools.partial(block, trial)
    if stop_at is None:
        return call(fn, seed, C, params, trials)

    def until():
        out, failures = [], 0
        for k in range(trials):
            out.append(trial(seed + k, C, **params))
            failures += out[-1].violated
            if failures >= stop_at:
                break
        return out, len(out) == trials
    return _call(fn, (seed, C, params, trials), {}, until)
