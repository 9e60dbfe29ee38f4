"""Fits with confidence intervals: the exponential decays of Section 4.2 (Figures 4 and 6), the length trend of
Figure 5 (``slope_trend``) and the calibration's power-law trends of C (``power_trend``).

Exponential-decay fits ``eps = gamma exp(-delta n)`` (Figures 4 and 6):

By default the fit is done in log space, ``log eps = log gamma - delta n``, by ``scipy.optimize.curve_fit``
without weights: every width counts equally, whatever the size of its error. Confidence intervals are
Student-t intervals from the covariance of the log-space fit, mapped to ``gamma`` through ``exp``. Points at or
below a stated ``floor`` (the floating-point or solver floor) are left out, and the fit says which widths it used.

``space="linear"`` fits ``eps`` itself (unweighted ``curve_fit`` of ``gamma exp(-delta n)``, the naive SciPy
fit): its residuals are decided by the first few widths, where the errors are largest, and the small errors of
wide sources barely count. Intervals are then Student-t intervals on ``gamma`` and ``delta`` directly.
"""
from __future__ import annotations

import dataclasses

import numpy as np

# SciPy is imported by the fits themselves (``_t``, ``curve_fit``), not with this module: the PAPER
# constants are read by commands (``slth diff``, ``slth proofs``) that fit nothing.


def curve_fit(*args, **kwargs):
    """``scipy.optimize.curve_fit``, imported on first use."""
    from scipy.optimize import curve_fit as fit

    return fit(*args, **kwargs)

__all__ = ["PAPER", "Fit", "fit_exponential", "fit_shared_delta", "power_trend", "slope_trend"]

#: The paper's fit of Figure 4 (Section 4.2): eps = 0.8 exp(-0.06 n_K).
PAPER = {"gamma": 0.8, "delta": 0.06}


@dataclasses.dataclass(frozen=True)
class Fit:
    """``eps = gamma exp(-delta n)`` fitted on the widths ``n_used``, with ``level`` confidence intervals."""
    gamma: float
    delta: float
    gamma_ci: tuple[float, float]
    delta_ci: tuple[float, float]
    n_used: tuple[float, ...]
    level: float = 0.95
    delta_fixed: bool = False
    space: str = "log"

    def __call__(self, n):
        return self.gamma * np.exp(-self.delta * np.asarray(n, dtype=float))

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def _clean(n, eps, floor):
    n = np.asarray(n, dtype=float)
    eps = np.asarray(eps, dtype=float)
    if n.shape != eps.shape or n.ndim != 1:
        raise ValueError(f"n and eps must be 1-D arrays of one shape, got {n.shape} and {eps.shape}")
    if not (np.all(np.isfinite(n)) and np.all(np.isfinite(eps))):
        raise ValueError("n and eps must be finite (no NaN or inf)")
    if np.any(eps < 0):
        raise ValueError("errors eps must be non-negative")
    floor = 0.0 if floor is None else float(floor)
    if not floor >= 0:
        raise ValueError(f"floor must be a non-negative number, got {floor!r}")
    keep = eps > floor
    return n[keep], eps[keep]


def _t(level: float, dof: int) -> float:
    from scipy import stats

    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    return float(stats.t.ppf(0.5 + level / 2, dof))


def fit_exponential(n, eps, floor: float | None = None, level: float = 0.95, space: str = "log") -> Fit:
    """Fit ``eps = gamma exp(-delta n)`` to the points with ``eps > floor`` (at least three are needed), in log
    space (default) or, with ``space="linear"``, on ``eps`` itself (see the module docstring)."""
    if space not in ("log", "linear"):
        raise ValueError(f"space must be 'log' or 'linear', got {space!r}")
    n_used, eps_used = _clean(n, eps, floor)
    if n_used.size < 3:
        raise ValueError(f"need at least 3 points above the floor {floor!r} to fit gamma and delta, got {n_used.size}")
    start = np.polyfit(n_used, np.log(eps_used), 1)
    t = _t(level, n_used.size - 2)
    log = space == "log"  # log space: a = log gamma; linear: a = gamma
    model = (lambda x, a, delta: a - delta * x) if log else (lambda x, a, delta: a * np.exp(-delta * x))
    (a, delta), cov = curve_fit(model, n_used, np.log(eps_used) if log else eps_used,
                                p0=(start[1] if log else np.exp(start[1]), -start[0]),
                                **({} if log else {"maxfev": 20000}))
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    gamma = np.exp if log else float
    return Fit(gamma=float(gamma(a)), delta=float(delta),
               gamma_ci=(float(gamma(a - t * se[0])), float(gamma(a + t * se[0]))),
               delta_ci=(float(delta - t * se[1]), float(delta + t * se[1])),
               n_used=tuple(float(x) for x in n_used), level=level, space=space)


