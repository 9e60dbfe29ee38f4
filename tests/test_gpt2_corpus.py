"""The offline corpus of Figures 7-8 (``slt.gpt2.corpus``): no network, fixed split, byte tokens, hash check."""
from __future__ import annotations

import socket

import numpy as np
import pytest

from slt.gpt2 import corpus


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(corpus, "_CACHE", {})


def test_network_is_really_refused(no_network):
    with pytest.raises(AssertionError, match="network"):
        socket.create_connection(("example.org", 80))


def test_corpus_loads_offline(no_network):
    c = corpus.load()
    assert c.train.size > 500_000 and c.val.size > 50_000
    assert c.train.max() < corpus.VOCAB and c.val.max() < corpus.VOCAB
    assert abs(c.val.size / (c.train.size + c.val.size) - corpus.VAL_FRACTION) < 0.01
    assert len(c.sha256) == 64
    known = corpus.KNOWN_SHA256.get(c.python)
    assert known is None or known == c.sha256


def test_split_is_per_file_head_and_tail(tmp_path):
    for i, name in enumerate(corpus.FILES):
        (tmp_path / name).write_bytes(bytes([65 + i % 26]) * 90 + b"\n" * 10)
    c = corpus.load(tmp_path)
    assert c.train.size == 90 * len(corpus.FILES) and c.val.size == 10 * len(corpus.FILES)
    assert set(c.val.tolist()) == {95}  # newline token: the last 10% of every file
    assert corpus.decode(c.train[:3]) == "AAA"


def test_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=corpus.FILES[0]):
        corpus.load(tmp_path)


def test_modified_stdlib_is_rejected(tmp_path, monkeypatch):
    for name in corpus.FILES:
        (tmp_path / name).write_bytes(b"x = 1\n")
    monkeypatch.setattr(corpus, "_CACHE", {})
    monkeypatch.setattr(corpus.sysconfig, "get_paths", lambda: {"stdlib": str(tmp_path)})
    monkeypatch.setitem(corpus.KNOWN_SHA256, corpus.platform.python_version(), "0" * 64)
    with pytest.raises(ValueError, match="modified"):
        corpus.load()


def test_encoding():
    tokens = corpus.encode(b" ~\n\t\xc3")
    assert tokens.tolist() == [0, 94, 95, 96, 96]
    assert np.all(corpus.encode(bytes(range(256))) < corpus.VOCAB)
