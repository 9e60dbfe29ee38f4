"""`slth calibrate` (reports/calibrate.py over slt.measure.calibrate): estimates C per grid point, writes the results
file atomically, resumes, refuses bad input, runs on a Dask cluster (local or external) and fits the C trends."""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reports import calibrate
from slt.measure import calibrate as cal
from slt.measure import catalogue

ROOT = Path(__file__).resolve().parents[1]


def _args(tmp_path, *extra):
    parser = argparse.ArgumentParser()
    calibrate.add_arguments(parser)
    return parser.parse_args(["--output", str(tmp_path / "c.json"), "--cache-dir", str(tmp_path / "tasks"),
                              "--statements", "lueker", "--min-trials", "5", "--no-progress", *extra])


def _run(tmp_path, *extra):
    return calibrate.main(_args(tmp_path, *extra))


def test_calibrate_writes_estimates_and_resumes(tmp_path, capsys):
    assert _run(tmp_path, "--workers", "0") == 0
    data = json.loads((tmp_path / "c.json").read_text())
    record = data["statements"]["lueker"]
    assert data["command"].startswith("slth calibrate --grid checks --output")
    assert len(record["points"]) == 3
    # Which points meet the criterion is decided by the seeded trials: exactly eps = 0.5 does not (below); every
    # other point has both estimates, in order (no assertion that passes because a value is missing).
    assert {p["eps"] for p in record["points"] if p["C_upper"] is None} == {0.5}
    for point in record["points"]:
        if point["eps"] != 0.5:
            assert point["C_point"] is not None and point["C_upper"] is not None
            assert point["C_point"] <= point["C_upper"]
        for row in point["grid"]:
            assert 0 <= row["failures"] <= row["trials"] and 0 <= row["upper"] <= 1
    # With 5 minimum trials, Lueker's eps = 0.5 point never meets the Clopper-Pearson criterion within the
    # feasible C grid (seeded, so deterministic): the statement constant is then undefined and says why.
    eps05 = next(p for p in record["points"] if p["eps"] == 0.5)
    assert eps05["C_upper"] is None
    assert record["C"] is None and "never met the criterion" in record["note"]
    assert data["cost"]["trials"] == sum(r["trials"] for p in record["points"] for r in p["grid"]) > 0
    capsys.readouterr()
    assert _run(tmp_path, "--workers", "0") == 0
    assert capsys.readouterr().out.count("skipped") == 3
    assert json.loads((tmp_path / "c.json").read_text())["statements"]["lueker"]["points"] == record["points"]


def test_summarise_takes_the_largest_supported_C():
    points = [{"C_point": 1.0, "C_upper": 2.0}, {"C_point": 3.0, "C_upper": 4.0}, {"C_point": None, "C_upper": 1.0}]
    assert cal.summarise(points) == {"C": 4.0, "C_low": 3.0, "C_high": 4.0}
    assert cal.summarise(points + [{"C_point": 1.0, "C_upper": None}])["C"] is None


def test_search_finds_the_smallest_C_meeting_each_criterion():
    """The galloping search against a known monotone failure profile, from every start."""
    grid = cal.C_GRID
    for threshold in range(len(grid)):
        for start in range(len(grid)):
            gen = cal._point_search(grid, 0.3, start)
            i = next(gen)
            seen = set()
            try:
                while True:
                    seen.add(i)
                    failures = 0 if i >= threshold else (2 if i == threshold - 1 else 10)
                    row = {"failures": failures, "trials": 10,
                           "upper": cal.upper_bound(failures, 10)}
                    i = gen.send(row)
            except StopIteration as stop:
                c_point, c_upper, rows = stop.value
            assert c_upper == grid[threshold]
            assert c_point == grid[max(threshold - 1, 0)]
            assert len(seen) <= 12  # a handful of C, not the whole grid


@pytest.mark.parametrize("argv, message", [
    (["--statements", "nosuch"], "unknown statement 'nosuch'"),
    (["--statements", "lemma8"], "deterministic"),
    (["--statements", "lueker", "--grid", "large"], "no large calibration grid"),
    (["--workers", "-1"], "argument --workers: '-1' must be an integer >= 0"),
])
def test_bad_input_is_a_one_line_error_exit_2(tmp_path, capsys, argv, message):
    from reports import cli

    try:
        rc = cli.main(["calibrate", "--output", str(tmp_path / "c.json"), *argv])
    except SystemExit as exc:  # a usage error of the parser (reports.cli.Parser: one line, exit 2)
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_aliases_are_accepted():
    assert catalogue.resolve(["Theorem 3", "lemma4", "Theorem 6"]) == ["theorem9", "lemma7", "theorem14"]


