"""The prover: what judges the statements of ``bounds/`` (which never import this package).

- ``verify`` decides each proof step's first-pass verdict (pre-checked, refuted, not proved) with the methods of
  ``verify_symbolic``, ``verify_interval``, ``verify_search`` and ``corners`` over ``verify_domain``'s declared
  domain, after ``verify_defined``; ``recheck`` evaluates the interval certificates (``certificate``) again in Arb.
- ``kernel`` is the judge of record: a step is certified only when Coq's kernel accepts the statement that ``coq``
  prints from it; ``coq_math``, ``coq_text`` and ``coq_statements`` build and read the hand-written Coq
  mathematics and the statements' Coq theorems; ``external`` runs coqc and coqchk.
- ``verdict_cache`` keeps verdicts on disk between processes (``verdict_json``).
- ``mutations``, ``readings``, ``slack``, ``axioms`` and ``theorem10_alpha`` run the verifier over edited catalogues.
"""
