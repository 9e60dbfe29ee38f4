"""`slth diff` and `slth proofs` import only what their answer needs: no Numba, SciPy, PyTorch or Matplotlib (seconds
of import each, and the sweeps, fits and figures that need them are not run).  Each check runs in a fresh interpreter
and reads ``sys.modules`` when it ends."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numba", "scipy", "torch", "matplotlib")

_REPORT = """
import atexit, json, sys
def _report():
    heavy = sorted({m.split('.')[0] for m in sys.modules} & set(HEAVY))
    sys.__stderr__.write('\\nIMPORTED ' + json.dumps(heavy) + '\\n')
atexit.register(_report)
"""


def imported(code: str, env: dict | None = None) -> list[str]:
    """The heavy packages in ``sys.modules`` when a fresh interpreter running ``code`` (in the repository, with
    ``env`` added to the environment) ends."""
    done = subprocess.run([sys.executable, "-c", f"HEAVY = {HEAVY!r}\n" + _REPORT + code], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})
    lines = [x for x in done.stderr.splitlines() if x.startswith("IMPORTED ")]
    assert lines, f"the interpreter did not report (exit {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(lines[-1][len("IMPORTED "):])


# What `slth diff --against REF` imports before and while it builds the working tree's record (proofs profile):
# the command module, the assembler, and the catalogues the record reads (statements, numerics, figures, findings).
DIFF = """
import reports.cli, reports.diff
from reports.run import assembler
assemble = assembler()
from slt.measure import catalogue, findings, empirical, committed
catalogue.discover()
import slt.figures
from bounds.prove import kernel, coq_math, verdict_cache
"""

# `slth proofs --axioms` runs the whole command path of `slth proofs` (its module, the catalogue, the prover's modules)
# without verifying a step.
PROOFS = """
import sys
from reports import cli
sys.argv = ['slth', 'proofs', '--axioms']
try:
    cli.main()
except SystemExit:
    pass
import bounds.prove.verify, bounds.prove.corners, bounds.prove.recheck, bounds.prove.coq.export
"""


def test_slth_diff_imports_nothing_heavy():
    assert imported(DIFF) == []


def test_slth_proofs_imports_nothing_heavy(tmp_path_factory):
    """Warm: every step's verdict is in the store (a copy of the session's, as a user's second run finds it), so no
    stage runs (a stage that verifies needs Numba: the work meter, ``bounds/prove/meter.py``)."""
    from tests.coq_shared import seeded_verdicts

    assert imported(PROOFS, seeded_verdicts(tmp_path_factory, "imports")) == []


def test_a_heavy_import_is_seen():
    """The check fails on code that imports one of them (here through the fits of the figures, which need SciPy)."""
    assert imported("import slt.fit\nslt.fit.curve_fit(lambda x, a: a * x, [1.0, 2.0], [2.0, 4.0])") == ["scipy"]
