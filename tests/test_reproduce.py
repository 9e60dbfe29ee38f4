"""slt.figures, slt.train and `slth reproduce`: the Figure 4-6 reproduction on the angular-velocity task."""
import argparse
import contextlib
import io
import json

import numpy as np
import pytest

from slt import figures
from slt.figures.targets import evaluation_inputs


def test_long_sequence_kernel_matches_models():
    from slt._sweep_kernels import merged_attention
    from slt.models import MHAWeights, mha
    from slt.samplers import target_mha

    target = target_mha(3, 2, 3, H=1, dK=8, dV=8, init="paper")
    X = evaluation_inputs(37, 2)
    WQK, WVO = target.merged()
    for x in X:
        np.testing.assert_allclose(merged_attention(x, WQK[0], WVO[0]), mha(x, target), rtol=0, atol=1e-13)
    big = MHAWeights(target.WQ * 30, target.WK * 30, target.WV, target.WO, scale=target.scale)  # logits ~ 1e3
    np.testing.assert_allclose(merged_attention(X[0], *(m[0] for m in big.merged())), mha(X[0], big), atol=1e-12)
    with pytest.raises(ValueError, match="X"):
        merged_attention(np.zeros((4, 3)), WQK[0], WVO[0])


def _run_cli(argv):
    from reports import reproduce

    parser = argparse.ArgumentParser()
    reproduce.add_arguments(parser)
    return reproduce.main(parser.parse_args(argv))


# Tiny stand-ins for the quick plans (the real `fig4 --quick` plan runs in its own test below).
TINY = {("fig4", True): figures.Plan("fig4", (4, 12, 20, 28, 36, 44, 52, 60), (4,), 4, 16, mip_widths=(12,),
                                    mip_sources=2),
        ("fig5", True): figures.Plan("fig5", (8,), (8, 64, 256), 2, 1),
        ("fig6", True): figures.Plan("fig6", (8, 12, 16), (4,), 2, 3, blocks=2)}


class _Terminal(io.StringIO):
    """A standard error that says it is a terminal (tqdm shows its bar only on one)."""

    def isatty(self):
        return True


def _fig4_quick(folder):
    """`slth reproduce fig4 --quick --no-train` into ``folder``; returns (stdout, stderr, summary)."""
    out, err = io.StringIO(), _Terminal()  # standard error a terminal: the tqdm bar is shown
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert _run_cli(["fig4", "--quick", "--no-train", "--results", str(folder)]) == 0
    return out.getvalue(), err.getvalue(), json.loads(figures.summary_path(folder, "fig4", quick=True).read_text())


