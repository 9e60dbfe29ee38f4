"""slt.measure.trial_cache: seeded trials stored on disk under everything that decides them; read back unchanged,
missed on any change of the inputs, the code or the libraries, a corrupt file ignored with a warning, and nothing
stored for a function the key cannot name."""
from __future__ import annotations

import functools
import json
import os
import shutil

import pytest

from slt.measure import trial_cache
from slt.measure.evidence import Case

CALLS: list = []


def toy_trial(seed: int, C: float, eps: float) -> Case:
    """A seeded 'trial': violated when the seed is divisible by 3 (counted in CALLS)."""
    CALLS.append(seed)
    return Case("toy", {"eps": eps}, seed, measured=seed * eps, bound=C, violated=seed % 3 == 0,
                widths={"n": seed + 1})


@pytest.fixture
def store(tmp_path, monkeypatch):
    folder = tmp_path / "trials"
    monkeypatch.setenv(trial_cache.ENV, str(folder))
    CALLS.clear()
    trial_cache.STATS.update(hits=0, computed=0)
    return folder


def test_a_stored_block_reads_back_unchanged(store):
    first = trial_cache.cases(toy_trial, 2.0, {"eps": 0.1}, 6, 5)
    assert CALLS == [6, 7, 8, 9, 10] and len(list(store.rglob("*.json"))) == 1
    again = trial_cache.cases(toy_trial, 2.0, {"eps": 0.1}, 6, 5)
    assert again == first and CALLS == [6, 7, 8, 9, 10]  # not computed again
    assert trial_cache.STATS == {"hits": 1, "computed": 1}
    assert [c.violated for c in again] == [True, False, False, True, False] and again[0].describe() == first[0].describe()


def test_a_real_trial_reads_back_unchanged(store):
    from slt.measure.statements import lueker

    first = trial_cache.cases(lueker.trial, 20.0, {"eps": 0.5}, 0, 3)
    assert trial_cache.cases(lueker.trial, 20.0, {"eps": 0.5}, 0, 3) == first
    assert trial_cache.STATS["hits"] == 1


@pytest.mark.parametrize("change", ["seed", "C", "a parameter", "the count", "the code", "NumPy's version"])
def test_any_change_of_what_decides_a_trial_misses(store, monkeypatch, change):
    args = dict(C=2.0, params={"eps": 0.1}, seed=6, trials=5)
    trial_cache.cases(toy_trial, **args)
    if change == "seed":
        args["seed"] = 7
    elif change == "C":
        args["C"] = 2.5
    elif change == "a parameter":
        args["params"] = {"eps": 0.2}
    elif change == "the count":
        args["trials"] = 6
    elif change == "the code":
        real = trial_cache.code_hash
        monkeypatch.setattr(trial_cache, "code_hash", lambda m, *a: real(m, *a) + ("x" if "test_" in m else ""))
    else:
        real = trial_cache.versions()
        monkeypatch.setattr(trial_cache, "versions", lambda: {**real, "numpy": "0.0"})
    trial_cache.cases(toy_trial, **args)
    assert trial_cache.STATS == {"hits": 0, "computed": 2}, change


