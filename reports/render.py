"""What every report section renders with: the ``Section`` it returns, the jinja2 environment of the templates
under ``reports/templates/`` (HTML autoescaping on), and the filters and names the templates use (``fmt``, ``ci``,
``heading``). Sections import this module; ``reports.build`` assembles the page from their output, so no section
imports the page builder."""
from __future__ import annotations

import dataclasses
import functools
import math
import re

import jinja2
from markupsafe import Markup, escape

from reports import plots

__all__ = ["Section", "ci", "environment", "fmt", "heading", "empirical_source", "notation", "render_template",
           "verdict_css"]


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


_SUP = re.compile(r"\^\{([^{}<>]+)\}")
_SUB = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z])_\{?([A-Za-z0-9]{1,3})\}?(?![A-Za-z0-9_{])")


def notation(text) -> Markup:
    """Plain-text mathematics rendered: ``n_K^{1/4}`` as n<sub>K</sub><sup>1/4</sup>, ``exp(e_j)/Z`` with e<sub>j</sub>
    (a single letter's subscript of at most 3 characters; longer names such as ``eps_max`` stay as written). The
    text is escaped first, so nothing from a record becomes markup."""
    out = str(escape("" if text is None else text))
    out = _SUP.sub(r"<sup>\1</sup>", out)
    out = _SUB.sub(r"\1<sub>\2</sub>", out)
    return Markup(out)


def empirical_source(record: dict) -> dict:
    """Which empirical measurements the page shows (``record["empirical_source"]``, stored by the record build):
    ``{"profile", "committed", "line"}``; the line says it in words."""
    src = record.get("empirical_source") or {}
    if src.get("kind") == "committed":
        own = src.get("own_quick") or {}
        line = (f"The empirical verdicts on this page are those of the committed full-power record "
                f"{src['file']} (made {src['created']}"
                + (f" at commit {src['git_commit'][:12]}" if src.get("git_commit") else "")
                + f" by {src['command']}), at the constants this run builds with; this run's own quick measurements "
                + (f"gave {own.get('holds', 0)} hold, {own.get('fails', 0)} fail, "
                   f"{own.get('undecided at this power', 0)} undecided at this power." if own else "are not shown."))
        if src.get("undecided"):
            line += (" Still undecided in the committed record, because more trials were not run: "
                     + "; ".join(src["undecided"]) + ".")
        return {"profile": "full", "committed": True, "line": line}
    profile = src.get("profile") or record["profile"]
    line = f"The empirical verdicts on this page are this run's own ({profile} profile)."
    if src.get("why"):
        line += f" {src['why'][0].upper()}{src['why'][1:]}."
    return {"profile": profile, "committed": False, "line": line}


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
    env.filters["notation"] = notation
    env.globals["mathml"] = Markup
    env.globals["heading"] = heading
    env.globals["plot_script"] = Markup(plots.SCRIPT)
    env.globals["plot_style"] = Markup(plots.STYLE)
    return env


def render_template(name: str, **context) -> str:
    return environment().get_template(name).render(**context)
