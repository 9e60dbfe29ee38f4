"""Measurements of Lemma 8 / Lemma 5 (docs/statements.md#lemma8): ``||σ(z;a)X - σ(z+e;a)X||`` for ``||e||_max <= eps_max``,
``||x_i|| <= alpha``, any logits z and any mask a, at any length T.

Shared by ``slt.measure.statements.lemma8`` and ``lemma5`` (same left side, different right sides). Three sources of cases:
- random: logits at several scales, perturbations at the box's corners and inside, tokens on and inside the
  alpha-sphere, full / causal / random mask rows;
- adversarial, full dimension (T <= FULL_T): L-BFGS over (z, e) of every token;
- adversarial, lifted: tokens in a few groups of fixed sizes (1 and T-1, halves, thirds) sharing logit and
  perturbation, optimised in that T-independent parametrisation and evaluated at the full length T.
For given (z, e, a) the tokens are set to the exact maximiser ``x_j = alpha sign(p_j - p'_j) u`` (the left side is
``||Σ_j (p_j - p'_j) x_j||``, maximal when every token is aligned with its coefficient's sign).
"""
from __future__ import annotations

import functools

import mpmath
import numpy as np

import bounds
from slt.measure.adversarial import box, maximise
from slt.measure.evidence import Case, bound_mp, exceeds
from slt.measure.numerics import Numerics, Search
from slt.models import masked_softmax
from slt.samplers import inputs

FULL_T = 32


def left_side(z, e, X, a) -> np.ndarray:
    """``||σ(z;a) X - σ(z+e;a) X||`` per leading index; z, e (…, T), X (…, T, d1), a (…, T) bool."""
    p = masked_softmax(z, a)
    q = masked_softmax(np.asarray(z) + np.asarray(e), a)
    return np.linalg.norm(np.einsum("...t,...td->...d", p - q, X), axis=-1)


def left_side_mp(z, e, X, a, dps: int = 50):
    """The same left side in mpmath (for comparisons within a few ulps of a bound)."""
    with mpmath.workdps(dps):
        keep = [j for j in range(len(z)) if a[j]]
        w = [mpmath.exp(mpmath.mpf(z[j])) for j in keep]
        v = [mpmath.exp(mpmath.mpf(z[j]) + mpmath.mpf(e[j])) for j in keep]
        sw, sv = mpmath.fsum(w), mpmath.fsum(v)
        diff = [mpmath.fsum((w[k] / sw - v[k] / sv) * mpmath.mpf(X[j][c]) for k, j in enumerate(keep))
                for c in range(len(X[0]))]
        return mpmath.sqrt(mpmath.fsum(d * d for d in diff))


def worst_tokens(z, e, a, alpha: float, d1: int) -> np.ndarray:
    """The tokens maximising the left side for given (z, e, a): ``alpha sign(p_j - p'_j) e_1``."""
    s = np.sign(masked_softmax(z, a) - masked_softmax(np.asarray(z) + np.asarray(e), a))
    X = np.zeros(np.shape(z) + (d1,))
    X[..., 0] = alpha * np.where(s == 0, 1.0, s)
    return X


def random_cases(rng, T: int, d1: int, alpha: float, eps_max: float, n: int):
    """``n`` random cases at length T: returns (values, (z, e, X, a))."""
    rng = np.random.default_rng(rng)
    scale = np.exp(rng.uniform(np.log(1e-2), np.log(30.0), (n, 1)))
    z = rng.normal(size=(n, T)) * scale
    e = eps_max * np.where(rng.random((n, 1)) < 0.5, rng.choice([-1.0, 1.0], (n, T)), rng.uniform(-1, 1, (n, T)))
    X = inputs(rng, T, d1, alpha, sphere=bool(rng.random() < 0.5), batch=n)
    a = mask_rows(rng, T, n)
    return left_side(z, e, X, a), (z, e, X, a)


def mask_rows(rng, T: int, n: int) -> np.ndarray:
    """``n`` attention-mask rows ``a_i`` (cycling full, causal row i, Bernoulli(1/2) row with one kept position).

    Rows only: Lemma 8 concerns one row, and a (T, T) mask at T = 2^14 would not fit the checks' budget.
    """
    rng = np.random.default_rng(rng)
    a = np.ones((n, T), dtype=bool)
    causal = np.arange(T)[None, :] <= rng.integers(0, T, (n, 1))
    bern = rng.random((n, T)) < 0.5
    bern[np.arange(n), rng.integers(0, T, n)] = True
    kind = np.arange(n) % 3
    a[kind == 1] = causal[kind == 1]
    a[kind == 2] = bern[kind == 2]
    return a


def adversarial_case(rng, T: int, d1: int, alpha: float, eps_max: float, restarts: int = 3, maxiter: int = 40):
    """Best (value, (z, e, X, a)) found by the full (T <= FULL_T) and the lifted adversarial searches."""
    rng = np.random.default_rng(rng)
    a = np.ones(T, dtype=bool)
    best = (-np.inf, None)

    def consider(z, e):
        nonlocal best
        X = worst_tokens(z, e, a, alpha, d1)
        value = float(left_side(z, e, X, a))
        if value > best[0]:
            best = (value, (np.asarray(z, float), np.asarray(e, float), X, a.copy()))
        return value

    searches = [(lambda th: (th[:T], box(th[T:], eps_max)), 2 * T)] if T <= FULL_T else []
    groups = [np.r_[0, np.ones(T - 1, int)], np.arange(T) % 2] + ([np.arange(T) % 3] if T >= 3 else [])
    for labels in groups:  # the lifted searches: one label per token, the tokens of a label moving together
        k = labels.max() + 1
        searches.append((lambda th, lab=labels, k=k: (th[:k][lab], box(th[k:], eps_max)[lab]), 2 * k))
    for unpack, dim in searches:
        result = maximise(lambda th: consider(*unpack(th)), dim, rng, restarts=restarts, maxiter=maxiter, scale=2.0)
        consider(*unpack(result.theta))
    return best


