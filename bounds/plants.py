"""False steps planted in each way a verifier can be fooled, each beside a true step of the same shape.

The classes are those a sound verifier must survive: a domain wider than its symbol's assumptions (in sign, in
integrality), an upper bound or an open end that changes the verdict, a violation only on a bounded window far out,
only next to a finite open end, only at dimension one, and a step whose SymPy stage would run for minutes; and a
side undefined somewhere on the domain (``UNDEFINED``): a pole inside it, next to each open end, at an admissible
integer, at a closed end, a removable ``0/0`` that ``simplify`` cancels, ``log`` reaching 0, a square root below 0,
a fractional power of 0 and of a negative number.  ``REFUSED`` holds what may not even be built: a step holding a
``Float`` (``1 + Float(1e-20)`` is ``1.0`` before any judge sees it), refused with the exact rational to write.
The harness must refute each false step at an admissible point or leave it not proved (``tests/test_sound_verdicts.py``),
and Coq must reject its lemma under the whole generated cascade (``tests/test_coq.py``); Coq proving the true
step of the same shape shows that the rejection is not an export that can prove nothing."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

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

EPS_CLOSED = Param("eps", lo=(0,), hi=(1,), box=(2**-20, 1), log=True)  # 0 <= eps <= 1
D1 = Param("d1", lo=(1,), integer=True, box=(1, 64), log=True)
D1_2 = Param("d1", lo=(2,), integer=True, box=(2, 64), log=True)
MILLION = sp.Integer(10**6)

UNDEFINED = (
    Plant("pole-inside", "1/(1 - 3 eps) has a pole at eps = 1/3, inside 0 < eps < 1 (and exceeds 10^6 beside it)",
          Step("pole-inside", 1 / (1 - 3 * eps), MILLION), (EPS,),
          Step("pole-inside", 1 / (1 + 3 * eps), MILLION), (EPS,)),
    Plant("pole-inside-below", "1/(1/3 - eps) has a pole at eps = 1/3 and is below -10^9 just above it",
          Step("pole-inside-below", -sp.Integer(10**9), 1 / (sp.Rational(1, 3) - eps)), (EPS,),
          Step("pole-inside-below", -sp.Integer(10**9), 1 / (sp.Rational(4, 3) - eps)), (EPS,)),
    Plant("pole-lower-end", "1/eps exceeds 10^6 next to the open lower end eps > 0",
          Step("pole-lower-end", 1 / eps, MILLION), (EPS,),
          Step("pole-lower-end", sp.Integer(1), 1 / eps), (EPS,)),
    Plant("pole-upper-end", "1/(1 - eps) exceeds 10^6 next to the open upper end eps < 1",
          Step("pole-upper-end", 1 / (1 - eps), MILLION), (EPS,),
          Step("pole-upper-end", sp.Integer(1), 1 / (1 - eps)), (EPS,)),
    Plant("pole-integer", "1/(d1 - 1) has a pole at the admissible integer d1 = 1",
          Step("pole-integer", -sp.Integer(10), 1 / (d1 - 1)), (D1,),
          Step("pole-integer", -sp.Integer(10), 1 / (d1 - 1)), (D1_2,)),
    Plant("pole-closed-end", "1/eps has a pole at the closed end eps = 0 of 0 <= eps <= 1",
          Step("pole-closed-end", sp.Integer(0), 1 / eps), (EPS_CLOSED,),
          Step("pole-closed-end", sp.Integer(0), 1 / eps), (EPS,)),
    Plant("removable", "(d1^2 - 1)/(d1 - 1) is 0/0 at d1 = 1 (simplify cancels it to d1 + 1; its limit is no value)",
          Step("removable", (d1**2 - 1) / (d1 - 1), d1 + 1), (D1,),
          Step("removable", (d1**2 - 1) / (d1 + 1), d1 - 1), (D1,)),
    Plant("log-zero", "log eps at the closed end eps = 0 of 0 <= eps <= 1",
          Step("log-zero", sp.log(eps), sp.Integer(0)), (EPS_CLOSED,),
          Step("log-zero", sp.log(eps + sp.Rational(1, 2)), sp.Integer(1)), (EPS,)),
    Plant("sqrt-negative", "sqrt(eps - 1/2) of a negative number for eps < 1/2",
          Step("sqrt-negative", sp.sqrt(eps - sp.Rational(1, 2)), sp.Integer(1)), (EPS,),
          Step("sqrt-negative", sp.sqrt(eps + sp.Rational(1, 2)), sp.Integer(2)), (EPS,)),
    Plant("power-of-zero", "(d1 - 1)^(1/3) is 0 at d1 = 1 (Coq's Rpower would say 1)",
          Step("power-of-zero", sp.Integer(1), (d1 - 1) ** sp.Rational(1, 3)), (D1,),
          Step("power-of-zero", sp.Integer(1), (d1 - 1) ** sp.Rational(1, 3)), (D1_2,)),
    Plant("power-of-negative", "(eps - 1/2)^(1/3) of a negative number for eps < 1/2 (no real principal value)",
          Step("power-of-negative", (eps - sp.Rational(1, 2)) ** sp.Rational(1, 3), sp.Integer(1)), (EPS,),
          Step("power-of-negative", (eps + sp.Rational(1, 2)) ** sp.Rational(1, 3), sp.Integer(2)), (EPS,)),
)
PLANTS = PLANTS + UNDEFINED


@dataclass(frozen=True)
class Refused:
    """A false step that may not be built: ``build()`` raises ValueError whose text names ``rational``, the exact
    number to write instead; ``true`` is the step written with it."""

    name: str
    why: str
    build: Callable
    rational: str
    true: Step
    true_params: tuple


REFUSED = (
    Refused("float-absorbed", "(1 + Float(1e-20)) d1 is 1.0 d1 before any judge sees it: d1 <= d1 would be certified",
            lambda: Step("float-absorbed", (1 + sp.Float(1e-20)) * d1, d1), "Integer(1)",
            Step("float-absorbed", d1, (1 + sp.Rational(1, 10**20)) * d1), (D1,)),
    Refused("float", "d1 + Float(1e-20) holds the binary number nearest 10^-20, not 10^-20",
            lambda: Step("float", d1 + sp.Float(1e-20), d1), "Rational(1, 10**20)",
            Step("float", d1, d1 + sp.Rational(1, 10**20)), (D1,)),
)
