"""``bounds.prove.slack``: the tightest closing value of a proof constant, found by bisection with the verifier."""
import sympy as sp

from bounds.prove.slack import CONSTANTS, _catalogue, _closes, slack


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
