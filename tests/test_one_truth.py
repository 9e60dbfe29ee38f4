"""One claim, one value, on every surface a referee reads: the report rendered from the record the README and docs
describe, the README, every page of ``docs/`` and ``slth proofs``' terminal text.  For each kind of claim -- a
count, a verdict (and what it is about: as printed or as repaired), a domain, a method, a timing, a numbering --
every surface that states it states the value the one deciding function gives (``slt.claims``,
``slt.measure.findings``, ``bounds.prove.coq_math``).  Each check is a function returning the disagreements, and
each is shown to find a planted one."""
from __future__ import annotations

import html as htmllib
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from slt import claims

ROOT = Path(__file__).resolve().parents[1]
TAG = re.compile(r"<[^>]+>")
GENERATED = re.compile(r"<!-- generated: ([a-z0-9-]+) -->\n.*?<!-- end generated: \1 -->", re.S)


def _text(page: str) -> str:
    return " ".join(htmllib.unescape(TAG.sub(" ", page)).split())


def _pages() -> dict[str, str]:
    out = {"README.md": (ROOT / "README.md").read_text()}
    out.update({f"docs/{p.name}": p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))})
    return out


@pytest.fixture(scope="module")
def surfaces(docs_record):
    """``(record, {surface: text})``: the report of the record the pages describe (its visible text), each page
    with its newlines folded, and the terminal summary of ``slth proofs`` over the record's steps."""
    from reports.build import render_html, render_sections
    from reports.proofs import summary

    page = render_html(render_sections(docs_record), docs_record)
    out = {"report": _text(page)}
    out.update({name: " ".join(text.split()) for name, text in _pages().items()})
    results = [SimpleNamespace(statement=s["statement"], step=s["step"], ok=s["verdict"] == "certified",
                               verdict=s["verdict"], method=s["method"], domain=s["domain"], arb=s.get("arb", ""),
                               certificate=None, reason="", coq="") for s in docs_record["steps"]]
    out["slth proofs"] = " ".join(summary(results).split())
    return docs_record, out


# --- the checks: each returns the disagreements ("surface: stated value, expected value") ------------------------

def counts_disagree(record: dict, surfaces: dict) -> list[str]:
    """Step counts: every "N proof steps (...): a certified, b refuted, c not proved" is the record's."""
    want = claims.step_counts_sentence(record).split(" (of the certified")[0]
    pattern = re.compile(r"\d+ proof steps \(\d+ steps of the encoded proofs and \d+ scalar facts?\): \d+ certified, "
                         r"\d+ refuted, \d+ not proved")
    return [f"{name}: {m.group(0)!r}, expected {want!r}" for name, text in surfaces.items()
            for m in pattern.finditer(text) if m.group(0) != want]


def verdicts_disagree(record: dict, surfaces: dict) -> list[str]:
    """Statement verdicts name their object: every "N statements certified as printed; M certified only as
    repaired (...)" is the record's, and no surface counts statements "certified" without saying of what."""
    c = claims.object_counts(record)
    want = f"{c['certified as printed']} statements certified as printed; {c['certified as repaired']} certified " \
           "only as repaired"
    out = [f"{name}: {m.group(0)!r}, expected {want!r}" for name, text in surfaces.items()
           for m in re.finditer(r"\d+ statements? certified as printed; \d+ certified only as repaired", text)
           if m.group(0) != want]
    out += [f"{name}: {m.group(0)!r} names no object" for name, text in surfaces.items()
            for m in re.finditer(r"\d+ statements? certified, \d+ refuted", text)]
    return out


def domains_disagree(record: dict, surfaces: dict) -> list[str]:
    """The domain: every "on the whole ... domain" is ``claims.domain_words("whole")`` (or "on the whole domain", or
    the verifier's own "on the whole hypothesis domain", the same domain), and no surface says the
    certified steps hold "on a stated box" when the record certifies each on its whole domain."""
    want = claims.domain_words("whole")
    out = [f"{name}: {m.group(0)!r}, expected {want!r}" for name, text in surfaces.items()
           for m in re.finditer(r"on the whole (?:\w+ ){0,2}domain", text) if m.group(0) not in (want, "on the whole domain", "on the whole hypothesis domain")]
    if all(claims._domain_kind(s["domain"]) == "whole" for s in record["steps"] if s["verdict"] == "certified"):
        out += [f"{name}: says the steps are verified on a stated box" for name, text in surfaces.items()
                if re.search(r"verified \(symbolically, or by an interval certificate on a stated box\)", text)]
    return out


