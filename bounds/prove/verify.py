"""ONE verifier for proof steps ``lhs <= rhs``: the driver that chooses the method, each a module of its own
(``verify_symbolic``, ``verify_interval``, ``verify_search``, ``corners``), over the step's declared domain
(``verify_domain``: the hypotheses of its statement's parameters and of its own ``Step.params``).

Before any method, both sides are proved DEFINED on the whole declared domain (``verify_defined``, read from the
unsimplified sides).  A step that fails this is never certified: refuted by an Arb-proved violation at an
admissible point (beside the point where it is undefined, at sampled points, in the far corners), or by a side not
real at an admissible point; else "not proved (undefined at <point>: ...)" (method ``definedness``).

Each result has one of three verdicts (``StepResult.verdict``):

- ``certified``: proved symbolically or by intervals on the WHOLE declared domain (``ok`` is True only then);
- ``refuted``: a counterexample at an admissible point (every hypothesis holds there, proved by Arb), its
  violation proved by Arb enclosures of the two sides that separate; a point outside the hypotheses, or a violation
  Arb cannot confirm, refutes nothing;
- ``not proved``: neither; e.g. a certificate on the search box only, no violation at sampled points, a SymPy stage
  that spent its work budget ("work budget spent in <stage>", ``verify_domain.STAGE_CALLS``, the same on every
  machine), a stage the CPU-time guard cut first ("machine too slow: ...", ``$SLTH_SYMPY_SECONDS``; never kept in
  the verdict store), or a side ``bounds.evaluate`` has no rule for (method ``evaluation``).  This is never a
  pass: ``slth proofs`` exits 1 on it.

The symbolic methods reason about symbols whose assumptions are derived from the declarations (``Domain.symbols``);
for a parameter declared wider than its global symbol's assumptions the interval forms are not run.  A verdict is
cached per process under ``verdict_key`` and kept on disk between processes (``verdict_cache``).  It also states
its method and the domain the method covered: ``whole``, ``box: ...`` or ``sampled``.  Every Float of a sub-step is
replaced by the rational it stores before any method runs.

The order: (1) symbolic (``simplify``, SymPy's assumptions, after factoring and shifts; an instance of a scalar fact
as the fact's certificate plus sub-steps putting its argument in the fact's domain); a quick sample of 64 points;
(2a) intervals on the whole domain; (2b) intervals on a bounded box (``Param.box``), then 200 seeded points of the
whole domain; (2c) the far corners, when no whole-domain certificate holds; (3) seeded sampling, evidence only.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from . import corners, recheck, verdict_cache
from ..catalogue import lookup
from ..core import Step
from ..evaluate import CannotEvaluate
from ..facts import SCALAR
from ..symbols import text as txt
from ..symbols import x
from . import verify_domain
from .verify_defined import defined
from .verify_domain import Domain, declared, param_key
from .verify_interval import on_box, on_whole
from .verify_search import SAMPLES, SEED, WHOLE_SAMPLES, check_point, sample_box, sample_whole, smallest_ratio  # SEED: part of the API
from .verify_symbolic import TIMED_OUT, simplify, symbolic, timed

VERSION = 6  # part of every verdict's key: raised whenever a change of the verifier may change a verdict
_RESULTS: dict = {}
_UNSEARCHED_RESULTS: dict = {}  # verify_step(search=False) on a step no certificate proves (on disk: never a verdict)
UNSEARCHED = "unsearched"  # the method of such a result: not certified, no counterexample searched for
CERTIFIED, REFUTED, NOT_PROVED = "certified", "refuted", "not proved"
VERDICTS = (CERTIFIED, REFUTED, NOT_PROVED)


def exact(expr) -> sp.Expr:
    """``expr`` with every Float replaced by the exact rational it stores (its binary value, not its digits)."""
    expr = sp.sympify(expr)
    return expr.xreplace({f: sp.Rational(f) for f in expr.atoms(sp.Float)})


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
    certificate: tuple | None = None  # interval certificates as data (bounds.prove.certificate), None if none recorded
    arb: str = ""  # Arb re-check of the interval certificates (bounds.prove.recheck): yes / no / failed; "" if symbolic

    @property
    def verdict(self) -> str:
        """``certified`` (on the whole declared domain), ``refuted`` (with its counterexample) or ``not proved``."""
        return CERTIFIED if self.ok else REFUTED if self.counterexample else NOT_PROVED

    status = verdict


def verify(name: str, catalogue: dict | None = None, on_step=None, search: bool = True) -> list[StepResult]:
    """Verify every step of the proof of statement ``name`` (in ``catalogue``, default the bounds catalogue);
    ``on_step(result, steps)`` after each (a progress bar), ``steps`` the statement's number of steps; ``search`` as
    ``verify_step``'s."""
    get = lookup(catalogue)
    st = get(name)
    steps = st.steps(get)
    results = []
    for s in steps:
        results.append(verify_step(st.name, s, st.params, search))
        if on_step is not None:
            on_step(results[-1], len(steps))
    return results


