"""The slack section of the run record: optional, validated strictly when present, computed
only on request (``--slack``) or in the full profile, and rendered by the proof section. The real slack search
(minutes of CPU) never runs here: ``bounds.prove.slack.rows`` is replaced by two fake rows."""
from __future__ import annotations

import copy
import json

import pytest

from reports import cli, record
from reports.record import assemble
from reports.sections import proofs

ROWS = [
    {"statement": "theorem9", "constant": "the 8 in n_K", "printed": 8.0, "printed_exact": "8",
     "tightest": 0.015625, "tightest_exact": "1/64", "first_failing": 0.0154, "first_failing_exact": "63/4096",
     "ratio": 512.0, "forced": False, "direction": "searched downwards", "fails_at": "theorem9:logit_budget",
     "counterexample": {"d1": 2.0, "eps": 0.5}, "probes": 17, "note": ""},
    {"statement": "lemma8", "constant": "the 2 in exp(2 eps_max)", "printed": 2.0, "printed_exact": "2",
     "tightest": 2.0, "tightest_exact": "2", "first_failing": 1.98, "first_failing_exact": "507/256",
     "ratio": 1.0, "forced": True, "direction": "searched downwards", "fails_at": "lemma8:ratio_step",
     "counterexample": None, "probes": 8, "note": "uncertified beyond"},
]


def _with_slack(rec, rows=ROWS):
    out = copy.deepcopy(rec)
    out["slack"] = copy.deepcopy(rows)
    return out


def test_a_record_with_slack_rows_validates_and_round_trips(tmp_path, proofs_record):
    assert "slack" in proofs_record and proofs_record["slack"] is None  # the proofs profile does not compute it
    path = tmp_path / "r.json"
    record.write(path, _with_slack(proofs_record))
    assert record.load(path)["slack"] == ROWS
    old = copy.deepcopy(proofs_record)
    del old["slack"]  # records written before the section existed (same schema version) still read
    assert record.validate(old)["schema_version"] == record.SCHEMA_VERSION


@pytest.mark.parametrize("field", ["tightest", "forced", "fails_at", "note"])
def test_a_slack_row_missing_a_field_is_refused_naming_it(tmp_path, proofs_record, field):
    rec = _with_slack(proofs_record)
    del rec["slack"][1][field]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec))
    with pytest.raises(record.RecordError, match=rf"field 'slack\[1\]\.{field}' is missing"):
        record.load(path)


def test_a_slack_row_of_the_wrong_type_is_refused(proofs_record):
    rec = _with_slack(proofs_record)
    rec["slack"][0]["forced"] = "yes"
    with pytest.raises(record.RecordError, match=r"field 'slack\[0\]\.forced' is string, expected boolean"):
        record.validate(rec)
    rec["slack"] = {"theorem9": 8}
    with pytest.raises(record.RecordError, match=r"field 'slack' is object, expected a list"):
        record.validate(rec)


def test_the_proof_section_renders_the_slack_table(proofs_record):
    html = proofs.render(_with_slack(proofs_record)).html
    table = html[html.index("Slack of every constant"):]
    for head in ("statement", "constant", "printed", "tightest", "printed/tightest", "forced", "limiting step",
                 "note"):
        assert f"<th>{head}</th>" in table
    assert "the 8 in n_K" in table and "theorem9:logit_budget" in table and "512" in table
    assert "the 2 in exp(2 eps_max)" in table and "<b>forced</b>" in table and "uncertified beyond" in table
    assert "not certified" in table  # the forced row has no counterexample
    assert "slth report --slack" not in table


def test_without_slack_the_section_says_how_to_get_it(proofs_record):
    html = proofs.render(proofs_record).html
    assert "Slack of every constant" in html and "slth report --slack" in html and "slth proofs --slack" in html
    assert "<th>limiting step</th>" not in html


def _cheap_parts(monkeypatch, calls):
    """Replace the slow parts of ``assemble.build`` (variants, mutations, measurements, figures) and the slack
    search by stand-ins; ``calls`` counts the slack search's calls."""
    from slt.measure import empirical

    monkeypatch.setattr(assemble, "variants", lambda: [])
    monkeypatch.setattr(assemble, "mutations", lambda: [])
    monkeypatch.setattr(empirical, "measure", lambda *a, **k: None)
    monkeypatch.setattr(assemble, "figures", lambda *a, **k: {})

    def rows(constants=None, progress=None):
        calls.append(constants)
        return copy.deepcopy(ROWS)

    monkeypatch.setattr(assemble, "constant_slack", rows)


def test_the_quick_profile_never_runs_the_slack_search(monkeypatch):
    calls = []
    _cheap_parts(monkeypatch, calls)
    rec = assemble.build("quick", command="pytest", log=lambda m: None)
    assert calls == [] and rec["slack"] is None and "slack" not in rec["parts"]


@pytest.mark.parametrize("profile,flag", [("quick", True), ("full", False)])
def test_slack_is_computed_on_request_and_always_in_full(monkeypatch, profile, flag):
    calls = []
    _cheap_parts(monkeypatch, calls)
    rec = assemble.build(profile, command="pytest", log=lambda m: None, with_slack=flag)
    assert len(calls) == 1 and rec["slack"] == ROWS and "slack" in rec["parts"]


@pytest.mark.parametrize("argv,expected", [(["run", "--quick"], False), (["run", "--quick", "--slack"], True),
                                           (["report", "--proofs-only", "--slack"], True)])
def test_slth_run_and_report_pass_slack_to_the_record(tmp_path, monkeypatch, proofs_record, argv, expected):
    seen = {}

    def build(*a, **k):
        seen.update(k)
        return _with_slack(proofs_record) if k.get("with_slack") else copy.deepcopy(proofs_record)

    monkeypatch.setattr(assemble, "build", build)
    monkeypatch.chdir(tmp_path)
    out = ["-o", str(tmp_path / "out")] + (["--record", str(tmp_path / "r.json")] if argv[0] == "report" else [])
    assert cli.main(argv + out) == 0
    assert seen["with_slack"] is expected
    if argv[0] == "report":
        assert "Theorem 9, step logit_budget" in (tmp_path / "out").read_text()  # the step in words
