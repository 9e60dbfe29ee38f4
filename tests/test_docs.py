"""The README and docs/ say what the repository holds: the generated pages equal their generator's output, every
relative link resolves (file and #anchor), the README stays short and lists exactly the report's findings, each
with a test that exists, and no page cites a file the repository does not have or carries project history."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from reports import statements_page

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
REGENERATE = f"regenerate with `{statements_page.COMMAND}`"


# ------------------------------------------------------------------------------------------ generated pages

def test_the_generated_pages_equal_the_generator_output(docs_record):
    """docs/statements.md is bounds/ printed, every generated table is its committed file printed, and every claim
    the README and docs make about the run record (proof counts, "does C grow?", the findings) is the record printed
    by slt.claims and slt.measure.findings: an edit of bounds/, of a committed data file or of what the record says
    that is not regenerated fails here."""
    for path, text in statements_page.pages(docs_record).items():
        assert path.exists(), f"{path.relative_to(ROOT)} is missing: {REGENERATE}"
        assert path.read_text() == text, f"{path.relative_to(ROOT)} differs from what bounds/ and the committed " \
                                         f"files give: {REGENERATE}"


def test_the_committed_statements_v_is_what_bounds_prints_and_an_edit_makes_it_stale(monkeypatch):
    """``proofs/coq/statements/Statements.v`` is one of the generated pages: ``statements_file()`` exactly, and a
    constant of bounds/ edited (Lemma 8's factor 4 halved) gives another text, which the check above then refuses."""
    import dataclasses

    from bounds.catalogue import STATEMENTS
    from bounds.prove import coq_math

    assert coq_math.STATEMENTS_V.read_text() == coq_math.statements_file(), REGENERATE
    st = STATEMENTS["lemma8"]
    monkeypatch.setitem(STATEMENTS, "lemma8", dataclasses.replace(st, conclusion=st.conclusion / 2))
    assert coq_math.statements_file() != coq_math.STATEMENTS_V.read_text()


def test_an_edit_of_bounds_changes_the_statements_page():
    """The check can fail: a statement edited in the catalogue gives a different page (what a stale page is)."""
    import dataclasses

    import sympy as sp

    from bounds import catalogue

    edited = dict(catalogue.STATEMENTS)
    st = edited["lemma7"]
    edited["lemma7"] = dataclasses.replace(st, widths={"n": st.widths["n"] * 2})
    assert statements_page.statements_page(edited) != statements_page.statements_page()
    assert sp.pretty(st.widths["n"] * 2, use_unicode=True, wrap_line=False) in statements_page.statements_page(edited)


def test_a_changed_committed_number_makes_its_block_stale(tmp_path, monkeypatch):
    """The check can fail: a committed calibration file with another count gives another table."""
    import json

    data = json.loads(statements_page.CALIBRATION.read_text())
    name = next(n for n, s in data["statements"].items() if s.get("growth"))
    data["statements"][name]["growth"]["rows"][0]["failures"] += 1
    edited = tmp_path / "calibration.json"
    edited.write_text(json.dumps(data))
    before = statements_page.fixed_c_table()
    monkeypatch.setattr(statements_page, "CALIBRATION", edited)
    assert statements_page.fixed_c_table() != before


def test_every_statement_of_the_catalogue_has_its_section_with_hypotheses_and_steps():
    from bounds import catalogue

    text = (ROOT / "docs" / "statements.md").read_text()
    for name, st in catalogue.STATEMENTS.items():
        section = text.split(f'<a id="{name}"></a>', 1)[1].split("<a id=", 1)[0]
        for h in st.hypotheses:
            assert f"`{h.label}`" in section, (name, h.label)
        for step in catalogue.proof(name):
            assert f"**{step.name}**" in section, (name, step.name)
        assert st.numbering.get("appendix", "") in section


def test_an_empty_or_edited_block_is_refilled():
    """A page whose generated table was emptied or hand-edited is not what the generator gives."""
    empty = "<!-- generated: constants -->\n<!-- end generated: constants -->"
    filled = statements_page.fill(empty)
    assert filled != empty and statements_page.constants_table() in filled
    edited = filled.replace("| 8 |", "| 9 |", 1)
    assert edited != filled and statements_page.fill(edited) == filled


def test_every_generated_block_is_known():
    for path in PAGES:
        for name in statements_page.blocks(path.read_text()):
            assert name in statements_page.BLOCKS or name in statements_page.RECORD_BLOCKS or \
                name.startswith(statements_page.FINDING_BLOCK), \
                f"{path.relative_to(ROOT)}: unknown generated block {name!r}"


def test_a_page_that_says_what_the_record_does_not_is_stale(docs_record):
    """The check can fail: a record with one step not proved, with a fixed-C test that rejects, or whose printed
    variant breaks no step, gives another README and other docs pages than the committed ones."""
    import copy

    committed = {p: p.read_text() for p in (README, ROOT / "docs" / "findings.md", ROOT / "docs" / "kernel-checked.md")}
    assert statements_page.pages(docs_record)[README] == committed[README]
    repaired = copy.deepcopy(docs_record)
    next(v for v in repaired["variants"] if (v["statement"], v["variant"]) == ("lemma12", "printed"))["broken"] = []
    assert statements_page.pages(repaired)[README] != committed[README]
    worse = copy.deepcopy(docs_record)
    step = next(s for s in worse["steps"] if s["statement"] != "facts")
    step.update(verdict="not proved", ok=False)
    pages = statements_page.pages(worse)
    assert pages[README] != committed[README] and pages[ROOT / "docs" / "kernel-checked.md"] != \
        committed[ROOT / "docs" / "kernel-checked.md"]
    grows = copy.deepcopy(docs_record)
    name, rec = next((n, r) for n, r in grows["calibration"]["statements"].items() if r.get("growth"))
    rec["growth"]["rows"][-1]["passed"] = False
    pages = statements_page.pages(grows)
    assert pages[README] != committed[README] and pages[ROOT / "docs" / "findings.md"] != \
        committed[ROOT / "docs" / "findings.md"]
    assert "the test rejects for" in pages[README]


CLAIMS = re.compile(r"\b\d+ (?:proof steps|scalar facts|steps of the encoded proofs)\b|kernel-checked today|"
                    r"\bDoes C grow\?\*?\*? ?(?:Not|Yes|No)\b|proved in Coq:\s+\d+\s+of\s+\d+|"
                    r"corollary\s+alone(?:,\s+probabilities\s+included)?:\s+\d+\s+of\s+\d+|"
                    # a finding's numbers: a ratio, a count of steps or readings, a counterexample's sides, a timing
                    r"\bworst ratio (?:of |is |was |found )?\d|\(ratio \d|"
                    r"\b\d+ of \d+ (?:proof )?(?:steps|statements|readings|checks|tests|premises)\b|"
                    r"\b(?:lhs|rhs) = \d|\bobjective (?:of )?\d|\b\d+(?:\.\d+)? CPU-seconds\b|"
                    r"(?:\babout |~)\d+(?:\.\d+)? ?(?:s|seconds|minutes|min|h|hours)\b")


def test_no_page_states_a_count_or_the_growth_answer_outside_a_generated_block():
    """A step count, the kernel's claim, the growth answer or a finding's numbers (a worst ratio, a count of broken
    steps, a counterexample's sides, a solver's objective) written by hand would not follow the record: each appears
    only inside a block that slth docs prints from it (code spans and fenced code, commands and formulas, aside)."""
    hits = []
    for path in PAGES:
        if path.name == "statements.md":
            continue
        prose = re.sub(r"<!-- generated: ([a-z0-9-]+) -->.*?<!-- end generated: \1 -->", "", path.read_text(),
                       flags=re.DOTALL)
        prose = re.sub(r"`[^`\n]*`", "``", re.sub(r"```.*?```", "", prose, flags=re.DOTALL))
        hits += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in CLAIMS.finditer(prose)]
    assert hits == []


