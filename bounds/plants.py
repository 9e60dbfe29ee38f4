"""False steps planted in each way a verifier can be fooled, each beside a true step of the same shape.

The classes are those a sound verifier must survive: a domain wider than its symbol's assumptions (in sign, in
integrality), an upper bound or an open end that changes the verdict, a violation only on a bounded window far out,
only next to a finite open end, only at dimension one, and a step whose SymPy stage would run for minutes.  The
harness must refute each false step at an admissible point or leave it not proved (``tests/test_sound_verdicts.py``),
and Coq must reject its lemma under the whole generated cascade (``tests/test_coq.py``); Coq proving the true
step of the same shape shows that the rejection is not an export that can prove nothing."""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .core import Param, Step
from .symbols import L, d1, d2, e_l, eps

EPS = Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True, box=(2**-20, 1), log=True)
D2 = Param("d2", lo=(1,), integer=True, box=(1, 64), log=True)
LL = Param("L", lo=(1,), integer=True, box=(1, 64), log=True)
DIMS = tuple(Param(n, lo=(1,), integer=True, box=(2, 64), log=True) for n in ("d1", "d2", "L"))
WINDOW = (sp.log(d2) - 140) ** 2  # below 1 only for d2 in (e^139, e^141)
BUMP = sp.exp(-(sp.log(d2) - 140) ** 2)  # SymPy's factor runs for minutes on it
END = sp.Max(eps - sp.Rational(9, 10), 0) * sp.Max(sp.log(L) - 139, 0)  # positive only where eps > 0.9, L > e^139


@dataclass(frozen=True)
class Plant:
    name: str
    why: str  # where the false step fails
    false: Step
    false_params: tuple
    true: Step  # the same shape, true on its domain
    true_params: tuple


PLANTS = (
    Plant("sign", "e_l = -1/2 of the declared e_l >= -1 (the symbol e_l is nonnegative)",
          Step("sign", e_l, 2 * e_l), (Param("e_l", lo=(-1,), box=(-1, 4)),),
          Step("sign", e_l, 2 * e_l), (Param("e_l", lo=(0,), box=(0, 4)),)),
    Plant("integrality", "d1 = 0.7 of the declared real d1 >= 1/2 (the symbol d1 is a positive integer)",
          Step("integrality", sp.Integer(1), d1), (Param("d1", lo=(sp.Rational(1, 2),), box=(sp.Rational(1, 2), 4)),),
          Step("integrality", sp.Integer(1), d1), (Param("d1", lo=(1,), box=(1, 4)),)),
    Plant("upper-bound", "eps = 3 once the upper end of eps moves from 1 to 4",
          Step("upper-bound", eps, sp.Integer(1)),
          (Param("eps", lo=(0,), hi=(4,), lo_open=True, hi_open=True, box=(2**-20, 4), log=True),),
          Step("upper-bound", eps, sp.Integer(1)), (EPS,)),
    Plant("open-end", "d1 = 1 once the lower end d1 > 1 is closed",
          Step("open-end", sp.Integer(2), d1), (Param("d1", lo=(1,), integer=True, box=(2, 64), log=True),),
          Step("open-end", sp.Integer(2), d1), (Param("d1", lo=(2,), integer=True, box=(2, 64), log=True),)),
    Plant("window", "d2 in (e^139, e^141) only, between two doubling points of the far scan",
          Step("window", sp.Integer(1), WINDOW), (D2,), Step("window", sp.Integer(0), WINDOW), (D2,)),
    Plant("finite-end", "eps > 0.9 and L > e^139 only, next to the open end eps < 1",
          Step("finite-end", END, sp.Integer(0)), (EPS, LL),
          Step("finite-end", eps * sp.log(L), sp.log(L)), (EPS, LL)),
    Plant("dimension-one", "d1 = d2 = L = 1 only, outside the boxes the steps are certified on",
          Step("dimension-one", sp.Integer(2), d1 * d2 * L), DIMS,
          Step("dimension-one", sp.Integer(1), d1 * d2 * L), DIMS),
    Plant("slow-stage", "d2 near e^140, where a SymPy stage of the verifier would run for minutes",
          Step("slow-stage", BUMP, sp.Rational(1, 2)), (D2,), Step("slow-stage", BUMP, sp.Integer(1)), (D2,)),
)