def verify_facts() -> list[StepResult]:
    """The scalar elementary facts (``facts.SCALAR``) verified on their domains."""
    return [verify_step("facts", Step(f.name, f.lhs, f.rhs), (f.domain,)) for f in SCALAR]


def verify_step(statement: str, step: Step, params: tuple = (), search: bool = True) -> StepResult:
    """Verify ``step`` on the domain of ``params`` (its own ``step.params`` take precedence); cached.

    ``search=False`` asks only whether the step is certified (``ok``, the same answer as the full verifier): a step
    no certificate proves is not searched for a counterexample (no sampling beyond the quick 64 points, no far
    corners) and comes back not ok with the method ``UNSEARCHED``, kept apart from the verdicts (on disk too:
    ``verdict_cache.load_unsearched``, read only here and never by the full verifier); a certified step, or one
    refuted by the quick sample, is the full verifier's result and kept as such."""
    dom = Domain(step, params)
    key = verdict_key(step, dom)
    if key not in _RESULTS and (stored := verdict_cache.load(key)) is not None:  # kept on disk by an earlier run
        _RESULTS[key] = stored
    if key not in _RESULTS and not search:  # an unsearched result (never a verdict) answers only this question
        if key not in _UNSEARCHED_RESULTS and (found := verdict_cache.load_unsearched(key)) is not None:
            _UNSEARCHED_RESULTS[key] = found
        if key in _UNSEARCHED_RESULTS:
            return StepResult(statement, step.name, *_UNSEARCHED_RESULTS[key])
    if key not in _RESULTS:
        outer, outer_cuts = list(TIMED_OUT), list(verify_domain.CUTS)
        TIMED_OUT.clear()
        verify_domain.CUTS.clear()
        try:
            method, ok, detail, box, cex, domain, *cert = _verify(step, dom, params, search)
        except CannotEvaluate as exc:  # a side (or a form of it) the evaluator has no rule for: judged by nothing
            method, ok, detail, box, cex, domain, cert = ("evaluation", False, f"not proved (cannot evaluate {exc})",
                                                          {}, None, "sampled", [])
        finally:
            reported = set(TIMED_OUT)  # the stages whose cut the methods report (a search cut finds nothing more)
            cuts = [(stage, reason) for stage, reason in dict.fromkeys(verify_domain.CUTS)
                    if stage in reported or reason == verify_domain.TooSlow.reason]
            TIMED_OUT[:] = outer
            verify_domain.CUTS[:] = outer_cuts
        too_slow = any(reason == verify_domain.TooSlow.reason for _, reason in cuts)
        if method == UNSEARCHED:  # not certified, and not searched further: never a verdict
            if cuts:
                detail = f"{detail} ({cut_text(cuts)})"
            _UNSEARCHED_RESULTS[key] = (method, False, detail, box, None, "sampled", None, None, "")
            verdict_cache.store_unsearched(key, _UNSEARCHED_RESULTS[key], keep=not too_slow)
            return StepResult(statement, step.name, *_UNSEARCHED_RESULTS[key])
        if cuts and not ok:
            detail = f"not proved ({cut_text(cuts)}); {detail}" if not cex else f"{detail} ({cut_text(cuts)})"
        cert = cert[0] if cert else None
        arb = ""
        if ok and method == "interval":  # a second arithmetic re-checks the certificate (bounds.prove.recheck)
            arb = recheck.status(cert) if cert else "no"
            if arb.startswith("failed"):
                ok, detail = False, f"{detail}; Arb re-check {arb}"
        try:
            margin = smallest_ratio(step, dom, detail)
        except CannotEvaluate:
            margin = None
        _RESULTS[key] = (method, ok, detail, box, cex, domain, margin, cert, arb)
        verdict_cache.store(key, _RESULTS[key], f"{statement}:{step.name}", keep=not too_slow)
    return StepResult(statement, step.name, *_RESULTS[key])


