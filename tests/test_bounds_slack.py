"""``bounds.prove.slack``: the tightest closing value of a proof constant, found by bisection with the verifier."""
import pytest
import sympy as sp

from bounds.prove.slack import CONSTANTS, _catalogue, _certified, _closes, slack


def _constant(statement, start):
    return next(c for c in CONSTANTS if c.statement == statement and c.label.startswith(start))


def test_every_constant_the_proofs_pick_is_in_the_table():
    labels = {(c.statement, c.label.split(" in ")[0].split(" of ")[0]) for c in CONSTANTS}
    for statement, start in [("theorem9", "the 8"), ("theorem9", "the exponent 3"), ("theorem9", "the 2"),
                             ("theorem11", "the 32"), ("theorem11", "the 24"), ("theorem11", "the split"),
                             ("theorem11", "the 3"), ("theorem14", "kappa"), ("theorem14", "the 4"),
                             ("theorem14", "the union-bound total 1055/1984"), ("theorem14", "the geometric share"),
                             ("lemma5", "the 4"), ("lemma8", "the 2"), ("lemma7", "the factor")]:
        assert any(s == statement and label.startswith(start) for s, label in labels), (statement, start)
    for c in CONSTANTS:  # every constant occurs where it says (an edit that changes nothing raises)
        _catalogue(c, sp.nsimplify(c.value) * 2)


def test_lemma5_four_is_forced():
    """4 sqrt(d1) alpha eps_max is exactly Lemma 8 after exp(x) - 1 <= 2x at x = 2 eps_max: 1% less fails L5b."""
    row = slack(_constant("lemma5", "the 4"))
    assert row["forced"] and row["tightest"] == 4.0 and row["ratio"] == 1.0
    assert row["fails_at"] == "lemma5:L5b" and row["counterexample"]
    assert 4 / 1.01 <= row["first_failing"] < 4


def test_theorem14_first_share_has_room_and_the_bracket_is_certified():
    c = _constant("theorem14", "block 1's share")
    row = slack(c)
    assert not row["forced"] and row["ratio"] > 1 and row["first_failing"] < row["tightest"]
    assert row["first_failing"] >= row["tightest"] / 1.0101
    assert _closes(c, _catalogue(c, sp.Rational(row["tightest_exact"])))[0]
    ok, bad = _closes(c, _catalogue(c, sp.Rational(row["first_failing_exact"])))
    assert not ok and bad.step == "U1" and bad.counterexample


def _toy_statement(printed):
    """A toy statement whose one constant has a slack known exactly: eps + eps^2 <= c eps on eps in (0, 1) holds
    exactly when c >= 2 (the ratio (1 + eps) approaches 2 at the open end eps -> 1).  Its search box stops at
    eps = 1/2, so for c in [3/2, 2) the violation lies outside the box: no quick sample finds it, the
    certificates fail, and only the full verifier's search of the whole domain refutes the step."""
    from bounds.core import Constant, Param, Statement, Step
    from bounds.symbols import eps

    def proof(st, get):
        return [Step("TOY1", eps + eps**2, st.conclusion, (), "toy step")]
    return Statement(name="toyslack", title="toy", numbering={}, builder=proof, quantity="toy",
                     params=(Param("eps", lo=(0,), hi=(1,), lo_open=True, hi_open=True,
                                   box=(2**-20, sp.Rational(1, 2)), log=True),), conclusion=printed * eps,
                     slack=(Constant("the c", ("conclusion",), printed),))


@pytest.fixture
def toy(monkeypatch):
    """The toy statement added to the catalogue the slack search reads (``STATEMENTS`` of ``bounds.prove.slack``)."""
    from bounds.catalogue import STATEMENTS
    from bounds.prove import slack as slack_module

    def with_printed(printed):
        st = _toy_statement(printed)
        monkeypatch.setattr(slack_module, "STATEMENTS", {**STATEMENTS, "toyslack": st})
        monkeypatch.setattr(slack_module, "_affected", lambda name: ("toyslack",))
        return st.slack[0]
    return with_printed


def test_a_toy_constant_with_room_is_bracketed_at_its_exact_slack(toy):
    """Printed 3, exact threshold 2: the search walks down from 3 and brackets 2 to 1%; the first failing value is
    refuted by the full verifier (with a counterexample), the tightest certified."""
    c = toy(sp.Integer(3))
    row = slack(c)
    assert not row["forced"] and row["direction"] == "searched downwards"
    assert 2 <= sp.Rational(row["tightest_exact"]) <= sp.Rational(202, 100), row
    assert sp.Rational(200, 101) <= sp.Rational(row["first_failing_exact"]) < 2, row
    assert row["fails_at"] == "toyslack:TOY1" and row["note"] == ""
    assert _closes(c, _catalogue(c, sp.Rational(row["tightest_exact"])))[0]


