"""What a Coq run needs, said before it starts (bounds.prove.coq.cost), and the limit on coqc at once."""
from __future__ import annotations

import json

import pytest

from bounds.prove import coq_math
from bounds.prove.coq import check, cost
from tests.test_coq_trust import fake_coqc  # noqa: F401 (the fixture)

TABLE = {"compile:Common": {"cpu_s": 2.0, "rss_mb": 500}, "compile:lemma2": {"cpu_s": 4.0, "rss_mb": 600},
         "check": {"cpu_s": 10.0, "rss_mb": 550}, "axioms": {"cpu_s": 20.0, "rss_mb": 700}}


def test_the_estimate_adds_the_measured_calls_and_takes_the_largest_for_an_unknown_one():
    e = cost.estimate(["compile:Common", "compile:lemma2", "check", "axioms"], 2, TABLE)
    assert e["cpu_s"] == 36.0 and e["wall_s"] == 20.0  # the longest call bounds the wall time from below
    assert e["peak_mb"] == cost.PYTHON_MB + 700 + 600 and e["peak_one_mb"] == cost.PYTHON_MB + 700
    assert cost.estimate(["compile:new"], 1, TABLE)["cpu_s"] == 4.0  # the largest compile measured
    assert cost.estimate(["compile:Common"] * 4, 2, TABLE)["wall_s"] == 4.0


def test_the_message_says_warm_or_what_it_needs():
    assert "no coqc to run" in cost.message([], 2, TABLE)
    line = cost.message(["compile:Common", "check", "axioms"], 2, TABLE)
    assert "\n" not in line and "3 coqc call(s)" in line and "about 32 s of CPU" in line
    assert "about 39 s of CPU" in cost.message(["compile:Common", "check", "axioms"], 2, TABLE, python_s=7.0)
    assert "SLTH_COQ_JOBS=1" in line and "1 step file(s) to compile" in line


def test_the_committed_table_covers_every_call_of_a_cold_run():
    stages = cost.table()
    want = ({f"compile:{s}" for s in check.entries()} | {"check"}
            | {f"math:{s}" for s in coq_math.with_statements()} | {"math:StatementAssumptions"})
    assert want <= set(stages), sorted(want - set(stages))
    assert all(v["cpu_s"] > 0 and v["rss_mb"] > 0 for v in stages.values())
    assert cost.table(cost.ROOT / "no-such-file.json") == {}


def test_a_cold_folder_plans_every_call(tmp_path, monkeypatch):
    monkeypatch.setenv("SLTH_COQ_BUILD", str(tmp_path / "build"))
    stages = cost.plan(tmp_path / "out")
    stems = list(check.entries())
    assert stages[:len(stems)] == [f"compile:{s}" for s in stems]
    assert stages[len(stems)] == "check"
    assert [s for s in stages if s.startswith("axioms")] == []  # the statement check's records say it
    assert [s for s in stages if s.startswith("math:")] == (
        [f"math:{s}" for s in coq_math.order(coq_math.with_statements())] + ["math:StatementAssumptions"])


@pytest.mark.parametrize("value", ["0", "-1", "two", "65", "1.5"])
def test_the_coqc_count_is_validated(monkeypatch, value):
    monkeypatch.setenv("SLTH_COQ_JOBS", value)
    with pytest.raises(check.CoqSetupError) as e:
        check.jobs()
    assert "SLTH_COQ_JOBS" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("jobs,overlap", [("2", True), ("1", False)])
def test_no_more_coqc_at_once_than_slth_coq_jobs(tmp_path, fake_coqc, monkeypatch, jobs, overlap):  # noqa: F811
    """Three files that import nothing, each coqc a second: with 2 jobs two run at once, with 1 never."""
    monkeypatch.setenv("FAKE_MODE", "overlap")
    monkeypatch.setenv("SLTH_COQ_JOBS", jobs)
    (tmp_path / "m").mkdir()
    ok, why = coq_math.compile(tmp_path / "m", {"A": "", "B": "", "C": ""})
    assert ok, why
    assert (tmp_path / "pids.overlap").exists() == overlap
    record = check.load_state(tmp_path / "m" / coq_math.STATE)  # the sealed build record, its seal checked
    assert set(record["files"]) == {"A", "B", "C"}


