"""What "proved in Coq from Lueker's corollary alone" means and of which form of a statement it is said: one
sentence (``bounds.prove.coq_statements.alone_words``, with the differences each Coq theorem's text names) on every
surface that says it -- ``slth proofs --axioms --coq``, the counts line, the proof map, docs/kernel-checked.md --
and the premises the written proof assumes that the Coq theorem does not, said apart.  Each check is shown to fail
on a planted defect."""
from __future__ import annotations

import html
import re

import pytest

from bounds.prove import coq_math, coq_statements, coq_text
from bounds.prove.coq_statements import ALONE_MEANS, alone_words, differences


def test_every_coq_theorem_that_adds_a_hypothesis_or_states_a_repaired_form_names_it():
    """A Coq text that adds a hypothesis the printed statement lacks ("not in the printed statement", a Section
    hypothesis ``... mod d1 = 0``), or a statement the harness encodes in a repaired form (a reading 'printed'),
    names its differences; a statement that does neither names none."""
    from bounds.catalogue import STATEMENTS

    for name, (_, _, text) in coq_text.FORMAL.items():
        adds = "not in the printed statement" in text or re.search(r"mod \w+ = 0", text)
        repaired = "printed" in (getattr(STATEMENTS[name], "variants", None) or {})
        if adds or repaired:
            assert differences(name), name
        if re.search(r"mod \w+ = 0", text):
            assert any("divides" in d for d in differences(name)), (name, differences(name))
    assert differences("lemma8") == [] and differences("lemma5") == []
    assert "kappa = 65" in differences("theorem14")[0] and "alpha >= 1" in differences("theorem10")
    assert any("twice the printed bound" in d for d in differences("lemma13"))


def test_a_coq_text_without_its_differences_is_caught(monkeypatch):
    """Planted: Theorem 9's Coq text with its "Differences" sentence removed reads as the printed statement."""
    params, premises, text = coq_text.FORMAL["theorem9"]
    cut = re.sub(r"Differences\s+from\s+the\s+printed\s+statement:.*?\*\)", "*)", text, flags=re.S)
    monkeypatch.setitem(coq_text.FORMAL, "theorem9", (params, premises, cut))
    assert differences("theorem9") == []
    assert alone_words("theorem9", True).endswith("of the statement as printed")


def test_the_alone_sentence_names_its_form():
    words = alone_words("theorem9", True)
    assert words.startswith("proved in Coq from Lueker's corollary alone, probabilities included, of the statement "
                            "with these differences from the printed one: d1 divides n_K and n_V")
    assert alone_words("lemma8", True).endswith("of the statement as printed")
    assert alone_words("theorem9", False).startswith("NOT proved in Coq from Lueker's corollary alone")
    assert alone_words("theorem9", True, []).endswith("as printed")  # a record's own differences are used


def test_the_counts_say_what_alone_means_and_never_count_the_corollary():
    """The counts line carries ``ALONE_MEANS``; the statements counted are those with an encoded proof, Lueker's
    corollary (a cited result) never among them; a catalogue that gave the corollary steps would count it."""
    c = coq_math.counts()
    assert "lueker" not in coq_statements.proved_statements()
    assert c["statements"] == len(coq_statements.proved_statements())
    line = coq_math.counts_line(c)
    assert line.endswith(f"{c['alone']} of {c['statements']} ({ALONE_MEANS})")
    assert "the corollary itself, a cited result, is not counted" in ALONE_MEANS


def _axioms_text(names, stated=None):
    from reports.proofs import coq_axioms_text

    stated = stated or {n: (p, []) for n, p in coq_math.declared_rests().items()}
    return coq_axioms_text(names, stated, {})


def assumed_unscoped(text: str) -> list[str]:
    """The premises of an ``--axioms --coq`` block said "assumed, not checked" without saying whether the
    statement's Coq theorem assumes them too (in a block whose Coq theorem is formalized)."""
    out = []
    for block in text.split("\n\n"):
        if "Coq theorem stmt_" not in block:
            continue
        for line in block.splitlines():
            if line.strip().startswith("assumed, not checked") and "Coq theorem stmt_" not in line:
                out.append(line.strip()[:120])
    return out


