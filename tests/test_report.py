"""The report frame, the statements section and the `slth` command line."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import bounds
from reports import build, cli
from reports.sections import statements


def test_every_command_module_registers(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in out


def test_console_script_is_installed():
    done = subprocess.run([sys.executable, "-m", "reports.cli", "report", "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "--output" in done.stdout


def test_statements_section_renders_every_statement_as_mathml():
    section = statements.render(build.Context(results_dir=Path("unused")))
    for name in bounds.names():
        st = bounds.get(name)
        assert f'id="st-{name}"' in section.html
        assert statements.mathml(st.conclusion) in section.html
        for expr in st.widths.values():
            assert statements.mathml(expr) in section.html
    # no raw comparison operator inside MathML (it would be parsed as a tag)
    assert "<mo><</mo>" not in section.html and "<mo>></mo>" not in section.html


def test_width_table_takes_its_numbers_from_bounds():
    st = bounds.get("theorem9")
    table = statements.width_table(st)
    expected = st.width("n_K", C=statements.DEFAULT_C, d1=8, d2=8, H=8, alpha=8**0.5, eps=0.01)
    assert f"{expected:,}" in table
    rows = re.findall(r"<tr>(.*?)</tr>", table)
    assert len(rows) == 1 + 3 * 2 * 2  # header + d1 x H x eps


def test_report_is_written_atomically_and_self_contained(tmp_path):
    out = tmp_path / "r.html"
    ctx = build.Context(results_dir=tmp_path / "results", log=lambda *_: None)
    build.write_atomic(out, build.render_html(build.render_sections(ctx, ["statements"]), ctx))
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<math" in text
    assert not re.search(r'(src|href)="https?://', text), "the report must open without network access"
    assert list(tmp_path.glob(".*.tmp")) == []


def test_proof_table_shows_every_step_with_its_method():
    from reports.sections import proofs

    results = bounds.verify("theorem9")
    table = proofs.step_table({"theorem9": bounds.proof("theorem9")}, results)
    for r in results:
        assert f"<td>{r.step}</td><td>" in table
        assert f"<td>{r.method}</td>" in table
    assert "FAILED" not in table


def test_proof_table_shows_a_failing_step_with_its_counterexample():
    from bounds.mutations import catalogue_with
    from reports.sections import proofs

    variant = bounds.get("lemma13").variants["printed"]
    catalogue = variant.apply(catalogue_with())
    results = bounds.verify("lemma13", catalogue)
    failed = [r for r in results if not r.ok]
    assert failed, "the printed Lemma 13 (no factor 2) must break a step"
    table = proofs.step_table({"lemma13": catalogue["lemma13"].steps(lambda n: catalogue[n])}, results)
    assert "FAILED" in table
    for key, value in failed[0].counterexample.items():
        assert f"{key} = " in table
