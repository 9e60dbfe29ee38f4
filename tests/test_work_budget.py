"""Every stage of the first pass is bounded by a count of work (Python calls, ``verify_domain.STAGE_CALLS``), the same
on every machine: a throttled process (here a busy sibling thread, which makes this process's CPU clock run about
twice as fast as its work, the way a loaded machine did) counts the same work and reaches the same verdict, and a spent
budget reads "not proved (work budget spent in <stage>)" every time.  The CPU-time limit ($SLTH_SYMPY_SECONDS) is only
a guard: past it a step reads "machine too slow"."""
from __future__ import annotations

import gc
import threading
import time
from contextlib import contextmanager

import pytest
import sympy as sp
from sympy.core import random as sympy_random
from sympy.core.cache import clear_cache

from bounds.core import Param, Step
from bounds.symbols import d1
from bounds.prove import verify, verify_domain
from bounds.prove.verify_domain import TimeLimit, WorkBudget, time_limit, work_done

DOMAIN = (Param("d1", lo=(1,), integer=True),)
STEP = Step("budget", d1 ** 2 + 3 * d1 + 1, (d1 + 2) ** 2)


@contextmanager
def throttled():
    """A busy sibling thread for the block: it takes the interpreter half the time and adds its CPU seconds to this
    process's clock (the time guard's), while the block's own work is what it was.  It yields a dict that holds, once
    the block ends, the CPU seconds the sibling added to that clock (``"cpu"``: its own thread's clock)."""
    stop, spent = threading.Event(), {}

    def busy():
        start = time.thread_time()
        while not stop.is_set():
            sum(range(1000))
        spent["cpu"] = time.thread_time() - start

    thread = threading.Thread(target=busy, daemon=True)
    thread.start()
    try:
        yield spent
    finally:
        stop.set()
        thread.join()


def _simplify_work() -> tuple[int, float]:
    """(Python calls, this process's CPU seconds) of one SymPy simplify in a stage."""
    clear_cache()
    with time_limit(stage="test"):
        before, cpu = work_done(), time.process_time()
        sp.simplify((sp.exp(d1) * sp.log(1 + d1) / (d1 + 1) ** 3 - sp.sqrt(d1 + 1)) ** 2 / (d1 + 2))
        return work_done() - before, time.process_time() - cpu


def test_a_stage_counts_the_same_work_when_throttled():
    """The process's CPU clock runs about twice as fast throttled; the count of work does not move (beyond the 1 %
    by which runs in one process differ: SymPy's caches that outlive clear_cache, never the clock)."""
    _simplify_work()
    calls, cpu = _simplify_work()
    with throttled() as sibling:
        loaded_calls, loaded_cpu = _simplify_work()
    assert calls > 10_000
    assert abs(loaded_calls - calls) <= 0.03 * calls, (calls, loaded_calls)
    # the throttle is real: the sibling's CPU seconds went onto the clock a CPU-time limit reads (its share depends on
    # how the machine's other load schedules the two threads, so the test asks for a tenth of the work's own seconds)
    assert sibling["cpu"] > 0.1 * cpu, (cpu, loaded_cpu, sibling)


def test_a_stage_counts_the_same_work_whatever_sympy_drew_before():
    """SymPy draws from its own random generators inside a stage: Wang's multivariate factorisation picks random
    evaluation points, and how many it tries is work.  A stage seeds them, so its count does not depend on what the
    process drew before (without the seed these five counts differ by up to 10 %, and Theorem 14's block step T14d-x
    cost from 5 to 14 million calls in fresh processes); and it sets their state back, so a caller's draws go on as
    if the stage had not run."""
    x, y, z = sp.symbols("x y z")
    poly = sp.expand((x * y + z + 1) * (x + y * z ** 2 + 3) * (x ** 2 - y + z))

    def work(seed: int) -> int:
        sympy_random.seed(seed)
        clear_cache()
        with time_limit(stage="test"):
            before = work_done()
            sp.factor(poly)
            return work_done() - before

    work(0)  # first-use costs (lazy imports) paid before the counts compared
    gc.disable()  # no finaliser of an earlier test's garbage runs inside a counted stage
    try:
        counts = [work(seed) for seed in (1, 2, 3, 4, 5)]
    finally:
        gc.enable()
    assert counts[0] > 10_000 and len(set(counts)) == 1, counts
    sympy_random.seed(7)
    expected = [sympy_random.rng.random(), sympy_random._assumptions_rng.random()]
    sympy_random.seed(7)
    with time_limit(stage="test"):
        sp.factor(poly)
    assert [sympy_random.rng.random(), sympy_random._assumptions_rng.random()] == expected


