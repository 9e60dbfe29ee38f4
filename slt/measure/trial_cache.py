"""Seeded trials kept on disk, content-addressed: a block of trials (``trial(seed + k, C, **params)`` for k < n) is
computed once and read back by every later run whose code and inputs are the same.

The key of a block is the SHA-256 of: the trial function's name (``module:function``), C, the parameters, the first
seed and the count; the SHA-256 of the source of every module of ``slt`` and ``bounds`` the trial's module imports,
directly or through others (``closure``: found by reading the files' import statements, lazy ones included; a
package's ``__init__.py`` with each of its modules), so that an edit of any code that decides a trial (a width in
``bounds/``, the solver, a sampler, the statement's measurement) is a miss; and the versions of Python, NumPy, SciPy,
Numba, SymPy and mpmath.  Only module-level trial functions with JSON parameters are stored (a ``functools.partial``
or a planted solver, as the tests that make checks fail use, is always computed).

On: ``$SLTH_TRIAL_CACHE`` names the folder (``checks/conftest.py`` sets it for the checks, by default to
``~/.cache/slth-harness/trials``); unset or ``off``, nothing is read or written.  Each block is one file
``<first two hex digits>/<key>.json`` written atomically with the checksum of its content (``slt.cache``); a file
that does not read back (garbage, a checksum mismatch, another key, a case of the wrong shape) is ignored with a
``TrialCacheWarning`` naming it and the problem, and the block is computed again.  ``STATS`` counts the blocks read
back and computed in this process.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import warnings
from pathlib import Path

from slt.cache import CorruptRecord, fingerprint, read_record, write_record
from slt.measure.evidence import Case

__all__ = ["ENV", "FORMAT", "LIBRARIES", "TrialCacheWarning", "directory", "closure", "code_hash", "key", "cases",
           "STATS", "default_directory"]

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
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "slth-harness" / "trials"


def directory() -> Path | None:
    """The folder of stored trials, or None (``$SLTH_TRIAL_CACHE`` unset or ``off``)."""
    where = os.environ.get(ENV, "").strip()
    return None if where.lower() in ("", "off", "0", "no", "false") else Path(where)


def _file(module: str, root: Path) -> Path | None:
    parts = module.split(".")
    for path in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
        if path.is_file():
            return path
    return None


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
        path = _file(name, root)
        if path is not None and path not in files:
            files.add(path)
            todo.extend(_imported(path, name))
    return tuple(sorted(files))


@functools.lru_cache(maxsize=None)
def code_hash(module: str) -> str:
    h = hashlib.sha256()
    for path in closure(module):
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def versions() -> dict:
    def version(name):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None
    return {"python": platform.python_version(), **{n: version(n) for n in LIBRARIES}}


def _name(trial) -> str | None:
    """``module:function`` of a module-level function that this name resolves back to, else None."""
    module, qual = getattr(trial, "__module__", None), getattr(trial, "__qualname__", None)
    if not module or not qual or "<" in qual or "." in qual:
        return None
    try:
        found = getattr(importlib.import_module(module), qual, None)
    except ImportError:
        return None
    return f"{module}:{qual}" if found is trial else None


def key(trial, C: float, params: dict, seed: int, trials: int) -> str | None:
    """The key of a block of trials, or None when it cannot be stored (not a module-level function, parameters
    that are not JSON)."""
    name = _name(trial)
    if name is None:
        return None
    try:
        return fingerprint(FORMAT, name, C, params, seed, trials, code_hash(name.split(":")[0]), versions())
    except (ValueError, TypeError):
        return None


def _path(folder: Path, k: str) -> Path:
    return folder / k[:2] / f"{k}.json"


FIELDS = tuple(f.name for f in dataclasses.fields(Case))


def _decode(stored: dict, k: str, trials: int):
    if stored.get("key") != k:
        return "stored under another key", None
    rows = stored["result"]
    if not isinstance(rows, list) or len(rows) != trials:
        return f"not {trials} cases", None
    out = []
    for row in rows:
        if not isinstance(row, dict) or set(row) != set(FIELDS):
            return "a case of the wrong shape", None
        if not isinstance(row["violated"], bool) or not all(isinstance(row[f], (int, float)) and not
                                                            isinstance(row[f], bool) for f in ("measured", "bound")):
            return "a case whose numbers or verdict are of the wrong type", None
        out.append(Case(**row))
    return None, out


def cases(trial, C: float, params: dict, seed: int, trials: int) -> list:
    """``[trial(seed + k, C, **params) for k in range(trials)]``, read back from the folder when stored there."""
    folder = directory()
    k = key(trial, C, params, seed, trials) if folder is not None else None
    if k is not None:
        path = _path(folder, k)
        try:
            problem, out = _decode(read_record(path), k, trials)
        except FileNotFoundError:
            problem, out = None, None
        except (CorruptRecord, OSError) as exc:
            problem, out = str(exc), None
        if problem:
            warnings.warn(f"trial cache {path}: {problem}; ignored, computed again", TrialCacheWarning, stacklevel=2)
        if out is not None:
            STATS["hits"] += 1
            return out
    out = [trial(seed + j, C, **params) for j in range(trials)]
    STATS["computed"] += 1
    if k is not None:
        rows = [dataclasses.asdict(c) for c in out]
        try:
            text = json.dumps(rows, allow_nan=True)
            if [Case(**r) for r in json.loads(text)] == out:  # stored only when it reads back exactly
                write_record(path, {"key": k, "fn": _name(trial), "C": C, "seed": seed, "result": rows})
        except (TypeError, ValueError, OSError):
            pass
    return out
