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


@pytest.mark.parametrize("argv, needle", [
    (["nosuch", "--seed", "1"], "unknown statement 'nosuch'"),
    (["lemma7", "C=4", "d1=2", "d2=2", "eps=0.1"], "--seed"),
    (["lemma7", "--seed", "1", "C=4", "d1=2", "d2=2", "eps=0.1", "zeta=3"], "no parameter 'zeta'"),
    (["lemma7", "--seed", "1", "C=4", "d1=2", "d2=2"], "needs the parameter eps"),
    (["lemma7", "--seed", "1", "C=4", "d1=2", "d2=2", "eps=7"], "lemma7: "),
])
def test_usage_errors_exit_2_with_one_line_naming_the_problem(argv, needle, capsys):
    with pytest.raises(SystemExit) as exit_info:
        rerun.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert needle in err[-1], err


def test_aliases_are_accepted(capsys):
    assert rerun.main(["Lemma 4", "--seed", "0", "C=6", "d1=1", "d2=1", "eps=0.3"]) in (0, 1)
    assert "lemma7" in capsys.readouterr().out
