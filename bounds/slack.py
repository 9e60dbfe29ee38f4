"""The slack of every numeric constant of the encoded proofs: the tightest value for which every step of
every proof still closes (``slth proofs --slack``).

Each ``Constant`` names one number of one statement (in one or more of its fields, e.g. Lemma 8's 2 in
``exp(2 eps_max)`` sits in the conclusion and in the proof constant ``ratio``).  ``slack(constant)`` replaces
it by a candidate value (``bounds.core.Edit`` on a copy of the catalogue) and runs the verifier on every
proof; a value *closes* when every step is certified (symbolic or interval, on its stated domain).  From the
printed value it walks in the direction that tightens the statement (a factor 2 at a time, then bisection in
log scale to a relative ``TOL``) and returns the last value that closes (certified like any step) and the
first that does not (with the step that fails there and its counterexample).  A constant whose slightest
tightening fails is *forced*.

``rows()`` returns the table as plain dicts for the CLI, the report and the run record.
"""
from __future__ import annotations

from dataclasses import dataclass

import mpmath
import sympy as sp

from .catalogue import STATEMENTS, canonical
from .core import Edit
from .symbols import d1, d2, eps

TOL = sp.Rational(1, 100)  # the bracket [closing, failing] is narrowed to a relative width below 1%
REACH = 40  # at most 2^40 away from the printed value


@dataclass(frozen=True)
class Constant:
    """A number ``value`` in the fields ``where`` of ``statement``; ``tighter`` is -1 when a smaller value
    makes the statement stronger (a width's factor, a bound's factor), +1 when a larger one does (an error
    budget handed to a sub-step; Theorem 11's split, whose lower end is forced by the 32 of n_MHA, is searched
    upwards to show its room); ``old`` is the SymPy sub-expression edited (default: the number itself) and
    ``template`` the expression in ``_C`` replacing it."""

    statement: str
    label: str
    where: tuple
    value: object
    tighter: int = -1
    old: object = None
    template: object = None  # SymPy expression in the symbol _C replacing ``old`` (default: _C itself)

    def edits(self, c) -> list[Edit]:
        old = sp.sympify(self.value if self.old is None else self.old)
        new = c if self.template is None else sp.sympify(self.template).xreplace({_C: c})
        return [Edit(self.statement, w, old, new) for w in self.where]


_C = sp.Symbol("_C", positive=True)


def _constants() -> tuple:
    st = STATEMENTS
    t14 = st["theorem14"].constants
    return (
        Constant("theorem9", "the 8 in n_K = d1 C log(8 H alpha^3 d1^(3/2)/eps)", ("widths.n_K",), 8),
        Constant("theorem9", "the exponent 3 of alpha in n_K", ("widths.n_K",), 3),
        Constant("theorem9", "the 2 in n_V = d1 C log(2 H alpha d1 sqrt(d2)/eps)", ("widths.n_V",), 2),
        Constant("theorem9", "the 8 of the logit error budget eps/(8 H alpha sqrt(d1))", ("constants.logit",),
                 sp.Rational(1, 8), tighter=+1),
        Constant("theorem9", "the 2 of the softmax error budget eps/(2H)", ("constants.softmax",),
                 sp.Rational(1, 2), tighter=+1),
        Constant("lemma2", "the 2 in n = d1 C log(2 d1 d2/eps)", ("widths.n",), 2),
        Constant("lemma2", "the 2 of the per-problem budget eps/(2 d1 d2)", ("constants.per_problem",),
                 sp.Rational(1, 2), tighter=+1),
        Constant("theorem10", "the 4 in n_l = d_l C log(4 L d_l d_(l+1)/eps)", ("widths.n_l",), 4),
        Constant("theorem10", "the 2 of the layer budget eps/(2L) handed to Lemma 2", ("constants.budget",),
                 sp.Rational(1, 2), tighter=+1),
        Constant("theorem11", "the 32 in n_MHA", ("widths.n_MHA",), 32),
        Constant("theorem11", "the 24 in n_FC", ("widths.n_FC",), 24),
        Constant("theorem11", "the split eps/4 (MHA error eps/4, FC error exp(eps/4) - 1)", ("constants.split",),
                 sp.Rational(1, 4), tighter=+1),
        Constant("theorem11", "the 3 in the FC input norm 3 alpha H sqrt(d1)", ("constants.fc_in",), 3),
        Constant("theorem14", "kappa in P_j = prod kappa H sqrt(d1) beta_i^2", ("constants.kappa",),
                 t14["kappa"]),
        Constant("theorem14", "the 4 in the growth factor 4 H sqrt(d1)", ("constants.growth",), 4),
        Constant("theorem14", "the 2 of the perturbed input norm 2 beta_b", ("constants.perturbed_norm",), 2),
        Constant("theorem14", "the union-bound total 1055/1984", ("constants.union",), t14["union"]),
        Constant("theorem14", "the geometric share 16/31", ("constants.later_share",), t14["later_share"]),
        Constant("theorem14", "block 1's share 1/64", ("constants.first_share",), t14["first_share"]),
        Constant("lemma5", "the 4 in 4 sqrt(d1) alpha eps_max", ("conclusion",), 4),
        Constant("lemma8", "the 2 in exp(2 eps_max) - 1", ("conclusion", "constants.ratio"), 2,
                 old=2 * sp.Symbol("epsilon_max", nonnegative=True), template=_C * sp.Symbol("epsilon_max",
                                                                                               nonnegative=True)),
        Constant("lemma7", "the factor of d1 d2 inside the logarithm of n = d1 C log(d1 d2/eps)", ("widths.n",), 1,
                 old=d1 * d2 / eps, template=_C * d1 * d2 / eps),
        Constant("lemma12", "the 4 in exp(4 alpha eps_max)", ("conclusion",), 4),
        Constant("lemma13", "the factor 2 of the proof's last line 2 H sqrt(d1)(...)", ("conclusion",
                 "constants.last_line"), 2),
    )


