"""`slth report`: render a run record (``slt.record``) as one self-contained HTML file.

``slth report --from record.json`` renders a record written by ``slth run`` without measuring anything;
``slth report`` runs first (``slth run`` at the chosen profile) and then renders. Every section is a jinja2
template under ``reports/templates/sections/`` filled from the record by ``reports.sections.<name>.render``; the
file embeds its figures as PNG data URIs and its mathematics as MathML (stored in the record), so it opens offline.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import re
import sys
from pathlib import Path

import markupsafe

from slt.cache import write_atomic

__all__ = ["Section", "add_arguments", "environment", "main", "render_diff_html", "render_html", "render_sections",
           "write_atomic"]


@dataclasses.dataclass
class Section:
    id: str
    title: str
    html: str
    summary: str = ""


@functools.lru_cache(maxsize=None)
def environment():
    """The jinja2 environment of every template (HTML autoescaping on; ``fmt`` formats numbers)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("reports", "templates"),
                             autoescape=jinja2.select_autoescape(["html"]), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = fmt
    env.filters["ci"] = ci
    env.filters["verdict_css"] = verdict_css
    env.filters["notation"] = notation
    env.globals["mathml"] = lambda html: __import__("markupsafe").Markup(html)
    from reports import plots
    from reports.sections.summary import heading

    env.globals["heading"] = heading
    env.globals["plot_script"] = __import__("markupsafe").Markup(plots.SCRIPT)
    env.globals["plot_style"] = __import__("markupsafe").Markup(plots.STYLE)
    return env


def render_template(name: str, **context) -> str:
    return environment().get_template(name).render(**context)


def fmt(v, digits: int = 4) -> str:
    """Numbers to ``digits`` significant digits, dicts as ``k=v, ...``, lists as ``[...]``, None as a dash."""
    import math

    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "inf" if math.isinf(v) else f"{v:.{digits}g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}={fmt(x, digits)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt(x, digits) for x in v) + "]"
    return str(v)


_SUP = re.compile(r"\^\{([^{}<>]+)\}")
_SUB = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z])_\{?([A-Za-z0-9]{1,3})\}?(?![A-Za-z0-9_{])")


def notation(text) -> markupsafe.Markup:
    """Plain-text mathematics rendered: ``n_K^{1/4}`` as n<sub>K</sub><sup>1/4</sup>, ``exp(e_j)/Z`` with e<sub>j</sub>
    (a single letter's subscript of at most 3 characters; longer names such as ``eps_max`` stay as written). The
    text is escaped first, so nothing from a record becomes markup."""
    out = str(markupsafe.escape("" if text is None else text))
    out = _SUP.sub(r"<sup>\1</sup>", out)
    out = _SUB.sub(r"\1<sub>\2</sub>", out)
    return markupsafe.Markup(out)


def verdict_css(word: str) -> str:
    """The style of a verdict word stored in the record (``slt.measure.verdicts``): green only for "holds" (and a
    proof's "certified"), red for "fails" / "refuted", amber for anything else (undecided, not proved)."""
    return {"holds": "pass", "certified": "pass", "fails": "fail", "refuted": "fail"}.get(word, "warn")


def ci(pair, digits: int = 3) -> str:
    lo, hi = pair
    return f"[{lo:.{digits}g}, {hi:.{digits}g}]"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from reports.run import add_profile_arguments

    parser.add_argument("-o", "--output", default="slth-report.html", help="HTML file to write (default: %(default)s)")
    parser.add_argument("--from", dest="source", metavar="RECORD",
                        help="render this run record (written by slth run) instead of running")
    parser.add_argument("--record", metavar="FILE", default=None,
                        help="when running: also write the run record here (default: <results>/record.json)")
    parser.add_argument("--only", nargs="*", default=None, help="render only these sections (e.g. statements proofs)")
    add_profile_arguments(parser)


def render_sections(record: dict, only: list[str] | None = None, log=lambda msg: None) -> list[Section]:
    from reports.sections import SECTIONS

    unknown = set(only or ()) - {m.rsplit(".", 1)[-1] for m in SECTIONS}
    if unknown:
        raise ValueError(f"unknown section(s) {', '.join(sorted(unknown))}; sections: "
                         + ", ".join(m.rsplit(".", 1)[-1] for m in SECTIONS))
    out = []
    for module in SECTIONS:
        short = module.rsplit(".", 1)[-1]
        if only and short not in only:
            continue
        section = importlib.import_module(module).render(record)
        if section is not None:
            out.append(section)
            log(f"[report] section {short} rendered")
    return out


def render_html(sections: list[Section], record: dict) -> str:
    from reports.layout import collapse_long_tables, subsections

    p = record["provenance"]
    sections = [dataclasses.replace(s, html=collapse_long_tables(s.html)) for s in sections]
    return render_template("report.html", sections=sections, record=record, provenance=p,
                           toc={s.id: subsections(s.html) for s in sections},
                           commit=(p["git_commit"] or "no git commit")[:12] + (" (dirty)" if p["git_dirty"] else ""))


def render_diff_html(d, old_name: str, new_name: str) -> str:
    """The diff ``d`` (``slt.diff.Diff``) as a self-contained page."""
    return render_template("diff.html", d=d, info=d.as_dict(), old_name=old_name, new_name=new_name)


def main(args: argparse.Namespace) -> int:
    from slt import record

    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    from reports.paths import OutputError, check_outputs
    from reports.sections import SECTIONS

    known = [m.rsplit(".", 1)[-1] for m in SECTIONS]
    unknown = [s for s in args.only or () if s not in known]
    if unknown:  # usage errors before any work
        print(f"slth report: error: unknown section(s) {', '.join(unknown)}; sections: {', '.join(known)}",
              file=sys.stderr)
        return 2
    try:
        check_outputs(("-o", args.output), ("--record", None if args.source else
                                            (args.record or str(Path(args.results) / "record.json"))))
    except OutputError as exc:
        print(f"slth report: error: {exc}", file=sys.stderr)
        return 2
    if not args.source:
        from reports.run import preflight

        problem = preflight(args)
        if problem:
            print(f"slth report: error: {problem}", file=sys.stderr)
            return 2
    if args.source:
        try:
            rec = record.load(args.source)
        except record.RecordError as exc:
            print(f"slth report: {exc}", file=sys.stderr)
            return 2
    else:
        from reports import run

        rec = run.build(args, " ".join(["slth"] + sys.argv[1:]) if sys.argv[1:2] == ["report"] else "slth report")
        path = Path(args.record) if args.record else Path(args.results) / "record.json"
        record.write(path, rec)
        log(f"wrote the run record {path}")
    try:
        sections = render_sections(rec, args.only, log)
    except ValueError as exc:
        print(f"slth report: {exc}", file=sys.stderr)
        return 2
    if args.only and len(sections) < len(set(args.only)):  # never an empty or partial report that exits 0
        print(f"slth report: error: this {rec['profile']} record (parts: {', '.join(rec['parts'])}) has no data for "
              f"{len(set(args.only)) - len(sections)} of the sections {', '.join(args.only)} (rendered: "
              f"{', '.join(s.id for s in sections) or 'none'})", file=sys.stderr)
        return 2
    write_atomic(Path(args.output), render_html(sections, rec))
    print(f"wrote {args.output} ({len(sections)} sections, {rec['profile']} record)")
    return 0
