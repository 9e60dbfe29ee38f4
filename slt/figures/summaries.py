"""Per-width summaries of a sweep's items and the summary files (``<results>/reproduction/<figure>[-quick].json``)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from slt.cache import write_atomic

__all__ = ["summarise", "compute_seconds", "summary_path", "write_summary", "load_summary"]


def summarise(rows, key="err"):
    """Mean, median, standard deviation, min and max over sources of ``record[key]``, per (init, solver, n, T)
    (per block when ``record[key]`` is a list). ``rows``: ``[(params, seed, record), ...]``."""
    groups = {}
    for config, _, record in rows:
        groups.setdefault((config["init"], config.get("solver", "exact"), config["n"], config["T"]), []).append(record[key])
    out = []
    for (init, solver, n, T), values in sorted(groups.items()):
        v = np.asarray(values, dtype=float)  # (sources,) or (sources, blocks)
        out.append({"init": init, "solver": solver, "n": n, "T": T, "sources": int(v.shape[0]),
                    "mean": v.mean(axis=0).tolist(), "median": np.median(v, axis=0).tolist(),
                    "std": v.std(axis=0, ddof=1).tolist() if len(v) > 1 else np.zeros(v.shape[1:]).tolist(),
                    "min": v.min(axis=0).tolist(), "max": v.max(axis=0).tolist()})
    return out


def compute_seconds(rows):
    return float(sum(r.get("seconds", 0.0) for _, _, r in rows))


def summary_path(results_dir, figure, quick):
    return Path(results_dir) / "reproduction" / f"{figure}{'-quick' if quick else ''}.json"


COMMITTED = Path(__file__).with_name("committed")
"""Full-sweep summaries committed with the package (``slth reproduce <figure>``, then copied here), so that a fresh
clone's report shows the full sweeps without running them; a run's own ``results/`` summaries take precedence."""


def committed_summary_path(figure):
    return COMMITTED / f"{figure}.json"


def write_summary(path, payload):
    write_atomic(Path(path), json.dumps(payload, indent=1, sort_keys=True))


def load_summary(path) -> dict:
    """A summary file, or ``ValueError`` naming the file when it is not one."""
    path = Path(path)
    from slt.inputs import InputError, read_json  # the one reader: empty, truncated, nested too deep

    try:
        payload = read_json(path, "figure summary")
    except InputError as exc:
        raise ValueError(f"{path}: not a figure summary ({str(exc).split(': ', 1)[-1]})") from None
    if not isinstance(payload, dict) or "summary" not in payload or "figure" not in payload:
        raise ValueError(f"{path}: not a figure summary (no 'figure' and 'summary')")
    return payload
