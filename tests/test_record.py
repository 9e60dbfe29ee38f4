"""reports.record: the run record's contents, schema validation on read (a one-line error naming the file and the
field), atomic writes, and `slth run`."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import bounds
from reports import record
from reports.record import assemble, provenance


def test_record_holds_every_proof_step_with_method_domain_verdict_and_margin(proofs_record):
    rec = proofs_record
    expected = {(r.statement, r.step) for name in bounds.proved() for r in bounds.verify(name)}
    got = {(s["statement"], s["step"]) for s in rec["steps"] if s["statement"] != "facts"}
    assert got == expected
    for s in rec["steps"]:
        assert s["method"] in ("symbolic", "interval", "sampled") and s["verdict"] in ("certified", "refuted", "not proved")
        assert s["domain"] == "whole" or s["domain"].startswith(("box", "sampled"))
        assert s["margin"] is None or s["margin"] >= 1.0 - 1e-12  # every supported step holds on its samples
    assert not record.failed_steps(rec)
    assert rec["variants"] is None and rec["mutations"] is None and rec["empirical"] is None
    assert rec["parts"] == ["proofs"]


def test_variants_are_recorded_with_the_steps_they_break():
    """Lemma 8's variant (verified in seconds; every variant of every statement breaks exactly its declared steps:
    checks/test_variants.py::test_variant_breaks_exactly_the_declared_steps)."""
    rows = assemble.variants(["lemma8"])
    assert {v["variant"] for v in rows} == set(bounds.get("lemma8").variants)
    for v in rows:
        assert v["verdict"] == "as expected" and v["broken"], v
        assert {(b["statement"], b["step"]) for b in v["broken"]} == {tuple(x) for x in v["expected"]}
        assert all(b["counterexample"] for b in v["broken"])


def test_widths_on_the_default_grid_come_from_bounds(proofs_record):
    rows = [w for w in proofs_record["widths"] if w["statement"] == "theorem9" and w["width"] == "n_K"]
    assert len(rows) == 3 * 2 * 2  # d1 x H x eps
    for w in rows:
        assert w["value"] == bounds.get("theorem9").width("n_K", C=w["C"], **w["point"])


def test_provenance(proofs_record):
    p = proofs_record["provenance"]
    assert p["bounds_hash"] == provenance.bounds_hash() and len(p["bounds_hash"]) == 64
    assert p["git_commit"] is None or len(p["git_commit"]) == 40
    assert p["packages"]["sympy"] and p["seeds"]["base"] == 0 and p["wall_s"]["total"] > 0
    assert proofs_record["calibration"]["statements"]["theorem9"]["C"] > 0


def test_write_is_atomic_and_load_validates(tmp_path, proofs_record):
    path = tmp_path / "r.json"
    record.write(path, proofs_record)
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    assert record.load(path) == json.loads(record.dumps(proofs_record))


def _refused(tmp_path, data, *needles):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(record.RecordError) as exc:
        record.load(path)
    message = str(exc.value)
    assert "\n" not in message and str(path) in message
    for needle in needles:
        assert needle in message, message
    return message


def test_a_wrong_schema_version_is_refused_naming_the_field(tmp_path, proofs_record):
    data = copy.deepcopy(proofs_record)
    data["schema_version"] = record.SCHEMA_VERSION + 1
    _refused(tmp_path, data, "'schema_version'", str(record.SCHEMA_VERSION + 1))


@pytest.mark.parametrize("path", [["provenance", "git_commit"], ["steps", 3, "margin"], ["widths", 0, "value"],
                                  ["calibration", "statements"], ["statements", 1, "conclusion", "mathml"]])
def test_a_missing_field_is_refused_naming_it(tmp_path, proofs_record, path):
    data = copy.deepcopy(proofs_record)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    dotted = ".".join(str(k) for k in path).replace(".3", "[3]").replace(".0", "[0]").replace(".1", "[1]")
    _refused(tmp_path, data, f"'{dotted}'", "missing")


def test_a_wrong_type_and_garbage_are_refused(tmp_path, proofs_record):
    data = copy.deepcopy(proofs_record)
    data["steps"][0]["ok"] = "yes"
    _refused(tmp_path, data, "'steps[0].ok'", "expected boolean")
    path = tmp_path / "garbage.json"
    path.write_text("{not json")
    with pytest.raises(record.RecordError, match="garbage.json: not JSON"):
        record.load(path)
    with pytest.raises(record.RecordError, match="no such record file"):
        record.load(tmp_path / "absent.json")
    _refused(tmp_path, {"schema": "something else"}, "'schema'")


def test_a_search_title_is_optional_and_must_be_a_string(tmp_path, proofs_record):
    data = copy.deepcopy(proofs_record)
    sample = json.loads((Path(__file__).with_name("data") / "empirical-record-sample.json").read_text())
    data["empirical"] = sample  # written before titles: still loads
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    assert record.load(path)["empirical"]["checks"] == sample["checks"]
    case = next(i for i, c in enumerate(sample["checks"]) if "cases" in c)
    data["empirical"]["checks"][case]["title"] = 3
    _refused(tmp_path, data, f"'empirical.checks[{case}].title'", "expected string")
    data["empirical"]["checks"][case]["title"] = "a heading"
    data["empirical"]["length_sweeps"]["lemma8"]["title"] = ["not", "text"]
    _refused(tmp_path, data, "'empirical.length_sweeps.lemma8.title'", "expected string")


def test_slth_run_writes_the_record_and_exits_by_the_steps(tmp_path, monkeypatch, capsys, proofs_record):
    from reports import cli

    monkeypatch.setattr(assemble, "build", lambda *a, **k: copy.deepcopy(proofs_record))
    out = tmp_path / "rec.json"
    assert cli.main(["run", "--proofs-only", "-o", str(out)]) == 0
    assert record.load(out)["profile"] == "proofs"
    broken = copy.deepcopy(proofs_record)
    broken["steps"][0].update(ok=False, verdict="refuted")
    monkeypatch.setattr(assemble, "build", lambda *a, **k: broken)
    assert cli.main(["run", "--proofs-only", "-o", str(out)]) == 1
    assert "1 refuted" in capsys.readouterr().out
    broken["steps"][0].update(ok=False, verdict="not proved")
    assert cli.main(["run", "--proofs-only", "-o", str(out)]) == 1
    assert "1 not proved" in capsys.readouterr().out
