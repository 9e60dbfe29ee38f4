"""Registry of the measuring library: per statement, its module, trial / measurement functions and grids.

Everything that runs measurements (the run record's empirical part, ``slth calibrate``, the checks) finds a
statement's functions here, never by importing a test module. An entry names functions as
``"package.module:function"`` strings (what ``slt.tasks.Task.fn`` takes), so the registry itself imports nothing
heavy; ``function(name, what)`` resolves one.

Grids:
- ``calibration``: the (d1, d2, H, eps, ...) points of ``slth calibrate`` (from the statement module);
- ``rates``: the points of the run record's failure-rate checks, with their trial counts per profile
  (``quick`` / ``full``);
- ``searches``: the deterministic searches of the run record (adversarial inputs, length sweeps).
"""
from __future__ import annotations

import dataclasses
import importlib

PROFILES = ("quick", "full")


@dataclasses.dataclass(frozen=True)
class RateGrid:
    """Failure-rate checks of a probabilistic statement: one check per point at ``trials[profile]`` sources."""

    points: tuple
    trials: dict


@dataclasses.dataclass(frozen=True)
class Entry:
    statement: str
    module: str
    probabilistic: bool
    rates: RateGrid | None = None
    functions: tuple = ()  # names of the module's measurement functions (e.g. "trial", "measure", "chain_cases")

    def load(self):
        return importlib.import_module(self.module)

    def fn(self, what: str) -> str:
        """``"package.module:function"`` of this statement's function ``what``."""
        if what not in self.functions:
            raise KeyError(f"{self.statement} has no measurement function {what!r} (has {', '.join(self.functions)})")
        return f"{self.module}:{what}"

    @property
    def calibration_grid(self) -> list[dict]:
        return list(getattr(self.load(), "CALIBRATION_GRID", []))

    def feasible(self, C: float, **point) -> bool:
        check = getattr(self.load(), "feasible", None)
        return True if check is None else bool(check(C, **point))


def _t(quick: int, full: int) -> dict:
    return {"quick": quick, "full": full}


_S = "slt.measure.statements."
REGISTRY: dict[str, Entry] = {e.statement: e for e in (
    Entry("lueker", _S + "lueker", True,
          RateGrid(tuple({"eps": e} for e in (0.9, 0.7, 0.5, 0.4, 0.3)), _t(20, 200)),
          ("trial", "eps_floor", "feasible")),
    Entry("lemma7", _S + "lemma7", True,
          RateGrid(({"d1": 2, "d2": 2, "eps": 0.1}, {"d1": 4, "d2": 4, "eps": 0.1}, {"d1": 8, "d2": 8, "eps": 0.2}),
                   _t(20, 200)), ("trial",)),
    Entry("lemma2", _S + "lemma2", True,
          RateGrid(({"d1": 2, "d2": 2, "eps": 0.1}, {"d1": 4, "d2": 3, "eps": 0.2}), _t(12, 80)), ("trial",)),
    Entry("theorem9", _S + "theorem9", True,
          RateGrid(tuple({"d1": d1, "d2": d2, "H": H, "alpha": max(d1, d2) ** 0.5, "eps": eps}
                         for d1, d2, H, eps in ((2, 2, 1, 0.2), (2, 3, 2, 0.2), (4, 4, 4, 0.3))), _t(6, 40)),
          ("trial", "build", "chain_cases")),
    Entry("theorem10", _S + "theorem10", True,
          RateGrid(({"d1": 2, "L": 2, "eps": 0.2, "alpha": 1.5},), _t(12, 80)), ("trial",)),
    Entry("theorem11", _S + "theorem11", True,
          RateGrid(({"d1": 2, "H": 2, "L": 1, "alpha": 2 ** 0.5, "eps": 0.2},), _t(6, 40)), ("trial",)),
    Entry("theorem14", _S + "theorem14", True,
          RateGrid(tuple({"d1": 2, "H": 1, "L": 1, "alpha": 1.5, "eps": 0.2, "B": B} for B in (2, 3, 4)),
                   _t(3, 20)), ("trial", "widths")),
    Entry("lemma8", _S + "lemma8", False, None, ()),
    Entry("lemma5", _S + "lemma5", False, None, ()),
    Entry("lemma12", _S + "lemma12", False, None, ("measure", "printed_search")),
    Entry("lemma13", _S + "lemma13", False, None, ("measure", "printed_search", "counterexample_case")),
)}

LENGTHS = {"quick": [2**k for k in range(1, 15)], "full": [2**k for k in range(1, 15)]}
"""Sequence lengths of the Lemma 8 / Lemma 5 length sweeps."""
T9_LENGTHS = {"quick": [2**k for k in range(1, 13)], "full": [2**k for k in range(1, 15)]}
"""Sequence lengths of the Theorem 9 one-ticket length sweep."""
T9_LENGTH_POINT = {"d1": 2, "d2": 2, "H": 2, "alpha": 2**0.5, "eps": 0.2}
T9_CHAIN_POINT = {"d1": 3, "d2": 2, "H": 2, "alpha": 3**0.5, "eps": 0.2}
SOFTMAX_POINT = {"d1": 2, "alpha": 2**0.5, "eps_max": 0.25}
SEARCH_RESTARTS = {"quick": 1, "full": 6}
LIPSCHITZ_PROOF_POINTS = [{"d1": 1, "H": 1, "alpha": 1.0, "eps_max": e, "T": 3} for e in (0.01, 0.1)]
"""Adversarial searches of Lemmas 12 and 13 in the form their proofs support."""


def names() -> list[str]:
    return list(REGISTRY)


def get(statement: str) -> Entry:
    try:
        return REGISTRY[statement]
    except KeyError:
        raise KeyError(f"no statement {statement!r} in the measuring registry (known: {', '.join(REGISTRY)})") from None


def calibratable() -> list[str]:
    """Statements with a trial and a calibration grid (what ``slth calibrate`` estimates C for)."""
    return [e.statement for e in REGISTRY.values() if e.probabilistic and "trial" in e.functions
            and e.calibration_grid]


def resolve(fn: str):
    """The function named by ``"package.module:function"``."""
    module, sep, name = fn.partition(":")
    if not sep or not name:
        raise ValueError(f"function reference {fn!r} is not of the form 'package.module:function'")
    return getattr(importlib.import_module(module), name)


def function(statement: str, what: str):
    """The callable ``what`` (e.g. ``"trial"``) of ``statement``."""
    return resolve(get(statement).fn(what))
