"""Every command as careful as `slth rate`: each probe of a careful user or a hostile file gives ONE line on stderr
with the README's exit status (usage 2, interrupted 130), or the documented recovery, before any work, and leaves
every input file byte-identical. In-process through ``reports.cli.main`` where possible; a subprocess only for
signals."""
from __future__ import annotations

import contextlib
import copy
import errno
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from reports import cli

ROOT = Path(__file__).resolve().parent.parent
ESC = "\x1b"


def _slth(capsys, *argv) -> tuple[int, list[str], str]:
    """``slth ARGV`` in this process: (exit status, stderr lines, stdout)."""
    try:
        rc = cli.main(list(argv))
    except SystemExit as exc:  # pragma: no cover - cli.main returns; argparse's exit is the parser's
        rc = exc.code
    out = capsys.readouterr()
    return rc, [line for line in out.err.splitlines() if line.strip()], out.out


def _one_line(err: list[str], *needles: str) -> str:
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    for needle in needles:
        assert needle in err[0], err
    return err[0]


@pytest.fixture
def no_trials(monkeypatch):
    """Any trial, task run or measurement fails the test: the refusal must come before the work."""
    from slt import targets, tasks
    from slt.measure import adversaries
    from slt.measure import calibrate as cal

    def forbidden(*a, **k):
        raise AssertionError("work started before the bad input was refused")

    for mod, names in ((adversaries, ("fixed_C", "family_rates", "calibrate_worst")), (targets, ("search",)),
                       (cal, ("calibrate", "estimate_cost")), (tasks, ("execute",))):
        for name in names:
            monkeypatch.setattr(mod, name, forbidden)


@pytest.fixture
def cal_file(tmp_path):
    """A copy of the committed calibration file, and its bytes (to show it is left byte-identical)."""
    from slt.measure import calibration

    path = tmp_path / "calibration.json"
    path.write_bytes(calibration.DEFAULT.read_bytes())
    return path, path.read_bytes()


# ------------------------------------------------------------------------- usage errors: one line, exit 2

@pytest.mark.parametrize("argv, needle", [
    (["frobnicate"], "frobnicate"),
    (["run", "-o", "--quick"], "-o/--output"),
    (["run", "--seed", "1e-300"], "--seed"),
    (["proofs", "--statement", "--variants"], "--statement"),
    (["reproduce", "fig99"], "fig99"),
])
def test_a_usage_error_is_one_line_naming_the_argument(capsys, argv, needle):
    rc, err, _ = _slth(capsys, *argv)
    assert rc == 2
    _one_line(err, needle, "error")
    assert not err[0].startswith("usage")


@pytest.mark.parametrize("argv, close", [(["rate", "--trails", "5"], "--trials"), (["proofs", "--varients"],
                                                                                     "--variants"),
                                          (["reprodce"], "reproduce")])
def test_a_close_name_is_suggested(capsys, argv, close):
    rc, err, _ = _slth(capsys, *argv)
    assert rc == 2
    _one_line(err, f"did you mean '{close}'")


@pytest.mark.parametrize("argv, needle", [
    (["targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--C", "nan"], "--C"),
    (["targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--per", "nan"], "--per"),
    (["targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--per", "inf"], "--per"),
    (["targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--eps", "0,5"], "--eps"),
    (["targets", "families", "--trials", "0"], "--trials"),
    (["targets", "families", "--trials", "-5"], "--trials"),
    (["targets", "search", "lemma7", "d1=2", "d2=2", "eps=0.3", "--seeds", "-3"], "--seeds"),
    (["targets", "search", "lemma7", "d1=2", "d2=2", "eps=0.3", "--steps", "-2"], "--steps"),
    (["rate", "lemma7", "d1=2", "d2=2", "eps=0.3", "--C", "nan"], "--C"),
    (["rate", "lemma7", "d1=2", "d2=2", "eps=0.3", "--trials", "-1"], "--trials"),
    (["calibrate", "--statements", "lueker", "--min-trials", "0"], "--min-trials"),
    (["calibrate", "--statements", "lueker", "--workers", "-1"], "--workers"),
    (["proofs", "--slack", "--workers", "0"], "--workers"),
])
def test_nonsense_numbers_are_refused_naming_the_argument(capsys, no_trials, argv, needle):
    rc, err, _ = _slth(capsys, *argv)
    assert rc == 2
    _one_line(err, needle)


def test_rate_plan_refuses_the_arguments_it_would_ignore(capsys):
    rc, err, out = _slth(capsys, "rate", "--plan", "lemma7", "eps=nan", "--C", "-5", "--trials", "-1", "--level", "7")
    assert rc == 2
    _one_line(err)
    rc, err, out = _slth(capsys, "rate", "--plan", "lemma7", "eps=0.1", "--C", "5")
    assert rc == 2 and out == ""
    _one_line(err, "--plan", "lemma7")


def test_internal_parameters_are_not_user_parameters(capsys, no_trials, cal_file):
    path, before = cal_file
    rc, err, _ = _slth(capsys, "targets", "fixed-c", "lemma7", "d1=2", "d2=2", "solver=evil", "--file", str(path))
    assert rc == 2
    _one_line(err, "solver")
    rc, err, _ = _slth(capsys, "rate", "lemma7", "d1=2", "d2=2", "eps=0.3", "solver=evil", "--trials", "3")
    assert rc == 2
    _one_line(err, "solver")
    rc, err, _ = _slth(capsys, "rate", "lemma7", "d1=2", "d2=2", "eps=0.3", "d3=2", "--trials", "3")
    _one_line(err, "d3", "did you mean")
    assert path.read_bytes() == before


def test_a_huge_C_is_refused_with_the_width_it_needs(capsys, no_trials, cal_file):
    path, before = cal_file
    rc, err, _ = _slth(capsys, "targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--C", "1e308", "--file", str(path))
    assert rc == 2
    _one_line(err, "C=1e+308", "2^53")
    data = json.loads(before)
    data["statements"]["lemma7"]["C"] = 1e300  # the file's own C
    path.write_text(json.dumps(data))
    rc, err, _ = _slth(capsys, "targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--file", str(path))
    assert rc == 2
    _one_line(err, "C=1e+300")


def test_proofs_axioms_checks_the_statement_filter(capsys):
    rc, err, out = _slth(capsys, "proofs", "--axioms", "theorem14", "--statement", "nosuch")
    assert rc == 2 and out == ""
    _one_line(err, "nosuch")


# ---------------------------------------------------------------- memory: refused within a second, with the need

@pytest.fixture
def small_machine(monkeypatch):
    from slt.measure import resources

    monkeypatch.setattr(resources, "available_bytes", lambda: 8 * 2 ** 30)


