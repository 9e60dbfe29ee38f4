"""The machinery of ``checks/test_statements.py``: each kind of check, run from a statement's ``Numerics``.

The check module lists the statements, one line each, and parametrises one test per kind over them (as SciPy's
``test_mpmath.py`` does for functions); what a check does lives here:

- ``rate``: the failure-rate check (``Numerics.rate_check``) at the calibrated constant
  (``slt.measure.calibration.check_constant``: the C calibrated at the worst target found, no safety factor) on
  the points drawn from the statement's windows (eps from the check's own window), at the statement's worst target
  family (``worst_target`` of the calibration; the random draw for a statement without one), each test at level
  ``FAMILY_WISE / m`` for the m rate tests of the run (``rate_level``: Holm's first step; ``checks/conftest.py``
  applies the whole procedure at the end of the run), with the trials giving power 0.8 against a rate of 2 eps;
- ``families``: every target family at the statement's first calibration point (every point in the thorough
  profile), one rate test each, counted in the run's m;
- ``chain``: an a-posteriori chain on one ticket per drawn point; every step must obey its bound;
- ``holds``: a deterministic statement at every drawn point (random and adversarial cases);
- ``properties``: a statement's checks of their own shape (``Numerics.properties``: ``fn()`` asserts).

The seeded trials, chains and deterministic cases are read back from the trial cache (``slt.measure.trial_cache``)
when ``$SLTH_TRIAL_CACHE`` names one (the checks' conftest does), else computed.

A failing check raises ``AssertionError`` with the statement, parameters, seed, measured value, bound and the
command that re-runs exactly that case (``python -m slt.measure.rerun ...``).
"""
from __future__ import annotations

from slt import targets
from slt.measure import calibration, catalogue, strategies, trial_cache
from slt.measure.evidence import report_failures
from slt.measure.probabilistic import current_profile
from slt.measure.stats import FAMILY_WISE, POWER, Unrejectable, power_at, target_rate

KINDS = ("rate", "families", "chain", "holds")

THOROUGH_RATE_EXAMPLES = 10
"""The thorough profile draws this many times each rate check's ci examples (its trials follow from its level)."""


def rate_examples(statement: str, profile: str) -> int:
    """How many points the rate check of ``statement`` draws in ``profile`` ("ci" or "thorough")."""
    ci = int(catalogue.get(statement).examples.get("rate", 1))
    return ci if profile == "ci" else THOROUGH_RATE_EXAMPLES * ci


def family_points(statement: str, profile: str) -> list[dict]:
    """The points the families check of ``statement`` runs every target family at: the first point of its
    calibration grid in the ci profile, every point in the thorough one (none without a target matrix)."""
    numerics = catalogue.get(statement)
    if numerics.target_draw is None or not targets.families(statement):
        return []
    points = [dict(p) for p in numerics.calibration]
    return points[:1] if profile == "ci" else points


def rate_tests(profile: str) -> int:
    """m, the number of rate tests of one checks run in ``profile``: every probabilistic statement's drawn
    examples, and one test per target family at each of its family points."""
    return sum(rate_examples(name, profile) + len(family_points(name, profile)) * len(targets.families(name))
               for name in catalogue.probabilistic())


def rate_level(profile: str | None = None) -> float:
    """The level each rate test of a checks run is held to: ``FAMILY_WISE / m`` (Holm's first, strictest step)."""
    return FAMILY_WISE / rate_tests(profile or current_profile())


def check_target(statement: str):
    """The target family the rate check draws: the calibration's worst target (None: the statement's random draw)."""
    return calibration.calibrated(statement).get("worst_target")


def plan() -> list[str]:
    """``slth rate --plan``: per profile, the family-wise level, m and each test's level; per check and end of its
    eps window, the trials and the power against a failure rate of 2 eps at that level."""
    lines = []
    for profile in ("ci", "thorough"):
        m, level = rate_tests(profile), rate_level(profile)
        lines.append(f"[{profile}] {m} rate tests per run; family-wise error {FAMILY_WISE} (Holm): each test at "
                     f"{FAMILY_WISE} / {m} = {level:.3g} fails at once, Holm's later steps at the end of the run; "
                     f"trials give power {POWER:g} against a failure rate of 2 eps at {level:.3g}:")
        for name in catalogue.probabilistic():
            numerics = catalogue.get(name)
            check = numerics.rate_check(calibration.check_constant(name))
            parts = []
            for e in sorted(set(check.eps)):
                n = check.trials_at(e, level)
                try:
                    power = f"{power_at(n, e, target_rate(e), level):.2f}"
                except Unrejectable:
                    power = "0 (cannot reject)"
                parts.append(f"eps={e:.3g}: {n} trials, power {power}")
            target = check_target(name) if numerics.target_draw is not None else None
            lines.append(f"  {name} ({rate_examples(name, profile)} tests, C = {calibration.check_constant(name):g}"
                         + (f", target {target}" if target else "") + "): " + "; ".join(parts))
            for point in family_points(name, profile):
                fams = targets.families(name)
                n = check.trials_at(point["eps"], level)
                lines.append(f"    every target family ({len(fams)} tests) at {point}: {n} trials each, power "
                             f"{power_at(n, point['eps'], target_rate(point['eps']), level):.2f}")
    return lines


