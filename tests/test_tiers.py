"""The test tiers (root conftest.py): ``slow`` tests leave a run that does not ask for them; the ``slow`` tests without
``thorough`` are CI's slow tier, a separate named step of ``.ci/run`` after the README's command, and each says in its
docstring which cheaper test of the default run asserts the same property."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

import conftest

ROOT = Path(__file__).resolve().parents[1]


def _config(m: str = "", profile: str = "ci"):
    options = {"-m": m, "--slth-profile": profile}
    return SimpleNamespace(getoption=lambda name, default=None: options.get(name, default))


def test_a_run_keeps_its_slow_tests_only_when_it_asks_for_them():
    assert not conftest.wants_slow(_config())
    assert not conftest.wants_slow(_config("gpu"))
    assert conftest.wants_slow(_config("slow"))
    assert conftest.wants_slow(_config("slow and not thorough"))
    assert conftest.wants_slow(_config("", "thorough"))


def test_the_slow_tests_are_deselected_from_a_default_collection(tmp_path):
    """A module with a plain test, a ``slow`` one and a ``slow`` + ``thorough`` one, collected in a child pytest as the
    README's command collects (``-p no:xdist`` only to keep the child in one process)."""
    import subprocess
    import sys

    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text().split("[tool.pytest.ini_options]")[0]
                                             + "[tool.pytest.ini_options]\nmarkers = ['slow: s', 'thorough: t']\n")
    (tmp_path / "test_t.py").write_text("import pytest\n\ndef test_plain():\n    pass\n\n@pytest.mark.slow\n"
                                        "def test_tier():\n    pass\n\n@pytest.mark.slow\n@pytest.mark.thorough\n"
                                        "def test_minutes():\n    pass\n")

    def collected(*argv):
        out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider",
                              "--collect-only", "-q", *argv], cwd=tmp_path, capture_output=True, text=True)
        return sorted(re.findall(r"test_t\.py::(\w+)", out.stdout)), out.returncode

    assert collected() == (["test_plain"], 0)
    assert collected("-m", "slow and not thorough") == (["test_tier"], 0)
    assert collected("-m", "slow") == (["test_minutes", "test_tier"], 0)


def _slow_tier_functions(root: Path = ROOT):
    """``(file, function, docstring)`` of every test function marked ``slow`` (on the function or on one of its
    parameters) and not ``thorough``, read from the source of tests/ and checks/ under ``root``."""
    out = []
    for path in sorted([*root.glob("tests/test_*.py"), *root.glob("checks/test_*.py")]):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                marks = " ".join(ast.unparse(d) for d in node.decorator_list)
                if "mark.slow" in marks and "mark.thorough" not in marks:
                    out.append((path.relative_to(root).as_posix(), node.name, ast.get_docstring(node) or ""))
    return out


def test_every_slow_tier_test_names_the_default_run_test_that_covers_it():
    rows = _slow_tier_functions()
    assert rows, "no test in CI's slow tier: its step would collect nothing"
    for path, name, doc in rows:
        assert "slow tier" in doc, f"{path}::{name} is in CI's slow tier but its docstring does not say so"
        assert re.search(r"test_\w+", doc.split("slow tier", 1)[1]), \
            f"{path}::{name}: its docstring names no default-run test that covers it"


def test_a_slow_tier_test_without_its_cover_is_found(tmp_path):
    """The scan sees a ``slow`` test whose docstring names no cover (on the function and on a parameter), and leaves
    a ``thorough`` one alone."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        'import pytest\n\n@pytest.mark.slow\ndef test_x():\n    """Long."""\n\n\n'
        '@pytest.mark.parametrize("a", [pytest.param(1, marks=pytest.mark.slow), 2])\ndef test_y(a):\n    pass\n\n\n'
        '@pytest.mark.slow\n@pytest.mark.thorough\ndef test_z():\n    pass\n')
    assert _slow_tier_functions(tmp_path) == [("tests/test_x.py", "test_x", "Long."), ("tests/test_x.py", "test_y", "")]


def test_ci_runs_the_slow_tier_as_a_named_step_after_the_readme_command():
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    readme = lines.index("python -m pip install -e '.[torch]' && python -m pytest -n auto")
    step = lines.index('python -m pytest -n auto -m "slow and not thorough"')
    assert readme < step
    assert any(line.startswith('echo "CI step: the slow tier') for line in lines[readme:step])
    after = "\n".join(lines[step:lines.index('echo "CI step: coqchk on the compiled Coq libraries '
                                          '(python -m bounds.prove.coq.coqchk)" >&2')])  # the step's own lines
    assert '[ "$slow" -eq 5 ]' in after and "rc=1" in after  # no tests collected is a failure