def test_the_code_is_every_module_the_trial_imports(tmp_path):
    """A trial's code: its statement module, the measurement, the solver, the samplers and ``bounds/`` (its widths);
    an edit of any of them changes the hash, an edit of a module it does not import does not."""
    names = {p.relative_to(trial_cache.ROOT).as_posix() for p in trial_cache.closure("slt.measure.statements.lemma7")}
    assert {"slt/measure/statements/lemma7.py", "slt/subset_sum.py", "slt/_subset_sum_kernels.py",
            "slt/samplers.py", "bounds/subset_sum.py", "bounds/core.py", "slt/measure/sources.py"} <= names
    assert not names & {"slt/diff.py", "reports/diff.py", "slt/figures/fig4.py"}
    root = tmp_path / "copy"
    for package in ("slt", "bounds"):
        shutil.copytree(trial_cache.ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    module = "slt.measure.statements.lemma7"
    base = trial_cache.code_hash(module, root)
    (root / "slt" / "diff.py").write_text("# edited\n")
    trial_cache.code_hash.cache_clear()
    assert trial_cache.code_hash(module, root) == base
    (root / "bounds" / "subset_sum.py").write_text((root / "bounds" / "subset_sum.py").read_text() + "\n# edited\n")
    trial_cache.code_hash.cache_clear()
    assert trial_cache.code_hash(module, root) != base


def _body(path) -> dict:
    return json.loads(path.read_bytes().split(b"\n", 1)[1])


@pytest.mark.parametrize("damage", ["garbage", "changed result", "another key", "wrong shape",
                                    "re-signed by a checksum anyone can compute", "a FIFO"])
def test_a_corrupt_stored_block_is_ignored_with_a_warning_and_computed_again(store, damage):
    first = trial_cache.cases(toy_trial, 2.0, {"eps": 0.1}, 6, 5)
    (path,) = store.rglob("*.json")
    stored = _body(path)
    if damage == "garbage":
        path.write_text("{not json")
    elif damage == "changed result":
        raw = path.read_bytes()
        path.write_bytes(raw.replace(b'"violated":true', b'"violated":false', 1)
                         if b'"violated":true' in raw else raw.replace(b'"violated":false', b'"violated":true', 1))
    elif damage == "re-signed by a checksum anyone can compute":  # the old format: slt.cache.write_record
        from slt.cache import write_record
        stored["result"][0]["violated"] = not stored["result"][0]["violated"]
        write_record(path, stored)
    elif damage == "a FIFO":
        path.unlink()
        os.mkfifo(path)
    else:
        from slth_base import sealed

        if damage == "another key":
            stored["key"] = "0" * 24
        else:
            stored["result"][0]["extra"] = 1
        path.write_bytes(sealed.seal(trial_cache.KIND, stored))
    CALLS.clear()
    with pytest.warns(trial_cache.TrialCacheWarning, match=path.name):
        again = trial_cache.cases(toy_trial, 2.0, {"eps": 0.1}, 6, 5)
    assert again == first and CALLS == [6, 7, 8, 9, 10]
    CALLS.clear()
    assert trial_cache.cases(toy_trial, 2.0, {"eps": 0.1}, 6, 5) == first and CALLS == []  # rewritten


def test_functions_the_key_cannot_name_are_always_computed(store):
    """A lambda, a closure or a partial binding one (a planted solver, as the able-to-fail tests use) is never
    stored: its code is not in the key."""
    def weak(seed, C, eps):
        return toy_trial(seed, C, eps)

    for fn in (weak, lambda seed, C, eps: toy_trial(seed, C, eps), functools.partial(weak),
               functools.partial(toy_trial, eps=object())):
        assert trial_cache.key(fn, 1.0) is None
    assert trial_cache.key(functools.partial(toy_trial, eps=0.1), 1.0) is not None  # named: stored
    for fn in (weak, functools.partial(weak)):
        trial_cache.cases(fn, 2.0, {"eps": 0.1}, 0, 2)
        trial_cache.cases(fn, 2.0, {"eps": 0.1}, 0, 2)
    assert trial_cache.STATS["hits"] == 0 and not list(store.rglob("*.json"))


def test_off_when_unset_or_off(monkeypatch, tmp_path):
    monkeypatch.delenv(trial_cache.ENV, raising=False)
    assert trial_cache.directory() is None
    monkeypatch.setenv(trial_cache.ENV, "off")
    assert trial_cache.directory() is None
    CALLS.clear()
    trial_cache.cases(toy_trial, 2.0, {"eps": 0.1}, 0, 2)
    trial_cache.cases(toy_trial, 2.0, {"eps": 0.1}, 0, 2)
    assert CALLS == [0, 1, 0, 1]


def tuple_trial(seed: int, C: float, eps: float) -> Case:
    return Case("toy", {"eps": eps, "pair": (1, 2)}, seed, measured=eps, bound=C, widths={"n": (seed, seed + 1)})


def test_tuples_read_back_as_tuples(store):
    """A case holding tuples (Theorem 14's widths per block) is stored and reads back exactly, tuples and all."""
    first = trial_cache.cases(tuple_trial, 2.0, {"eps": 0.1}, 0, 2)
    again = trial_cache.cases(tuple_trial, 2.0, {"eps": 0.1}, 0, 2)
    assert trial_cache.STATS["hits"] == 1 and again == first and again[1].widths == {"n": (1, 2)}