def _fresh(monkeypatch) -> verify.StepResult:
    monkeypatch.setattr(verify, "_RESULTS", {})
    clear_cache()
    return verify.verify_step("planted", STEP, DOMAIN)


def test_a_spent_budget_is_the_same_verdict_every_time_and_throttled(monkeypatch):
    """Caches that ``clear_cache`` leaves (SymPy's assumption system, lazy imports) make a process's first run of a
    step cost more calls than later ones: a warm-up run first, so the three runs compared start alike."""
    _fresh(monkeypatch)  # warm-up, full budget
    # too little for any SymPy stage, warm or cold: at 300 calls the box forms were certified within budget in one
    # xdist worker and cut in another (a stage's count depends on the caches the process's earlier tests left), so
    # the budget stays far below every stage's cost
    monkeypatch.setattr(verify_domain, "STAGE_CALLS", 60)
    _fresh(monkeypatch)  # warm-up at this budget too: the stages a full budget never reached (the box forms, once
    # the whole-domain forms are cut) pay their first-use costs here, whatever the process ran before
    first = _fresh(monkeypatch)
    again = _fresh(monkeypatch)
    with throttled():
        loaded = _fresh(monkeypatch)
    assert first.verdict == "not proved"
    assert first.detail.startswith("not proved (work budget spent in "), first.detail
    assert "machine too slow" not in first.detail
    assert again.detail == first.detail == loaded.detail


def test_the_budget_decides_not_the_clock(monkeypatch):
    """With its full budget the step is certified, throttled or not (the guard, 10 s, is far away)."""
    alone = _fresh(monkeypatch)
    with throttled():
        loaded = _fresh(monkeypatch)
    assert alone.verdict == loaded.verdict == "certified", (alone.detail, loaded.detail)


def test_the_time_guard_reads_machine_too_slow(monkeypatch):
    """A guard past before the budget (a pure loop makes no calls the budget counts) is "machine too slow", named as
    such, never the step's fault; and the budget itself raises WorkBudget."""
    monkeypatch.setattr(verify_domain, "STAGE_SECONDS", 0.05)
    with pytest.raises(TimeLimit) as cut:
        with time_limit(stage="loop"):
            while True:
                pass
    assert cut.value.reason == "machine too slow"
    with pytest.raises(WorkBudget):
        with time_limit(stage="calls", calls=1000):
            while True:
                sp.Integer(3).is_prime  # noqa: B018
    assert verify.cut_text([("s", "machine too slow")]).startswith("machine too slow: s past the 0.05 s guard")


def _calls(n: int) -> None:
    for _ in range(n):
        abs(-1)  # a builtin: no Python frame, no count
        _noop()


def _noop():
    return None


@contextmanager
def _unraisables():
    """The exceptions Python could not propagate during the block (what pytest's hook would turn into a failure)."""
    import sys

    seen, old = [], sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    try:
        yield seen
    finally:
        sys.unraisablehook = old


def _cut_after(block) -> None:
    """Run ``block`` in a stage whose budget (1000 calls) runs out inside it; the stage must still be cut after."""
    with pytest.raises(WorkBudget):
        with time_limit(seconds=60, stage="unsafe", calls=1000):
            block()
            for _ in range(100):  # about a second of CPU: the re-armed alarm comes within milliseconds
                _calls(10_000)
            pytest.fail("the stage was never cut")


