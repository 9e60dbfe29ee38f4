"""Page layout helpers of the report: long tables collapsed into ``<details>`` (the text around them, which
states their headline numbers, stays visible), a table of contents of sections and their subsections."""
from __future__ import annotations

import html as _html
import re

__all__ = ["collapse_long_tables", "collapse_blocks", "in_words", "subsections", "MAX_ROWS", "OPEN_TARGET"]

MAX_ROWS = 12
_TABLE = re.compile(r"<table\b[^>]*>.*?</table>", re.S)
_H3 = re.compile(r'<h([34]) id="([^"]+)">(.*?)</h\1>', re.S)
_TAG = re.compile(r"<[^>]+>")


def collapse_long_tables(html: str, max_rows: int = MAX_ROWS) -> str:
    """Every table of more than ``max_rows`` body rows (not the summary table) inside a closed ``<details>``
    whose ``<summary>`` gives the row count and the column names."""
    def wrap(m):
        table = m.group(0)
        if 'class="summary"' in table[:80]:
            return table
        rows = table.count("<tr") - 1
        if rows <= max_rows:
            return table
        head = re.search(r"<tr[^>]*>(.*?)</tr>", table, re.S)
        cols = [_TAG.sub("", c).strip() for c in re.findall(r"<th[^>]*>(.*?)</th>", head.group(1), re.S)] if head else []
        shown = ", ".join(c for c in cols if c)[:140]
        return (f'<details class="long"><summary>table of {rows} rows ({shown}): show</summary>{table}</details>')
    return _TABLE.sub(wrap, html)


def subsections(html: str) -> list[tuple[str, str]]:
    """(id, text) of every ``<h3 id=...>`` and ``<h4 id=...>`` in ``html``: the second level of the table of
    contents. The text is plain (tags stripped, entities decoded): the template escapes it once, so an apostrophe
    reads as one and not as ``&#39;``, and markup in a heading stays text."""
    return [(i, _html.unescape(_TAG.sub("", t)).strip()) for _, i, t in _H3.findall(html)]


def _wrap_level(html: str, level: int) -> str:
    heading = re.compile(rf"<h{level}\b[^>]*>.*?</h{level}>", re.S)
    stop = re.compile(rf"<h[1-{level}]\b|<details class=\"block\"" if level > 3 else r"<h[1-3]\b")
    out, pos = [], 0
    for m in heading.finditer(html):
        if m.start() < pos:
            continue
        out.append(html[pos:m.start()])
        nxt = stop.search(html, m.end())
        end = nxt.start() if nxt else len(html)
        out.append(f'<details class="block"><summary>{m.group(0)}</summary>{html[m.end():end]}</details>')
        pos = end
    out.append(html[pos:])
    return "".join(out)


def collapse_blocks(html: str) -> str:
    """Every ``<h4>`` and ``<h3>`` block of a section (the heading and what follows it up to the next heading of
    its level or above) inside a closed ``<details>`` whose summary is the heading: the section's opening text,
    which states its headline, stays visible, and the heading (its id too) stays in the table of contents."""
    return _wrap_level(_wrap_level(html, 4), 3)


OPEN_TARGET = """
function openTarget() {
  var id = decodeURIComponent(location.hash.slice(1)); if (!id) return;
  var el = document.getElementById(id);
  for (var e = el; e; e = e.parentElement) { if (e.tagName === 'DETAILS') e.open = true; }
  if (el) el.scrollIntoView();
}
window.addEventListener('hashchange', openTarget); window.addEventListener('load', openTarget);
"""
"""The page's script that opens every closed ``<details>`` around the target of a link."""


KINDS = {"rate": "failure rate", "search": "adversarial search", "stored": "stored counterexample",
         "chain": "a-posteriori chain", "length": "length sweep"}
_SKIP = re.compile(r"<(code|pre|script|style|math)\b.*?</\1>|<!--.*?-->|<(?:[^>\"']|\"[^\"]*\"|'[^']*')*>", re.S)
_CHECK = re.compile(r"\b(rate|search|stored|chain|length):([a-z]+\d*)(?::([\w-]+))?")
_KEY = re.compile(r"\b((?:lemma|theorem)\d+|lueker):([\w/-]+)")
_BARE = re.compile(r"(?<![\w#/.-])((?:lemma|theorem)\d+|lueker)(?![\w-]|\.\w)")
_PATH = re.compile(r"(?<![\w.~])(?:/[\w.+-]+){2,}/?")
_LITERAL = {"True": "yes", "False": "no", "None": "-"}


def in_words(html: str, labels: dict, readings=frozenset({"printed"})) -> str:
    """The page's visible text with the harness's internal names in words: a check id (``rate:lemma2``,
    ``stored:lemma13:printed``) as "failure rate of Lemma 2", "stored counterexample of Lemma 13 as printed"; a
    reading or step key (``lemma13:printed``, ``lemma5:L5b``) as "Lemma 13 as printed", "Lemma 5, step L5b" (a
    reading is a name in ``readings``, or a ``(statement, name)`` pair there; anything else is a step); a
    bare statement name as its label (``labels``: name -> "Lemma 7"); Python's True / False / None as yes / no /
    -; an absolute path as its last part. Tags and their attributes (ids, links), code, MathML, scripts and styles
    are left as they are: a command stays one a reader can copy."""
    labels = {k: _html.escape(str(v)) for k, v in labels.items()}  # they go into the page as text

    def key(name, rest):
        lab = labels.get(name, name)
        if rest not in readings and (name, rest) not in readings:
            return f"{lab}, step {rest}"
        return f"{lab} as {rest}" if rest == "printed" else f"{lab} (reading {rest})"

    def text(t: str) -> str:
        t = _CHECK.sub(lambda m: f"{KINDS[m.group(1)]} of " + (key(m.group(2), m.group(3)) if m.group(3)
                                                               else labels.get(m.group(2), m.group(2))), t)
        t = _KEY.sub(lambda m: key(m.group(1), m.group(2)), t)
        t = _BARE.sub(lambda m: labels.get(m.group(1), m.group(1)), t)
        t = re.sub(r"\b(True|False|None)\b", lambda m: _LITERAL[m.group(1)], t)
        return _PATH.sub(lambda m: ".../" + m.group(0).rstrip("/").rsplit("/", 1)[-1], t)

    out, pos = [], 0
    for m in _SKIP.finditer(html):
        out.append(text(html[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(text(html[pos:]))
    return "".join(out)
