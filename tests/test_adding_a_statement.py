"""Adding a statement is what docs/architecture.md's "Adding a statement" says it is.

A statement is three files: its module in ``bounds/`` (declaring it in ``DECLARED`` with its place in the paper's
order), its numerics module in ``slt/measure/statements/`` (declaring ``NUMERICS`` and ``ORDER``), and one line in
``checks/test_statements.py``. Both catalogues discover what the modules declare. In a temporary copy of the
repository (the files ``git ls-files`` lists), a toy statement is added exactly so (a proof built from an earlier
statement's expressions; a trial, windows, rate points, calibration grid). Then: ``slth proofs`` verifies its
steps, ``pytest checks`` collects and runs its checks (its proof steps and its failure-rate check), ``slth
calibrate`` calibrates its C on a tiny grid, and ``slth report`` shows it. Nothing else is edited: a statement
that needs another file to be noticed fails this test. In this process, the toy's two modules on an extra search
path of the two packages are discovered in their declared place, and either one alone is a missing half that
``slt.measure.catalogue.mismatches`` reports.

The toy: Lueker's corollary at half the error, "n = C log(2/eps) products give a covering radius <= eps/2 with
probability >= 1 - eps/2", proved from Lueker's statement at eps/2 and measured by Lueker's exact covering radius.
"""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from slt.measure import catalogue, checking

ROOT = Path(__file__).resolve().parents[1]

BOUNDS_MODULE = '''"""A toy statement (tests/test_adding_a_statement.py): Lueker's corollary at half the error."""
from __future__ import annotations

import sympy as sp

from .core import Statement, Step
from .subset_sum import CONST, EPS
from .symbols import C, eps


def _toy_proof(st, get):
    lk = get("lueker")
    half = {eps: eps / 2}
    return [
        Step("Y1", lk.widths["n"].xreplace(half), st.widths["n"], ("lueker",), "Lueker at eps/2: n' >= C log(2/eps)"),
        Step("Y2", lk.conclusion.xreplace(half), st.conclusion, ("lueker",), "its error is eps/2"),
        Step("Y3", 1 - lk.probability.xreplace(half), 1 - st.probability, ("lueker",), "it fails w.p. <= eps/2"),
    ]


toy = Statement(
    name="toy", title="Toy: Lueker at half the error",
    numbering={"main": "toy", "appendix": "toy"},
    params=(EPS, CONST),
    conclusion=eps / 2, quantity="max_{z in [-1,1]} min_S |z - sum_{k in S} X_k|",
    widths={"n": C * sp.log(2 / eps)}, probability=1 - eps / 2, builder=_toy_proof,
)

DECLARED = ((120, toy),)
'''