def test_coq_without_dir_is_the_default_folder_and_an_empty_one_a_usage_error(tmp_path, fake_coqc, monkeypatch,
                                                                               capsys):  # noqa: F811
    from reports import cli, proofs
    seen = []
    monkeypatch.setenv("SLTH_COQ_DIR", str(tmp_path / "default"))
    monkeypatch.setenv("SLTH_COQ_BUILD", str(tmp_path / "build"))
    monkeypatch.setattr(proofs, "_print_coq_axioms", lambda name, directory: seen.append(directory) or 0)
    assert cli.main(["proofs", "--axioms", "--coq"]) == 0
    assert seen == [str(tmp_path / "default")]
    assert cli.main(["proofs", "--axioms", "--coq", ""]) == 2
    assert "needs a folder name" in capsys.readouterr().err and seen == [str(tmp_path / "default")]


def test_the_docs_paragraph_is_printed_from_the_measurement(tmp_path):
    text = cost.summary()
    data = json.loads(cost.TABLE.read_text())
    assert f"{data['cold']['cpu_s']:.0f} s of CPU in all" in text and f"makes {len(data['stages'])} coqc calls" in text
    newest, median = data["runs"][0]["stages"], data["stages"]
    assert f"the statement check ({newest['check']['cpu_s']:.0f} s," in text  # the newest run's own figure
    assert f"last {len(data['runs'])} cold run(s)" in text and f"({sum(v['cpu_s'] for v in median.values()):.0f} s" in text
    other = tmp_path / "median.json"  # a median far from the newest run is not what the paragraph calls measured
    other.write_text(json.dumps({**data, "stages": {k: {**v, "cpu_s": v["cpu_s"] + 50} for k, v in median.items()}}))
    assert f"the statement check ({newest['check']['cpu_s']:.0f} s," in cost.summary(other)
    broken = tmp_path / "t.json"
    broken.write_text(json.dumps({k: v for k, v in data.items() if k != "warm"}))
    with pytest.raises(KeyError):
        cost.summary(broken)


def test_the_estimate_counts_the_python_process_as_measured(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"cold": {"python_cpu_s": 6.5}, "stages": {}}))
    assert cost.python_cpu(path) == 6.5
    for bad in ({"cold": {"python_cpu_s": -1}}, {"cold": {"python_cpu_s": "6"}}, {}, []):
        path.write_text(json.dumps(bad))
        assert cost.python_cpu(path) == 0.0, bad
    assert cost.python_cpu(tmp_path / "none.json") == 0.0
    path.write_text(json.dumps({"cold": {"python_cpu_s": 6.5}, "python_cpu_s": 5.0, "stages": {}}))
    assert cost.python_cpu(path) == 5.0  # the runs' median, where the table keeps several