def _check_fig4(out, err, payload, plan):
    assert "fig4 quick" in err and "task" in err  # the tqdm progress bar
    assert "UNTRAINED" in out and "gamma = 0.8, delta = 0.06" in out
    assert payload["target"]["trained"] is False
    rows = payload["summary"]
    assert {(r["init"], r["n"]) for r in rows} == {(i, n) for i in figures.INITS for n in plan.widths}
    assert all(r["sources"] == plan.sources for r in rows)
    theory = [r["median"] for r in rows if r["init"] == "theory"]
    assert theory[-1] < 1e-6 < theory[0]  # the theory-initialised error decays by orders of magnitude
    assert set(payload["fits"]) == set(figures.INITS)
    mip = payload["mip"]
    assert "error" not in mip, mip
    assert [(r["init"], r["n"], r["sources"]) for r in mip["summary"]] == [
        ("theory", n, plan.mip_sources) for n in plan.mip_widths]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A fresh results folder after `slth reproduce fig4 --quick --no-train` (its output kept) and Figure 5 / 6
    sweeps, all with the TINY plans."""
    folder = tmp_path_factory.mktemp("results")
    with pytest.MonkeyPatch.context() as mp:
        for (name, quick), tiny in TINY.items():
            mp.setitem(figures.get(name).plans, quick, tiny)
        out, err, four = _fig4_quick(folder)
        five = figures.reproduce("fig5", quick=True, results_dir=folder, train=False, workers=0, progress=False)
        six = figures.reproduce("fig6", quick=True, results_dir=folder, workers=0, progress=False)
    return {"dir": folder, "out": out, "err": err, "fig4": four, "fig5": five, "fig6": six}


def test_reproduce_fig4_command_end_to_end(results):
    """The `slth reproduce fig4 --quick` command (untrained target, HiGHS floor) on a tiny plan, fresh folder."""
    _check_fig4(results["out"], results["err"], results["fig4"], TINY[("fig4", True)])


def test_reproduce_fig4_quick_real_plan(tmp_path):
    """The real `slth reproduce fig4 --quick` from an empty results folder (seconds on 2 idle cores)."""
    _check_fig4(*_fig4_quick(tmp_path), figures.get("fig4").plan(quick=True))


def test_reproduce_resumes_from_cache(results, capsys):
    """A second run reads every item from the cache: no item file is added or rewritten, the summary is unchanged."""
    folder = results["dir"]
    before = json.loads(figures.summary_path(folder, "fig4", quick=True).read_text())
    items_dir = folder / "tasks" / "figure_fig4"
    stamps = {p.name: p.stat().st_mtime_ns for p in items_dir.iterdir()}
    plan = TINY[("fig4", True)]
    assert len(stamps) == (len(plan.inits) * len(plan.widths) * plan.sources
                           + len(plan.mip_inits) * len(plan.mip_widths) * plan.mip_sources)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(figures.get("fig4").plans, True, plan)
        assert _run_cli(["fig4", "--quick", "--no-train", "--results", str(folder), "--workers", "0"]) == 0
    assert {p.name: p.stat().st_mtime_ns for p in items_dir.iterdir()} == stamps
    after = json.loads(figures.summary_path(folder, "fig4", quick=True).read_text())
    assert after["summary"] == before["summary"] and after["mip"]["summary"] == before["mip"]["summary"]


def test_tiny_fig5_and_fig6_sweeps(results):
    five, six = results["fig5"], results["fig6"]
    assert [(r["init"], r["n"], r["T"]) for r in five["summary"]] == [
        (i, 8, T) for i in figures.INITS for T in (8, 64, 256)]
    assert {t["init"] for t in five["length_trend"]} == set(figures.INITS)
    assert all(len(r["mean"]) == 2 for r in six["summary"])
    assert six["target"]["trained"] is False
    assert set(six["fits"]["theory"]) == {"log", "linear", "log_median"}


def test_report_section_from_cached_summaries(results, monkeypatch, tmp_path):
    """The "Reproduction" section renders from the summaries above without running any sweep (the committed full
    sweeps, which a quick run would otherwise prefer, are hidden here)."""
    from reports.sections import reproduction
    from reports.record import assemble
    from slt.figures import summaries

    monkeypatch.setattr(summaries, "COMMITTED", tmp_path / "no-committed-summaries")

    logged = []
    figures = assemble.figures(results["dir"], quick=True, log=logged.append, compute=False)
    section = reproduction.render({"figures": figures})
    plots = section.html.count("<img") + section.html.count("<svg")  # PNG or inline SVG: four plots either way
    assert section.id == "reproduction" and plots == 4
    assert "UNTRAINED" in section.html and "Error definition" in section.html and "0.8" in section.html
    assert not any("running" in line for line in logged)


def test_findings_are_decided_in_the_library_and_stored(results):
    four, five, six = results["fig4"], results["fig5"], results["fig6"]
    assert set(four["verdict"]["decays"]) == set(figures.INITS)
    assert four["verdict"]["reproducing"] == [i for i, d in four["verdict"]["decays"].items() if d]
    assert four["findings"] and any(f.startswith("The paper's delta = 0.06") for f in four["findings"])
    assert five["findings"][0].startswith("Fig. 5") and six["findings"][0].startswith("Fig. 6, theory")
    stored = json.loads(figures.summary_path(results["dir"], "fig4", quick=True).read_text())
    assert stored["findings"] == four["findings"] and stored["render"]["kind"] == "decay"


def _fit(delta, lo, hi, n=(4.0, 100.0)):
    return {"gamma": 0.8, "delta": delta, "delta_ci": (lo, hi), "gamma_ci": (0.5, 1.0), "n_used": n}


def test_fig4_verdict_needs_a_significant_and_large_decay():
    """The decision rule on planted fits: a clear decay reproduces; a significant but negligible slope does not;
    an interval reaching 0 does not."""
    fig4 = figures.get("fig4")
    payload = {"paper": {"gamma": 0.8, "delta": 0.06}, "summary": [], "tol": 1e-9,
               "fits": {"theory": {"log": _fit(0.06, 0.05, 0.07)}, "xavier": {"log": _fit(3e-4, 1e-4, 5e-4)}}}
    verdict, items = fig4.findings(payload)
    assert verdict["decays"] == {"theory": True, "xavier": False} and verdict["reproducing"] == ["theory"]
    assert "theory (mean, log space)" in items[0] and "xavier" not in items[0]
    payload["fits"]["theory"]["log"] = _fit(0.06, -0.01, 0.13)
    assert fig4.findings(payload)[0]["reproducing"] == []


def test_the_registry_runs_any_figure_definition(tmp_path, monkeypatch):
    """A new figure needs only a definition object: the generic driver plans, runs, summarises and stores it."""
    from slt.figures import Figure, Plan, register
    from slt.tasks import Task

    class Toy(Figure):
        name, title, task_fn = "toy", "a toy figure", "tests._task_fns:square"
        plans = {True: Plan("toy", (1, 2, 3), (4,), 2, 1)}
        render = {"kind": "decay"}

        def target(self, plan, results_dir, train, log):
            return {}, {"tag": "none", "trained": False}

        def tasks(self, plan, target_params, info):
            return [Task("figure:toy", self.task_fn, {"x": float(n)}, s) for n in plan.widths for s in range(plan.sources)]

        def summarise(self, plan, rows, info):
            return {"summary": [{"x": p["x"], "value": r["value"]} for p, _, r in rows]}

        def findings(self, payload):
            return {"largest": max(r["value"] for r in payload["summary"])}, ["toy finding"]

    monkeypatch.setitem(figures.REGISTRY, "toy", Toy())
    payload = figures.reproduce("toy", quick=True, results_dir=tmp_path, workers=0, progress=False)
    assert payload["verdict"] == {"largest": 10.0} and payload["findings"] == ["toy finding"]
    assert json.loads(figures.summary_path(tmp_path, "toy", True).read_text())["summary"][0] == {"x": 1.0, "value": 1.0}
    with pytest.raises(ValueError, match="unknown figure 'nosuch'"):
        figures.get("nosuch")


def test_a_sequential_figure_runs_its_next_look_until_the_design_ends(tmp_path, monkeypatch):
    """``Figure.next_plan``: a look that asks for more (here: fewer than 3 sources) runs the next look's tasks, the
    earlier ones read back from the cache; the stored summary is the last look's."""
    import dataclasses

    from slt.figures import Figure, Plan
    from slt.tasks import Task

    looks = []

    class Seq(Figure):
        name, title, task_fn = "seq", "a sequential toy", "tests._task_fns:square"
        plans = {True: Plan("seq", (1, 2), (4,), 1, 1)}
        render = {"kind": "decay"}

        def target(self, plan, results_dir, train, log):
            return {}, {"tag": "none", "trained": False}

        def tasks(self, plan, target_params, info):
            looks.append(plan.sources)
            return [Task("figure:seq", self.task_fn, {"x": float(n)}, s) for n in plan.widths for s in range(plan.sources)]

        def summarise(self, plan, rows, info):
            return {"summary": [{"x": p["x"], "seed": k} for p, k, _ in rows]}

        def next_plan(self, plan, payload):
            return dataclasses.replace(plan, sources=plan.sources + 1) if plan.sources < 3 else None

        def findings(self, payload):
            return {"rows": len(payload["summary"])}, []

    monkeypatch.setitem(figures.REGISTRY, "seq", Seq())
    payload = figures.reproduce("seq", quick=True, results_dir=tmp_path, workers=0, progress=False)
    assert looks == [1, 2, 3] and payload["verdict"] == {"rows": 6} and payload["plan"]["sources"] == 3


