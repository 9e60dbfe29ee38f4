"""Every bad name and file, tried as a user would: a one-line error naming the thing, exit status 2
for a usage error (distinct from 1: a step failed, a bound was violated), output paths refused before any work,
corrupt cache files recomputed with a warning (never used, never a crash)."""
from __future__ import annotations

import signal
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from reports import cli


def _slth(capsys, *argv) -> tuple[int, list[str]]:
    """``slth ARGV`` in this process: (exit status, stderr lines). argparse usage errors count as exit 2."""
    try:
        rc = cli.main(list(argv))
    except SystemExit as exc:
        rc = exc.code
    err = [line for line in capsys.readouterr().err.strip().splitlines() if line.strip()]
    return rc, err


def _one_line_error(err: list[str], *needles: str) -> str:
    assert err, "no error message"
    assert not any("Traceback" in line for line in err), err
    last = err[-1]
    for needle in needles:
        assert needle in last, err
    return last


@pytest.fixture
def no_work(monkeypatch):
    """Any measurement or rendering fails the test: the error must come before the work."""
    from reports.record import assemble

    def forbidden(*a, **k):
        raise AssertionError("work started before the bad input was refused")

    for name in ("build", "statements", "proofs", "widths"):
        monkeypatch.setattr(assemble, name, forbidden)
    import reports.build

    monkeypatch.setattr(reports.build, "render_sections", forbidden)


# ------------------------------------------------------------------------------------- bad names

def test_report_only_an_unknown_section(tmp_path, capsys, no_work):
    out = tmp_path / "r.html"
    rc, err = _slth(capsys, "report", "--only", "nosuch", "-o", str(out), "--results", str(tmp_path))
    assert rc == 2
    _one_line_error(err, "nosuch", "statements")  # names it and lists the sections
    assert not out.exists()


def test_report_only_a_section_the_record_has_no_data_for(tmp_path, capsys, proofs_record):
    from reports import record

    path = tmp_path / "rec.json"
    record.write(path, proofs_record)  # a proofs-only record: no figure summaries
    out = tmp_path / "r.html"
    rc, err = _slth(capsys, "report", "--from", str(path), "--only", "reproduction", "-o", str(out))
    assert rc == 2
    _one_line_error(err, "reproduction", "no data")
    assert not out.exists()


def test_proofs_an_unknown_statement(capsys):
    rc, err = _slth(capsys, "proofs", "--statement", "nosuch")
    assert rc == 2
    _one_line_error(err, "nosuch")


def test_proofs_variants_honour_the_statement_filter(capsys, monkeypatch, tmp_path_factory):
    """Theorem 11: two variants, each verified in about a second with a warm verdict store (a copy of the session's:
    the variants' unchanged steps are read back; Lemma 13's take half a minute)."""
    from tests.coq_shared import seeded_verdicts

    for k, v in seeded_verdicts(tmp_path_factory, "variants-filter").items():
        monkeypatch.setenv(k, v)
    rc = cli.main(["proofs", "--statement", "theorem11", "--variants"])
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if line.startswith("== variant")]
    assert len(headers) == 2 and rc == 0, out
    assert all(h.startswith("== variant theorem11:") for h in headers), headers


@pytest.mark.parametrize("argv, needle", [
    (["--statements", "nosuch"], "'nosuch'"),
    (["--statements", "lemma8"], "lemma8"),
])
def test_calibrate_an_unknown_or_deterministic_statement(tmp_path, capsys, argv, needle):
    rc, err = _slth(capsys, "calibrate", "--output", str(tmp_path / "c.json"), "--workers", "0", *argv)
    assert rc == 2
    assert len(err) == 1
    _one_line_error(err, needle)


def test_calibrate_accepts_the_aliases_proofs_accepts():
    from slt.measure import catalogue

    assert catalogue.resolve(["Theorem 3"]) == ["theorem9"]


def test_rerun_an_unknown_statement(capsys):
    from slt.measure import rerun

    with pytest.raises(SystemExit) as info:
        rerun.main(["nosuch", "--seed", "1"])
    assert info.value.code == 2
    _one_line_error(capsys.readouterr().err.strip().splitlines(), "nosuch")


