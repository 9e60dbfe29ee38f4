"""`slth report`: assemble the sections of ``reports.sections.SECTIONS`` into one self-contained HTML file.

The file embeds its figures as PNG data URIs and its mathematics as MathML, so it opens offline.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib
import platform
import sys
import time
from pathlib import Path

from slt.cache import write_atomic


@dataclasses.dataclass
class Context:
    """What every section may use: where cached results live and how much work to do."""

    results_dir: Path
    quick: bool = True
    seed: int = 0
    log: callable = print


@dataclasses.dataclass
class Section:
    id: str
    title: str
    html: str
    summary: str = ""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", default="slth-report.html", help="HTML file to write (default: %(default)s)")
    parser.add_argument("--results", default="results", help="folder of cached results (default: %(default)s)")
    parser.add_argument("--full", action="store_true", help="run the full empirical sweeps instead of the quick ones")
    parser.add_argument("--seed", type=int, default=0, help="base seed of every empirical section (default: %(default)s)")
    parser.add_argument("--only", nargs="*", default=None, help="render only these section modules (e.g. statements proofs)")


def render_sections(ctx: Context, only: list[str] | None = None) -> list[Section]:
    from reports.sections import SECTIONS

    sections = []
    for module in SECTIONS:
        short = module.rsplit(".", 1)[-1]
        if only and short not in only:
            continue
        start = time.perf_counter()
        ctx.log(f"[report] section {short} ...")
        sections.append(importlib.import_module(module).render(ctx))
        ctx.log(f"[report] section {short} done in {time.perf_counter() - start:.1f} s")
    return sections


def render_html(sections: list[Section], ctx: Context) -> str:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("reports", "templates"), autoescape=jinja2.select_autoescape(["html"])
    )
    return env.get_template("report.html").render(
        sections=sections,
        generated=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        environment=f"Python {platform.python_version()} on {platform.platform()}",
        mode="quick" if ctx.quick else "full",
        seed=ctx.seed,
        command=" ".join(["slth"] + sys.argv[1:]) if sys.argv and sys.argv[0].endswith("slth") else "slth report",
    )


def main(args: argparse.Namespace) -> int:
    ctx = Context(results_dir=Path(args.results), quick=not args.full, seed=args.seed)
    sections = render_sections(ctx, args.only)
    write_atomic(Path(args.output), render_html(sections, ctx))
    print(f"wrote {args.output} ({len(sections)} sections)")
    return 0
