"""The default report reuses what did not change: the printed variants and the mutation suite are verified again
only when the key of ``reports.record.verified`` changes (bounds/, the verifier's libraries, the code that makes the rows),
and the deterministic empirical tasks come from committed results only for tasks with the same fingerprint."""
from __future__ import annotations

import json

from slth_base.sealed import unseal
from slt.tasks import Task, task_path

from reports.record import verified


def _counting():
    calls = []

    def rows():
        calls.append(1)
        return [{"statement": "lemma2", "verdict": "as expected", "n": len(calls)}]

    return rows, calls


def test_rows_are_computed_once_and_read_back_while_bounds_is_unchanged(tmp_path):
    rows, calls = _counting()
    first = verified.cached("variants", rows, tmp_path, committed=None)
    again = verified.cached("variants", rows, tmp_path, committed=None)
    assert first == again and len(calls) == 1
    stored = list((tmp_path / "verified").glob("variants-*.json"))
    problem, rec = unseal(stored[0].read_bytes(), verified.SEALED)  # sealed with this user's key
    assert len(stored) == 1 and problem is None and rec["key"] == verified.key("variants", rows)


def test_an_edit_of_bounds_or_a_library_upgrade_verifies_again(tmp_path, monkeypatch):
    rows, calls = _counting()
    verified.cached("mutations", rows, tmp_path, committed=None)
    monkeypatch.setattr(verified, "bounds_hash", lambda: "another bounds/")
    verified.cached("mutations", rows, tmp_path, committed=None)
    assert len(calls) == 2
    monkeypatch.setattr(verified, "package_version", lambda name: "99.0")
    verified.cached("mutations", rows, tmp_path, committed=None)
    assert len(calls) == 3


def test_a_committed_result_is_reused_on_another_patch_release_of_python_only(tmp_path, monkeypatch):
    """Committed under Python 3.11.7: reused under 3.11.2 (a patch release changes no arithmetic the verifier uses),
    verified again under 3.12.1 or with another SymPy (``slth_base.versions.python_release``)."""
    import platform

    from slt.cache import write_record

    rows, calls = _counting()
    monkeypatch.setattr(platform, "python_version", lambda: "3.11.7")
    committed = tmp_path / "committed"
    committed.mkdir()
    write_record(committed / "verified-variants.json",
                 {"part": "variants", "key": verified.key("variants", rows), "result": ["committed rows"]})
    monkeypatch.setattr(platform, "python_version", lambda: "3.11.2")
    assert verified.cached("variants", rows, None, committed=committed) == ["committed rows"] and not calls
    monkeypatch.setattr(platform, "python_version", lambda: "3.12.1")
    assert verified.cached("variants", rows, None, committed=committed) != ["committed rows"] and len(calls) == 1
    monkeypatch.setattr(platform, "python_version", lambda: "3.11.2")
    real = verified.package_version
    monkeypatch.setattr(verified, "package_version", lambda name: "0.0.1" if name == "sympy" else real(name))
    assert verified.cached("variants", rows, None, committed=committed) != ["committed rows"] and len(calls) == 2


def test_every_reuse_key_takes_python_by_its_major_minor(monkeypatch):
    """The verdict store's and the trial cache's keys too: 3.11.7 and 3.11.2 give one key, 3.12.1 another."""
    import platform

    from bounds.prove import verdict_cache
    from slt.measure import trial_cache

    def keys(version):
        monkeypatch.setattr(platform, "python_version", lambda: version)
        verdict_cache._VERSIONS.clear()
        trial_cache.versions.cache_clear()
        return verdict_cache.key_digest(("step",), code="code"), trial_cache.versions()

    try:
        assert keys("3.11.7") == keys("3.11.2") != keys("3.12.1")
    finally:
        verdict_cache._VERSIONS.clear()
        trial_cache.versions.cache_clear()


