"""The fits of the figure summaries: exponential decays (Figures 4 and 6), the length trend (Figure 5)."""
from __future__ import annotations

import math

import numpy as np

from slt.figures.plans import FIT_FLOOR, INITS
from slt.fit import fit_exponential, fit_shared_delta, slope_trend

__all__ = ["SPACES", "decay_fits", "length_trend", "drop", "inside"]

#: The three fits of a decay: name -> (statistic, space, use the floor).
SPACES = {"log": ("mean", "log", True), "linear": ("mean", "linear", False), "log_median": ("median", "log", True)}


def decay_fits(summary, shared_delta=False, floor=FIT_FLOOR):
    """Per initialisation, ``eps = gamma exp(-delta n)`` on the mean curve, or (``shared_delta``, Figure 6) one
    delta from block 1 and a gamma per block, fitted three ways: ``log`` (log space, only means above ``floor``:
    the tolerance floor is left out), ``linear`` (eps itself, every width: the naive SciPy fit) and ``log_median``
    (log space on the median over sources, above ``floor``: the typical source). A fit that cannot be made is
    reported as the reason instead."""
    out = {}
    for init in INITS:
        rows = [r for r in summary if r["init"] == init and r["solver"] == "exact"]
        if not rows:
            continue
        n = [r["n"] for r in rows]
        out[init] = {}
        for name, (stat, space, use_floor) in SPACES.items():
            fl = floor if use_floor else None
            try:
                if shared_delta:
                    curves = np.asarray([r[stat] for r in rows]).T
                    out[init][name] = [f.as_dict() for f in fit_shared_delta(n, curves, floor=fl, space=space)]
                else:
                    out[init][name] = fit_exponential(n, [r[stat] for r in rows], floor=fl, space=space).as_dict()
            except (ValueError, RuntimeError) as exc:
                out[init][name] = {"error": str(exc)}
    return out


def length_trend(summary):
    """Per (init, n), the slope of log(mean error) against log T (0 = bounded in T; a Lipschitz bound through
    ||X|| would allow 1/2) with its 95% interval (``slt.fit.slope_trend``), and the largest over smallest mean
    error across T."""
    out = []
    for init in INITS:
        for n in sorted({r["n"] for r in summary if r["init"] == init}):
            rows = [r for r in summary if r["init"] == init and r["n"] == n and r["solver"] == "exact"]
            if len(rows) < 3:
                continue
            T = np.array([r["T"] for r in rows], dtype=float)
            m = np.array([r["mean"] for r in rows], dtype=float)
            fit = slope_trend(np.log(T), np.log(m))
            out.append({"init": init, "n": n, "slope": fit["slope"], "slope_ci": tuple(fit["slope_ci"]),
                        "max_over_min": float(m.max() / m.min()), "T_max": int(T.max())})
    return out


def drop(fit) -> float:
    """How far a fitted decay falls over the widths it was fitted on (1 = flat)."""
    return math.exp(-fit["delta"] * (max(fit["n_used"]) - min(fit["n_used"])))


def inside(x, ci) -> bool:
    return ci[0] <= x <= ci[1]


def ci_text(lo, hi, digits=3) -> str:
    return f"[{lo:.{digits}g}, {hi:.{digits}g}]"
