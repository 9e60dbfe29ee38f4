"""The Python part of every key that decides whether a stored or committed result is reused.

``python_release()`` is Python's major.minor ("3.11"), not its patch level: what the keyed results depend on in
Python itself is its integer, ``Fraction`` and float arithmetic and its ``repr`` of numbers, which no patch release
changes, while SymPy, mpmath, python-flint, NumPy, SciPy and Numba, which decide the verdicts and the measurements,
stay in the keys with their exact versions; so another patch release of the same Python (3.11.2, 3.11.7) reuses
every committed result.  Provenance records keep the full version as information; it decides nothing."""
from __future__ import annotations

import platform

__all__ = ["python_release"]


def python_release() -> str:
    """The running Python's major.minor, e.g. ``"3.11"`` for 3.11.2 and 3.11.7 alike."""
    return ".".join(platform.python_version().split(".")[:2])
