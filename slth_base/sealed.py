"""Sealed records: JSON data signed with a secret of this user, so that a file read back from a store or a build
folder is believed only if this user's harness wrote it.

A stored record is data, never code: one line of header, ``SLTH-SEALED 1 <kind> <HMAC-SHA256 hex>``, then the
record's JSON text.  The HMAC covers the kind and the text and is keyed by ``secret()``: 32 random bytes kept in
``$XDG_CONFIG_HOME/slth-harness/store.key`` (``~/.config/slth-harness/store.key``), created on first use with mode
0600, outside every store and build folder.  Anyone who can write a store (a shared cache folder, a cache restored
from elsewhere) but cannot read that file cannot make a record this harness reads back: a SHA-256 of the body, which
anyone can compute, proves nothing.  A key file that is not a regular file of this user readable by this user only
is not used: the process then signs with a key of its own (records live for this process only) and says so once.
``unseal`` checks a record read back; ``read_regular`` reads a store's file."""
from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import secrets
import stat
import warnings
from pathlib import Path

from .files import file_kind

__all__ = ["MAGIC", "KEY_ENV", "key_path", "secret", "seal", "unseal", "read_regular", "SealWarning"]

MAGIC = b"SLTH-SEALED 1 "
KEY_ENV = "SLTH_STORE_KEY"
"""A different key file than the default (tests; a machine whose config folder is not private)."""
LIMIT = 64 << 20
"""The largest stored record read (bytes): a larger file is not a record of this harness."""
_KEY: list = []


class SealWarning(UserWarning):
    """The key file could not be used: records are signed with a key of this process only."""


def key_path() -> Path:
    given = os.environ.get(KEY_ENV, "").strip()
    if given:
        return Path(given)
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "slth-harness" / "store.key"


def _read_key(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, f"{file_kind(st.st_mode)}, not a regular file", str(path))
        if st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise OSError(errno.EPERM, "not private to this user (owner and mode 0600 wanted)", str(path))
        data = os.read(fd, 4096)
    finally:
        os.close(fd)
    key = bytes.fromhex(data.decode("ascii", "replace").strip()) if len(data.strip()) == 64 else b""
    if len(key) != 32:
        raise OSError(errno.EINVAL, "not a key (64 hex digits)", str(path))
    return key


def _make_key(path: Path) -> bytes:
    """A new key written to ``path`` unless another process made one first (a link of a finished temporary file:
    no reader sees half a key); the key in ``path`` either way."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, secrets.token_hex(32).encode() + b"\n")
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)
    return _read_key(path)


def secret() -> bytes:
    """This user's signing key (read once per process; made on first use)."""
    if not _KEY:
        path = key_path()
        try:
            try:
                _KEY.append(_read_key(path))
            except FileNotFoundError:
                _KEY.append(_make_key(path))
        except (OSError, ValueError) as exc:
            warnings.warn(f"store key {path}: {getattr(exc, 'strerror', None) or exc}; stored results are kept for "
                          f"this process only", SealWarning, stacklevel=2)
            _KEY.append(secrets.token_bytes(32))
    return _KEY[0]


def _mac(kind: str, body: bytes) -> str:
    return hmac.new(secret(), kind.encode() + b"\0" + body, hashlib.sha256).hexdigest()


def seal(kind: str, record: dict) -> bytes:
    """The bytes of ``record`` (JSON data) sealed as ``kind``."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":")).encode("utf-8")  # NaN as JSON's NaN token
    return MAGIC + kind.encode() + b" " + _mac(kind, body).encode() + b"\n" + body


def unseal(raw: bytes, kind: str):
    """``(problem, record)``: what is wrong with ``raw`` as a sealed ``kind`` record, or ``(None, the JSON
    object)``; nothing of the body is parsed before its signature is found right."""
    if not raw.startswith(MAGIC):
        return "not a sealed record of this harness (wrong header)", None
    head, newline, body = raw[len(MAGIC):].partition(b"\n")
    parts = head.split(b" ")
    if not newline or len(parts) != 2:
        return "truncated or malformed header", None
    if parts[0] != kind.encode():
        return f"a record of another kind ({parts[0][:40].decode('ascii', 'replace')})", None
    if not hmac.compare_digest(parts[1], _mac(kind, body).encode()):
        return "signature mismatch (truncated, changed or written by someone else)", None
    try:
        record = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        return f"cannot be read back ({type(exc).__name__})", None
    if not isinstance(record, dict):
        return "not a record (a JSON object)", None
    return None, record


def read_regular(path: Path, limit: int = LIMIT) -> bytes | None:
    """The bytes of ``path`` (at most ``limit``), or None when there is none; an ``OSError`` when it is a link, a
    FIFO, a device or a folder, or larger than ``limit``: never followed, never blocking."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "a symbolic link (not followed)", str(path)) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, f"{file_kind(st.st_mode)}, not a regular file", str(path))
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        chunks, left = [], limit + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        return data
    finally:
        os.close(fd)
