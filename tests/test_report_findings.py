"""Findings first: the findings are decided by ``slt.measure.findings`` from a record's data and
stored in it; the page opens with the count banner and the findings as sentences, each with its counterexample as
a table, the test that reproduces it and a link to its evidence.

The data: the proof part of this tree (``proofs_record``), the empirical part of a real quick run
(tests/data/empirical-record-sample.json) and tests/data/findings-sample.json, written by the functions whose
output it holds: ``{"variants": reports.record.assemble.variants(), "findings_data": {"theorem14": [findings.theorem14_reading(0,
r) for r in findings.READINGS], "mip": findings.mip_tolerance(0, **findings.MIP_POINT)}}``."""
from __future__ import annotations

import copy
import json
import html as html_text
import re
from pathlib import Path

import pytest

from slt import claims
from slt.measure import findings

DATA = Path(__file__).with_name("data")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def record(proofs_record):
    rec = copy.deepcopy(proofs_record)
    sample = json.loads((DATA / "findings-sample.json").read_text())
    rec["empirical"] = json.loads((DATA / "empirical-record-sample.json").read_text())
    rec["empirical"]["findings_data"] = sample["findings_data"]
    rec["variants"] = sample["variants"]
    rec["profile"] = "quick"
    rec["findings"] = findings.decide(rec)
    return rec


def _item(rec, fid):
    return next(f for f in rec["findings"]["items"] if f["id"] == fid)


def test_lemma13_as_printed_is_false_with_its_counterexample(record):
    f = _item(record, "lemma13-printed")
    case = next(c for c in record["empirical"]["checks"] if c["id"] == "stored:lemma13:printed")["cases"][0]
    assert f["status"] == "refuted" and f["title"].startswith("Lemma 13 as printed is false (")
    assert claims.ratio_text(case["ratio"]) in f["title"]
    table = f["counterexample"]
    row = dict(zip(table["columns"], table["rows"][0]))
    assert float(row["printed bound"]) < float(row["measured max_i ||Blk(x_i) - Blk(x'_i)||"])
    assert row["T"] == str(case["parameters"]["T"]) and f["command"] == case["command"]


def test_a_counterexample_that_does_not_violate_is_not_called_a_refutation(record):
    rec = copy.deepcopy(record)
    case = next(c for c in rec["empirical"]["checks"] if c["id"] == "stored:lemma13:printed")["cases"][0]
    case.update(violated=False, measured=case["bound"] / 2, ratio=0.5)
    f = findings.lemma13_printed(rec)
    assert f["status"] == "not reproduced" and "false" not in f["title"]


def test_theorem14_names_the_kappa_each_reading_needs(record):
    f = _item(record, "theorem14-kappa")
    data = {r["reading"]: r for r in record["empirical"]["findings_data"]["theorem14"]}
    rows = {r[0].split(") ")[1]: r for r in f["table"]["rows"]}
    assert set(rows) == set(findings.READINGS)
    for name, r in data.items():
        proof = r["proof"]["kappa"]
        assert rows[name][3] == ("never" if proof is None else str(proof))
        assert (rows[name][1] == "every step verifies") == (not r["printed"])
    encoded = data["printed"]["proof"]["kappa"]
    note = record["findings"]["notes"]["theorem14"]
    assert f"kappa = {encoded}" in note and f"not the printed {data['printed']['printed_kappa']}" in note
    assert f["counterexample"]["rows"], "the failing step's counterexample at the printed kappa"


def test_sqrt_d1_lemma12_theorem11_and_the_solvers(record):
    sq = _item(record, "sqrt-d1")
    assert sq["status"] == "proof step fails" and any("S2c-ii" in r[1] for r in sq["counterexample"]["rows"])
    assert _item(record, "lemma12-logit")["status"] == "proof step fails"
    assert _item(record, "theorem11-budget")["status"] == "no step fails"
    mip = _item(record, "mip-tolerance")
    rows = record["empirical"]["findings_data"]["mip"]["rows"]
    hidden = [r for r in rows if r["true"] - r["reported"] > 1e-8 and r["true"] > 1e3 * r["exact"]]
    assert (mip["status"] == "tolerance") == bool(hidden)


