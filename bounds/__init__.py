"""The paper's statements and proofs as SymPy data (arXiv 2511.04217), and the verifier of their steps.

- ``names()``, ``get(name)`` (aliases ``lemma4``, ``theorem3``, ``theorem6``, case/space-insensitive);
  ``proof(name, catalogue=None)``: the proof steps composed from a catalogue (passed explicitly: no import circle);
  ``proved(catalogue=None)``: the statements with proof steps (what is verified), found from the catalogue;
- ``bounds.evaluate``: the one numeric evaluator of SymPy expressions (mpmath points and intervals);
- ``Statement``: symbols, hypotheses, conclusion, widths, probability, terms, constants, proof steps,
  variants (printed forms), ``evaluate``/``width``/``term``/``variant``;
- ``verify(name)`` -> per-step ``StepResult`` (symbolic / interval certificate on a box / sampled evidence);
- ``bounds.theorem14.exponents()``: Theorem 14's width exponents, derived from the block recursion;
- ``bounds.prove.mutations``: the mutation suite.
Source of truth for docs/statements.md, which ``python -m reports.statements_page`` prints from here.
"""
from .catalogue import ALIASES, STATEMENTS, get, names, proof, proved
from .core import Edit, Fact, Hypothesis, Param, Statement, Step, Variant
from .prove.verify import StepResult, verify, verify_facts

__all__ = ["ALIASES", "STATEMENTS", "Edit", "Fact", "Hypothesis", "Param", "Statement", "Step", "StepResult",
           "Variant", "get", "names", "proof", "proved", "verify", "verify_facts"]
