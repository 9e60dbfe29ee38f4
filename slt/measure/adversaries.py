"""Targets as adversaries, measured: failure rate per target family, the worst-target search, the
worst-target C search without a monotonicity assumption, fixed-C tests over eps and the failure model in C.

Every trial here is a ``slt.measure.calibrate.trial_block`` task (``slt.tasks``: cached per block of seeds,
resumable, with progress); a target family rides in the point as ``target`` (the trial's keyword), so the
sources of seed s are the same for every family (common random numbers across families, deliberately: the
families are compared on the same sources). Across C, the worst-target C search uses INDEPENDENT seeds
(``seed + SEED_STRIDE * grid index``), so the rows of different C are independent binomial counts, and reads
them through an antitonic (isotonic, non-increasing in C) fit instead of assuming the counts fall with C.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize

from slt import targets
from slt.measure import catalogue
from slt.measure.calibrate import row_tasks, run_rows
from slt.measure.stats import LEVEL, clopper_pearson, excess_test, power_at, upper_bound

SEED_STRIDE = 1_000_003
"""Seed offset between grid values of C (independent seeds per C)."""


def random_draw(statement: str, params: dict):
    """``draw(seed) -> target``: the harness's random target of one trial (the search's start), the statement's
    ``Numerics.target_draw`` at ``params``."""
    numerics = catalogue.NUMERICS.get(statement)
    if numerics is None or numerics.target_draw is None:
        raise ValueError(f"{statement} has no target matrix (no target families)")
    return lambda seed: numerics.target_draw(seed, params)


def family_rates(statement: str, C: float, point: dict, trials: int, seed: int, families=None, *, level=LEVEL,
                 cache_dir=None, workers=None, progress=True) -> list[dict]:
    """Failure rate of every target family of ``statement`` at constant C and ``point`` (the same seeds for every
    family), each with its one-sided binomial test against eps at ``level``; rows sorted worst first."""
    fams = list(families or targets.families(statement))
    rows = run_rows([(f, row_tasks(statement, {**point, "target": f}, C, trials, seed)) for f in fams],
                    cache_dir=cache_dir, workers=workers, progress=progress, desc=f"{statement} target families")
    out = []
    for f in fams:
        r = rows[f]
        test = excess_test(r["failures"], r["trials"], point["eps"], level)
        out.append({"family": f, "C": C, "point": dict(point), "seed": seed, "failures": r["failures"],
                    "trials": r["trials"], "rate": r["failures"] / r["trials"], "pvalue": test.pvalue,
                    "upper": upper_bound(r["failures"], r["trials"]), "passed": test.passed,
                    "worst_ratio": r["worst_ratio"], "cpu_s": r["cpu_s"]})
    return sorted(out, key=lambda r: (-r["rate"], r["family"]))


def antitonic(rows: list[dict]) -> list[dict]:
    """Pool-adjacent-violators fit of a failure rate non-increasing in C (weights: trials). ``rows``: dicts with C,
    failures, trials in ascending C. Returns per row the fitted rate and its pooled block's failures/trials."""
    blocks = []  # [failures, trials, [indices]]
    for i, r in enumerate(rows):
        blocks.append([r["failures"], r["trials"], [i]])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] < blocks[-1][0] / blocks[-1][1]:
            f, t, idx = blocks.pop()
            blocks[-1][0] += f
            blocks[-1][1] += t
            blocks[-1][2] += idx
    out = [None] * len(rows)
    for f, t, idx in blocks:
        for i in idx:
            out[i] = {**rows[i], "fit_rate": f / t, "pooled_failures": f, "pooled_trials": t}
    return out


def antitonic_C(rows: list[dict], eps: float) -> dict:
    """From rows at ascending C (independent seeds): ``C_point``, the smallest C whose fitted (antitonic) rate and
    every larger C's are <= eps (the estimate); ``C_upper``, the smallest C whose OWN one-sided Clopper-Pearson upper
    bound and every larger C's are <= eps (no pooling across C, no monotonicity assumed: a failing C above a passing
    one moves C_upper above it). None when no evaluated C qualifies."""
    fit = antitonic(rows)

    def smallest(ok):
        best = None
        for r in reversed(fit):
            if not ok(r):
                break
            best = r["C"]
        return best

    return {"C_point": smallest(lambda r: r["fit_rate"] <= eps),
            "C_upper": smallest(lambda r: upper_bound(r["failures"], r["trials"]) <= eps),
            "fit": fit}


