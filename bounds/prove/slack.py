"""The slack of every numeric constant of the encoded proofs: the tightest value for which every step of
every proof still closes (``slth proofs --slack``).

Each ``Constant`` (``bounds.core``, declared beside its statement in ``Statement.slack``) names one number of one
statement (in one or more of its fields).  ``slack(constant)`` replaces it by a candidate value (an ``Edit`` on a
copy of the catalogue) and runs the verifier on every step of every proof the edit reaches (``_affected``); a value
*closes* when every such step is certified.  From the printed value it walks in the direction that tightens the
statement (a factor 2 at a time, then bisection in log scale to a relative ``TOL``) and returns the last value that
closes and the first that does not (with the first step the full verifier does not certify there, and its
counterexample).  A constant whose slightest tightening fails is *forced*.

A candidate asks only for certificates (``_certified``); only the first failing value is verified in full.  Steps
whose text an edit leaves unchanged keep their verdicts (``verify_step`` caches by the step's text).  ``rows()``
returns the table as plain dicts for the CLI, the report and the run record.
"""
from __future__ import annotations

import concurrent.futures
import functools
import multiprocessing
import queue

import mpmath
import sympy as sp

from ..catalogue import STATEMENTS, canonical, constants, dependents, lookup
from ..core import Constant
from .verify import verify_step

TOL = sp.Rational(1, 100)  # the bracket [closing, failing] is narrowed to a relative width below 1%
REACH = 40  # at most 2^40 away from the printed value


CONSTANTS: tuple[Constant, ...] = constants()  # declared beside each statement (``Statement.slack``)


@functools.lru_cache(maxsize=None)
def _affected(statement: str) -> tuple[str, ...]:
    """The proved statements whose proofs use ``statement`` (directly or through others), itself first (read from
    the unedited catalogue: an edit of a constant changes numbers, never which statements cite which)."""
    out = dependents([statement])
    return tuple([n for n in out if n == statement] + [n for n in out if n != statement])


def _steps(constant: Constant, catalogue):
    """(statement, step) for every step of every proof the edit of ``constant`` reaches, in catalogue order."""
    get = lookup(catalogue)
    for name in _affected(constant.statement):
        st = get(name)
        for s in st.steps(get):
            yield st, s


def _closes(constant: Constant, catalogue, on_step=None) -> tuple:
    """(True, None) when every step of every proof affected by the edit is certified; else (False, the first
    step result in catalogue order that is not: refuted or not proved, by the full verifier).  Statements the
    edit does not reach keep their (cached) results."""
    for st, s in _steps(constant, catalogue):
        r = verify_step(st.name, s, st.params)
        if on_step is not None:
            on_step()
        if not r.ok:
            return False, r
    return True, None


def _certified(constant: Constant, catalogue, first=(), on_step=None):
    """None when every affected step is certified (the same answer as ``_closes``), else a step result that is not.
    Only the certificates are tried (``verify_step(search=False)``: no counterexample search for a step no
    certificate proves), the steps named in ``first`` ((statement, step) that failed at an earlier candidate)
    before the others, and the first step found not certified ends it."""
    steps = sorted(_steps(constant, catalogue), key=lambda p: (p[0].name, p[1].name) not in first)  # stable
    for st, s in steps:
        r = verify_step(st.name, s, st.params, search=False)
        if on_step is not None:
            on_step()
        if not r.ok:
            return r
    return None


def _catalogue(constant: Constant, c):
    cat = dict(STATEMENTS)
    if sp.sympify(c) == sp.sympify(constant.value):
        return cat
    for e in constant.edits(c):
        key = canonical(e.statement, cat)
        cat[key] = e.apply(cat[key])
    return cat


def _value(x) -> sp.Rational:
    """A candidate as an exact dyadic rational with 10 significant bits (finer than ``TOL``; short numbers keep
    the edited proofs cheap to simplify)."""
    x = mpmath.mpf(x)
    e = int(mpmath.floor(mpmath.log(x, 2))) - 9
    return sp.Rational(int(mpmath.nint(x / mpmath.mpf(2) ** e))) * sp.Rational(2) ** e


