"""slt.cache: atomic writes, the one fingerprint scheme, checksummed records validated on read."""
import json
import os

import numpy as np
import pytest

from slt.cache import CorruptRecord, fingerprint, load_npz, read_record, save_npz, write_atomic, write_record


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


def test_records_roundtrip_and_refuse_what_they_cannot_vouch_for(tmp_path):
    path = tmp_path / "r.json"
    write_record(path, {"result": {"err": 0.5}, "seed": 3})
    assert read_record(path)["result"] == {"err": 0.5}
    body = json.loads(path.read_text())
    for text, problem in [(b"\xff\x00", "not JSON"), (b"[1]", "JSON object"), (b'{"checksum": "x"}', "'result'"),
                          (json.dumps({**body, "result": {"err": 0.6}}).encode(), "checksum mismatch")]:
        path.write_bytes(text)
        with pytest.raises(CorruptRecord, match=problem) as info:
            read_record(path)
        assert str(path) in str(info.value)
    with pytest.raises(FileNotFoundError):
        read_record(tmp_path / "none.json")


def test_one_fingerprint_scheme_for_every_cache():
    """The task cache, the figure targets and the report's caches all hash through slt.cache.fingerprint."""
    import inspect

    import slt.figures.targets
    import slt.tasks

    assert slt.tasks.fingerprint is fingerprint
    for module in (slt.tasks, slt.figures.targets):
        assert "hashlib" not in inspect.getsource(module)
    assert fingerprint(b"a", {"x": [1, 2]}) == fingerprint(b"a", {"x": (1, 2)})


def test_concurrent_atomic_writers_never_leave_a_torn_file(tmp_path):
    """Two processes rewriting one record many times: every read sees a whole record (xdist workers share caches)."""
    import multiprocessing as mp

    path = tmp_path / "r.json"
    write_record(path, {"result": {"v": 0}})
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_hammer, args=(str(path), k)) for k in (1, 2)]
    for p in procs:
        p.start()
    seen = 0
    while any(p.is_alive() for p in procs):
        assert read_record(path)["result"]["v"] in (0, 1, 2)
        seen += 1
    for p in procs:
        p.join()
        assert p.exitcode == 0
    assert seen > 0 and os.listdir(tmp_path) == ["r.json"]


def _hammer(path, k):
    for _ in range(200):
        write_record(path, {"result": {"v": k, "pad": "x" * 5000}})
