"""One task model for every sweep: independent, cacheable tasks executed by dask.distributed.

A ``Task`` names what is computed (``kind``), the function that computes it (``fn``: a module-level function, stored
as its name ``"package.module:function"``, which is what is fingerprinted and sent to the workers; called as
``function(seed=seed, **params)`` and returning a JSON-able dict), its JSON-able ``params`` and its ``seed``. ``execute(tasks)`` returns the results in task order:

- **Cache.** One file per task under ``cache_dir/<kind>/<fingerprint>.json``, written atomically by the client as
  each result arrives (workers need no shared file system), so an interrupted run resumes with nothing computed
  twice. The fingerprint covers the kind, the function, the parameters, the seed and the SOURCE of the code the
  task depends on (the function's module, the modules listed in its module's ``TASK_DEPENDS`` and in
  ``Task.deps``; a package name covers every ``.py`` file under it): edited code is recomputed, never mixed in.
  Duplicate tasks in one call are computed once.
- **Validated on read.** A cache file that is not JSON, not an object, lacks ``result``, has a checksum that does
  not match, belongs to another task, holds a NaN or infinity, or does not match the schema the task function
  declares with ``@returns(...)`` (e.g. a string where a number is expected), or holds a value that makes no sense
  (a negative count, failures > trials, a probability outside [0, 1]: ``COUNTS``, ``RATES``) is recomputed with a
  ``CacheWarning`` naming the file and the problem: never used, never a crash.
- **Where it runs.** Default: a ``distributed.LocalCluster`` on 127.0.0.1 with one single-threaded worker process
  per core (``workers=N`` to choose). ``scheduler="tcp://HOST:PORT"`` (or the environment variable
  ``SLTH_SCHEDULER``) uses a running Dask cluster (``dask scheduler`` + ``dask worker ADDRESS --nthreads 1`` on
  every node); ``workers=0`` or ``scheduler="synchronous"`` runs in this process (tests and tiny runs). Inside
  ``with cluster(...):`` every ``execute`` shares one client (no cluster start per call).
- **Threads.** Each worker's Numba kernels get ``cores / (worker threads on that host)`` threads
  (``numba.set_num_threads`` in the task wrapper; ``NUMBA_NUM_THREADS``, ``OMP_NUM_THREADS`` and the BLAS
  variables are set in a LocalCluster's worker processes), so workers do not oversubscribe the cores.
- **Progress.** A tqdm bar on stderr (done/total, rate, ETA; cached tasks counted at the start).
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import importlib
import importlib.util
import json
import logging
import math
import os
import re
import socket
import sys
import time
import warnings
from pathlib import Path

from tqdm.auto import tqdm

from slth_base import settings
from slt.cache import CorruptRecord, fingerprint, nonfinite_path, read_record, write_record
from slt.inputs import THREADS_ENV, InputError, numba_threads

__all__ = ["Task", "execute", "function_name", "resolve", "fingerprint", "code_fingerprint", "returns", "cluster",
           "CacheWarning", "task_path", "SCHEDULER_ENV", "set_worker_threads"]

SCHEDULER_ENV = "SLTH_SCHEDULER"
FORMAT = 1


class CacheWarning(UserWarning):
    """A cache record was unusable and is being recomputed."""


@dataclasses.dataclass(frozen=True)
class Task:
    """One independent unit of work: ``fn(seed=seed, **params)`` -> JSON-able dict. ``fn``: the function (a
    module-level one; stored as ``function_name(fn)``) or its ``"package.module:function"`` name."""

    kind: str
    fn: str
    params: dict
    seed: int
    deps: tuple = ()
    """Extra module (or package) names whose source the result depends on (besides ``fn``'s module)."""

    def __post_init__(self):
        if callable(self.fn):
            object.__setattr__(self, "fn", function_name(self.fn))
        if not re.fullmatch(r"[A-Za-z0-9_.]+:[A-Za-z0-9_]+", self.fn or ""):
            raise ValueError(f"Task.fn must be 'package.module:function', got {self.fn!r}")
        if not isinstance(self.params, dict):
            raise ValueError(f"Task.params must be a dict, got {type(self.params).__name__}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ValueError(f"Task.seed must be an int, got {self.seed!r}")

    def fingerprint(self) -> str:
        return fingerprint(FORMAT, self.kind, self.fn, self.params, self.seed, code_fingerprint(*self.modules()))

    def modules(self) -> tuple:
        module = self.fn.split(":")[0]
        declared = getattr(importlib.import_module(module), "TASK_DEPENDS", ())
        return tuple(dict.fromkeys((module, *declared, *self.deps)))

    def function(self):
        return resolve(self.fn)


def function_name(fn) -> str:
    """``"package.module:function"`` of a module-level function (the one place a task's function becomes a name)."""
    return f"{fn.__module__}:{fn.__qualname__}"


def resolve(fn: str):
    """The function named ``"package.module:function"`` (imported by name: a task's function is known by its name
    on the workers and in the cache)."""
    module, name = fn.split(":")
    try:
        return getattr(importlib.import_module(module), name)
    except AttributeError:
        raise ValueError(f"Task.fn {fn!r}: module {module} has no function {name}") from None


# --------------------------------------------------------------------------------------------- fingerprints

@functools.lru_cache(maxsize=None)
def _source_digest(name: str) -> str:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ValueError(f"no module or package named {name!r} to fingerprint")
    origin = Path(spec.origin)
    if spec.submodule_search_locations:  # a package: every .py file under it
        return fingerprint([[str(p.relative_to(loc)), p.read_bytes()]
                            for loc in map(Path, spec.submodule_search_locations) for p in sorted(loc.rglob("*.py"))])
    return fingerprint(origin.read_bytes())


def code_fingerprint(*modules: str) -> str:
    """The fingerprint of the source of ``modules`` (dotted names; a package covers every .py file under it)."""
    return fingerprint(sorted([m, _source_digest(m)] for m in set(modules)))


# -------------------------------------------------------------------------------------------------- schema

def returns(**schema):
    """Declare the fields of a task function's result and their types, checked on every cache read and fresh
    result: ``@returns(failures=int, upper=float, C_point=(float, None), widths=dict)``. ``float`` accepts ints;
    numbers must be finite; a tuple lists the allowed types (``None`` for null)."""
    def mark(fn):
        fn.__slth_schema__ = schema
        return fn

    return mark


def _type_ok(value, allowed) -> bool:
    for t in allowed if isinstance(allowed, tuple) else (allowed,):
        if t is None and value is None:
            return True
        if t is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return math.isfinite(value)
        if t is int and isinstance(value, int) and not isinstance(value, bool):
            return True
        if t in (str, bool, list, dict) and isinstance(value, t):
            return True
    return False


def _problem(result, fn) -> str | None:
    """Why ``result`` is not a valid result of ``fn`` (None when it is)."""
    if not isinstance(result, dict):
        return f"the result is a {type(result).__name__}, not an object"
    bad = nonfinite_path(result)
    if bad and not getattr(fn, "__slth_allow_nonfinite__", False):
        return f"{bad} is not a finite number"
    for key, allowed in getattr(fn, "__slth_schema__", {}).items():
        if key not in result:
            return f"result.{key} is missing"
        if not _type_ok(result[key], allowed):
            names = "/".join("null" if t is None else t.__name__ for t in (allowed if isinstance(allowed, tuple) else (allowed,)))
            return f"result.{key} = {result[key]!r} is not a {names}"
    return _value_problem(result)


COUNTS = ("failures", "trials")
"""Result fields that count (integers >= 0, failures <= trials) wherever a task returns them."""
RATES = ("upper", "rate", "pvalue")
"""Result fields that are probabilities (in [0, 1]) wherever a task returns them."""


def _value_problem(result: dict) -> str | None:
    """Values that make no sense although their types do (a forged entry with a valid checksum, say)."""
    for key in COUNTS:
        v = result.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
            return f"result.{key} = {v!r} is negative (a count)"
    failures, trials = result.get("failures"), result.get("trials")
    if isinstance(failures, int) and isinstance(trials, int) and failures > trials:
        return f"result.failures = {failures} exceeds result.trials = {trials}"
    for key in RATES:
        v = result.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and not 0 <= v <= 1:
            return f"result.{key} = {v!r} is not in [0, 1]"
    return None


# --------------------------------------------------------------------------------------------------- cache

def task_path(cache_dir, task: Task, key: str | None = None) -> Path:
    kind = re.sub(r"[^A-Za-z0-9_.-]+", "_", task.kind) or "task"
    return Path(cache_dir) / kind / f"{key or task.fingerprint()}.json"


def _identity(task: Task, key: str) -> dict:
    return {"format": FORMAT, "kind": task.kind, "fn": task.fn, "params": json.loads(json.dumps(task.params)),
            "seed": task.seed, "key": key}


def _load(path: Path, task: Task, key: str, fn):
    """The cached result of ``task``, or None (missing, or unusable: then a CacheWarning says why)."""
    try:
        record = read_record(path)
    except FileNotFoundError:
        return None
    except (CorruptRecord, OSError) as exc:
        problem = str(exc)
    else:
        if any(record.get(k) != v for k, v in _identity(task, key).items()):
            problem = f"{path}: the record belongs to another task"
        elif bad := _problem(record["result"], fn):
            problem = f"{path}: {bad}"
        else:
            return record["result"]
    warnings.warn(f"{problem}; recomputing", CacheWarning, stacklevel=3)
    return None


# ------------------------------------------------------------------------------------------------- running

def _set_threads(threads: int | None = None) -> int:
    """Numba threads of this process: ``threads``, else $SLTH_NUMBA_THREADS, else cores / worker threads."""
    if threads is None:
        threads = numba_threads() or None
    if threads is None:
        try:
            from distributed import get_worker  # dask: heavy (0.7 s to import, -X importtime, loaded machine)

            threads = max(1, (os.cpu_count() or 1) // max(1, get_worker().state.nthreads))
        except (ImportError, ValueError, AttributeError):
            return 0
    try:
        import numba  # imported by the task's own code when it needs kernels; not every task does

        threads = max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
        numba.set_num_threads(threads)
    except ImportError:
        pass
    return threads


def _call(fn: str, params: dict, seed: int, threads_per_task: int | None = None) -> dict:
    """The task wrapper run on a worker: set the Numba threads, call the function, time it."""
    _set_threads(threads_per_task)
    function = resolve(fn)
    start = time.perf_counter()
    cpu = time.process_time()
    result = function(seed=seed, **params)
    return {"result": result, "seconds": time.perf_counter() - start, "cpu_s": time.process_time() - cpu}


_ACTIVE: list = []  # the client of the innermost ``with cluster(...)``


_ADDRESS = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})/?")


def check_scheduler(address: str | None, what: str = "--scheduler", timeout: float = 3.0) -> None:
    """``InputError`` (one line naming ``what``) unless ``address`` is None, "synchronous", or ``tcp://HOST:PORT``
    (or tls://) at which something accepts a connection within ``timeout`` seconds: checked before any work, where
    dask would otherwise wait 30 s and fail with a message that does not name the address."""
    if address is None or address == "synchronous":
        return
    m = _ADDRESS.fullmatch(address)
    if not m or not 0 < int(m.group(3)) < 65536:
        raise InputError(f"{what} {address!r}: not a scheduler address (expected tcp://HOST:PORT, or 'synchronous')")
    host = m.group(2).strip("[]")
    try:
        conn = socket.create_connection((host, int(m.group(3))), timeout=timeout)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"{what} {address}: no scheduler answers there ({reason}); start one (dask scheduler) or "
                         "leave --scheduler out for a cluster on this machine") from None
    with conn:
        if m.group(1) == "tcp":  # tls: the handshake is inside TLS; the connection is what can be checked here
            problem = _dask_handshake_problem(conn, timeout)
            if problem:
                raise InputError(f"{what} {address}: something answers there but not as a Dask scheduler ({problem} "
                                 f"within {timeout:g} s); give the address of a running `dask scheduler`")


