"""Targets as adversaries: families covering the hypothesis set's extremes, and a search over targets.

Every probabilistic statement holds "for every target" in its hypothesis set; the harness's default draw
(``slt.samplers.spectral_matrices``: a Gaussian rescaled to a spectral norm from U(0, 1]) almost never reaches the
set's extremes. Here every weight matrix of a target (the matrix W of Lemmas 2 and 7; W_Q, W_K, W_V, W_O of every
head; every FC layer) can instead be drawn from a named FAMILY, or given explicitly.

Hypothesis sets (``HYPOTHESIS``): ``spectral`` (||W|| <= 1: Lemmas 2/4 and Theorems 9-14) and ``max`` (entries in
[-1, 1]: Lemma 7 as stated in the appendix, which contains the spectral ball). Lueker's statement has no target
matrix: its trial already measures the supremum over every z in [-1, 1] exactly, so it has no family here.

Families (``FAMILIES``, per matrix of shape (m, n), each in words in ``slt.target_words.FAMILY_MEANING``; a
family's random choices come from ``target_rng(seed)``, a stream separate from the sources', so a trial's sources
are the same whatever the target: common random numbers across families).

``search`` is an adversarial search over targets at a fixed width (constant C): hill climbing from the harness's
random draw with moves that stay in the hypothesis set (perturb, push to the boundary, the nearest extreme point,
sparsify, flip a sign), each candidate scored on the SAME seeds (common random numbers), by failures plus the mean
capped error ratio; ``classify`` names what it found.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from slt.models import Block, MHAWeights, ReLUNet, Transformer

__all__ = ["FAMILIES", "HYPOTHESIS", "families", "family_matrix", "apply", "matrices", "rebuild", "project",
           "classify", "identity_type", "search", "named", "describe", "target_rng", "TargetError"]

HYPOTHESIS = {"lemma7": "max", "lemma2": "spectral", "theorem9": "spectral", "theorem10": "spectral",
              "theorem11": "spectral", "theorem14": "spectral"}
"""The hypothesis set of each statement with a target (docs/statements.md: Lemma 7 entries in [-1, 1], the rest ||W|| <= 1)."""

FAMILIES = ("random", "identity", "signed_permutation", "orthogonal", "single_entry", "rank_one",
            "gaussian_max_norm", "sign_matrix")
MAX_ONLY = ("sign_matrix",)


class TargetError(ValueError):
    """A target that is not a family name of the statement or not a list of matrices in its hypothesis set."""


def families(statement: str) -> tuple:
    """The families of ``statement``'s hypothesis set (empty for a statement without a target matrix)."""
    hyp = HYPOTHESIS.get(statement)
    return () if hyp is None else tuple(f for f in FAMILIES if hyp == "max" or f not in MAX_ONLY)


def target_rng(seed) -> np.random.Generator:
    """The target's own random stream of a trial (separate from its sources': common random numbers)."""
    return np.random.default_rng([int(seed), 21_0021])


def family_matrix(name: str, rng, shape, hypothesis: str = "spectral") -> np.ndarray:
    """One member of family ``name`` of shape (m, n) in ``hypothesis``'s set."""
    m, n = shape
    k = min(m, n)
    if name == "identity":
        return np.eye(m, n)
    if name == "signed_permutation":
        W = np.zeros((m, n))
        rows, cols = rng.permutation(m)[:k], rng.permutation(n)[:k]
        W[rows, cols] = rng.choice([-1.0, 1.0], k)
        return W
    if name == "orthogonal":
        Q, R = np.linalg.qr(rng.standard_normal((max(m, n), k)))
        Q = Q * np.sign(np.diag(R))
        return Q if m >= n else Q.T
    if name == "single_entry":
        W = np.zeros((m, n))
        W[rng.integers(m), rng.integers(n)] = rng.choice([-1.0, 1.0])
        return W
    if name == "rank_one":
        u, v = rng.standard_normal(m), rng.standard_normal(n)
        return np.outer(u / np.linalg.norm(u), v / np.linalg.norm(v))
    if name == "gaussian_max_norm":
        return _boundary(rng.standard_normal((m, n)), hypothesis)
    if name == "sign_matrix":
        if hypothesis != "max":
            raise TargetError("sign_matrix (every entry +-1) is outside the spectral ball; only for entries in [-1, 1]")
        return rng.choice([-1.0, 1.0], (m, n))
    raise TargetError(f"unknown target family {name!r}; expected one of {', '.join(FAMILIES)}")


# ------------------------------------------------------------------------------------- a target's matrices

def matrices(model) -> list[np.ndarray]:
    """Every weight matrix of a target, in a fixed order (per head for MHA)."""
    if isinstance(model, np.ndarray):
        return [model]
    if isinstance(model, MHAWeights):
        return [getattr(model, k)[h] for k in ("WQ", "WK", "WV", "WO") for h in range(model.H)]
    if isinstance(model, ReLUNet):
        return list(model.layers)
    if isinstance(model, Block):
        return matrices(model.mha) + matrices(model.fc)
    if isinstance(model, Transformer):
        return [W for b in model.blocks for W in matrices(b)]
    raise TargetError(f"not a target: {type(model).__name__}")


