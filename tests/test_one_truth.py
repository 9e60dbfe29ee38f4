"""One claim, one value, on every surface a referee reads: the report rendered from the record the README and docs
describe, the README, every page of ``docs/`` and ``slth proofs``' terminal text.  For each kind of claim -- a
count, a verdict (and what it is about: as printed or as repaired), a domain, a method, a timing, a numbering --
every surface that states it states the value the one deciding function gives (``slt.claims``,
``slt.measure.findings``, ``bounds.prove.coq_math``).  Each check is a function returning the disagreements, and
each is shown to find a planted one."""
from __future__ import annotations

import argparse
import html as htmllib
import os
import re
import subprocess
import sys
from pathlib import Path

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


def proofs_terminal(factory) -> str:
    """What ``slth proofs`` prints on a terminal, run as a reader runs it the second time (a subprocess with a warm
    verdict store, a copy of the session's: ``tests.coq_shared.seeded_verdicts``)."""
    from tests.coq_shared import seeded_verdicts

    env = {k: v for k, v in os.environ.items() if k != "SLTH_TRIAL_CACHE"}
    env.update(seeded_verdicts(factory, "one-truth"))
    done = subprocess.run([sys.executable, "-m", "reports.cli", "proofs", "--no-progress"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def axioms_coq_text() -> str:
    """What ``slth proofs --axioms --coq`` prints after its stderr line, made by the same function from the
    declared rests of each Coq theorem (``coq_math.declared_rests``, which tests/test_coq_math.py holds equal to
    Coq's closed types and Print Assumptions), without compiling Coq."""
    import bounds
    from bounds.prove import coq_math
    from reports.proofs import coq_axioms_text

    stated = {n: (p, []) for n, p in coq_math.declared_rests().items()}
    return coq_axioms_text(bounds.names(), stated, {})


def help_texts() -> str:
    """``slth --help`` and every command's ``--help``, as argparse prints them."""
    from reports import cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001 (argparse)
    return "\n\n".join([parser.format_help()] + [p.format_help() for p in sub.choices.values()])


@pytest.fixture(scope="module")
def surfaces(docs_record, tmp_path_factory):
    """``(record, {surface: text})``: the report of the record the pages describe (its visible text), each page
    with its newlines folded, the real terminal output of ``slth proofs``, the text of ``slth proofs --axioms
    --coq`` and the help of every command."""
    from reports.build import render_html, render_sections

    page = render_html(render_sections(docs_record), docs_record)
    out = {"report": _text(page)}
    out.update({name: " ".join(text.split()) for name, text in _pages().items()})
    out["slth proofs"] = " ".join(proofs_terminal(tmp_path_factory).split())
    out["slth proofs --axioms --coq"] = " ".join(axioms_coq_text().split())
    out["--help"] = " ".join(help_texts().split())
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
    """The domain: every "on the whole ... domain" is ``claims.domain_words("whole")`` (one name for the one domain,
    the verifier's words included), and no surface says the certified steps hold "on a stated box" when the
    record certifies each on its whole domain."""
    want = claims.domain_words("whole")
    out = [f"{name}: {m.group(0)!r}, expected {want!r}" for name, text in surfaces.items()
           for m in re.finditer(r"on the whole (?:\w+ ){0,2}domain", text) if m.group(0) != want]
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
SETTING = re.compile(r"[Ll]imit|[Bb]udget|\b[Dd]efault\b|SECONDS|[Tt]imeout|handshake|within|each at|per call|take over")


BENCHMARK_PAGES = ("docs/performance.md",)
"""The page the subset-sum benchmark script's own output is quoted on; it is being rebuilt from the benchmarks' JSON
and is not scanned here."""


def timings_disagree(record: dict, surfaces: dict, pages: dict | None = None) -> list[str]:
    """Timings: the report's run time is the record's total over every phase (never less than their sum); a
    duration on a page (README, docs, every command's --help) stands only inside a generated block (printed from a benchmark's JSON with
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
    for name, text in ({**_pages(), "--help": help_texts()} if pages is None else pages).items():
        if name in BENCHMARK_PAGES:
            continue
        for n, line in enumerate(GENERATED.sub("", text).splitlines(), 1):
            if line.lstrip().startswith(("|", "```")):
                continue
            for hit in DURATION.finditer(line):
                if SETTING.search(line[max(0, hit.start() - 60):hit.end() + 20]):  # a setting named beside it
                    continue
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
        bare = main.split(" (")[0]
        if main and bare != appendix.split(" (")[0] and re.fullmatch(r"(?:Lemma|Theorem) \d+", bare):
            # a main-text number used as a name, where the appendix's is the name every surface heads it with
            pattern = re.compile(rf"(?<!main text: )(?<!main text )(?<![\w(]){re.escape(bare)}\b(?! of )"
                                 r"(?! \(main text\))")
            out += [f"{name}: {bare!r} as a name ({text[max(0, m.start() - 30):m.end() + 20]!r})"
                    for name, text in surfaces.items() for m in pattern.finditer(text)]
    ids = "|".join(re.escape(st["name"]) for st in record["statements"])
    out += [f"{name}: {m.group(0)!r} (an id where a name is printed)" for name, text in surfaces.items()
            for m in re.finditer(rf"(?<![\w`:/-])(?:{ids}): (?:the calibrated C|no held-out point|not run|undecided at)",
                                 text)]
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


ALONE = re.compile(r"proved (?:in Coq )?from Lueker's corollary alone(?=(?P<tail>.{0,60}))")
FORM = (", probabilities included, of the statement", ", probabilities included, each of the form",
        " (how its Coq theorem differs")
"""How a sentence about one statement (or a list of them) goes on: with the form of the statement it is said of."""


def alone_disagrees(record: dict, surfaces: dict) -> list[str]:
    """"Proved in Coq from Lueker's corollary alone": said of a statement, it names the form of the statement it is
    said of (``coq_statements.alone_words``: "of the statement as printed" or "with these differences from the
    printed one: ..."); said as a count, the surface says what "alone" means (``coq_statements.ALONE_MEANS``).  A
    legend of the proof map's star ("a star marks ...") and a quotation of the count's words are neither."""
    from bounds.prove.coq_statements import ALONE_MEANS

    out = []
    for name, text in surfaces.items():
        plain = text.replace(ALONE_MEANS, "")
        for m in ALONE.finditer(plain):
            tail = m.group("tail")
            if plain[max(0, m.start() - 40):m.start()].endswith(("a star marks a statement ",
                                                                   "a star marks the statements ")) \
                    or tail.startswith(('"', ", probabilities included\"", ", probabilities included;")):
                continue
            if re.match(r", probabilities included: \d+ of \d+", tail) or re.match(r": \d+ of \d+", tail):
                if ALONE_MEANS not in text:
                    out.append(f"{name}: counts {m.group(0)!r} without what 'alone' means")
            elif not tail.startswith(FORM):
                out.append(f"{name}: {m.group(0)!r} names no form of the statement")
    return out


def printed_disagrees(record: dict, surfaces: dict) -> list[str]:
    """"As printed" means one thing: no surface calls the available copy's typesetting (d1 for sqrt(d1)) "as
    printed", and every surface that counts statements "certified as printed" says what certified certifies and
    which Coq theorems add hypotheses (``claims.certified_scope``)."""
    scope = claims.certified_scope(record)
    out = [f"{name}: 'as printed in the available copy'" for name, text in surfaces.items()
           if "as printed in the available copy" in text]
    out += [f"{name}: counts 'certified as printed' without its scope" for name, text in surfaces.items()
            if re.search(r"\d+ statements? certified as printed", text) and scope not in text]
    return out


def growth_disagrees(record: dict, surfaces: dict) -> list[str]:
    """Which C the fixed-C tests use: every "at the C the checks use ..." states the exceptions the record has
    (Theorem 9's fixed-C test at C = 8 where its checks use 5), as ``claims.growth_sentence`` words them; and the
    every-family run of a statement at a C other than its calibrated one says so."""
    want = re.search(r"at the C the checks use(?:, except [^:]*?\))?(?=: )", claims.growth_sentence(record))
    want = want.group(0) if want else None
    pattern = re.compile(r"at the C the checks use(?:, except [^:]*?\))?(?=: )")
    out = [f"{name}: {m.group(0)!r}, expected {want!r}" for name, text in surfaces.items()
           for m in pattern.finditer(text) if m.group(0) != want]
    from slt.measure.findings_constants import fmt
    for n, rec in ((record.get("calibration") or {}).get("statements") or {}).items():
        v = rec.get("targets_verify") if isinstance(rec.get("targets_verify"), dict) else None
        if v and v.get("C") is not None and float(v["C"]) != float(rec["C"]):  # every family run at another C
            head = f"{claims.label(record, n)}: C = {fmt(rec['C'])} is calibrated"
            for name, text in surfaces.items():
                for m in re.finditer(re.escape(head), text):
                    end = text.find(" is calibrated ", m.end())
                    if f"At C = {fmt(v['C'])} every family is run" in text[m.start():end if end > 0 else None]:
                        out.append(f"{name}: the every-family run of {n} at C = {fmt(v['C'])} without saying it "
                                   f"is not the C = {fmt(rec['C'])} the checks use")
    return out


def about_disagrees(record: dict, surfaces: dict) -> list[str]:
    """The findings are grouped by what they are about (``claims.findings_by_about``: the paper, this harness's
    constants, a solver it uses), under the same words and numbers in the README and the report."""
    out = []
    groups = claims.findings_by_about(record)
    for name, head, item in (("README.md", "About {}:", "{}. **"), ("report", "About {}", "Finding {}.")):
        text = surfaces[name]
        for i, (about, group) in enumerate(groups):
            start = text.find(head.format(about))
            if start < 0:
                out.append(f"{name}: no heading {head.format(about)!r}")
                continue
            nxt = [text.find(head.format(a), start + 1) for a, _ in groups[i + 1:]]
            end = min([e for e in nxt if e > 0] or [len(text)])
            for n, f in group:
                if item.format(n) not in text[start:end]:
                    out.append(f"{name}: finding {n} ({f['id']}) not under {head.format(about)!r}")
    return out


def scope_disagrees(record: dict, surfaces: dict) -> list[str]:
    """An empirical verdict says the points it is of (``claims.tested_scope``), and the finding that Lueker's
    corollary as cited is false for every C says that its point is not one of them."""
    out = []
    for st in record["statements"]:
        scope = claims.tested_scope(record, st["name"])
        if scope and scope not in surfaces["report"]:
            out.append(f"report: no {scope!r} for {st['name']}")
    lueker = next((f for f in record["findings"]["items"] if f["id"] == "lueker-printed"), None)
    if lueker and claims.tested_scope(record, "lueker"):
        if not any("this finding is about eps = exp(-1/C)" in s for s in lueker["sentences"]):
            out.append("finding lueker-printed: no scope against the corollary's tested points")
    return out


def prechecked_disagrees(record: dict, surfaces: dict) -> list[str]:
    """"Pre-checked" means the whole declared domain (``claims.PRECHECKED_MEANS``): no surface says a step was
    pre-checked on a box only, and the report's glossary and ``slth proofs``' key explain it so."""
    out = [f"{name}: {m.group(0)!r}" for name, text in surfaces.items()
           for m in re.finditer(r"pre-checked on (?:the |a )?(?:stated |search )?box", text)]
    out += [f"{name}: no {claims.PRECHECKED_MEANS[:40]!r}..." for name in ("report", "slth proofs")
            if claims.PRECHECKED_MEANS not in surfaces[name]]
    return out


def coq_source_disagrees(record: dict, surfaces: dict) -> list[str]:
    """Whether coqc ran is said of its object: the proof steps' kernel verdicts (``claims.kernel_source``) and
    Lemma 12's own Coq check (its record's ``source``) each say where their answers come from, and Lemma 12's
    sentence says it is about that check, not the steps."""
    out = []
    if claims.kernel_source(record) not in surfaces["report"]:
        out.append(f"report: no {claims.kernel_source(record)!r}")
    source = (record.get("coq_lemma12") or {}).get("source")
    if source:
        want = f"Coq's answers to this check (its own, apart from the proof steps' kernel verdicts): {source}"
        if want not in surfaces["report"]:
            out.append(f"report: no {want!r}")
    out += [f"{name}: {m.group(0)!r}" for name, text in surfaces.items()
            for m in re.finditer(r"Coq's answers: [^.]*", text)]
    return out


CHECKS = {"count": counts_disagree, "verdict": verdicts_disagree, "domain": domains_disagree,
          "method": methods_disagree, "timing": timings_disagree, "numbering": numbering_disagrees,
          "coq count": coq_count_disagrees, "alone": alone_disagrees, "as printed": printed_disagrees,
          "growth": growth_disagrees, "about": about_disagrees, "scope": scope_disagrees,
          "pre-checked": prechecked_disagrees, "coq source": coq_source_disagrees}


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
    "alone": ("slth proofs --axioms --coq", "stmt_theorem9 proved in Coq from Lueker's corollary alone, and more"),
    "as printed": ("docs/statements.md", "lemma8:d1: as printed in the available copy: d1 instead of sqrt(d1)"),
    "growth": ("README.md", "Not over eps = 0.3 .. 0.003 at the C the checks use: no test rejects"),
    "pre-checked": ("docs/proofs.md", "neither: e.g. pre-checked on the search box only"),
    "coq source": ("report", "Coq's answers: kernel-checked in this run."),
}


@pytest.mark.parametrize("kind", list(PLANTS))
def test_each_check_finds_a_planted_disagreement(kind, surfaces):
    record, texts = surfaces
    name, planted = PLANTS[kind]
    assert CHECKS[kind](record, {**texts, name: texts[name] + " " + planted})


def test_the_timing_check_finds_a_typed_duration_and_a_short_total(surfaces):
    record, texts = surfaces
    pages = {"docs/x.md": "`slth run --proofs-only` takes seconds.\n`slth diff` runs in 12 s.\n"
                          "With its defaults, `Mha.v` compiles in 4.1 s.\nA candidate gets 8 s by default.\n"}
    found = timings_disagree(record, texts, pages)
    assert len([f for f in found if f.startswith("docs/x.md")]) == 3  # a setting's "default" excuses its line only
    short = {**record, "provenance": {**record["provenance"],
                                      "wall_s": {**record["provenance"]["wall_s"], "total": 1.0}}}
    assert any("phases' sum" in f for f in timings_disagree(short, texts, {}))


# --- history and words a reader cannot decode -----------------------------------------------------------------------

HISTORY = re.compile(r"\b[Tt]oday\b|today's|tuned away|\bthe new C\b|on random targets it was|\bso far\b|"
                     r"not yet run|README finding \d")


def history(surfaces: dict) -> list[str]:
    return [f"{name}: {m.group(0)!r}" for name, text in surfaces.items() for m in HISTORY.finditer(text)]


def test_no_surface_speaks_of_its_past(surfaces):
    _, texts = surfaces
    assert history(texts) == []
    assert history({"x": "Today, in the record"}) and history({"x": "(today's reading)"})
    assert history({"x": "(812 CPU s so far)"}) and history({"x": "not yet run / undecided"})


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
    assert about["mip-tolerance"] == findings.ABOUT_SOLVER  # HiGHS's tolerances: a solver's, not the paper's
    assert {a for i, a in about.items() if i not in ("worst-targets", "fixed-c-growth", "mip-tolerance")} == {
        findings.ABOUT_PAPER}


def test_every_target_family_has_its_meaning_in_words():
    from slt.target_words import FAMILY_MEANING
    from slt.targets import FAMILIES

    assert set(FAMILY_MEANING) == set(FAMILIES) and all(FAMILY_MEANING.values())


def test_the_structural_checks_find_a_planted_disagreement(surfaces):
    """The findings' grouping, an empirical verdict's scope and the numbering checks each find a planted defect:
    the solver finding moved under "the paper" in the README, the Lueker row without its tested points, a main-text
    number used as a name, a held-out sentence by id."""
    record, texts = surfaces
    groups = dict(claims.findings_by_about(record))
    n_solver = groups[claims.ABOUT_SOLVER][0][0]
    readme = texts["README.md"]
    moved = readme.replace(f"About {claims.ABOUT_SOLVER}:", "").replace(f"About {claims.ABOUT_PAPER}:",
                                                                         f"About {claims.ABOUT_PAPER}: "
                                                                         f"{n_solver}. ** moved")
    assert about_disagrees(record, {**texts, "README.md": moved})
    scope = claims.tested_scope(record, "lueker")
    assert scope and scope_disagrees(record, {**texts, "report": texts["report"].replace(scope, "")})
    assert numbering_disagrees(record, {**texts, "docs/x.md": "the 4 of Lemma 5 and Theorem 3's width"})
    assert not numbering_disagrees(record, {**texts, "docs/x.md": "(main text: Lemma 5) and main text Theorem 3"})
    assert numbering_disagrees(record, {**texts, "docs/x.md": "- lemma7: the calibrated C = 8 holds"})
    t9 = record["calibration"]["statements"]["theorem9"]
    old = (f"Theorem 9: C = {t9['C']:g} is calibrated at the worst target family found (identity); at C = 1.4 the "
           f"identity targets failed. At C = {t9['targets_verify']['C']:g} every family is run (30 trials each)")
    assert growth_disagrees(record, {**texts, "docs/x.md": old})  # the sentence before it named its C


def test_the_real_terminal_and_help_are_read(surfaces):
    """The surfaces are the real ones: ``slth proofs``' own output (its counts and key), ``--axioms --coq``'s
    blocks and every command's help."""
    record, texts = surfaces
    assert claims.step_units(record) in texts["slth proofs"]
    assert "columns: verdict = certified" in texts["slth proofs"]
    assert "== theorem9" in texts["slth proofs --axioms --coq"]
    assert "usage: slth proofs" in texts["--help"] and "usage: slth report" in texts["--help"]
