"""`slth rate`: one failure-rate test of a probabilistic statement, printed with its power; or every check's plan.

    slth rate --plan                                   # per profile the family-wise level (Holm) and each test's
                                                       # level; per check its eps window, trials, detectable rate and
                                                       # power against a failure rate of 2 eps
    slth rate theorem11 d1=2 H=2 L=1 alpha=1.4142135623730951 eps=0.2 --C 2.1 --trials 8 --seed 0
    slth rate lemma7 d1=2 d2=2 eps=0.1 --C 4 --trials 200 --families   # one test per target family
    slth rate lemma7 d1=2 d2=2 eps=0.1 target=sign_matrix --C 4        # one family

One test prints each trial (measured error, bound, re-run command) and the rate test line of
``slt.measure.stats.RateTest.describe`` (failures, interval, p-value, and the smallest true failure rate it detects
with probability 0.8). Exit status: 0 pass, 1 significant excess (FAIL), 2 usage error (unknown statement, missing
parameter, a trial count that cannot reject). Measuring lives in ``slt.measure.probabilistic``.
"""
from __future__ import annotations

import argparse
import difflib
import sys

from bounds.catalogue import canonical
from slt import targets
from slt.measure import calibration, catalogue, checking, probabilistic
from slt.measure.resources import RequestError, check_request, check_trials, user_parameters

from reports.cli import count, positive, positive_int, probability
from slt.measure.stats import Unrejectable, detectable_rate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("statement", nargs="?", help="statement name or alias (e.g. theorem11, 'Theorem 9'); its "
                        "NAME=VALUE parameters follow it, before any option")
    parser.add_argument("parameters", nargs="*", metavar="NAME=VALUE", help="the statement's parameters, eps included")
    parser.add_argument("--plan", action="store_true", help="print every probabilistic check's trials and power")
    parser.add_argument("--C", type=positive, default=None, help="constant C (default: the C the checks build with)")
    parser.add_argument("--trials", type=positive_int, default=None,
                        help="independent trials (default: the check's count at this eps in the ci profile)")
    parser.add_argument("--level", type=probability, default=None,
                        help="level of the test (default: the level a ci checks run holds each rate test to, "
                             "the family-wise 0.05 over its m tests)")
    parser.add_argument("--seed", type=count, default=0, help="first seed; trials use seed, seed+1, ... (default 0)")
    parser.add_argument("--families", action="store_true",
                        help="the test once per target family of the statement (slt.targets; the same seeds for "
                             "every family), one line each; exit 1 when any family shows a significant excess")


def _rate_check(name: str):
    numerics = catalogue.get(name)
    return numerics, numerics.rate_check(calibration.check_constant(name))


def main(args: argparse.Namespace) -> int:
    def usage(message: str) -> int:
        print(f"slth rate: error: {message}", file=sys.stderr)
        return 2

    rated = catalogue.probabilistic()
    if args.plan:
        given = [f"--{k}" for k in ("C", "trials", "level", "families") if getattr(args, k) not in (None, False)]
        given += ([args.statement] if args.statement else []) + list(args.parameters)
        if given:  # --plan prints every check's plan; it takes nothing that would be silently ignored
            return usage(f"--plan takes no statement, parameter or test option (got {' '.join(given)}); it prints "
                         "every check's plan")
        for line in checking.plan():
            print(line)
        return 0
    if not args.statement:
        return usage("name a statement (or pass --plan)")
    try:
        name = canonical(args.statement)
    except KeyError:
        close = difflib.get_close_matches(args.statement, rated, n=1, cutoff=0.6)
        return usage(f"unknown statement {args.statement!r}" + (f"; did you mean {close[0]!r}?" if close else "")
                     + f" (choose one of {', '.join(rated)})")
    if name not in rated:
        return usage(f"{name} is not a probabilistic statement (choose one of {', '.join(rated)})")
    try:
        params = user_parameters(name, args.parameters)
    except RequestError as exc:
        return usage(str(exc))
    if "eps" not in params:
        return usage("missing parameter eps")
    numerics, check = _rate_check(name)
    C = args.C if args.C is not None else calibration.check_constant(name)
    level = args.level if args.level is not None else checking.rate_level("ci")
    if not 0.0 < level < 1.0:
        return usage(f"--level must lie in (0, 1), got {level}")
    if args.families and not targets.families(name):  # before counting its trials (0 families: "0 trials")
        return usage(f"--families: {name} has no target families (it has no target matrix)")
    trials = args.trials if args.trials is not None else check.trials_at(params["eps"], level)
    failed = False
    try:
        check_trials(trials * (len(targets.families(name)) if args.families else 1), "--trials")
        if not args.families:
            check_request(name, C, params)  # before any trial: widths, memory, float64's resolution
        detectable_rate(trials, params["eps"], level)
        if args.families:
            check_request(name, C, params)
        for fam in targets.families(name) if args.families else [None]:  # one test per family, or the one test
            test, cases = probabilistic.failure_rate(numerics.trial, C, params if fam is None else {**params,
                                                     "target": fam}, trials, args.seed, level)
            failed |= not test.passed
            if fam is not None:
                print(f"{name} at C={C:.4g}, target {fam}: {test.describe()}", flush=True)
    except (Unrejectable, RequestError) as exc:
        return usage(str(exc))
    except (TypeError, ValueError) as exc:
        return usage(f"{name}: {exc}")
    if args.families:
        return 1 if failed else 0
    for case in cases:
        print(case.describe())
    print(f"{name} at C={C:.4g}: {test.describe()}")
    return 0 if test.passed else 1
