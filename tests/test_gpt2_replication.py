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


def _pilot(name="fig8"):
    return summaries.load_summary(summaries.committed_summary_path(name))


def _rows(finals: dict, n_head=4, seed0=0):
    model = {"d_model": 64, "n_head": n_head, "n_layer": 2}
    return [({"model": dict(model, qk_scale=s)}, seed0 + k,
             {"final_val_loss": v, "val_loss": [v + 1, v], "weights_unchanged": True, "seconds": 1.0})
            for s, values in finals.items() for k, v in enumerate(values)]


FIRST, SECOND = replication.DESIGNS["fig8-replication"], replication.DESIGNS["fig8-confirmation"]


@pytest.mark.parametrize("name", list(replication.DESIGNS))
def test_the_committed_design_is_what_the_code_makes_from_the_committed_pilot(name):
    d = replication.DESIGNS[name]
    committed = json.loads(d.file.read_text())
    made = replication.design(_pilot(d.pilot), d)
    assert _undecided_as_one(made) == _undecided_as_one(committed)
    assert made["power"]["decided_at_seeds"] == committed["power"]["decided_at_seeds"] >= 0.8  # the registered N has power 0.8 for a decided verdict


def test_every_design_runs_seeds_no_earlier_run_used():
    """Fresh seeds: the pilot of each design (Figures 7-8 ran seeds 0-47) and every other design are disjoint."""
    used = [set(range(48))]
    for d in replication.DESIGNS.values():
        seeds = set(range(d.seed0, d.seed0 + d.seeds))
        assert not any(seeds & u for u in used), d.name
        used.append(seeds)
    assert json.loads(SECOND.file.read_text())["pilot_seeds"] == list(range(FIRST.seed0, FIRST.seed0 + FIRST.seeds))


def _undecided_as_one(design: dict) -> dict:
    """The design with its power shares' undecided kinds summed: the registered file names one ("more seeds
    needed"); the verdict function later told apart the undecided resamples whose every scale is decided
    (``figures.SPLIT``), a label and not a decision."""
    by_n = {}
    for n, shares in design["power"]["by_n"].items():
        kept = {k: v for k, v in shares.items() if k in replication.DECIDED}
        by_n[n] = dict(kept, undecided=round(sum(v for k, v in shares.items() if k not in replication.DECIDED), 9))
    return dict(design, power=dict(design["power"], by_n=by_n))


@pytest.mark.parametrize("name", list(replication.DESIGNS))
def test_a_design_changed_after_registration_no_longer_matches(monkeypatch, name):
    """The check can fail: the power resampling is stubbed with the file's own shares, so only the changed field
    can make the difference."""
    d = replication.DESIGNS[name]
    committed = json.loads(d.file.read_text())
    monkeypatch.setattr(replication, "power", lambda pilot, n, rule, **kw: committed["power"]["by_n"][str(n)])
    assert replication.design(_pilot(d.pilot), d) == committed
    with monkeypatch.context() as m:
        m.setattr(replication, "ALPHA", 0.1)
        assert replication.design(_pilot(d.pilot), d) != committed
    other = "one-side" if d.rule == "two-ends" else "two-ends"
    for changed in (dict(seed0=0), dict(seeds=96), dict(rule=other)):
        assert replication.design(_pilot(d.pilot), dataclasses.replace(d, **changed)) != committed, changed
    pilot = _pilot(d.pilot)
    width = next(w for w in pilot["summary"] if w["n_K"] == 16)
    width["scales"][0]["final"][0] += 1e-9  # one pilot loss changed
    assert replication.design(pilot, d) != committed


def test_the_replication_runs_fresh_seeds_of_the_undecided_width_only():
    torch = pytest.importorskip("torch", reason="PyTorch is the optional [torch] extra (pip install -e .[torch])")
    assert torch is not None
    p = replication.plan("fig8-replication")
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


