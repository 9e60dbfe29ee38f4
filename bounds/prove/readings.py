"""Theorem 14's constant under each reading (declared beside the statement: ``Statement.readings``, the table
``bounds.theorem14.READINGS``): the verifier's verdict at the printed
kappa = 16 and the smallest integer kappa that closes the reading, found by bisection and certified at both ends
(kappa verified, kappa - 1 failing with a counterexample).

Two thresholds per reading: ``block`` (the block step T14d-x, T14d-i, T14d-ii, where kappa enters the error
recursion) and ``proof`` (every step of Theorem 14 and of Lemmas 12, 13 under the reading; ``None`` when some
step fails at every kappa, e.g. T14c at input norm beta_b).  Every step is monotone in kappa: a larger kappa only
shrinks delta_b relative to eps_b, and the widths are compared at the same kappa on both sides.  At the
block threshold minus one the EXACT block inequality ``eps_b + Lemma 13 <= delta_(b+1)`` (no bound on exp) is
decided too (``exact``): a counterexample there shows that kappa - 1 fails for the exponential itself; a
certificate (through a chord bound) shows that only the reading's bound on exp fails there.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..catalogue import STATEMENTS, dependents, lookup
from ..core import Edit, Statement
from .mutations import catalogue_with
from .verify import NOT_PROVED, REFUTED, StepResult, verify_step

KAPPA_MAX = 1024


def owner() -> Statement:
    """The statement that declares readings of one of its constants (``Statement.readings``)."""
    owners = [st for st in STATEMENTS.values() if st.readings is not None]
    if len(owners) != 1:
        raise LookupError(f"expected one statement declaring readings, found {[st.name for st in owners]}")
    return owners[0]


def _proofs() -> list[str]:
    """The proofs a reading can change: those of the statements its edits touch, and of their users."""
    st = owner()
    touched = {st.name} | {e.statement for _, _, edits, _ in st.readings.table.values() for e in edits}
    return dependents(sorted(touched))


class Undecided(RuntimeError):
    """A step neither certified nor refuted (not proved): the bisection cannot decide."""


@dataclass(frozen=True)
class Threshold:
    kappa: int | None  # smallest integer kappa that closes the steps, None if none up to KAPPA_MAX
    below: tuple = ()  # the failing StepResults at kappa - 1 (each with a counterexample)
    never: tuple = ()  # when kappa is None: the failing StepResults at KAPPA_MAX


@dataclass(frozen=True)
class Verdict:
    reading: str
    label: str
    description: str
    printed: tuple  # failing StepResults at kappa = 16
    block: Threshold
    proof: Threshold
    exact_below: Exact | None  # the block inequality with the exact exponential at block.kappa - 1


def catalogue(reading: str, kappa_value) -> dict:
    """The bounds catalogue under ``reading`` with Theorem 14's constant set to ``kappa_value``."""
    spec = owner().readings
    if reading not in spec.table:
        raise ValueError(f"unknown reading {reading!r}; readings: {sorted(spec.table)}")
    return catalogue_with(*spec.table[reading][2], *(spec.edits(kappa_value) if kappa_value != spec.declared else ()))


def results(reading: str, kappa_value, steps=None, stop: bool = False, skip: tuple = ()) -> list[StepResult]:
    """The verifier's results for the reading at ``kappa_value`` (``steps``: names of Theorem 14's steps to verify;
    default every step of Lemmas 12, 13 and Theorem 14).  ``stop``: return at the first failing step, verifying
    the block inequality T14d-ii first (the step kappa decides; refuted in about a second)."""
    get, spec, name0 = lookup(catalogue(reading, kappa_value)), owner().readings, owner().name
    pending = [(get(name), s) for name in _proofs() for s in get(name).steps(get)
               if (steps is None or (name == name0 and s.name in steps)) and not (name == name0 and s.name in skip)]
    if stop:
        pending.sort(key=lambda p: p[1].name != spec.decisive)
    return _verified(pending, stop)


def _verified(pending, stop: bool = True) -> list[StepResult]:
    """The results of ``pending`` ((statement, step) pairs) in order; ``stop``: up to the first not certified."""
    out = []
    for st, s in pending:
        out.append(verify_step(st.name, s, st.params))
        if stop and not out[-1].ok:
            break
    return out


