"""What a request can ask of this machine, checked before any trial runs.

``check_request(statement, C, params)`` raises ``RequestError`` (one line) when

- a width the statement requires at ``C`` and ``params`` (``bounds``) is too large to be a width at all (more than
  2^53 units: float64 cannot even count them; ``--C 1e308``);
- the source network those widths need does not fit in this machine's memory (``--C 1e7``, ``d1=100000``): the
  message states the memory, counted from the shapes ``slt.samplers`` allocates (a lower bound: the construction
  and the forward pass need more);
- the trials asked for cannot even be counted in this machine's memory (``check_trials``: ``slth targets search
  --seeds 1000000000``, ``slth targets fixed-c --per 1e12``, ``slth calibrate --min-trials 1000000000``): every
  trial keeps at least ``TRIAL_BYTES`` of bookkeeping (its seed, its share of a task and of its result) until the
  run ends, so the message states the memory ``trials x TRIAL_BYTES``, a lower bound;
- ``eps`` is below what a trial can resolve: ``RESOLUTION``, the larger of 10 x the trials' subset-sum tolerance
  (``slt.measure.sources.TOL`` = 1e-9: every entry is solved only to it, so a ticket's error is of that order by
  construction; ``slth rate theorem11 ... eps=1e-300`` reported 3/3 violations at errors of 2e-9) and
  sqrt(float64 epsilon) = 1.5e-8 (half of float64's digits, below which a difference of computed results is
  rounding, not a measurement).
"""
from __future__ import annotations

import math
import os

import numpy as np

import bounds
from slt.inputs import InputError
from slt.measure.sources import TOL

RESOLUTION = max(math.sqrt(np.finfo(np.float64).eps), 10 * TOL)
"""The smallest eps a failure-rate test accepts, 1.5e-8 (see the module docstring)."""
MAX_WIDTH = 2 ** 53
"""Widths above this cannot even be counted exactly in float64."""


TRIAL_BYTES = 40
"""Bytes every trial keeps at least until its run ends: one Python int in a list (a seed) is 40 bytes (measured
with ``tracemalloc``, CPython 3.11, 64-bit); the task lists, keys and results every command keeps per trial cost
more, so ``trials x TRIAL_BYTES`` is a lower bound on a request's memory."""
MAX_TRIALS = 2 ** 40
"""More trials than this are refused whatever the memory: at the fastest trial the harness has (about 1 ms) they
would run for 35 years on one core."""


class RequestError(InputError):
    """A request this machine cannot honour (one line naming the parameter and what it would need)."""


def source_floats(widths: dict, params: dict) -> int:
    """Float64 weights of the sources ``slt.samplers`` draws for ``widths`` (exact integers, a lower bound on the
    memory a trial needs): ``n_K`` gives W_Q, W_K (H, d1, n), ``n_V`` W_V (H, d1, n) and W_O (H, n, d2), ``n_MHA``
    all four; an FC width 2L matrices of n x d1 (Theorems 10, 11, 14); Lemmas 2 and 7's ``n`` W1 (n, d1) and
    W2 (d2, n), Lueker's ``n`` its n items; times B blocks (Theorem 14)."""
    d1 = int(params.get("d1", 1))
    d2 = int(params.get("d2", d1))
    H, L, B = (int(params.get(k, 1)) for k in ("H", "L", "B"))
    per_unit = {"n_K": 2 * H * d1, "n_V": H * (d1 + d2), "n_MHA": H * (3 * d1 + d2), "n_FC": 2 * L * d1,
                "n_l": 2 * L * d1}
    other = d1 + d2 if "d1" in params else 1
    return sum(n * per_unit.get(name, other) for name, n in widths.items()) * B


