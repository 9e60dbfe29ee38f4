"""What every report section renders with: the ``Section`` it returns, the jinja2 environment of the templates
under ``reports/templates/`` (HTML autoescaping on), and the filters and names the templates use (``fmt``, ``ci``,
``heading``). Sections import this module; ``reports.build`` assembles the page from their output, so no section
imports the page builder."""
from __future__ import annotations

import dataclasses
import functools
import html
import math
import re
from html.parser import HTMLParser

import jinja2
from markupsafe import Markup, escape

from slt.claims import exact_number, point_parts, point_text
from slt.claims import numbering_heading as heading  # a statement's heading with both numberings

from reports import plots

__all__ = ["Section", "ci", "empirical_source", "environment", "fmt", "heading", "notation", "render_template",
           "safe_mathml", "tokens", "verdict_css"]

#: Presentation MathML the report shows (what ``slt.mathml`` writes, and the rest of presentation MathML's layout
#: and token elements); anything else in a record's MathML field is dropped, its text kept as text.
MATHML_ELEMENTS = frozenset({
    "math", "mi", "mn", "mo", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot", "mstyle", "merror",
    "mpadded", "mphantom", "mfenced", "menclose", "msub", "msup", "msubsup", "munder", "mover", "munderover",
    "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd", "mlabeledtr", "semantics", "annotation"})
MATHML_ATTRIBUTES = frozenset({
    "display", "mathvariant", "stretchy", "columnalign", "rowalign", "columnspacing", "rowspacing", "fence",
    "separator", "separators", "open", "close", "form", "lspace", "rspace", "accent", "accentunder", "linethickness",
    "scriptlevel", "displaystyle", "width", "height", "depth", "notation", "movablelimits", "largeop", "symmetric",
    "minsize", "maxsize"})
_DROP_WITH_CONTENT = frozenset({"script", "style", "iframe", "object", "embed", "template", "noscript", "title"})


class _MathMLSanitiser(HTMLParser):
    """Rebuilds MathML from an allow-list: allowed elements with allowed attributes (values escaped), text
    escaped, everything else dropped (script and style with their content)."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.out: list[str] = []
        self.open: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in _DROP_WITH_CONTENT:
            self.skip += 1
        elif tag in MATHML_ELEMENTS and not self.skip:
            kept = "".join(f' {k}="{html.escape(v or "", quote=True)}"' for k, v in attrs
                           if k in MATHML_ATTRIBUTES and not (v or "").lstrip().lower().startswith("javascript:"))
            self.out.append(f"<{tag}{kept}>")
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in _DROP_WITH_CONTENT:
            self.skip = max(0, self.skip - 1)
        elif tag in MATHML_ELEMENTS and not self.skip and tag in self.open:
            while self.open:
                last = self.open.pop()
                self.out.append(f"</{last}>")
                if last == tag:
                    break

    def handle_data(self, data):
        if not self.skip:
            self.out.append(html.escape(data, quote=False))

    def handle_entityref(self, name):  # kept as written (&le;, &InvisibleTimes;): a name is letters and digits
        if not self.skip:
            self.out.append(f"&{name};" if name.isalnum() else html.escape(f"&{name}", quote=False))

    def handle_charref(self, name):
        if not self.skip:
            ok = name.isdigit() or (name[:1] in "xX" and all(c in "0123456789abcdefABCDEF" for c in name[1:]))
            self.out.append(f"&#{name};" if ok and name.strip("xX") else html.escape(f"&#{name}", quote=False))

    def result(self) -> str:
        self.close()
        return "".join(self.out) + "".join(f"</{t}>" for t in reversed(self.open))


def safe_mathml(text) -> Markup:
    """A record's MathML (any string) as markup safe to put in the page: the allow-listed MathML of
    ``MATHML_ELEMENTS`` / ``MATHML_ATTRIBUTES``, every other tag and attribute (event handlers, links, scripts)
    dropped, text escaped. A record comes from a file and may come from someone else."""
    parser = _MathMLSanitiser()
    parser.feed(str(text))
    return Markup(parser.result())


@dataclasses.dataclass
class Section:
    id: str
    title: str
    html: str
    summary: str = ""


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


_WORD = re.compile(r"\S+")
_DIGIT = re.compile(r"[0-9]")


def _token(m) -> str:
    word = m.group(0)
    if _DIGIT.search(word) or "-" in word[1:-1]:
        return f'<span class="tok">{word}</span>'
    return word


def tokens(text) -> Markup:
    """Text (escaped, unless it is markup already) with every word that holds a digit, or a hyphen inside it, kept
    on one line (``<span class="tok">``, ``white-space: nowrap``): "7.15256e-07", "[0,1]" or "1-Lipschitz" never
    break. One pass over the words (linear time: a 50 MB detail renders)."""
    out = text if isinstance(text, Markup) else escape("" if text is None else str(text))
    return Markup(_WORD.sub(_token, str(out)))


def empirical_source(record: dict) -> dict:
    """Which empirical measurements the page shows (``record["empirical_source"]``, stored by the record build):
    ``{"profile", "committed", "line"}``; the line says it in words."""
    src = record.get("empirical_source") or {}
    if src.get("kind") == "committed":
        own = src.get("own_quick") or {}
        line = (f"The failure rates on this page (the probabilistic statements' verdicts) are those of the committed "
                f"full-power record "
                f"{src['file']} (made {src['created']}"
                + (f" at commit {src['git_commit'][:12]}" if src.get("git_commit") else "")
                + f" by {src['command']}), at the constants this run builds with; the deterministic checks are this "
                + "run's own. "
                + (f"This run's own quick failure rates gave {own.get('holds', 0)} hold, {own.get('fails', 0)} fail, "
                   f"{own.get('undecided at this power', 0)} undecided at this power." if any(own.values()) else
                   "This run measured no quick failure rates of its own (the committed ones decide more)."))
        if src.get("note"):
            line += f" ({src['note']}.)"
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
    env.filters.update(fmt=fmt, point=point_text, exact=exact_number, point_parts=point_parts, ci=ci,
                       verdict_css=verdict_css, notation=notation, tokens=tokens)
    env.globals.update(mathml=safe_mathml, heading=heading, plot_script=Markup(plots.SCRIPT),
                       plot_style=Markup(plots.STYLE))
    return env


def render_template(name: str, **context) -> str:
    return environment().get_template(name).render(**context)