def test_the_key_covers_the_code_that_makes_the_rows():
    def one():
        return [1]

    def two():
        return [2]

    assert verified.key("variants", one) != verified.key("variants", two)
    assert verified.key("variants", one) != verified.key("mutations", one)


def test_a_corrupt_or_foreign_store_is_never_used(tmp_path):
    rows, calls = _counting()
    verified.cached("variants", rows, tmp_path, committed=None)
    path = next((tmp_path / "verified").glob("variants-*.json"))
    path.write_text("{not json")
    assert verified.cached("variants", rows, tmp_path, committed=None)[0]["n"] == 2
    committed = tmp_path / "committed"
    committed.mkdir()
    (committed / "verified-variants.json").write_text(json.dumps(
        {"part": "variants", "key": "made by another tree", "result": [{"n": -1}],
         "checksum": "x"}))
    assert verified.cached("variants", rows, None, committed=committed)[0]["n"] == 3  # wrong key, bad checksum


def test_committed_task_results_are_used_only_for_identical_tasks(tmp_path):
    from slt.measure import empirical

    task = Task(kind="empirical:search:lemma12", fn="slt.measure.empirical:rate", params={"a": 1}, seed=0)
    other = Task(kind="empirical:search:lemma12", fn="slt.measure.empirical:rate", params={"a": 2}, seed=0)
    committed, cache = tmp_path / "committed", tmp_path / "cache"
    src = task_path(committed, task)
    src.parent.mkdir(parents=True)
    src.write_text('{"result": 1}')
    assert empirical.seed_cache([task, other], cache, committed) == 1
    assert task_path(cache, task).read_text() == '{"result": 1}' and not task_path(cache, other).exists()
    assert empirical.seed_cache([task], cache, committed) == 0  # a cached result is never overwritten


def test_the_default_plan_leaves_the_rates_out_only_when_asked(monkeypatch, tmp_path):
    import pytest

    from slt.measure import calibration, empirical

    class Planned(Exception):
        pass

    def capture(task_list, **kw):
        raise Planned([t.kind for t in task_list])

    monkeypatch.setattr(empirical, "execute", capture)
    cal = calibration.load()
    kinds = {}
    for rates in (True, False):
        with pytest.raises(Planned) as got:
            empirical.measure("quick", 0, cal, cache_dir=tmp_path, rates=rates)
        kinds[rates] = got.value.args[0]
    assert any(k.startswith("empirical:rate:") for k in kinds[True])
    assert not any(k.startswith("empirical:rate:") for k in kinds[False])
    assert set(kinds[False]) == {k for k in kinds[True] if not k.startswith("empirical:rate:")}


def test_the_committed_rows_live_beside_the_committed_empirical_record():
    from slt.measure import committed, empirical

    assert verified.COMMITTED == committed.PATH.parent == empirical.COMMITTED_TASKS.parent
    assert (verified.COMMITTED / "verified-variants.json").exists()
    assert (verified.COMMITTED / "verified-mutations.json").exists()


def test_the_committed_rows_are_those_of_this_tree():
    """A fresh clone's report reads the committed rows only under this tree's key (bounds/, the libraries, the code
    that makes them, and for Coq the exported and compiled texts): rows made from another tree would be verified or
    compiled again, minutes of CPU without a word, and the Coq replay tests (tests/test_coq.py,
    tests/test_coq_math.py) compare with the committed kernel and Lemma 12 results only when those keys match.  After
    an edit of bounds/, ``python -m reports.record.verified`` makes them again."""
    from reports.record.suites import mutations, variants
    from slt.cache import read_record

    want = {"variants": verified.key("variants", variants), "mutations": verified.key("mutations", mutations),
            "kernel": verified.kernel_key(), "lemma12": verified.lemma12_key()}
    for part, key in want.items():
        stored = read_record(verified.COMMITTED / f"verified-{part}.json")
        assert stored["key"] == key, (f"slt/measure/committed/verified-{part}.json was made from another tree: "
                                      "run python -m reports.record.verified")