def cases(statement: str, T: int, d1: int, alpha: float, eps_max: float, seed: int, n_random: int = 64,
          adversarial: bool = True, bound_scale: float = 1.0):
    """The worst random and the worst adversarial case at one parameter point, as ``Case`` objects.

    ``bound_scale`` multiplies the bound (1: the statement; < 1: a deliberately wrong, smaller bound, used by the
    tests that show this check failing)."""
    params = {"d1": d1, "alpha": alpha, "eps_max": eps_max}
    bound = bounds.get(statement).evaluate(**params) * bound_scale
    values, (z, e, X, a) = random_cases(seed, T, d1, alpha, eps_max, n_random)
    k = int(np.argmax(values))
    found = [("random", float(values[k]), (z[k], e[k], X[k], a[k]))]
    if adversarial:
        value, args = adversarial_case(seed + 1, T, d1, alpha, eps_max)
        found.append(("adversarial", value, args))
    out = []
    for kind, value, args in found:
        violated = exceeds(value, bound, lambda: (left_side_mp(*args), bound_mp(statement, **params) * bound_scale))
        example = dict(zip("zeXa", (v.tolist() for v in args))) if violated else None
        out.append(Case(statement, {**params, "T": T, "search": kind}, seed, value, bound, what="||σ(z;a)X - σ(z+e;a)X||",
                        violated=violated, counterexample=example))
    return out


def drawn_cases(statement: str, point: dict, bound_scale: float = 1.0) -> list:
    """The deterministic check's cases at one drawn point (``T``, ``d1``, ``alpha``, ``eps_max``, ``seed``): the worst
    random and adversarial case, against the bound times ``bound_scale`` (1 in the checks)."""
    return cases(statement, point["T"], point["d1"], point["alpha"], point["eps_max"], point["seed"],
                 bound_scale=bound_scale)


def length_task(seed: int, statement: str, lengths: list, d1: int, alpha: float, eps_max: float) -> dict:
    """The run record's length sweep of Lemma 8 / Lemma 5 (a task): per T the worst random and adversarial left side
    (seed ``seed + T``), the bound, and the Lipschitz term through ||X|| (grows like sqrt T)."""
    rows = []
    for T in lengths:
        found = cases(statement, T, d1, alpha, eps_max, seed + T)
        rows.append({"T": int(T), "random": float(found[0].measured), "adversarial": float(found[1].measured),
                     "bound": float(found[0].bound), "lipschitz": float(bounds.get("lemma8").term(
                         "lipschitz", d1=d1, alpha=alpha, eps_max=eps_max, T=T)),
                     "violated": any(c.violated for c in found)})
    return {"info": {"d1": d1, "alpha": alpha, "eps_max": eps_max}, "rows": rows}


SWEEP_LENGTHS = {"quick": [2**k for k in range(1, 15)], "full": [2**k for k in range(1, 15)]}
"""The run record's length sweeps of Lemmas 8 and 5: T per profile at ``SWEEP_POINT``."""
SWEEP_POINT = {"d1": 2, "alpha": 2**0.5, "eps_max": 0.25}


def length_search(statement: str, title: str = "length independence") -> Search:
    """The run record's length sweep of ``statement`` (Lemma 8 or Lemma 8 with eps_max <= 1/2), as its
    ``Numerics`` declares it; its report heading is the statement's name as every surface prints it
    (``slth_base.numbering.numbering_label``), then ``title``."""
    from bounds.catalogue import STATEMENTS
    from slth_base.numbering import numbering_label

    return Search(f"length:{statement}", length_task,
                  lambda profile, C: {"statement": statement, "lengths": SWEEP_LENGTHS[profile], **SWEEP_POINT},
                  title=f"{numbering_label(STATEMENTS[statement].numbering, statement)}: {title}")


LENGTHS = [2**k for k in range(1, 15)]
"""T of the checks' drawn points (Lemma 8 holds for every T, with eps_max <= 1/2 too)."""


def rerun(statement: str, seed: int, d1: int, alpha: float, eps_max: float, T: int, search: str = "both"):
    """The case(s) a printed re-run command names: ``search`` is random, adversarial or both."""
    found = cases(statement, T, d1, alpha, eps_max, seed, adversarial=search != "random")
    return [c for c in found if search in ("both", c.parameters["search"])]


def numerics(statement: str, eps_max_most: float, examples: int) -> Numerics:
    """The ``Numerics`` of Lemma 8 or of Lemma 8 with eps_max <= 1/2: drawn points with ``eps_max`` log-uniform up to
    ``eps_max_most`` (the statement's hypothesis), their worst random and adversarial cases, and the length sweep."""
    from slt.measure import strategies

    windows = dict(d1=(1, 8), alpha=(0.1, 10.0), eps_max=strategies.LogUniform(1e-3, eps_max_most), T=LENGTHS)
    return Numerics(statement, windows=windows, holds=functools.partial(drawn_cases, statement),
                    rerun=functools.partial(rerun, statement), searches=(length_search(statement),),
                    examples={"holds": examples})
