"""slt.cache: atomic writes, per-(configuration, seed) results, resume after an interruption."""
import io
import json
import os

import numpy as np
import pytest

from slt.cache import Progress, ResultCache, load_npz, run, save_npz, write_atomic


def test_write_atomic_replaces_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "sub" / "a.json"
    write_atomic(path, "old")
    write_atomic(path, b"new")
    assert path.read_text() == "new"
    assert os.listdir(path.parent) == ["a.json"]


def test_write_atomic_failure_keeps_old_file(tmp_path):
    path = tmp_path / "a.txt"
    write_atomic(path, "old")
    with pytest.raises(TypeError):
        write_atomic(path, 12345)  # not str/bytes: fails while writing the temporary file
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["a.txt"]


def test_npz_roundtrip(tmp_path):
    save_npz(tmp_path / "w.npz", W=np.arange(6.0).reshape(2, 3), s=np.float64(0.5))
    data = load_npz(tmp_path / "w.npz")
    np.testing.assert_array_equal(data["W"], np.arange(6.0).reshape(2, 3))
    assert float(data["s"]) == 0.5


def test_cache_keys_by_configuration_and_seed(tmp_path):
    cache = ResultCache(tmp_path)
    a, b = {"n": 4, "init": "theory"}, {"init": "theory", "n": 6}
    cache.put(a, 0, {"err": 1.0})
    assert cache.get({"init": "theory", "n": 4}, 0) == {"err": 1.0}  # key order does not matter
    assert cache.get(a, 1) is None and cache.get(b, 0) is None
    cache.path(a, 0).write_text("{ truncated")
    assert cache.get(a, 0) is None
    with pytest.raises(ValueError, match="JSON"):
        cache.put({"x": object()}, 0, {})


class Interrupt(Exception):
    pass


def test_resume_computes_only_the_rest(tmp_path):
    cache = ResultCache(tmp_path)
    items = [({"n": n}, s) for n in (2, 4, 6) for s in range(4)]
    calls = []

    def compute(config, seed, stop_after=None):
        if stop_after is not None and len(calls) == stop_after:
            raise Interrupt
        calls.append((config["n"], seed))
        return {"value": config["n"] * 10 + seed}

    k = 5
    with pytest.raises(Interrupt):
        run(cache, items, lambda c, s: compute(c, s, stop_after=k), stream=io.StringIO())
    assert len(calls) == k
    first = list(calls)
    stream = io.StringIO()
    results = run(cache, items, compute, label="t", stream=stream)
    assert len(calls) == len(items)  # the k stored items were not recomputed
    assert calls[k:] == [(c["n"], s) for c, s in items[k:]] and calls[:k] == first
    assert results == [{"value": c["n"] * 10 + s} for c, s in items]
    assert f"{len(items)}/{len(items)}" in stream.getvalue() and f"{k} cached" in stream.getvalue()
    run(cache, items, compute, stream=io.StringIO())
    assert len(calls) == len(items)
    assert json.loads(cache.path(*items[0]).read_text())["config"] == items[0][0]


def test_progress_line_has_counts_and_eta():
    out = io.StringIO()
    p = Progress(3, "sweep", stream=out, every=0.0)
    p.update()
    p.update(skipped=True)
    assert "2/3" in out.getvalue() and "ETA" in out.getvalue() and "1 cached" in out.getvalue()
    p.close()
    assert out.getvalue().endswith("\n")


def test_write_atomic_gives_ordinary_permissions(tmp_path):
    mask = os.umask(0o022)
    try:
        write_atomic(tmp_path / "r.html", "x")
    finally:
        os.umask(mask)
    assert (tmp_path / "r.html").stat().st_mode & 0o777 == 0o644
