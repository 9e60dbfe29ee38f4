"""bounds.prove.verdict_cache: verdicts kept on disk between processes, keyed on everything that decides them; a stored
verdict is read back only under the same key, a corrupt file is ignored with a warning, and after a one-constant
edit only the steps the edit changed are verified again."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import warnings

import pytest
import sympy as sp

import bounds
import importlib

from bounds.prove import verdict_cache, verdict_json
from slth_base import sealed
from bounds.core import Param, Step
from bounds.prove.mutations import catalogue_with
from bounds.symbols import d1, eps

verify = importlib.import_module("bounds.prove.verify")  # the module (the package exports its function verify)
DOMAIN = (Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True), Param("d1", lo=(1,), integer=True,
                                                                              box=(1, 64)))
STEP = Step("toy", eps / d1, eps)


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A fresh folder of stored verdicts, an empty per-process cache and zeroed counts."""
    folder = tmp_path / "verdicts"
    monkeypatch.setenv(verdict_cache.ENV, str(folder))
    monkeypatch.setattr(verify, "_RESULTS", {})
    verdict_cache.reset_stats()
    yield folder
    verdict_cache.reset_stats()


def _fresh(monkeypatch):
    """Forget this process's verdicts (as a new process would) and zero the counts."""
    monkeypatch.setattr(verify, "_RESULTS", {})
    verdict_cache.reset_stats()


def test_a_stored_verdict_is_read_back_unchanged(store, monkeypatch):
    first = verify.verify_step("toy", STEP, DOMAIN)
    assert first.verdict == "certified" and verdict_cache.STATS["verified"] == 1
    assert len(list(store.rglob("*.json"))) == 1
    _fresh(monkeypatch)
    again = verify.verify_step("toy", STEP, DOMAIN)
    assert again == first
    assert verdict_cache.STATS == {"hits": 1, "verified": 0, "steps": []}


def test_a_refuted_verdict_keeps_its_counterexample(store, monkeypatch):
    wrong = Step("toy-wrong", eps, eps / d1)  # false for d1 >= 2
    first = verify.verify_step("toy", wrong, DOMAIN)
    assert first.verdict == "refuted" and first.counterexample
    _fresh(monkeypatch)
    assert verify.verify_step("toy", wrong, DOMAIN) == first and verdict_cache.STATS["hits"] == 1


@pytest.mark.parametrize("change", ["a side", "a domain bound", "an open end", "the verifier's source",
                                    "SymPy's version", "the stage work budget"])
def test_any_change_of_what_decides_a_verdict_misses(store, monkeypatch, change):
    verify.verify_step("toy", STEP, DOMAIN)
    _fresh(monkeypatch)
    step, params = STEP, DOMAIN
    if change == "a side":
        step = Step("toy", eps / d1, 2 * eps)
    elif change == "a domain bound":
        params = (dataclasses.replace(DOMAIN[0], hi=(2,)), DOMAIN[1])
    elif change == "an open end":
        params = (dataclasses.replace(DOMAIN[0], hi_open=False), DOMAIN[1])
    elif change == "the verifier's source":
        monkeypatch.setitem(verdict_cache._CODE, verdict_cache.HERE, "another verifier")
    elif change == "SymPy's version":
        versions = dict(verdict_cache.versions())
        monkeypatch.setattr(verdict_cache, "_VERSIONS", [tuple({**versions, "sympy": "0.0"}.items())])
    else:
        monkeypatch.setattr(verify.verify_domain, "STAGE_CALLS", verify.verify_domain.STAGE_CALLS + 1)
    verify.verify_step("toy", step, params)
    assert verdict_cache.STATS["hits"] == 0 and verdict_cache.STATS["verified"] == 1, change


