"""The domain of a proof step: its parameters (the statement's, overridden by the step's own), the bounded box
each is searched on (``Param.box``), and the change of variables of a parameter whose lower bound depends on
others (``alpha = r Max(sqrt(d1), sqrt(d2))``, ``b = 1 + offset``).  Shared by every method of the verifier.

The domain is the declaration, never the global symbols' assumptions (``bounds.symbols``): ``Domain.symbols``
maps each parameter's symbol to one whose SymPy assumptions are DERIVED from its declaration (integer when declared
integral; positive or nonnegative when its lower bound, itself reasoned about on the derived symbols, proves it;
otherwise only real), and the symbolic methods reason about those.  ``Domain.wider`` names the parameters whose
declaration is not contained in their global symbol's assumptions (``e_l >= -1`` for a nonnegative ``e_l``, a
real ``d1`` for an integer one): there the global assumptions are false on part of the domain, and a method that
rewrites with the global symbols (the interval forms) is not run.  ``Domain.key`` holds every field of every
parameter: whatever changes a verdict changes the key.  ``time_limit`` bounds one stage of any method."""
from __future__ import annotations

import functools
import signal
import sys
import threading
import time
from contextlib import contextmanager

import mpmath
import sympy as sp

from ..core import Param, Step
from ..evaluate import compile_expr
from ..symbols import NAME, PARAMETER, text

OFFSET = "_offset"
DEFAULTS = {"C": Param("C", lo=(0,), lo_open=True, box=(2**-8, 2**8), log=True)}
SHIFTED: dict = {}  # offset parameter name -> what it stands for ("B - b")


class Domain:
    def __init__(self, step: Step, params: tuple, exprs=None):
        table = {p.name: p for p in params}
        table.update({p.name: p for p in step.params})
        self.table = table
        free = set().union(*(sp.sympify(e).free_symbols for e in (exprs or (step.lhs, step.rhs))))
        needed, order = {NAME[s] for s in free}, []
        while needed - set(order):  # dependencies first
            for n in sorted(needed - set(order)):
                p = table.get(n) or DEFAULTS.get(n)
                if p is None:
                    raise ValueError(f"step {step.name}: no domain for parameter {n}")
                table[n] = p
                deps = {NAME[s] for v in p.lo for s in sp.sympify(v).free_symbols}
                needed |= deps
                if deps <= set(order):
                    order.append(n)
        self.step = step
        self.params = [table[n] for n in order]
        self.key = tuple(param_key(p) for p in self.params)
        self.lo = {p.name: (sp.Max(*p.lo) if len(p.lo) > 1 else sp.sympify(p.lo[0])) for p in self.params if p.dependent}

    @functools.cached_property
    def _derived(self) -> tuple:
        """(symbols, wider), computed once per domain."""
        return derived_symbols(self.params)

    @property
    def symbols(self) -> dict:
        """Global symbol -> a symbol with the assumptions the declaration implies (the global one itself when they
        are the same; a fresh one, named alike, otherwise)."""
        return self._derived[0]

    @property
    def wider(self) -> list:
        """The parameters declared on a domain not contained in their global symbol's assumptions."""
        return self._derived[1]

    def reduced(self, expr) -> "Domain":
        """The domain of the parameters ``expr`` depends on (and their lower bounds' parameters)."""
        return Domain(self.step, tuple(self.table.values()), (expr,))

    def shifted(self):
        """This domain with every additive dependent parameter ``v = lo + o`` replaced by its offset ``o``,
        and the substitution ``{v: lo + o}``."""
        table, sub = dict(self.table), {}
        for p in self.params:
            if p.dependent and not p.log:
                name = p.name + OFFSET
                PARAMETER.setdefault(name, sp.Symbol(name, nonnegative=True))
                NAME[PARAMETER[name]] = name
                SHIFTED[name] = f"{p.name} - {text(sp.Max(*p.lo))}"
                q = table[name] = Param(name, lo=(0,), integer=p.integer, box=p.box)
                del table[p.name]
                sub[p.symbol] = q.symbol + sp.Max(*p.lo)
        exprs = [sp.sympify(e).xreplace(sub) for e in (self.step.lhs, self.step.rhs)]
        return Domain(self.step, tuple(table.values()), exprs), sub

    def root(self):
        return [(mpmath.mpf(p.box[0]), mpmath.mpf(p.box[1])) for p in self.params]

    def env(self, point, ctx):
        """Map box coordinates (numbers or intervals) to parameter values."""
        env = {}
        for p, v in zip(self.params, point):
            if p.name in self.lo:
                lo = compile_expr(self.lo[p.name], ctx)(env)
                v = lo * v if p.log else lo + v
            env[p.symbol] = v
        return env

    def describe(self) -> dict:
        out = {}
        for p in self.params:
            lo, hi = p.box
            if p.name in self.lo:
                rel = "*" if p.log else "+"
                out[p.name] = f"{p.name} = {text(self.lo[p.name])} {rel} [{num(lo)}, {num(hi)}]"
            else:
                out[p.name] = f"{SHIFTED.get(p.name, p.name)} in [{num(lo)}, {num(hi)}]"
        return out