NUMERICS_MODULE = '''"""The toy statement's numerics (tests/test_adding_a_statement.py)."""
from __future__ import annotations

import bounds
from slt.measure import strategies
from slt.measure.evidence import Case
from slt.measure.numerics import Numerics, trials
from slt.measure.probabilistic import RateCheck
from slt.measure.statements.lueker import MAX_ITEMS, covering_radius, draw_items

STATEMENT = "toy"
WINDOWS = dict(eps=strategies.LogUniform(0.4, 0.7))
RATE = RateCheck(STATEMENT, WINDOWS["eps"])


def width(C: float, eps: float) -> int:
    return bounds.get(STATEMENT).width("n", C=C, eps=eps)


def trial(seed: int, C: float, eps: float, solver=None) -> Case:
    n = width(C, eps)
    if n > MAX_ITEMS:
        raise ValueError(f"width n'={n} for C={C}, eps={eps} exceeds the exact limit {MAX_ITEMS}")
    radius = (solver or covering_radius)(draw_items(seed, n), -1.0, 1.0)
    return Case(STATEMENT, {"C": C, "eps": eps}, seed, radius, eps / 2, what="covering radius",
                violated=radius > eps / 2, widths={"n": n})


def rerun(seed: int, C: float, eps: float):
    return [trial(seed, C, eps)]


def feasible(C: float, eps: float) -> bool:
    return width(C, eps) <= MAX_ITEMS


ORDER = 120
NUMERICS = Numerics(
    STATEMENT, windows=WINDOWS, trial=trial, rerun=rerun, rate=RATE, feasible=feasible,
    rate_points=({"eps": 0.6},), rate_trials=trials(quick=20, full=200),
    calibration=({"eps": 0.6},),
    examples={"rate": 1},
)
'''


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{path}: expected exactly one {old!r} (docs/architecture.md's recipe no longer matches)"
    path.write_text(text.replace(old, new))


def _copy(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def _add_toy(repo: Path) -> None:
    """The three files of docs/architecture.md's recipe, nothing else."""
    (repo / "bounds" / "toy.py").write_text(BOUNDS_MODULE)
    (repo / "slt" / "measure" / "statements" / "toy.py").write_text(NUMERICS_MODULE)
    _edit(repo / "checks" / "test_statements.py", "STATEMENTS = [\n",
          'STATEMENTS = [\n    "toy",        # failure rate at the calibrated width (a toy: Lueker at half the error)\n')


def _run(repo: Path, *argv, check=True, coq=None):
    env = dict(os.environ, PYTHONPATH=str(repo), SLTH_CACHE_DIR=str(repo / "results" / "tasks"), **(coq or {}))
    env.pop("PYTEST_ADDOPTS", None)
    out = subprocess.run([sys.executable, *argv], cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    if check:
        assert out.returncode == 0, f"{' '.join(argv)} exited {out.returncode}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


@pytest.mark.slow
def test_a_toy_statement_is_verified_checked_calibrated_and_reported(tmp_path, tmp_path_factory):
    """CI's slow tier (about two minutes cold). The default run covers its parts more cheaply: a statement module
    added alone is verified by `slth proofs`, `slth run`, `slth diff` and `pytest checks` in a copy
    (tests/test_proofs_new_statement.py), and the two modules are discovered in their declared place, either alone a
    missing half (the in-process tests below)."""
    from tests.coq_shared import seeded_build_env, seeded_verdicts

    repo = _copy(tmp_path / "repo")
    _add_toy(repo)
    # The verdict store starts from a copy of the session's, Coq from the session's compiled library (asked in this
    # order, the reverse of the slow tier's other edit test, so that two workers make the two at once)
    verdicts = seeded_verdicts(tmp_path_factory, "toy")
    coq = {**seeded_build_env(tmp_path_factory, "toy-coq-build"), **verdicts}

    proofs = _run(repo, "-m", "reports.cli", "proofs", "--statement", "toy", coq=coq)
    rows = [line.split() for line in proofs.stdout.splitlines() if line.startswith("toy ")]
    # statement, step, verdict (the kernel's), first pass, method, domain, ...
    assert [(r[1], r[2], r[3], r[5]) for r in rows] == [("Y1", "certified", "pre-checked", "whole"),
                                                         ("Y2", "certified", "pre-checked", "whole"),
                                                         ("Y3", "certified", "pre-checked", "whole")], proofs.stdout
    assert "3 proof steps (3 steps of the encoded proofs and 0 scalar facts): 3 certified, 0 refuted, 0 not proved" \
        in proofs.stdout, proofs.stdout
    assert proofs.returncode == 0, proofs.stdout + proofs.stderr

    calibration = repo / "slt" / "measure" / "calibration.json"
    _run(repo, "-m", "reports.cli", "calibrate", "--statements", "toy", "--workers", "0", "--min-trials", "4",
         "--no-progress", "--output", str(calibration))
    toy = json.loads(calibration.read_text())["statements"]["toy"]
    assert toy["C"] is not None and [p["eps"] for p in toy["points"]] == [0.6], toy
    assert "lueker" in json.loads(calibration.read_text())["statements"]  # the others are kept

    checks = _run(repo, "-m", "pytest", "-q", "-p", "no:cacheprovider", "checks/test_statements.py",
                  "checks/test_proofs.py", "-k", "toy or every_statement", "-rA")
    for test in ("test_rate[toy]", "test_step_verifies[toy-Y1]", "test_every_statement_of_the_catalogue_has_a_line"):
        assert f"PASSED checks/test_statements.py::{test}" in checks.stdout or f"PASSED checks/test_proofs.py::{test}" \
            in checks.stdout, checks.stdout[-3000:]

    report = tmp_path / "report.html"
    _run(repo, "-m", "reports.cli", "report", "--proofs-only", "-o", str(report), coq=coq)
    html = report.read_text()
    assert 'id="st-toy"' in html and "Toy: Lueker at half the error" in html


def test_the_docs_list_the_files_this_test_edits():
    page = (ROOT / "docs" / "architecture.md").read_text()
    section = page.split("## Adding a statement", 1)[1].split("\n## ", 1)[0]
    for path in ("bounds/<name>.py", "DECLARED", "slt/measure/statements/<name>.py", "NUMERICS", "ORDER",
                 "checks/test_statements.py"):
        assert path in section, path


def test_every_statement_has_numerics_and_a_check_line():
    """The lines the recipe adds are needed: a statement of ``bounds`` without numerics in the measuring catalogue
    (or the reverse), a numerics module the catalogue does not import, or a statement the check module does not
    list, fails here (and ``checks/test_statements.py::test_every_statement_of_the_catalogue_has_a_line``)."""
    assert catalogue.mismatches() == []
    modules = {p.stem for p in (ROOT / "slt" / "measure" / "statements").glob("*.py") if p.stem != "__init__"}
    assert modules == set(catalogue.names())
    assert checking.unlisted(_check_lines()) == []


def _check_lines() -> list[str]:
    """The statements ``checks/test_statements.py`` lists (read, not imported: nothing outside checks/ imports it)."""
    tree = ast.parse((ROOT / "checks" / "test_statements.py").read_text())
    (value,) = [n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "STATEMENTS"]
    return ast.literal_eval(value)


def test_the_catalogue_checks_fail_on_a_missing_entry():
    assert catalogue.mismatches({"lueker": None}, ["lueker", "toy"]) == [
        "toy: a statement of bounds without numerics in slt.measure.catalogue"]
    assert catalogue.mismatches({"lueker": None, "toy": None}, ["lueker"]) == [
        "toy: numerics in slt.measure.catalogue of a statement bounds does not have"]
    assert checking.unlisted([n for n in catalogue.names() if n != "lemma7"]) == ["lemma7"]


PAPER_ORDER = ["lueker", "lemma2", "lemma7", "lemma8", "lemma5", "theorem9", "theorem10", "theorem11", "lemma12",
               "lemma13", "theorem14"]
"""The order of ``bounds.names()`` (docs/statements.md's) when the catalogue was a written list."""
RECORD_ORDER = ["lueker", "lemma7", "lemma2", "theorem9", "theorem10", "theorem11", "theorem14", "lemma8", "lemma5",
                "lemma12", "lemma13"]
"""The order of the measuring catalogue (the run record's) when it was a written list."""


def test_the_discovered_catalogues_keep_the_written_order():
    import bounds
    from bounds import catalogue as bounds_catalogue

    assert bounds.names() == PAPER_ORDER and list(bounds_catalogue.discover()) == PAPER_ORDER
    assert catalogue.names() == RECORD_ORDER and list(catalogue.discover()) == RECORD_ORDER
    assert all(bounds.get(n) is st for n, st in bounds_catalogue.discover().items())
    assert all(catalogue.get(n) is numerics for n, numerics in catalogue.discover().items())


@pytest.fixture
def extra_path(tmp_path, monkeypatch):
    """``add(bounds_module=, numerics_module=)``: writes the given toy modules into folders appended to the search
    path of ``bounds`` and ``slt.measure.statements``; returns the two catalogues discovered then."""
    import bounds
    import slt.measure.statements
    from bounds import catalogue as bounds_catalogue

    def add(bounds_module=None, numerics_module=None):
        for package, text, folder in ((bounds, bounds_module, "bounds"),
                                      (slt.measure.statements, numerics_module, "numerics")):
            (tmp_path / folder).mkdir(exist_ok=True)
            monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path / folder)])
            if text is not None:
                (tmp_path / folder / "toy.py").write_text(text)
        return bounds_catalogue.discover(), catalogue.discover()

    yield add
    for name in ("bounds.toy", "slt.measure.statements.toy"):
        sys.modules.pop(name, None)