def test_the_table_keeps_the_last_runs_and_estimates_from_their_medians():
    """``--write`` keeps the newest cold runs (``KEPT``) and writes per stage the median over them; a stage the newest
    run no longer makes is dropped, a stage new to it stands at its own figure; a table of one run (no ``runs``)
    counts as that run."""
    from benchmarks.bench_axioms_coq import KEPT, merged

    def rec(cpu, extra=None, python=5.0):
        stages = {"check": {"cpu_s": cpu, "rss_mb": 1000}, **(extra or {})}
        return {"cold": {"cpu_s": cpu + python, "python_cpu_s": python, "machine": {"commit": "x"}}, "stages": stages}

    one = rec(10.0, {"axioms": {"cpu_s": 9.0, "rss_mb": 900}}, python=4.0)  # an older table, of one run
    new = merged(rec(14.0, {"math:Mha": {"cpu_s": 2.0, "rss_mb": 300}}, python=6.0), one)
    assert new["stages"] == {"check": {"cpu_s": 12.0, "rss_mb": 1000.0}, "math:Mha": {"cpu_s": 2.0, "rss_mb": 300.0}}
    assert new["python_cpu_s"] == 5.0 and len(new["runs"]) == 2 and new["cold"]["cpu_s"] == 20.0
    for cpu in (30.0, 11.0, 13.0, 12.5, 100.0):
        new = merged(rec(cpu), new)
    assert len(new["runs"]) == KEPT == 5
    assert [r["stages"]["check"]["cpu_s"] for r in new["runs"]] == [100.0, 12.5, 13.0, 11.0, 30.0]
    assert new["stages"]["check"]["cpu_s"] == 13.0  # the median: neither the newest run nor the mean
    assert merged({"cold": {"cpu_s": 1.0}, "stages": {}}, {}) == {"cold": {"cpu_s": 1.0}, "stages": {}}
    assert merged(rec(7.0), {"runs": "garbage"})["runs"][0]["stages"]["check"]["cpu_s"] == 7.0


def test_the_benchmark_judges_the_printed_estimate_against_the_cpu_spent():
    from benchmarks.bench_axioms_coq import estimate_check

    line = "slth proofs --axioms --coq: needs 54 coqc call(s) (...): about {} s of CPU, 139 s on 2 free core(s)"
    assert estimate_check(line.format(278), 249.1) == {"estimate_cpu_s": 278.0, "estimate_off": 0.116,
                                                       "estimate_within_25": True}
    assert estimate_check(line.format(170), 403.0)["estimate_within_25"] is False  # 58% under what it spent
    assert estimate_check(line.format(600), 403.0)["estimate_within_25"] is False  # 49% over
    assert estimate_check("slth proofs --axioms --coq: warm: ...; no coqc to run", 4.4) == {}


def test_coqc_gets_the_lazier_collector_unless_the_user_or_the_caller_chose_one(monkeypatch):
    """Every coqc run gets ``runner.GC`` (OCaml's space overhead at 400 %); a caller's own ``OCAMLRUNPARAM`` (the
    queries' ``QUERY_GC``) wins over it, and a user's ``OCAMLRUNPARAM`` in the environment is left to coqc."""
    from bounds.prove.coq import runner

    seen = []
    monkeypatch.setattr(runner, "coqc", lambda: "/bin/true")
    monkeypatch.setattr(runner.external, "run", lambda name, argv, cwd, limit, jobs, env: seen.append(env) or (0, ""))
    monkeypatch.delenv("OCAMLRUNPARAM", raising=False)
    runner.run_coqc(["A.v"], None)
    runner.run_coqc(["A.v"], None, env=runner.QUERY_GC)
    runner.run_coqc(["A.v"], None, env={"OTHER": "1"})
    monkeypatch.setenv("OCAMLRUNPARAM", "v=0x400")
    runner.run_coqc(["A.v"], None)
    assert seen == [{"OCAMLRUNPARAM": "o=400"}, runner.QUERY_GC, {"OCAMLRUNPARAM": "o=400", "OTHER": "1"}, {}]


def test_the_benchmarked_edits_apply_to_this_tree():
    """Each one-constant edit the benchmarks time (``bench_diff.EDIT``, ``bench_commands.EDITS``) finds its text once
    in its file, so a moved constant fails here rather than minutes into a benchmark; and its new text is not there
    already (an edit that left the file as it was would time a warm run)."""
    from benchmarks.bench_commands import EDITS, ROOT
    from benchmarks.bench_diff import EDIT

    for file, before, after, *_ in [EDIT, *EDITS.values()]:
        text = (ROOT / file).read_text()
        assert text.count(before) == 1 and before != after and after not in text, (file, before)
