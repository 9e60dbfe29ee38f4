"""What each statement's Coq theorem proves, read from its text and what it rests on: whether it states the
statement's probability (``states_probability``), whether it proves the statement from Lueker's corollary alone,
probabilities included (``proved_alone``; under its repaired form where the harness repairs it,
``OWN_HYPOTHESES``), and the lines ``slth proofs --axioms --coq`` prints first for each statement
(``statement_lines``); and counted with these: the premises proved in Coq and the statements proved from Lueker's
corollary alone (``counts``, ``blueprint``, ``statements_report``)."""
from __future__ import annotations

import re

from ..catalogue import OWN_HYPOTHESES, STATEMENTS, lookup
from ..premises import ALL
from .coq.assumed import family, strip_comments
from . import coq_text
from .coq_text import (CITED, CITED_COQ, LUEKER_COQ, LUEKER_ITEMS, LUEKER_PREMISE, PREMISE_COQ, PROVED_PREMISES,
                       cited_premises, with_statements)


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
    cat = STATEMENTS if catalogue is None else catalogue
    return cat[name].probability is None or bool(PROBABILITY.search(theorem_text(name, files)))


def proved_alone(name: str, premises, catalogue: dict | None = None, files: dict[str, str] | None = None) -> bool:
    """Whether statement ``name``'s Coq theorem, resting on ``premises``, proves it from Lueker's corollary alone,
    probabilities included: it rests on no premise but Lueker's corollary (with its hypothesis that the construction's
    items are in its class) and the hypotheses of its own encoded (repaired) form (``OWN_HYPOTHESES``), and it states
    the statement's probability (``states_probability``)."""
    own = {p for p, names in OWN_HYPOTHESES.items() if name in names}
    return set(premises) <= {LUEKER_PREMISE, LUEKER_ITEMS} | own and states_probability(name, catalogue, files)


ALONE_MEANS = ("'from Lueker's corollary alone': the Coq theorem's hypotheses are at most the statement's own (in the "
               "form the harness encodes, with the differences from the printed statement it names), Lueker's "
               f"corollary as cited ({LUEKER_COQ}) and that the construction's items are in the corollary's class "
               f"({PREMISE_COQ[LUEKER_ITEMS]}, assumed, not checked); no premise the written proof's steps cite "
               "beyond these is a hypothesis, and the corollary itself, a cited result, is not counted among the "
               "statements")
"""What "proved in Coq from Lueker's corollary alone" means, wherever it is said (``slth proofs --axioms --coq``, the
counts line, the proof map, the README and docs)."""

DIFFERENCES = re.compile(r"Differences\s+from\s+the\s+printed\s+statement:(.*?)\*\)", re.S)


def differences(name: str) -> list[str]:
    """How statement ``name``'s Coq theorem differs from the printed statement, as its Coq text says it (the sentence
    "Differences from the printed statement: a; b" of ``proofs/coq/statements/parts/<name>.v``, where every
    formalized statement that adds a hypothesis or states a repaired form says so); [] when it states the printed
    statement, or is not formalized."""
    entry = coq_text.FORMAL.get(name)
    m = DIFFERENCES.search(entry[2]) if entry is not None else None
    if not m:
        return []
    return [re.sub(r"\s*\(above\)", "", " ".join(d.split())) for d in m.group(1).strip().rstrip(".").split(";")
            if d.strip()]


def alone_words(name: str, alone: bool, diff: list[str] | None = None) -> str:
    """The one sentence of whether statement ``name``'s Coq theorem proves it from Lueker's corollary alone
    (``proved_alone``: ``alone``), and of which form: "proved in Coq from Lueker's corollary alone, probabilities
    included, of the statement with these differences from the printed one: d1 divides n; one event for all
    targets" (``diff``, default ``differences(name)``: a record's own, where it is rendered from one)."""
    diff = differences(name) if diff is None else diff
    head = ("proved in Coq from Lueker's corollary alone, probabilities included" if alone else
            "NOT proved in Coq from Lueker's corollary alone, probabilities included")
    return head + (", of the statement with these differences from the printed one: " + "; ".join(diff) if diff
                   else ", of the statement as printed")


def proved_statements(catalogue: dict | None = None) -> list[str]:
    """The statements the harness proves (those with an encoded proof); a cited result (Lueker's corollary) is not
    one of them, so it is never counted as proved from itself."""
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


def _assumptions_of(name: str, rests: dict) -> str:
    """Whose ``Print Assumptions`` a statement's axiom list is: its own, or, where every statement of ``rests`` has
    the same list (``bounds.prove.coq_math.rests_on`` asks once for all of them together and gives each the
    answer, a superset of each one's own), the statement theorems' together, which is then true either way."""
    lists = [sorted(e[1]) for e in rests.values() if isinstance(e, tuple) and e[1] is not None]
    if len(lists) > 1 and all(x == lists[0] for x in lists):
        return f"Print Assumptions of the {len(lists)} statement theorems together (stmt_{name} among them)"
    return f"Print Assumptions stmt_{name}"