@pytest.mark.parametrize("argv, needle", [
    (["targets", "search", "lemma7", "d1=2", "d2=2", "eps=0.3", "--C", "4", "--seeds", "1000000000", "--steps", "1",
      "--workers", "0"], "--seeds"),
    (["targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--C", "4", "--per", "1e12", "--workers", "0"], "--per"),
    (["calibrate", "--statements", "lueker", "--where", "eps=0.5", "--workers", "0", "--min-trials", "1000000000",
      "--no-progress"], "--min-trials"),
])
def test_memory_probes_are_refused_at_once_with_the_memory_they_need(capsys, tmp_path, no_trials, small_machine,
                                                                      cal_file, argv, needle):
    path, before = cal_file
    extra = ["--file", str(path)] if argv[0] == "targets" else ["-o", str(tmp_path / "out.json")]
    _slth(capsys, argv[0], "--frobnicate")  # the command's modules imported: time the refusal, not the first import
    start = time.perf_counter()
    rc, err, _ = _slth(capsys, *argv, *extra)
    assert time.perf_counter() - start < 1.0 + (2.0 if argv[0] == "calibrate" else 0.0)
    assert rc == 2
    _one_line(err, needle, "GiB" if needle != "--per" else "bytes", "memory")
    assert path.read_bytes() == before
    assert not (tmp_path / "out.json").exists()


def test_check_trials_counts_and_refuses():
    from slt.measure.resources import RequestError, TRIAL_BYTES, check_trials

    assert check_trials(1000, "--trials", available=10 ** 6) == 1000
    with pytest.raises(RequestError, match="--trials asks for 1,000,000 trials"):
        check_trials(10 ** 6, "--trials", available=10 ** 6 * TRIAL_BYTES - 1)
    with pytest.raises(RequestError):
        check_trials(0, "--trials", available=10 ** 9)


def _ctrl_c_as_in_a_terminal():
    """In the child: SIGINT as a terminal delivers it (a shell's background job without job control inherits it
    ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_exits_130(tmp_path):
    """A real run interrupted by SIGINT: exit 130, one line, no traceback."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SLTH_CACHE_DIR": str(tmp_path / "tasks")}
    proc = subprocess.Popen([sys.executable, "-m", "reports.cli", "targets", "search", "lemma7", "d1=2", "d2=2",
                             "eps=0.3", "--C", "4", "--seeds", "100000", "--steps", "1", "--workers", "0",
                             "--no-progress", "--file", str(ROOT / "slt/measure/calibration.json")],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_ctrl_c_as_in_a_terminal)
    try:
        time.sleep(6)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:  # Ctrl-C ignored: the test fails, and leaves no run behind
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "interrupted" in lines[0], err


@pytest.mark.parametrize("then", ["fails another way", "returns as if done"])
def test_an_interrupt_a_library_swallows_still_ends_the_command_as_interrupted(monkeypatch, capsys, then):
    """A Ctrl-C inside a library that catches the interrupt (SymPy's bare ``except``, an import cut half-way) and then
    raises another error or reads a wrong value and returns: exit 130 and the one interrupted line, never that
    failure or a traceback. Without an interrupt the same error is raised as it was."""
    from reports import proofs

    def library(args):
        try:
            signal.raise_signal(signal.SIGINT)  # the user's Ctrl-C, while the library runs
            time.sleep(5)
        except KeyboardInterrupt:  # caught by the library
            pass
        if then == "fails another way":
            raise ValueError("lueker: hypothesis 'eps < 1' violated (eps=0.5)")
        return 0

    old = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (an xdist worker ignores it)
    try:
        monkeypatch.setattr(proofs, "main", library)
        assert cli.main(["proofs"]) == cli.INTERRUPTED
        err = capsys.readouterr().err
        assert err.strip().splitlines() == [
            "slth proofs: interrupted; nothing half-written was kept (every output is written atomically)"], err
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the command's handler is gone
        monkeypatch.setattr(proofs, "main", lambda args: (_ for _ in ()).throw(ValueError("not interrupted")))
        with pytest.raises(ValueError, match="not interrupted"):
            cli.main(["proofs"])
    finally:
        signal.signal(signal.SIGINT, old)


# ------------------------------------------------------------------ outputs: checked before work, inputs untouched

def test_fixed_c_checks_its_output_before_any_trial(capsys, tmp_path, no_trials, cal_file):
    path, before = cal_file
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for output in (str(tmp_path), str(blocker / "out.json")):
        rc, err, _ = _slth(capsys, "targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--C", "4", "--eps", "0.3",
                           "--file", str(path), "--output", output)
        assert rc == 2
        _one_line(err, "--output", output)
        assert path.read_bytes() == before


def test_fixed_c_that_cannot_write_its_output_leaves_the_file(capsys, tmp_path, monkeypatch, cal_file):
    """The output fails only after the work (a full disk): the calibration file it would update is unchanged and
    the error names the path the user gave, not a temporary file."""
    from slt import cache
    from slt.measure import adversaries

    path, before = cal_file
    row = {"eps": 0.3, "C": 8.0, "failures": 0, "trials": 10, "rate_over_eps": 0.0, "ci_over_eps": [0.0, 1.0],
           "pvalue": 1.0, "passed": True, "power_2eps": 0.2, "widths": {}, "cpu_s": 0.0}
    monkeypatch.setattr(adversaries, "fixed_C", lambda *a, **k: [dict(row)])
    monkeypatch.setattr(adversaries, "failure_glm", lambda *a, **k: {"model": "m", "rows": 1, "verdict": "undecided"})
    out = tmp_path / "out.json"
    real = os.replace

    def full_disk(src, dst):
        if str(dst) == str(out):
            raise OSError(errno.ENOSPC, "No space left on device", str(src))
        return real(src, dst)

    monkeypatch.setattr(cache.os, "replace", full_disk)
    rc, err, _ = _slth(capsys, "targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--C", "8", "--target", "sign_matrix",
                       "--eps", "0.3", "--file", str(path), "--output", str(out), "--no-progress")
    assert rc == 2
    line = _one_line(err, str(out), "No space left")
    assert ".tmp" not in line
    assert path.read_bytes() == before
    assert not out.exists() and not list(tmp_path.glob(".out.json.*"))


def test_a_second_writer_of_the_same_output_is_refused(capsys, tmp_path, no_trials, cal_file):
    from slt.cache import writing

    out = tmp_path / "shared.json"
    path, before = cal_file
    with writing(out):
        rc, err, _ = _slth(capsys, "calibrate", "--statements", "lueker", "--workers", "0", "-o", str(out))
        assert rc == 2
        _one_line(err, str(out), "another slth command is writing it")
    with writing(path):
        rc, err, _ = _slth(capsys, "targets", "families", "--statements", "lemma7", "--file", str(path))
        assert rc == 2
        _one_line(err, str(path), "another slth command")
    assert path.read_bytes() == before
    assert not out.exists()


def test_two_overlapping_calibrate_processes_do_not_lose_results(tmp_path):
    """Two real processes: the second, started while the first holds the output, is refused with one line."""
    out = tmp_path / "shared.json"
    code = ("import sys, time; from slt.cache import writing\n"
            f"with writing({str(out)!r}):\n    print('held', flush=True); time.sleep(20)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        done = subprocess.run([sys.executable, "-m", "reports.cli", "calibrate", "--statements", "lueker",
                               "--workers", "0", "-o", str(out)], env=env, capture_output=True, text=True,
                              timeout=120, cwd=tmp_path)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 2
    _one_line([x for x in done.stderr.splitlines() if x.strip()], "another slth command is writing it")


