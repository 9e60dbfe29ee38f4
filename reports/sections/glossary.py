"""Report section "Glossary": every word and identifier of the page a reader cannot decode from the page alone
(verdict words, step and variant ids, finding slugs, design and profile names), each with what it means.  The
report's header links to it."""
from __future__ import annotations

from reports.render import Section, render_template
from slt import claims
from slt.target_words import FAMILY_MEANING

PRECHECKED = "pre-checked"
REPLAYED = "kernel-checked in this run"
STORED = "kernel verdicts read back, no coqc in this run"
COMMITTED = "kernel result committed for this exact bounds/ and exporter"
"""``bounds.prove.kernel``'s words (a report renders records and imports nothing of bounds/; tests/test_kernel.py holds
them equal)."""

TERMS = [
    ("certified", "a proof step pre-checked by the first pass and proved by Coq's kernel (kernel-checked); only "
                  "this counts as a pass"),
    (PRECHECKED, claims.PRECHECKED_MEANS),
    ("kernel-checked", "Coq's kernel accepted the exact statement the exporter prints from the step and its declared "
                       "domain, with a generated proof (never admitted)"),
    (REPLAYED, "coqc compiled or checked the Coq files when this record was made"),
    (STORED, "no coqc ran when this record was made: each lemma's verdict was read back from an earlier compile of "
             "the very same lemma (its exact text and tactic, the exporter's code and Coq's version), from a store "
             "or build record sealed by this user's harness; Coq's version and when coqc checked it follow"),
    (COMMITTED, "the kernel's verdicts a replay with Coq (the version and time named) committed for the very same "
                "bounds/, exporter and tactics (keyed by their hash; the test suite replays them and holds them "
                "equal); used whenever that key matches, coqc installed or not (slth proofs always replays)"),
    ("refuted", "a counterexample at an admissible point (every hypothesis holds, strictly at an open end), confirmed "
                "by Arb enclosures of the two sides that separate"),
    ("not proved", "neither certified nor refuted, with the reason; never counted as a pass"),
    ("step id (e.g. L7a, T14d-x, S2c-ii)", "a step's name in the encoded proof: L<n> a step of Lemma n, T<n> of "
                                           "Theorem n, S of Theorem 9 (the steps of its proof), B of Theorem 11 "
                                           "(its blocks), U of Theorem 14's union bound; then the part of the proof "
                                           "(a, b, ...) and a sub-step (-eps, -x, -i, -ii); docs/statements.md lists "
                                           "every step"),
    ("variant id (e.g. printed, d1, exact-exp)", "the short name of a reading of a statement other than the one the "
                                                 "harness encodes: 'printed' is the paper's text as printed, 'd1' "
                                                 "the available copy's d1 for sqrt(d1); the description beside it "
                                                 "says what it changes"),
    ("finding slug (e.g. lemma13-printed)", "the anchor of a finding, the same in the report, README and "
                                            "docs/findings.md"),
    ("open end", "a hypothesis with a strict inequality (eps < 1): a point printed with all its digits "
                 "(eps = 0.9999999990686774) lies inside it"),
    ("ofat", "one factor at a time: a grid design that varies one parameter around a base point through all its "
             "values (plus two corners), instead of the full factorial"),
    ("quick / full profile", "a run record's profile: quick (slth run --quick, the default report: few trials, "
                             "the committed full-power failure rates where they apply), full (every measurement at "
                             "full power), proofs (the proof steps only)"),
    ("sampled", "evidence from seeded sampled points only: it refutes when a point violates the step, and never "
                "certifies"),
    ("worst target family", "the family of target weights at which a statement fails most often in the target "
                            "search; the calibrated C is read there"),
    ("fixed-C test", "at one C, one point and one target family, a one-sided binomial test of 'failure rate <= eps' "
                     "for each eps"),
    ("antitonic fit", "an isotonic (non-increasing in C) least-squares fit of the failure rates measured at "
                      "ascending C; C is read where the fitted rate reaches eps, with no assumption that the "
                      "counts themselves fall with C"),
    ("as printed / as repaired", "what a statement's verdict is about: the statement " + claims.PRINTED_MEANS
                                 + "; or the form the harness encodes instead (a bound, constant or hypothesis "
                                 "changed; the verdict says what changed and the finding why)"),
    ("not exported", "a step the exporter does not send to Coq: the first pass does not pre-check it, or the "
                     "printer refuses one of its constructs (the reason is printed beside it)"),
]
"""(term, meaning), in reading order; the target families follow (``slt.target_words.FAMILY_MEANING``)."""


def terms() -> list[tuple[str, str]]:
    """Every term of the glossary: ``TERMS``, then each target family by name (``slt.target_words.FAMILY_MEANING``)."""
    return TERMS + [(f"target family {name}", meaning) for name, meaning in FAMILY_MEANING.items()]


def render(record: dict) -> Section:
    html = render_template("sections/glossary.html", terms=terms())
    return Section(id="glossary", title="Glossary", html=html, summary="what each verdict, identifier and design "
                                                                        "name of this page means")
