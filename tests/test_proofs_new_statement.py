"""End to end: a statement added to bounds/ as one module declaring it (the catalogue discovers it), with a false
proof step, is verified with no list to keep in sync: `slth proofs`, `slth run --proofs-only`,
`slth diff --against HEAD` and `pytest checks/test_proofs.py` all fail on it, in a temporary copy of the
repository.  The four share one verdict store, a copy of the session's store of the unchanged tree
(``tests.coq_shared.seeded_verdicts``, as a user's store would be): each command reads back what is unchanged, the
toy step is verified, and each must still fail on it."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.coq_shared import seeded_build_env, seeded_verdicts
from tests.test_diff import _clone

TOY = '''"""A toy lemma with a false step, planted by tests/test_proofs_new_statement.py."""
from __future__ import annotations

from .core import Statement, Step
from .subset_sum import EPS, dim
from .symbols import d1, d2, eps


def _proof(st, get):
    l7 = get("lemma7")
    return [Step("TOY1", l7.conclusion * d1 * d2, st.conclusion, ("lemma7",), "false: eps <= eps/2")]


toylemma = Statement(name="toylemma", title="A toy lemma", numbering={"main": "Toy", "appendix": "Toy"},
                     params=(dim("d1"), dim("d2"), EPS), conclusion=eps / 2, quantity="toy", builder=_proof)

DECLARED = ((120, toylemma),)
'''


def test_a_new_statement_with_a_false_step_fails_all_four(tmp_path, tmp_path_factory):
    clone = _clone(tmp_path)
    (clone / "bounds" / "toylemma.py").write_text(TOY)
    store = seeded_verdicts(tmp_path_factory, "new-statement")["SLTH_VERDICT_CACHE"]
    env = {**os.environ, "PYTHONPATH": str(clone), "SLTH_VERDICT_CACHE": store, "SLTH_VERDICT_CACHE_GIVEN": store}
    env.update(seeded_build_env(tmp_path_factory, "new-statement-coq-build"))  # Coq starts from the session's library

    def _slth(clone, *args):
        return subprocess.run([sys.executable, "-m", "reports.cli", *args], cwd=clone, env=env, capture_output=True,
                              text=True, timeout=600)

    proofs = _slth(clone, "proofs")
    assert proofs.returncode == 1, proofs.stdout + proofs.stderr
    assert "toylemma   TOY1" in proofs.stdout and "1 refuted" in proofs.stdout
    assert "REFUTED: 1 step(s) refuted: toylemma:TOY1" in proofs.stderr

    run = _slth(clone, "run", "--proofs-only", "-o", str(tmp_path / "record.json"))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 refuted" in run.stdout

    diff = _slth(clone, "diff", "--against", "HEAD")
    assert diff.returncode == 1, diff.stdout + diff.stderr
    assert "toylemma:TOY1  absent -> refuted" in diff.stdout and "DOWNGRADE" in diff.stdout

    checks = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "checks/test_proofs.py", "-k", "toylemma"], cwd=clone, capture_output=True, text=True,
                            env=env, timeout=600)
    assert checks.returncode == 1, checks.stdout + checks.stderr
    assert "toylemma step TOY1 REFUTED" in checks.stdout
