"""The Arb re-check of the interval certificates (bounds.prove.recheck): today's certificates pass, forged ones fail."""
import ast
import dataclasses
import importlib
import pathlib
from fractions import Fraction

import pytest
import sympy as sp

import bounds
from bounds import Param, Step
from bounds.prove.recheck import recheck, status
from bounds.symbols import d1, eps, x
from bounds.prove.verify import verify_step

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _all_results():
    return bounds.verify_facts() + [r for n in bounds.proved() for r in bounds.verify(n)]


def test_every_interval_certificate_of_the_tree_is_rechecked_by_arb():
    results = _all_results()
    interval = [r for r in results if r.method == "interval"]
    assert interval and all(r.ok for r in interval)
    assert [(r.statement, r.step, r.arb) for r in interval if r.arb != "yes"] == []
    certs = {c for r in interval for c in r.certificate}
    assert all(recheck(c).ok for c in certs)
    assert all(r.arb == "" for r in results if r.method == "symbolic")


def _fact_certificate():
    """exp(x) - 1 <= 2x on [0, 1]: a cover of several boxes, some closed by monotonicity."""
    r = verify_step("t", Step("fact", sp.exp(x) - 1, 2 * x), (Param("x", lo=(0,), hi=(1,), box=(2**-30, 1), log=True),))
    assert r.ok and r.arb == "yes" and len(r.certificate) == 1
    cert = r.certificate[0]
    assert len(cert.cover) > 2 and any(leaf.monotone for leaf in cert.cover)
    return cert


def test_a_box_removed_from_the_cover_is_rejected():
    cert = _fact_certificate()
    for i in range(len(cert.cover)):
        forged = dataclasses.replace(cert, cover=cert.cover[:i] + cert.cover[i + 1:])
        r = recheck(forged)
        assert not r.ok and "do not cover" in r.reason, r


def test_a_box_stretched_over_its_neighbour_is_rejected():
    cert = _fact_certificate()
    leaf = cert.cover[0]
    (a, b), = leaf.box
    other = Fraction(0) if a > 0 else Fraction(1)
    stretched = dataclasses.replace(leaf, box=((min(a, other), max(b, other)),))
    r = recheck(dataclasses.replace(cert, cover=(stretched,) + cert.cover[1:]))
    assert not r.ok and ("overlap" in r.reason or "does not prove" in r.reason), r


def test_an_edited_enclosure_is_rejected():
    cert = _fact_certificate()
    value_leaf = next(i for i, leaf in enumerate(cert.cover) if leaf.monotone is None)
    leaf = cert.cover[value_leaf]
    lo, hi = leaf.enclosure
    for enclosure, why in (((hi + 5, hi + 6), "disagree"),  # still proves rhs - lhs >= 0, but is not the value
                           ((lo - 7, hi), "does not prove")):  # no longer proves the form
        edited = cert.cover[:value_leaf] + (dataclasses.replace(leaf, enclosure=enclosure),) + cert.cover[value_leaf + 1:]
        r = recheck(dataclasses.replace(cert, cover=edited))
        assert not r.ok and why in r.reason, r


def test_an_edited_derivative_enclosure_or_face_is_rejected():
    cert = _fact_certificate()
    i = next(i for i, leaf in enumerate(cert.cover) if leaf.monotone)
    leaf = cert.cover[i]
    k, face, (dlo, dhi) = leaf.monotone
    moved = (dhi + 10, dhi + 11) if face == "lo" else (dlo - 11, dlo - 10)
    for mono in ((k, face, moved), (k, "lo" if face == "hi" else "hi", (dlo, dhi))):
        forged = cert.cover[:i] + (dataclasses.replace(leaf, monotone=mono),) + cert.cover[i + 1:]
        assert not recheck(dataclasses.replace(cert, cover=forged)).ok


def test_a_form_that_is_not_the_step_is_rejected():
    """A certificate whose form is true but is not the step rewritten (here: the step's rhs shrunk to a false one,
    the form kept) fails the point comparison."""
    cert = _fact_certificate()
    false_step = dataclasses.replace(cert, rhs=cert.rhs / 2)  # exp(x) - 1 <= x is false on (0, 1]
    r = recheck(false_step)
    assert not r.ok and "not the step rewritten" in r.reason, r
    trivial = dataclasses.replace(cert, expr=sp.Integer(1) + x)
    assert not recheck(trivial).ok


def test_a_form_with_the_wrong_test_is_rejected():
    cert = _fact_certificate()
    assert not recheck(dataclasses.replace(cert, test="upper <= 1")).ok
    assert not recheck(dataclasses.replace(cert, form="made up >= 0")).ok


def test_unbounded_coordinates_and_a_max_split_are_rechecked():
    """sqrt(d1)/alpha + sqrt(d2)/(4 alpha) <= 3/2 on alpha >= max(sqrt d1, sqrt d2): two cases of the Max, each
    over half-lines compactified to [0, 1] (a box reaching t = 1, the point at infinity)."""
    from bounds.symbols import alpha, d2
    D = (Param("d1", lo=(1,), integer=True, box=(1, 64), log=True),
         Param("d2", lo=(1,), integer=True, box=(1, 64), log=True),
         Param("alpha", lo=(sp.sqrt(d1), sp.sqrt(d2)), box=(1, 64), log=True))
    r = verify_step("t", Step("dep", sp.sqrt(d1) / alpha + sp.sqrt(d2) / (4 * alpha), sp.Rational(3, 2)), D)
    assert r.ok and r.arb == "yes" and len(r.certificate) == 2
    assert any(c.hi is None for cert in r.certificate for c in cert.coords)
    # the same certificates claimed for a tighter, false rhs (5/4 is attained) are rejected
    for cert in r.certificate:
        assert not recheck(dataclasses.replace(cert, rhs=sp.Rational(6, 5))).ok


