"""The mutation suite: every deliberate edit of a constant or exponent is caught: its declared step is REFUTED,
with a counterexample that really violates it (so is every other refuted step).  A step the edit leaves true but
no longer certifiable is "not proved": not a catch, and allowed beside the catch (it fails `slth proofs` too)."""
import pytest

from bounds.prove.mutations import MUTATIONS, catalogue_with, run

from bounds.catalogue import canonical


def test_enough_mutations():
    assert len(MUTATIONS) >= 12
    assert len({m.name for m in MUTATIONS}) == len(MUTATIONS)


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_mutation_is_caught(mutation):
    """Caught at its declared step by the first pass without the counterexample search (its quick sample): what
    the full run (``run(mutation)``, the record's mutation suite) refutes includes these, with the same results."""
    failed = run(mutation, search=False)
    assert failed, f"mutation SURVIVED: {mutation.name} ({mutation.edit})"
    refuted = [r for r in failed if r.verdict == "refuted"]
    assert mutation.caught_by in {(r.statement, r.step) for r in refuted}, (
        f"{mutation.name}: expected {mutation.caught_by} to be refuted, "
        f"got: {[(r.statement, r.step, r.verdict) for r in failed]}")
    cat = catalogue_with(mutation.edit)
    for r in refuted:
        step = next(s for s in cat[r.statement].steps(lambda n: cat[canonical(n)]) if s.name == r.step)
        point = {k: v for k, v in r.counterexample.items() if k not in ("lhs", "rhs")}
        lhs, rhs = step.evaluate(**point)
        assert lhs > rhs, f"{mutation.name}: counterexample {point} does not violate {r.step}"
