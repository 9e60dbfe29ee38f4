"""What one statement declares about its numerics: ``Numerics``, one object per ``slt/measure/statements/<name>.py``
(its docstring lists what it holds). ``slt.measure.catalogue`` lists the declarations; the run record
(``slt.measure.empirical``), the calibration (``slt.measure.calibrate``), the checks (``slt.measure.checking``,
``checks/test_statements.py``), the re-run command and ``slth rate`` read them from there.
"""
from __future__ import annotations

import dataclasses
import inspect
from typing import Callable

PROFILES = ("quick", "full")
"""The run record's measurement profiles (``slth run --quick`` / ``--full``)."""

LARGE_VALUES = {"d1": (2, 4, 8, 16), "d2": (2, 4, 8, 16), "H": (1, 2, 4, 8), "eps": (0.3, 0.1, 0.03), "L": (1, 2, 3)}
"""The large grid: the values of every factor (a statement's ``Large`` picks the factors that apply)."""


def trials(quick: int, full: int) -> dict:
    """Trial counts of one failure-rate check per run-record profile."""
    return {"quick": quick, "full": full}


@dataclasses.dataclass(frozen=True)
class Large:
    """The large calibration grid of a statement: the factors that vary (with their values), the fixed rest, and the
    rule that sets alpha from the dimensions (``"sqrt(max(d1, d2))"``, ``"sqrt(d1)"`` or None)."""

    factors: dict
    fixed: dict = dataclasses.field(default_factory=dict)
    alpha: str | None = None

    def __post_init__(self):
        if self.alpha not in (None, "sqrt(max(d1, d2))", "sqrt(d1)"):
            raise ValueError(f"unknown alpha rule {self.alpha!r}")

    def alpha_of(self, point: dict) -> dict:
        """``{"alpha": ...}`` for ``point`` by the rule (empty without one)."""
        if self.alpha == "sqrt(max(d1, d2))":
            return {"alpha": max(point["d1"], point["d2"]) ** 0.5}
        if self.alpha == "sqrt(d1)":
            return {"alpha": point["d1"] ** 0.5}
        return {}

    def get(self, field: str):
        """The field as the calibration file's design stores it (``factors``, ``fixed``, ``alpha``)."""
        return getattr(self, field)


@dataclasses.dataclass(frozen=True)
class Search:
    """One deterministic measurement of the run record's empirical part, run as one task.

    ``kind``: the check's id (the task kind is ``"empirical:" + kind``, e.g. ``"chain:theorem9"``,
    ``"search:lemma12:printed"``); ``fn``: the task function, called ``fn(seed=seed, **params)``, returning a
    JSON-able dict; ``params(profile, C)``: its parameters (C: the statement's checked constant, None when not
    calibrated); ``needs_C``: skipped when the statement has no calibrated constant; ``title``: the report's
    heading of its table (plain text, stored in the run record; the report shows ``kind`` without one)."""

    kind: str
    fn: Callable
    params: Callable[[str, float | None], dict]
    needs_C: bool = False
    title: str = ""


@dataclasses.dataclass(frozen=True)
class Property:
    """A check of its own (no shared shape): ``fn()`` raises ``AssertionError`` with the evidence when it fails.
    ``slow``: run only in the thorough profile or under ``-m slow``; ``thorough_only``: skipped outside the thorough
    profile even under ``-m slow``, with this reason."""

    fn: Callable
    slow: bool = False
    thorough_only: str = ""

    @property
    def name(self) -> str:
        return self.fn.__name__


def rerun_of(measure: Callable, hooks: tuple = ("tol", "solver")) -> Callable:
    """``rerun(seed, **parameters) -> [measure(seed, **parameters)]``, whose signature (what ``slt.measure.rerun``
    reads to name the parameters) is ``measure``'s less its ``hooks`` (arguments no re-run command sets: the tests'
    hooks that weaken a construction)."""
    def rerun(*args, **kwargs):
        return [measure(*args, **kwargs)]

    sig = inspect.signature(measure)
    rerun.__signature__ = sig.replace(parameters=[p for n, p in sig.parameters.items() if n not in hooks],
                                      return_annotation=list)
    return rerun


@dataclasses.dataclass(frozen=True)
class Numerics:
    """Everything numeric about one statement: one declaration per statement module.

    Measurement functions: ``trial(seed, C, **point) -> Case`` (probabilistic statements: one independent source),
    ``holds(point, bound_scale=1.0) -> [Case]`` (deterministic ones: the cases measured at one drawn point, the
    bound times ``bound_scale``), ``chain(seed, C, **point, bound_scale=1.0) -> [Case]`` (an a-posteriori chain on
    one ticket), ``rerun(seed, **parameters) -> [Case]`` (what the printed re-run command calls; with a trial and
    none given, the trial's case: ``rerun_of``),
    ``feasible(C, **point) -> bool`` (which C the calibration may try).

    Failure-rate checks: ``rate`` (the ``RateCheck`` of the checks: eps window and trials per drawn eps), or
    ``rate_at(C) -> RateCheck`` where the window depends on C; ``rate_points`` and ``rate_trials`` (per profile) are
    the run record's checks, ``rate_floor(C)`` the smallest eps its points may take at C.

    Grids: ``calibration`` (the points ``slth calibrate`` and the checks' calibration use), ``large`` (``slth
    calibrate --grid large``). ``searches``: the run record's deterministic measurements. ``examples``: hypothesis
    examples per check in the ``ci`` profile (keys: ``rate``, ``chain``, ``holds``); ``properties``: the
    statement's checks of their own shape. ``target_draw(seed, params) -> target``: the harness's random target of one
    trial (the start of the worst-target search of ``slt.measure.adversaries``; statements with target families)."""

    statement: str
    windows: dict = dataclasses.field(default_factory=dict)
    trial: Callable | None = None
    holds: Callable | None = None
    chain: Callable | None = None
    rerun: Callable | None = None
    feasible: Callable | None = None
    rate: object | None = None
    rate_at: Callable | None = None
    rate_points: tuple = ()
    rate_trials: dict = dataclasses.field(default_factory=dict)
    rate_floor: Callable | None = None
    calibration: tuple = ()
    large: Large | None = None
    searches: tuple = ()
    examples: dict = dataclasses.field(default_factory=dict)
    properties: tuple = ()
    target_draw: Callable | None = None

    def __post_init__(self):
        object.__setattr__(self, "rate_points", tuple(dict(p) for p in self.rate_points))
        object.__setattr__(self, "calibration", tuple(dict(p) for p in self.calibration))
        if self.rate_points and set(self.rate_trials) != set(PROFILES):
            raise ValueError(f"{self.statement}: rate_trials must give a count for each of {PROFILES}")
        if (self.rate_points or self.calibration) and self.trial is None:
            raise ValueError(f"{self.statement}: failure-rate points or a calibration grid need a trial")
        if self.rerun is None and self.trial is not None:
            object.__setattr__(self, "rerun", rerun_of(self.trial))

    def rate_check(self, C: float):
        """The checks' ``RateCheck`` at constant C."""
        if self.rate_at is not None:
            return self.rate_at(C)
        if self.rate is None:
            raise ValueError(f"{self.statement} has no failure-rate check")
        return self.rate

    def allows(self, C: float, point: dict) -> bool:
        """Whether the calibration may try C at ``point`` (``feasible``; every C without one)."""
        return True if self.feasible is None else bool(self.feasible(C, **point))
