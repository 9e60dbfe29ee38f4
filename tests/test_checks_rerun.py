"""The re-run command a check prints reproduces exactly the case it was printed for."""
from __future__ import annotations

import shlex

import pytest

from slt.measure import rerun
from slt.measure.softmax_perturbation import cases


@pytest.mark.parametrize("statement", ["lemma8", "lemma5"])
def test_printed_command_reproduces_each_case(statement, capsys):
    found = cases(statement, 8, 2, 1.0, 0.1, seed=5)
    assert {c.parameters["search"] for c in found} == {"random", "adversarial"}
    for case in found:
        argv = shlex.split(case.command)
        assert argv[:3] == ["python", "-m", "slt.measure.rerun"]
        assert rerun.main(argv[3:]) == 0
        out = capsys.readouterr().out
        assert out.count("re-run:") == 1, out  # exactly the named case, not its sibling search
        assert repr(case.measured) in out