def num(v):
    v = float(v)
    if v > 0 and v < 1e-3:
        return f"2^{round(mpmath.log(v, 2))}"
    return f"{v:g}"


def midpoint(lo, hi, log: bool):
    """Where a box's coordinate is split: the geometric mean on a log scale (a positive range), else the middle."""
    return mpmath.sqrt(lo * hi) if log and lo > 0 else (lo + hi) / 2


def bisect(root: list, closes, budget: int, size=lambda k, a, b: b - a, middle=lambda k, a, b: (a + b) / 2):
    """(every box closed, boxes evaluated, the first box left open or None): from the box ``root`` ([(lo, hi)] per
    coordinate), depth first, each box closed by ``closes(box)`` or halved at ``middle`` of its coordinate of largest
    ``size`` (both given the coordinate's index and ends), until ``budget`` boxes have been evaluated."""
    stack, count = [root], 0
    while stack:
        box = stack.pop()
        count += 1
        if closes(box):
            continue
        if count >= budget or not box:
            return False, count, box
        k = max(range(len(box)), key=lambda i: size(i, *box[i]))
        a, b = box[k]
        m = middle(k, a, b)
        stack += [box[:k] + [(a, m)] + box[k + 1:], box[:k] + [(m, b)] + box[k + 1:]]
    return True, count, None


# ----- assumptions derived from the declaration ---------------------------------------------------
_ASSUMED = ("positive", "nonnegative", "integer")


def param_key(p: Param) -> tuple:
    """Every field of a parameter, exactly (SymPy values by ``srepr``)."""
    return (p.name, tuple(sp.srepr(sp.sympify(v)) for v in p.lo), tuple(sp.srepr(sp.sympify(v)) for v in p.hi),
            p.lo_open, p.hi_open, p.integer, tuple(sp.srepr(sp.sympify(v)) for v in p.box), p.log)


def derived_symbols(params) -> tuple[dict, list]:
    """({global symbol: derived symbol}, [names of parameters declared wider than their global assumptions])."""
    sub, wider = {}, []
    for p in params:  # dependencies first
        lows = [sp.sympify(v).xreplace(sub) for v in p.lo]
        positive = any(v.is_positive or (p.lo_open and v.is_nonnegative) or (p.integer and v.is_real and
                       (v - 1).is_nonnegative) for v in lows)
        nonnegative = positive or any(v.is_nonnegative or (p.integer and v.is_real and (v + 1).is_positive
                                                           and p.lo_open) for v in lows)
        derived = {"real": True}
        if p.integer:
            derived["integer"] = True
        if positive:
            derived["positive"] = True
        elif nonnegative:
            derived["nonnegative"] = True
        g = p.symbol
        implied = {"positive": positive, "nonnegative": nonnegative, "integer": p.integer}
        if any(getattr(g, f"is_{a}") and not implied[a] for a in _ASSUMED):
            wider.append(p.name)
        same = all(bool(getattr(g, f"is_{a}")) == implied[a] for a in _ASSUMED) and g.is_real
        sub[g] = g if same else sp.Dummy(g.name, **derived)
    return sub, wider


def declared(expr, dom: "Domain"):
    """``expr`` in the derived symbols of ``dom`` (and the map back)."""
    sub = {k: v for k, v in dom.symbols.items() if k is not v}
    back = {v: k for k, v in sub.items()}
    return sp.sympify(expr).xreplace(sub), back


# ----- a work budget per stage, and a time guard ---------------------------------------------------
STAGE_SECONDS: float | None = None
"""The time guard per stage in CPU seconds; None: ``$SLTH_SYMPY_SECONDS`` read when a stage starts (``stage_seconds``),
so a bad value is reported by the command's own check of its settings, never by an import."""


