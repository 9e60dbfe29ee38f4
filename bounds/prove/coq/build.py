"""The output and build folders of a Coq check: created and checked writable (one line when not), a build folder
outside the output folder per output folder, files written atomically, the sealed build records and the hash of a
compiled file."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from slth_base import settings
from slth_base.files import InputError, locked, read_bounded, replace_file

from .runner import CoqSetupError


def writable_dir(d: Path, what: str) -> None:
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
    writable_dir(p, "output folder")
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


write_atomic = replace_file
"""``write_atomic(path, text)``: a file of an output or build folder written atomically, never through what is there
(a link or a FIFO planted at ``path`` is replaced, what it points at untouched)."""


def current(rec, digest: str, vo: Path) -> bool:
    """Whether a file's record ``rec`` still vouches for it: its key is ``digest``, ``vo`` is the .vo coqc wrote and
    each library it was compiled against (``libs``: the search's, beside it) is the .vo coqc wrote then."""
    libs = rec.get("libs", {}) if isinstance(rec, dict) else {}
    return (isinstance(rec, dict) and rec.get("digest") == digest and bool(rec.get("vo")) and sha(vo) == rec["vo"]
            and isinstance(libs, dict) and all(isinstance(n, str) and "/" not in n and sha(vo.parent / f"{n}.vo") == h
                                               for n, h in libs.items()))


def sha(path: Path) -> str | None:
    """The sha256 of a compiled file (a regular file only), None when there is none to read."""
    try:
        return hashlib.sha256(read_bounded(path, "compiled file", regular=True)).hexdigest()
    except (OSError, InputError):
        return None


BUILD_KIND = "coq-build"
"""The kind of a sealed build record (``slth_base.sealed``): ``state.json`` of a build folder and the mathematics
build's records."""


def load_state(path: Path, log=None) -> dict:
    """A build record written by this user's harness (sealed, ``slth_base.sealed``), or {}: none, or one that is
    not a regular file, not sealed with this user's key (rewritten by hand or by anyone else, whatever digests it
    holds) or not a record; then ``log`` says so and everything it would vouch for is compiled again."""
    from slth_base.sealed import read_regular, unseal
    try:
        raw, problem = read_regular(Path(path)), None
    except OSError as exc:
        raw, problem = b"", f"unreadable ({exc.strerror or exc})"
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
    """Write a build record, sealed with this user's key (``load_state`` believes no other), atomically."""
    from slth_base.sealed import seal
    write_atomic(Path(path), seal(BUILD_KIND, state).decode("utf-8"))


def now() -> str:
    """The time now, UTC, ISO 8601 to the second (when a record is made, a verdict checked)."""
    import datetime
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_lock(build: Path):
    """The build folder held by this process alone (``slth_base.files.locked``: a link planted at the lock's name is
    replaced)."""
    return locked(build / ".lock")


