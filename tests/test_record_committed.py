"""The run record takes a figure's summary from, in order: the run's own full sweep, the committed full sweep shipped
with the package, the run's quick sweep; and says which one it used."""
from __future__ import annotations

import json

from reports.record import assemble
from slt.figures import summaries


def _summary(figure: str, label: str) -> dict:
    return {"figure": figure, "summary": {"label": label}, "plan": {}}


def _write(path, payload):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload))


def test_committed_full_summary_is_used_before_a_quick_one_and_after_the_runs_own(tmp_path, monkeypatch):
    committed = tmp_path / "committed"
    monkeypatch.setattr(summaries, "COMMITTED", committed)
    results = tmp_path / "results"
    _write(summaries.summary_path(results, "fig6", True), _summary("fig6", "quick"))
    _write(committed / "fig6.json", _summary("fig6", "committed"))
    monkeypatch.chdir(tmp_path)  # the source is named relative to the working folder, never as an absolute path
    got = assemble.figures(results, quick=True, log=lambda *a: None, compute=False)["fig6"]
    assert got["payload"]["summary"]["label"] == "committed" and got["source"] == "cached committed/fig6.json"

    _write(summaries.summary_path(results, "fig6", False), _summary("fig6", "own full"))
    got = assemble.figures(results, quick=True, log=lambda *a: None, compute=False)["fig6"]
    assert got["payload"]["summary"]["label"] == "own full"


def test_a_corrupt_committed_summary_is_named_and_not_used(tmp_path, monkeypatch):
    committed = tmp_path / "committed"
    monkeypatch.setattr(summaries, "COMMITTED", committed)
    committed.mkdir()
    (committed / "fig6.json").write_bytes(b"\xff\xfe garbage")
    said = []
    got = assemble.figures(tmp_path / "results", quick=True, log=said.append, compute=False)
    assert "fig6" not in got
    assert any("fig6.json" in line and "not a figure summary" in line for line in said), said


def test_every_committed_summary_loads_and_prints():
    """The committed full sweeps are real summaries of their figures, and `slth reproduce` can print each."""
    from reports.reproduce import format_summary
    from slt import figures

    found = sorted(p.stem for p in summaries.COMMITTED.glob("*.json"))
    assert {"fig4", "fig5", "fig6"} <= set(found), found
    for name in found:
        payload = summaries.load_summary(summaries.committed_summary_path(name))
        assert payload["figure"] == name and payload["quick"] is False
        figure = figures.get(name)
        text = figure.format_summary(payload) if hasattr(figure, "format_summary") else format_summary(payload)
        assert name[3:] in text or payload["figure"] in text


def test_the_committed_coq_results_are_made_for_this_tree():
    """The committed kernel result and Lemma 12's committed Coq check carry the key of this exact tree (``bounds/``,
    the exporter, the tactics and every text they compile), so that a fresh clone's `slth report` reads them instead
    of compiling Coq again (``python -m reports.record.verified`` refreshes both after an edit)."""
    from slt.cache import read_record

    from reports.record import verified

    for part, want in (("kernel", verified.kernel_key()), ("lemma12", verified.lemma12_key())):
        rec = read_record(verified.COMMITTED / f"verified-{part}.json")
        assert rec["key"] == want, f"verified-{part}.json was made for another tree; run: python -m reports.record.verified"
