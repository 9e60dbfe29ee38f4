"""What each statement's Coq theorem proves, read from its text and what it rests on: whether it states the
statement's probability (``states_probability``), whether it proves the statement from Lueker's corollary alone,
probabilities included (``proved_alone``; under its repaired form where the harness repairs it,
``OWN_HYPOTHESES``), and the lines ``slth proofs --axioms --coq`` prints first for each statement
(``statement_lines``).  ``bounds.prove.coq_math`` counts with these (``counts``, ``blueprint``,
``statements_report``)."""
from __future__ import annotations

import re

from ..catalogue import OWN_HYPOTHESES
from .coq.assumed import family
from .coq_math import (CITED, CITED_COQ, LUEKER_COQ, LUEKER_ITEMS, LUEKER_PREMISE, PREMISE_COQ, cited_premises,
                       strip_comments, with_statements)


PROBABILITY = re.compile(r"\b(?:Pr|Prob\w*|prob_\w+|probability\w*|measure\w*|outer_prob\w*)\b")
"""How a Coq statement names a probability: an identifier ``Pr``, one beginning ``Prob``, ``prob_``,
``probability``, ``measure`` (MathComp-Analysis's measures) or ``outer_prob`` (never ``problem``)."""


def theorem_text(name: str, files: dict[str, str] | None = None) -> str:
    """The Coq text of statement ``name``'s theorem, its Section with its hypotheses (comments stripped), from the
    ``Statements`` file of ``files`` (default: ``with_statements()``, the committed or generated one); "" when it has
    none."""
    files = with_statements() if files is None else files
    text = strip_comments(files.get("Statements", ""))
    m = re.search(rf"^Section {re.escape(name)}\.(.*?)^End {re.escape(name)}\.", text, re.S | re.M)
    if m:
        return m.group(1)
    m = re.search(rf"\b(?:Theorem|Lemma|Corollary)\s+stmt_{re.escape(name)}\b(.*?)\b(?:Qed|Defined)\.", text, re.S)
    return m.group(1) if m else ""


def states_probability(name: str, catalogue: dict | None = None, files: dict[str, str] | None = None) -> bool:
    """Whether statement ``name``'s Coq theorem states what the paper states about probability: trivially for a
    statement without one (Lemma 8), else its text names a probability (``PROBABILITY``)."""
    from ..catalogue import STATEMENTS
    cat = STATEMENTS if catalogue is None else catalogue
    return cat[name].probability is None or bool(PROBABILITY.search(theorem_text(name, files)))


def proved_alone(name: str, premises, catalogue: dict | None = None, files: dict[str, str] | None = None) -> bool:
    """Whether statement ``name``'s Coq theorem, resting on ``premises``, proves it from Lueker's corollary alone,
    probabilities included: it rests on no premise but Lueker's corollary (with its hypothesis that the construction's items are in its
    class) and the hypotheses of its own encoded
    (repaired) form (``OWN_HYPOTHESES``), and it states the statement's probability (``states_probability``)."""
    own = {p for p, names in OWN_HYPOTHESES.items() if name in names}
    return set(premises) <= {LUEKER_PREMISE, LUEKER_ITEMS} | own and states_probability(name, catalogue, files)


def proved_statements(catalogue: dict | None = None) -> list[str]:
    """The statements the harness proves (those with an encoded proof); a cited result (Lueker's corollary) is not
    one of them, so it is never counted as proved from itself."""
    from ..catalogue import STATEMENTS, lookup
    cat = STATEMENTS if catalogue is None else catalogue
    return [n for n, st in cat.items() if st.steps(lookup(cat))]


def _assumption_words(axioms: list[str]) -> str:
    """``Print Assumptions`` in words: "Coq's standard axioms only (classical reals: 4)", "closed (no axioms)", or
    the other axioms by name."""
    if not axioms:
        return "closed under the global context (no axioms)"
    fams: dict = {}
    for a in axioms:
        fams.setdefault(family(a) or "OTHER", []).append(a)
    other = fams.pop("OTHER", [])
    words = ", ".join(f"{f}: {len(v)}" for f, v in sorted(fams.items()))
    if not other:
        return f"Coq's standard axioms only ({words})"
    return f"{words}; OTHER AXIOMS: {', '.join(other)}" if words else f"OTHER AXIOMS: {', '.join(other)}"


def statement_lines(name: str, rests: dict, catalogue: dict | None = None, files: dict | None = None) -> list[str]:
    """What statement ``name``'s Coq theorem is, first: its ``Print Assumptions`` (when ``rests`` holds them), the
    premises its closed type assumes, whether it states the statement's probability, and so whether it proves the
    statement from Lueker's corollary alone (``proved_alone``; under its repaired name where the harness repairs
    it); or that it is not formalized."""
    from ..catalogue import STATEMENTS
    from slth_base.numbering import numbering_heading
    cat = STATEMENTS if catalogue is None else catalogue
    st = cat[name]
    head = f"{numbering_heading(st.numbering, name)} [{name}]"
    if name == CITED:  # stated in Coq (lueker_cited, printed from bounds/), proved nowhere, never counted
        return [f"{head}: a cited result, stated in Coq as {LUEKER_COQ} (Statements.v; lueker_corollary in Events.v), "
                "a hypothesis of every theorem that cites it; not proved"]
    if name not in rests:
        cited = cited_premises(name, cat)
        return [f"{head}: not formalized in Coq (its steps cite: " + ("; ".join(cited) or "no premise") + ")"]
    entry = rests[name]
    prem, axioms = (entry if isinstance(entry, tuple) else (entry, None))
    out = [f"{head}: Coq theorem stmt_{name}"]
    if axioms is not None:
        out.append(f"  Print Assumptions stmt_{name}: {_assumption_words(axioms)}")
    def assumed(p):
        cited = p[len("statement "):] if p.startswith("statement ") else None
        if cited in cat:
            return (f"{numbering_heading(cat[cited].numbering, cited)}'s conclusion, assumed "
                    f"({CITED_COQ.get(cited, cited)}; not proved in Coq here)")
        return f"{p} ({PREMISE_COQ.get(p, p)})"

    out.append("  its type assumes: " + ("; ".join(assumed(p) for p in prem) or "no premise"))
    if name not in proved_statements(cat):
        out.append("  a cited result: stated in Coq as a hypothesis of the theorems that cite it, not proved")
        return out
    prob = states_probability(name, cat, files)
    own = [p for p in prem if name in OWN_HYPOTHESES.get(p, ())]
    if st.probability is None:
        out.append("  probability: the statement has none")
    else:
        out.append("  probability: " + ("stated in the theorem" if prob else
                                        "NOT stated: the theorem holds on the event that Lueker's corollary gives "
                                        "(every subset-sum problem solved), not with probability at least "
                                        "1 - eps"))
    alone = proved_alone(name, prem, cat, files)
    out.append("  " + ("proved in Coq from Lueker's corollary alone, probabilities included"
                       + (f", as repaired ({'; '.join(own)} is a hypothesis of the form the harness encodes)"
                          if own else "") if alone else
                       "NOT proved in Coq from Lueker's corollary alone, probabilities included"))
    return out
