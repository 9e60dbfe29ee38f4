"""Re-run one measured case of a statement: ``python -m slt.measure.rerun lemma8 --seed 3 T=4096 d1=2 ...``.

Every ``Case`` prints this command; it calls the statement's ``rerun(seed=..., **parameters)`` (its ``Numerics`` in
``slt.measure.catalogue``) and exits with status 1 when the case violates its bound.
"""
from __future__ import annotations

import argparse
import inspect
import sys

from bounds.catalogue import canonical
from slth_base.settings import refused
from slt.measure import catalogue


def parse_value(text: str):
    """``"3" -> 3``, ``"0.5" -> 0.5``, ``"1,2" -> (1, 2)``, anything else stays a string."""
    if "," in text:
        return tuple(parse_value(t) for t in text.split(","))
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"True": True, "False": False, "None": None}.get(text, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slt.measure.rerun", description=__doc__.splitlines()[0])
    parser.add_argument("statement", help="statement name or alias, e.g. lemma8 or 'Theorem 3'")
    parser.add_argument("--seed", type=int, required=True, help="the seed the failing case printed")
    parser.add_argument("parameters", nargs="*", metavar="NAME=VALUE")
    args = parser.parse_intermixed_args(argv)
    bad = refused(parser.prog)
    if bad:
        return bad
    params = {}
    for item in args.parameters:
        name, sep, value = item.partition("=")
        if not sep:
            parser.error(f"parameter {item!r} is not of the form NAME=VALUE")
        params[name] = parse_value(value)
    try:
        name = canonical(args.statement)
    except KeyError as exc:
        parser.error(str(exc.args[0]))
    rerun = catalogue.NUMERICS[name].rerun if name in catalogue.NUMERICS else None
    if rerun is None:
        parser.error(f"{name} has no re-runnable cases")
    signature = inspect.signature(rerun)
    unknown = sorted(set(params) - set(signature.parameters))
    if unknown:
        parser.error(f"{name} takes no parameter {unknown[0]!r}; it takes {[p for p in signature.parameters if p != 'seed']}")
    missing = [p.name for p in signature.parameters.values()
               if p.default is inspect.Parameter.empty and p.name != "seed" and p.name not in params]
    if missing:
        parser.error(f"{name} needs the parameter {missing[0]}=VALUE")
    try:
        cases = rerun(seed=args.seed, **params)
    except ValueError as exc:
        parser.error(f"{name}: {exc}")
    for case in cases:
        print(case.describe())
    return 1 if any(c.violated for c in cases) else 0


if __name__ == "__main__":
    sys.exit(main())
