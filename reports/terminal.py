"""Text on the way to a terminal: control characters (an ANSI escape sequence in a record's string or in an
argument, a carriage return that overwrites a line, a bell) are shown escaped, as ``\\x1b``, never sent.

``safe(text)`` is the one escape function; ``escaped_streams()`` routes every line the ``slth`` command prints
(stdout and stderr: results, errors, warnings, progress bars) through it, so no command needs to remember to call it.
A progress bar's leading carriage return (tqdm redraws its line with one) is the one control character kept.
"""
from __future__ import annotations

import contextlib
import re
import sys

__all__ = ["safe", "SafeStream", "escaped_streams"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def safe(text: str) -> str:
    """``text`` with every control character but newline and tab replaced by its escape (``\\x1b``, ``\\u202e``)."""
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), str(text))


class SafeStream:
    """A text stream that writes ``safe(text)`` to ``stream`` (a leading carriage return, a progress bar's redraw,
    kept)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text) -> int:
        text = str(text)
        lead = "\r" if text.startswith("\r") else ""
        self._stream.write(lead + safe(text[len(lead):]))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name):  # flush, isatty, fileno, encoding, ...
        return getattr(self._stream, name)


@contextlib.contextmanager
def escaped_streams():
    """``sys.stdout`` and ``sys.stderr`` escaped by ``safe`` inside the block (restored after it)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