def test_the_claim_checker_finds_a_hand_written_count():
    assert CLAIMS.search("Today all 66 proof steps and the 5 scalar facts are kernel-checked")
    assert CLAIMS.search("9. **Does C grow? Not over eps = 0.3 .. 0.003")
    for typed in ("against the printed bound 0.0060080 (ratio 1.038)", "its worst ratio is 0.38",
                  "breaks 7 of 12 steps", "gives lhs = 2.39e-6 > rhs = 9.54e-7", "reports objective 0 for",
                  "(fig8 --quick: 16, 63 CPU-seconds)", "one process: about 480 s of CPU", "takes about 0.1 s |"):
        assert CLAIMS.search(typed), typed
    assert not CLAIMS.search("`lhs / rhs` compared with 1 and the ratio of the two sides")
    assert CLAIMS.search("the counts: \"premises proved in Coq: 7 of 15; statements proved from Lueker's corollary\n"
                         "alone: 4 of 11\"")
    assert len(CLAIMS.findall("premises proved in Coq: 7 of 15; statements proved from Lueker's corollary alone: "
                              "4 of 11")) == 2
    assert CLAIMS.search("statements proved in Coq from Lueker's corollary alone, probabilities included: 4 of 10")


def test_the_coq_counts_on_the_page_are_what_the_library_measures(monkeypatch):
    """docs/kernel-checked.md's Coq counts are the generated block ``coq-counts``, printed from
    ``bounds.prove.coq_math.blueprint``; a formalization that says otherwise (lemma8 taken out of ``FORMAL``, or a
    premise no longer proved) gives another block, so the committed page would be stale."""
    from bounds.prove import coq_math, coq_text

    page = (ROOT / "docs" / "kernel-checked.md").read_text()
    block = page.split("<!-- generated: coq-counts -->\n", 1)[1].split("\n<!-- end generated: coq-counts -->")[0]
    assert block == statements_page.generated("coq-counts"), REGENERATE
    assert coq_math.blueprint()["line"] in block
    monkeypatch.setattr(coq_text, "FORMAL", {k: v for k, v in coq_text.FORMAL.items() if k != "lemma8"})
    fewer = statements_page.generated("coq-counts")
    assert fewer != block and "`lemma8`" in block and "`lemma8`" not in fewer
    c = coq_math.counts()
    assert f"probabilities included: {c['alone']} of {c['statements']}" in fewer