def test_a_corrupt_results_file_is_named(tmp_path, capsys):
    (tmp_path / "c.json").write_text("{not json")
    assert _run(tmp_path, "--workers", "0") == 2
    assert str(tmp_path / "c.json") in capsys.readouterr().err
    (tmp_path / "c.json").write_text('{"statements": {"lueker": 3}}')
    assert _run(tmp_path, "--workers", "0") == 2
    assert "statements.lueker" in capsys.readouterr().err


def test_large_grid_covers_every_listed_value():
    for name in catalogue.calibratable("large"):
        spec = catalogue.get(name).large
        points = cal.large_points(name, "ofat")
        for factor, values in spec.factors.items():
            assert {p[factor] for p in points} == set(values), (name, factor)
        assert len(cal.large_points(name, "full")) == __import__("math").prod(len(v) for v in spec.factors.values())


def test_trend_flags_a_planted_growth_and_not_a_flat_constant():
    import math

    grid = cal.large_points("theorem11", "full")
    grown = [dict(p, C_upper=round(0.5 * p["d1"] ** 0.8 * (1 + 0.05 * math.sin(i)), 6), C_point=None)
             for i, p in enumerate(grid)]
    fit = cal.trend(grown)
    assert fit["verdicts"]["d1"].startswith("grows like d1^a") and fit["significant"] == ["d1"]
    lo, hi = fit["coefficients"]["log d1"]["ci"]
    assert lo < 0.8 < hi
    flat = [dict(p, C_upper=2.0 * (1 + 0.05 * math.sin(i))) for i, p in enumerate(grid)]
    assert cal.trend(flat)["significant"] == []


def test_the_sensitivity_fit_separates_the_confidence_margin_from_a_real_trend():
    """A C_upper that grows with 1/eps while C_point is flat (what the Clopper-Pearson margin alone would do): the
    main fit flags 1/eps, the C_point fit does not; a growth in both is flagged by both."""
    import math

    grid = cal.large_points("theorem9", "ofat")
    margin = [dict(p, C_upper=round(1.0 * (1 / p["eps"]) ** 0.4 * (1 + 0.03 * math.sin(i)), 6),
                   C_point=round(0.8 * (1 + 0.03 * math.cos(i)), 6)) for i, p in enumerate(grid)]
    fit = cal.trend(margin)
    assert fit["significant"] == ["eps"] and fit["sensitivity"]["significant"] == []
    assert fit["sensitivity"]["response"] == "log C_point"
    both = [dict(p, C_point=round(0.8 * (1 / p["eps"]) ** 0.4 * (1 + 0.03 * math.cos(i)), 6)) for i, p in
            enumerate(margin)]
    fit = cal.trend(both)
    assert fit["significant"] == ["eps"] == fit["sensitivity"]["significant"]


def test_calibrate_runs_on_a_local_cluster(tmp_path):
    assert _run(tmp_path, "--workers", "2") == 0
    local = json.loads((tmp_path / "c.json").read_text())["statements"]["lueker"]["points"]
    assert _run(tmp_path, "--workers", "0", "--restart", "--output", str(tmp_path / "d.json"),
                "--cache-dir", str(tmp_path / "other")) == 0
    inproc = json.loads((tmp_path / "d.json").read_text())["statements"]["lueker"]["points"]
    strip = lambda pts: [{k: v for k, v in p.items() if k not in ("seconds", "cpu_s", "grid")} for p in pts]  # noqa: E731
    assert strip(local) == strip(inproc)  # same seeds, same answer wherever it ran


def _start(argv, **kw):
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, **kw)


