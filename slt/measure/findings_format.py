"""How every finding prints a number, names a statement and says that its data is not in the record (shared by
``slt.measure.findings`` and ``slt.measure.findings_constants``)."""
from __future__ import annotations

import math

from slt import claims


def fmt(x) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return str(int(x)) if math.isfinite(x) and x == int(x) and abs(x) < 1e6 else f"{x:.4g}"
    return str(x)


def heading(record, name) -> str:
    st = next((s for s in record["statements"] if s["name"] == name), None)
    return claims.label(record, name) if st else name.capitalize()


def missing(fid, title, why, test, evidence="#proofs") -> dict:
    return {"id": fid, "status": "not in this record", "title": title, "sentences": [why], "counterexample": None,
            "test": test, "command": None, "evidence": evidence}