def _walk(n: int, i0: int, ok, passes: int):
    """Generator over grid indices (receives each index's row): gallop up from ``i0`` (steps 1, 2, 4, ...) to the
    first C that passes, confirm ``passes - 1`` C above it, then walk down from it until a C fails (or the last
    failing C galloped over is reached): every C between the last failure and the first pass is evaluated."""
    i, step, last_fail = i0, 1, None
    while True:
        if ok((yield i)):
            first = i
            break
        last_fail = i
        if i == n - 1:
            return
        i, step = min(n - 1, i + step), step * 2
    for j in range(first + 1, min(n, first + passes)):
        yield j
    j = first - 1
    while j >= 0 and (last_fail is None or j > last_fail):
        if not ok((yield j)):
            return
        j -= 1


POINT_STRIDE = 100_000_007
"""Seed offset between points of the large worst-target grid (independent seeds per point: larger than every C
offset plus trial count, so no two (point, C) rows share a seed)."""


def calibrate_worst(statement: str, points: list[dict], target, grid_C, start_C: float, trials_of, seed: int, *,
                    passes: int = 2, point_stride: int = 0, cache_dir=None, workers=None,
                    progress=True) -> list[dict]:
    """C of ``statement`` at ``target`` for every point (independent seeds per C), in rounds over all points: from
    ``start_C`` (the random-target C) gallop up the C grid to the first C whose Clopper-Pearson upper bound is
    <= eps, confirm ``passes - 1`` C above it, and walk down to the last failure (``_walk``); the rows are read by
    ``antitonic_C`` (no monotonicity assumed in the counts). ``grid_C``: the C grid, or ``grid_C(point)``, each
    point's own. Seeds: ``seed + point_stride x point index + SEED_STRIDE x grid index`` (``point_stride`` 0: common
    random numbers across points, the checks grid's choice; ``POINT_STRIDE``: independent points, the large grid's)."""
    state = []
    for k, p in enumerate(points):
        point = {**p, "target": target}
        grid = list(grid_C(p) if callable(grid_C) else grid_C)
        i0 = min(range(len(grid)), key=lambda i: abs(math.log(grid[i] / start_C)))
        gen = _walk(len(grid), i0, lambda r, eps=point["eps"]: r["upper"] <= eps, passes)
        state.append({"point": point, "rows": {}, "gen": gen, "next": next(gen), "grid": grid,
                      "seed": seed + point_stride * k})
    rounds = 0
    while any(s["next"] is not None for s in state):
        rounds += 1
        todo = [(k, row_tasks(statement, s["point"], s["grid"][s["next"]], trials_of(s["point"]["eps"]),
                              s["seed"] + SEED_STRIDE * s["next"]))
                for k, s in enumerate(state) if s["next"] is not None]
        rows = run_rows(todo, cache_dir=cache_dir, workers=workers, progress=progress,
                        desc=f"{statement} worst-target C, round {rounds}")
        for k, row in rows.items():
            s = state[k]
            i = s["next"]
            s["rows"][i] = {"C": s["grid"][i], **row, "seed": s["seed"] + SEED_STRIDE * i,
                            "upper": upper_bound(row["failures"], row["trials"])}
            try:
                s["next"] = s["gen"].send(s["rows"][i])
                while s["next"] in s["rows"]:
                    s["next"] = s["gen"].send(s["rows"][s["next"]])
            except StopIteration:
                s["next"] = None
    out = []
    for s in state:
        rows = [s["rows"][i] for i in sorted(s["rows"])]
        est = antitonic_C(rows, s["point"]["eps"])
        out.append({**s["point"], "trials": rows[0]["trials"], "seed": s["seed"], "seeds": "seed + %d x grid index"
                    % SEED_STRIDE, "C_point": est["C_point"], "C_upper": est["C_upper"], "grid": est["fit"],
                    "cpu_s": sum(r["cpu_s"] for r in rows), "seconds": sum(r["seconds"] for r in rows)})
    return out