def methods_disagree(record: dict, surfaces: dict) -> list[str]:
    """The method: every "N symbolically (SymPy), M by an interval certificate; of the M interval steps K
    re-checked in Arb" is the record's (``claims.first_pass_sentence``); no surface says every pre-checked step
    was checked by Arb."""
    want = re.search(r"\d+ symbolically \(SymPy\), \d+ by an interval certificate.*?re-checked in Arb",
                     claims.first_pass_sentence(record["steps"])).group(0)
    out = [f"{name}: {m.group(0)!r}, expected {want!r}" for name, text in surfaces.items()
           for m in re.finditer(r"\d+ symbolically \(SymPy\), \d+ by an interval certificate.*?re-checked in Arb",
                                text) if m.group(0) != want]
    out += [f"{name}: {m.group(0)!r}" for name, text in surfaces.items()
            for m in re.finditer(r"pre-checked by SymPy, interval arithmetic and Arb \(\d+ of \d+\)", text)]
    return out


DURATION = re.compile(r"\b\d+(?:\.\d+)? ?(?:s|ms|min|seconds?|minutes?|hours?)\b(?! =)|\b(?:seconds|minutes)\b")
SETTING = re.compile(r"[Ll]imit|[Bb]udget|[Dd]efault|SECONDS|[Tt]imeout|handshake|within|each at|per call|take over")


BENCHMARK_PAGES = ("docs/performance.md",)
"""The page the subset-sum benchmark script's own output is quoted on; it is being rebuilt from the benchmarks' JSON
and is not scanned here."""


def timings_disagree(record: dict, surfaces: dict, pages: dict | None = None) -> list[str]:
    """Timings: the report's run time is the record's total over every phase (never less than their sum); a
    duration on a page (README, docs) stands only inside a generated block (printed from a benchmark's JSON with
    its conditions), or names a setting (a time limit, a budget), never a measurement typed in prose."""
    wall = record["provenance"]["wall_s"]
    out = []
    phases = sum(v for k, v in wall.items() if k != "total")
    if wall["total"] < phases * 0.999:
        out.append(f"record: total {wall['total']:.1f} s < the phases' sum {phases:.1f} s")
    m = re.search(r"run time (\S+) s", surfaces["report"])
    from reports.render import fmt
    if not m or m.group(1) != fmt(wall["total"], 3):
        out.append(f"report: run time {m and m.group(1)!r}, expected {fmt(wall['total'], 3)}")
    for name, text in (_pages() if pages is None else pages).items():
        if name in BENCHMARK_PAGES:
            continue
        for n, line in enumerate(GENERATED.sub("", text).splitlines(), 1):
            if line.lstrip().startswith(("|", "```")) or SETTING.search(line):
                continue
            for hit in DURATION.finditer(line):
                out.append(f"{name}:{n}: {hit.group(0)!r} in prose: {line.strip()[:100]}")
    return out


def numbering_disagrees(record: dict, surfaces: dict) -> list[str]:
    """Numbering: each statement's heading is ``claims.numbering_heading`` wherever a heading is printed; no surface
    prints a numbering inside another ("main text: (appendix only)", "main text: Theorem 11 (appendix only)") or
    names a cited result by the paper that cites it first."""
    out = []
    for name, text in surfaces.items():
        for bad in re.findall(r"\(main text: \(|main text: [^()]*\(appendix only\)|\(main text: [^()]*\([^()]*\):",
                              text):
            out.append(f"{name}: {bad!r}")
    for st in record["statements"]:
        want = claims.numbering_heading(st["numbering"], st["name"])
        appendix, main = st["numbering"].get("appendix") or "", st["numbering"].get("main") or ""
        if main and not appendix.split(" ")[0] in ("Lemma", "Theorem", "Corollary"):  # a cited result
            wrong = f"{appendix} (main text: {main})"
            out += [f"{name}: {wrong!r}, expected {want!r}" for name, text in surfaces.items() if wrong in text]
        if want not in surfaces["report"]:
            out.append(f"report: no heading {want!r}")
    return out


def coq_count_disagrees(record: dict, surfaces: dict) -> list[str]:
    """The Coq count line: the proof map's legend, the README and the record's formalization print the one line of
    ``bounds.prove.coq_math.blueprint``; every "statements proved in Coq from Lueker's corollary alone ..." says
    the same K of S."""
    from bounds.prove import coq_math

    want = coq_math.blueprint()["line"]
    out = [f"{name}: no {want!r}" for name in ("report", "README.md") if want not in surfaces[name]]
    pattern = re.compile(r"statements proved (?:in Coq )?from Lueker's corollary alone(?:, probabilities included)?: "
                         r"\d+ of \d+")
    tail = re.search(pattern, want).group(0)
    out += [f"{name}: {m.group(0)!r}, expected {tail!r}" for name, text in surfaces.items()
            for m in pattern.finditer(text) if m.group(0) != tail]
    return out