def test_a_cut_waits_until_a_finaliser_or_an_import_has_finished(tmp_path, monkeypatch):
    """The budget runs out inside a finaliser, an import and a weakref callback: the first two finish (an exception
    raised there cannot propagate, and a second one inside pytest's unraisable hook fails the running test), the
    callback's cut is dropped without a report, and each stage is still cut once the code can take it."""
    import gc
    import importlib
    import sys
    import weakref

    done = []

    class Finalised:
        def __del__(self):
            _calls(3000)
            done.append("finaliser")

    def finaliser():
        obj = Finalised()
        del obj
        gc.collect()

    (tmp_path / "slow_import_for_budget.py").write_text(
        "from tests.test_work_budget import _calls\n_calls(3000)\nFINISHED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("slow_import_for_budget", None)

    def weak():
        holder = type("Holder", (), {})()
        weakref.finalize(holder, lambda: (_calls(3000), done.append("weakref")))
        del holder
        gc.collect()

    with _unraisables() as seen:
        _cut_after(finaliser)
        _cut_after(lambda: importlib.import_module("slow_import_for_budget"))
        _cut_after(weak)
    assert done[:1] == ["finaliser"]
    assert sys.modules["slow_import_for_budget"].FINISHED
    assert not [e for e in seen if isinstance(e, TimeLimit)], seen


def _generations(n: int) -> int:
    def gen():
        for i in range(n):
            yield _noop() or i
    return sum(gen())


def test_the_meter_counts_what_a_trace_function_sees_as_calls():
    """The meter (a profile function in C) counts each Python call and each resumption of a generator, as a
    ``sys.settrace`` function sees ``"call"`` events, and no builtin's call; a profiler in place before the stage
    sees the calls outside it again after."""
    import sys

    def work():
        _calls(500)
        _generations(300)

    seen = []

    def trace(frame, event, arg):
        seen.append(event)

    sys.settrace(trace)
    work()
    sys.settrace(None)
    traced = seen.count("call")
    with time_limit(stage="count"):
        before = work_done()
        reading = work_done() - before  # the calls of reading the meter itself
        before = work_done()
        work()
        counted = work_done() - before - reading
    assert counted == traced == 1 + 1 + 500 + 1 + 301 + 300  # work, _calls, _noop x500, _generations, gen() started
    # and resumed 300 times, _noop x300 (abs and sum are builtins: not counted)
    profiled = []
    sys.setprofile(lambda frame, event, arg: profiled.append(frame.f_code.co_name) if event == "call" else None)
    try:
        with time_limit(stage="count"):
            _calls(10)
        _noop()
    finally:
        sys.setprofile(None)
    assert "_calls" not in profiled and profiled.count("_noop") == 1, profiled  # only the _noop after the stage


def test_cprofile_in_place_gets_its_hook_back_after_a_stage():
    """cProfile's profiler (a C profile function, set again by its ``enable``) sees the calls after a stage, none of
    the stage's."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        with time_limit(stage="profiled"):
            _calls(10)
        _noop()
    finally:
        profiler.disable()
    calls = {name: stats[1] for (_, _, name), stats in pstats.Stats(profiler).stats.items()}
    assert "_calls" not in calls and calls.get("_noop") == 1, calls


def test_the_meter_keeps_counting_after_a_cut_inside_the_stage():
    """A stage cut inside another (a SymPy limit inside the far-corner search) leaves the outer stage counted: the
    outer stage's own budget still cuts it after, at the same count every time."""
    def run():
        with pytest.raises(WorkBudget):
            with time_limit(stage="outer", calls=20_000):
                start = work_done()
                with pytest.raises(WorkBudget):
                    with time_limit(stage="inner", calls=1000):
                        _calls(5000)
                after_inner = work_done() - start
                _calls(5000)
                assert work_done() - start >= after_inner + 5000  # counted after the inner cut
                _calls(100_000)
                pytest.fail("the outer stage was never cut")
        return work_done() - start

    assert run() == run()


def test_a_stage_spent_with_the_one_around_it_cleans_up_both():
    """The inner stage's budget ends where the outer one's does: one cut ends both, and no second cut is raised while
    it unwinds (inside a stage's clean-up or a ``with`` statement's exit, where it would skip the clean-up); no limit
    is left behind."""
    for _ in range(3):
        with pytest.raises(WorkBudget) as cut:
            with time_limit(stage="outer", calls=2000):
                with time_limit(stage="inner", calls=10**9):  # capped by the outer budget
                    _calls(10_000)
        assert cut.value.__context__ is None, "a second cut was raised while the first one unwound"
        assert not verify_domain._LIMITS and not verify_domain._DEADLINES
        with time_limit(stage="after", calls=10**6):  # a later stage runs with its own budget
            _calls(1000)