def test_axioms_coq_says_which_premises_the_coq_theorem_does_not_assume():
    """``slth proofs --axioms --coq`` (its text from the declared rests, which tests/test_coq_math.py holds equal to
    Coq's closed types): Theorem 9's block says it is proved from Lueker's corollary alone, of the form its Coq text
    names, and each premise its written proof assumes is said to be assumed by the written proof only, or a
    hypothesis of the Coq theorem too; a line without that scope is found."""
    text = _axioms_text(["theorem9", "lemma12"])
    t9 = text.split("\n\n")[0]
    assert alone_words("theorem9", True) in t9
    assert "n = d1 n' when d1 does not divide n" in t9
    assert re.search(r"n = d1 n' when d1 does not divide n:.*\n\s+assumed, not checked .*; assumed by the written "
                     r"proof only: not a hypothesis of the Coq theorem stmt_theorem9", t9)
    assert "; a hypothesis of the Coq theorem stmt_theorem9 too" in t9  # Lueker's own premises
    assert "a hypothesis of the Coq theorem stmt_lemma12 too" in text.split("\n\n")[1]
    assert assumed_unscoped(text) == []
    assert text.rstrip().endswith(f"({ALONE_MEANS})")
    planted = re.sub(r"; assumed by the written proof only: not a hypothesis of the Coq theorem stmt_theorem9", "",
                     text)
    assert assumed_unscoped(planted)


def test_the_proof_map_says_the_same_sentence(proofs_record):
    """The proof map's tooltip of a statement proved from Lueker's corollary alone is ``alone_words`` with the
    record's differences (Theorem 14: kappa = 65), never the bare "alone" without its form."""
    from reports import proofmap
    from slt import claims

    raw = html.unescape(proofmap.svg(proofmap.graph(proofs_record, claims.proof_verdicts(proofs_record))))
    nodes = raw[:raw.index('<g class="legend"')]  # the nodes' tooltips, then the text the legend wraps
    svg = nodes + " " + " ".join(re.sub(r"<[^>]+>", " ", raw).split())
    formal = proofs_record["formalization"]["statements"]
    for name in ("theorem14", "theorem9", "lemma8"):
        assert alone_words(name, True, formal[name]["differences"]) in svg, name
    rest = svg.replace(ALONE_MEANS, "").replace("statements proved in Coq from Lueker's corollary alone", "")
    assert not re.search(r"from Lueker's corollary alone(?!, probabilities included)(?! \(how its)", rest)


def test_lemma12s_coq_check_says_whether_coqc_ran(monkeypatch, tmp_path):
    """Lemma 12's own Coq check says "kernel-checked in this run" only when coqc ran for it; its cached answer read
    back says so ("kernel verdicts read back, no coqc in this run", with Coq's version), as the proof steps' source
    does (``reports.record.verified.lemma12`` with no committed result)."""
    from bounds.prove import kernel
    from reports.record import verified
    from slth_base import settings

    monkeypatch.setattr(coq_math, "missing_reason", lambda: None)
    monkeypatch.setattr(settings, "cache_home", lambda: tmp_path)
    ran = []
    monkeypatch.setattr(coq_math, "compile", lambda tmp, files: (ran.append(1) or True, ""))
    monkeypatch.setattr(coq_math, "printed_logit_check", lambda tmp: {"proof": "rejected", "refuted": True})
    monkeypatch.setattr(coq_math, "coqc_version", lambda: "8.16.1")
    monkeypatch.setattr(verified, "_committed", lambda *a, **k: None)
    first = verified.lemma12()
    second = verified.lemma12()
    assert ran == [1]
    assert first["source"] == kernel.REPLAYED
    assert second["source"].startswith(kernel.STORED) and "8.16.1" in second["source"]
    assert {k: v for k, v in second.items() if k != "source"} == {k: v for k, v in first.items() if k != "source"}


@pytest.mark.parametrize("page", ["docs/kernel-checked.md"])
def test_the_docs_name_each_statements_form(page):
    """docs/kernel-checked.md lists each statement proved from Lueker's corollary alone with its form (the
    generated block ``coq-counts``), and says what "alone" means."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / page).read_text()
    assert ALONE_MEANS in text
    bp = coq_math.blueprint()
    for name, s in bp["statements"].items():
        if s["lueker_alone"]:
            words = alone_words(name, True, s["differences"]).split(", probabilities included, ")[1]
            assert f"- `{name}`: {words}" in text, name
