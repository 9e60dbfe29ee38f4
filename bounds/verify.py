"""ONE verifier for proof steps ``lhs <= rhs``: the driver that chooses the method (SymPy, then interval
arithmetic, then sampling).  Each method is a module of its own: ``bounds.verify_symbolic`` (1),
``bounds.verify_interval`` (2a and 2b, with the compactification of the whole domain), ``bounds.verify_search``
(the counterexample search and the margin), over the step's domain (``bounds.verify_domain``).

Each result states its method (the method that proved the step, or that found the counterexample) and its
domain: ``whole`` (the statement's whole hypothesis domain), ``box: ...`` (only the stated box) or ``sampled``.

1. symbolic: ``simplify(rhs - lhs) == 0``, or SymPy's assumptions prove ``rhs - lhs >= 0`` (also after
   factoring, the shift ``v = lo + t`` of every bounded-below parameter, and in the ratio form ``lhs/rhs``).
   A step without parameters is left to the intervals (SymPy would decide its sign numerically).
   An instance of a scalar fact (``facts.SCALAR``) is verified as the fact's certificate plus sub-steps putting
   its argument inside the fact's domain, over the step's domain.
2a. interval on the whole domain (``verify_interval``): unbounded parameters compactified, the Max of the alpha
   hypothesis split into exact cases, forms lhs/rhs, log rhs - log lhs, rhs - lhs (with a monotonicity test).
2b. interval on a bounded box (``Param.box``) by ``mpmath.iv`` with bisection (log-scale parameters are split at
   the geometric mean), only when 2a fails; then 200 seeded points of the whole domain are searched, and a
   violation there FAILS the step.
2c. far corners (``bounds.corners``), when no whole-domain certificate holds: every infinite end of the domain and
   every combination of ends, by a scan to X = 2^16384 and SymPy's limit of the leading behaviour along each ray;
   a confirmed violation there FAILS the step (method ``corner``).
3. sampled: seeded points (box corners + random, integer dimensions rounded) at 50 digits: evidence only.

A quick sample runs before the interval search; any point with ``lhs > rhs`` (relative to the sides' own size,
confirmed at 100 digits, so at any scale) is a counterexample and the step FAILS with it.  All numbers come from
``bounds.evaluate``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from . import corners, recheck
from .catalogue import lookup
from .core import Step
from .facts import SCALAR
from .symbols import x
from .verify_domain import Domain, txt
from .verify_interval import on_box, on_whole
from .verify_search import SAMPLES, SEED, WHOLE_SAMPLES, sample_box, sample_whole, smallest_ratio  # SEED: part of the API
from .verify_symbolic import simplify, symbolic

_RESULTS: dict = {}


@dataclass(frozen=True)
class StepResult:
    statement: str
    step: str
    method: str  # symbolic | interval | sampled (for a failure: the method that found the counterexample)
    ok: bool
    detail: str = ""
    box: dict = field(default_factory=dict)
    counterexample: dict | None = None
    domain: str = "sampled"  # "whole" (hypothesis domain), "box: <desc>" (certified on that box only) or "sampled"
    margin: float | None = None  # smallest rhs/lhs found (sampled points; 1.0 for an identity), None if lhs <= 0
    certificate: tuple | None = None  # interval certificates as data (bounds.certificate), None if none recorded
    arb: str = ""  # Arb re-check of the interval certificates (bounds.recheck): yes / no / failed; "" if symbolic

    @property
    def status(self) -> str:
        return "ok" if self.ok else "FAILED"


def verify(name: str, catalogue: dict | None = None) -> list[StepResult]:
    """Verify every step of the proof of statement ``name`` (in ``catalogue``, default the bounds catalogue)."""
    get = lookup(catalogue)
    st = get(name)
    return [verify_step(st.name, s, st.params) for s in st.steps(get)]


def verify_facts() -> list[StepResult]:
    """The scalar elementary facts (``facts.SCALAR``) verified on their domains."""
    return [verify_step("facts", Step(f.name, f.lhs, f.rhs), (f.domain,)) for f in SCALAR]


def verify_step(statement: str, step: Step, params: tuple = ()) -> StepResult:
    """Verify ``step`` on the domain of ``params`` (its own ``step.params`` take precedence); cached."""
    dom = Domain(step, params)
    key = (sp.srepr(step.lhs), sp.srepr(step.rhs), dom.key, step.relies_on)
    if key not in _RESULTS:
        method, ok, detail, box, cex, domain, *cert = _verify(step, dom, params)
        cert = cert[0] if cert else None
        arb = ""
        if ok and method == "interval":  # a second arithmetic re-checks the certificate (bounds.recheck)
            arb = recheck.status(cert) if cert else "no"
            if arb.startswith("failed"):
                ok, detail = False, f"{detail}; Arb re-check {arb}"
        _RESULTS[key] = (method, ok, detail, box, cex, domain, smallest_ratio(step, dom, detail), cert, arb)
    return StepResult(statement, step.name, *_RESULTS[key])


def _boxed(box: dict) -> str:
    return "box: " + "; ".join(box.values())



def _verify(step: Step, dom: "Domain", params: tuple):
    """(method, ok, detail, box, counterexample, domain)."""
    lhs, rhs = sp.sympify(step.lhs), sp.sympify(step.rhs)
    proof = symbolic(lhs, rhs, dom)
    if proof:
        return "symbolic", True, proof, {}, None, "whole"
    by_fact = _by_fact(step, params)
    if by_fact:
        return by_fact
    cex = sample_box(lhs, rhs, dom, 64)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point", dom.describe(), cex, _boxed(dom.describe())
    whole_ok, whole_how, certs = on_whole(lhs, rhs, dom)
    if whole_ok:
        return "interval", True, whole_how, {}, None, "whole", certs
    ok, detail, cex, box = on_box(lhs, rhs, dom)
    if ok and not box:  # the certified form has no parameters left: it holds everywhere
        return "interval", True, f"{detail} (a constant after simplification: holds for all parameters)", {}, None, \
            "whole"
    if ok:
        outside = sample_whole(lhs, rhs, dom, WHOLE_SAMPLES)
        if outside:
            return ("sampled", False, f"certified on the box only ({detail}); FAILS outside it", box, outside,
                    _boxed(box))
        far = corners.search(lhs, rhs, tuple(dom.table.values()))
        if far:
            return ("corner", False, f"certified on the box only ({detail}); FAILS outside it: {far.describe()}",
                    box, far.counterexample, _boxed(box))
        return ("interval", True, f"{detail}; not certified beyond the box ({whole_how}); no violation at "
                f"{WHOLE_SAMPLES} seeded points of the whole domain", box, None, _boxed(box))
    if cex:
        return "interval", False, detail, box, cex, _boxed(box)
    cex = sample_box(lhs, rhs, dom, SAMPLES) or sample_whole(lhs, rhs, dom, WHOLE_SAMPLES)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point; " + detail, dom.describe(), cex, "sampled"
    far = corners.search(lhs, rhs, tuple(dom.table.values()))
    if far:
        return "corner", False, f"{far.describe()}; {detail}", dom.describe(), far.counterexample, "sampled"
    return ("sampled", True, f"evidence only: no violation at {SAMPLES} seeded points of the box and "
            f"{WHOLE_SAMPLES} of the whole domain; {detail}", dom.describe(), None, "sampled")


def _by_fact(step: Step, params: tuple):
    """A step that is an instance of a scalar fact it relies on: lhs with every instance F.lhs(a) replaced
    by F.rhs(a) equals rhs (symbolically), lhs is nondecreasing in each instance, and every argument a
    lies in the fact's domain (verified as a sub-step).  The fact itself is verified by ``verify_facts``."""
    for fact in SCALAR:
        if fact.name not in step.relies_on:
            continue
        w = sp.Wild("w")
        pattern = fact.lhs.xreplace({x: w})
        instances = sorted(step.lhs.find(pattern), key=sp.default_sort_key)
        if not instances:
            continue
        lhs, rhs, args = step.lhs, step.lhs, []
        for k, inst in enumerate(instances):
            y = sp.Symbol(f"y{k}", nonnegative=True)
            a = inst.match(pattern)[w]
            lhs = lhs.xreplace({inst: y})
            if not sp.diff(lhs, y).is_nonnegative:
                break
            args.append((y, a))
        else:
            applied = lhs.xreplace({y: fact.rhs.xreplace({x: a}) for y, a in args})
            if simplify(applied - step.rhs) != 0:
                continue
            certificate = verify_step("facts", Step(fact.name, fact.lhs, fact.rhs), (fact.domain,))
            if not certificate.ok:
                return None
            methods = [certificate]
            for y, a in args:
                for bound, name in ((fact.domain.lo, "lo"), (fact.domain.hi, "hi")):
                    for v in bound:
                        sub = Step(f"{step.name}[{name}]", v, a) if name == "lo" else Step(f"{step.name}[{name}]", a, v)
                        sub = Step(sub.name, sub.lhs, sub.rhs, params=step.params)
                        r = verify_step("", sub, params)
                        if not r.ok:
                            return None
                        methods.append(r)
            method = max((r.method for r in methods), key=_RANK.__getitem__)
            domain = max((r.domain for r in methods), key=_domain_rank)
            detail = (f"instance of fact '{fact.name}' (certified on {certificate.domain} of its domain) at "
                      f"x = {txt(args[0][1])}; the argument stays in the fact's domain on {domain} of the step's "
                      f"domain, by {method}")
            box = {k: v for r in methods for k, v in r.box.items()}
            parts = [r.certificate for r in methods if r.method == "interval"]
            certs = None if any(p is None for p in parts) else tuple(c for p in parts for c in p)
            return method, True, detail, box, None, domain, certs
    return None


_RANK = {"symbolic": 0, "interval": 1, "sampled": 2}


def _domain_rank(domain: str) -> int:
    return 0 if domain == "whole" else 1 if domain.startswith("box") else 2