def cut_text(cuts) -> str:
    """The stages cut while a step was verified, as the verdict says them: "work budget spent in <stages>" (the
    same on every machine), "machine too slow: <stages> past the N s guard" (``$SLTH_SYMPY_SECONDS``)."""
    spent = [stage for stage, reason in cuts if reason == verify_domain.WorkBudget.reason]
    slow = [stage for stage, reason in cuts if reason == verify_domain.TooSlow.reason]
    parts = [f"work budget spent in {', '.join(spent)}"] if spent else []
    if slow:
        parts.append(f"machine too slow: {', '.join(slow)} past the {verify_domain.stage_seconds():g} s guard "
                     f"($SLTH_SYMPY_SECONDS)")
    return "; ".join(parts)


def verdict_key(step: Step, dom: Domain) -> tuple:
    """Everything that can change the verdict of ``step`` on ``dom``: both sides, every field of every parameter
    it depends on, ``relies_on``, the scalar facts it may apply (with their domains), the stages' work budget and
    the verifier's version (not the time guard: a step it cut is not kept)."""
    facts = tuple((f.name, sp.srepr(f.lhs), sp.srepr(f.rhs), param_key(f.domain)) for f in SCALAR
                  if f.name in step.relies_on)
    return (VERSION, sp.srepr(step.lhs), sp.srepr(step.rhs), dom.key, tuple(step.relies_on), facts,
            verify_domain.STAGE_CALLS)


def _boxed(box: dict) -> str:
    return "box: " + "; ".join(box.values())


def _unsearched(why: str, box=None):
    """The result of ``_verify(search=False)`` where the full verifier would search for a counterexample."""
    return UNSEARCHED, False, f"not certified ({why}); no counterexample searched for", box or {}, None, "sampled"


