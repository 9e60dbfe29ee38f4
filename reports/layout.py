"""Page layout helpers of the report: long tables collapsed into ``<details>`` (the text around them, which
states their headline numbers, stays visible), a table of contents of sections and their subsections."""
from __future__ import annotations

import html as _html
import re

__all__ = ["collapse_long_tables", "subsections", "MAX_ROWS"]

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