def _dask_handshake_problem(conn: socket.socket, timeout: float) -> str | None:
    """None when the peer of ``conn`` opens with a Dask handshake (a Dask server writes one frame at once: an
    8-byte little-endian length, then the frames of a msgpack map naming "pickle-protocol"), else what it sent
    instead; never waits more than ``timeout`` seconds in all."""
    deadline = time.monotonic() + timeout
    data = b""
    need = 8
    while len(data) < need:
        left = deadline - time.monotonic()
        if left <= 0:
            return "no handshake" if not data else f"an incomplete answer of {len(data)} bytes"
        conn.settimeout(left)
        try:
            chunk = conn.recv(min(65536, need - len(data)))
        except socket.timeout:
            return "no handshake" if not data else f"an incomplete answer of {len(data)} bytes"
        except OSError as exc:
            return f"the connection failed: {exc.strerror or type(exc).__name__}"
        if not chunk:
            return "the connection was closed without a handshake"
        data += chunk
        if len(data) >= 8 and need == 8:
            length = int.from_bytes(data[:8], "little")
            if not 0 < length <= 65536:
                return f"an answer that is not a Dask frame ({data[:16]!r})"
            need = 8 + length
    return None if b"pickle-protocol" in data else f"an answer that is not a Dask handshake ({data[:16]!r})"


