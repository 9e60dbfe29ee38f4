"""`slth proofs` shows its progress on standard error when that is a terminal (a tqdm bar: statements done of the
total, with a rate and an estimate), and none with ``--no-progress`` or when standard error is not a terminal."""
from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str], tmp_path, terminal: bool) -> tuple[int, str]:
    """(exit status, what standard error showed) of ``slth proofs ARGS`` without a proof kernel on PATH (the first pass
    only: seconds), standard error a pseudo-terminal or a pipe."""
    env = {**os.environ, "PATH": str(tmp_path), "SLTH_VERDICT_CACHE": "off", "XDG_CACHE_HOME": str(tmp_path / "c"),
           "COLUMNS": "120"}
    cmd = [sys.executable, "-m", "reports.cli", "proofs", "--statement", "lemma5", *args]
    if not terminal:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        return done.returncode, done.stderr
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # 120 columns (a new pty has 0)
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the follower closed: the command ended
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=600), b"".join(chunks).decode(errors="replace")


def test_progress_on_a_terminal(tmp_path):
    rc, err = _run([], tmp_path, terminal=True)
    assert "verifying lemma5" in err and "statements" in err and "/1 statements" in err, err[-2000:]
    assert "statements/s" in err or "s/statements" in err, err[-2000:]  # a rate


def test_no_progress_with_the_flag_or_without_a_terminal(tmp_path):
    rc, err = _run(["--no-progress"], tmp_path, terminal=True)
    assert "verifying lemma5" not in err and "statements" not in err, err[-2000:]
    rc, err = _run([], tmp_path, terminal=False)
    assert "verifying lemma5" not in err, err[-2000:]


def test_the_slack_search_shows_its_progress_on_a_terminal_only(tmp_path):
    """``--slack``: a bar over the constants whose text moves with every step verified (never silent for long)."""
    rc, err = _run(["--slack", "--no-progress"], tmp_path, terminal=True)
    assert "steps verified" not in err, err[-2000:]
    rc, err = _run(["--slack"], tmp_path, terminal=True)
    assert "/1 constants" in err and "steps verified" in err and "lemma5 3.9" in err, err[-2000:]


def test_the_slack_bar_is_redrawn_while_one_long_step_runs():
    """``_ticking`` redraws the bar (its elapsed time moving) while nothing else updates it; without it, nothing
    would be written during the wait."""
    import io
    import time

    from tqdm import tqdm

    from reports import proofs

    for ticking, least in ((True, 4), (False, 0)):
        out = io.StringIO()
        bar = tqdm(total=3, file=out, disable=False, mininterval=0, bar_format="{n}/{total} [{elapsed}]")
        before = out.getvalue().count("\r")
        with proofs._ticking(bar, 0.05) if ticking else proofs.contextlib.nullcontext():
            time.sleep(0.5)
        redraws = out.getvalue().count("\r") - before
        bar.close()
        assert redraws >= least if ticking else redraws == 0, (ticking, redraws)
