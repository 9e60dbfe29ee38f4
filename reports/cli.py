"""The `slth` command line.

Each subcommand lives in its own module, which defines ``add_arguments(parser)`` and
``main(args) -> int`` (the exit status). A command's module is imported only when that command runs.

Exit status: 0 done, 1 a proof step failed or a bound was violated, 2 a usage error (a bad name or value, a file
that is not what it should be, an output that cannot be written: a full disk or a read-only folder included),
3 the harness's own code cannot be imported (a syntax error in ``bounds/``, say: not a failed proof step),
130 interrupted (Ctrl-C). Every error is one line on stderr, never a traceback.
"""
from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import math
import os
import re
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from reports.terminal import escaped_streams, safe
from slth_base.files import InputError
from slth_base.settings import check_all

ROOT = Path(__file__).resolve().parent.parent
BROKEN_CODE = 3
"""Exit status when the harness's own source cannot be imported (distinct from 1, a failed proof step)."""
INTERRUPTED = 130
#: Errors of the machine's storage, reported as one line (exit 2) instead of a traceback.
STORAGE = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EISDIR, errno.ENOTDIR,
           errno.EFBIG, errno.ELOOP}

COMMANDS = {
    "proofs": ("reports.proofs", "verify every proof step and print the step table"),
    "run": ("reports.run", "run the harness and write its run record (JSON)"),
    "report": ("reports.build", "write the self-contained HTML report (run then render, or --from a record)"),
    "diff": ("reports.diff", "what changed between two run records, or between the working tree and a git ref"),
    "calibrate": ("reports.calibrate", "estimate the universal constant C of each probabilistic statement"),
    "reproduce": ("reports.reproduce", "reproduce the paper's Figures 4, 5 and 6"),
    "rate": ("reports.rate", "one failure-rate test with its power (or every check's trials and power: --plan)"),
    "targets": ("reports.targets", "targets as adversaries: failure rate per target family, worst-target C, search"),
    "docs": ("reports.statements_page", "regenerate docs/statements.md from bounds/ and the docs' tables of committed data"),
}


class Parser(argparse.ArgumentParser):
    """The parser of every ``slth`` command: a usage error is ONE line on stderr naming the argument (no usage
    block), with "did you mean" where a close name exists, and exit status 2."""

    def error(self, message: str):
        self.exit(2, safe(f"{self.prog}: error: {message}{_suggestion(self, message)}").replace("\n", " ") + "\n")