def test_every_title_follows_the_records_data(record):
    """A finding's title (the README's line) says what the record shows: with no step broken, no solver tolerance
    hidden and a repaired reading, no title claims a failure."""
    rec = copy.deepcopy(record)
    for v in rec["variants"]:
        v["broken"] = []
    for r in rec["empirical"]["findings_data"]["mip"]["rows"]:
        r["reported"] = r["true"]
    for r in rec["empirical"]["findings_data"]["theorem14"]:
        r["printed"] = []
    before = {f["id"]: f["title"] for f in findings.decide(record)["items"]}
    after = {f["id"]: f["title"] for f in findings.decide(rec)["items"]}
    for fid in ("sqrt-d1", "lemma12-logit", "mip-tolerance", "theorem14-kappa"):
        assert after[fid] != before[fid], fid
    assert "break" not in after["sqrt-d1"] or "no step" in after["sqrt-d1"]
    assert "assumes" not in after["lemma12-logit"] and "hide" not in after["mip-tolerance"]
    assert "fails" not in after["theorem14-kappa"]
    assert "among them Theorem 9 step S2c-ii" in before["sqrt-d1"]


def test_every_named_test_exists():
    """Each finding's test id is one pytest collects (so the page never names a test that moved)."""
    import subprocess
    import sys

    rec = {"statements": [], "steps": [], "variants": None, "empirical": None, "profile": "proofs"}
    ids = [f["test"] for f in findings.decide(rec)["items"]]
    files = sorted({i.split("::")[0] for i in ids})
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    collected = set(done.stdout.split())
    missing = [i for i in ids if i not in collected and not any(c.startswith(i + "[") for c in collected)]
    assert not missing and len(collected) > len(ids), (missing, done.stdout[-2000:], done.stderr[-2000:])


def test_a_proofs_only_record_states_nothing_it_has_not_measured(proofs_record):
    """Only the Coq check of Lemma 12's logit step, which the proof-only record holds, and the printed width of
    Lueker's corollary, read from bounds/ (no measurement), are decided there."""
    out = findings.decide(proofs_record)
    assert all(f["status"] == "not in this record" for f in out["items"]
               if f["id"] not in ("lemma12-kernel", "lueker-printed")), [f["status"] for f in out["items"]]
    assert next(f for f in out["items"] if f["id"] == "lueker-printed")["status"] == "refuted"
    kernel = next(f for f in out["items"] if f["id"] == "lemma12-kernel")
    assert proofs_record["coq_lemma12"] is not None and kernel["status"] != "not in this record"
    without = next(f for f in findings.decide({**proofs_record, "coq_lemma12": None})["items"]
                   if f["id"] == "lemma12-kernel")
    assert without["status"] == "not in this record"
    assert out["banner"]["empirical"] is None


def test_the_page_opens_with_the_banner_and_the_findings(record):
    from reports.build import render_html, render_sections
    from reports.render import notation

    html = render_html(render_sections(record), record)
    body = html[html.index("<body>"):]
    assert body.index('<section id="findings">') < body.index('<section id="summary">')
    banner = re.search(r'<div class="banner" id="banner">(.*?)</div>\s*</div>', body, re.S).group(1)
    counts = record["findings"]["banner"]
    banner = html_text.unescape(banner)
    objects = counts["proofs"]["objects"]  # each verdict names its object: as printed, or as repaired
    assert objects["certified as printed"] + objects["certified as repaired"] == counts["proofs"]["counts"]["certified"]
    assert f"{objects['certified as printed']} statements certified as printed" in banner
    assert f"{objects['certified as repaired']} certified only as repaired (" in banner
    for name, r in counts["proofs"]["repaired"].items():
        assert f"{claims.label(record, name)}: {r['what']}" in banner
    assert claims.proof_sentence(record) in banner and claims.empirical_sentence(record) in banner
    emp = counts["empirical"]["counts"]
    assert f"{emp['undecided at this power']} undecided at this power" in banner and f"{emp['holds']} statements hold" in banner
    assert "Lemma 13 as printed" in banner
    for f in record["findings"]["items"]:
        li = re.search(rf'<li id="findings-{f["id"]}" value="\d+">(.*?)</li>', body, re.S).group(1)
        assert str(notation(f["title"])) in li and f["test"] in li and f'href="{f["evidence"]}"' in li
        if f["counterexample"]:
            assert "<table" in li
    assert "Lemma 13 as printed is false (" in body
    row = re.search(r'<tr id="summary-theorem14">(.*?)</tr>', body, re.S).group(1)
    assert "kappa = " in row and "not the printed" in row
    for anchor in {f["evidence"] for f in record["findings"]["items"]}:
        assert f'id="{anchor[1:]}"' in body, anchor


