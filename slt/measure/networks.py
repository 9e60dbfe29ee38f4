"""Worst output error of a pruned source against its target over inputs: random (on and inside the alpha-sphere,
every mask kind for sequence models) and adversarially optimised (L-BFGS over the ball, seeded restarts).
Used by the checks of Lemma 2, Theorem 10 (vectors) and Theorem 11, Theorem 14 (sequences)."""
from __future__ import annotations

import numpy as np

from slt.measure.adversarial import ball, maximise
from slt.measure.attention import worst_adversarial, worst_random
from slt.samplers import inputs


def vector_error(f_source, f_target, d: int, alpha: float, seed: int, n_random: int = 256, restarts: int = 2,
                 maxiter: int = 30):
    """``(error, x)``: the largest ``||f_S(x) - f_T(x)||`` found over ``||x|| <= alpha``."""
    rng = np.random.default_rng(seed)
    X = np.concatenate([inputs(rng, n_random // 2, d, alpha, sphere=True), inputs(rng, n_random // 2, d, alpha)])
    errs = np.linalg.norm(f_source(X) - f_target(X), axis=-1)
    best = (float(errs.max()), X[int(errs.argmax())])
    found = maximise(lambda th: float(np.linalg.norm(f_source(ball(th[None], alpha)) - f_target(ball(th[None], alpha)))),
                     d, rng, restarts=restarts, maxiter=maxiter, starts=[best[1] / alpha])
    if found.value > best[0]:
        best = (found.value, ball(found.theta[None], alpha)[0])
    return best


def sequence_error(f_source, f_target, d: int, alpha: float, seed: int, lengths=(2, 16, 128), restarts: int = 1,
                   maxiter: int = 20, adversarial_T: int = 4):
    """``(error, where)``: the largest ``max_i ||f_S(X)_i - f_T(X)_i||`` over random and adversarial inputs
    (``slt.measure.attention``'s searches, with ``f_S(X, mask)`` and ``f_T(X, mask)`` as the forward passes)."""
    def forward(X, f, mask):
        return f(X, mask)

    best = worst_random(f_source, f_target, seed, lengths, d, alpha, forward=forward, label="random")
    adv, _, kind = worst_adversarial(f_source, f_target, seed, adversarial_T, d, alpha, restarts, maxiter, forward)
    return (adv, f"adversarial T={adversarial_T} mask={kind}") if adv > best[0] else best
