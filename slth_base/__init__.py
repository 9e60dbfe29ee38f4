"""The small base that ``bounds/``, ``slt/`` and ``reports/`` all stand on (standard library only, imported by none
of theirs): ``slth_base.files`` reads and writes files without trusting what is in the folder (bounded reads of
regular files, atomic writes that never go through a planted link), ``slth_base.settings`` parses and checks every
environment variable the harness reads. ``InputError`` is the one exception for bad input (one line, exit 2)."""
from .files import InputError

__all__ = ["InputError"]
