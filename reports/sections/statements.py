"""Report section "Statements": every statement as MathML (stored in the record from its SymPy objects), with
its width requirements on the record's default grid."""
from __future__ import annotations

import json

from reports.render import Section, render_template


def width_tables(record: dict) -> dict:
    """Per statement: ``{"C", "rows": [{"point", "cells": {width: value}}]}`` from ``record["widths"]``."""
    out = {st["name"]: {"C": None, "rows": []} for st in record["statements"]}
    index = {}
    for w in record["widths"]:
        table = out.setdefault(w["statement"], {"C": None, "rows": []})
        table["C"] = w["C"]
        key = (w["statement"], json.dumps(w["point"], sort_keys=True))
        if key not in index:
            index[key] = {"point": w["point"], "cells": {}}
            table["rows"].append(index[key])
        index[key]["cells"][w["width"]] = w["value"]
    return out


def render(record: dict) -> Section:
    html = render_template("sections/statements.html", statements=record["statements"],
                           exponents=record["exponents"], width_tables=width_tables(record))
    return Section(id="statements", title="Statements", html=html,
                   summary=f"{len(record['statements'])} statements rendered from their SymPy objects")