def rebuild(model, mats):
    """``model`` with its matrices (order of ``matrices``) replaced by ``mats``."""
    mats = [np.asarray(M, dtype=float) for M in mats]
    want = matrices(model)
    if len(mats) != len(want) or any(M.shape != W.shape for M, W in zip(mats, want)):
        raise TargetError(f"target needs {len(want)} matrices of shapes {[W.shape for W in want]}, got "
                          f"{[M.shape for M in mats]}")
    return _rebuild(model, iter(mats))


def _rebuild(model, it):
    if isinstance(model, np.ndarray):
        return next(it)
    if isinstance(model, MHAWeights):
        parts = {k: np.stack([next(it) for _ in range(model.H)]) for k in ("WQ", "WK", "WV", "WO")}
        return dataclasses.replace(model, **parts)
    if isinstance(model, ReLUNet):
        return ReLUNet(tuple(next(it) for _ in model.layers))
    if isinstance(model, Block):
        return Block(_rebuild(model.mha, it), _rebuild(model.fc, it))
    return Transformer(tuple(_rebuild(b, it) for b in model.blocks))


def apply(model, target, seed, hypothesis: str = "spectral"):
    """The trial's target: ``model`` (the harness's draw) for ``target`` None or "random"; every matrix replaced by
    a member of the family ``target`` (drawn from ``target_rng(seed)``); or the explicit list of matrices
    ``target`` (checked to lie in the hypothesis set)."""
    if target is None or (isinstance(target, str) and target == "random"):
        return model
    if isinstance(target, str):
        rng = target_rng(seed)
        return rebuild(model, [family_matrix(target, rng, W.shape, hypothesis) for W in matrices(model)])
    mats = [np.asarray(M, dtype=float) for M in target]
    for i, M in enumerate(mats):
        if not np.all(np.isfinite(M)) or _norm(M, hypothesis) > 1 + 1e-9:
            raise TargetError(f"target matrix {i} lies outside the {hypothesis} unit ball "
                              f"(norm {_norm(M, hypothesis):.6g})")
    return rebuild(model, mats)


def describe(target) -> str:
    """A short name of a target spec (a family, or "explicit (k matrices)")."""
    if target is None:
        return "random"
    if isinstance(target, str):
        return target
    return f"explicit ({len(target)} matrices: {', '.join(classify(M) for M in target)})"


# ------------------------------------------------------------------------------------------- geometry

def _norm(M, hypothesis):
    return float(np.abs(M).max(initial=0.0)) if hypothesis == "max" else float(np.linalg.norm(M, 2))


def project(M, hypothesis: str = "spectral") -> np.ndarray:
    """Into the unit ball of ``hypothesis``: spectral (singular values clipped at 1) or max (entries clipped)."""
    if hypothesis == "max":
        return np.clip(M, -1.0, 1.0)
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    return (U * np.minimum(s, 1.0)) @ Vt


def _boundary(M, hypothesis):
    norm = _norm(M, hypothesis)
    return M / norm if norm > 0 else M


def _extreme(M, hypothesis):
    """The nearest extreme point: the polar factor U V^T (spectral) or the sign pattern (max)."""
    if hypothesis == "max":
        return np.where(M >= 0, 1.0, -1.0)
    U, _, Vt = np.linalg.svd(M, full_matrices=False)
    return U @ Vt


def identity_type(M, tol: float = 0.05) -> bool:
    """Whether ``M`` is a signed permutation up to a small rotation: every singular value within ``tol`` of 1 and
    every row's largest entry at least 1 - tol in magnitude (identity, signed permutations and their neighbours)."""
    M = np.asarray(M, dtype=float)
    s = np.linalg.svd(M, compute_uv=False)
    rows = M if M.shape[0] <= M.shape[1] else M.T
    return bool(np.all(np.abs(s - 1) <= tol) and np.all(np.abs(rows).max(axis=1) >= 1 - tol))


def classify(M, tol: float = 0.05) -> str:
    """What a matrix is, most specific first: zero, signed_permutation (one +-1 per row or column, every singular
    value 1), single_entry, sign_matrix, orthogonal, rank_one (norm 1), at_norm_1, interior."""
    M = np.asarray(M, dtype=float)
    a = np.abs(M)
    if a.max(initial=0.0) <= tol:
        return "zero"
    s = np.linalg.svd(M, compute_uv=False)
    big = a >= 1 - tol
    small = a <= tol
    if np.all(big | small):
        k = min(M.shape)
        if big.sum() == k and np.all(big.sum(axis=0) <= 1) and np.all(big.sum(axis=1) <= 1):
            return "signed_permutation" if k > 1 else "single_entry"
        if big.sum() == 1:
            return "single_entry"
        if np.all(big):
            return "sign_matrix"
    if np.all(np.abs(s - 1) <= tol):
        return "orthogonal"
    if abs(s[0] - 1) <= tol and (len(s) == 1 or s[1] <= tol):
        return "rank_one"
    if abs(s[0] - 1) <= tol:
        return "at_norm_1"
    return "interior"


