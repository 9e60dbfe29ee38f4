"""The `slth` command line.

Each subcommand lives in its own module, which defines ``add_arguments(parser)`` and
``main(args) -> int`` (the exit status). A command's module is imported only when that command runs.
"""
from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = {
    "proofs": ("reports.proofs", "verify every proof step and print the step table"),
    "run": ("reports.run", "run the harness and write its run record (JSON)"),
    "report": ("reports.build", "write the self-contained HTML report (run then render, or --from a record)"),
    "diff": ("reports.diff", "what changed between two run records, or between the working tree and a git ref"),
    "calibrate": ("reports.calibrate", "estimate the universal constant C of each probabilistic statement"),
    "reproduce": ("reports.reproduce", "reproduce the paper's Figures 4, 5 and 6"),
    "rate": ("reports.rate", "one failure-rate test with its power (or every check's trials and power: --plan)"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; only ``command``'s module is imported for its arguments (all of them when
    None), since importing every command's module costs 2.5 s (measured: the run record's assembling, SymPy, the
    measuring library) where one usage error or `slth diff OLD NEW` needs a fraction of it."""
    parser = argparse.ArgumentParser(
        prog="slth",
        description="Verification harness for the strong lottery ticket hypothesis for multi-head attention "
        "(Otsuka et al., arXiv 2511.04217).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        cmd.set_defaults(_module=module)
        if command is None or command == name:
            importlib.import_module(module).add_arguments(cmd)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(command if command in COMMANDS else "").parse_args(argv)
    return int(importlib.import_module(args._module).main(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