def closes(reading: str, kappa_value, steps=None, skip: tuple = ()) -> tuple[bool, list[StepResult]]:
    """(every step certified, the refuted results); raises ``Undecided`` on a step that is not proved."""
    res = results(reading, kappa_value, steps, stop=True, skip=skip)
    failed = [r for r in res if r.verdict == REFUTED]
    if failed:
        return False, failed
    weak = [r for r in res if r.verdict == NOT_PROVED]
    if weak:
        raise Undecided(f"{reading} at kappa = {kappa_value}: not proved: "
                        + "; ".join(f"{r.step} ({r.detail})" for r in weak))
    return True, []


def smallest_kappa(reading: str, steps=None, lo: int = 1, hi: int = KAPPA_MAX, skip: tuple = ()) -> Threshold:
    """Bisection for the smallest integer kappa in [lo, hi] that closes ``steps`` (see ``results``)."""
    ok, failed = closes(reading, hi, steps, skip)
    if not ok:
        return Threshold(None, never=tuple(failed))
    ok, below = closes(reading, lo, steps, skip)
    if ok:
        return Threshold(lo)
    while hi - lo > 1:  # invariant: lo fails (with ``below``), hi closes
        mid, (ok, failed) = _decided(reading, lo, hi, steps, skip)
        if ok:
            hi = mid
        else:
            lo, below = mid, failed
    return Threshold(hi, tuple(below))


def _decided(reading, lo, hi, steps, skip):
    """(kappa, closes(kappa)) for the integer kappa strictly between lo and hi nearest their midpoint that the
    verifier decides (certified or refuted): a probe left not proved is skipped (steps are monotone in kappa, so any
    decided probe keeps the bisection's invariant); ``Undecided`` when none is."""
    mid = (lo + hi) // 2
    order = sorted(range(lo + 1, hi), key=lambda k: (abs(k - mid), k))
    for k in order:
        try:
            return k, closes(reading, k, steps, skip)
        except Undecided:
            continue
    raise Undecided(f"{reading}: no kappa in ({lo}, {hi}) is certified or refuted")


def exact_block_step(reading: str, kappa_value):
    """eps_b + Lemma 13 (exact exponential) <= delta_(b+1) under the reading at ``kappa_value``."""
    get = lookup(catalogue(reading, kappa_value))
    st = get(owner().name)
    return st.readings.exact_step(st, get)


@dataclass(frozen=True)
class Exact:
    """The block inequality with the exact exponential at one kappa: ``holds`` pre-checked through the chord
    exp(x)-1 <= 1.02 x on [0, 1/32] (``results``: the block steps so verified), or refuted (``results``: the exact
    step's failing result, with its counterexample)."""
    kappa: int
    holds: bool
    results: tuple


def exact(reading: str, kappa_value) -> Exact:
    """Does the reading's block step hold at ``kappa_value`` with the exact exponential?  First the certificate
    through the chord bound (cheap); when that does not close, the exact inequality itself is searched for a
    counterexample; neither: ``Undecided``."""
    cat, name0, spec = catalogue(reading, kappa_value), owner().name, owner().readings
    where, chord = spec.chord
    head, _, key = where.partition(".")
    bound = getattr(cat[name0], head)[key]
    if bound != chord:
        cat[name0] = Edit(name0, where, bound, chord).apply(cat[name0])
    get = lookup(cat)
    st = get(name0)
    block = sorted((s for s in st.steps(get) if s.name in spec.block_steps), key=lambda s: s.name != spec.decisive)
    res = _verified([(st, s) for s in block])
    if all(r.ok for r in res):
        return Exact(int(kappa_value), True, tuple(res))
    r = verify_step(st.name, exact_block_step(reading, kappa_value), st.params)
    if r.verdict == REFUTED:
        return Exact(int(kappa_value), False, (r,))
    raise Undecided(f"{reading} at kappa = {kappa_value}: the exact block inequality is neither certified through "
                    f"the chord nor refuted ({r.method}: {r.detail})")


def verdict(reading: str) -> Verdict:
    spec = owner().readings
    label, description, _, _ = spec.table[reading]
    printed = tuple(r for r in results(reading, spec.printed) if not r.ok)
    block = smallest_kappa(reading, spec.block_steps)
    below = exact(reading, block.kappa - 1) if block.kappa is not None and block.kappa > 1 else None
    # above the block threshold the block steps hold (certified there, monotone in kappa): they are not verified
    # again at every probe (a probe such as kappa = 10 may find no certificate for them: not proved, undecided)
    proof = smallest_kappa(reading, None, lo=block.kappa, skip=spec.block_steps) if block.kappa else \
        smallest_kappa(reading)
    if proof.kappa is not None and proof.kappa == block.kappa:  # kappa - 1 fails the block steps, part of the proof
        proof = Threshold(proof.kappa, block.below)
    return Verdict(reading, label, description, printed, block, proof, below)
