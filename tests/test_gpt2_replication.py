"""Figure 8's confirmatory replication (``slt.gpt2.replication``): the committed design is the one the code makes
from the committed pilot, its seeds are fresh, it decides at its own level, and its committed result (once run)
carries the design's hash and the verdict the one function gives."""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from slt.figures import summaries
from slt.gpt2 import figures, replication


def _pilot():
    return summaries.load_summary(summaries.committed_summary_path("fig8"))


def _rows(finals: dict, n_head=4, seed0=0):
    model = {"d_model": 64, "n_head": n_head, "n_layer": 2}
    return [({"model": dict(model, qk_scale=s)}, seed0 + k,
             {"final_val_loss": v, "val_loss": [v + 1, v], "weights_unchanged": True, "seconds": 1.0})
            for s, values in finals.items() for k, v in enumerate(values)]


def test_the_committed_design_is_what_the_code_makes_from_the_committed_pilot():
    committed = json.loads(replication.DESIGN_FILE.read_text())
    made = replication.design(_pilot())
    assert _undecided_as_one(made) == _undecided_as_one(committed)
    assert made["power"]["decided_at_seeds"] == committed["power"]["decided_at_seeds"] >= 0.8  # the registered N has power 0.8 for a decided verdict


def _undecided_as_one(design: dict) -> dict:
    """The design with its power shares' undecided kinds summed: the registered file names one ("more seeds
    needed"); the verdict function later told apart the undecided resamples whose every scale is decided
    (``figures.SPLIT``), a label and not a decision."""
    by_n = {}
    for n, shares in design["power"]["by_n"].items():
        kept = {k: v for k, v in shares.items() if k in replication.DECIDED}
        by_n[n] = dict(kept, undecided=round(sum(v for k, v in shares.items() if k not in replication.DECIDED), 9))
    return dict(design, power=dict(design["power"], by_n=by_n))


def test_a_design_changed_after_registration_no_longer_matches(monkeypatch):
    """The check can fail: the power resampling is stubbed with the file's own shares, so only the changed field
    can make the difference."""
    committed = json.loads(replication.DESIGN_FILE.read_text())
    monkeypatch.setattr(replication, "power", lambda pilot, n, **kw: committed["power"]["by_n"][str(n)])
    assert replication.design(_pilot()) == committed
    for name, value in (("ALPHA", 0.1), ("SEED0", 0), ("SEEDS", 96)):
        with monkeypatch.context() as m:
            m.setattr(replication, name, value)
            if name in ("SEED0", "SEEDS"):
                m.setattr(replication, "PLAN", dataclasses.replace(replication.PLAN, seeds=replication.SEEDS,
                                                                    seed0=replication.SEED0))
            assert replication.design(_pilot()) != committed, name


def test_the_replication_runs_fresh_seeds_of_the_undecided_width_only():
    torch = pytest.importorskip("torch", reason="PyTorch is the optional [torch] extra (pip install -e .[torch])")
    assert torch is not None
    p = replication.plan()
    tasks = figures.tasks("fig8", p)
    seeds = sorted({t.seed for t in tasks})
    assert seeds == list(range(1000, 1144)) and not set(seeds) & set(range(48))
    assert {t.params["model"]["qk_scale"] for t in tasks} == set(figures.SCALES)
    assert {t.params["model"]["d_model"] // t.params["model"]["n_head"] for t in tasks} == {16}
    assert len(tasks) == len(figures.SCALES) * 144


def test_the_replication_decides_at_its_own_level_where_the_two_look_design_does_not():
    """A paired t of 2.1 at 144 seeds: significant at 5% (t_.975 = 1.98), not at 2.5% (t_.9875 = 2.27). At s = 1
    below s* = 2 (a scale 1.5x away) that contradicts Figure 8 at 5% and leaves the two-look design undecided."""
    base = 3.0 + np.random.default_rng(3).normal(0, 0.05, 144)
    z = np.random.default_rng(4).normal(size=144)
    sd = 0.03
    diff = -2.1 * sd / math.sqrt(144) + sd * (z - z.mean()) / z.std(ddof=1)
    finals = {s: list(base + (diff if s == 1.0 else 0.0)) for s in figures.SCALES}
    (w,) = figures.summarise("fig8", _rows(finals), 144, replication.ALPHA, (144,))
    assert w["verdict"] == "contradicted"
    (w2,) = figures.summarise("fig8", _rows(finals), 144)
    assert w2["verdict"] != "contradicted"


def test_the_quick_replication_runs_and_names_its_design(tmp_path):
    pytest.importorskip("torch", reason="PyTorch is the optional [torch] extra (pip install -e .[torch])")
    from slt.figures import reproduce

    payload = reproduce("fig8-replication", quick=True, results_dir=tmp_path, workers=0, progress=False)
    assert payload["design"] == {"file": replication.DESIGN_FILE.name, "sha256": replication.design_sha256()}
    assert payload["plan"]["seed0"] == 1000 and payload["alpha"] == 0.05 and payload["looks"] == [2]
    assert payload["findings"][0].startswith("Fig. 8 (replication, fresh seeds) at n_K = 16")
    assert figures.redecide(payload)["verdict"] == payload["verdict"]


def test_the_committed_replication_is_the_registered_design_decided_by_the_one_function():
    payload = summaries.load_summary(summaries.committed_summary_path("fig8-replication"))
    assert payload["design"]["sha256"] == replication.design_sha256()
    assert payload["plan"]["seed0"] == replication.SEED0 and payload["seeds_planned"] == replication.SEEDS
    (w,) = payload["summary"]
    assert all(r["seeds"] == replication.SEEDS for r in w["scales"]) and w["n_K"] == 16
    again = figures.redecide(payload)
    assert payload["verdict"] == again["verdict"] and payload["findings"] == again["findings"]
    assert payload["compute_s"] > 0


def test_every_scale_decided_but_no_figure_verdict_reads_split_and_plans_no_next_look():
    """The loss within the margin at s = 1 and above it by more than the margin at s = 5, nothing below n_K^1/4:
    each scale is decided, yet neither supported (both ends above), contradicted nor no effect holds. It must not
    read "more seeds needed" (that would plan a look that cannot change it) nor any of the three verdicts; and the
    check can fail: with s = 5 noisy (its interval crossing 0 and the margin) it is "more seeds needed" again."""
    rng = np.random.default_rng(5)
    base = 3.0 + rng.normal(0, 0.05, 144)

    def exact(mean, sd):  # 144 paired differences with exactly this sample mean and standard deviation
        z = rng.normal(size=144)
        return mean + sd * (z - z.mean()) / z.std(ddof=1)

    step = {1.0: 0.0, 1.5: 0.0, 2.5: 0.001, 3.0: 0.002, 3.5: 0.003, 4.0: 0.005, 5.0: 0.013}
    finals = {s: list(base + (exact(step[s], 0.004) if s != 2.0 else 0.0)) for s in figures.SCALES}
    (w,) = figures.summarise("fig8", _rows(finals), 144, replication.ALPHA, (144,))
    assert w["verdict"] == figures.SPLIT and "within the margin (TOST at 5%): 1," in w["reason"]
    assert "by more than the margin (its 90% interval not inside +-0.01 nats): 5" in w["reason"]
    assert figures.next_look(figures.plan(False), [w]) is None
    finals[5.0] = list(base + 0.013 + rng.normal(0, 0.2, 144))
    (w,) = figures.summarise("fig8", _rows(finals), 144, replication.ALPHA, (144,))
    assert w["verdict"] == "undecided: more seeds needed"
