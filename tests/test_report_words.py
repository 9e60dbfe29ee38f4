"""What a reader can decode: a printed point never crosses a hypothesis's boundary by rounding, ratios read the
same everywhere, identifiers are explained in a glossary the header links to, a variant row never says "every step"
of a reading with a step not proved, and the growth answer is the same sentences in the finding and the section."""
from __future__ import annotations

import copy
import html as htmllib
import re

from slt import claims

JUST_BELOW_ONE = 0.9999999990686774  # the admissible point just inside eps < 1 that a 6-digit format prints as 1


def _text(fragment: str) -> str:
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def test_a_point_just_inside_an_open_end_prints_all_its_digits():
    cx = {"H": 1, "alpha": 8.0, "eps": JUST_BELOW_ONE, "lhs": 1.0000001, "rhs": 1.0}
    text = claims.point_text(cx)
    assert f"eps = {JUST_BELOW_ONE!r}" in text and "eps = 1," not in text
    assert "alpha = 8," in text and "lhs = 1.0000001, rhs = 1" in text  # the sides with the digits that differ
    assert float(dict(claims.point_parts(cx))["eps"]) == JUST_BELOW_ONE < 1
    assert claims.exact_number(0.5) == "0.5" and claims.exact_number(3) == "3"
    # the check can fail: the format it replaces rounds the point onto the boundary
    assert f"{JUST_BELOW_ONE:.6g}" == "1"


def test_a_point_prints_in_one_order_however_it_was_built():
    """A counterexample read back from JSON (sorted keys) and one fresh from the search (the order its coordinates
    were set in) print the same text: parameters by name, then the two sides."""
    fresh = {"H": 1, "d1": 64, "eps_max": 1, "alpha": 8, "lhs": 4.0429e16, "rhs": 5.05363e15}
    stored = dict(sorted(fresh.items()))
    assert list(fresh) != list(stored)  # the check can fail: the two orders differ
    assert claims.point_text(fresh) == claims.point_text(stored)
    assert claims.point_text(fresh).startswith("H = 1, alpha = 8, d1 = 64, eps_max = 1, lhs = ")


def test_every_surface_prints_the_point_exactly(proofs_record):
    from reports import proofs as cli
    from reports.diff import _flipped
    from reports.sections import proofs as section

    from reports.record.assemble import params_of, open_ends

    cx = {"d1": 64, "eps": JUST_BELOW_ONE, "lhs": 520.25, "rhs": 192.0}
    assert repr(JUST_BELOW_ONE) in cli._cex(cx)
    assert f"eps = {JUST_BELOW_ONE!r} (open end eps < 1)" in cli._cex(cx, "theorem11")
    assert "open end" not in cli._cex({**cx, "eps": 0.5}, "theorem11")  # only next to the end
    rec = copy.deepcopy(proofs_record)
    rec["variants"] = [{"statement": "theorem11", "variant": "d1", "description": "d1 for sqrt(d1)",
                        "expected": [["theorem11", "B2b"]], "verdict": "as expected", "unproved": [],
                        "broken": [{"statement": "theorem11", "step": "B2b", "method": "sampled",
                                    "counterexample": cx, "open_ends": open_ends(params_of("theorem11"))}]}]
    html = _text(section.render(rec).html)
    assert f"eps = {JUST_BELOW_ONE!r} (open end eps < 1)" in html and "eps = 1 " not in html
    flip = {"statement": "theorem11", "step": "B2b", "old": "certified", "new": "refuted", "old_domain": "whole",
            "new_domain": "sampled", "method": "sampled", "downgrade": True, "counterexample": cx, "supported": True}
    assert repr(JUST_BELOW_ONE) in _flipped(flip)


def test_a_variant_with_a_step_not_proved_never_reads_every_step(proofs_record):
    from reports.sections import proofs as section

    rec = copy.deepcopy(proofs_record)
    row = {"statement": "theorem10", "variant": "alpha-factor", "description": "a reading", "expected": [],
           "verdict": "as expected", "broken": [], "unproved": [{"statement": "theorem11", "step": "B3b"}]}
    rec["variants"] = [row]
    html = _text(section.render(rec).html)
    assert "not proved: Theorem 11, step B3b" in html and "every step" not in html
    rec["variants"] = [{**row, "unproved": []}]
    assert "every step pre-checked under this reading" in _text(section.render(rec).html)


def test_the_glossary_is_one_click_from_the_header_and_explains_the_identifiers(proofs_record):
    from reports.build import render_html, render_sections

    html = render_html(render_sections(proofs_record), proofs_record)
    header = html[html.index("<h1>"):html.index('<nav id="contents">')]
    assert '<a href="#glossary">Glossary</a>' in header
    glossary = _text(html[html.index('<section id="glossary">'):])
    for term in ("certified", "pre-checked", "kernel-checked", "refuted", "not proved", "step id", "variant id",
                 "ofat", "quick", "sampled", "open end", "finding slug"):
        assert term in glossary, term
    assert "T14d-x" in glossary  # the kind of step id a reader meets first
    findings = html[html.index('<ol class="findings">') - 600:html.index('<ol class="findings">')]
    assert "step id" in findings and "variant id" in findings and 'href="#glossary"' in findings


