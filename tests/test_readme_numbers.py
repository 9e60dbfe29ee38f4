"""No number in the README is typed by hand: every count, ratio, point, timing and verdict it states is printed
between generated markers by ``slth docs`` from the function that decides it (the findings from
``slt.measure.findings``, the proof counts from ``slt.claims``, the test time from the stored benchmark), so a
hand-typed claim that creeps back in fails here.

What may stand outside a generated block, besides code spans, fenced code and link targets (commands, paths, test
ids), is the short list ``ALLOWED``: the paper's own identity and numbering, and settings and exit statuses that are
checked against the code that defines them."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

ALLOWED = {
    "arXiv 2511.04217": "the paper's arXiv identifier",
    "AAAI 2026": "where the paper appeared",
    "Figures 4-8": "the paper's figure numbers (checked: `slth reproduce` knows fig4 .. fig8)",
    '"Theorem 9 (main text: Theorem 3)"': "an example of the paper's two numberings (checked against bounds/)",
    "S2c-ii: step 2c, part ii, of Theorem 9's proof": "how a step id reads (checked: Theorem 9 has step S2c-ii)",
    "default 60 s of CPU": "the default time guard of a stage (checked against slth_base.settings)",
    "exits 1": "the exit status of a failed step (checked against the exit statuses below)",
    "Exit status of every command: 0 done, 1 a proof step failed or a bound was violated, 2 a usage error":
        "the exit statuses (checked against reports.cli)",
    "3 the harness's own code does not import, 130 interrupted": "the exit statuses (checked against reports.cli)",
    "counts at least 1": "what a count option must be",
    "up to 256 MiB at most": "the largest file read (checked against slt.inputs.MAX_BYTES)",
}
"""Every phrase with a digit that the README may carry outside a generated block, and why it is not a claim about
a run."""


def prose(text: str) -> str:
    """``text`` without its generated blocks, fenced code, code spans and link targets."""
    text = re.sub(r"<!-- generated: ([a-z0-9-]+) -->.*?<!-- end generated: \1 -->", " ", text, flags=re.DOTALL)
    text = re.sub(r"```.*?```", " ", text, flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`", "``", text)
    return re.sub(r"\]\([^)\s]*\)", "]", text)


def hand_typed_numbers(text: str) -> list[str]:
    """Every line of ``text``'s prose that still holds a digit once the ``ALLOWED`` phrases are taken out."""
    body = prose(text)
    for phrase in ALLOWED:
        body = body.replace(phrase, " ")
    return [line.strip() for line in body.splitlines() if re.search(r"\d", line)]


def test_the_readme_states_no_number_by_hand():
    hits = hand_typed_numbers(README.read_text())
    assert hits == [], ("README.md states numbers outside a generated block (print them with `slth docs` from "
                        f"the function that decides them, or add a documented phrase to ALLOWED): {hits}")


def test_a_hand_typed_number_in_the_readme_is_found():
    """The check can fail: a finding's ratio typed into the prose, a count beside a generated block, a timing."""
    text = README.read_text()
    assert hand_typed_numbers(text + "\nThe worst ratio is 0.38.\n") == ["The worst ratio is 0.38."]
    assert hand_typed_numbers(text.replace("## Everyday commands", "All 71 steps are certified.\n\n## Everyday "
                                           "commands")) == ["All 71 steps are certified."]
    assert hand_typed_numbers("`slth report` takes about 10 s of CPU.") == ["`` takes about 10 s of CPU."]
    assert hand_typed_numbers("<!-- generated: x -->\n71 steps\n<!-- end generated: x -->\n[a](docs/a1.md) `fig4`") == []


def test_every_allowed_phrase_is_in_the_readme_and_true():
    """Each allowed phrase is still in the README (a stale entry is removed) and says what the code does."""
    from bounds import catalogue
    from slth_base import settings
    from reports import cli
    from slt.inputs import MAX_BYTES

    text = prose(README.read_text())
    assert [p for p in ALLOWED if p not in text] == []
    assert settings.DEFAULT_SYMPY_SECONDS == 60
    assert MAX_BYTES == 256 * 2 ** 20
    assert cli.BROKEN_CODE == 3 and cli.INTERRUPTED == 130
    doc = " ".join(cli.__doc__.split())
    assert "0 done, 1 a proof step failed or a bound was violated, 2 a usage error" in doc
    st = catalogue.STATEMENTS["theorem9"]
    assert st.numbering["appendix"] == "Theorem 9" and st.numbering["main"] == "Theorem 3"
    assert "S2c-ii" in {s.name for s in catalogue.proof("theorem9")}
    from slt import figures

    assert {f"fig{n}" for n in range(4, 9)} <= set(figures.names()), figures.names()


def test_the_readme_findings_are_what_the_findings_function_renders(docs_record):
    """The README's findings block is ``slt.measure.findings``' items printed line by line (one per finding, the
    title with its numbers, the evidence link and the test), nothing typed beside it."""
    from reports import statements_page

    text = README.read_text()
    block = text.split("<!-- generated: findings -->\n", 1)[1].split("\n<!-- end generated: findings -->", 1)[0]
    section = text.split("## What it found", 1)[1].split("\n## ", 1)[0]
    numbered = [line for line in block.splitlines() if re.match(r"\d+\. ", line)]
    assert [line for line in section.splitlines() if re.match(r"\d+\. ", line)] == numbered
    assert block == statements_page.findings_list(docs_record)
    assert "not in this record" not in block  # the record the README describes holds every finding's data
    from slt.measure import findings

    assert len(numbered) == len(findings.FINDINGS)
    # split by what each finding is about: the paper first, then this harness's own constants, then a solver's
    paper, _, rest = block.partition(f"About {findings.ABOUT_HARNESS}:")
    harness, _, solver = rest.partition(f"About {findings.ABOUT_SOLVER}:")
    assert paper.startswith(f"About {findings.ABOUT_PAPER}:") and harness and solver
    for part, about in ((harness, findings.ABOUT_HARNESS), (solver, findings.ABOUT_SOLVER)):
        assert {fid for fid in re.findall(r"docs/findings\.md#([a-z0-9-]+)", part)} == {
            f["id"] for f in docs_record["findings"]["items"] if f["about"] == about}