def test_the_key_names_both_sides_the_domain_the_code_and_the_libraries():
    dom = verify.Domain(STEP, DOMAIN)
    key = verify.verdict_key(STEP, dom)
    base = verdict_cache.key_digest(key)
    assert verdict_cache.key_digest(key) == base  # deterministic
    other_step = Step("toy", eps / d1, 2 * eps)
    assert verdict_cache.key_digest(verify.verdict_key(other_step, verify.Domain(other_step, DOMAIN))) != base
    assert verdict_cache.key_digest(key, code="edited") != base
    assert verdict_cache.key_digest(key, libraries=(("sympy", "0.0"),)) != base


@pytest.mark.parametrize("damage", ["garbage", "truncated", "changed body", "another key", "wrong shape",
                                    "a link", "a FIFO"])
def test_a_corrupt_stored_verdict_is_ignored_with_a_warning_and_verified_again(store, monkeypatch, damage):
    first = verify.verify_step("toy", STEP, DOMAIN)
    (path,) = store.rglob("*.json")
    raw = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"\x00not a verdict")
    elif damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "changed body":
        path.write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))
    elif damage == "a link":
        (store / "elsewhere.json").write_bytes(raw)
        path.unlink()
        path.symlink_to(store / "elsewhere.json")
    elif damage == "a FIFO":
        path.unlink()
        os.mkfifo(path)
    else:  # a well-formed file, sealed by this harness, that does not hold this step's verdict
        value = {"format": verdict_cache.FORMAT, "key": "0" * 64, "value": verdict_json.encode(verify._RESULTS[
            next(iter(verify._RESULTS))])} if damage == "another key" else {
            "format": verdict_cache.FORMAT, "key": path.stem, "value": verdict_json.encode(("certified", True))}
        path.write_bytes(sealed.seal(verdict_cache.KIND, value))
    _fresh(monkeypatch)
    with pytest.warns(verdict_cache.VerdictCacheWarning, match=str(path.name)) as caught:
        again = verify.verify_step("toy", STEP, DOMAIN)
    assert len([w for w in caught if issubclass(w.category, verdict_cache.VerdictCacheWarning)]) == 1
    assert again == first and verdict_cache.STATS["verified"] == 1 and verdict_cache.STATS["hits"] == 0
    assert path.is_file() and not path.is_symlink()  # replaced by a regular file, never written through
    _fresh(monkeypatch)  # rewritten: read back cleanly now
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert verify.verify_step("toy", STEP, DOMAIN) == first
    assert verdict_cache.STATS["hits"] == 1


FALSE = Step("toy-false", 2 * d1, d1)  # false for every d1 >= 1


def _forge(store, digest: str, body: bytes, header: bytes) -> None:
    path = store / digest[:2] / f"{digest}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + body)


@pytest.mark.parametrize("forgery", ["pickle re-signed by its SHA-256", "JSON re-signed by its SHA-256",
                                     "JSON sealed with another user's key"])
def test_a_forged_entry_runs_no_code_and_never_certifies_a_false_step(store, monkeypatch, tmp_path, forgery):
    """An entry anyone who can write the store can compute (the old format's SHA-256 of its own body, or a seal
    under a key that is not this user's) is refused: nothing in it runs, and the false step is refuted again."""
    dom = verify.Domain(FALSE, DOMAIN)
    digest = verdict_cache.key_digest(verify.verdict_key(FALSE, dom))
    verdict = ("symbolic", True, "forged", {}, None, "whole", 1.0, None, "")
    ran = tmp_path / "ran"
    if forgery.startswith("pickle"):
        import pickle

        class Payload:
            def __reduce__(self):
                return (open, (str(ran), "w"))
        body = pickle.dumps({"key": digest, "value": verdict, "payload": Payload()})
        _forge(store, digest, body, b"SLTH-VERDICT 1\n" + hashlib.sha256(body).hexdigest().encode() + b"\n")
        old = store / digest[:2] / f"{digest}.pkl"  # where the pickled store kept it: never read now
        old.write_bytes((store / digest[:2] / f"{digest}.json").read_bytes())
    elif forgery.startswith("JSON re-signed"):
        body = json.dumps({"format": verdict_cache.FORMAT, "key": digest,
                           "value": verdict_json.encode(verdict)}).encode()
        _forge(store, digest, body, sealed.MAGIC + verdict_cache.KIND.encode() + b" "
               + hashlib.sha256(body).hexdigest().encode() + b"\n")
    else:
        monkeypatch.setattr(sealed, "_KEY", [b"k" * 32])  # another user's key
        raw = sealed.seal(verdict_cache.KIND, {"format": verdict_cache.FORMAT, "key": digest,
                                               "value": verdict_json.encode(verdict)})
        monkeypatch.undo()
        monkeypatch.setenv(verdict_cache.ENV, str(store))
        _forge(store, digest, raw, b"")
    _fresh(monkeypatch)
    with pytest.warns(verdict_cache.VerdictCacheWarning, match=digest):
        r = verify.verify_step("toy", FALSE, DOMAIN)
    assert r.verdict == "refuted" and verdict_cache.STATS["hits"] == 0
    assert not ran.exists(), "the stored entry ran code"


