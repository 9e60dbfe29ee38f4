"""Text from files on the way to a terminal: control characters (an ANSI escape sequence in a record's string,
a carriage return that overwrites a line, a bell) are shown escaped, as ``\\x1b``, never sent to the terminal."""
from __future__ import annotations

import re

__all__ = ["safe"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def safe(text: str) -> str:
    """``text`` with every control character but newline and tab replaced by its escape (``\\x1b``, ``\\u202e``)."""
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), str(text))