def test_the_two_modules_of_a_statement_are_discovered_in_their_place(extra_path):
    statements, numerics = extra_path(BOUNDS_MODULE, NUMERICS_MODULE)
    assert list(statements) == PAPER_ORDER + ["toy"] and statements["toy"].title == "Toy: Lueker at half the error"
    assert list(numerics) == RECORD_ORDER + ["toy"] and numerics["toy"].statement == "toy"
    assert catalogue.mismatches(numerics, list(statements)) == []


def test_a_statement_without_numerics_is_a_missing_half(extra_path):
    statements, numerics = extra_path(bounds_module=BOUNDS_MODULE)
    assert "toy" in statements and "toy" not in numerics
    assert catalogue.mismatches(numerics, list(statements)) == [
        "toy: a statement of bounds without numerics in slt.measure.catalogue"]


def test_numerics_without_a_statement_is_a_missing_half(extra_path):
    statements, numerics = extra_path(numerics_module=NUMERICS_MODULE)
    assert "toy" not in statements and "toy" in numerics
    assert catalogue.mismatches(numerics, list(statements)) == [
        "toy: numerics in slt.measure.catalogue of a statement bounds does not have"]


@pytest.mark.parametrize("edit, needle", [(("DECLARED = ((120, toy),)", "DECLARED = ((10, toy),)"), "order key 10"),
                                          (('name="toy"', 'name="lemma2"'), "name 'lemma2'")])
def test_a_clash_in_the_statement_modules_is_refused(extra_path, edit, needle):
    from bounds.catalogue import CatalogueError

    with pytest.raises(CatalogueError, match=needle) as exc:
        extra_path(bounds_module=BOUNDS_MODULE.replace(*edit))
    assert "bounds.toy" in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize("edit, needle", [(("ORDER = 120\n", ""), "without ORDER"),
                                          (("ORDER = 120", "ORDER = 20"), "order key 20")])
def test_a_numerics_module_without_its_declarations_or_with_a_taken_key_is_refused(extra_path, edit, needle):
    with pytest.raises(ValueError, match=needle) as exc:
        extra_path(numerics_module=NUMERICS_MODULE.replace(*edit))
    assert "slt.measure.statements.toy" in str(exc.value)