def test_an_unsearched_result_is_kept_apart_and_never_read_as_a_verdict(store, monkeypatch):
    """``verify_step(search=False)`` on a step no certificate proves stores its result as a kind of its own: read
    back by the next ``search=False`` (nothing verified again), never by the full verifier, not even when its sealed
    file is put where the verdict would be; and a record of that kind that says certified or refuted is refused."""
    unsearched = ("unsearched", False, "not certified (planted); no counterexample searched for", {}, None, "sampled",
                  None, None, "")
    dom = verify.Domain(FALSE, DOMAIN)
    key = verify.verdict_key(FALSE, dom)
    verdict_cache.store_unsearched(key, unsearched)
    (path,) = store.rglob("*.json")
    monkeypatch.setattr(verify, "_UNSEARCHED_RESULTS", {})
    with monkeypatch.context() as m:
        m.setattr(verify, "_verify", lambda *a, **k: pytest.fail("verified again"))
        assert verify.verify_step("toy", FALSE, DOMAIN, search=False).method == verify.UNSEARCHED
    assert verdict_cache.load(key) is None and verdict_cache.STATS["hits"] == 0
    as_verdict = store / (d := verdict_cache.key_digest(key))[:2] / f"{d}.json"
    as_verdict.parent.mkdir(exist_ok=True)
    shutil.copy(path, as_verdict)
    with pytest.warns(verdict_cache.VerdictCacheWarning, match=d):
        assert verify.verify_step("toy", FALSE, DOMAIN).verdict == "refuted"
    for claim in (("symbolic", True, "forged", {}, None, "whole", 1.0, None, ""),
                  ("unsearched", False, "forged", {}, {"eps": "1/2", "d1": "2"}, "sampled", None, None, "")):
        value = {"format": verdict_cache.FORMAT, "key": path.stem, "value": verdict_json.encode(claim)}
        path.write_bytes(sealed.seal(verdict_cache.UNSEARCHED_KIND, value))
        with pytest.warns(verdict_cache.VerdictCacheWarning, match="not an unsearched result"):
            assert verdict_cache.load_unsearched(key) is None


def test_a_verdict_round_trips_through_json_exactly():
    """Every verdict of a statement with interval certificates comes back from its JSON form equal, and decoding
    accepts no class outside SymPy's expressions and the certificate's."""
    r = next(r for r in bounds.verify("lemma2") if r.certificate)
    value = (r.method, r.ok, r.detail, r.box, r.counterexample, r.domain, r.margin, r.certificate, r.arb)
    assert verdict_json.decode(json.loads(json.dumps(verdict_json.encode(value)))) == value
    for bad in ({"s": {"n": "Symbol", "args": []}}, {"s": {"n": "sympify", "args": []}},
                {"c": "Popen", "v": {}}, {"s": {"n": "__import__", "args": []}}, {"x": 1}):
        with pytest.raises(ValueError):
            verdict_json.decode(bad)


