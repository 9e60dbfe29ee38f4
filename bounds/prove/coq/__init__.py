"""Every proof step and scalar fact exported to Coq and checked by its kernel (CoqInterval for the arithmetic):
``printer`` (SymPy -> Coq Reals), ``export`` (a lemma per step with premises from the ``Param`` declarations and a
generated proof), ``check`` (the files, the tactic search and its record, coqc runs, ``Print Assumptions``)."""
from .printer import CoqExportError, coq  # noqa: F401