def test_the_solver_task_runs_and_matches_the_sample():
    """The MIP finding's task function itself (the sample above holds its output): HiGHS reports 0 for a subset
    whose true error is far above the exact optimum."""
    out = findings.mip_tolerance(0, **findings.MIP_POINT)
    sample = json.loads((DATA / "findings-sample.json").read_text())["findings_data"]["mip"]
    assert [r["entry"] for r in out["rows"]] == [r["entry"] for r in sample["rows"]]
    assert any(r["reported"] == 0.0 and r["true"] > 1e3 * r["exact"] for r in out["rows"]), out["rows"]


def test_a_reading_the_verifier_cannot_decide_is_said_not_guessed(record):
    rec = copy.deepcopy(record)
    rows = rec["empirical"]["findings_data"]["theorem14"]
    other = next(r for r in rows if r["reading"] == "perturbed-logit")
    other.update(printed=None, block=None, proof=None, undecided="perturbed-logit at kappa = 10: ['T14d-x'] not proved")
    f = findings.theorem14_kappa(rec)
    row = next(r for r in f["table"]["rows"] if r[0].endswith("perturbed-logit"))
    assert row[1] == "not decided" and "T14d-x" in row[2] and f["status"] == "proof step fails"
    printed = next(r for r in rows if r["reading"] == "printed")
    printed.update(printed=None, block=None, proof=None, undecided="printed at kappa = 40: ['T14d-ii'] not proved")
    f = findings.theorem14_kappa(rec)
    assert f["status"] == "not decided" and "not decided" in f["title"] and "kappa = 65" not in " ".join(f["sentences"])


def test_the_worst_target_finding_is_decided_from_the_records_calibration(record):
    """Per statement with target families, the random-target C, the worst-target C where recalibrated, the
    worst family and its failures at the C the families ran at, all read from ``calibration.statements``; a
    statement without a worst-target C is said to be calibrated, and to hold, on random targets only."""
    cal = record["calibration"]["statements"]
    f = _item(record, "worst-targets")
    rows = {r[0]: r for r in f["table"]["rows"]}
    for name in f["statements"]:
        rec, row = cal[name], rows[findings._heading(record, name)]
        t = rec["targets"]
        worst = next(x for x in t["families"] if x["family"] == t["worst"])
        assert row[4] == f"{worst['failures']}/{worst['trials']}" and row[3].startswith(t["worst"])
        if "worst_target" in rec:
            assert row[1] == findings._fmt(rec["C_random"]) and row[2] == findings._fmt(rec["C"])
            assert name not in f["random_only"]
        else:
            assert row[1] == findings._fmt(rec["C"]) and row[2] == "not calibrated" and row[7] == "random targets only"
            assert name in f["random_only"] and findings._heading(record, name) in f["title"]
    rec = copy.deepcopy(record)  # changed data, changed finding: nothing is hard-coded
    rc = rec["calibration"]["statements"]
    for name in f["random_only"]:
        rc[name].update(C_random=rc[name]["C"] / 2, worst_target=rc[name]["targets"]["worst"])
    worst = next(x for x in rc["theorem9"]["targets"]["families"] if x["family"] == rc["theorem9"]["targets"]["worst"])
    worst["failures"] = 1
    g = findings.worst_targets(rec)
    assert g["random_only"] == [] and g["status"] == "worst targets" and "random targets only" not in g["title"]
    assert f"failed 1 of {worst['trials']} trials" in " ".join(g["sentences"])
    for name in rc:
        rc[name].pop("targets", None)
    assert findings.worst_targets(rec)["status"] == "not in this record"


def test_the_fixed_c_finding_is_decided_from_the_rows_and_can_say_c_grows(record):
    """The finding "fixed-c-growth" reads the stored fixed-C rows. On the committed rows no test
    rejects, so it says no growth was seen; a planted row whose test rejects (rate above eps at the smallest eps)
    turns it into "C grows" naming the statement; nothing in it is typed by hand."""
    f = _item(record, "fixed-c-growth")
    cal = record["calibration"]["statements"]
    assert f["status"] == "no growth seen" and set(f["statements"]) <= set(cal)
    rec = copy.deepcopy(record)
    g = rec["calibration"]["statements"]["lemma7"]["growth"]
    low = min(g["rows"], key=lambda r: r["eps"])
    low.update(failures=low["trials"] // 10, passed=False)  # rate 0.1 at eps = 0.003: a rejected test
    h = findings.fixed_c_growth(rec)
    assert h["status"] == "C grows" and findings._heading(rec, "lemma7") in h["title"]
    assert f"the test rejects 'failure rate <= eps' at eps = {findings._fmt(low['eps'])}" in " ".join(h["sentences"])