def test_rerun_without_a_seed(capsys):
    from slt.measure import rerun

    with pytest.raises(SystemExit) as info:
        rerun.main(["lemma7", "C=4", "d1=2", "d2=2", "eps=0.1"])
    assert info.value.code == 2
    last = _one_line_error(capsys.readouterr().err.strip().splitlines(), "--seed")
    assert "Generator" not in last


def test_a_huge_parameter_is_a_value_error_naming_it():
    import bounds

    with pytest.raises(ValueError, match="parameter d1 ") as info:
        bounds.get("lemma7").width("n", C=4, d1=10**400, d2=2, eps=0.1)
    assert "\n" not in str(info.value)


def test_mha_raises_on_a_non_finite_value_path_naming_it():
    from slt.models import MHAWeights, mha

    d, H = 2, 1
    w = MHAWeights(WQ=np.zeros((H, d, 2)), WK=np.zeros((H, d, 2)), WV=np.full((H, d, 2), 1e200),
                   WO=np.full((H, 2, d), 1e200), scale=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning and no NaN on the way
        with pytest.raises(ValueError, match="value path"):
            mha(np.ones((3, d)), w)


# ------------------------------------------------------------------------------------- bad output paths

def _unwritable(tmp_path):
    """A folder this process cannot write in, also as root (a read-only file system), else None."""
    import os
    import tempfile

    candidates = ["/sys", "/proc"] if os.geteuid() == 0 else [str(tmp_path / "ro")]
    if os.geteuid() != 0:
        (tmp_path / "ro").mkdir()
        (tmp_path / "ro").chmod(0o500)
    for c in candidates:
        try:
            fd, probe = tempfile.mkstemp(dir=c)
        except OSError:
            return c
        os.close(fd)
        os.unlink(probe)
    return None


def _bad_outputs(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = {"a directory": (str(tmp_path), "is a directory"),
           "under a file": (str(blocker / "r.out"), "is not a directory")}
    ro = _unwritable(tmp_path)
    assert ro is not None, "no unwritable folder found on this machine"
    out["unwritable"] = (f"{ro}/r.out", "cannot write")  # a missing folder is its own refusal ("does not exist")
    return out


@pytest.mark.parametrize("kind", ["a directory", "under a file", "unwritable"])
@pytest.mark.parametrize("command", [
    ["report", "--proofs-only", "-o", "{path}"],
    ["report", "--from", "{record}", "-o", "{path}"],
    ["report", "--proofs-only", "--record", "{path}", "-o", "{tmp}/ok.html"],
    ["run", "--proofs-only", "-o", "{path}"],
    ["calibrate", "--statements", "lemma7", "--workers", "0", "--output", "{path}"],
    ["reproduce", "fig4", "--quick", "--workers", "0", "--results", "{path}"],
    ["diff", "{record}", "{record}", "--html", "{path}"],
], ids=["report -o", "report --from -o", "report --record", "run -o", "calibrate --output", "reproduce --results",
        "diff --html"])
def test_every_output_path_is_checked_before_any_work(tmp_path, capsys, monkeypatch, no_work, kind, command):
    import slt.figures
    import slt.measure.calibrate

    def forbidden(*a, **k):
        raise AssertionError("work started before the bad output path was refused")

    monkeypatch.setattr(slt.figures, "reproduce", forbidden)
    monkeypatch.setattr(slt.measure.calibrate, "plan", forbidden)
    path, reason = _bad_outputs(tmp_path)[kind]
    if command[0] == "reproduce" and kind == "a directory":
        (tmp_path / "reproduction" / "fig4-quick.json").mkdir(parents=True)  # the summary file is a folder
    record = tmp_path / "rec.json"
    record.write_text("{}")
    argv = [a.format(path=path, record=record, tmp=tmp_path) for a in command]
    rc, err = _slth(capsys, *argv)
    assert rc == 2, err
    last = _one_line_error(err, reason)
    assert path.split("/")[-1] in last or str(tmp_path) in last, last


# ------------------------------------------------------------------------------------- bad files

def test_a_corrupt_calibration_file_is_named_before_a_run(tmp_path, capsys, no_work):
    (tmp_path / "calibration.json").write_bytes(b"\xff\x00 not json")
    for command in (["run", "--proofs-only", "-o", str(tmp_path / "r.json")],
                    ["report", "--proofs-only", "-o", str(tmp_path / "r.html")]):
        rc, err = _slth(capsys, *command, "--results", str(tmp_path))
        assert rc == 2
        _one_line_error(err, str(tmp_path / "calibration.json"))


def test_a_corrupt_calibration_file_is_named_by_calibrate(tmp_path, capsys):
    (tmp_path / "c.json").write_text("{not json")
    rc, err = _slth(capsys, "calibrate", "--statements", "lemma7", "--workers", "0", "--output", str(tmp_path / "c.json"))
    assert rc == 2
    _one_line_error(err, str(tmp_path / "c.json"))


@pytest.mark.parametrize("content", [b"\x00\xff garbage", b"[1, 2]", b'{"figure": "fig4"}'],
                         ids=["garbage bytes", "not an object", "no summary"])
def test_a_corrupt_figure_summary_is_named_and_never_used(tmp_path, content, monkeypatch):
    from reports.record import assemble
    from slt import figures
    from slt.figures import summaries

    path = figures.summary_path(tmp_path, "fig4", False)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    logs = []
    out = assemble.figures(tmp_path, quick=False, log=logs.append, compute=False)
    assert "fig4" in out and str(path) not in out["fig4"]["source"]  # the committed full sweep instead
    monkeypatch.setattr(summaries, "COMMITTED", tmp_path / "none")
    out = assemble.figures(tmp_path, quick=False, log=logs.append, compute=False)
    assert "fig4" not in out
    assert any(str(path) in line and "recomputing" in line for line in logs), logs


@pytest.mark.parametrize("how", ["garbage bytes", "not an object", "missing result", "NaN result", "string result"])
def test_a_corrupt_task_cache_file_is_recomputed_with_a_warning(tmp_path, how):
    from slt.cache import write_record
    from slt.tasks import CacheWarning, Task, execute, task_path

    task = Task("test:square", "tests._task_fns:square", {"x": 1.5}, 1)
    [first] = execute([task], cache_dir=tmp_path, workers=0, progress=False)
    path = task_path(tmp_path, task)
    rec = json.loads(path.read_text())
    if how == "garbage bytes":
        path.write_bytes(b"\x00\xff not json")
    elif how == "not an object":
        path.write_text("[1, 2, 3]")
    elif how == "missing result":
        path.write_text(json.dumps({k: v for k, v in rec.items() if k != "result"}))
    else:  # tampered with a valid checksum
        bad = float("nan") if how == "NaN result" else "3.25"
        write_record(path, {k: v for k, v in rec.items() if k != "checksum"} | {"result": {**rec["result"],
                                                                                           "value": bad}})
    with pytest.warns(CacheWarning, match=path.name):
        [again] = execute([task], cache_dir=tmp_path, workers=0, progress=False)
    assert again == first


def test_a_record_that_is_not_one_is_named(tmp_path, capsys):
    bad = tmp_path / "rec.json"
    bad.write_text("[]")
    rc, err = _slth(capsys, "report", "--from", str(bad), "-o", str(tmp_path / "r.html"))
    assert rc == 2
    _one_line_error(err, str(bad))


# ------------------------------------------------------------------------------------ nothing from a file trusted

def test_no_string_of_a_record_reaches_the_page_as_markup(proofs_record, tmp_path, capsys):
    """A script appended to every string field of a record (the MathML fields included): the page holds it
    only escaped, as text; ``slth report --from`` renders it (exit 0)."""
    from reports import record
    from tests._inject import COUNTER, PAYLOAD, injected_record

    path = tmp_path / "rec.json"
    path.write_text(json.dumps(injected_record(proofs_record, tmp_path)))
    out = tmp_path / "r.html"
    rc, err = _slth(capsys, "report", "--from", str(path), "-o", str(out))
    assert rc == 0, err
    page = out.read_text()
    assert f"<script>{COUNTER}" not in page and f'onerror="{COUNTER}' not in page and "<img src=x" not in page
    assert f'onload="{COUNTER}' not in page
    assert page.count(f"&lt;script&gt;{COUNTER}") > 100  # the strings did reach the page, as text
    assert PAYLOAD not in page
    record.load(path)


@pytest.mark.parametrize("field", ["statements[0].name", "steps[0].statement", "widths[0].width",
                                   "statements[0].width_params[0]"])
def test_a_name_that_is_not_a_name_is_refused(proofs_record, tmp_path, capsys, field):
    """Names are looked up and linked by: they must be names (letters, digits, _ . : -), else exit 2 naming the
    field."""
    import re as _re

    rec = json.loads(json.dumps(proofs_record))
    *parents, last = _re.findall(r"[A-Za-z_]+|\[\d+\]", field)
    target = rec
    for p in parents:
        target = target[int(p[1:-1])] if p.startswith("[") else target[p]
    if last.startswith("["):
        target[int(last[1:-1])] += "<script>x()</script>"
    else:
        target[last] += "<script>x()</script>"
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    rc, err = _slth(capsys, "report", "--from", str(path), "-o", str(tmp_path / "r.html"))
    assert rc == 2
    _one_line_error(err, str(path), field, "expected a name")


def test_mathml_is_passed_through_an_allow_list():
    from reports.render import safe_mathml
    from slt.mathml import mathml
    import sympy as sp

    x = sp.Symbol("x")
    good = mathml(sp.Piecewise((2 * x, x > 1), (1, True))) + " &le; " + mathml(x ** 2 / 3 < sp.sqrt(x))
    assert str(safe_mathml(good)) == good  # the harness's own MathML passes unchanged
    bad = ('<math><mi onclick="x()" mathvariant="bold">y</mi><script>x()</script></math><img src=x onerror="x()">'
           '<a href="javascript:x()">t</a><mi>&lt;b&gt;</mi>')
    assert str(safe_mathml(bad)) == '<math><mi mathvariant="bold">y</mi></math>t<mi>&lt;b&gt;</mi>'


def _rate_check(rec):
    return next(c for c in rec["empirical"]["checks"] if c["kind"] == "rate")


def _curve_row(rec):
    return rec["calibration"]["statements"]["theorem9"]["curves"][0]["grid"][0]


@pytest.mark.parametrize("edit, field", [
    (lambda r: _rate_check(r).update(trials=-3), "trials"),
    (lambda r: _rate_check(r).update(failures=-1), "failures"),
    (lambda r: _rate_check(r).update(failures=_rate_check(r)["trials"] + 1), "failures"),
    (lambda r: _rate_check(r).update(rate=2.5), "rate"),
    (lambda r: _rate_check(r).update(pvalue=-0.1), "pvalue"),
    (lambda r: _rate_check(r).update(interval=[0.5, 0.1]), "interval"),
    (lambda r: r["steps"][0].update(margin=float("nan")), "steps[0].margin"),
    (lambda r: _curve_row(r).update(failures=-5), "failures"),
    (lambda r: _curve_row(r).update(failures=_curve_row(r)["trials"] + 1), "failures"),
    (lambda r: _curve_row(r).update(upper=1.5), "upper"),
    (lambda r: r["calibration"]["statements"]["theorem9"].update(curves="oops"), "theorem9.curves"),
    (lambda r: r["calibration"]["statements"]["theorem9"].update(C=-1), "theorem9.C"),
    (lambda r: r.update(figures={"fig4": "x"}), "figures.fig4"),
    (lambda r: r["figures"].update(fig4={"source": "s", "payload": []}), "figures.fig4.payload"),
    (lambda r: r["empirical"].update(tasks=-1), "empirical.tasks"),
    (lambda r: r["widths"][0].update(value=-2), "widths[0].value"),
], ids=["negative trials", "negative failures", "failures > trials", "rate 2.5", "p-value < 0", "interval reversed",
        "NaN margin", "calibration failures -5", "calibration failures > trials", "upper 1.5", "curves = 'oops'",
        "C < 0", "figure not an object", "figure payload a list", "tasks < 0", "width < 0"])
def test_a_record_whose_values_make_no_sense_is_refused(proofs_record, tmp_path, capsys, edit, field):
    from tests._inject import full_record

    rec = full_record(proofs_record, tmp_path)
    edit(rec)
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec, allow_nan=True))
    out = tmp_path / "r.html"
    rc, err = _slth(capsys, "report", "--from", str(path), "-o", str(out))
    assert rc == 2
    _one_line_error(err, str(path), field)
    assert not out.exists()