def test_a_toy_constant_printed_at_its_threshold_is_forced(toy):
    c = toy(sp.Integer(2))
    row = slack(c)
    assert row["forced"] and row["tightest"] == 2.0 and 2 / 1.01 <= row["first_failing"] < 2, row


def test_a_toy_constant_printed_below_its_threshold_does_not_close(toy):
    """A planted wrong printed value (1.9 < 2): the table says so, with the failing step; no slack is claimed."""
    c = toy(sp.Rational(19, 10))
    row = slack(c)
    assert row["tightest"] is None and row["note"] == "the printed value does not close"
    assert row["fails_at"] == "toyslack:TOY1"


def test_the_certificates_alone_decide_as_the_full_verifier_does(toy, monkeypatch, tmp_path):
    """``_certified`` (no counterexample search) agrees with ``_closes`` (the full verifier) on both sides of the
    threshold, and its not-certified result is never kept as a verdict: it is kept on disk apart, read back by a
    later ``search=False`` without verifying again, and never by the full verifier."""
    from bounds.prove import verify

    monkeypatch.setenv("SLTH_VERDICT_CACHE", str(tmp_path / "verdicts"))
    monkeypatch.setattr(verify, "_UNSEARCHED_RESULTS", {})
    c = toy(sp.Integer(3))
    # 1.97 fails only outside the search box: not certified, and left unsearched (the full verifier's search of
    # the whole domain refutes it)
    stored, real_store = [], verify.verdict_cache.store
    monkeypatch.setattr(verify.verdict_cache, "store",
                        lambda key, value, *a, **k: (stored.append(value[0]), real_store(key, value, *a, **k)))
    quick = _certified(c, _catalogue(c, sp.Rational(197, 100)))
    assert quick.method == verify.UNSEARCHED and quick.counterexample is None
    assert verify.UNSEARCHED not in stored
    for key in verify._UNSEARCHED_RESULTS:  # this step's, and those of any sub-steps it was split into
        assert verify.verdict_cache.load(key) is None and verify.verdict_cache.load_unsearched(key) is not None
    monkeypatch.setattr(verify, "_UNSEARCHED_RESULTS", {})  # a new process: read back, not verified again
    with monkeypatch.context() as m:
        m.setattr(verify, "_verify", lambda *a, **k: pytest.fail("verified again"))
        assert _certified(c, _catalogue(c, sp.Rational(197, 100))) == quick
    assert _closes(c, _catalogue(c, sp.Rational(197, 100)))[1].verdict == verify.REFUTED
    for value in (sp.Rational(199, 100), sp.Rational(201, 100), sp.Rational(3, 2), sp.Integer(2)):
        cat = _catalogue(c, value)
        quick = _certified(c, cat)
        assert (quick is None) == _closes(c, cat)[0] == (value >= 2), value
        if quick is not None:
            assert not quick.ok and (quick.method == verify.UNSEARCHED or quick.counterexample)


def test_a_search_that_trusts_uncertified_values_is_caught(toy, monkeypatch):
    """A planted defect: every candidate said to close.  The bracket then lands far below the exact slack 2 (and
    the last value is not certified), which the toy test above would refuse."""
    from bounds.prove import slack as slack_module

    c = toy(sp.Integer(3))
    monkeypatch.setattr(slack_module, "_certified", lambda *a, **k: None)
    row = slack(c)
    assert row["tightest"] is None or row["tightest"] < 2  # what the toy bracket test rejects
    assert not _closes(c, _catalogue(c, sp.Rational(row["tightest_exact"])))[0]


def test_two_processes_give_the_same_rows_and_relay_their_progress(toy):
    """``rows(workers=2)`` forks two searches; the rows equal the serial ones, in the order asked, and every
    candidate and step verified is reported in this process."""
    from bounds.prove.slack import rows

    c = toy(sp.Integer(3))
    serial = rows([c])
    seen, steps, done = [], [], []
    parallel = rows([c, c], lambda constant, value, ok: seen.append((constant, value, ok)), lambda: steps.append(1),
                    workers=2, on_row=done.append)
    assert parallel == serial * 2 and len(done) == 2
    assert len(seen) == 2 * (serial[0]["probes"] - 1) and all(k is c for k, _, _ in seen)
    assert sp.Rational(serial[0]["first_failing_exact"]) in {v for _, v, ok in seen if not ok} and steps