def test_where_the_verdicts_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv(verdict_cache.ENV, "off")
    assert verdict_cache.directory() is None
    monkeypatch.setenv(verdict_cache.ENV, str(tmp_path / "v"))
    assert verdict_cache.directory() == tmp_path / "v"
    monkeypatch.delenv(verdict_cache.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert verdict_cache.directory() == tmp_path / "xdg" / "slth-harness" / "verdicts"


def test_the_verifier_code_is_every_module_it_imports_but_not_the_statements(tmp_path):
    """The hash covers verify.py and what it imports (verify_*.py, recheck, corners, evaluate, core, facts, ...),
    read from the files: an edit of a verifier module changes it, an edit of a statement's constants does not."""
    names = {p.name for p in verdict_cache.verifier_files()}
    assert {"verify.py", "verify_domain.py", "verify_interval.py", "verify_search.py", "verify_symbolic.py",
            "recheck.py", "corners.py", "evaluate.py", "core.py", "facts.py"} <= names
    assert not names & {"catalogue.py", "attention.py", "subset_sum.py", "theorem14.py", "softmax.py"}
    copy = tmp_path / "bounds"
    shutil.copytree(verdict_cache.HERE, copy, ignore=shutil.ignore_patterns("__pycache__", "coq"))
    prove = copy / "prove"
    base = verdict_cache.verifier_hash(copy)
    (copy / "attention.py").write_text((copy / "attention.py").read_text() + "\n# a constant edited\n")
    verdict_cache._CODE.pop(copy, None)
    assert verdict_cache.verifier_hash(copy) == base
    (prove / "verify_search.py").write_text((prove / "verify_search.py").read_text() + "\n# the search edited\n")
    verdict_cache._CODE.pop(copy, None)
    assert verdict_cache.verifier_hash(copy) != base
    (prove / "verify_new.py").write_text("X = 1\n")  # a new module the verifier imports joins the hash
    (prove / "verify.py").write_text((prove / "verify.py").read_text() + "\nfrom .verify_new import X\n")
    verdict_cache._CODE.pop(copy, None)
    assert (prove / "verify_new.py") in verdict_cache.verifier_files(copy)


def test_after_a_one_constant_edit_only_the_changed_steps_are_verified_again(store, monkeypatch):
    """Theorem 9's n_K logarithm 8 -> 16 (a looser constant): of Theorems 9 and 11 (which builds on Theorem 9's
    widths) exactly the steps whose inequality the edit changes are verified again; every other verdict is read
    back from disk."""
    names = ("theorem9", "theorem11")
    before = {n: bounds.verify(n) for n in names}
    _fresh(monkeypatch)
    n_K = bounds.get("theorem9").widths["n_K"]
    (log,) = [a for a in n_K.atoms(sp.log)]
    edited = catalogue_with()
    edited["theorem9"] = dataclasses.replace(edited["theorem9"], widths={
        **edited["theorem9"].widths, "n_K": n_K.xreplace({log: sp.log(2 * log.args[0])})})
    after = {n: bounds.verify(n, edited) for n in names}
    old_steps = {(n, s.name): (s.lhs, s.rhs) for n in names for s in bounds.proof(n)}
    new_steps = {(n, s.name): (s.lhs, s.rhs) for n in names for s in bounds.proof(n, edited)}
    changed = {k for k in new_steps if new_steps[k] != old_steps.get(k)}
    assert changed and len(changed) < len(new_steps) / 2, changed  # the edit reaches a few steps only
    verified = [tuple(s.split(":", 1)) for s in verdict_cache.STATS["steps"]]
    assert {v for v in verified if v[0] in names} == changed
    subs = [v for v in verified if v[0] not in names]  # sub-steps (a cancelled factor, a fact's argument)
    assert all(v[0] == "" and any(v[1].startswith(step + "[") for _, step in changed) for v in subs), subs
    assert verdict_cache.STATS["hits"] >= len(new_steps) - len(changed)
    unchanged = [(a, b) for n in names for a, b in zip(before[n], after[n]) if (n, a.step) not in changed]
    assert unchanged and all(a == b for a, b in unchanged)
