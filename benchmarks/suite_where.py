"""Where a test run's time goes, for ``benchmarks/bench_suite.py --where``: installed in every Python process of the
run (``install``, called by a ``sitecustomize`` put first on ``PYTHONPATH``; a process started with a ``PYTHONPATH``
of its own is not seen), it appends one JSON line per unit of work to ``$SLTH_SUITE_LOG``:

- ``verify``: a step's verification computed (``bounds.prove.verify._verify``, called only when no cache holds the
  verdict): the digest of its key, CPU seconds, calls counted by the work meter;
- ``trial``: a block of seeded trials computed (``slt.measure.trial_cache._call`` when it computed);
- ``prover``: an external prover run (``bounds.prove.external.run``): a digest of its program and of every ``.v``
  file it names, wall seconds (a wait for a free slot included).

``summary`` adds them up and counts what was computed again: a key (a digest) seen before in the run."""
from __future__ import annotations

import json
import os
import sys
import time

ENV = "SLTH_SUITE_LOG"


def _log(kind: str, **fields) -> None:
    fields.update(kind=kind, test=os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0], pid=os.getpid())
    with open(os.environ[ENV], "a", encoding="utf-8") as fh:  # one short line per write: appends do not interleave
        fh.write(json.dumps(fields) + "\n")


def _verify(module) -> None:
    compute = module._verify

    def _verify(step, dom, params, search):
        from bounds.prove import verdict_cache, verify_domain

        cpu, calls = time.process_time(), verify_domain.work_done()
        try:
            return compute(step, dom, params, search)
        finally:
            _log("verify", key=verdict_cache.key_digest(module.verdict_key(step, dom)), step=step.name,
                 cpu_s=time.process_time() - cpu, calls=verify_domain.work_done() - calls)
    module._verify = _verify


def _trials(module) -> None:
    call = module._call

    def _call(fn, args, kwargs, compute):
        before, cpu = module.STATS["computed"], time.process_time()
        try:
            return call(fn, args, kwargs, compute)
        finally:
            if module.STATS["computed"] > before:
                _log("trial", key=module.key(fn, *args, **kwargs), cpu_s=time.process_time() - cpu)
    module._call = _call


def _prover(module) -> None:
    run = module.run

    def _run(name, argv, cwd, *args, **kwargs):
        import hashlib

        digest = hashlib.sha256(str(argv[0]).encode())
        for a in argv:
            if str(a).endswith(".v"):
                try:
                    with open(os.path.join(str(cwd or "."), str(a)), "rb") as fh:
                        digest.update(fh.read())
                except OSError as exc:  # a file the prover will not find either: its name and why, not nothing
                    digest.update(f"unreadable {a}: {exc.strerror}".encode())
        start = time.perf_counter()
        try:
            return run(name, argv, cwd, *args, **kwargs)
        finally:
            _log("prover", key=digest.hexdigest()[:20], program=name, wall_s=time.perf_counter() - start)
    module.run = _run


PATCHES = {"bounds.prove.verify": _verify, "slt.measure.trial_cache": _trials, "bounds.prove.external": _prover}


def install() -> None:
    """Wrap the three functions as their modules are first imported (nothing is imported here)."""
    import importlib.abc
    import importlib.machinery

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):  # the three are submodules: found on their package's path
            spec = importlib.machinery.PathFinder.find_spec(name, path, target) if name in PATCHES else None
            if spec is not None:
                load = spec.loader.exec_module

                def exec_module(module, load=load):
                    load(module)
                    PATCHES[name](module)
                spec.loader.exec_module = exec_module
            return spec

    if os.environ.get(ENV):
        sys.meta_path.insert(0, Finder())


def summary(path) -> dict:
    """Per kind: how many units, their seconds (CPU for verifications and trials, wall for prover runs), the counted
    calls (verifications), and the seconds spent on keys computed before in the run (``again_s``), with the tests that
    spent most of them (``again_by``)."""
    out: dict = {}
    seen: set = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            k = out.setdefault(row["kind"], {"n": 0, "seconds": 0.0, "again_s": 0.0, "again_by": {}})
            s = row.get("cpu_s", row.get("wall_s", 0.0))
            k["n"] += 1
            k["seconds"] += s
            if "calls" in row:
                k["calls"] = k.get("calls", 0) + row["calls"]
            key = (row["kind"], row.get("key"))
            if row.get("key") is not None and key in seen:
                k["again_s"] += s
                k["again_by"][row["test"]] = k["again_by"].get(row["test"], 0.0) + s
            seen.add(key)
    for k in out.values():
        k["seconds"], k["again_s"] = round(k["seconds"], 1), round(k["again_s"], 1)
        k["again_by"] = {t: round(s, 1) for t, s in sorted(k["again_by"].items(), key=lambda kv: -kv[1])[:5]}
    return out