def available_bytes() -> int | None:
    """Memory this machine can give a new allocation (``MemAvailable``, else physical memory), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _count(n: int) -> str:
    digits = len(str(n))
    return f"{n:,}" if digits <= 15 else f"about 10^{digits - 1}"


def _bytes(b: int) -> str:
    if len(str(b)) > 15:
        return f"about 10^{len(str(b)) - 1} bytes"
    for unit, size in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20)):
        if b >= size:
            return f"{b / size:.1f} {unit}"
    return f"{b} bytes"


def check_trials(trials: int, what: str, available: int | None = None, per_trial: int = TRIAL_BYTES) -> int:
    """``trials`` when this machine can hold their bookkeeping (``per_trial`` bytes each, default ``TRIAL_BYTES``),
    else ``RequestError`` naming ``what`` (the argument that asked for them) and the memory they would need."""
    if not (isinstance(trials, int) or (isinstance(trials, float) and math.isfinite(trials))) or trials < 1:
        raise RequestError(f"{what} asks for {trials} trials; at least 1 is needed")
    trials = int(math.ceil(trials))
    need = trials * per_trial
    have = available_bytes() if available is None else available
    if trials > MAX_TRIALS or (have is not None and need > have):
        raise RequestError(f"{what} asks for {_count(trials)} trials, which need at least {_bytes(need)} of memory "
                           f"before any runs (this machine has {_bytes(have) if have is not None else 'unknown'} "
                           f"available; {_count(MAX_TRIALS)} trials at most): ask for fewer")
    return trials


def check_request(statement: str, C: float, params: dict, available: int | None = None) -> dict:
    """The widths of ``statement`` at ``C`` and ``params`` when this machine can build them, else
    ``RequestError``; ``available`` bytes default to ``available_bytes()``."""
    eps = params.get("eps")
    if isinstance(eps, (int, float)) and 0 < eps < RESOLUTION:
        raise RequestError(f"eps={eps:g} is below what a trial resolves ({RESOLUTION:.2g}: the subset sums are "
                           f"solved to {TOL:g} and float64 keeps about 16 digits): errors that small are the "
                           f"solver's tolerance and rounding, not the theorem; choose eps >= {RESOLUTION:.2g}")
    if not (isinstance(C, (int, float)) and math.isfinite(C) and C > 0):
        raise RequestError(f"C={C} must be a finite number > 0")
    st = bounds.get(statement)
    known = {k: v for k, v in params.items() if k in st.parameters}
    try:
        widths = {w: st.width(w, C=C, **known) for w in st.widths}
    except (ValueError, TypeError, KeyError):  # a missing or out-of-domain parameter: the trial names it
        return {}
    for w, n in widths.items():
        if n > MAX_WIDTH:
            raise RequestError(f"{statement} at C={C:g} needs {w} = {_count(n)} units, more than 2^53: no source "
                               "of that width can be built; choose a smaller C or parameters")
    need = 8 * source_floats(widths, params)
    have = available_bytes() if available is None else available
    if have is not None and need > have:
        shown = ", ".join(f"{w}={_count(n)}" for w, n in widths.items())
        raise RequestError(f"{statement} at C={C:g} ({shown}) needs at least {_bytes(need)} for its source network "
                           f"alone, and this machine has {_bytes(have)} available; choose a smaller C or parameters")
    return widths


INTERNAL = ("seed", "C", "solver")
"""Arguments of a trial function that are not the statement's parameters: the seed and C have their own options;
``solver`` is a hook tests use to weaken the subset-sum solver (a function, never a value from the command line)."""


def user_parameters(statement: str, items, extra: tuple = ()) -> dict:
    """``NAME=VALUE`` items (``slt.measure.rerun.parse_value``) as the parameters of ``statement``'s trial, or
    ``RequestError`` for an item that is not NAME=VALUE, a name the trial does not take (with the closest one it
    does), an internal argument (``INTERNAL``) or a number that is not finite. ``extra``: names a command adds."""
    import difflib
    import inspect

    from slt.measure import catalogue
    from slt.measure.rerun import parse_value

    accepted = [p for p in inspect.signature(catalogue.get(statement).trial).parameters if p not in INTERNAL]
    accepted += [e for e in extra if e not in accepted]
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise RequestError(f"parameter {item!r} is not of the form NAME=VALUE")
        if key in INTERNAL:
            raise RequestError(f"parameter {key!r} is not a parameter of {statement} (an internal argument of its "
                               f"trial{'; use --' + key if key in ('C', 'seed') else ''}); its parameters: "
                               f"{', '.join(accepted)}")
        if key not in accepted:
            close = difflib.get_close_matches(key, accepted, n=1, cutoff=0.5)
            raise RequestError(f"{statement} has no parameter {key!r}" + (f"; did you mean {close[0]!r}?" if close
                               else "") + f" (its parameters: {', '.join(accepted)})")
        v = parse_value(value)
        for x in (v if isinstance(v, tuple) else (v,)):
            if isinstance(x, float) and not math.isfinite(x):
                raise RequestError(f"parameter {key}={value}: not a finite number")
        if key == "eps" and not (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1):
            raise RequestError(f"parameter eps={value}: must be a number in (0, 1)")
        out[key] = v
    return out