def slack(constant: Constant, progress=None, on_step=None) -> dict:
    """The tightest closing value of ``constant`` (see the module docstring) as a row dict.  ``progress(constant,
    value, closes)`` after each candidate, ``on_step()`` after each step verified for one."""
    printed = sp.nsimplify(constant.value)
    ok, bad = _closes(constant, _catalogue(constant, printed), on_step)
    if not ok:
        return _row(constant, printed, None, printed, bad, 0, "the printed value does not close")
    failed: list = []  # (statement, step) not certified at an earlier candidate: tried first at the next

    def closes(cand) -> bool:
        r = _certified(constant, _catalogue(constant, cand), failed, on_step)
        if r is not None and (r.statement, r.step) not in failed:
            failed.insert(0, (r.statement, r.step))
        if progress:
            progress(constant, cand, r is None)
        return r is None

    step = sp.Rational(1, 2) if constant.tighter < 0 else sp.Integer(2)
    good, probes, fail = printed, 1, None
    for _ in range(REACH):
        cand = _value(good * step)
        probes += 1
        if not closes(cand):
            fail = cand
            break
        good = cand
    else:
        return _row(constant, printed, good, None, None, probes, f"still closes at 2^{REACH} times the printed value")
    while abs(fail / good - 1) > TOL:
        cand = _value(mpmath.sqrt(mpmath.mpf(good) * mpmath.mpf(fail)))
        if cand in (good, fail):
            break
        probes += 1
        if closes(cand):
            good = cand
        else:
            fail = cand
    ok, fail_r = _closes(constant, _catalogue(constant, fail), on_step)  # the first failing step and its counterexample
    note = "" if not ok else "the full verifier certified the first failing value that the certificates alone did not"
    return _row(constant, printed, good, fail, fail_r, probes, note)


def _row(constant, printed, good, fail, bad, probes, note) -> dict:
    forced = good is not None and good == sp.nsimplify(constant.value) and fail is not None
    return {
        "statement": constant.statement, "constant": constant.label, "printed": float(printed),
        "printed_exact": str(printed),
        "tightest": None if good is None else float(good), "tightest_exact": None if good is None else str(good),
        "first_failing": None if fail is None else float(fail),
        "first_failing_exact": None if fail is None else str(fail),
        "ratio": None if good is None or good == 0 else float(sp.nsimplify(printed) / good),
        "forced": bool(forced), "direction": "searched downwards" if constant.tighter < 0 else "searched upwards",
        "fails_at": None if bad is None else f"{bad.statement}:{bad.step}",
        "counterexample": None if bad is None else bad.counterexample,
        "probes": probes, "note": note,
    }


def rows(constants=None, progress=None, on_step=None, workers: int = 1, on_row=None, on_tick=None) -> list[dict]:
    """The slack table: one row per constant (``CONSTANTS`` by default), in the order given.  ``workers`` > 1:
    the constants are searched in that many processes at once (forked from this one, so each starts with the
    verdicts this process holds; the last statements' constants, whose proofs compose the others, are started
    first), ``progress`` and ``on_step`` still called here; the rows are the same whatever ``workers`` is.
    ``on_row(row)`` after each row is found; ``on_tick()`` about every 0.2 s while workers search."""
    todo = list(CONSTANTS if constants is None else constants)
    workers = processes(workers, len(todo))
    if workers <= 1:
        out = []
        for c in todo:
            out.append(slack(c, progress, on_step))
            if on_row is not None:
                on_row(out[-1])
        return out
    ctx = multiprocessing.get_context("fork")
    events = ctx.Queue()
    out: dict = {}
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_init,
                                                initargs=(todo, events)) as pool:
        futures = {pool.submit(_worker, i): i for i in reversed(range(len(todo)))}
        pending = set(futures)
        while pending:
            done, pending = concurrent.futures.wait(pending, timeout=0.2)
            if on_tick is not None:
                on_tick()
            _relay(events, todo, progress, on_step)
            for f in done:
                out[futures[f]] = f.result()
                if on_row is not None:
                    on_row(out[futures[f]])
    _relay(events, todo, progress, on_step)
    return [out[i] for i in range(len(todo))]


def processes(workers: int, constants: int) -> int:
    """How many processes ``rows(workers=workers)`` searches ``constants`` constants with (1: this process alone;
    never more than the constants, and 1 where processes cannot be forked)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(workers, constants))


_WORKER: dict = {}


def _worker_init(todo, events) -> None:
    _WORKER.update(todo=todo, events=events)


def _worker(i: int) -> dict:
    """Row ``i`` of ``rows`` in a worker process; its progress goes back through the queue."""
    events = _WORKER["events"]
    return slack(_WORKER["todo"][i], lambda c, v, ok: events.put(("probe", i, str(v), ok)),
                 lambda: events.put(("step", i, None, None)))


def _relay(events, todo, progress, on_step) -> None:
    """Hand the workers' progress events queued so far to ``progress`` and ``on_step``."""
    while True:
        try:
            kind, i, value, ok = events.get_nowait()
        except queue.Empty:
            return
        if kind == "probe" and progress is not None:
            progress(todo[i], sp.Rational(value), ok)
        elif kind == "step" and on_step is not None:
            on_step()
