"""Reading, writing and locking files without trusting what the folder holds: the one place every package does.

Reads are bounded (``read_bounded``, ``read_text``); a file the harness keeps itself (a store entry, a build record,
a page of ``docs/``) is read with ``regular=True``, so a FIFO, a device or a link planted there is refused in one
line, never opened for a blocking read, while a file the user named (``slth report --from <(...)``) may be a stream.
Writes go to a temporary file in the same folder and a rename, so a reader never sees half a file: ``write_atomic``
for an output the user named (a link is written through and kept), ``replace_file`` for a file of the harness's own
folders (never written through: what is at its name is replaced). ``locked`` is the one lock helper.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import tempfile
from pathlib import Path

__all__ = ["InputError", "MAX_BYTES", "read_bounded", "read_text", "holds", "write_atomic", "replace_file", "locked", "file_kind"]

MAX_BYTES = 256 * 2 ** 20
"""The largest file the harness reads, 256 MiB (its largest files, the run records and calibration files, hold well
under 10 MiB): ``/dev/zero`` or a stray disk image named as a record is refused once this much is read, never read
whole."""


class InputError(ValueError):
    """Bad input (a file, an argument or a setting): one line naming it and the problem; exit status 2 on the
    command line."""


def _size(n: int) -> str:
    return f"{n // 2 ** 20} MiB" if n >= 2 ** 20 and n % 2 ** 20 == 0 else f"{n:,} bytes"


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words (``a FIFO``, ``a directory``, ...)."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a plain file"


def _open_regular(path, what: str) -> int:
    """A descriptor of the regular file at ``path`` (no link followed at its last component, no blocking open), or
    ``InputError`` saying what is there instead; ``FileNotFoundError`` passes through."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{what} {path}: a symbolic link, not a regular file (not read)") from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise InputError(f"{what} {path}: {file_kind(st.st_mode)}, not a regular file (not read)")
    os.set_blocking(fd, True)
    return fd