def test_the_growth_answer_is_the_same_words_on_every_page(proofs_record):
    from slt import claims

    answer = " ".join(claims.growth_answer(proofs_record))
    for page in ("findings.md", "calibration.md"):
        assert answer in (ROOT / "docs" / page).read_text(), page
    assert f"**Does C grow? {claims.growth_sentence(proofs_record)}**" in README.read_text()


# ------------------------------------------------------------------------------------------ links

def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set:
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    found = {_slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", text, re.MULTILINE)}
    return found | set(re.findall(r'<a id="([^"]+)"></a>', text))


def dead_links(path: Path) -> list[str]:
    text = path.read_text()
    body = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    dead = []
    for target in re.findall(r"(?<!\\)\]\(([^)\s]+)\)", body):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, frag = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            dead.append(f"{target} (no file {file})")
        elif frag and dest.suffix == ".md" and frag not in anchors(dest.read_text()):
            dead.append(f"{target} (no anchor #{frag} in {dest.name})")
    return dead


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_dead_relative_link(path):
    assert dead_links(path) == [], f"{path.relative_to(ROOT)}: dead links"


def test_the_link_checker_finds_a_dead_file_and_a_dead_anchor(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# A heading\n")
    page.write_text("[ok](other.md#a-heading) [no file](missing.md) [no anchor](other.md#nowhere) [self](#top)\n")
    assert dead_links(page) == ["missing.md (no file missing.md)", "other.md#nowhere (no anchor #nowhere in other.md)",
                                "#top (no anchor #top in page.md)"]


# ------------------------------------------------------------------------------------------ the README

def test_the_readme_is_at_most_250_lines():
    assert len(README.read_text().splitlines()) <= 250


def _readme_findings() -> list[tuple[str, str]]:
    section = README.read_text().split("## What it found", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if re.match(r"\d+\. ", line)]
    out = []
    for line in lines:
        fid = re.search(r"\(docs/findings\.md#([a-z0-9-]+)\)", line)
        test = re.search(r"Test: `([^`]+)`", line)
        assert fid and test, f"README finding without its page link or test: {line[:80]}"
        out.append((fid.group(1), test.group(1)))
    return out


def test_every_readme_finding_is_a_report_finding_and_the_reverse(proofs_record):
    """The README's findings are exactly the ids slt.measure.findings produces (on any record)."""
    from slt.measure import findings

    produced = [f["id"] for f in findings.decide(proofs_record)["items"]]
    listed = [fid for fid, _ in _readme_findings()]
    assert sorted(listed) == sorted(produced), (
        f"README lists {sorted(set(listed) - set(produced))} that the report lacks and lacks "
        f"{sorted(set(produced) - set(listed))}")
    assert len(listed) == len(set(listed))


def test_every_readme_finding_names_a_test_that_exists():
    for fid, test in _readme_findings():
        file, _, func = test.partition("::")
        func = func.split("[", 1)[0]
        assert (ROOT / file).exists(), f"finding {fid}: no file {file}"
        assert re.search(rf"^def {re.escape(func)}\(", (ROOT / file).read_text(), re.MULTILINE), (
            f"finding {fid}: {file} has no test {func}")


def test_every_finding_of_the_readme_has_its_section_in_the_findings_page():
    text = (ROOT / "docs" / "findings.md").read_text()
    for fid, test in _readme_findings():
        assert f'<a id="{fid}"></a>' in text, fid
        section = text.split(f'<a id="{fid}"></a>', 1)[1].split("<a id=", 1)[0]
        assert test.split("[", 1)[0] in section or test.split("::")[1].split("[")[0] in section, (fid, test)


def test_the_everyday_command_table_has_one_short_line_per_command():
    section = README.read_text().split("## Everyday commands", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows and all(len(line) <= 200 for line in rows), [line for line in rows if len(line) > 200]


# ------------------------------------------------------------------------------------------ what the pages cite

HISTORY = re.compile(r"\bissues? \d+|\b\d{1,2}:\d{2} UTC|load average|no GPU machine|\bthis session\b|"
                     r"\b20\d\d-\d\d-\d\d\b(?! \|)")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_project_history_in_the_pages(path):
    """Docs say what is: no issue numbers, UTC times, machine loads, sessions or run dates in prose (a date may
    stand in a generated table, copied from the file it comes from)."""
    text = path.read_text()
    prose = re.sub(r"<!-- generated: ([a-z0-9-]+) -->.*?<!-- end generated: \1 -->", "", text, flags=re.DOTALL)
    assert HISTORY.findall(prose) == [], f"{path.relative_to(ROOT)}"


def test_nothing_cites_a_file_the_repository_does_not_have():
    """theorems.md is not in the repository: the README, docs and code cite docs/statements.md instead."""
    hits = []
    for path in [*PAGES, *ROOT.glob("bounds/**/*.py"), *ROOT.glob("slt/**/*.py"), *ROOT.glob("reports/**/*.py"),
                 *ROOT.glob("checks/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("scripts/**/*.py"),
                 *ROOT.glob("benchmarks/**/*.py")]:
        if path == Path(__file__):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if "theorems.md" in line:
                hits.append(f"{path.relative_to(ROOT)}:{n}")
    assert hits == []


def test_every_core_dependency_says_why_it_is_there():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    table = (ROOT / "docs" / "dependencies.md").read_text()
    names = {re.split(r"[<>=\[ ]", d, 1)[0] for d in deps}
    rows = " ".join(line.split("|")[1] for line in table.splitlines() if line.startswith("| ") and "---" not in line)
    missing = [n for n in names if n not in rows]
    assert missing == [], f"docs/dependencies.md does not say why {missing} is a dependency"


def test_slth_docs_check_names_a_stale_page_and_writes_nothing(tmp_path, monkeypatch, capsys):
    import argparse

    page = tmp_path / "page.md"
    page.write_text("stale\n")
    monkeypatch.setattr(statements_page, "ROOT", tmp_path)
    monkeypatch.setattr(statements_page, "pages", lambda: {page: "fresh\n"})
    assert statements_page.main(argparse.Namespace(check=True)) == 1
    assert page.read_text() == "stale\n" and "differs: page.md" in capsys.readouterr().out
    assert statements_page.main(argparse.Namespace(check=False)) == 0
    assert page.read_text() == "fresh\n"
    assert statements_page.main(argparse.Namespace(check=True)) == 0


def test_the_readme_says_how_long_the_tests_take_from_the_measurement(tmp_path, monkeypatch):
    """The README's test time is printed from the committed measurement (``benchmarks/test-suite-time.json``), never
    written by hand; without the file it says the time is not measured."""
    import json

    from reports import performance

    monkeypatch.setattr(performance, "SUITE_TIME", tmp_path / "missing.json")
    monkeypatch.setattr(performance, "ROOT", tmp_path)
    assert "not measured yet" in performance.suite_time()
    measured = tmp_path / "test-suite-time.json"
    measured.write_text(json.dumps({"profiles": {"ci": {"wall_s": 270, "cores": 2, "command": "python -m pytest"}}}))
    monkeypatch.setattr(performance, "SUITE_TIME", measured)
    assert performance.suite_time() == "Measured: `python -m pytest` 4.5 minutes wall on 2 cores."
    measured.write_text(json.dumps({"profiles": {"ci": {"wall_s": 270, "cores": 2, "command": "python -m pytest"},
                                                 "warm": {"wall_s": 21.5, "cpu_s": 30, "cores": 2, "commit": "abc",
                                                          "load_before": 0.1, "command": "pytest checks"}}}))
    assert performance.suite_time() == ("Measured: `python -m pytest` 4.5 minutes wall on 2 cores; `pytest checks` "
                                            "21.5 s wall on 2 cores (30 s of CPU).")
    assert "<!-- generated: suite-time -->" in README.read_text()
    assert "Install and run the tests" in README.read_text().split("<!-- generated: suite-time -->")[0]


def test_the_diff_timing_is_printed_from_the_benchmarks_measurement(tmp_path, monkeypatch):
    """docs/proofs.md quotes the runs of ``slth diff --against HEAD`` after a one-constant edit from the committed
    measurement (``benchmarks/diff-time.json``, written by ``benchmarks/bench_diff.py --write``), never by hand;
    without the file it says the time is not measured; a file missing a field is one line naming it."""
    import json

    from reports import performance

    from slt.inputs import InputError

    monkeypatch.setattr(performance, "ROOT", tmp_path)
    monkeypatch.setattr(performance, "DIFF_TIME", tmp_path / "missing.json")
    assert "not measured yet" in performance.diff_time()
    measured = tmp_path / "diff-time.json"
    runs = [{"run": i, "wall_s": w, "cpu_s": c, "exit": 1, "load_before": l, "verified": ""}
            for i, (w, c, l) in enumerate([(61.2, 80.5, 1.5), (3.1, 2.9, 1.25), (3.0, 2.8, 1.0)], 1)]
    measured.write_text(json.dumps({"edit": "an edit", "command": "python benchmarks/bench_diff.py --write",
                                    "cores": 2, "runs": runs, "created": "2026-01-02T03:04:05Z"}))
    monkeypatch.setattr(performance, "DIFF_TIME", measured)
    assert performance.diff_time() == (
        "Measured (`python benchmarks/bench_diff.py --write`: an edit in a fresh clone with an empty cache folder, "
        "then the diff run 3 times on 2 cores): run 1: 61.2 s "
        "wall, 80.5 s CPU; run 2: 3.1 s wall, 2.9 s CPU; run 3: 3 s wall, 2.8 s CPU.")
    measured.write_text(json.dumps({"edit": "an edit", "runs": runs}))
    with pytest.raises(InputError, match="diff-time.json is incomplete"):
        statements_page.generated("diff-time")
    assert "<!-- generated: diff-time -->" in (ROOT / "docs" / "proofs.md").read_text()


def test_the_readme_says_how_to_get_coq():
    text = README.read_text()
    assert "apt-get install coq libcoq-interval" in text and ".ci/run" in text
    assert "apt-get install -y -qq coq libcoq-interval" in (ROOT / ".ci" / "run").read_text()


def test_the_readme_and_the_report_state_the_same_proof_counts(proofs_record):
    """The README's proof counts are the first words of the report's proof sentence (its contents line), so the
    README never says more is certified than the report shows."""
    from slt import claims

    block = README.read_text().split("<!-- generated: proof-counts -->\n", 1)[1].split("\n<!-- end generated", 1)[0]
    assert claims.step_sentence(proofs_record).startswith(block.rstrip("."))
    assert "certified" in block and "kernel" in claims.step_sentence(proofs_record)


def test_the_task_throughput_table_is_the_stored_benchmark(tmp_path, monkeypatch):
    """docs/scale-out.md's throughput table is printed from ``benchmarks/bench_tasks.json`` (what the benchmark
    writes), never typed: another measured rate gives another table."""
    import json

    from reports import performance

    assert "<!-- generated: task-throughput -->" in (ROOT / "docs" / "scale-out.md").read_text()
    data = json.loads(performance.TASK_THROUGHPUT.read_text())
    before = performance.task_throughput()
    assert f"| {data['rows'][0]['tasks_per_s']:.2f} |" in before
    data["rows"][0]["tasks_per_s"] *= 2
    edited = tmp_path / "bench_tasks.json"
    edited.write_text(json.dumps(data))
    monkeypatch.setattr(performance, "TASK_THROUGHPUT", edited)
    assert performance.task_throughput() != before


def test_a_findings_page_names_no_time_a_kernel_result_was_checked_at():
    """The report prints when a kernel result was checked; docs/findings.md says what is: the same sentence without
    the time (and a sentence with none is left as it is)."""
    from reports.statements_page import _timeless

    label = "Coq's answers: kernel result committed for this exact bounds/ and exporter: Coq 8.16.1, checked at "
    assert _timeless(label + "2026-11-28T14:43:32Z.") == label[:-len(", checked at ")] + "."
    assert _timeless("Coq 8.16.1, checked between 2026-01-01T00:00:00Z and 2026-01-02T00:00:00Z.") == "Coq 8.16.1."
    assert _timeless("no time here.") == "no time here."
    page = (ROOT / "docs" / "findings.md").read_text()
    assert not re.search(r"\d{4}-\d\d-\d\dT[\d:]+Z", page)


def test_the_gpu_run_sentence_says_what_the_committed_run_measured(monkeypatch):
    """docs/figures.md's ``gpu-run`` block: each gpu-marked test's outcome as the lent machine's JUnit file gave it (a
    failed test reads failed), and no run at all reads so."""
    import json

    from reports import performance

    committed = json.loads((performance.BENCH / "gpu-cuda.json").read_text())
    text = performance.gpu_run()
    for t in committed["checks"]["tests"]:
        assert f"`{t['test']}` {t['outcome']}" in text
    failed = json.loads(json.dumps(committed))
    failed["checks"]["tests"][0]["outcome"] = "failed"
    monkeypatch.setattr(performance, "_data", lambda name: failed if name == "gpu-cuda.json" else None)
    assert f"`{failed['checks']['tests'][0]['test']}` failed" in performance.gpu_run()
    monkeypatch.setattr(performance, "_data", lambda name: None)
    assert performance.gpu_run().startswith("The `gpu`-marked checks have no committed run")