@contextlib.contextmanager
def cluster(scheduler: str | None = None, workers: int | None = None):
    """A dask.distributed client shared by every ``execute`` inside the block (None when running in-process).

    ``scheduler``: an address (``tcp://127.0.0.1:8786``), "synchronous", or None for $SLTH_SCHEDULER, else a
    LocalCluster of ``workers`` processes (default: one per core). ``workers=0``: in this process."""
    what = "--scheduler" if scheduler else f"${SCHEDULER_ENV}"
    scheduler = scheduler or os.environ.get(SCHEDULER_ENV) or None
    check_scheduler(scheduler, what)
    if scheduler == "synchronous" or (workers == 0 and scheduler is None):
        _ACTIVE.append(None)
        try:
            yield None
        finally:
            _ACTIVE.pop()
        return
    if workers is not None and workers < 0:
        raise ValueError(f"workers must be >= 0, got {workers}")
    from distributed import Client, LocalCluster  # dask: heavy, only when a cluster is started

    local = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="30s")
        except Exception as exc:  # noqa: BLE001 - any failure to join the cluster is the address's: one line
            raise InputError(f"{what} {scheduler}: cannot join the Dask scheduler there ({type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else 'no reason given'})") from None
    else:
        n = workers or (os.cpu_count() or 1)
        threads = max(1, (os.cpu_count() or 1) // n)
        local = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                             dashboard_address=":0", silence_logs=logging.ERROR,
                             env={"NUMBA_NUM_THREADS": str(threads), THREADS_ENV: str(threads), "OMP_NUM_THREADS": "1",
                                  "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
        client = Client(local)
    try:
        if scheduler:  # a running cluster: Numba threads = cores of the host / worker threads on that host
            info = client.scheduler_info()["workers"]
            cores = client.run(os.cpu_count)
            per_host = collections.Counter()
            for w in info.values():
                per_host[w["host"]] += w["nthreads"]
            for addr, w in info.items():
                client.run(set_worker_threads, max(1, (cores.get(addr) or 1) // per_host[w["host"]]), workers=[addr])
        _ACTIVE.append(client)
        try:
            yield client
        finally:
            _ACTIVE.pop()
    finally:
        client.close()
        if local is not None:
            local.close()


def set_worker_threads(threads: int) -> int:
    """Numba's threads in this worker (run on each worker of a cluster)."""
    os.environ[THREADS_ENV] = str(threads)
    return _set_threads(threads)


def execute(tasks, *, cache_dir=None, scheduler=None, workers=None, progress=True, desc: str = "") -> list[dict]:
    """Results of ``tasks`` in task order, computing only those not validly cached (see the module docstring).

    ``cache_dir``: None for $SLTH_CACHE_DIR or ``results/tasks``; False for no cache. ``scheduler``/``workers``:
    as ``cluster``; ignored inside ``with cluster(...)`` (its client is used)."""
    tasks = list(tasks)
    for t in tasks:
        if not isinstance(t, Task):
            raise TypeError(f"execute takes Task objects, got {type(t).__name__}")
    keys = [t.fingerprint() for t in tasks]
    fns = {t.fn: t.function() for t in tasks}
    # $SLTH_CACHE_DIR is checked: a folder, never a file
    root = None if cache_dir is False else Path(cache_dir) if cache_dir is not None else (
        settings.task_cache() or Path("results/tasks"))
    results: dict[str, dict] = {}
    todo: dict[str, Task] = {}
    for task, key in zip(tasks, keys):
        if key in results or key in todo:
            continue
        cached = _load(task_path(root, task, key), task, key, fns[task.fn]) if root is not None else None
        if cached is None:
            todo[key] = task
        else:
            results[key] = cached
    # progress on standard error when it is a terminal (tqdm's disable=None), never when ``progress`` is off
    bar = tqdm(total=len(results) + len(todo), initial=len(results), desc=desc or "tasks", unit="task",
               disable=True if not progress else None, file=sys.stderr, dynamic_ncols=True, mininterval=0.5)

    def store(key: str, out: dict) -> None:
        task = todo[key]
        problem = _problem(out["result"], fns[task.fn])
        if problem:
            raise ValueError(f"task {task.kind} {task.fn} seed={task.seed} params={task.params}: {problem}")
        if root is not None:
            write_record(task_path(root, task, key), {**_identity(task, key), "result": out["result"],
                                                      "seconds": out["seconds"], "cpu_s": out["cpu_s"]})
        results[key] = out["result"]
        bar.update(1)

    try:
        if todo:
            if _ACTIVE:
                _run(todo, store, _ACTIVE[-1])
            else:
                with cluster(scheduler, workers) as client:
                    _run(todo, store, client)
    finally:
        bar.close()
    return [results[k] for k in keys]


def _run(todo: dict, store, client) -> None:
    if client is None:
        for key, task in todo.items():
            store(key, _call(task.fn, task.params, task.seed))
        return
    from distributed import as_completed  # dask: heavy, only with a cluster

    futures = {client.submit(_call, t.fn, t.params, t.seed, key=f"{t.kind}-{key}", pure=False): key
               for key, t in todo.items()}
    try:
        for future in as_completed(futures):
            store(futures[future], future.result())
    finally:
        for future in futures:
            future.cancel()
