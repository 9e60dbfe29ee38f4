"""The README's test command is exactly the one `.ci/run` runs (the project's rule: CI runs what a user is told)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_test_command() -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(r"Install and run the tests[^\n]*\n+```\n([^\n]+)\n```", text)
    assert match, "README.md has no 'Install and run the tests' code block"
    return match.group(1).strip()


def test_ci_runs_the_readme_test_command():
    command = _readme_test_command()
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert command in lines, f".ci/run does not run the README's test command {command!r}"
    assert "pytest" in command


def test_ci_prints_the_wall_time_of_the_readme_command_and_of_each_later_step():
    """CI reports one total; each step's own wall time is on its stderr, measured around exactly that step."""
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    for command, said in ((_readme_test_command(), 'echo "CI: the README\'s test command (install included) took'),
                          ('python -m pytest -n auto -m "slow and not thorough"', 'echo "CI step slow tier: $(('),
                          ("python -m bounds.prove.coq.coqchk", 'echo "CI step coqchk: $((')):
        at = lines.index(command)
        assert lines[at - 1] == "start=$SECONDS", command
        assert lines[at + 2].startswith(said) and "$((SECONDS - start)) s of wall time" in lines[at + 2], command
