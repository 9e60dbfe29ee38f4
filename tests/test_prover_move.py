"""The prover moved into ``bounds/prove/`` and decides as it did: the proofs record of the last commit with the prover
inside ``bounds/`` (built by that commit's own code, as ``slth diff --against`` builds it) and the working tree's agree
on every step whose inequality is unchanged: the same verdict, first-pass verdict, method, domain and Arb re-check."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BEFORE_THE_MOVE = "90c04171d77a50f9ebd4794e9bb9a89b2b83d79a"
"""The last commit whose ``bounds/`` held the verifier, the kernel judge and the Coq exporter itself."""
DECIDES = ("verdict", "first_pass", "method", "domain", "arb")


def _decisions(record: dict) -> dict:
    return {(s["statement"], s["step"]): s for s in record["steps"]}


def compare(old: dict, new: dict) -> tuple[int, list]:
    """``(steps compared, [(step, field, before, after)])`` over the steps whose inequality (``text``) is unchanged."""
    before, after = _decisions(old), _decisions(new)
    same = [k for k in after if k in before and before[k].get("text") == after[k].get("text")]
    changed = [(k, f, before[k].get(f), after[k].get(f)) for k in same for f in DECIDES
               if before[k].get(f) != after[k].get(f)]
    return len(same), changed


def test_the_comparison_sees_a_changed_decision():
    step = {"statement": "lemma7", "step": "L7a", "text": "a <= b", "verdict": "certified", "first_pass": "pre-checked",
            "method": "symbolic", "domain": "whole", "arb": ""}
    moved = {**step, "verdict": "not proved"}
    assert compare({"steps": [step]}, {"steps": [moved]}) == (1, [(("lemma7", "L7a"), "verdict", "certified",
                                                                     "not proved")])
    assert compare({"steps": [step]}, {"steps": [{**step, "text": "a <= 2 b", "verdict": "refuted"}]}) == (0, [])


@pytest.mark.slow
@pytest.mark.thorough
def test_the_prover_decides_as_it_did_before_it_moved(tmp_path):
    if subprocess.run(["git", "cat-file", "-e", f"{BEFORE_THE_MOVE}^{{commit}}"], cwd=ROOT,
                      capture_output=True).returncode:
        pytest.skip(f"this checkout does not hold {BEFORE_THE_MOVE[:10]} (a shallow clone)")
    from reports.diff import against

    old, new = against(BEFORE_THE_MOVE, "proofs", tmp_path, 0, lambda m: None)
    compared, changed = compare(old, new)
    assert compared >= 60, compared  # the move left the steps' inequalities as they were
    assert changed == []