CHECKS = {"count": counts_disagree, "verdict": verdicts_disagree, "domain": domains_disagree,
          "method": methods_disagree, "timing": timings_disagree, "numbering": numbering_disagrees,
          "coq count": coq_count_disagrees}


@pytest.mark.parametrize("kind", list(CHECKS))
def test_every_surface_states_the_same_value(kind, surfaces):
    record, texts = surfaces
    assert CHECKS[kind](record, texts) == []


PLANTS = {  # kind -> (surface, text a surface that disagrees would hold)
    "count": ("README.md", "71 proof steps (66 steps of the encoded proofs and 5 scalar facts): 70 certified, 1 refuted, "
                           "0 not proved"),
    "verdict": ("report", "11 statements certified, 0 refuted"),
    "domain": ("report", "every step of the encoded proof verified (symbolically, or by an interval certificate on a "
                         "stated box)"),
    "method": ("report", "certified means pre-checked by SymPy, interval arithmetic and Arb (71 of 71)"),
    "numbering": ("docs/statements.md", "Lemma 12 (main text: (appendix only))"),
    "coq count": ("docs/kernel-checked.md", "statements proved from Lueker's corollary alone: 6 of 11"),
}


@pytest.mark.parametrize("kind", list(PLANTS))
def test_each_check_finds_a_planted_disagreement(kind, surfaces):
    record, texts = surfaces
    name, planted = PLANTS[kind]
    assert CHECKS[kind](record, {**texts, name: texts[name] + " " + planted})


def test_the_timing_check_finds_a_typed_duration_and_a_short_total(surfaces):
    record, texts = surfaces
    pages = {"docs/x.md": "`slth run --proofs-only` takes seconds.\n`slth diff` runs in 12 s.\n"}
    found = timings_disagree(record, texts, pages)
    assert len([f for f in found if f.startswith("docs/x.md")]) == 2
    short = {**record, "provenance": {**record["provenance"],
                                      "wall_s": {**record["provenance"]["wall_s"], "total": 1.0}}}
    assert any("phases' sum" in f for f in timings_disagree(short, texts, {}))


# --- history and words a reader cannot decode -----------------------------------------------------------------------

HISTORY = re.compile(r"\b[Tt]oday\b|today's|tuned away|\bthe new C\b|on random targets it was")


def history(surfaces: dict) -> list[str]:
    return [f"{name}: {m.group(0)!r}" for name, text in surfaces.items() for m in HISTORY.finditer(text)]


def test_no_surface_speaks_of_its_past(surfaces):
    _, texts = surfaces
    assert history(texts) == []
    assert history({"x": "Today, in the record"}) and history({"x": "(today's reading)"})


def test_every_word_of_the_page_a_reader_cannot_decode_is_explained(surfaces):
    """Every target family the report names, "antitonic", "pre-checked", "not exported", "sampled" and "as
    printed / as repaired" are in the glossary; ``slth proofs`` prints a key of its column words first."""
    from reports.proofs import KEY
    from reports.sections.glossary import terms
    from slt.targets import FAMILIES

    _, texts = surfaces
    glossary = dict(terms())
    for family in FAMILIES:
        if family in texts["report"]:
            assert f"target family {family}" in glossary, family
    for word in ("antitonic fit", "pre-checked", "not exported", "sampled", "as printed / as repaired"):
        assert word in glossary
    for word in ("pre-checked", "not exported", "sampled"):
        assert word in KEY


def test_the_findings_about_the_harness_are_apart_from_those_about_the_paper(docs_record):
    from slt.measure import findings

    about = {f["id"]: f["about"] for f in docs_record["findings"]["items"]}
    assert about["worst-targets"] == about["fixed-c-growth"] == findings.ABOUT_HARNESS
    assert {a for i, a in about.items() if i not in ("worst-targets", "fixed-c-growth")} == {findings.ABOUT_PAPER}


def test_every_target_family_has_its_meaning_in_words():
    from slt.target_words import FAMILY_MEANING
    from slt.targets import FAMILIES

    assert set(FAMILY_MEANING) == set(FAMILIES) and all(FAMILY_MEANING.values())