def _verify(step: Step, dom: "Domain", params: tuple, search: bool = True):
    """(method, ok, detail, box, counterexample, domain[, certificates]); ``ok``: certified on the whole domain.
    ``search=False``: where no certificate holds, ``_unsearched`` instead of the counterexample search (``ok`` is
    False there either way: every return below after a failed certificate is)."""
    lhs, rhs = exact(step.lhs), exact(step.rhs)
    step = dataclasses.replace(step, lhs=lhs, rhs=rhs)
    where = defined(lhs, rhs, dom)
    if not where.ok and not search:
        return _unsearched(where.reason)
    if not where.ok:  # a side undefined somewhere on the domain: never certified; a violation elsewhere refutes
        cex = _beside(lhs, rhs, dom, where.point) or sample_box(lhs, rhs, dom, 64, real=True) or \
            sample_whole(lhs, rhs, dom, WHOLE_SAMPLES, real=True)
        if cex:
            return "sampled", False, f"lhs > rhs at a sampled point; {where.reason}", dom.describe(), cex, "sampled"
        far = corners.search(lhs, rhs, tuple(dom.table.values()))
        if far:
            return "corner", False, f"{far.describe()}; {where.reason}", dom.describe(), far.counterexample, "sampled"
        cex = sample_box(lhs, rhs, dom, 64)  # a side not real at an admissible point, Arb proving a root's base < 0
        if cex:
            return "sampled", False, f"a side is not real at a sampled point; {where.reason}", dom.describe(), cex, \
                "sampled"
        return "definedness", False, f"not proved ({where.reason})", {}, None, "sampled"
    proof = symbolic(lhs, rhs, dom)
    if proof:
        return "symbolic", True, proof, {}, None, "whole"
    by_fact = _by_fact(step, params, dom, search)
    if by_fact:
        return by_fact
    cex = sample_box(lhs, rhs, dom, 64)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point", dom.describe(), cex, _boxed(dom.describe())
    if dom.wider and not search:
        return _unsearched("the interval forms were not run: " + _wider(dom))
    if dom.wider:
        return _searched(lhs, rhs, dom, "the interval forms were not run: " + _wider(dom))
    whole_ok, whole_how, certs = on_whole(lhs, rhs, dom, defined=True)  # defined(): proved above
    if whole_ok:
        return "interval", True, whole_how, {}, None, "whole", certs
    reduced = _cancel_common_factor(step, params, search)
    if reduced is not None:
        return reduced
    ok, detail, cex, box = on_box(lhs, rhs, dom, whole_only=not search)
    if ok and not box:  # the certified form has no parameters left: it holds everywhere
        return "interval", True, f"{detail} (a constant after simplification: holds for all parameters)", {}, None, \
            "whole"
    if not search and not cex:
        return _unsearched(f"{detail} on the box only" if ok else detail, box)
    if ok:
        outside = sample_whole(lhs, rhs, dom, WHOLE_SAMPLES)
        if outside:
            return ("sampled", False, f"an interval certificate on the box only ({detail}); FAILS outside it", box,
                    outside, _boxed(box))
        far = corners.search(lhs, rhs, tuple(dom.table.values()))
        if far:
            return ("corner", False, f"an interval certificate on the box only ({detail}); FAILS outside it: "
                    f"{far.describe()}", box, far.counterexample, _boxed(box))
        return ("interval", False, f"not proved: {detail} on the box only, not on the whole declared domain ({whole_how}); "
                f"no violation at {WHOLE_SAMPLES} seeded points of the whole domain nor in its far corners", box,
                None, _boxed(box))
    if cex:
        return "interval", False, detail, box, cex, _boxed(box)
    return _searched(lhs, rhs, dom, detail, "no certificate")


def _beside(lhs, rhs, dom: Domain, point):
    """A real violation next to the point where a side is undefined (beside a pole a side is as large as it gets):
    each coordinate of ``point`` moved by 2^-k (k = 10, 20, 30, 40) of its size either way (1 for an integer), the
    other parameters at their box's middle; None if none."""
    if not point or not all(sp.sympify(v).is_Rational for v in point.values()) or dom.lo:
        return None  # (a parameter bounded by others is set from its ratio or offset: not moved here)
    mid = {p.name: (p.box[0] + p.box[1]) / 2 for p in dom.params}
    for name, v in point.items():
        p = dom.table[name]
        v = Fraction(int(sp.sympify(v).p), int(sp.sympify(v).q))
        steps = [Fraction(1)] if p.integer else [Fraction(1, 2**k) * max(abs(v), 1) for k in (10, 20, 30, 40)]
        for h in steps:
            for w in (v - h, v + h):
                coords = [w if q.name == name else Fraction(sp.Rational(mid[q.name]).p, sp.Rational(mid[q.name]).q)
                          for q in dom.params]
                cex = check_point(lhs, rhs, dom, coords, real=True)
                if cex:
                    return cex
    return None