def test_a_failed_recheck_fails_the_step(monkeypatch):
    verify = importlib.import_module("bounds.prove.verify")  # (bounds.prove.verify is also the package's function)
    monkeypatch.setattr(verify.recheck, "status", lambda certs: "failed: planted disagreement")
    monkeypatch.setattr(verify, "_RESULTS", {})
    r = verify_step("t", Step("s", sp.exp(x) - 1, 2 * x), (Param("x", lo=(0,), hi=(1,), box=(2**-30, 1), log=True),))
    assert r.method == "interval" and not r.ok and r.arb.startswith("failed") and "Arb re-check failed" in r.detail


def test_floats_enter_exactly():
    from bounds.prove.arb_intervals import float_exact as _float_exact
    f = sp.Float(1) / 3
    assert _float_exact(f) == Fraction(*float(f).as_integer_ratio())
    assert _float_exact(sp.Float(-0.75)) == Fraction(-3, 4)


@pytest.mark.parametrize("module", ["bounds/prove/recheck.py", "bounds/prove/certificate.py"])
def test_the_recheck_imports_nothing_from_the_mpmath_verifier(module):
    tree = ast.parse((ROOT / module).read_text())
    imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | \
        {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    verifier = {"verify", "verify_domain", "verify_symbolic", "verify_interval", "verify_search"}
    assert not imported & ({"mpmath", "evaluate", "bounds.evaluate"} | verifier | {f"bounds.{m}" for m in verifier}), \
        imported


def test_status_without_data_is_no():
    assert status(()) == "no" and status(None) == "no"


def test_a_certificate_must_cover_the_declared_domain():
    """The cover is checked against the step's declared domain, not only against its own coordinates."""
    from bounds.prove.recheck import domain_gap
    cert = _fact_certificate()
    assert domain_gap(cert) == "" and status((cert,)) == "yes"
    wider = tuple(dataclasses.replace(p, lo=(-1,)) if p.name == "x" else p for p in cert.params)  # x from -1
    assert "the coordinate starts at 0" in domain_gap(dataclasses.replace(cert, params=wider))
    assert status((dataclasses.replace(cert, params=wider),)).startswith("failed")
    unbounded = tuple(dataclasses.replace(p, hi=()) if p.name == "x" else p for p in cert.params)  # x up to oo
    assert "ends at 1" in domain_gap(dataclasses.replace(cert, params=unbounded))
    assert "does not state" in domain_gap(dataclasses.replace(cert, params=()))


def test_each_case_of_a_max_split_needs_the_other():
    from bounds.symbols import alpha, d2
    D = (Param("d1", lo=(1,), integer=True, box=(1, 64), log=True),
         Param("d2", lo=(1,), integer=True, box=(1, 64), log=True),
         Param("alpha", lo=(sp.sqrt(d1), sp.sqrt(d2)), box=(1, 64), log=True))
    r = verify_step("t", Step("dep", sp.sqrt(d1) / alpha + sp.sqrt(d2) / (4 * alpha), sp.Rational(3, 2)), D)
    assert r.arb == "yes" and len(r.certificate) == 2
    for one in r.certificate:
        assert "of a Max split without the case" in status((one,))
    # alpha written from a ratio that starts above 1 leaves alpha in [max, 2 max) uncovered
    first = r.certificate[0]
    ratio = next(c for c in first.coords if c.symbol.name == "alpha_ratio")
    moved = tuple(dataclasses.replace(c, lo=Fraction(2)) if c is ratio else c for c in first.coords)
    assert "not as its lower bound" in status((dataclasses.replace(first, coords=moved), r.certificate[1]))


def test_a_stored_ball_is_the_ball_arb_computes_and_costs_the_meter_nothing(monkeypatch):
    """``arb_intervals._monotone`` keeps Arb's ball of exp, expm1, log and sqrt by (function, exact endpoint,
    precision): the endpoint it returns is the one a fresh Arb call gives at that precision, a changed precision is
    another entry, and the work meter (which decides verdicts) counts the same Python calls with the store as
    without it."""
    import flint
    from flint import arb

    from bounds.prove import arb_intervals as ai
    from bounds.prove.verify_domain import time_limit, work_done

    def ends():
        out = []
        with time_limit(stage="test", seconds=100):
            start = work_done()
            for bits in (64, 256, 4096, 256):
                with ai.precision(bits):
                    for k in range(1, 9):
                        x = ai._end(arb(k) / 3, k % 2 == 0)
                        for f in (arb.exp, arb.expm1, arb.log, arb.sqrt):
                            out.append((ai._monotone(x, f, True), ai._monotone(x, f, False)))
            return out, work_done() - start

    monkeypatch.setattr(ai, "_BALLS", {})
    stored, stored_calls = ends()
    assert len(ai._BALLS) == 3 * 8 * 4  # three precisions: the second run at 256 bits read what the first stored
    again, again_calls = ends()  # every ball read back
    monkeypatch.setattr(ai, "_ARB_FUNCTIONS", frozenset())
    fresh, fresh_calls = ends()
    assert stored_calls == again_calls == fresh_calls
    for (a_lo, a_hi), (b_lo, b_hi), (f_lo, f_hi) in zip(stored, again, fresh):
        assert a_lo.mid() == b_lo.mid() == f_lo.mid() and a_hi.mid() == b_hi.mid() == f_hi.mid()
    assert flint.ctx.prec == 53