def test_write_atomic_names_the_given_path_on_a_storage_error(tmp_path, monkeypatch):
    from slt import cache

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", "/somewhere/.x.json.abc.tmp")

    monkeypatch.setattr(cache.os, "replace", full)
    with pytest.raises(OSError) as exc:
        cache.write_atomic(tmp_path / "x.json", "{}")
    assert exc.value.filename == str(tmp_path / "x.json") and exc.value.errno == errno.ENOSPC
    assert not list(tmp_path.iterdir())


# -------------------------------------------------------------------------- every line to a terminal escaped

@pytest.mark.parametrize("argv", [
    ["targets", "families", "--statements", "lemma7\x1b]0;pwned\x07"],
    ["targets", "search", "lemma7\x1b[2J", "d1=2"],
    ["report", "--only", "nosuch\x1b[2J", "-o", "/tmp/never-written-slth-report.html"],
    ["proofs", "--statement", "x\x1b]0;t\x07"],
])
def test_arguments_echoed_in_errors_are_escaped(capsys, no_trials, argv):
    rc, err, out = _slth(capsys, *argv)
    assert rc == 2
    assert ESC not in "".join(err) + out and "\\x1b" in "".join(err)


def test_a_file_read_and_printed_is_escaped(capsys, tmp_path):
    """``slth calibrate --table --output F`` prints the file's statement names: escaped."""
    from slt.measure import calibrate as cal

    data = json.loads(cal.LARGE_FILE.read_text())
    name = next(iter(data["statements"]))
    data["statements"][name]["trend"]["verdict"] = "evil \x1b]0;title\x07 \x1b[2J"
    path = tmp_path / "large.json"
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    rc, err, out = _slth(capsys, "calibrate", "--table", "--output", str(path))
    assert rc == 0 and "evil \\x1b]0;title\\x07 \\x1b[2J" in out
    assert ESC not in out + "".join(err)
    assert path.read_bytes() == before


def test_the_escaping_stream_keeps_text_and_a_progress_bars_carriage_return():
    import io

    from reports.terminal import SafeStream

    buf = io.StringIO()
    s = SafeStream(buf)
    s.write("plain text, tabs\tand newlines\n")
    s.write("\r 50%|#####     | 5/10")
    s.write("key \x1b]0;t\x07 \r over")
    assert buf.getvalue() == ("plain text, tabs\tand newlines\n\r 50%|#####     | 5/10"
                              "key \\x1b]0;t\\x07 \\r over")


# --------------------------------------------------------------- files from disk: one reader, shape and sense

@pytest.fixture
def committed_calibration(monkeypatch, tmp_path):
    """Point the committed calibration file at a copy this test may break."""
    from slt.measure import calibration

    path = tmp_path / "committed-calibration.json"
    path.write_bytes(calibration.DEFAULT.read_bytes())
    monkeypatch.setattr(calibration, "DEFAULT", path)
    calibration.load.cache_clear()
    yield path
    calibration.load.cache_clear()