def test_ratios_print_with_three_digits():
    assert claims.ratio_text(0.3761) == "0.376" and claims.ratio_text(0.38) == "0.38"


def test_the_growth_answer_is_the_same_sentences_in_the_finding_and_the_section(proofs_record):
    from reports.sections import calibration_trend
    from slt.measure import findings

    rec = copy.deepcopy(proofs_record)
    rec["empirical"] = {"checks": [], "verdicts": {}, "decisions": {}}
    answer = claims.growth_answer(rec)
    finding = findings.fixed_c_growth(rec)
    assert finding["title"] == "Does C grow? " + answer[0]
    assert finding["sentences"][:len(answer) - 1] == answer[1:]
    section = _text(calibration_trend.render(rec).html)
    assert " ".join(answer) in section
    assert claims.growth_sentence(rec) == answer[0].rstrip(".")


def test_the_page_names_no_data_file_the_repository_does_not_have(proofs_record):
    from pathlib import Path

    from reports.build import render_html, render_sections
    from reports.record.assemble import _writes

    root = Path(__file__).resolve().parents[1]
    html = render_html(render_sections(proofs_record), proofs_record)
    named = set(re.findall(r"[\w./-]+/[\w.-]+\.json", html))
    assert named and all((root / p).exists() for p in named if not p.startswith("results/")), named
    # the check can fail: a stored command that names a file moved since is rewritten to the file the record read
    stale = "slth calibrate --output checks/calibration.json --seed 1"
    assert _writes(stale, "slt/measure/calibration.json") == "slth calibrate --output slt/measure/calibration.json --seed 1"
    assert not (root / "checks" / "calibration.json").exists()


def test_a_finding_prints_a_broken_steps_point_exactly():
    """The findings' tables of broken steps (the README's and the report's findings) print a counterexample through
    ``slt.claims.point_text``: all the digits, and "open end" beside a coordinate next to one."""
    from reports.record.assemble import params_of, open_ends
    from slt.measure import findings

    cx = {"d1": 64, "eps": JUST_BELOW_ONE, "lhs": 520.25, "rhs": 192.0}
    variant = {"statement": "theorem11", "variant": "d1",
               "broken": [{"statement": "theorem11", "step": "B2b", "counterexample": cx,
                           "open_ends": open_ends(params_of("theorem11"))}]}
    cell = findings._broken_rows(variant)["rows"][0][2]
    assert f"eps = {JUST_BELOW_ONE!r} (open end eps < 1)" in cell and "eps = 1," not in cell


POINT_FORMATS = re.compile(r"(?:counterexample|params|parameters)[^\n]{0,12}\|\s*fmt\b|"
                           r"\{(?:cx|pt|point)\[[^]]+\]:[.0-9]*[gf]\}")


def _point_formats(text: str) -> list[str]:
    return [m.group(0) for m in POINT_FORMATS.finditer(text)]


def test_no_surface_prints_a_point_with_a_rounding_format():
    """Every template and module that prints a counterexample or a measured point does it through
    ``slt.claims.point_text`` / ``point_parts`` / ``exact_number`` (the ``point`` and ``exact`` filters), never through a
    fixed number of digits (``fmt``, ``:g``, ``.4f``), which can print a point inside ``eps < 1`` as ``eps = 1``."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = [*root.glob("reports/templates/**/*.html"), *root.glob("reports/**/*.py"), *root.glob("slt/**/*.py")]
    hits = [f"{p.relative_to(root)}: {h}" for p in files for h in _point_formats(p.read_text())]
    assert hits == []


def test_the_point_format_scan_finds_a_rounded_point():
    assert _point_formats("<td>{{ f.counterexample | fmt(6) }}</td>")
    assert _point_formats("{{ d.params | fmt | tokens }}")
    assert _point_formats("at = f\"L = {pt['L']:g}, alpha = {pt['alpha']:g}\"")
    assert not _point_formats("{{ f.counterexample | point }}")


def test_slth_report_ends_with_the_proof_step_sentence_of_the_page(proofs_record, tmp_path, capsys):
    """The CLI's summary line names the profile in words and states the proof steps with the function the page
    uses (``slt.claims.step_sentence``), not a count of its own."""
    import json

    from reports.cli import main

    path = tmp_path / "record.json"
    path.write_text(json.dumps(proofs_record))
    assert main(["report", "--from", str(path), "-o", str(tmp_path / "r.html"), "--only", "proofs"]) == 0
    out = capsys.readouterr().out
    assert "from a run record of the proofs profile" in out and claims.step_sentence(proofs_record) in out
    assert " record)" not in out


def test_a_heading_names_the_main_text_only_where_its_number_differs():
    """Lemma 2 is Lemma 2 in both numberings: its heading names the source, not the same number twice; Theorem 9 is
    Theorem 3 in the main text; Lemma 12 has no main-text number."""
    from bounds.catalogue import STATEMENTS

    heading = {n: claims.numbering_heading(st.numbering, n) for n, st in STATEMENTS.items()}
    assert heading["lemma2"] == "Lemma 2 (Pensia et al. 2020)"
    assert heading["theorem9"] == "Theorem 9 (main text: Theorem 3)" and heading["lemma12"] == "Lemma 12 (appendix only)"
    assert all(h.count("(") == h.count(")") for h in heading.values())
