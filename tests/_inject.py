"""A run record with a script appended to every string field that is not a name: what a
record received from someone else could hold. Names (statements, widths, parameters) are refused by the
record's validation unless they are names; every other string must reach the page as text."""
from __future__ import annotations

import json
from pathlib import Path

COUNTER = "window.__injected=(window.__injected||0)+1"
PAYLOAD = f'"\'><script>{COUNTER}</script><img src=x onerror="{COUNTER}"><svg onload="{COUNTER}"></svg>'
SAMPLE = Path(__file__).with_name("data") / "empirical-record-sample.json"


def _is_name(key, path: str) -> bool:
    return key in ("statement", "width", "width_params") or (path.startswith("statements[")
                                                             and path.endswith("].name")) or _is_verdict(key, path)


def _is_verdict(key, path: str) -> bool:
    """The empirical part's verdict words: validated against the words the verdict function decides (a record
    whose words are not those is refused), so never free text."""
    return path.startswith("empirical.") and (key in ("verdict", "word") or path.startswith(("empirical.verdicts.",
                                                                                           "empirical.decisions.")))


MAPS = ("params", "box", "counterexample", "required", "where")
"""Objects whose keys are data (parameter names of a check, a box, a counterexample): their keys get the payload
too. Other keys are the schema's own field names (a finding's counterexample is a table whose keys, ``columns`` and
``rows``, are the schema's; its cells get the payload)."""


def inject(value, key=None, path=""):
    """``value`` with ``PAYLOAD`` appended to every string that is not a name, and to the keys of ``MAPS``."""
    if isinstance(value, str):
        return value if _is_name(key, path) else value + PAYLOAD
    if isinstance(value, dict):
        table = key == "counterexample" and path.startswith("findings.")  # a finding's table: {"columns", "rows"}
        return {(k + PAYLOAD if key in MAPS and not table and not (key == "params" and k == "eps") else k):
                inject(v, k, f"{path}.{k}" if path else k)
                for k, v in value.items()}
    if isinstance(value, list):
        return [inject(v, key, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def full_record(proofs_record, tmp_path) -> dict:
    """The proof part of this tree, a quick run's empirical part and the committed figure summaries."""
    from reports.record import assemble

    rec = json.loads(json.dumps(proofs_record))
    rec["empirical"] = json.loads(SAMPLE.read_text())
    rec["profile"] = "quick"
    rec["figures"] = assemble.figures(tmp_path / "no-results", quick=True, log=lambda m: None, compute=False)
    return rec


def injected_record(proofs_record, tmp_path) -> dict:
    rec = inject(full_record(proofs_record, tmp_path))
    rec["schema"], rec["profile"] = "slth-run-record", "quick"
    return rec