def _break_C(text: str, how: str) -> str:
    if how == "truncated":
        return text[: len(text) // 2]
    if how == "empty":
        return ""
    data = json.loads(text)
    if how == "null":
        data["statements"]["lemma7"]["C"] = None
    else:
        del data["statements"]["lemma7"]["C"]
    return json.dumps(data)


@pytest.mark.parametrize("how", ["null", "missing", "truncated", "empty"])
@pytest.mark.parametrize("plan", [False, True])
def test_a_broken_committed_calibration_is_one_line(capsys, committed_calibration, no_trials, how, plan):
    from slt.measure import calibration

    path = committed_calibration
    path.write_text(_break_C(path.read_text(), how))
    before = path.read_bytes()
    calibration.load.cache_clear()
    argv = ["rate", "--plan"] if plan else ["rate", "lemma7", "d1=2", "d2=2", "eps=0.3", "--trials", "3"]
    rc, err, _ = _slth(capsys, *argv)
    assert rc == 2
    _one_line(err, str(path))
    assert path.read_bytes() == before


def test_a_committed_rate_check_without_params_is_set_aside_with_a_reason(tmp_path):
    from slt.measure import committed

    doc = json.loads(committed.PATH.read_text())
    i = next(i for i, c in enumerate(doc["empirical"]["checks"]) if c["kind"] == "rate")
    del doc["empirical"]["checks"][i]["params"]
    path = tmp_path / "empirical-full.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(committed.CommittedError, match=rf"checks\[{i}\]\.params' is missing"):
        committed.load(path)
    own = {"checks": [], "verdicts": {}, "tightness": [], "decisions": {}}
    data, source = committed.select(own, "quick", {}, path)
    assert data is own and "params' is missing" in source["why"]


def test_a_large_calibration_with_a_nonsense_trend_stops_the_run_before_work(capsys, tmp_path, monkeypatch):
    from reports.record import assemble
    from slt.measure import calibrate as cal

    data = json.loads(cal.LARGE_FILE.read_text())
    name = next(iter(data["statements"]))
    data["statements"][name]["trend"] = "oops"
    path = tmp_path / "calibration-large.json"
    path.write_text(json.dumps(data))
    monkeypatch.setattr(cal, "LARGE_FILE", path)

    def forbidden(*a, **k):
        raise AssertionError("work started")

    monkeypatch.setattr(assemble, "build", forbidden)
    rc, err, _ = _slth(capsys, "run", "--proofs-only", "-o", str(tmp_path / "rec.json"), "--results",
                       str(tmp_path / "results"))
    assert rc == 2
    _one_line(err, str(path), "trend")


def _deep(path: Path, depth: int = 100_000) -> Path:
    path.write_text("[" * depth + "]" * depth)
    return path


def test_json_nested_100000_deep_is_refused_by_report_and_diff(capsys, tmp_path, proofs_record):
    from reports import record

    deep = _deep(tmp_path / "deep.json")
    good = tmp_path / "good.json"
    record.write(good, proofs_record)
    rc, err, _ = _slth(capsys, "report", "--from", str(deep), "-o", str(tmp_path / "r.html"))
    assert rc == 2
    _one_line(err, str(deep), "nested")
    rc, err, _ = _slth(capsys, "diff", str(deep), str(good))
    assert rc == 2
    _one_line(err, str(deep), "nested")
    assert not (tmp_path / "r.html").exists()


def test_a_task_cache_entry_nested_too_deep_is_named_and_recomputed(tmp_path):
    from slt import tasks
    from tests import _task_fns

    task = tasks.Task("t", _task_fns.__name__ + ":" + next(n for n in dir(_task_fns) if not n.startswith("_")
                                                          and callable(getattr(_task_fns, n))), {}, 0)
    path = tasks.task_path(tmp_path, task)
    path.parent.mkdir(parents=True)
    _deep(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert tasks._load(path, task, task.fingerprint(), None) is None
    assert any(str(path) in str(w.message) and "recomputing" in str(w.message) for w in caught)


@pytest.mark.parametrize("breakage, needle", [
    ("missing", "no calibration file"),
    ("statements-list", "statements"),
    ("points-empty", "points"),
    ("truncated", "not JSON"),
])
@pytest.mark.parametrize("mode", ["families", "refit", "calibrate"])
def test_targets_reads_its_file_through_the_one_reader(capsys, tmp_path, no_trials, cal_file, breakage, needle,
                                                       mode):
    path, before = cal_file
    if breakage == "missing":
        path = tmp_path / "nosuch.json"
    elif breakage == "statements-list":
        path.write_text(json.dumps({"statements": [1, 2]}))
    elif breakage == "points-empty":
        data = json.loads(before)
        data["statements"]["lemma7"]["points"] = []
        path.write_text(json.dumps(data))
    else:
        path.write_bytes(before[:1000])
    kept = path.read_bytes() if path.exists() else None
    rc, err, _ = _slth(capsys, "targets", mode, "--statements", "lemma7", "--file", str(path))
    assert rc == 2
    _one_line(err, str(path), needle)
    assert (path.read_bytes() if path.exists() else None) == kept


@pytest.mark.parametrize("address, needle", [("not a url", "not a scheduler address"),
                                             ("tcp://127.0.0.1:1", "no scheduler answers")])
def test_an_unreachable_scheduler_is_named_before_work(capsys, tmp_path, no_trials, address, needle):
    start = time.perf_counter()
    rc, err, _ = _slth(capsys, "calibrate", "--statements", "lueker", "--scheduler", address, "-o",
                       str(tmp_path / "c.json"))
    assert rc == 2
    _one_line(err, address, needle)
    assert time.perf_counter() - start < 10
    assert not (tmp_path / "c.json").exists()


# ---------------------------------------------------------------- records: verdicts re-decided, or refused

@pytest.fixture
def empirical_record(proofs_record):
    data = copy.deepcopy(proofs_record)
    data["empirical"] = json.loads((Path(__file__).with_name("data") / "empirical-record-sample.json").read_text())
    return data


def _rate_index(data):
    return next(i for i, c in enumerate(data["empirical"]["checks"]) if c["kind"] == "rate")


def _edits():
    def zero_trials(d):
        c = d["empirical"]["checks"][_rate_index(d)]
        c.update(failures=0, trials=0, rate=0.01, verdict="holds")
        c["decision"]["word"] = "holds"

    def tightness(d):
        d["empirical"]["tightness"][0]["ratio"] = -1e308

    def word(text):
        def edit(d):
            d["empirical"]["checks"][_rate_index(d)]["verdict"] = text
        return edit

    def statement_word(d):
        name = next(iter(d["empirical"]["verdicts"]))
        d["empirical"]["verdicts"][name] = "holds!!"

    def forged_interval(d):
        c = d["empirical"]["checks"][_rate_index(d)]
        c["interval"] = [0.0, 1e-9]

    def flipped(d):  # an undecided check relabelled "holds": its numbers decide otherwise
        c = next(c for c in d["empirical"]["checks"] if c["kind"] == "rate" and c["verdict"] != "holds")
        c["verdict"] = c["decision"]["word"] = "holds"

    return {"trials 0 decided holds": (zero_trials, "trials"), "tightness -1e308": (tightness, "tightness"),
            "totally fine": (word("totally fine"), "verdict"), "holds!!": (statement_word, "holds!!"),
            "forged interval": (forged_interval, "interval"), "relabelled": (flipped, "numbers decide")}


@pytest.mark.parametrize("name", list(_edits()))
def test_a_record_whose_verdicts_do_not_follow_from_its_numbers_is_refused(capsys, tmp_path, empirical_record,
                                                                            name):
    from reports import record

    edit, needle = _edits()[name]
    good = tmp_path / "good.json"
    good.write_text(json.dumps(empirical_record))
    record.load(good)  # the unedited record is read
    data = copy.deepcopy(empirical_record)
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(record.RecordError) as exc:
        record.load(path)
    assert needle in str(exc.value) and "\n" not in str(exc.value)
    rc, err, _ = _slth(capsys, "report", "--from", str(path), "-o", str(tmp_path / "r.html"))
    assert rc == 2
    _one_line(err, str(path))
    rc, err, _ = _slth(capsys, "diff", str(good), str(path))
    assert rc == 2


# ------------------------------------------------------------------------- leftovers of a killed `slth diff`

def test_diff_prunes_the_worktree_an_earlier_killed_run_left(tmp_path):
    import tempfile

    from slt import diff

    repo = tmp_path / "repo"
    repo.mkdir()
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, capture_output=True, text=True, check=True)  # noqa: E731
    git("init", "-q")
    (repo / "f").write_text("x")
    git("add", "f")
    git("-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "init")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a process id that no longer runs: the killed `slth diff`
    left = Path(tempfile.mkdtemp(prefix=diff.REF_PREFIX))
    (left / diff.OWNER).write_text(str(dead.pid))
    git("worktree", "add", "--detach", "--quiet", str(left / "tree"), "HEAD")
    alive = Path(tempfile.mkdtemp(prefix=diff.REF_PREFIX))  # a concurrent `slth diff` (this process) keeps its own
    (alive / diff.OWNER).write_text(str(os.getppid()))
    git("worktree", "add", "--detach", "--quiet", str(alive / "tree"), "HEAD")
    try:
        fresh = diff.ref_worktree(repo, git("rev-parse", "HEAD").stdout.strip())
        listed = git("worktree", "list", "--porcelain").stdout
        assert str(left) not in listed and not left.exists()
        assert str(alive / "tree") in listed
        assert str(fresh / "tree") in listed and (fresh / diff.OWNER).read_text() == str(os.getpid())
    finally:
        for folder in (left, alive):
            subprocess.run(["git", "worktree", "remove", "--force", str(folder / "tree")], cwd=repo,
                           capture_output=True)
            subprocess.run(["rm", "-rf", str(folder)])
        if "fresh" in dir():
            subprocess.run(["rm", "-rf", str(fresh)])


def test_a_full_disk_is_found_before_the_run(capsys, tmp_path, monkeypatch):
    import collections
    import shutil

    from reports.record import assemble

    def forbidden(*a, **k):
        raise AssertionError("work started")

    monkeypatch.setattr(assemble, "build", forbidden)
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10 ** 9, 10 ** 9, 0))
    out = tmp_path / "rec.json"
    rc, err, _ = _slth(capsys, "run", "--proofs-only", "-o", str(out))
    assert rc == 2
    _one_line(err, str(out), "no space left")


