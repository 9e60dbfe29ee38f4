"""The report: rendered from a run record only (jinja2 templates; no measurement), the `slth` command line, and
the layout rules (nothing outside checks/ imports checks; nothing in reports/ imports measuring code)."""
from __future__ import annotations

import ast
import copy
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bounds
from reports import build, cli, record
from reports.record import assemble
from reports.sections import proofs, statements
from slt.mathml import mathml

ROOT = Path(__file__).resolve().parent.parent


def test_every_command_module_registers(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in out
    assert {"run", "report", "diff", "proofs"} <= set(cli.COMMANDS)


def test_console_script_is_installed():
    done = subprocess.run([sys.executable, "-m", "reports.cli", "report", "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "--output" in done.stdout and "--from" in done.stdout


def test_statements_section_renders_every_statement_as_mathml(proofs_record):
    section = statements.render(proofs_record)
    for name in bounds.names():
        st = bounds.get(name)
        assert f'id="st-{name}"' in section.html
        assert mathml(st.conclusion) in section.html
        for expr in st.widths.values():
            assert mathml(expr) in section.html
    # no raw comparison operator inside MathML (it would be parsed as a tag)
    assert "<mo><</mo>" not in section.html and "<mo>></mo>" not in section.html


def test_width_table_takes_its_numbers_from_the_record(proofs_record):
    st = bounds.get("theorem9")
    expected = st.width("n_K", C=assemble.DEFAULT_C, d1=8, d2=8, H=8, alpha=8**0.5, eps=0.01)
    html = statements.render(proofs_record).html
    block = html.split('id="st-theorem9"')[1].split("<h3")[0]
    assert f"{expected:,}" in block
    assert len(re.findall(r"<tr>", block)) == 1 + 3 * 2 * 2  # header + d1 x H x eps
    changed = copy.deepcopy(proofs_record)
    for w in changed["widths"]:
        if w["statement"] == "theorem9" and w["width"] == "n_K":
            w["value"] = 987654321
    assert "987,654,321" in statements.render(changed).html.split('id="st-theorem9"')[1].split("<h3")[0]


def test_proof_table_shows_every_step_with_method_domain_and_margin(proofs_record):
    html = proofs.render(proofs_record).html
    for s in proofs_record["steps"]:
        assert f'<td class="tok">{s["step"]}</td>' in html or s["statement"] == "facts"
    assert ", whole; margin " in html and ">refuted<" not in html and ">not proved<" not in html
    assert "not in this record" in html  # a proof-only record holds no mutation suite


def test_proof_table_shows_a_failing_step_with_its_counterexample(proofs_record):
    rec = copy.deepcopy(proofs_record)
    step = next(s for s in rec["steps"] if s["step"] == "L13a")
    step.update(ok=False, verdict="refuted", counterexample={"H": 1, "eps_max": 5.96e-08, "lhs": 7.2e-07})
    html = proofs.render(rec).html
    assert ">refuted<" in html and "eps_max = 5.96e-08" in html and "<b>1</b> refuted" in html


def test_proof_table_shows_not_proved_in_its_own_column_and_count_never_as_a_pass(proofs_record):
    """A step with neither certificate nor counterexample is "not proved", counted apart; a
    record from before the three verdicts ("ok" on a box only) reads as not proved too, never as a pass."""
    rec = copy.deepcopy(proofs_record)
    supported = [s for s in rec["steps"] if s["supported"] and s["statement"] != "facts"]
    supported[0].update(ok=False, verdict="not proved", counterexample=None)
    supported[1].update(ok=True, verdict="ok", domain="box")  # an old record's box-only "ok"
    section = proofs.render(rec)
    assert section.html.count('<td><span class="warn">not proved</span><br><small>') == 2  # the two steps' rows
    assert re.search(r"<b>2</b>\s+not proved", section.html), "the not-proved count is its own number"
    assert "0 refuted, 2 not proved" in section.summary and ">refuted<" not in section.html


def test_proof_table_shows_the_arb_recheck_per_step(proofs_record):
    html = proofs.render(proofs_record).html
    interval = [s for s in proofs_record["steps"] if s["method"] == "interval"]
    assert interval and all(s["arb"] == "yes" for s in interval)
    assert f"{len(interval)} yes, 0 no, 0 failed" in html
    rec = copy.deepcopy(proofs_record)
    step = next(s for s in rec["steps"] if s["method"] == "interval")
    step.update(ok=False, verdict="FAILED", arb="failed: box 0: enclosures disagree")
    html = proofs.render(rec).html
    assert f"{len(interval) - 1} yes, 0 no, 1 failed" in html and 'title="failed: box 0: enclosures disagree"' in html


def test_report_from_a_record_is_written_atomically_and_self_contained(tmp_path, proofs_record, monkeypatch):
    path = tmp_path / "rec.json"
    record.write(path, proofs_record)

    def no_measuring(*a, **k):
        raise AssertionError("slth report --from must not run anything")

    monkeypatch.setattr(assemble, "build", no_measuring)
    out = tmp_path / "r.html"
    assert cli.main(["report", "--from", str(path), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<math" in text
    assert proofs_record["provenance"]["bounds_hash"][:12] in text
    assert not re.search(r'(src|href)="https?://', text), "the report must open without network access"
    assert [p.name for p in tmp_path.iterdir()] == sorted(["rec.json", "r.html"]) or len(list(tmp_path.iterdir())) == 2
    assert cli.main(["report", "--from", str(tmp_path / "absent.json"), "-o", str(out)]) == 2
    assert cli.main(["report", "--from", str(path), "--only", "nonsense", "-o", str(out)]) == 2


def test_slth_report_runs_then_renders(tmp_path, proofs_record, monkeypatch):
    monkeypatch.setattr(assemble, "build", lambda *a, **k: copy.deepcopy(proofs_record))
    out, rec = tmp_path / "r.html", tmp_path / "rec.json"
    assert cli.main(["report", "--proofs-only", "-o", str(out), "--record", str(rec)]) == 0
    assert record.load(rec)["profile"] == "proofs" and "Proof steps" in out.read_text()


# ------------------------------------------------------------------------------------------------ layout

def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def _python_files(*folders):
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_slth_imports_only_the_command_that_runs():
    """Command modules import their library at the top; `slth` imports only the chosen command's module, so a
    usage error or `slth diff OLD NEW` never pays for the measuring library (the reason calibrate's imports were
    once kept inside its functions)."""
    code = ("import sys\nfrom reports import cli\ntry:\n    cli.main(['diff', 'a.json', 'b.json'])\n"
            "except SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if m.startswith(('reports.calibrate', "
            "'reports.rate', 'reports.targets', 'reports.reproduce', 'reports.record.assemble', "
            "'slt.measure.calibrate', 'slt.measure.catalogue', 'slt.measure.empirical', 'bounds', 'sympy', "
            "'numba', 'dask'))))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", (done.stdout, done.stderr[-1000:])
    done = subprocess.run([sys.executable, "-c", code.replace("'diff', 'a.json', 'b.json'", "'calibrate', '--help'")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "'reports.calibrate'" in done.stdout and "'reports.rate'" not in done.stdout, done.stdout


def test_nothing_outside_checks_imports_checks():
    offenders = [f"{p.relative_to(ROOT)}: {m}" for p in _python_files("bounds", "slt", "reports", "tests", "benchmarks",
                                                                        "scripts")
                 if (ROOT / p.parts[len(ROOT.parts)]).exists()
                 for m in sorted(_imports(p)) if m == "checks" or m.startswith("checks.")]
    assert not offenders, offenders


def test_the_library_never_imports_the_report():
    """``bounds`` and ``slt`` decide and measure; ``reports`` renders: no arrow points back."""
    offenders = [f"{p.relative_to(ROOT)}: {m}" for p in _python_files("bounds", "slt")
                 for m in sorted(_imports(p)) if m == "reports" or m.startswith("reports.")]
    assert not offenders, offenders


MEASURING = ("slt.measure", "slt.construct", "slt.models", "slt.samplers", "slt.subset_sum", "slt.mip", "slt.train",
             "slt.sweeps", "slt.figures", "slt.tasks", "slt.data", "slt.fit", "bounds.prove.verify", "bounds.prove.mutations")
"""Measuring code: what the report's rendering modules must never import."""
COMMANDS = {"calibrate.py", "reproduce.py", "proofs.py", "rate.py", "targets.py", "statements_page.py"}
"""Command-line modules of measuring commands (slth calibrate / reproduce / proofs / rate / targets / docs): argument
parsing and printing around ONE library entry point each; they may import the library but no construction or model
code."""
DECIDING = {"slt.measure.verdicts", "slt.measure.stats"}
"""The one verdict function and the statistics it decides by (pure functions, no measurement): the record's
validation re-decides a record's verdicts from its counts with them."""
ASSEMBLING = {"assemble.py", "provenance.py", "suites.py", "verified.py"}
"""``reports/record/``'s modules that build a run record: they call the library's entry points (proof steps,
mutations, measurements, figure summaries; the verifier's seed) and, like the commands, no construction or model
code. The record's schema and I/O, and every rendering module, import none of it."""


def test_reports_render_and_never_measure():
    offenders = []
    for p in _python_files("reports"):
        imports = _imports(p)
        if (p.name in COMMANDS and p.parent.name == "reports") or (p.name in ASSEMBLING
                                                                  and p.parent.name == "record"):
            bad = [m for m in imports if m.startswith(("slt.construct", "slt.models", "slt.samplers",
                                                       "slt.subset_sum"))]
        else:
            bad = [m for m in imports if (m.startswith(MEASURING) or m in ("slt.measure", "bounds.prove.verify"))
                   and m not in DECIDING]
        offenders += [f"{p.relative_to(ROOT)}: {m}" for m in sorted(bad)]
    assert not offenders, offenders
    sections = [p for p in _python_files("reports/sections")]
    # sections use the record alone, slt.claims (a function of the record alone) and slt.target_words (words)
    words = ("slt.claims", "slt.target_words")
    for p in sections:
        assert not [m for m in _imports(p) if (m == "bounds" or m.startswith(("bounds.", "slt.")))
                    and not any(m == w or m.startswith(w + ".") for w in words)], p
    plain = ("__future__", "slth_base.numbering",  # the numbering headings: a function of the paper's numbers alone
             "slt.claims_points")  # how a point is printed: a function of the point alone
    for m in (*words, "slth_base.numbering", "slt.claims_points"):  # all import nothing else, so nothing measured
        # reaches a section
        path = ROOT / (m.replace(".", "/") + ".py")
        assert not [i for i in _imports(path) if not i.startswith(plain)], f"{m} imports"
