"""The prover: what judges the statements of ``bounds/`` (which never import this package).

- ``verify`` decides each proof step's first-pass verdict (pre-checked, refuted, not proved) by choosing among
  ``verify_symbolic`` (SymPy), ``verify_interval`` (interval certificates on the whole declared domain, or a box),
  ``verify_search`` (the seeded counterexample search and the margin) and ``corners`` (the far corners of an
  unbounded domain), over the declared domain of ``verify_domain``; ``verify_defined`` refuses a side that is
  undefined somewhere on it; ``recheck`` evaluates the interval certificates (``certificate``) again in Arb
  (``arb_intervals``).
- ``kernel`` is the judge of record: a step is certified only when Coq's kernel accepts the statement that
  ``coq`` (the exporter, the checker and the tactic search) prints from it; ``coq_math`` builds and checks the
  hand-written Coq mathematics (``proofs/coq/math/``) and the statements' Coq theorems, whose text ``coq_text``
  fills from ``bounds/`` and whose counts ``coq_statements`` gives.
- ``external`` runs the external provers (coqc, coqchk) for both: process groups, time limits, kill on exit.
- ``verdict_cache`` keeps first-pass verdicts and Coq's per-lemma verdicts on disk between processes, keyed on
  everything that decides them, as JSON data (``verdict_json``) sealed with this user's key (``slth_base.sealed``).
- ``coq.assumed`` judges Coq's axioms by their fully qualified names and refuses every axiom-declaring form;
  ``coq.coqchk`` runs Coq's own checker on the compiled libraries (a CI step).
- ``mutations``, ``readings``, ``slack``, ``axioms`` and ``theorem10_alpha`` run the verifier over edited catalogues:
  the mutation suite, the printed readings, the slack of each constant, the premises each statement rests on, and
  Theorem 10's threshold in alpha.
- ``settings`` reads and checks the environment variables the prover obeys.
"""