def _names(parser: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """The option strings and the choices of ``parser`` and of every subcommand parser under it."""
    options, choices = [], []
    for action in parser._actions:
        options += [o for o in action.option_strings if o.startswith("--")]
        if isinstance(action, argparse._SubParsersAction):
            choices += list(action.choices)
            for sub in action.choices.values():
                o, c = _names(sub)
                options += o
                choices += c
        elif action.choices:
            choices += [str(c) for c in action.choices]
    return options, choices


def _suggestion(parser: argparse.ArgumentParser, message: str) -> str:
    """ "; did you mean X?" for an invalid choice or an unrecognised option close to a known one, else ""."""
    options, choices = _names(parser)
    m = re.search(r"invalid choice: '([^']*)'", message)
    if m:
        pool, word = choices, m.group(1)
    else:
        m = re.search(r"unrecognized arguments: (\S+)", message)
        if not m:
            return ""
        word = m.group(1).split("=")[0]
        pool = options if word.startswith("-") else choices
    close = difflib.get_close_matches(word, sorted(set(pool)), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


# --------------------------------------------------------------------------- argument types (finite, in range)

def _number(text: str, kind):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None


def checked(parse, ok, words: str):
    """An argument type: ``parse(text)`` when ``ok`` holds for it, else the error "'text' <words>"."""
    def check(text: str):
        v = parse(text)
        if not ok(v):
            raise argparse.ArgumentTypeError(f"{text!r} {words}")
        return v
    return check


finite = checked(lambda text: _number(text, float), math.isfinite, "is not a finite number")  # not nan, not inf
positive = checked(finite, lambda v: v > 0, "must be > 0")  # a finite number > 0
positive_int = checked(lambda text: _number(text, int), lambda v: v >= 1, "must be an integer >= 1")
count = checked(lambda text: _number(text, int), lambda v: v >= 0, "must be an integer >= 0")


WORKERS_PER_CORE = 4
"""The most worker processes ``--workers`` may start per core of this machine (more only queue for the cores and
each costs a Python process's memory)."""


def max_workers() -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


# a number of local worker processes: an integer from 0 (in this process) to max_workers()
workers = checked(count, lambda v: v <= max_workers(), "is more worker processes than this machine can use: at most "
                  f"{max_workers()} ({WORKERS_PER_CORE} per core, {os.cpu_count() or 1} cores)")


probability = checked(finite, lambda v: 0 < v < 1, "must lie in (0, 1)")  # eps, a level


def probabilities(text: str) -> list[float]:
    """A comma-separated list of numbers in (0, 1) (``0.3,0.1``; a decimal comma, ``0,5``, is refused)."""
    try:
        return [probability(t.strip()) for t in text.split(",")]
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc} (a comma separates values; use a decimal point)") from None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; only ``command``'s module is imported for its arguments (all of them when
    None), since importing every command's module costs 2.5 s (measured: the run record's assembling, SymPy, the
    measuring library) where one usage error or `slth diff OLD NEW` needs a fraction of it."""
    parser = Parser(
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


def _where(exc: SyntaxError) -> str:
    try:
        return f"{Path(exc.filename).resolve().relative_to(ROOT)}, line {exc.lineno}"
    except (TypeError, ValueError):
        return f"{exc.filename}, line {exc.lineno}"


@contextmanager
def _noting_sigint():
    """SIGINT raises ``KeyboardInterrupt`` as Python's own handler does, and is noted in the list yielded. A library
    may catch the interrupt (SymPy's bare ``except``, an import cut half-way) and then fail another way or read a
    wrong value; the command still ends as interrupted, never with that failure. Off the main thread, or where SIGINT
    is not Python's default handler (ignored, or the caller's own), nothing changes."""
    seen: list = []
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield seen
        return

    def noted(signum, frame):
        seen.append(signum)
        raise KeyboardInterrupt
    old = signal.signal(signal.SIGINT, noted)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, old)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    name = f"slth {command}" if command in COMMANDS else "slth"
    with escaped_streams(), _noting_sigint() as seen:  # every terminal line through reports.terminal.safe
        try:
            rc = _main(argv, name, command, seen)
        except BaseException:
            if not seen:
                raise
            rc = None
        if seen and rc != INTERRUPTED:  # an interrupt that a library turned into another failure
            rc = _interrupted(name)
        return rc


def _interrupted(name: str) -> int:
    print(f"{name}: interrupted; nothing half-written was kept (every output is written atomically)", file=sys.stderr)
    return INTERRUPTED


def _main(argv: list[str], name: str, command: str | None, seen: list = ()) -> int:
    try:
        # every environment variable, checked like an option before the command's module is imported (some read
        # theirs at import): one line naming the variable, the value and what is allowed (exit 2)
        check_all()
        args = build_parser(command if command in COMMANDS else "").parse_args(argv)
        return int(importlib.import_module(args._module).main(args) or 0)
    except KeyboardInterrupt:
        return _interrupted(name)
    except BaseException:
        if seen:  # an interrupt that a library turned into another failure: interrupted, not that failure
            return _interrupted(name)
        return _failure(name)


def _failure(name: str) -> int:
    """The exit status and one line for the exception being handled (re-raised when it is none of these)."""
    try:
        raise
    except InputError as exc:  # a bad file or argument found by a reader or a check: one line, exit 2
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2
    except SyntaxError as exc:  # the harness's own code (bounds/, slt/, reports/) does not parse
        print(f"{name}: error: the harness's code does not parse: {_where(exc)}: {exc.msg} (exit {BROKEN_CODE}: "
              "broken code, not a failed proof step)", file=sys.stderr)
        return BROKEN_CODE
    except MemoryError:
        print(f"{name}: error: out of memory (use smaller parameters)", file=sys.stderr)
        return 2
    except OSError as exc:
        if exc.errno not in STORAGE:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{name}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
