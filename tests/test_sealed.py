"""slth_base.sealed: a stored record is JSON data signed with this user's key; anything else (another kind, another key, a
checksum anyone can compute, a changed byte) is refused before its body is parsed, and a key file that others could
read or write is not used."""
from __future__ import annotations

import hashlib
import json
import os

import pytest

from slth_base import sealed


@pytest.fixture
def key(tmp_path, monkeypatch):
    monkeypatch.setenv(sealed.KEY_ENV, str(tmp_path / "cfg" / "store.key"))
    monkeypatch.setattr(sealed, "_KEY", [])
    yield tmp_path / "cfg" / "store.key"


def test_a_sealed_record_reads_back_and_the_key_file_is_private(key):
    raw = sealed.seal("demo", {"key": "k", "value": [1, 2.5, None]})
    assert sealed.unseal(raw, "demo") == (None, {"key": "k", "value": [1, 2.5, None]})
    assert key.is_file() and key.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("damage", ["another kind", "another key", "a checksum anyone can compute", "a changed byte",
                                    "truncated", "no header"])
def test_anything_not_sealed_here_is_refused(key, monkeypatch, damage):
    raw = sealed.seal("demo", {"ok": True})
    body = raw.split(b"\n", 1)[1]
    if damage == "another kind":
        problem, _ = sealed.unseal(raw, "other")
    else:
        if damage == "another key":
            monkeypatch.setattr(sealed, "_KEY", [b"x" * 32])
            raw = sealed.seal("demo", {"ok": False})
            monkeypatch.setattr(sealed, "_KEY", [])
        elif damage == "a checksum anyone can compute":
            body = json.dumps({"ok": False}).encode()
            raw = sealed.MAGIC + b"demo " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
        elif damage == "a changed byte":
            raw = raw.replace(b"true", b"fals")
        elif damage == "truncated":
            raw = raw[:-3]
        else:
            raw = body
        problem, _ = sealed.unseal(raw, "demo")
    assert problem


@pytest.mark.parametrize("mode", [0o644, 0o660])
def test_a_key_file_others_can_read_is_not_used(key, mode):
    sealed.secret()
    os.chmod(key, mode)
    sealed._KEY.clear()
    with pytest.warns(sealed.SealWarning, match="not private"):
        mine = sealed.secret()
    assert mine != bytes.fromhex(key.read_text().strip())


def test_a_fifo_or_a_link_is_never_read(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        sealed.read_regular(fifo)
    (tmp_path / "target").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    with pytest.raises(OSError, match="symbolic link"):
        sealed.read_regular(tmp_path / "link")
    assert sealed.read_regular(tmp_path / "missing") is None
