"""The report's "Bound versus empirical" section, rendered from a real measurement of `slth report --only empirical`
(tests/data/empirical-quick-sample.json, quick mode, seed 0), and its cache key."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from reports import build
from reports.sections import empirical

SAMPLE = Path(__file__).with_name("data") / "empirical-quick-sample.json"


def render(monkeypatch, data):
    monkeypatch.setattr(empirical, "measure", lambda ctx: data)
    return empirical.render(build.Context(results_dir=Path("unused"), log=lambda *_: None))


def test_every_measured_statement_gets_a_plot_a_table_and_a_verdict(monkeypatch):
    data = json.loads(SAMPLE.read_text())
    section = render(monkeypatch, data)
    statements = {r["statement"] for r in data["rates"]}
    assert statements >= {"lueker", "lemma7", "lemma2", "theorem9", "theorem10", "theorem11", "theorem14"}
    for name in statements:
        assert f"<h3>{name}</h3><img" in section.html
    for name in data["calibration"]["statements"]:
        assert f"<td>{name}</td>" in section.html
    for title in ("Lemma 8: length independence", "Theorem 9: length independence of one ticket",
                  "Lemma 13 as printed"):
        assert title in section.html
    assert section.html.count(">pass<") == sum(r["passed"] for r in data["rates"])


def test_a_failed_rate_is_shown_as_a_failure_with_its_rerun_command(monkeypatch):
    data = json.loads(SAMPLE.read_text())
    failing = dict(data["rates"][0], passed=False)
    data["rates"] = [failing] + data["rates"][1:]
    section = render(monkeypatch, data)
    assert ">FAIL<" in section.html
    assert failing["command"].split(" --seed")[0] in section.html


def test_cache_key_changes_with_the_calibration_file(tmp_path):
    from slt.measure import calibration

    copy = tmp_path / "calibration.json"
    shutil.copy(calibration.DEFAULT, copy)
    before = empirical._fingerprint(str(copy))
    copy.write_text(copy.read_text().replace('"safety": 1.5', '"safety": 1.6'))
    assert empirical._fingerprint(str(copy)) != before
