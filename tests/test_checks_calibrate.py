"""`slth calibrate`: writes the results file atomically, estimates C per grid point, resumes."""
from __future__ import annotations

import argparse
import json

from reports import calibrate


def _run(tmp_path, *extra):
    parser = argparse.ArgumentParser()
    calibrate.add_arguments(parser)
    return calibrate.main(parser.parse_args(["--output", str(tmp_path / "c.json"), "--statements", "lueker",
                                             "--min-trials", "5", *extra]))


def test_calibrate_writes_estimates_and_resumes(tmp_path, capsys):
    assert _run(tmp_path) == 0
    data = json.loads((tmp_path / "c.json").read_text())
    record = data["statements"]["lueker"]
    assert data["command"].startswith("slth calibrate --output")
    assert len(record["points"]) == 3
    for point in record["points"]:
        assert point["C_upper"] is None or point["C_point"] is None or point["C_point"] <= point["C_upper"]
        for row in point["grid"]:
            assert 0 <= row["failures"] <= row["trials"] and 0 <= row["upper"] <= 1
    if record["C"] is not None:
        assert record["C_low"] <= record["C"] == record["C_high"]
    capsys.readouterr()
    assert _run(tmp_path) == 0
    assert capsys.readouterr().out.count("skipped") == 3
    assert json.loads((tmp_path / "c.json").read_text())["statements"]["lueker"]["points"] == record["points"]


def test_calibrate_imports_only_stdlib_at_module_level():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(calibrate))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {n.module if isinstance(n, ast.ImportFrom) else a.name for n in top for a in n.names}
    assert names <= {"__future__", "argparse"}, names