@pytest.mark.parametrize("forged", [{"failures": -5}, {"failures": 4, "trials": 3}, {"trials": -1}])
def test_a_forged_calibration_cache_entry_with_a_valid_checksum_is_recomputed(tmp_path, forged):
    """A cache entry whose checksum matches but whose counts make no sense is named in a warning and
    recomputed (before: calibrate crashed with a ValueError)."""
    from slt.cache import write_record
    from slt.tasks import CacheWarning, Task, execute, task_path

    task = Task("calibrate:lueker", "slt.measure.calibrate:trial_block",
                {"statement": "lueker", "point": {"eps": 0.3}, "C": 2.0, "trials": 3}, 0)
    [first] = execute([task], cache_dir=tmp_path, workers=0, progress=False)
    path = task_path(tmp_path, task)
    rec = json.loads(path.read_text())
    write_record(path, {k: v for k, v in rec.items() if k != "checksum"} | {"result": {**rec["result"], **forged}})
    with pytest.warns(CacheWarning, match=path.name):
        [again] = execute([task], cache_dir=tmp_path, workers=0, progress=False)
    assert again["failures"] == first["failures"] and again["trials"] == first["trials"]


def _calibration(tmp_path, edit) -> str:
    from slt.measure.calibration import DEFAULT

    data = json.loads(DEFAULT.read_text())
    edit(data)
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(data, allow_nan=True))
    return str(path)


