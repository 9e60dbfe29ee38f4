"""What every report section renders with: the ``Section`` it returns, the jinja2 environment of the templates
under ``reports/templates/`` (HTML autoescaping on), and the filters and names the templates use (``fmt``, ``ci``,
``heading``). Sections import this module; ``reports.build`` assembles the page from their output, so no section
imports the page builder."""
from __future__ import annotations

import dataclasses
import functools
import math

import jinja2
from markupsafe import Markup

from reports import plots

__all__ = ["Section", "ci", "environment", "fmt", "heading", "render_template", "verdict_css"]


@dataclasses.dataclass
class Section:
    id: str
    title: str
    html: str
    summary: str = ""


def heading(numbering: dict, name: str) -> str:
    """"Theorem 9 (main text: Theorem 3)", "Lemma 12 (appendix only)": the appendix number first."""
    appendix = numbering.get("appendix") or name
    main = (numbering.get("main") or "").strip()
    bare = main.strip("()").strip()
    if not bare or bare == appendix:
        return appendix
    if bare.endswith("appendix only"):
        return f"{appendix} (appendix only)"
    return f"{appendix} (main text: {bare})"


def fmt(v, digits: int = 4) -> str:
    """Numbers to ``digits`` significant digits, dicts as ``k=v, ...``, lists as ``[...]``, None as a dash."""
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


def verdict_css(word: str) -> str:
    """The style of a verdict word stored in the record (``slt.measure.verdicts``): green only for "holds" (and a
    proof's "certified"), red for "fails" / "refuted", amber for anything else (undecided, not proved)."""
    return {"holds": "pass", "certified": "pass", "fails": "fail", "refuted": "fail"}.get(word, "warn")


def ci(pair, digits: int = 3) -> str:
    lo, hi = pair
    return f"[{lo:.{digits}g}, {hi:.{digits}g}]"


@functools.lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    """The jinja2 environment of every template (HTML autoescaping on; ``fmt`` formats numbers)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("reports", "templates"),
                             autoescape=jinja2.select_autoescape(["html"]), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = fmt
    env.filters["ci"] = ci
    env.filters["verdict_css"] = verdict_css
    env.globals["mathml"] = Markup
    env.globals["heading"] = heading
    env.globals["plot_script"] = Markup(plots.SCRIPT)
    env.globals["plot_style"] = Markup(plots.STYLE)
    return env


def render_template(name: str, **context) -> str:
    return environment().get_template(name).render(**context)