def _wider(dom: Domain) -> str:
    return "; ".join(f"{p.name} is declared on {', '.join(h.label for h in p.hypotheses())}, wider than its "
                     f"symbol's assumptions" for p in dom.params if p.name in dom.wider)


def _searched(lhs, rhs, dom: Domain, why: str, headline: str | None = None):
    """The counterexample search alone (no certificate given): refuted, or not proved.  ``why`` follows each
    verdict's text; ``headline``, when given, leads the not-proved text instead of ``why``."""
    cex = sample_box(lhs, rhs, dom, SAMPLES) or sample_whole(lhs, rhs, dom, WHOLE_SAMPLES)
    if cex:
        return "sampled", False, "lhs > rhs at a sampled point; " + why, dom.describe(), cex, "sampled"
    far = corners.search(lhs, rhs, tuple(dom.table.values()))
    if far:
        return "corner", False, f"{far.describe()}; {why}", dom.describe(), far.counterexample, "sampled"
    searched = (f"no violation at {SAMPLES} seeded points of the box and {WHOLE_SAMPLES} of the whole domain nor in "
                f"its far corners (evidence only)")
    text = f"not proved: {why}; {searched}" if headline is None else f"not proved: {headline}, and {searched}; {why}"
    return "sampled", False, text, dom.describe(), None, "sampled"


def _cancel_common_factor(step: Step, params: tuple, search: bool = True):
    """F g <= F h follows from g <= h when F >= 0: a factor common to both sides that SymPy proves nonnegative, or
    whose 0 <= F is certified as a sub-step (e.g. exp(eps_max) - 1, zero at eps_max = 0, where interval forms meet
    0 times infinity), is cancelled and the rest verified as a sub-step; certified only when every sub-step is."""
    dom = Domain(step, params)
    factored = timed("cancel: factor", lambda: (sp.factor(step.lhs), sp.factor(step.rhs)))
    if factored is None:
        return None
    lf, rf = sp.Mul.make_args(factored[0]), list(sp.Mul.make_args(factored[1]))
    common = []
    for f in lf:
        if f in rf and f.free_symbols and (declared(f, dom)[0].is_nonnegative or verify_step(
                "", Step(f"{step.name}[0 <= {txt(f)}]", sp.Integer(0), f, params=step.params), params, search).ok):
            rf.remove(f)
            common.append(f)
    if not common:
        return None
    factor = sp.Mul(*common)
    sub = Step(f"{step.name}[/{txt(factor)}]", factored[0] / factor, sp.Mul(*rf), step.relies_on,
               params=step.params)
    r = verify_step("", sub, params, search)
    if not r.ok:
        return None
    detail = f"the common nonnegative factor {txt(factor)} cancelled, then {r.detail}"
    return r.method, True, detail, r.box, None, r.domain, r.certificate


def _by_fact(step: Step, params: tuple, dom: Domain, search: bool = True):
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
        lhs, args = step.lhs, []
        for k, inst in enumerate(instances):
            y = sp.Symbol(f"y{k}", nonnegative=True)
            a = inst.match(pattern)[w]
            lhs = lhs.xreplace({inst: y})
            if not timed("fact: monotone", lambda: bool(sp.diff(declared(lhs, dom)[0], y).is_nonnegative),
                         default=False):
                break
            args.append((y, a))
        else:
            applied = lhs.xreplace({y: fact.rhs.xreplace({x: a}) for y, a in args})
            if timed("fact: simplify", lambda: simplify(declared(applied - step.rhs, dom)[0]) != 0, default=True):
                continue
            certificate = verify_step("facts", Step(fact.name, fact.lhs, fact.rhs), (fact.domain,), search)
            if not certificate.ok:
                return None
            methods = [certificate]
            for y, a in args:
                for bound, name in ((fact.domain.lo, "lo"), (fact.domain.hi, "hi")):
                    for v in bound:
                        sides = (v, a) if name == "lo" else (a, v)
                        r = verify_step("", Step(f"{step.name}[{name}]", *sides, params=step.params), params, search)
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