def stage_seconds() -> float:
    """The time guard per stage: ``STAGE_SECONDS`` when set (a test sets it), else ``$SLTH_SYMPY_SECONDS``
    (``slth_base.settings.sympy_seconds``, checked)."""
    from slth_base.settings import sympy_seconds
    return STAGE_SECONDS if STAGE_SECONDS is not None else sympy_seconds()


STAGE_CALLS = 16_000_000
"""The work budget of one stage: Python function calls made in it (counted on the main thread by ``meter``'s profile
function in C), and what ``charge`` adds for Arb's arithmetic.
The same count on every machine and at any load. SymPy's random generators are seeded at each stage (``_seed_sympy``);
what moves the count is what the process computed before (SymPy's caches) and Python's hash seed, measured on whole
steps: under 1 % on a step of millions of calls (Theorem 14's block step T14d-x in the perturbed-logit reading, 10.318
and 10.327 million under two hash seeds), up to 8 % on steps under 100,000. Unseeded, that step's whole-domain forms
cost from 5.6 to 10.8 million calls in fresh processes, the whole step up to 14.2 million. The largest stages of the
committed rows, none cut: the far-corner scan of Theorem 14's ``U2b[/eps]`` under the growth mutation, 15.6 million
(97 % of the budget), a common factor cancelled, 10.3 million, and T14d-x's whole-domain forms, 10.0 million."""


class TimeLimit(BaseException):
    """A stage was cut (a BaseException: SymPy's own ``except Exception`` cannot swallow it): ``WorkBudget`` (its
    work budget spent: deterministic) or ``TooSlow`` (the time guard, ``STAGE_SECONDS``: the machine, not the step)."""
    reason = "cut"


class WorkBudget(TimeLimit):
    reason = "work budget"


class TooSlow(TimeLimit):
    reason = "machine too slow"


CUTS: list = []
"""(stage, reason) of every stage cut since the verifier last cleared it (``bounds.prove.verify`` does, per step)."""

_DEADLINES: list = []  # CPU-time guards, innermost last
_LIMITS: list = []  # call-count limits, innermost last
_STATE = None  # meter.STATE once a stage has run: [calls counted in stages, innermost limit (0: none), signal pending]
_PROFILER = None  # the profile function in place when the outermost stage began, set again when it ends
_REPEAT = 0.05
"""Seconds between alarms once a guard has passed: an alarm whose exception is swallowed (raised inside a
``__del__`` or a weakref callback during garbage collection, where Python only prints it) is followed by another."""


def _seed_sympy(states=None):
    """SymPy's two random generators (``sympy.core.random``: Wang's factorisation draws its evaluation points from
    one, the assumptions system shuffles its handlers with the other) seeded with ``SYMPY_SEED`` for a stage, so that
    its work is a function of what it computes, not of the process's draws before it; returns their states before.
    ``states``: set those back (the stage is over: a caller's own SymPy draws go on as if it had not run)."""
    from sympy.core import random as sympy_random
    gens = (sympy_random.rng, sympy_random._assumptions_rng)
    if states is not None:
        for gen, st in zip(gens, states):
            gen.setstate(st)
        return None
    before = tuple(gen.getstate() for gen in gens)
    sympy_random.seed(SYMPY_SEED)
    return before


SYMPY_SEED = 0
"""The seed of SymPy's random generators in every stage (``_seed_sympy``)."""


def _state():
    global _STATE
    if _STATE is None:
        from . import meter
        _STATE = meter.STATE
    return _STATE


_UNSAFE_CODE = {"__del__", "unraisable_hook", "_quiet_hook", "_find_and_load", "_call_with_frames_removed",
                "__exit__", "time_limit"}
"""Code names of frames an exception must not be raised in: a finaliser or weakref callback run by the garbage
collector (Python only prints what it raises, through ``sys.unraisablehook``: pytest's hook turns a second exception
raised inside itself into a failed test), the unraisable hook itself, an import under way (a module left half
initialised), and a context manager entered or left (a stage's own set-up and clean-up above all: an enclosing stage
whose budget is spent too is cut after the inner stage's clean-up, not inside it).  An alarm that finds one of these
on the stack is deferred: the meter raises the signal again at the next call, and the time guard's repeating timer
(``_REPEAT``) fires again."""