def fit_shared_delta(n, eps_by_block, floor: float | None = None, level: float = 0.95, space: str = "log") -> list[Fit]:
    """Figure 6's fit: ``delta`` fitted on the first block, then one ``gamma`` per block with that ``delta`` fixed.

    ``eps_by_block`` is a sequence of error curves over the widths ``n``, block 1 first. The per-block ``gamma``
    intervals are conditional on the shared ``delta`` (they do not carry its uncertainty).
    """
    curves = list(eps_by_block)
    if not curves:
        raise ValueError("eps_by_block must hold at least the first block's curve")
    first = fit_exponential(n, curves[0], floor=floor, level=level, space=space)
    fits = [first]
    for eps in curves[1:]:
        n_used, eps_used = _clean(n, eps, floor)
        if n_used.size < 2:
            raise ValueError(f"need at least 2 points above the floor {floor!r} to fit a block's gamma, got {n_used.size}")
        start = float(np.mean(np.log(eps_used) + first.delta * n_used))
        t = _t(level, n_used.size - 1)
        log = space == "log"  # log space: a = log gamma; linear: a = gamma
        model = (lambda x, a: a - first.delta * x) if log else (lambda x, a: a * np.exp(-first.delta * x))
        (a,), cov = curve_fit(model, n_used, np.log(eps_used) if log else eps_used,
                              p0=(start if log else np.exp(start),))
        half = t * float(np.sqrt(max(cov[0, 0], 0.0)))
        gamma = np.exp if log else float
        fits.append(Fit(gamma=float(gamma(a)), delta=first.delta,
                        gamma_ci=(float(gamma(a - half)), float(gamma(a + half))), delta_ci=first.delta_ci,
                        n_used=tuple(float(x) for x in n_used), level=level, delta_fixed=True, space=space))
    return fits


def power_trend(X: dict, y, confidence: float = 0.95) -> dict:
    """Ordinary least squares of ``y`` (e.g. log C) on an intercept and the columns of ``X`` (name -> values, e.g.
    ``{"log d1": [...], "log H": [...]}``): per column the estimate, its standard error and its Student-t
    ``confidence`` interval (residual degrees of freedom n - p - 1, at least 1), plus the residual standard deviation.
    An exponent whose interval contains 0 is not significantly different from 0 at that level."""
    names = list(X)
    y = np.asarray(y, dtype=float)
    cols = [np.asarray(X[k], dtype=float) for k in names]
    if y.ndim != 1 or any(c.shape != y.shape for c in cols):
        raise ValueError("every column of X and y must be 1-D arrays of one length")
    if not (np.all(np.isfinite(y)) and all(np.all(np.isfinite(c)) for c in cols)):
        raise ValueError("X and y must be finite (no NaN or inf)")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    A = np.column_stack([np.ones_like(y), *cols])
    dof = y.size - A.shape[1]
    if dof < 1:
        raise ValueError(f"need more points than parameters: {y.size} points for {A.shape[1]} parameters")
    if np.linalg.matrix_rank(A) < A.shape[1]:
        raise ValueError(f"the factors {names} are collinear on these points (the design cannot separate them)")
    beta, _, _, _ = np.linalg.lstsq(A, y, rcond=None)
    resid = y - A @ beta
    sigma2 = float(resid @ resid) / dof
    cov = sigma2 * np.linalg.inv(A.T @ A)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    t = _t(confidence, dof)
    coef = {name: {"estimate": float(beta[j + 1]), "se": float(se[j + 1]),
                   "ci": (float(beta[j + 1] - t * se[j + 1]), float(beta[j + 1] + t * se[j + 1]))}
            for j, name in enumerate(names)}
    return {"intercept": float(beta[0]), "coefficients": coef, "dof": int(dof), "residual_sd": float(np.sqrt(sigma2)),
            "n": int(y.size)}


def slope_trend(x, y, confidence: float = 0.95) -> dict:
    """Slope of ``y`` against ``x`` (one column of ``power_trend``): ``{"slope", "slope_ci"}``."""
    fit = power_trend({"x": x}, y, confidence)
    c = fit["coefficients"]["x"]
    return {"slope": c["estimate"], "slope_ci": c["ci"], "dof": fit["dof"]}
