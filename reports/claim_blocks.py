"""Generated blocks of the README and docs that print a claim of the run record (or of the Coq formalization)
through the one function that decides it (``slt.claims``, ``bounds.prove.coq_math``), so a page states what the
report states (``reports.statements_page.RECORD_BLOCKS`` and ``BLOCKS`` name them)."""
from __future__ import annotations


def statement_verdicts(record: dict) -> str:
    """The statements by proof verdict, each naming its object (``slt.claims.proof_sentence``), as the report's
    banner states them."""
    from slt import claims

    return claims.proof_sentence(record) + "."


def first_pass(record: dict) -> str:
    """What the first pass did, by method, domain and Arb re-check (``slt.claims.first_pass_sentence``), as the
    report's summary and ``slth proofs`` state it."""
    from slt import claims

    return "First pass: " + claims.first_pass_sentence(record["steps"]) + "."


def coq_count_line() -> str:
    """The Coq count line (``bounds.prove.coq_math.blueprint``'s), as the proof map's legend prints it."""
    from bounds.prove import coq_math

    return coq_math.blueprint()["line"] + "."