def _stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_calibrate_through_an_external_scheduler(tmp_path):
    """A scheduler and a worker in subprocesses on 127.0.0.1; `slth calibrate --scheduler ADDRESS` runs through them."""
    sched_file = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler = _start(dask + ["--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file",
                               str(sched_file)])
    worker = None
    try:
        for _ in range(300):
            if sched_file.exists() and sched_file.stat().st_size:
                break
            time.sleep(0.1)
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        worker = _start([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                         "--no-dashboard", "--host", "127.0.0.1"], cwd=ROOT)
        out = subprocess.run([sys.executable, "-m", "reports.cli", "calibrate", "--output", str(tmp_path / "c.json"),
                              "--cache-dir", str(tmp_path / "tasks"), "--statements", "lueker", "--min-trials", "5",
                              "--scheduler", address, "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        points = json.loads((tmp_path / "c.json").read_text())["statements"]["lueker"]["points"]
        assert len(points) == 3
        records = list((tmp_path / "tasks").rglob("*.json"))
        assert records and all(json.loads(r.read_text())["kind"] == "calibrate:lueker" for r in records)
    finally:
        if worker is not None:
            _stop(worker)
        _stop(scheduler)


def test_an_interrupted_calibration_resumes_with_nothing_recomputed(tmp_path):
    """Kill a run after some tasks are cached; the re-run keeps every cached task file as it was (none recomputed,
    since a task file is only written when its task is computed) and ends with the same result as a clean run."""
    cache = tmp_path / "tasks"
    argv = [sys.executable, "-m", "reports.cli", "calibrate", "--output", str(tmp_path / "c.json"), "--cache-dir",
            str(cache), "--statements", "lueker", "--min-trials", "40", "--workers", "0", "--no-progress"]
    proc = _start(argv, cwd=ROOT)
    try:
        for _ in range(1200):
            if len(list(cache.rglob("*.json"))) >= 3 or proc.poll() is not None:
                break
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in cache.rglob("*.json")}
    assert before, "the run was killed before it cached anything"
    out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    for p, (mtime, content) in before.items():
        assert p.stat().st_mtime_ns == mtime and p.read_bytes() == content, f"{p} was recomputed"
    assert len(list(cache.rglob("*.json"))) > len(before)
    clean = [a for a in argv]
    clean[clean.index("--output") + 1] = str(tmp_path / "d.json")
    clean[clean.index("--cache-dir") + 1] = str(tmp_path / "clean")
    assert subprocess.run(clean, cwd=ROOT, capture_output=True, timeout=600).returncode == 0
    strip = lambda f: [{k: v for k, v in p.items() if k not in ("seconds", "cpu_s", "grid")}  # noqa: E731
                       for p in json.loads((tmp_path / f).read_text())["statements"]["lueker"]["points"]]
    assert strip("c.json") == strip("d.json")


def test_the_report_shows_the_trend_verdicts(tmp_path):
    """A large-calibration file with a planted d1 trend: its summary and the report section name the verdict."""
    import math

    from reports.sections import calibration_trend

    points = [dict(p, C_upper=round(0.5 * p["d1"] ** 0.8 * (1 + 0.05 * math.sin(i)), 6), C_point=0.4, trials=50,
                   grid=[]) for i, p in enumerate(cal.large_points("theorem11", "full"))]
    record = {"points": points, **cal.summarise(points), "trend": cal.trend(points)}
    path = tmp_path / "large.json"
    path.write_text(json.dumps({"command": "slth calibrate --grid large", "statements": {"theorem11": record},
                                "cost": {"trials": 1, "cpu_s": 2.0, "wall_s": 3.0}}))
    summary = cal.trend_summary(path)
    assert summary["statements"]["theorem11"]["trend"]["verdicts"]["d1"].startswith("grows like d1^a")
    section = calibration_trend.render({"calibration": {"large": summary}})
    assert "grows like d1^a" in section.html and "no significant trend in H" in section.html
    assert section.html.count('<svg class="plot') >= 2 and "theorem11" in section.summary  # C against d1, H, ...
    assert calibration_trend.render({"calibration": {"large": None}}) is None


def test_the_checks_loader_names_a_corrupt_calibration_file(tmp_path):
    from slt.measure import calibration

    bad = tmp_path / "calibration.json"
    bad.write_text("{oops")
    with pytest.raises(ValueError, match=str(bad)):
        calibration.load(str(bad))
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a calibration file"):
        calibration.load(str(bad))  # the first call raised, so nothing was cached


def test_refit_recomputes_C_and_trend_without_measuring(tmp_path, capsys):
    import math

    points = [dict(p, C_upper=round(0.5 * p["d1"] ** 0.8 * (1 + 0.05 * math.sin(i)), 6), C_point=0.4, trials=50,
                   grid=[]) for i, p in enumerate(cal.large_points("theorem11", "full"))]
    path = tmp_path / "large.json"
    path.write_text(json.dumps({"statements": {"theorem11": {"points": points, "C": 1.0, "trend": {"verdict": "stale"}}}}))
    parser = argparse.ArgumentParser()
    calibrate.add_arguments(parser)
    assert calibrate.main(parser.parse_args(["--grid", "large", "--refit", "--output", str(path)])) == 0
    record = json.loads(path.read_text())["statements"]["theorem11"]
    assert record["C"] == max(p["C_upper"] for p in points)
    assert record["trend"]["verdicts"]["d1"].startswith("grows like d1^a")
    assert "nothing measured" in capsys.readouterr().out


def test_the_design_is_recorded_per_statement(tmp_path):
    """Statements of one large-calibration file may be run under different designs (the factorial where it is cheap,
    a slice of it with --where): each statement's record says which designs and commands made it and how many points
    they plan ("points run / in the design"); the whole factorial absorbs every other design."""
    parser = argparse.ArgumentParser()
    calibrate.add_arguments(parser)
    common = ["--output", str(tmp_path / "c.json"), "--cache-dir", str(tmp_path / "tasks"), "--no-progress",
              "--grid", "large", "--where", "d2=2", "--where", "eps=0.3", "--where", "L=1", "--workers", "0"]

    def run(*extra):
        return calibrate.main(parser.parse_args(common + list(extra)))

    assert run("--where", "d1=2", "--statements", "lemma7") == 0
    data = json.loads((tmp_path / "c.json").read_text())
    lemma7 = data["statements"]["lemma7"]
    assert lemma7["design"] == "ofat where d2=2, eps=0.3, L=1, d1=2" == data["design"]["name"]
    assert len(lemma7["planned"]) == len(lemma7["points"]) == 1
    assert run("--design", "full", "--where", "d1=2,4", "--statements", "lemma7") == 0
    assert run("--where", "d1=2", "--statements", "theorem10") == 0
    data = json.loads((tmp_path / "c.json").read_text())
    lemma7 = data["statements"]["lemma7"]
    assert lemma7["design"] == "ofat where d2=2, eps=0.3, L=1, d1=2 + full where d2=2, eps=0.3, L=1, d1=2,4"
    assert len(lemma7["planned"]) == len(lemma7["points"]) == 2 and len(lemma7["commands"]) == 2
    assert data["design"]["per_statement"]["theorem10"].startswith("ofat where")
    assert data["design"]["name"].startswith("mixed")
    summary = cal.trend_summary(tmp_path / "c.json")
    assert summary["statements"]["lemma7"]["planned"] == 2 and len(summary["statements"]["lemma7"]["commands"]) == 2
    from reports.sections.calibration_trend import markdown_table

    assert "| lemma7 | ofat where d2=2, eps=0.3, L=1, d1=2 + full where d2=2, eps=0.3, L=1, d1=2,4 | 2 / 2 |" in (
        markdown_table(summary))


def test_the_docs_tables_are_the_committed_large_calibration():
    """docs/calibration.md's large-calibration tables are what ``slth calibrate --table`` prints from the committed
    files (no number typed by hand; regenerate with ``slth docs`` after a calibration)."""
    import re

    from reports.sections.calibration_trend import markdown_table

    text = (ROOT / "docs" / "calibration.md").read_text()
    for block, path in (("large-random", None), ("large-worst", cal.LARGE_WORST_FILE)):
        match = re.search(rf"<!-- generated: {block} -->\n(.*?)\n<!-- end generated: {block} -->", text, re.DOTALL)
        assert match, f"docs/calibration.md has no {block} table between its markers"
        assert match.group(1).strip() == markdown_table(cal.trend_summary(path)).strip(), (
            f"docs/calibration.md's {block} table differs from the committed file: slth docs")


def test_the_worst_target_large_grid_has_independent_seeds_per_point_and_C():
    """Every (point, C) row of a statement in the committed worst-target large grid has its own
    seed (no two rows share one), each statement is at the worst family of the checks grid, and no trend was fitted on monotone
    counts assumed (the file says how it read them)."""
    data = cal.load_results(cal.LARGE_WORST_FILE)
    assert "antitonic" in data["search"] and "independent" in data["seeds"]
    from slt.measure import calibration

    for name, rec in data["statements"].items():
        seeds = [g["seed"] for p in rec["points"] for g in p["grid"]]
        assert len(seeds) == len(set(seeds)), name  # within a statement (statements are separate experiments)
        assert rec["target"] == calibration.calibrated(name)["worst_target"]
        assert len({p["seed"] for p in rec["points"]}) == len(rec["points"])


def test_the_summary_compares_the_checks_constant_with_the_large_grid(tmp_path):
    """Whether the C the checks build at (safety x the checks' calibrated C) covers the large grid's C: yes for a
    small planted C, no (and said in the report) for one above it."""
    from reports.sections import calibration_trend
    from slt.measure import calibration

    build = calibration.check_constant("theorem11")
    for C, covers in ((build / 2, True), (build * 2, False)):
        points = [dict(p, C_upper=C, C_point=C / 2, trials=50, grid=[]) for p in cal.large_points("theorem11", "ofat")]
        path = tmp_path / "large.json"
        path.write_text(json.dumps({"statements": {"theorem11": {"points": points, **cal.summarise(points)}}}))
        summary = cal.trend_summary(path)
        assert summary["statements"]["theorem11"]["checks"]["covers"] is covers
        html = calibration_trend.render({"calibration": {"large": summary}}).html
        assert ("below this grid's C" in html) is (not covers)
        assert ("below this grid's C" in calibration_trend.markdown_table(summary)) is (not covers)


def test_table_prints_the_committed_file_and_names_a_missing_one(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    calibrate.add_arguments(parser)
    assert calibrate.main(parser.parse_args(["--table"])) == 0
    assert "| theorem9 |" in capsys.readouterr().out
    assert calibrate.main(parser.parse_args(["--table", "--output", str(tmp_path / "none.json")])) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "none.json" in err
