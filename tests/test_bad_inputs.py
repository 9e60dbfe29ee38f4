"""Every bad name and file of issue 12, tried as a user would: a one-line error naming the thing, exit status 2
for a usage error (distinct from 1: a step failed, a bound was violated), output paths refused before any work,
corrupt cache files recomputed with a warning (never used, never a crash)."""
from __future__ import annotations

import json
import warnings

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


def test_proofs_variants_honour_the_statement_filter(capsys):
    rc = cli.main(["proofs", "--statement", "lemma13", "--variants"])
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if line.startswith("== variant")]
    assert headers and rc == 0, out
    assert all(h.startswith("== variant lemma13:") for h in headers), headers


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
    from slt.measure import calibrate as cal

    assert cal.resolve(["Theorem 3"]) == ["theorem9"]


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
    out["unwritable"] = (f"{ro}/slth-test/r.out", "cannot write")
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