@pytest.mark.parametrize("edit, field", [
    (lambda d: d["statements"]["theorem9"].update(points=[], C=None), "statements.theorem9.points"),
    (lambda d: d["statements"]["theorem9"]["points"][0]["grid"][0].update(failures=-5), "failures"),
    (lambda d: d["statements"]["theorem9"]["points"][0].update(trials=-5), "trials"),
    (lambda d: d["statements"]["theorem9"]["points"][0]["grid"][0].update(upper=2.5), "upper"),
    (lambda d: d["statements"]["theorem9"].update(C=float("nan")), "statements.theorem9.C"),
], ids=["no points", "negative failures", "negative trials", "upper 2.5", "NaN C"])
def test_a_calibration_file_that_makes_no_sense_is_refused_by_its_readers(tmp_path, capsys, no_work, edit, field):
    """The file an interrupted or empty calibration run used to leave (C: null, points: []) and files with values
    that make no sense: `slth run` refuses them before any work (exit 2, one line naming file and field), and so do
    the checks' loader and calibrate's."""
    from slt.measure import calibrate, calibration

    path = _calibration(tmp_path, edit)
    rc, err = _slth(capsys, "run", "--proofs-only", "--results", str(tmp_path), "-o", str(tmp_path / "r.json"))
    assert rc == 2
    _one_line_error(err, path, field)
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        calibration.load(path)
    with pytest.raises(calibrate.CalibrationError, match=field.replace(".", r"\.")):
        calibrate.load_results(path)


