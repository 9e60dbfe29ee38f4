"""`slth run [--proofs-only | --quick | --full] [--slack] -o record.json`: run the harness and write its run record.

The record (``reports.record``: versioned JSON, validated on read) holds everything the run decides; ``slth report
--from record.json`` renders it and ``slth diff`` compares two. Exits 1 when a proof step of a supported form
fails (the record is written either way), else 0.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reports import record
from reports.cli import count
from reports.paths import announce, check_outputs
from slt.cache import writing
from slt.inputs import InputError

DEFAULT_OUTPUT = "results/record.json"


def assembler():
    """``reports.record.assemble``, imported when a run starts, not at start-up (a measured cost: it loads
    ``bounds``, SymPy and the measuring library, 1.2 s of the 1.5 s `slth run` takes to import, which
    `slth report --from`, `slth diff OLD NEW` and every usage error never need)."""
    from reports.record import assemble

    return assemble


def add_profile_arguments(parser: argparse.ArgumentParser, default: str = "quick") -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--proofs-only", dest="profile", action="store_const", const="proofs",
                       help="only the proof part: steps, variants, widths, constants")
    group.add_argument("--quick", dest="profile", action="store_const", const="quick",
                       help="add the mutation suite, the quick empirical measurements and figure summaries (default)")
    group.add_argument("--full", dest="profile", action="store_const", const="full",
                       help="the full empirical measurements and figure sweeps (and the slack table)")
    parser.set_defaults(profile=default)
    parser.add_argument("--slack", action="store_true",
                        help="add the slack of every proof constant (bounds.prove.slack; always in --full; its cost: "
                             "docs/performance.md)")
    parser.add_argument("--seed", type=count, default=0, help="base seed of every measurement (default: %(default)s)")
    parser.add_argument("--results", default="results",
                        help="folder of cached results: calibration, figure summaries, task caches (default: %(default)s)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", default=DEFAULT_OUTPUT,
                        help="record file to write (JSON; default: %(default)s)")
    add_profile_arguments(parser)


def preflight(args: argparse.Namespace) -> str | None:
    """The first problem with the inputs a run reads (the calibration file, and $SLTH_SCHEDULER when the profile
    measures), as one line, or None: checked before any work."""
    try:
        assembler().calibration(args.results)
        if args.profile != "proofs":
            assembler().check_cluster()  # $SLTH_SCHEDULER: before any work, not after minutes of proofs
    except (OSError, ValueError) as exc:
        return str(exc)
    return None


def build(args: argparse.Namespace, command: str):
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    return assembler().build(args.profile, seed=args.seed, results_dir=args.results, command=command, log=log,
                        cache_dir=Path(args.results) / "tasks", with_slack=getattr(args, "slack", False))


def main(args: argparse.Namespace) -> int:
    # OutputError (an InputError): one line, exit 2, printed by reports.cli
    check_outputs(("-o", args.output), create=("-o",) if args.output == DEFAULT_OUTPUT else ())
    problem = preflight(args)
    if problem:
        raise InputError(problem)
    command = " ".join(["slth", "run"] + [a for a in sys.argv[2:]]) if sys.argv[1:2] == ["run"] else "slth run"
    with writing(args.output, what="-o"):  # a second writer of the record is refused
        rec = build(args, command)
        record.write(args.output, rec)
    failed = record.failed_steps(rec)
    from slt.claims import step_sentence  # the report's sentence (counts and where the kernel's verdicts come from)
    announce(args.output, f"wrote {args.output} ({rec['profile']}; {rec['provenance']['wall_s']['total']:.1f} s): "
             f"{step_sentence(rec)}")
    return 1 if failed else 0