@pytest.mark.parametrize("name", list(replication.DESIGNS))
def test_the_quick_replication_runs_and_names_its_design(tmp_path, name):
    pytest.importorskip("torch", reason="PyTorch is the optional [torch] extra (pip install -e .[torch])")
    from slt.figures import reproduce

    d = replication.DESIGNS[name]
    payload = reproduce(name, quick=True, results_dir=tmp_path, workers=0, progress=False)
    assert payload["design"] == {"file": d.file.name, "sha256": replication.design_sha256(name)}
    assert payload["plan"]["seed0"] == d.seed0 and payload["alpha"] == 0.05 and payload["looks"] == [2]
    assert payload.get("rule", figures.RULE) == d.rule
    assert payload["findings"][0].startswith(f"{figures.LABELS[name]} at n_K = 16")
    assert figures.redecide(payload)["verdict"] == payload["verdict"]


@pytest.mark.parametrize("name", list(replication.DESIGNS))
def test_the_committed_replication_is_the_registered_design_decided_by_the_one_function(name):
    d = replication.DESIGNS[name]
    payload = summaries.load_summary(summaries.committed_summary_path(name))
    assert payload["design"]["sha256"] == replication.design_sha256(name)
    assert payload["plan"]["seed0"] == d.seed0 and payload["seeds_planned"] == d.seeds
    assert payload.get("rule", figures.RULE) == d.rule
    (w,) = payload["summary"]
    assert all(r["seeds"] == d.seeds for r in w["scales"]) and w["n_K"] == 16
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


def _split_finals(five=0.013, five_sd=0.004, below=None):
    """The first replication's shape: flat from s = 1 to 1.5, rising to s = 5 (``five`` above n_K^1/4)."""
    rng = np.random.default_rng(5)
    base = 3.0 + rng.normal(0, 0.05, 144)

    def exact(mean, sd):
        z = rng.normal(size=144)
        return mean + sd * (z - z.mean()) / z.std(ddof=1)

    step = {1.0: 0.0, 1.5: 0.0, 2.5: 0.001, 3.0: 0.002, 3.5: 0.003, 4.0: 0.005, 5.0: five, **(below or {})}
    return {s: list(base + (exact(step[s], five_sd if s == 5.0 else 0.004) if s != 2.0 else 0.0))
            for s in figures.SCALES}


def test_the_one_side_rule_decides_what_two_ends_leaves_split_and_can_fail():
    """The outcome that ``two-ends`` reads SPLIT (no scale below, s = 1 within the margin, s = 5 above it beyond the
    margin) is supported under ``one-side``. Controls, each of which must not read supported: s = 5 above but
    within the margin (no effect), a scale 1.5x away below (contradicted), a near scale below (neither)."""
    def decide(finals, rule):
        (w,) = figures.summarise("fig8", _rows(finals), 144, replication.ALPHA, (144,), rule)
        return w

    assert decide(_split_finals(), "two-ends")["verdict"] == figures.SPLIT
    w = decide(_split_finals(), "one-side")
    assert w["verdict"] == "supported" and "not within the margin: [5.0]" in w["reason"]
    assert decide(_split_finals(five=0.003), "one-side")["verdict"] == figures.NO_EFFECT
    assert decide(_split_finals(below={1.0: -0.004}), "one-side")["verdict"] == "contradicted"
    assert decide(_split_finals(below={1.5: -0.004}), "one-side")["verdict"] == figures.SPLIT
    with pytest.raises(ValueError, match="unknown Figure 8 rule 'both'"):
        decide(_split_finals(), "both")


def test_redecide_reads_the_rule_its_payload_names():
    (w,) = figures.summarise("fig8", _rows(_split_finals()), 144, replication.ALPHA, (144,), "one-side")
    payload = {"figure": "fig8-confirmation", "summary": [w], "seeds_planned": 144, "alpha": 0.05, "looks": [144],
               "rule": "one-side"}
    assert figures.redecide(payload)["summary"][0]["verdict"] == "supported"
    assert figures.redecide({k: v for k, v in payload.items() if k != "rule"})["summary"][0]["verdict"] == figures.SPLIT
