"""The corpus of Figures 7 and 8: the Python standard library's own source, read offline from the running Python.

*Choice* (the paper trains on WikiText-103, which cannot be downloaded here): real text that exists on every machine
that can install the project, with no network access at any point: a fixed list of pure-Python modules of the
standard library, read from ``sysconfig.get_paths()["stdlib"]``. The files are distributed with Python under the
Python Software Foundation License (permissive, GPL-compatible); the project reads them where Python installed
them and ships no copy.

Tokens are bytes: printable ASCII 32..126 are tokens 0..94, newline is 95, every other byte (tab, carriage return,
non-ASCII UTF-8 bytes; rare in these files) is 96, so the vocabulary has 97 tokens. Split (fixed): the first 90% of
each file's bytes are training text, the last 10% validation text; each part is the concatenation over the files
in the listed order.

The standard library differs between Python versions, so the corpus is identified by the SHA-256 of its bytes
(``Corpus.sha256``), which is part of every cached result and summary of the figures: results on different corpora
are never mixed. For Python versions whose hash is in ``KNOWN_SHA256`` the hash is checked on load (a modified
standard library is an error).
"""
from __future__ import annotations

import dataclasses
import hashlib
import platform
import sysconfig
from pathlib import Path

import numpy as np

__all__ = ["FILES", "VOCAB", "KNOWN_SHA256", "Corpus", "load", "encode", "decode"]

#: Modules that are single files in the standard library of every Python from 3.10 to 3.13, in corpus order.
FILES = ("textwrap.py", "difflib.py", "argparse.py", "calendar.py", "fractions.py", "heapq.py", "shlex.py",
         "string.py", "bisect.py", "functools.py", "dataclasses.py", "enum.py", "csv.py", "pprint.py",
         "statistics.py", "colorsys.py", "fnmatch.py", "glob.py", "graphlib.py", "numbers.py", "operator.py",
         "queue.py", "sched.py", "shutil.py", "tempfile.py", "threading.py", "timeit.py", "tokenize.py",
         "traceback.py", "typing.py", "uuid.py", "weakref.py", "gettext.py", "ftplib.py", "imaplib.py",
         "smtplib.py", "poplib.py", "contextlib.py", "copy.py")
VOCAB = 97
VAL_FRACTION = 0.1
#: SHA-256 of the corpus bytes per Python version (checked when the running version is listed).
KNOWN_SHA256 = {
    "3.11.7": "7a4c9729eff0f7cf327bdcb97ce5987d915ebfd6fb7cf854c66c2faff5a28ada",
}


def encode(data: bytes) -> np.ndarray:
    """Bytes -> token ids (uint8) as described in the module docstring."""
    raw = np.frombuffer(data, dtype=np.uint8)
    tokens = np.full(raw.shape, 96, dtype=np.uint8)
    printable = (raw >= 32) & (raw <= 126)
    tokens[printable] = raw[printable] - 32
    tokens[raw == 10] = 95
    return tokens


def decode(tokens) -> str:
    table = [chr(32 + i) for i in range(95)] + ["\n", "?"]
    return "".join(table[int(t)] for t in tokens)


@dataclasses.dataclass(frozen=True)
class Corpus:
    train: np.ndarray
    val: np.ndarray
    sha256: str
    source: str
    python: str

    def describe(self) -> dict:
        return {"source": self.source, "python": self.python, "sha256": self.sha256, "files": len(FILES),
                "train_tokens": int(self.train.size), "val_tokens": int(self.val.size), "vocab": VOCAB,
                "split": f"first {1 - VAL_FRACTION:.0%} of each file train, last {VAL_FRACTION:.0%} validation"}


_CACHE: dict = {}


def load(stdlib=None) -> Corpus:
    """Read the corpus (offline: only local files). ``stdlib`` overrides the standard library folder (tests)."""
    folder = Path(stdlib if stdlib is not None else sysconfig.get_paths()["stdlib"])
    key = str(folder)
    if key in _CACHE:
        return _CACHE[key]
    digest = hashlib.sha256()
    train, val = [], []
    for name in FILES:
        path = folder / name
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise FileNotFoundError(f"corpus file {name} missing from the standard library at {folder}: {exc}") from None
        digest.update(name.encode() + b"\0" + data)
        cut = int(round(len(data) * (1 - VAL_FRACTION)))
        train.append(encode(data[:cut]))
        val.append(encode(data[cut:]))
    sha = digest.hexdigest()
    version = platform.python_version()
    expected = KNOWN_SHA256.get(version) if stdlib is None else None
    if expected is not None and expected != sha:
        raise ValueError(f"the standard library at {folder} differs from Python {version}'s (corpus SHA-256 {sha}, "
                         f"expected {expected}); it has been modified")
    corpus = Corpus(np.concatenate(train), np.concatenate(val), sha, f"Python {version} standard library ({folder})",
                    version)
    _CACHE[key] = corpus
    return corpus