# ----------------------------------------------------------------------------------------------- search

CAP = 4.0
"""The search's error ratio cap (see ``search``)."""
MOVES = ("perturb", "boundary", "extreme", "sparsify", "flip")


def _move(M, kind, rng, hypothesis, scale):
    if kind == "perturb":
        return project(M + scale * rng.standard_normal(M.shape), hypothesis)
    if kind == "boundary":
        return _boundary(M, hypothesis)
    if kind == "extreme":
        return _extreme(M, hypothesis)
    if kind == "sparsify":
        a = np.abs(M)
        nz = np.flatnonzero(a > 0)
        if nz.size <= 1:
            return M
        out = np.where(a < 0.5 * a.max(), 0.0, M)
        if np.array_equal(out, M):
            out = M.copy().ravel()
            out[nz[np.argmin(a.ravel()[nz])]] = 0.0
            out = out.reshape(M.shape)
        return _boundary(out, hypothesis) if hypothesis == "max" else _extreme(out, hypothesis)
    out = M.copy()
    i, j = rng.integers(M.shape[0]), rng.integers(M.shape[1])
    out[i, j] = -out[i, j]
    return project(out, hypothesis)  # a flipped sign can raise the spectral norm


def search(trial, C: float, params: dict, seeds, *, start_seed: int = 0, steps: int = 40, hypothesis="spectral",
           rng=0, scale: float = 0.3, progress=None, draw=None) -> dict:
    """Hill climbing over targets at constant C with common random numbers.

    ``trial(seed, C, target=..., **params) -> Case``; ``seeds``: the trials every candidate is scored on (the same
    sources for every candidate); ``draw(seed) -> model``: the harness's random target of one trial (its matrices
    are the start, drawn with ``start_seed``). Score: failures + mean over seeds of min(ratio, CAP) / CAP (the failure
    count first, the error ratio, capped at CAP so that one seed cannot dominate, as a tie-break that still ranks
    candidates when every seed fails). A move changes one matrix or all at once (perturb by ``scale`` x Gaussian and project, push to
    the boundary, the nearest extreme point, zero the entries below half the largest (else the smallest) then take the
    nearest extreme point (max hypothesis: push to the boundary), flip one sign); a
    candidate is kept when its score exceeds the current one. Returns the best target (its matrices), score,
    failures, what each matrix is (``classify``), the history and the number of trials run."""
    seeds = list(seeds)
    rng = np.random.default_rng(rng)
    current = [np.array(M, dtype=float) for M in matrices(draw(start_seed))]

    def score(mats):
        cases = [trial(s, C, target=[M.tolist() for M in mats], **params) for s in seeds]
        fails = sum(bool(c.violated) for c in cases)
        soft = float(np.mean([min(c.ratio, CAP) if np.isfinite(c.ratio) else CAP for c in cases])) / CAP
        return fails + soft, fails

    best, fails = score(current)
    history = [{"step": 0, "move": "start", "score": best, "failures": fails}]
    runs = len(seeds)
    for step in range(1, steps + 1):
        i = int(rng.integers(len(current) + 1)) if len(current) > 1 else 0  # len(current): every matrix at once
        kind = MOVES[int(rng.integers(len(MOVES)))]
        cand = [(_move(M, kind, rng, hypothesis, scale) if i in (j, len(current)) else M)
                for j, M in enumerate(current)]
        if all(np.allclose(a, b) for a, b in zip(cand, current)):
            continue
        s, f = score(cand)
        runs += len(seeds)
        if s > best:
            current, best, fails = cand, s, f
        history.append({"step": step, "move": f"{kind} " + ("every matrix" if i == len(current) else f"matrix {i}"), "score": s, "failures": f,
                        "accepted": s == best})
        if progress:
            progress(f"step {step}: {history[-1]['move']}: {f}/{len(seeds)} failures (score {s:.3f}; best {best:.3f})")
    return {"target": [M.tolist() for M in current], "kinds": [classify(M) for M in current], "score": best,
            "failures": fails, "trials": len(seeds), "C": C, "params": dict(params), "history": history,
            "trials_run": runs, "hypothesis": hypothesis}


def named(target) -> dict:
    """What a Case records of its target: nothing for the harness's draw, else ``{"target": family}`` (an explicit
    target is recorded as "explicit"; its matrices live in the search result that produced it)."""
    if target is None or (isinstance(target, str) and target == "random"):
        return {}
    return {"target": target if isinstance(target, str) else "explicit"}