def fixed_C(statement: str, C: float, point: dict, eps_values, trials_per_inverse_eps: float, seed: int, *,
            level=LEVEL, cache_dir=None, workers=None, progress=True) -> list[dict]:
    """Fixed-C tests over eps (trials proportional to 1/eps): per eps the failures, the rate over eps with its
    exact interval, the one-sided test against eps and the power against 2 eps at ``level``."""
    todo = []
    for j, eps in enumerate(eps_values):
        n = max(1, math.ceil(trials_per_inverse_eps / eps))
        todo.append((eps, row_tasks(statement, {**point, "eps": eps}, C, n, seed + SEED_STRIDE * j, chunk=50)))
    rows = run_rows(todo, cache_dir=cache_dir, workers=workers, progress=progress, desc=f"{statement} fixed C={C}")
    out = []
    for eps, r in rows.items():
        test = excess_test(r["failures"], r["trials"], eps, level)
        lo, hi = clopper_pearson(r["failures"], r["trials"])
        out.append({"eps": eps, "C": C, "failures": r["failures"], "trials": r["trials"],
                    "rate_over_eps": r["failures"] / r["trials"] / eps, "ci_over_eps": [lo / eps, hi / eps],
                    "pvalue": test.pvalue, "passed": test.passed, "power_2eps": power_at(r["trials"], eps, 2 * eps, level),
                    "widths": r["widths"], "cpu_s": r["cpu_s"]})
    return out


def failure_glm(rows: list[dict], bootstrap: int = 200, seed: int = 0, confidence: float = 0.95) -> dict:
    """Binomial GLM of failure in the width: ``logit P(fail) = a + b C + c log(eps)`` over ``rows`` of {C, eps,
    failures, trials}, each row's width being the statement's ``width(C, eps, ...)`` (C is the width over its
    logarithmic factor); a bootstrap over seeds (each row's trials resampled with replacement) gives intervals.

    Reading: at a fixed constant the failure probability scales like eps^c for small p, so ``c >= 1`` means the
    rate over eps does not grow as eps falls (a constant C suffices), ``c < 1`` that C must grow like
    ``(1 - c) log(1/eps) / b``."""
    X = np.array([[1.0, float(r["C"]), math.log(r["eps"])] for r in rows])
    k = np.array([r["failures"] for r in rows], dtype=float)
    n = np.array([r["trials"] for r in rows], dtype=float)

    def fit(k):
        def nll(beta):
            z = X @ beta
            return float(np.sum(n * np.logaddexp(0.0, z) - k * z))

        def grad(beta):
            p = 1.0 / (1.0 + np.exp(-(X @ beta)))
            return X.T @ (n * p - k)

        return minimize(nll, np.zeros(3), jac=grad, method="BFGS").x

    beta = fit(k)
    rng = np.random.default_rng(seed)
    boots = np.array([fit(rng.binomial(n.astype(int), k / n).astype(float)) for _ in range(bootstrap)])
    a = (1 - confidence) / 2
    lo, hi = np.quantile(boots, [a, 1 - a], axis=0)
    names = ("intercept", "C", "log eps")
    coef = {name: {"estimate": float(b), "ci": [float(l), float(h)]} for name, b, l, h in zip(names, beta, lo, hi)}
    c_lo, c_hi = coef["log eps"]["ci"]
    failing_eps = sorted({r["eps"] for r in rows if r["failures"] > 0})
    if len(failing_eps) < 2:
        verdict = (f"undecided: failures occur at {'no eps' if not failing_eps else 'one eps only (' + format(failing_eps[0], 'g') + ')'}, "
                   f"so the exponent c of eps is not identified (the fit separates; its interval [{c_lo:.2f}, "
                   f"{c_hi:.2f}] means nothing); the per-eps tests are the answer")
    elif c_lo >= 1.0:
        verdict = (f"no growth: the failure probability falls at least like eps (exponent c in [{c_lo:.2f}, "
                   f"{c_hi:.2f}], {confidence:.0%} bootstrap interval), so a constant C keeps it <= eps")
    elif c_hi < 1.0:
        verdict = (f"grows: the failure probability falls more slowly than eps (c in [{c_lo:.2f}, {c_hi:.2f}]), "
                   f"so C must grow like (1 - c) log(1/eps) / b")
    else:
        verdict = (f"undecided: c in [{c_lo:.2f}, {c_hi:.2f}] contains 1 (no growth needs c >= 1) at this "
                   f"number of trials")
    return {"model": "logit P(fail) = a + b C + c log(eps)", "coefficients": coef,
            "rows": len(rows), "trials": int(n.sum()), "bootstrap": bootstrap, "confidence": confidence,
            "verdict": verdict}