def read_bounded(path, what: str = "file", limit: int | None = None, regular: bool = False) -> bytes:
    """The bytes stored at ``path``, at most ``limit`` (default ``MAX_BYTES``) of them, or ``InputError`` naming
    ``what``, the path and the limit (a larger regular file is refused before reading; a device or a pipe once it
    has given more). ``regular``: refuse anything but a regular file (see the module). ``FileNotFoundError``,
    ``IsADirectoryError`` and other ``OSError`` pass through."""
    limit = MAX_BYTES if limit is None else limit
    fh = os.fdopen(_open_regular(path, what), "rb") if regular else open(path, "rb")
    with fh:
        st = os.fstat(fh.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise InputError(f"{what} {path}: {st.st_size:,} bytes, larger than the {_size(limit)} the harness "
                             "reads at most (not a file the harness wrote?)")
        chunks, total = [], 0
        while chunk := fh.read(min(2 ** 20, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputError(f"{what} {path}: more than the {_size(limit)} the harness reads at most (a "
                                 "device or an endless stream, not a file the harness wrote?)")
    return b"".join(chunks)


def read_text(path, what: str = "file", limit: int | None = None, regular: bool = True) -> str:
    """The UTF-8 text stored at ``path`` (a regular file unless ``regular=False``), or ``InputError`` in one line
    (not a regular file, too large, not UTF-8, unreadable); ``FileNotFoundError`` passes through."""
    try:
        raw = read_bounded(path, what, limit, regular)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise InputError(f"{what} {path}: a directory, not a file") from None
    except OSError as exc:
        raise InputError(f"{what} {path}: cannot be read ({exc.strerror or exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} {path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def holds(path, data: str | bytes) -> bool:
    """Whether ``path`` is a regular file (not a symbolic link, a FIFO or a device: those are never opened) holding
    exactly ``data``."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(payload):
            return False
        return read_bounded(path, "file", max(len(payload), 1), regular=True) == payload
    except (OSError, InputError):
        return False


# --------------------------------------------------------------------------------------------------------- writes

_STREAMS = ("/proc/", "/dev/fd/", "/dev/stdout", "/dev/stderr", "/dev/stdin")


def _through_streams(path: Path) -> bool:
    """Whether ``path`` is, or links (through any chain of links) to, one of this process's streams
    (``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``): written into, never renamed over (a regular file under
    ``/dev/shm`` is an ordinary file)."""
    p = Path(os.path.abspath(path))
    for _ in range(40):
        if str(p).startswith(_STREAMS):
            return True
        if not p.is_symlink():
            return False
        try:
            p = Path(os.path.abspath(p.parent / os.readlink(p)))
        except OSError:
            return False
    return False


def _landing(path: Path, given) -> tuple[Path, bool]:
    """Where a write of the user-named ``path`` lands, and whether it can be atomic: through every symbolic link to
    the file it points at (the link is kept, never replaced by a file), and straight into a device, a pipe or a
    stream such as ``/dev/stdout`` (never replaced: a rename would put a file where the system's device node was)."""
    if _through_streams(path) or (path.exists() and not path.is_file()):
        if path.is_dir():
            raise OSError(errno.EISDIR, "Is a directory", str(given))
        return path, False
    if path.is_symlink():
        try:
            os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OSError(errno.ELOOP, "a loop of symbolic links", str(given)) from None
        real = Path(os.path.realpath(path))
        return real, real.is_file() or not real.exists()
    return path, True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _rename_into(path: Path, payload: bytes, given) -> None:
    """``payload`` into a temporary file beside ``path``, renamed over the entry ``path`` (the entry itself: a link
    there is replaced, not followed). An ``OSError`` names ``given``, never the temporary file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(given)) from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; the result gets an ordinary file's permissions
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, str(given)) from None
        raise


def write_atomic(path, data: str | bytes) -> None:
    """Write ``data`` to the output ``path`` the user named, through a temporary file in the same folder and a
    rename (readers never see half a file). A symbolic link is written through (the file it points at is replaced,
    the link kept); a device, a pipe or ``/dev/stdout`` is written into directly. An ``OSError`` names ``path`` as
    given, never the temporary file (a full disk, a read-only folder). Files in the harness's own folders:
    ``replace_file``."""
    given = path
    path, atomic = _landing(Path(path), given)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if not atomic:
        try:
            with open(path, "wb") as fh:
                fh.write(payload)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(given)) from None
        return
    _rename_into(path, payload, given)


def replace_file(path, data: str | bytes, within=None) -> None:
    """Write ``data`` as the regular file ``path`` in one of the harness's own folders, atomically, never through
    what is there: a symbolic link, a FIFO or a device at ``path`` is replaced by the file (what a link pointed at
    is untouched); a directory there is an ``OSError``. ``within``: the folder ``path`` must stay in; a path whose
    folder resolves outside it (a planted link to another folder) is ``InputError``, nothing written."""
    given = path
    path = Path(os.path.abspath(path))
    if within is not None:
        if not Path(os.path.realpath(path.parent)).is_relative_to(os.path.realpath(within)):
            raise InputError(f"{given}: its folder leads outside {within} (a symbolic link?); not written")
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            raise OSError(errno.EISDIR, "Is a directory", str(given))
    _rename_into(path, data.encode("utf-8") if isinstance(data, str) else data, given)


@contextlib.contextmanager
def locked(path):
    """Hold an exclusive ``flock`` on the lock file ``path`` for the block (made when missing; its folder too). What
    is at its name is never followed: a symbolic link, a FIFO or a device there is removed and a regular file made
    in its place, so a planted link cannot make the lock truncate or block on another file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    for _ in range(3):
        with contextlib.suppress(FileNotFoundError):
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                if stat.S_ISDIR(st.st_mode):
                    raise OSError(errno.EISDIR, "Is a directory", str(path))
                os.unlink(path)
        try:
            fd = os.open(path, flags, 0o666)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EEXIST):  # replaced between the look and the open
                continue
            raise
        if stat.S_ISREG(os.fstat(fd).st_mode):
            break
        os.close(fd)
    else:
        raise OSError(errno.EAGAIN, "a lock file that keeps being replaced by something else", str(path))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