def test_untrained_target_without_torch(monkeypatch, tmp_path):
    from slt import train

    monkeypatch.setattr(train, "torch_available", lambda: False)
    weights, info = train.mha_target(0, cache_dir=tmp_path)
    assert info == {"trained": False, "reason": "PyTorch not installed",
                    "regression_token": {"reading": "zero", "vector": [0.0, 0.0]}}
    assert (weights.d1, weights.d2, weights.dK, weights.dV, weights.H) == (2, 1, 8, 8, 1)
    assert not (tmp_path / "targets").exists()


def test_training_moves_query_key_only_by_weight_decay(tmp_path):
    """The regression token is zero, so W_Q and W_K get no gradient: AdamW only decays them, by exactly
    (1 - lr * weight_decay) per step, while W_V and W_O learn."""
    pytest.importorskip("torch", reason="PyTorch is the optional [torch] extra")
    from slt import train

    initial, _ = train.mha_target(0, train=False)
    recipe = dict(n_train=96, n_val=32, T_min=4, T_max=12, batch=32, epochs=2)
    trained, info = train.train_mha(initial, 1, recipe)
    steps = 2 * 3
    decay = (1 - train.RECIPE["lr"] * train.RECIPE["weight_decay"]) ** steps
    np.testing.assert_allclose(trained.WQ, initial.WQ * decay, rtol=1e-12)
    np.testing.assert_allclose(trained.WK, initial.WK * decay, rtol=1e-12)
    assert not np.allclose(trained.WV, initial.WV * decay)
    assert len(info["history"]) == 2 and info["trained"]