def test_the_child_run_of_a_killed_diff_dies_with_it():
    """`slth diff --against REF` starts REF's run with ``slt.diff.die_with_parent``: SIGKILL of the diff leaves no
    orphan run."""
    code = ("import subprocess, sys, time\nfrom slt.diff import die_with_parent\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], "
            "preexec_fn=die_with_parent)\nprint(child.pid, flush=True)\ntime.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    parent.kill()
    parent.wait()

    def running(pid):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state not in ("Z", "X")

    deadline = time.time() + 5
    while running(child) and time.time() < deadline:
        time.sleep(0.05)
    alive = running(child)
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive, "the child run outlived the killed diff"


def test_a_misspelt_statement_gets_the_close_name(capsys, no_trials):
    rc, err, _ = _slth(capsys, "rate", "lemma77", "eps=0.1")
    assert rc == 2
    _one_line(err, "did you mean 'lemma7'")
    rc, err, _ = _slth(capsys, "targets", "families", "--statements", "lemma77")
    assert rc == 2
    _one_line(err, "did you mean 'lemma7'")


# ------------------------------------------------- outputs never replace what they point at, nor what is read

def test_an_output_link_is_written_through_and_kept(tmp_path):
    """An atomic write through a symbolic link replaces the file it points at and keeps the link; a link to a
    device (here /dev/null, standing in for /dev/stdout) is written into, and the link stays a link."""
    from slt.cache import write_atomic

    target = tmp_path / "real.html"
    target.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    device = tmp_path / "stdout"
    device.symlink_to(os.devnull)
    write_atomic(device, "page")
    assert device.is_symlink() and os.readlink(device) == os.devnull
    dangling = tmp_path / "later.html"
    dangling.symlink_to(tmp_path / "made-later.html")
    write_atomic(dangling, "x")
    assert dangling.is_symlink() and (tmp_path / "made-later.html").read_text() == "x"


def test_an_output_through_a_fifo_reaches_its_reader(tmp_path):
    """``-o /dev/stdout`` when stdout is a pipe: the bytes go down the pipe, the path stays a pipe."""
    import threading

    from slt.cache import write_atomic

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "stdout"
    link.symlink_to(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    write_atomic(link, "through the pipe")
    reader.join(5)
    assert got == ["through the pipe"] and link.is_symlink()
    import stat as _stat
    assert _stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_report_output_link_is_kept(capsys, tmp_path, proofs_record):
    from reports import record

    rec = tmp_path / "R.json"
    record.write(rec, proofs_record)
    target = tmp_path / "page.html"
    target.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    rc, err, _ = _slth(capsys, "report", "--from", str(rec), "-o", str(link), "--only", "statements")
    assert rc == 0, err
    assert link.is_symlink() and "<html" in target.read_text()


def test_a_symlink_loop_as_output_is_one_line(capsys, tmp_path, proofs_record):
    from reports import record

    rec = tmp_path / "R.json"
    record.write(rec, proofs_record)
    loop = tmp_path / "loop.html"
    loop.symlink_to(loop)
    rc, err, _ = _slth(capsys, "report", "--from", str(rec), "-o", str(loop))
    assert rc == 2
    _one_line(err, str(loop), "loop")


def test_report_never_writes_the_record_it_reads(capsys, tmp_path, proofs_record):
    from reports import record

    rec = tmp_path / "R.json"
    record.write(rec, proofs_record)
    before = rec.read_bytes()
    (tmp_path / "d").mkdir()
    for spelling in (str(rec), str(tmp_path / "d" / ".." / "R.json")):
        rc, err, _ = _slth(capsys, "report", "--from", str(rec), "-o", spelling)
        assert rc == 2
        _one_line(err, "--from", "reads")
        assert rec.read_bytes() == before


def test_diff_never_writes_a_record_it_reads(capsys, tmp_path, proofs_record):
    from reports import record

    rec = tmp_path / "R.json"
    record.write(rec, proofs_record)
    before = rec.read_bytes()
    rc, err, _ = _slth(capsys, "diff", str(rec), str(rec), "--html", str(rec))
    assert rc == 2
    _one_line(err, "--html", "reads")
    assert rec.read_bytes() == before


def test_targets_output_equal_to_file_is_refused_as_the_same_file(capsys, tmp_path, no_trials, cal_file):
    path, before = cal_file
    rc, err, _ = _slth(capsys, "targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--C", "8", "--target", "sign_matrix",
                       "--eps", "0.3", "--file", str(path), "--output", str(tmp_path / "." / path.name))
    assert rc == 2
    _one_line(err, "--output", "--file", "same file")
    assert path.read_bytes() == before


def test_an_output_in_a_missing_folder_is_refused_and_not_made(capsys, tmp_path, no_trials, cal_file):
    path, before = cal_file
    missing = tmp_path / "nonexistent" / "x.json"
    rc, err, _ = _slth(capsys, "targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--C", "8", "--target",
                       "sign_matrix", "--eps", "0.3,0.1,0.03", "--per", "14", "--file", str(path),
                       "--output", str(missing))
    assert rc == 2
    _one_line(err, "--output", "does not exist")
    assert not missing.parent.exists() and path.read_bytes() == before
    rc, err, _ = _slth(capsys, "calibrate", "--statements", "lueker", "--workers", "0", "-o", str(missing))
    assert rc == 2
    _one_line(err, "--output", "does not exist")
    assert not missing.parent.exists()


def _fixed_rows(monkeypatch):
    from slt.measure import adversaries

    def rows(name, C, params, eps_values, per, seed, **kw):
        return [{"eps": e, "C": C, "failures": 0, "trials": 7, "rate_over_eps": 0.0, "ci_over_eps": [0.0, 1.0],
                 "pvalue": 1.0, "passed": True, "power_2eps": 0.2, "widths": {}, "cpu_s": 0.0} for e in eps_values]

    monkeypatch.setattr(adversaries, "fixed_C", rows)
    monkeypatch.setattr(adversaries, "failure_glm", lambda *a, **k: {"model": "m", "rows": 1, "verdict": "v"})


def test_fixed_c_over_some_eps_keeps_the_stored_rows_of_the_others(capsys, tmp_path, monkeypatch, cal_file):
    path, before = cal_file
    _fixed_rows(monkeypatch)
    stored = json.loads(before)["statements"]["lemma7"]["growth"]["rows"]
    rc, err, _ = _slth(capsys, "targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--C", "8", "--target", "sign_matrix",
                       "--eps", "0.3,0.1,0.03", "--per", "14", "--file", str(path), "--no-progress")
    assert rc == 0, err
    rows = json.loads(path.read_text())["statements"]["lemma7"]["growth"]["rows"]
    assert [r["eps"] for r in rows] == [r["eps"] for r in stored]
    assert {r["eps"]: r["trials"] for r in rows if r["eps"] < 0.03} == {r["eps"]: r["trials"] for r in stored
                                                                          if r["eps"] < 0.03}
    assert all(r["trials"] == 7 for r in rows if r["eps"] >= 0.03)


def test_fixed_c_of_another_configuration_never_replaces_stored_rows(capsys, no_trials, cal_file):
    path, before = cal_file
    rc, err, _ = _slth(capsys, "targets", "fixed-c", "lemma7", "d1=2", "d2=2", "--C", "4", "--eps", "0.3",
                       "--file", str(path))
    assert rc == 2
    _one_line(err, "growth", "stored rows", "would replace")
    assert path.read_bytes() == before


def test_the_lock_is_keyed_on_the_resolved_path(capsys, tmp_path, no_trials):
    from slt.cache import lock_key, writing

    (tmp_path / "out").mkdir()
    one, other = tmp_path / "out" / "x.json", tmp_path / "out" / ".." / "out" / "x.json"
    assert lock_key(one) == lock_key(other)
    with writing(one):
        rc, err, _ = _slth(capsys, "calibrate", "--statements", "lueker", "--workers", "0", "-o", str(other))
    assert rc == 2
    _one_line(err, "another slth command is writing it")


def test_report_output_is_locked(capsys, tmp_path, proofs_record):
    from reports import record
    from slt.cache import writing

    rec = tmp_path / "R.json"
    record.write(rec, proofs_record)
    out = tmp_path / "page.html"
    with writing(out):
        rc, err, _ = _slth(capsys, "report", "--from", str(rec), "-o", str(out))
    assert rc == 2
    _one_line(err, str(out), "another slth command is writing it")
    assert not out.exists()


def test_a_lock_folder_that_is_a_file_is_one_line(capsys, tmp_path, monkeypatch, no_trials):
    from slt import cache

    blocker = tmp_path / "slth-locks"
    blocker.write_text("")
    monkeypatch.setattr(cache, "LOCKS", blocker)
    rc, err, _ = _slth(capsys, "calibrate", "--statements", "lueker", "--workers", "0", "-o", str(tmp_path / "c.json"))
    assert rc == 2
    _one_line(err, str(blocker), "TMPDIR")


# ----------------------------------------------------------------------------- reads bounded, numbers bounded

def test_a_record_from_an_endless_device_is_refused_with_the_limit(capsys, tmp_path, proofs_record):
    from reports import record

    good = tmp_path / "good.json"
    record.write(good, proofs_record)
    rc, err, _ = _slth(capsys, "report", "--from", "/dev/zero", "-o", str(tmp_path / "r.html"))
    assert rc == 2
    _one_line(err, "/dev/zero", "256 MiB")
    rc, err, _ = _slth(capsys, "diff", str(good), "/dev/zero")
    assert rc == 2
    _one_line(err, "/dev/zero", "256 MiB")


def test_a_large_regular_file_is_refused_before_reading(tmp_path, monkeypatch):
    from slt import inputs

    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(2 ** 20 + 1)
    monkeypatch.setattr(inputs, "MAX_BYTES", 2 ** 20)
    with pytest.raises(inputs.InputError, match="larger than the 1 MiB"):
        inputs.read_json(big, "record")


def test_a_record_with_trials_10_to_the_400_is_one_line(capsys, tmp_path, empirical_record):
    data = copy.deepcopy(empirical_record)
    data["empirical"]["checks"][_rate_index(data)]["trials"] = 10 ** 400
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(data))
    rc, err, _ = _slth(capsys, "report", "--from", str(path), "-o", str(tmp_path / "r.html"))
    assert rc == 2
    _one_line(err, str(path), "401 digits")
    rc, err, _ = _slth(capsys, "diff", str(path), str(path))
    assert rc == 2
    _one_line(err, str(path), "401 digits")


# ------------------------------------------------------- the committed rows' refresh: arguments, build beside, swap

def _tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_refresh_refuses_unknown_arguments(capsys, monkeypatch):
    from reports.record import verified

    def forbidden(*a, **k):
        raise AssertionError("the refresh started")

    monkeypatch.setattr(verified, "write_committed", forbidden)
    rc = verified.main(["--bogus"])
    err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert rc == 2
    _one_line(err, "--bogus")


@pytest.fixture
def committed_copy(tmp_path, monkeypatch):
    """A copy of the committed folder, and cheap stand-ins for the verification and the tasks."""
    import shutil

    from reports.record import suites, verified

    folder = tmp_path / "committed"
    shutil.copytree(verified.COMMITTED, folder)
    monkeypatch.setattr(suites, "variants", lambda: [{"row": "new variants"}])
    monkeypatch.setattr(suites, "mutations", lambda: [{"row": "new mutations"}])

    def kernel(stage, log):  # the Coq replay's stand-in: a file written into the folder being built
        (stage / "verified-kernel.json").write_text('{"row": "new kernel"}')
    monkeypatch.setattr(verified, "write_kernel", kernel)
    monkeypatch.setattr(verified, "write_lemma12", lambda stage, log: (stage / "verified-lemma12.json").write_text(
        '{"row": "new lemma12"}'))  # Lemma 12's check in Coq: the same kind of stand-in
    return folder


def test_an_interrupted_refresh_leaves_the_committed_files_intact(committed_copy, monkeypatch):
    from reports.record import verified
    from slt.measure import empirical

    before = _tree(committed_copy)

    def interrupted(seed, calibration, committed, progress=None):
        import shutil

        shutil.rmtree(committed)  # what the real one does first
        committed.mkdir()
        (committed / "half.json").write_text("{")
        raise KeyboardInterrupt

    monkeypatch.setattr(empirical, "commit_tasks", interrupted)
    with pytest.raises(KeyboardInterrupt):
        verified.write_committed(committed_copy, log=lambda m: None)
    assert _tree(committed_copy) == before
    assert sorted(p.name for p in committed_copy.parent.iterdir()) == ["committed"]


def test_a_refresh_swaps_in_the_whole_new_folder(committed_copy, monkeypatch):
    from reports.record import verified
    from slt.measure import empirical

    def tasks(seed, calibration, committed, progress=None):
        import shutil

        shutil.rmtree(committed, ignore_errors=True)
        (committed / "kind").mkdir(parents=True)
        (committed / "kind" / "t.json").write_text("{}")
        return 1

    monkeypatch.setattr(empirical, "commit_tasks", tasks)
    verified.write_committed(committed_copy, log=lambda m: None)
    after = _tree(committed_copy)
    assert sorted(k for k in after if k.startswith("tasks")) == ["tasks/kind/t.json"]
    assert "empirical-full.json" in after
    assert b"new variants" in after["verified-variants.json"] and b"new kernel" in after["verified-kernel.json"]
    assert b"new lemma12" in after["verified-lemma12.json"]
    assert sorted(p.name for p in committed_copy.parent.iterdir()) == ["committed"]


# ------------------------------------------------------------------ environment variables: checked like options

@pytest.mark.parametrize("variable, value", [("SLTH_SYMPY_SECONDS", v) for v in ("nan", "inf", "1e20", "abc", "-1", "0")]
                         + [("SLTH_NUMBA_THREADS", v) for v in ("abc", "0", "-2", "1.5")])
def test_a_bad_environment_variable_is_one_line_before_work(capsys, monkeypatch, no_trials, variable, value):
    monkeypatch.setenv(variable, value)
    rc, err, _ = _slth(capsys, "rate", "lemma7", "d1=2", "d2=2", "eps=0.3", "--trials", "3")
    assert rc == 2
    _one_line(err, f"${variable}={value!r}")


def test_the_settings_read_good_values():
    from slth_base.settings import SettingError, sympy_seconds
    from slt.inputs import numba_threads

    assert sympy_seconds({}) == 60.0 and sympy_seconds({"SLTH_SYMPY_SECONDS": "2.5"}) == 2.5
    assert numba_threads({}) is None and numba_threads({"SLTH_NUMBA_THREADS": "3"}) == 3
    with pytest.raises(SettingError):
        sympy_seconds({"SLTH_SYMPY_SECONDS": "-1"})


def test_a_bad_sympy_seconds_stops_the_verifier_before_any_work_not_silently():
    """The guard is read when a stage needs it (importing the verifier reads nothing): a bad value is then one
    SettingError naming the variable, and every entry point refuses it first (exit 2, one line)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SLTH_SYMPY_SECONDS": "-1"}
    done = subprocess.run([sys.executable, "-c", "import bounds.prove.verify_domain as v; v.stage_seconds()"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "SettingError" in done.stderr and "SLTH_SYMPY_SECONDS" in done.stderr
    done = subprocess.run([sys.executable, "-m", "reports.cli", "proofs"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "SLTH_SYMPY_SECONDS" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------------- the report's tokens: linear time

def test_the_report_token_pass_is_linear():
    from reports.render import tokens

    assert str(tokens("rate 7.15256e-07 in [0,1], 1-Lipschitz, -x- and a - b")) == (
        'rate <span class="tok">7.15256e-07</span> in <span class="tok">[0,1],</span> '
        '<span class="tok">1-Lipschitz,</span> -x- and a - b')
    word = "a" * 20_000  # no digit, no hyphen: every start position rescanned the word (9 s at 20 kB)
    start = time.process_time()
    assert str(tokens(word)) == word
    assert str(tokens("x" * 2_000_000 + "-y")).startswith('<span class="tok">')
    assert time.process_time() - start < 1.0


# ---------------------------------------------------------------------------------- slth docs: data and writes

@pytest.fixture
def docs_copy(tmp_path, monkeypatch):
    """``slth docs`` pointed at a copy of docs/calibration.md (stale) and of the committed calibration file."""
    from reports import statements_page as sp
    from slt.measure import calibration

    docs = tmp_path / "docs"
    docs.mkdir()
    page = docs / "calibration.md"
    text = (ROOT / "docs" / "calibration.md").read_text()
    head, _, tail = text.partition("<!-- generated: constants -->\n")
    page.write_text(head + "<!-- generated: constants -->\nstale\n" + tail.partition("<!-- end generated: constants -->")[1]
                    + tail.partition("<!-- end generated: constants -->")[2])
    cal = tmp_path / "calibration.json"
    cal.write_bytes(calibration.DEFAULT.read_bytes())
    monkeypatch.setattr(sp, "DOCS", docs)
    monkeypatch.setattr(sp, "ROOT", tmp_path)
    monkeypatch.setattr(sp, "STATEMENTS_PAGE", docs / "statements.md")
    monkeypatch.setattr(sp, "CALIBRATION", cal)
    for block in ("constants", "fixed-c"):  # the file named when a block's data is incomplete
        if hasattr(sp, "_SOURCES"):
            monkeypatch.setitem(sp._SOURCES, block, cal)
    monkeypatch.setattr(sp, "statements_page", lambda catalogue=None: "statements\n")
    (docs / "statements.md").write_text("statements\n")  # up to date: docs/calibration.md is the page written
    (tmp_path / "README.md").write_text("# readme, no generated block\n")  # slth docs reads the README too
    return page, cal


@pytest.mark.parametrize("how, needle", [("truncated", "not JSON"), ("incomplete", "incomplete")])
def test_docs_on_broken_committed_data_is_one_line(capsys, docs_copy, how, needle):
    page, cal = docs_copy
    if how == "truncated":
        cal.write_bytes(cal.read_bytes()[:5000])
    else:
        data = json.loads(cal.read_text())
        del data["statements"]["lemma7"]["C"]
        cal.write_text(json.dumps(data))
    before = page.read_bytes()
    rc, err, _ = _slth(capsys, "docs")
    assert rc == 2
    _one_line(err, str(cal), needle)
    assert page.read_bytes() == before


def test_docs_writes_a_null_constant_as_words_and_escapes_control_characters(capsys, docs_copy):
    page, cal = docs_copy
    data = json.loads(cal.read_text())
    data["statements"]["lemma7"]["C"] = None
    data["statements"]["lemma2"]["worst_target"] = "evil\x1b[2J"
    cal.write_text(json.dumps(data))
    rc, err, _ = _slth(capsys, "docs")
    assert rc == 0, err
    text = page.read_text()
    block = text.split("<!-- generated: constants -->")[1].split("<!-- end generated")[0]
    assert "not calibrated" in block and "None" not in block
    assert ESC not in text and "evil\\x1b[2J" in text


def test_docs_on_a_full_disk_leaves_the_page_whole(capsys, docs_copy, monkeypatch):
    from slt import cache

    page, _ = docs_copy
    before = page.read_bytes()

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    def half_then_full(self, text, *a, **k):  # a write in place: half the page, then the disk is full
        with open(self, "w") as fh:
            fh.write(text[: len(text) // 2])
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(cache.os, "replace", full)
    monkeypatch.setattr(Path, "write_text", half_then_full)
    rc, err, _ = _slth(capsys, "docs")
    assert rc == 2
    _one_line(err, "No space left")
    assert page.read_bytes() == before


def test_statements_page_module_refuses_an_unknown_option_in_one_line():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "reports.statements_page", "--bogus"], env=env, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2
    _one_line([x for x in done.stderr.splitlines() if x.strip()], "--bogus")


# ---------------------------------------------------------------------------- workers and trials: capped first

@pytest.mark.parametrize("argv", [["calibrate", "--statements", "lueker"], ["targets", "families"],
                                  ["reproduce", "fig4"]])
def test_too_many_workers_is_one_line_with_the_limit(capsys, no_trials, argv):
    from reports.cli import max_workers

    rc, err, _ = _slth(capsys, *argv, "--workers", "100000")
    assert rc == 2
    _one_line(err, "--workers", f"at most {max_workers()}")
    rc, err, _ = _slth(capsys, *argv, "--workers", str(max_workers() + 1))
    assert rc == 2


def test_calibrate_min_trials_is_checked_against_what_a_round_holds(capsys, tmp_path, no_trials, small_machine):
    """10^8 trials at one point: 4 GB at the 40 bytes of a bare seed, 12.6 GiB with the round's tasks and results
    (slt.measure.calibrate.TRIAL_BYTES): refused on an 8 GiB machine before anything is allocated."""
    from slt.measure import calibrate as cal

    assert cal.TRIAL_BYTES >= 100
    rc, err, _ = _slth(capsys, "calibrate", "--statements", "lueker", "--where", "eps=0.5", "--workers", "0",
                       "--min-trials", "100000000", "-o", str(tmp_path / "c.json"))
    assert rc == 2
    _one_line(err, "--min-trials", "100,000,000 trials", "GiB", "memory")
    assert not (tmp_path / "c.json").exists()


def test_an_unknown_where_factor_is_a_usage_error_with_the_close_name(capsys, tmp_path, no_trials):
    rc, err, _ = _slth(capsys, "calibrate", "--statements", "lueker", "--where", "esp=0.5", "--workers", "0",
                       "-o", str(tmp_path / "c.json"))
    assert rc == 2
    _one_line(err, "esp", "did you mean 'eps'")
    assert not (tmp_path / "c.json").exists()


def test_rate_families_of_a_statement_without_targets_says_so(capsys, no_trials):
    rc, err, _ = _slth(capsys, "rate", "lueker", "eps=0.3", "--trials", "3", "--families")
    assert rc == 2
    line = _one_line(err, "lueker has no target families")
    assert "0 trials" not in line


@pytest.mark.parametrize("edit, needle", [
    (lambda d: d["statements"].__setitem__("lemma7\x1b[2J", d["statements"].pop("lemma7")), "not a statement name"),
    (lambda d: d["statements"].__setitem__("../../etc", d["statements"].pop("lemma2")), "not a statement name"),
    (lambda d: d["statements"]["lemma7"].__setitem__("worst_target", "sign matrix; rm -rf"), "worst_target"),
    (lambda d: d["statements"]["lemma7"]["targets"]["families"][0].__setitem__("family", ""), "family"),
    (lambda d: d["statements"]["lemma7"]["growth"].__setitem__("target", 7), "growth.target"),
])
def test_a_calibration_file_with_names_that_are_not_names_is_refused(capsys, no_trials, cal_file, edit, needle):
    path, _ = cal_file
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    rc, err, _ = _slth(capsys, "targets", "families", "--statements", "lemma7", "--file", str(path))
    assert rc == 2
    _one_line(err, str(path), needle)
    assert path.read_bytes() == before


# ------------------------------------------------------------------ a scheduler address: Dask answers, or one line

DASK_HANDSHAKE = (b":\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00*\x00\x00\x00\x00\x00\x00\x00\x83"
                  b"\xabcompression\xc0\xa6python\x93\x03\x0b\x07\xafpickle-protocol\x05")
"""What a Dask scheduler (distributed 2026.8) writes first on every connection, recorded from a real one."""


@contextlib.contextmanager
def _server(opening: bytes | None):
    """A TCP server on 127.0.0.1 that writes ``opening`` to every connection (None: writes nothing, as HTTP)."""
    import socket
    import threading

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    stop = threading.Event()
    held = []

    def serve():
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            held.append(conn)
            if opening:
                conn.sendall(opening)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(2)
        for c in held:
            c.close()
        sock.close()


@pytest.mark.parametrize("opening", [None, b"SSH-2.0-OpenSSH_9.6\r\n", b"HTTP/1.1 400 Bad Request\r\n\r\n"])
def test_a_scheduler_address_where_something_else_answers_is_one_line_in_seconds(capsys, tmp_path, no_trials,
                                                                                  opening):
    with _server(opening) as address:
        start = time.perf_counter()
        rc, err, _ = _slth(capsys, "calibrate", "--statements", "lueker", "--scheduler", address, "-o",
                           str(tmp_path / "c.json"))
        assert time.perf_counter() - start < 10
    assert rc == 2
    _one_line(err, address, "not as a Dask scheduler")
    assert not (tmp_path / "c.json").exists()


def test_a_dask_handshake_is_accepted():
    from slt.tasks import check_scheduler

    with _server(DASK_HANDSHAKE) as address:
        check_scheduler(address)


def test_an_unreachable_scheduler_from_the_environment_is_named_before_the_first_trial(capsys, monkeypatch, no_trials,
                                                                                        cal_file):
    path, before = cal_file
    monkeypatch.setenv("SLTH_SCHEDULER", "tcp://127.0.0.1:1")
    rc, err, out = _slth(capsys, "targets", "families", "--statements", "lemma7", "--trials", "1", "--file", str(path))
    assert rc == 2
    _one_line(err, "$SLTH_SCHEDULER", "tcp://127.0.0.1:1", "no scheduler answers")
    assert path.read_bytes() == before


@pytest.mark.parametrize("into", ["file", "pipe"])
def test_report_to_a_link_to_this_process_stdout_writes_the_page_there(tmp_path, proofs_record, into):
    """``slth report -o /dev/stdout > page.html`` (and ``| cat``), with a link in a temporary folder to
    /proc/self/fd/1 standing in for /dev/stdout: the page is all stdout holds, the link stays a link."""
    from reports import record

    rec = tmp_path / "R.json"
    record.write(rec, proofs_record)
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    argv = [sys.executable, "-m", "reports.cli", "report", "--from", str(rec), "-o", str(link), "--only",
            "statements"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    page = tmp_path / "page.html"
    if into == "file":
        with open(page, "wb") as fh:
            done = subprocess.run(argv, env=env, stdout=fh, stderr=subprocess.PIPE, timeout=300, cwd=tmp_path)
        out = page.read_text()
    else:
        done = subprocess.run(argv, env=env, capture_output=True, timeout=300, cwd=tmp_path)
        out = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    assert out.lstrip().startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert "wrote" in done.stderr.decode()
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"


def test_calibrate_output_link_is_kept(capsys, tmp_path, no_trials, cal_file):
    path, _ = cal_file
    link = tmp_path / "link.json"
    link.symlink_to(path)
    rc, err, _ = _slth(capsys, "calibrate", "--refit", "-o", str(link))
    assert rc == 0, err
    assert link.is_symlink() and json.loads(path.read_text())["statements"]


def test_a_tmpdir_whose_lock_folder_is_a_file_is_one_line(tmp_path):
    (tmp_path / "slth-locks").write_text("")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "reports.cli", "calibrate", "--statements", "lueker", "--workers",
                           "0", "-o", str(tmp_path / "c.json")], env=env, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 2
    _one_line([x for x in done.stderr.splitlines() if x.strip()], "slth-locks", "TMPDIR")


def test_run_names_an_unreachable_scheduler_before_any_work(capsys, tmp_path, monkeypatch):
    from reports.record import assemble

    def forbidden(*a, **k):
        raise AssertionError("work started")

    monkeypatch.setattr(assemble, "build", forbidden)
    monkeypatch.setenv("SLTH_SCHEDULER", "tcp://127.0.0.1:1")
    rc, err, _ = _slth(capsys, "run", "--quick", "-o", str(tmp_path / "rec.json"), "--results", str(tmp_path / "r"))
    assert rc == 2
    _one_line(err, "$SLTH_SCHEDULER tcp://127.0.0.1:1", "no scheduler answers")


def test_the_committed_rows_are_made_with_the_time_guard_off(committed_copy, monkeypatch):
    """The verifier's CPU-time guard decides no committed row: while the variants and the mutations are verified it is
    GUARD_OFF (a stage ends by its work budget, the same on every machine), and it is set back afterwards."""
    from bounds.prove import verify_domain
    from reports.record import suites, verified
    from slt.measure import empirical

    seen = []
    monkeypatch.setattr(suites, "variants", lambda: seen.append(verify_domain.stage_seconds()) or [{"row": "v"}])
    monkeypatch.setattr(suites, "mutations", lambda: seen.append(verify_domain.stage_seconds()) or [{"row": "m"}])
    monkeypatch.setattr(empirical, "commit_tasks", lambda seed, calibration, committed, progress=None: 0)
    before = verify_domain.stage_seconds()
    verified.write_committed(committed_copy, log=lambda m: None)
    assert seen == [verified.GUARD_OFF, verified.GUARD_OFF] and verified.GUARD_OFF > 10 ** 6
    assert verify_domain.stage_seconds() == before < verified.GUARD_OFF
