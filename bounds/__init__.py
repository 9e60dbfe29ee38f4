"""The paper's statements and proofs as SymPy data (arXiv 2511.04217), and the verifier of their steps.

``names()``, ``get(name)`` (aliases ``lemma4``, ``theorem3``, ``theorem6``), ``Statement.evaluate/width/term``,
``verify(name)`` -> per-step ``StepResult``.  See theorems.md for the statements and proof steps encoded here.
"""
from .catalogue import ALIASES, STATEMENTS, get, names
from .core import Edit, Fact, Hypothesis, Param, Statement, Step, Variant
from .verify import StepResult, verify, verify_facts

__all__ = ["ALIASES", "STATEMENTS", "Edit", "Fact", "Hypothesis", "Param", "Statement", "Step", "StepResult",
           "Variant", "get", "names", "verify", "verify_facts"]