def test_calibrate_where_nan_is_a_usage_error(tmp_path, capsys):
    out = tmp_path / "c.json"
    rc, err = _slth(capsys, "calibrate", "--statements", "lueker", "--where", "eps=nan", "--workers", "0",
                    "--output", str(out))
    assert rc == 2
    _one_line_error(err, "eps=nan", "not a finite number")
    assert not out.exists()


def test_calibrate_where_nothing_matches_writes_nothing(tmp_path, capsys):
    out = tmp_path / "c.json"
    rc, err = _slth(capsys, "calibrate", "--statements", "lueker", "--where", "eps=0.123456", "--workers", "0",
                    "--output", str(out))
    assert rc == 2
    _one_line_error(err, "lueker", "no grid point", "eps=0.123456")
    assert not out.exists()


def test_an_interrupted_calibration_leaves_the_previous_file(tmp_path, capsys, monkeypatch):
    """Ctrl-C during the trials: exit 130, one line, no traceback, and the output file is the previous one
    (before: rewritten after every round, so an interrupted run left a partial file)."""
    from slt.measure import calibrate as cal

    out = tmp_path / "c.json"
    out.write_text(Path(_calibration(tmp_path, lambda d: None)).read_text())
    before = out.read_bytes()

    def interrupted(todo, on_round=None, **k):
        if on_round is not None:
            on_round([])  # a round finished before the interrupt
        raise KeyboardInterrupt

    monkeypatch.setattr(cal, "calibrate", interrupted)
    rc, err = _slth(capsys, "calibrate", "--statements", "lueker", "--restart", "--workers", "0", "--output", str(out),
                    "--no-progress")
    assert rc == 130
    _one_line_error(err, "interrupted")
    assert out.read_bytes() == before


