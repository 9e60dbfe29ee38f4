"""A step the first pass cannot judge gets "not proved (cannot evaluate <what>)", never a traceback, and the steps
after it still get their verdicts; a doubly exponential side is judged within the stage limit plus a margin."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sympy as sp

from bounds.core import Param, Step
from bounds.symbols import d1
from bounds.prove.verify import verify_step

ROOT = Path(__file__).resolve().parents[1]
DOMAIN = (Param("d1", lo=(1,), integer=True),)

PLANTED = {
    "floor": (sp.floor(d1 / 2), "floor"),
    "ceiling": (sp.ceiling(d1 / 2), "ceiling"),
    "zoo": (sp.zoo * d1, "zoo"),
    "nan": (sp.nan + d1, "nan"),
    "piecewise": (sp.Piecewise((2 * d1, d1 < 3), (d1, True)), "d1 < 3"),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_side_the_evaluator_cannot_read_is_not_proved_and_the_next_steps_go_on(name):
    side, what = PLANTED[name]
    before = verify_step("planted", Step("before", d1, 2 * d1), DOMAIN)
    planted = verify_step("planted", Step(name, side, d1 + 1), DOMAIN)
    after = verify_step("planted", Step("after", d1 ** 2, d1 ** 3), DOMAIN)
    assert planted.verdict == "not proved"
    assert planted.detail.startswith("not proved (cannot evaluate") and what in planted.detail, planted.detail
    assert (before.verdict, after.verdict) == ("certified", "certified")
    false = verify_step("planted", Step("after-false", 2 * d1, d1 + 1), DOMAIN)  # and a false one is still refuted
    assert false.verdict == "refuted"


_DOUBLY = """
import time, sympy as sp
from bounds.core import Param, Step
from bounds.symbols import d1
from bounds.prove.verify import verify_step
start = time.monotonic()
r = verify_step("planted", Step("doubly", sp.exp(2 ** d1), 2 ** (2 ** d1) * 10 ** 6), (Param("d1", lo=(1,), integer=True),))
print(r.verdict, round(time.monotonic() - start, 1))
"""


def test_a_doubly_exponential_side_is_judged_within_the_limit():
    """exp(2^d1) <= 10^6 2^(2^d1) fails for d1 >= 5: refuted, within the stage limit (2 s here) plus a margin (the
    first pass printed a counterexample with a decimal string of a 10^19-digit number: minutes, past any limit)."""
    env = {**os.environ, "SLTH_SYMPY_SECONDS": "2", "SLTH_VERDICT_CACHE": "off"}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _DOUBLY], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    verdict, seconds = done.stdout.split()
    assert verdict == "refuted"
    assert float(seconds) < 2 + 10, done.stdout
    assert time.monotonic() - start < 60
