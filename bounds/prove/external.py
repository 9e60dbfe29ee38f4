"""Running external provers: each call in its own process group under a time limit, at most ``jobs`` at once in this
process, killed with its group on a timeout, an exception, SIGINT or SIGTERM, and dying with the thread that started it
(``PR_SET_PDEATHSIG``).  It knows programs by name and exit status only: what they read and print is their caller's."""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager


class Failure(RuntimeError):
    """The program did not finish: not started, timed out or killed (one line: never a verdict on its input)."""


_LIVE: set = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()  # set by Ctrl-C or SIGTERM: no program starts any more in this process
_SLOTS: dict = {}  # jobs -> the semaphore every call of this process takes a place in


def _slot(jobs: int) -> threading.BoundedSemaphore:
    with _LIVE_LOCK:
        return _SLOTS.setdefault(jobs, threading.BoundedSemaphore(jobs))


def _die_with_parent():  # runs in the child before exec: SIGKILL when the thread that started it ends
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 (not Linux: the process group is still killed on every exit path)
        pass


def _kill(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_all(stop: bool = False) -> None:
    """Kill every process group this process started and has not reaped; ``stop``: and start none after (Ctrl-C or
    SIGTERM: a thread waiting for its turn must not start one once the others are killed)."""
    if stop:
        _STOPPING.set()
    with _LIVE_LOCK:
        procs = list(_LIVE)
    for p in procs:
        _kill(p)


def run(name: str, argv: list, cwd, limit: float, jobs: int, env: dict | None = None) -> tuple[int, str]:
    """(exit status, stdout + stderr decoded with replacement) of ``argv`` (the program ``name`` in messages), with
    at most ``jobs`` such calls at once in this process, whichever thread starts them; ``Failure`` when it runs past
    ``limit`` seconds or is killed by a signal.  ``env``: variables added to this process's environment."""
    with _slot(jobs):
        with _LIVE_LOCK:
            if _STOPPING.is_set():
                raise Failure(f"{name} not started: interrupted")
            proc = subprocess.Popen([*map(str, argv)], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_die_with_parent,
                                    env={**os.environ, **env} if env else None)
            _LIVE.add(proc)
        try:
            out, _ = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            _kill(proc)
            proc.communicate()
            raise Failure(f"{name} timed out after {limit:g} s") from None
        except BaseException:
            _kill(proc)
            proc.wait()
            raise
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(proc)
    text = out.decode("utf-8", errors="replace")
    if proc.returncode < 0:
        raise Failure(f"{name} killed by signal {-proc.returncode}")
    return proc.returncode, text


@contextmanager
def reaped():
    """SIGTERM raised as SystemExit in the main thread, and every process group killed when an exception leaves
    (on a normal exit every program started inside has been waited for)."""
    old = None
    if threading.current_thread() is threading.main_thread():
        def term(signum, frame):
            raise SystemExit(128 + signum)
        try:
            old = signal.signal(signal.SIGTERM, term)
        except ValueError:
            old = None
    try:
        yield
    except BaseException as e:  # Ctrl-C and SIGTERM also stop any thread from starting another program
        kill_all(stop=isinstance(e, (KeyboardInterrupt, SystemExit)))
        raise
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)


@contextmanager
def pool(workers: int):
    """A pool of ``workers`` threads whose process groups are killed before it waits for them, on any exception."""
    with ThreadPoolExecutor(workers) as threads:
        try:
            yield threads
        except (KeyboardInterrupt, SystemExit):
            kill_all(stop=True)
            raise
        except BaseException:
            kill_all()
            raise
