"""`slth report`: render a run record (``reports.record``) as one self-contained HTML file.

``slth report --from record.json`` renders a record written by ``slth run`` without measuring anything;
``slth report`` runs first (``slth run`` at the chosen profile) and then renders. Every section is a jinja2
template under ``reports/templates/sections/`` filled from the record by ``reports.sections.<name>.render``
(with ``reports.render``); the file embeds its figures as inline SVG or PNG data URIs and its mathematics as
MathML (stored in the record), so it opens offline.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import jinja2

from slt.cache import write_atomic, writing
from slt.inputs import InputError
from slt import claims

from reports import record, run
from reports.layout import OPEN_TARGET, collapse_blocks, collapse_long_tables, in_words, subsections
from reports.paths import announce, check_distinct, check_outputs
from reports.render import Section, render_template
from reports.sections import NAMES

__all__ = ["Section", "SectionError", "add_arguments", "main", "render_diff_html", "render_html", "render_sections"]

#: What a section raises when a record's nested data is not of the shape it reads (the schema checks the levels
#: the report looks up by name; a figure summary's inside is the figure's own).
_SHAPE_ERRORS = (KeyError, TypeError, AttributeError, IndexError, ValueError, jinja2.UndefinedError)


COLLAPSED = ("statements", "empirical", "evidence", "calibration-trend", "reproduction", "token", "gpt2")
"""The sections whose subsections open on a click (``reports.layout.collapse_blocks``): their opening text states
what the subsections show in detail."""


class SectionError(ValueError):
    """A section that cannot render the record it was given (one line naming the section and the problem)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", default="slth-report.html", help="HTML file to write (default: %(default)s)")
    parser.add_argument("--from", dest="source", metavar="RECORD",
                        help="render this run record (written by slth run) instead of running")
    parser.add_argument("--record", metavar="FILE", default=None,
                        help="when running: also write the run record here (default: <results>/record.json)")
    parser.add_argument("--only", nargs="*", default=None, help="render only these sections (e.g. statements proofs)")
    run.add_profile_arguments(parser)


def render_sections(rec: dict, only: list[str] | None = None, log=lambda msg: None) -> list[Section]:
    unknown = set(only or ()) - set(NAMES)
    if unknown:
        raise ValueError(f"unknown section(s) {', '.join(sorted(unknown))}; sections: " + ", ".join(NAMES))
    out = []
    for short, module in NAMES.items():
        if only and short not in only:
            continue
        try:
            section = module.render(rec)
        except _SHAPE_ERRORS as exc:
            raise SectionError(f"section {short}: the record's data is not of the shape it reads "
                               f"({type(exc).__name__}: {exc})") from exc
        if section is not None:
            out.append(section)
            log(f"[report] section {short} rendered")
    return out


def render_html(sections: list[Section], rec: dict) -> str:
    p = rec["provenance"]
    sections = [dataclasses.replace(s, html=collapse_long_tables(s.html)) for s in sections]
    sections = [dataclasses.replace(s, html=collapse_blocks(s.html)) if s.id in COLLAPSED else s for s in sections]
    page = render_template("report.html", sections=sections, record=rec, provenance=p, open_target=OPEN_TARGET,
                           toc={s.id: subsections(s.html) for s in sections},
                           commit=(p["git_commit"] or "no git commit")[:12] + (" (dirty)" if p["git_dirty"] else ""))
    readings = {(st["name"], v["name"]) for st in rec["statements"] for v in st.get("variants") or ()}
    return in_words(page, {st["name"]: claims.label(rec, st["name"]) for st in rec["statements"]},
                    readings | {"printed"})


def render_diff_html(d, old_name: str, new_name: str) -> str:
    """The diff ``d`` (``slt.diff.Diff``) as a self-contained page."""
    return render_template("diff.html", d=d, info=d.as_dict(), old_name=old_name, new_name=new_name)


def main(args: argparse.Namespace) -> int:
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    unknown = [s for s in args.only or () if s not in NAMES]
    if unknown:  # usage errors before any work
        raise InputError(f"unknown section(s) {', '.join(unknown)}; sections: {', '.join(NAMES)}")
    record_path = None if args.source else (args.record or str(Path(args.results) / "record.json"))
    # OutputError (an InputError): one line, exit 2, printed by reports.cli
    check_outputs(("-o", args.output), ("--record", record_path),
                  create=("--record",) if args.record is None else ())
    check_distinct(reads=[("--from", args.source)], writes=[("-o", args.output), ("--record", record_path)])
    if not args.source:
        problem = run.preflight(args)
        if problem:
            raise InputError(problem)
    with writing(args.output, record_path, what="output"):  # a second writer of either file is refused
        return _build(args, log)


def _build(args: argparse.Namespace, log) -> int:
    if args.source:
        try:
            rec = record.load(args.source)
        except record.RecordError as exc:
            print(f"slth report: {exc}", file=sys.stderr)
            return 2
    else:
        rec = run.build(args, " ".join(["slth"] + sys.argv[1:]) if sys.argv[1:2] == ["report"] else "slth report")
        path = Path(args.record) if args.record else Path(args.results) / "record.json"
        record.write(path, rec)
        log(f"wrote the run record {path}")
    try:
        sections = render_sections(rec, args.only, log)
    except SectionError as exc:
        if not args.source:  # the run's own record: a bug of the harness, shown as one
            raise
        raise InputError(f"{args.source}: {exc}") from None
    if args.only and len(sections) < len(set(args.only)):  # never an empty or partial report that exits 0
        raise InputError(f"this {rec['profile']} record (parts: {', '.join(rec['parts'])}) has no data for "
                         f"{len(set(args.only)) - len(sections)} of the sections {', '.join(args.only)} (rendered: "
                         f"{', '.join(s.id for s in sections) or 'none'})")
    write_atomic(Path(args.output), render_html(sections, rec))
    announce(args.output, f"wrote {args.output} ({len(sections)} sections, from a run record of the {rec['profile']} "
                          f"profile): {claims.step_sentence(rec)}")  # the page's own count of the proof steps
    return 0
