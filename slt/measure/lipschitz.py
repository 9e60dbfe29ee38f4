"""Measurements of Lemma 12 and Lemma 13 (docs/statements.md#lemma12, #lemma13): how far a TARGET MHA (Lemma 12) or block (Lemma 13)
moves when every token moves by at most eps_max.

Deterministic; the adversary chooses everything the statement quantifies over: tokens ``||x_i|| <= alpha``,
perturbations ``||x_i - x'_i|| <= eps_max``, target weights with spectral norms <= 1 (a free matrix divided by
``max(1, ||M||)``), the attention mask (full or causal). ``inside=True`` also keeps ``||x'_i|| <= alpha``
(projection onto the ball, which never lengthens the perturbation), the assumption of Lemma 12's logit step;
``inside=False`` is the statement as printed (``||x'_i||`` up to ``alpha + eps_max``).
"""
from __future__ import annotations

import numpy as np

from slt.measure.adversarial import ball, maximise
from slt.measure.evidence import cases_result
from slt.measure.numerics import Search
from slt.models import Block, MHAWeights, ReLUNet, block, mha
from slt.samplers import attention_mask

RESTARTS = {"quick": 1, "full": 6}
"""Restarts of the run record's adversarial searches of Lemmas 12 and 13, per profile."""
PROOF_POINTS = [{"d1": 1, "H": 1, "alpha": 1.0, "eps_max": e, "T": 3} for e in (0.01, 0.1)]
"""The run record's searches of Lemmas 12 and 13 in the form their proofs support."""


def _unit_norm(M):
    return M / max(1.0, float(np.linalg.norm(M, 2)))


class Layout:
    """Unpacks a flat parameter vector into (X, X', target) for given dimensions."""

    def __init__(self, kind: str, T: int, d1: int, H: int, dK: int, L: int = 2):
        self.kind, self.T, self.d1, self.H, self.dK, self.L = kind, T, d1, H, dK, L
        self.shapes = [("X", (T, d1)), ("D", (T, d1))]
        self.shapes += [(f"{w}{h}", s) for h in range(H)
                        for w, s in (("Q", (d1, dK)), ("K", (d1, dK)), ("V", (d1, dK)), ("O", (dK, d1)))]
        if kind == "block":
            self.shapes += [(f"F{l}", (d1, d1)) for l in range(L)]
        self.dim = sum(int(np.prod(s)) for _, s in self.shapes)

    def unpack(self, theta, alpha: float, eps_max: float, inside: bool):
        parts, at = {}, 0
        for name, shape in self.shapes:
            size = int(np.prod(shape))
            parts[name] = theta[at:at + size].reshape(shape)
            at += size
        X = ball(parts["X"], alpha)
        Xp = X + ball(parts["D"], eps_max)
        if inside:
            n = np.linalg.norm(Xp, axis=-1, keepdims=True)  # projected onto the alpha-ball
            Xp = Xp * np.minimum(1.0, alpha / np.where(n > 0, n, 1.0))
        stack = {w: np.stack([_unit_norm(parts[f"{w}{h}"]) for h in range(self.H)]) for w in "QKVO"}
        mha = MHAWeights(stack["Q"], stack["K"], stack["V"], stack["O"])
        if self.kind == "mha":
            return X, Xp, mha
        return X, Xp, Block(mha, ReLUNet(tuple(_unit_norm(parts[f"F{l}"]) for l in range(self.L))))


def left_side(kind: str, X, Xp, target, mask) -> float:
    """``max_i ||F(x_i) - F(x'_i)||`` for F the target MHA (``kind="mha"``) or block (``"block"``)."""
    f = mha if kind == "mha" else block
    return float(np.linalg.norm(f(X, target, mask) - f(Xp, target, mask), axis=-1).max())


def search(kind: str, bound: float, T: int, d1: int, H: int, alpha: float, eps_max: float, seed: int,
           inside: bool = True, restarts: int = 4, maxiter: int = 80):
    """Largest ``left side / bound`` found: ``(ratio, value, (X, X', target), mask kind)``."""
    layout = Layout(kind, T, d1, H, dK=d1)
    best = (-np.inf, None, None, None)
    for mask_kind in ("full", "causal"):
        M = attention_mask(0, T, mask_kind)

        def objective(theta):
            return left_side(kind, *layout.unpack(theta, alpha, eps_max, inside), M) / bound

        found = maximise(objective, layout.dim, np.random.default_rng([seed, len(mask_kind)]), restarts=restarts,
                         maxiter=maxiter, scale=1.5)
        if found.value > best[0]:
            X, Xp, target = layout.unpack(found.theta, alpha, eps_max, inside)
            best = (found.value, found.value * bound, (X, Xp, target), mask_kind)
    return best


def counterexample(args, mask_kind: str) -> dict:
    """The exact inputs and target weights of a case, as nested lists (for the report and the evidence)."""
    X, Xp, target = args
    mha = target if hasattr(target, "WQ") else target.mha
    out = {"X": X.tolist(), "X_prime": Xp.tolist(), "mask": mask_kind,
           "WQ": mha.WQ.tolist(), "WK": mha.WK.tolist(), "WV": mha.WV.tolist(), "WO": mha.WO.tolist()}
    if not hasattr(target, "WQ"):
        out["FC"] = [W.tolist() for W in target.fc.layers]
    return out


def drawn_cases(measure, point: dict, bound_scale: float = 1.0, restarts: int = 2, maxiter: int = 40) -> list:
    """The check at one drawn point (``seed``, ``d1``, ``H``, ``alpha``, ``eps_max``, ``T``): ``measure``'s case, the
    bound times ``bound_scale`` (1 in the checks)."""
    return [measure(point["seed"], point["d1"], point["H"], point["alpha"], point["eps_max"], point["T"],
                    restarts=restarts, maxiter=maxiter, bound_scale=bound_scale)]


def searches(statement: str, task, printed_points: list, titles: tuple[str, str]) -> tuple:
    """The run record's two searches of Lemma 12 / 13 (``task(seed, form, points, restarts)``): the proof's reading
    at ``PROOF_POINTS`` and the printed one at ``printed_points`` (every other point in the quick profile);
    ``titles``: the report's headings of the two."""
    return (Search(f"search:{statement}", task,
                   lambda profile, C: {"form": "proof", "points": PROOF_POINTS, "restarts": RESTARTS[profile]},
                   title=titles[0]),
            Search(f"search:{statement}:printed", task,
                   lambda profile, C: {"form": "printed", "points": printed_points[:: 1 if profile == "full" else 2],
                                       "restarts": RESTARTS[profile]}, title=titles[1]))


def search_result(measure, printed_search, seed: int, form: str, points: list, restarts: int, module: str) -> dict:
    """A run-record search task of Lemma 12 / 13: ``form`` "proof" (``measure`` at each point, the reading the proofs
    support) or "printed" (``printed_search``); the cases with the measuring module's name."""
    found = ([measure(seed, **p, restarts=restarts) for p in points] if form == "proof"
             else printed_search(seed, points, restarts=restarts))
    return {**cases_result(found), "module": module}