def statement_lines(name: str, rests: dict, catalogue: dict | None = None, files: dict | None = None) -> list[str]:
    """What statement ``name``'s Coq theorem is, first: its ``Print Assumptions`` (when ``rests`` holds them), the
    premises its closed type assumes, whether it states the statement's probability, and so whether it proves the
    statement from Lueker's corollary alone (``proved_alone``; under its repaired name where the harness repairs
    it); or that it is not formalized."""
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
        out.append(f"  {_assumptions_of(name, rests)}: {_assumption_words(axioms)}")
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
    if st.probability is None:
        out.append("  probability: the statement has none")
    else:
        out.append("  probability: " + ("stated in the theorem" if prob else
                                        "NOT stated: the theorem holds on the event that Lueker's corollary gives "
                                        "(every subset-sum problem solved), not with probability at least "
                                        "1 - eps"))
    out.append("  " + alone_words(name, proved_alone(name, prem, cat, files)))
    return out


def declared_rests() -> dict[str, list[str]]:
    """``{statement: premises}`` for each formalized statement, as ``coq_text.FORMAL`` declares them (``declared_errors``
    holds this equal to what Coq's closed types say, ``rests_on``)."""
    return {name: list(entry[1]) for name, entry in coq_text.FORMAL.items()}


def counts(rests: dict | None = None, catalogue: dict | None = None, text: str | None = None,
           files: dict[str, str] | None = None) -> dict[str, int]:
    """``{"proved", "premises", "alone", "statements"}``: the premises ``Premises.v`` proves (of all of
    ``bounds.premises``), and the statements with an encoded proof whose Coq theorem proves them from Lueker's
    corollary alone, probabilities included (``proved_alone``; of all statements with an encoded proof).
    ``rests``: ``{statement: premises}`` or ``rests_on``'s ``{statement: (premises, axioms)}`` (default:
    ``declared_rests()``); ``text``: a ``Premises.v`` to read instead of the committed one; ``files``: the Coq files
    whose ``Statements`` the theorems are read from (default: ``with_statements()``)."""
    rests = declared_rests() if rests is None else rests
    prem = {n: (r[0] if isinstance(r, tuple) else r) for n, r in rests.items()}
    names = proved_statements(catalogue)
    files = with_statements() if files is None and any(n in prem for n in names) else files
    return {"proved": len(coq_text.proved_premises(text)), "premises": len(ALL),
            "alone": sum(n in prem and proved_alone(n, prem[n], catalogue, files) for n in names),
            "statements": len(names)}


def counts_line(c: dict[str, int]) -> str:
    """The counts as one line: "premises proved in Coq: N of M; statements proved in Coq from Lueker's corollary
    alone, probabilities included: K of S"."""
    return (f"premises proved in Coq: {c['proved']} of {c['premises']}; statements proved in Coq from Lueker's "
            f"corollary alone, probabilities included: {c['alone']} of {c['statements']} ({ALONE_MEANS})")


def blueprint(catalogue: dict | None = None, text: str | None = None) -> dict:
    """What the proof map draws of the Coq formalization, per statement and per premise, from this tree's
    declarations (``coq_text.FORMAL``, ``Premises.v``, ``PROVED_PREMISES``; ``tests/test_coq_math.py`` holds them to Coq's
    own ``Print Assumptions`` and closed types):

    ``{"statements": {name: {"formalized", "theorem", "rests_on", "lueker_alone", "probability", "cites"}},
      "premises": {name: {"proved", "coq", "by", "says"}}, "counts": counts(), "line": counts_line(...)}``

    ``rests_on``: the premises its Coq theorem rests on (None when not formalized); ``lueker_alone``: a statement with
    an encoded proof that its Coq theorem proves from Lueker's corollary alone, probabilities included
    (``proved_alone``); ``probability``: its Coq theorem states the statement's probability; ``cites``: the premises its
    proof steps cite; ``proved``: the premise is proved in ``Premises.v`` (else it is assumed), ``by``: the theorems
    that prove it."""
    cat = STATEMENTS if catalogue is None else catalogue
    rests = declared_rests()
    done = set(coq_text.proved_premises(text))
    files = with_statements() if any(n in rests for n in cat) else None
    proved = proved_statements(cat)
    statements = {}
    for name in cat:
        formal = name in rests
        statements[name] = {"formalized": formal, "theorem": f"stmt_{name}" if formal else None,
                            "rests_on": rests[name] if formal else None,
                            "lueker_alone": formal and name in proved and proved_alone(name, rests[name], cat, files),
                            "differences": differences(name),
                            "probability": formal and states_probability(name, cat, files),
                            "cites": cited_premises(name, cat)}
    premises = {p.name: {"proved": p.name in done, "coq": PREMISE_COQ.get(p.name),
                         "by": list(PROVED_PREMISES.get(p.name, ())) if p.name in done else [], "says": p.says}
                for p in ALL}
    c = counts(rests, cat, text, files)
    return {"statements": statements, "premises": premises, "counts": c, "line": counts_line(c)}


def statements_report(rests: dict, catalogue: dict | None = None, names=None, files: dict | None = None) -> str:
    """Per statement of the catalogue (or of ``names``), what its Coq theorem is (``statement_lines``), then the
    counts of premises proved in Coq and of statements proved from Lueker's corollary alone, probabilities
    included (``counts``)."""
    cat = STATEMENTS if catalogue is None else catalogue
    files = with_statements() if files is None and rests else files
    lines = [line for name in (names or cat) for line in statement_lines(name, rests, cat, files)]
    lines.append(counts_line(counts(rests, cat, files=files)))
    return "\n".join(lines)