def _unsafe(frame) -> bool:
    """Whether ``frame`` or one of its callers is a place no exception may be raised in (``_UNSAFE_CODE``)."""
    while frame is not None:
        code = frame.f_code
        if code.co_name in _UNSAFE_CODE or code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _quiet_hook(unraisable, /):
    """``sys.unraisablehook`` while a stage runs: a cut raised where Python cannot propagate it (a weakref callback
    run by the garbage collector) is dropped, since the alarm fires again in code that can; anything else goes to
    the hook that was in place."""
    if isinstance(unraisable.exc_value, TimeLimit):
        return
    _HOOKS[-1](unraisable)


_HOOKS: list = []  # the unraisable hook in place when the outermost stage began


_SOON = 0.005
"""CPU seconds to the next alarm once a cut is due: a cut that was deferred (``_unsafe``) or swallowed (raised in a
generator closed by the garbage collector) is raised again this soon, by the timer alone (a deferred cut also at the
meter's next call)."""


def _alarm(signum, frame):
    due = (WorkBudget if _LIMITS and _STATE[0] >= _LIMITS[-1] else
           TooSlow if _DEADLINES and time.process_time() >= _DEADLINES[-1] - 1e-3 else None)
    if due is not None:
        signal.setitimer(signal.ITIMER_PROF, _SOON, _REPEAT)
        if not _unsafe(frame):
            raise due()  # (the signal stays marked pending until the stage ends: no second cut while this one unwinds)
    _STATE[2] = 0  # the meter raises the signal again at the next call past the limit (a deferred cut)


def work_done() -> int:
    """Python calls counted so far in stages (a work meter: the same on every machine)."""
    return int(_state()[0])


def charge(calls: int) -> None:
    """Count ``calls`` on the work meter for work it cannot see (Arb's arithmetic in C: ``corners`` charges each
    confirmation by its precision and the size of the sides), as if that many Python calls had run."""
    state = _state()
    state[0] += max(int(calls), 0)
    if 0 < state[1] <= state[0] and not state[2]:
        state[2] = 1
        signal.raise_signal(signal.SIGPROF)


@contextmanager
def time_limit(seconds: float | None = None, stage: str = "", calls: int | None = None):
    """Cut the block (``TimeLimit``) after ``calls`` Python calls (default ``STAGE_CALLS``: ``WorkBudget``, the same
    on every machine) or, as a guard only, ``seconds`` of this process's CPU time (default ``STAGE_SECONDS``:
    ``TooSlow``); an enclosing limit that ends sooner still applies.  A cut is recorded in ``CUTS`` with ``stage``.
    Outside the main thread nothing can interrupt SymPy: no limit is set."""
    global _PROFILER
    seconds = stage_seconds() if seconds is None else seconds
    calls = STAGE_CALLS if calls is None else calls
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return
    state = _state()
    now = time.process_time()
    deadline = min([now + seconds] + _DEADLINES[-1:])
    limit = min([int(state[0]) + max(int(calls), 1)] + _LIMITS[-1:])
    outermost = not _LIMITS
    _DEADLINES.append(deadline)
    _LIMITS.append(limit)
    state[1] = limit
    old = signal.signal(signal.SIGPROF, _alarm)
    if outermost:
        from . import meter
        drawn = _seed_sympy()
        state[2], _PROFILER = 0, sys.getprofile()  # a profiler sees none of a stage's calls: the meter holds its hook
        meter.start()
        _HOOKS.append(sys.unraisablehook)
        sys.unraisablehook = _quiet_hook
    signal.setitimer(signal.ITIMER_PROF, max(deadline - now, 1e-4), _REPEAT)
    try:
        yield
    except TimeLimit as exc:
        if not getattr(exc, "recorded", False):
            exc.recorded = True
            CUTS.append((stage, exc.reason))
        raise
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        _DEADLINES.pop()
        _LIMITS.pop()
        state[1], state[2] = (_LIMITS[-1] if _LIMITS else 0), 0
        if outermost:
            if callable(_PROFILER) or _PROFILER is None:
                sys.setprofile(_PROFILER)
            else:  # cProfile's profiler: its own C function, set again by enable()
                sys.setprofile(None)
                _PROFILER.enable()
            _PROFILER = None
            sys.unraisablehook = _HOOKS.pop()
            _seed_sympy(drawn)
        signal.signal(signal.SIGPROF, old)
        if _DEADLINES:  # the enclosing limit goes on
            signal.setitimer(signal.ITIMER_PROF, max(_DEADLINES[-1] - time.process_time(), 1e-4), _REPEAT)