def test_calibrate_cache_dir_that_is_a_file(tmp_path, capsys):
    cache = tmp_path / "cache"
    cache.write_text("not a folder")
    rc, err = _slth(capsys, "calibrate", "--statements", "lueker", "--workers", "0", "--cache-dir", str(cache),
                    "--output", str(tmp_path / "c.json"))
    assert rc == 2
    _one_line_error(err, "--cache-dir", "not a directory")


def test_report_from_a_directory(tmp_path, capsys, no_work):
    rc, err = _slth(capsys, "report", "--from", str(tmp_path), "-o", str(tmp_path / "r.html"))
    assert rc == 2
    _one_line_error(err, str(tmp_path), "a directory")


def test_a_full_disk_is_one_line(tmp_path, capsys, proofs_record, monkeypatch):
    import errno
    import os

    import reports.build
    from reports import record

    path = tmp_path / "rec.json"
    record.write(path, proofs_record)
    out = tmp_path / "r.html"

    def full(target, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))

    monkeypatch.setattr(reports.build, "write_atomic", full)
    rc, err = _slth(capsys, "report", "--from", str(path), "-o", str(out))
    assert rc == 2
    _one_line_error(err, str(out), os.strerror(errno.ENOSPC))


def test_ctrl_c_exits_130_without_a_traceback(capsys, monkeypatch):
    import reports.proofs

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(reports.proofs, "main", interrupted)
    rc, err = _slth(capsys, "proofs")
    assert rc == 130
    _one_line_error(err, "interrupted")


