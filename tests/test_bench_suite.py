"""``benchmarks/bench_suite.py``: the test command's figure in a fresh clone, written only with ``--write`` and only
after a run that passed; ``benchmarks/suite_where.py``: every verification of every process logged, and one computed
again (the same key in another process) counted as such."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

VERIFY = ("import sympy as sp; from bounds.core import Step; from bounds.subset_sum import dim; "
          "from bounds.symbols import d1; from bounds.prove.verify import verify_step; "
          "verify_step('toy', Step(sys.argv[1], d1, sp.Integer(int(sys.argv[2])) * d1), (dim('d1'),))")


def test_a_verification_computed_in_two_processes_is_counted_again(tmp_path):
    from benchmarks import suite_where

    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text("from benchmarks.suite_where import install\ninstall()\n")
    log = tmp_path / "where.jsonl"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'hook'}{os.pathsep}{ROOT}", suite_where.ENV: str(log),
           "SLTH_VERDICT_CACHE": "off"}
    for name, factor in (("a", 2), ("a", 2), ("b", 3)):  # the same step twice (two processes), then another
        done = subprocess.run([sys.executable, "-c", f"import sys; {VERIFY}", name, str(factor)], env=env,
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["step"] for r in rows] == ["a", "a", "b"] and len({r["pid"] for r in rows}) == 3
    assert rows[0]["key"] == rows[1]["key"] != rows[2]["key"] and all(r["calls"] > 0 for r in rows)
    total = suite_where.summary(log)["verify"]
    assert total["n"] == 3 and total["again_s"] == round(rows[1]["cpu_s"], 1)
    assert total["seconds"] == round(sum(r["cpu_s"] for r in rows), 1)


def test_the_figure_is_written_only_with_write_and_only_after_a_passing_run(tmp_path, monkeypatch):
    from benchmarks import bench_suite, common

    out = tmp_path / "test-suite-time.json"
    out.write_text(json.dumps({"profiles": {"checks-cold": {"wall_s": 1}}}))
    monkeypatch.setattr(bench_suite, "OUT", out)
    run = {"wall_s": 900.0, "cpu_s": 1700.0, "exit": 0, "summary": "10 passed in 900s", "commit": "abc1234",
           "machine": common.machine(), "slowest_files": [["tests/test_x.py", 12.0, 3]]}
    monkeypatch.setattr(bench_suite, "measure", lambda where: {**run, "exit": 1})
    assert bench_suite.main(["--write"]) == 1
    assert json.loads(out.read_text()) == {"profiles": {"checks-cold": {"wall_s": 1}}}
    monkeypatch.setattr(bench_suite, "measure", lambda where: run)
    assert bench_suite.main([]) == 0 and "default" not in json.loads(out.read_text())["profiles"]
    assert bench_suite.main(["--write"]) == 0
    data = json.loads(out.read_text())["profiles"]
    assert data["checks-cold"] == {"wall_s": 1}
    assert data["default"]["wall_s"] == 900.0 and data["default"]["command"] == "python -m pytest -n auto"
    assert data["default"]["commit"] == "abc1234" and set(data["default"]["machine"]) >= {"load", "cores"}


def test_the_slowest_files_are_summed_over_their_tests(tmp_path):
    from benchmarks.bench_suite import slowest_files

    junit = tmp_path / "junit.xml"
    junit.write_text('<testsuites><testsuite><testcase classname="tests.test_a" name="t1" time="1.5"/>'
                     '<testcase classname="tests.test_a" name="t2" time="2.5"/>'
                     '<testcase classname="checks.test_b" name="t" time="3.0"/></testsuite></testsuites>')
    assert slowest_files(junit) == [["tests/test_a.py", 4.0, 2], ["checks/test_b.py", 3.0, 1]]


def test_a_fresh_clone_holds_the_committed_head_and_nothing_uncommitted(tmp_path):
    from benchmarks import common

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert common.fresh_clone(tmp_path / "clone") == head
    tracked = subprocess.run(["git", "ls-files"], cwd=tmp_path / "clone", capture_output=True, text=True).stdout
    assert "benchmarks/bench_suite.py" in tracked.splitlines()
    assert not (tmp_path / "clone" / ".venv").exists() and not list((tmp_path / "clone").glob("results/records/*"))