def having(statements, kind: str) -> list[str]:
    """The statements of ``statements`` that have a check of ``kind`` (``KINDS``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of check {kind!r}; expected one of {KINDS}")
    wanted = {"rate": lambda n: n.trial is not None and (n.rate or n.rate_at), "chain": lambda n: n.chain,
              "holds": lambda n: n.holds,
              "families": lambda n: n.trial is not None and n.target_draw is not None and bool(n.calibration)}[kind]
    return [name for name in statements if wanted(catalogue.get(name))]


def properties(statements, slow: bool) -> list[tuple]:
    """``(statement, Property)`` of the statements' own checks, the slow ones or the others."""
    return [(name, p) for name in statements for p in catalogue.get(name).properties if p.slow == slow]


def unlisted(statements) -> list[str]:
    """Statements of the catalogue missing from ``statements`` (a check module must list every one)."""
    return [name for name in catalogue.names() if name not in statements]


def rate_test(statement: str, point: dict, seed: int, C: float | None = None, trial=None):
    """One rate test exactly as the check runs it at ``point`` (eps included): the ``RateCheck`` of the checks'
    constant (``calibration.check_constant``), its trials at the run's level (``rate_level``), the worst target
    family, tickets built at ``C`` (default: the checks' constant) by ``trial`` (default: the statement's). Raises
    ``AssertionError`` on a significant excess; returns the ``RateTest``."""
    numerics = catalogue.get(statement)
    check_C = calibration.check_constant(statement)
    check = numerics.rate_check(check_C)
    target = check_target(statement) if numerics.target_draw is not None else None
    params = {**point, **({"target": target} if target and "target" not in point else {})}
    return check.run(check_C if C is None else C, params, trial or numerics.trial, seed, rate_level())


def rate(statement: str) -> None:
    numerics = catalogue.get(statement)
    check = numerics.rate_check(calibration.check_constant(statement))
    windows = {**numerics.windows, "eps": strategies.LogUniform(*check.eps)}

    def hold(point):
        rate_test(statement, {k: v for k, v in point.items() if k != "seed"}, point["seed"])

    strategies.hold(statement, windows, rate_examples(statement, "ci"), hold, key="rate",
                    thorough=rate_examples(statement, "thorough"))


def families(statement: str, C: float | None = None, trial=None, only=None) -> None:
    """Every target family of ``statement`` (``slt.targets.families``: identity, signed permutations, a single +-1
    entry, rank one, Gaussian at the maximal norm, random, ...) at each of its ``family_points``, one rate test each
    as the check runs it (the checks' C, the run's level, seed 0 for every family: common random numbers; ``C`` and
    ``trial`` replace the build constant and the trial, ``only`` restricts the families, for the tests that make the
    check fail). Raises
    ``AssertionError`` naming every family with a significant excess over eps."""
    failed = []
    for point in family_points(statement, current_profile()):
        for fam in (only or targets.families(statement)):
            try:
                rate_test(statement, {**point, "target": fam}, seed=0, C=C, trial=trial)
            except AssertionError as exc:
                failed.append(f"target family {fam} at {point}: {str(exc).splitlines()[0]}")
    assert not failed, f"{statement}: {len(failed)} target famil{'y' if len(failed) == 1 else 'ies'} above eps:\n" \
        + "\n".join(failed)


def chain(statement: str) -> None:
    numerics = catalogue.get(statement)
    C = calibration.check_constant(statement)

    def hold(point):
        found = trial_cache.call(numerics.chain, point["seed"], C, **{k: v for k, v in point.items() if k != "seed"})
        assert not report_failures(found), report_failures(found)

    strategies.hold(statement, numerics.windows, numerics.examples["chain"], hold, key="chain")


def holds(statement: str) -> None:
    numerics = catalogue.get(statement)

    def hold(point):
        found = trial_cache.call(numerics.holds, point)
        assert not report_failures(found), report_failures(found)

    strategies.hold(statement, numerics.windows, numerics.examples["holds"], hold, key="holds")