def test_a_syntax_error_in_bounds_is_its_own_exit_status(tmp_path):
    """A broken bounds/ module is not a failed proof step: exit 3 (not 1), one line naming the file and line."""
    import os
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    for folder in ("bounds", "slt", "reports", "slth_base"):
        shutil.copytree(root / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    broken = tmp_path / "bounds" / "core.py"
    broken.write_text(broken.read_text() + "\ndef broken(:\n")
    done = subprocess.run([sys.executable, "-m", "reports.cli", "proofs", "--statement", "lemma5"], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 3, done.stderr[-2000:]
    err = [line for line in done.stderr.splitlines() if line.strip()]
    _one_line_error(err, "bounds/core.py", "line")


# ---------------------------------------------------------------------------------- one line, never a traceback

THEOREM11 = ["rate", "theorem11", "d1=2", "H=2", "L=1", "alpha=1.4142135623730951", "eps=0.2", "--trials", "2"]


@pytest.fixture
def no_trials(monkeypatch):
    """A trial that starts fails the test: the request must be refused before."""
    from slt.measure import probabilistic

    def forbidden(*a, **k):
        raise AssertionError("a trial ran before the request was refused")

    monkeypatch.setattr(probabilistic, "failure_rate", forbidden)  # reports.rate calls it through the module


def test_rate_with_a_C_whose_widths_cannot_be_built(capsys, no_trials):
    """--C 1e308: an OverflowError traceback before; now one line naming the width."""
    rc, err = _slth(capsys, *THEOREM11, "--C", "1e308")
    assert rc == 2
    _one_line_error(err, "n_MHA", "more than 2^53")


@pytest.mark.parametrize("argv", [THEOREM11 + ["--C", "1e7"],
                                  ["rate", "theorem11", "d1=100000", "H=2", "L=1", "alpha=316.3", "eps=0.2",
                                   "--trials", "2"]],
                         ids=["C=1e7", "d1=100000"])
def test_rate_that_needs_more_memory_than_the_machine_has(capsys, monkeypatch, no_trials, argv):
    """A MemoryError traceback before; now refused up front with the memory it would need (the machine is
    given 8 GiB here, so the test does not depend on this machine's memory)."""
    from slt.measure import resources

    monkeypatch.setattr(resources, "available_bytes", lambda: 8 * 2 ** 30)
    rc, err = _slth(capsys, *argv)
    assert rc == 2
    _one_line_error(err, "needs at least", "GiB" if "1e7" in argv else "TiB", "8.0 GiB available")


def test_rate_below_float64_resolution(capsys, no_trials):
    """eps=1e-300 reported 3/3 VIOLATED (errors of 2e-9: rounding, not the theorem); now refused."""
    argv = [a if not a.startswith("eps=") else "eps=1e-300" for a in THEOREM11]
    rc, err = _slth(capsys, *argv)
    assert rc == 2
    _one_line_error(err, "eps=1e-300", "float64")


def test_the_memory_estimate_counts_the_sources_shapes():
    """The estimate is the exact count of the weights slt.samplers draws for these widths."""
    from slt import samplers
    from slt.measure.resources import source_floats

    block = samplers.source_block(0, d1=3, H=2, n_MHA=5, n_FC=7, L=2)
    m = block.mha
    drawn = m.WQ.size + m.WK.size + m.WV.size + m.WO.size + sum(W.size for W in block.fc.layers)
    assert source_floats({"n_MHA": 5, "n_FC": 7}, {"d1": 3, "H": 2, "L": 2}) == drawn
    mha = samplers.source_mha(0, d1=3, d2=2, H=2, nK=5, nV=4)
    assert source_floats({"n_K": 5, "n_V": 4}, {"d1": 3, "d2": 2, "H": 2}) == (
        mha.WQ.size + mha.WK.size + mha.WV.size + mha.WO.size)


def test_slth_diff_never_sends_a_records_control_characters_to_the_terminal(tmp_path, capsys, proofs_record):
    """Terminal escape sequences in a record (a counterexample, a detail) are printed escaped."""
    from reports import record

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    record.write(old, proofs_record)
    changed = json.loads(json.dumps(proofs_record))
    step = changed["steps"][0]
    step.update(ok=False, verdict="FAILED", detail="\x1b[2J\x1b]0;owned\x07 cleared",
                counterexample={"x\x1b[31m": "\x1b[5mblink\r"})
    record.write(new, changed)
    try:
        rc = cli.main(["diff", str(old), str(new)])
    except SystemExit as exc:
        rc = exc.code
    out = capsys.readouterr()
    assert rc == 1  # a step of a supported form newly fails
    assert not any(c in out.out + out.err for c in "\x1b\x07\r"), repr(out.out[-500:])
    assert "\\x1b[31m" in out.out or "\\x1b[5m" in out.out


@pytest.mark.parametrize("figure, field", [("fig6", "fits"), ("fig6", "summary"), ("fig5", "compute_s"),
                                           ("fig4", "plan")])
def test_a_figure_summary_of_the_wrong_shape_inside_a_record_is_one_line(proofs_record, tmp_path, capsys, figure,
                                                                       field):
    """Deeper than the schema looks (a figure summary's own fields): the section names itself, exit 2, no
    traceback."""
    from tests._inject import full_record

    rec = full_record(proofs_record, tmp_path)
    rec["figures"][figure]["payload"][field] = "oops"
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    rc, err = _slth(capsys, "report", "--from", str(path), "-o", str(tmp_path / "r.html"))
    assert rc == 2
    _one_line_error(err, str(path), "section reproduction")


def test_ctrl_c_during_a_real_calibration_run(tmp_path):
    """SIGINT to `slth calibrate` while its trials run (in this process: --workers 0): exit 130, no traceback,
    and no calibration file (the run had none before; it writes only when complete)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out, cache = tmp_path / "c.json", tmp_path / "tasks"
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen([sys.executable, "-m", "reports.cli", "calibrate", "--statements", "lueker",
                             "--min-trials", "40", "--workers", "0", "--no-progress", "--output", str(out),
                             "--cache-dir", str(cache)], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(root)}, preexec_fn=_ctrl_c_as_in_a_terminal)
    try:
        deadline = time.monotonic() + 300
        while not list(cache.rglob("*.json")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("slth calibrate: interrupted"), err
    assert not out.exists()


def test_a_full_disk_while_slth_run_writes_its_record(tmp_path, capsys, proofs_record, monkeypatch):
    import copy
    import errno
    import os

    from reports.record import assemble, files

    out = tmp_path / "rec.json"

    def full(target, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))

    monkeypatch.setattr(assemble, "build", lambda *a, **k: copy.deepcopy(proofs_record))
    monkeypatch.setattr(files, "write_atomic", full)
    rc, err = _slth(capsys, "run", "--proofs-only", "-o", str(out))
    assert rc == 2
    _one_line_error(err, str(out), os.strerror(errno.ENOSPC))
    assert not out.exists()


def _ctrl_c_as_in_a_terminal():
    """In the child: SIGINT as a terminal delivers it. A shell that starts a job in the background without job
    control sets SIGINT to ignored, and the child would inherit that; Ctrl-C from a terminal is never ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