CONSTANTS = _constants()


def _affected(statement: str) -> list[str]:
    """The proved statements whose proofs use ``statement`` (directly or through others), itself first."""
    from .catalogue import proof
    from .mutations import PROVED
    uses = {n: {d for s in proof(n) for d in s.relies_on if d in STATEMENTS} for n in PROVED}
    out, grow = {statement}, True
    while grow:
        grow = False
        for n, deps in uses.items():
            if n not in out and deps & out:
                out.add(n)
                grow = True
    return ([statement] if statement in uses else []) + [n for n in PROVED if n in out and n != statement]


def _closes(constant: "Constant", catalogue) -> tuple:
    """(True, None) when every step of every proof affected by the edit is certified; else (False, failing
    step result).  Statements the edit does not reach keep their (cached) results."""
    from .verify import verify
    for name in _affected(constant.statement):
        for r in verify(name, catalogue):
            if not r.ok or r.method == "sampled":
                return False, r
    return True, None


def _catalogue(constant: Constant, c):
    cat = dict(STATEMENTS)
    if sp.sympify(c) == sp.sympify(constant.value):
        return cat
    for e in constant.edits(c):
        key = canonical(e.statement)
        cat[key] = e.apply(cat[key])
    return cat


def _value(x) -> sp.Rational:
    """A candidate as an exact dyadic rational with 10 significant bits (finer than ``TOL``; short numbers keep
    the edited proofs cheap to simplify)."""
    x = mpmath.mpf(x)
    e = int(mpmath.floor(mpmath.log(x, 2))) - 9
    return sp.Rational(int(mpmath.nint(x / mpmath.mpf(2) ** e))) * sp.Rational(2) ** e


def slack(constant: Constant, progress=None) -> dict:
    """The tightest closing value of ``constant`` (see the module docstring) as a row dict."""
    printed = sp.nsimplify(constant.value)
    ok, bad = _closes(constant, _catalogue(constant, printed))
    if not ok:
        return _row(constant, printed, None, printed, bad, 0, "the printed value does not close")
    step = sp.Rational(1, 2) if constant.tighter < 0 else sp.Integer(2)
    good, probes, fail, fail_r = printed, 1, None, None
    for _ in range(REACH):
        cand = _value(good * step)
        ok, bad = _closes(constant, _catalogue(constant, cand))
        probes += 1
        if progress:
            progress(constant, cand, ok)
        if not ok:
            fail, fail_r = cand, bad
            break
        good = cand
    else:
        return _row(constant, printed, good, None, None, probes, f"still closes at 2^{REACH} times the printed value")
    while abs(fail / good - 1) > TOL:
        cand = _value(mpmath.sqrt(mpmath.mpf(good) * mpmath.mpf(fail)))
        if cand in (good, fail):
            break
        ok, bad = _closes(constant, _catalogue(constant, cand))
        probes += 1
        if progress:
            progress(constant, cand, ok)
        if ok:
            good = cand
        else:
            fail, fail_r = cand, bad
    return _row(constant, printed, good, fail, fail_r, probes, "")


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


def rows(constants=None, progress=None) -> list[dict]:
    """The slack table: one row per constant (``CONSTANTS`` by default)."""
    return [slack(c, progress) for c in (CONSTANTS if constants is None else constants)]
