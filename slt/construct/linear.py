"""Two random layers for one, as the proofs build them.

- Lemma 7 (appendix; Lemma 4 in the main text), docs/statements.md#lemma7: no activation. ``n = d1 n'``; ``W~1⊙M1`` is
  block diagonal (hidden rows ``j n' .. (j+1) n' - 1`` keep only column j, the block ``u_j``); entry
  ``(i, j)`` of ``(W~2⊙M2)(W~1⊙M1)`` is ``Σ_k m_ijk v_ijk u_jk``, one subset sum with items
  ``v_ijk u_jk`` and target ``W_ij``.
- Lemma 2 (Pensia et al. 2020), docs/statements.md#lemma2, with the ReLU: same block-diagonal M1, and the sign split of
  block j: a unit with ``u_jk > 0`` computes ``u_jk ReLU(x_j)``, one with ``u_jk < 0`` computes
  ``-u_jk ReLU(-x_j)``. With ``A_ij = Σ_{k: u_jk>0} m_ijk v_ijk u_jk`` and ``B_ij = Σ_{k: u_jk<0} m_ijk v_ijk u_jk``
  the pruned net is exactly ``x ↦ A ReLU(x) - B ReLU(-x)``, and ``W x = W ReLU(x) - W ReLU(-x)`` asks for two
  subset sums per entry, both with target ``W_ij`` (units with ``u_jk = 0`` contribute nothing either way).
- Theorem 10 (Pensia et al., Thm 1), docs/statements.md#theorem10: Lemma 2 layer by layer, 2L source layers for L.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from slt.construct._batch import Setup, run
from slt.models import ReLUNet, finite_array

__all__ = ["Lemma7Ticket", "Lemma2Ticket", "ReLUNetTicket", "lemma7", "lemma2", "relu_net"]


@dataclass(frozen=True, eq=False)
class Lemma7Ticket:
    """Masks ``M1 (n, d1)``, ``M2 (d2, n)``; ``product = (W~2⊙M2)(W~1⊙M1)``; ``errors = |W - product|``
    entrywise (d2, d1), recomputed from the masks; ``max_error = ||W - product||_max``."""

    M1: np.ndarray
    M2: np.ndarray
    product: np.ndarray
    errors: np.ndarray
    max_error: float


@dataclass(frozen=True, eq=False)
class Lemma2Ticket:
    """Masks ``M1 (n, d1)``, ``M2 (d2, n)``; the pruned ReLU pair equals ``x ↦ A ReLU(x) - B ReLU(-x)`` with
    ``positive = A`` and ``negative = B`` (d2, d1); ``errors (2, d2, d1) = (|A - W|, |B - W|)``;
    ``max_error`` their maximum, so that ``||F_S(x) - W x||_∞ <= max_error ||x||_1``."""

    M1: np.ndarray
    M2: np.ndarray
    positive: np.ndarray
    negative: np.ndarray
    errors: np.ndarray
    max_error: float


@dataclass(frozen=True, eq=False)
class ReLUNetTicket:
    """Theorem 10: one :class:`Lemma2Ticket` per target layer, the 2L source masks and the pruned source."""

    layers: tuple
    masks: tuple
    pruned: ReLUNet
    max_errors: np.ndarray


def _block_diagonal(target, W1, W2, what):
    """Validate a (target, W1, W2) triple; return float arrays, n', the block-diagonal M1 and ``u (d1, n')``."""
    W = finite_array(f"{what} target", target, ndim=2)
    W1 = finite_array(f"{what} W1", W1, ndim=2)
    W2 = finite_array(f"{what} W2", W2, ndim=2)
    d2, d1 = W.shape
    n = W1.shape[0]
    if W1.shape[1] != d1 or W2.shape != (d2, n):
        raise ValueError(f"{what}: target {W.shape} needs W1 (n, {d1}) and W2 ({d2}, n); "
                         f"got W1 {W1.shape}, W2 {W2.shape}")
    if min(d1, d2) < 1 or n < d1 or n % d1:
        raise ValueError(f"{what}: the hidden width n = {n} must be a positive multiple d1·n' of d1 = {d1}")
    n_prime = n // d1
    column = np.repeat(np.arange(d1), n_prime)  # hidden unit r belongs to input coordinate r // n'
    M1 = np.zeros((n, d1), dtype=bool)
    M1[np.arange(n), column] = True
    u = W1[np.arange(n), column].reshape(d1, n_prime)
    return W, W1, W2, n_prime, M1, u


def lemma7_setup(target, W1, W2, what="Lemma 7") -> Setup:
    """The ``d1·d2`` subset sums of Lemma 7 and the map from their masks to a :class:`Lemma7Ticket`;
    ``what`` names the problem in error messages."""
    W, W1, W2, n_prime, M1, u = _block_diagonal(target, W1, W2, what)
    d2, d1 = W.shape

    def finish(masks):
        M2 = masks.reshape(d2, d1 * n_prime)  # row i: blocks j = 0..d1-1 of n' units each
        product = (W2 * M2) @ (W1 * M1)
        errors = np.abs(W - product)
        return Lemma7Ticket(M1, M2, product, errors, float(errors.max()))

    items = (W2.reshape(d2, d1, n_prime) * u[None]).reshape(d2 * d1, n_prime)
    return Setup(items, W.reshape(-1).copy(), finish)


def lemma7(target, W1, W2, tol=None, threads=None, **solve_options) -> Lemma7Ticket:
    """Lemma 7 construction: ``target`` W (d2, d1), ``W1`` (n, d1), ``W2`` (d2, n), ``n = d1·n'``; all
    ``d1·d2`` entries in one batched call of ``slt.subset_sum.solve(items, targets, tol, threads)``."""
    return run([lemma7_setup(target, W1, W2)], tol, threads, **solve_options)[0]


def lemma2_setup(target, W1, W2, what="Lemma 2") -> Setup:
    """The ``2·d1·d2`` subset sums of Lemma 2's sign split (rows padded with zero items to a common n')."""
    W, W1, W2, n_prime, M1, u = _block_diagonal(target, W1, W2, what)
    d2, d1 = W.shape
    vu = W2.reshape(d2, d1, n_prime) * u[None]  # v_ijk u_jk
    classes = (u >= 0, u < 0)  # ReLU(x_j) carriers, ReLU(-x_j) carriers
    width = max(int(c.sum(axis=1).max()) for c in classes)
    # per class: for block j, the unit indices k of that class first (stable), then padding slots
    order = [np.argsort(~c, axis=1, kind="stable")[:, :width] for c in classes]
    valid = [np.take_along_axis(c, o, axis=1) for c, o in zip(classes, order)]
    items = np.stack([np.where(v[None], np.take_along_axis(vu, o[None], axis=2), 0.0)
                      for o, v in zip(order, valid)])  # (2, d2, d1, width)

    def finish(masks):
        masks = masks.reshape(2, d2, d1, width)
        M2 = np.zeros((d2, d1, n_prime), dtype=bool)
        for s in range(2):  # every unit is in exactly one class; padding slots are no units
            j, t = np.nonzero(valid[s])
            M2[:, j, order[s][j, t]] = masks[s][:, j, t]
        pruned = (W2.reshape(d2, d1, n_prime) * M2) * u[None]
        A = np.where(classes[0][None], pruned, 0.0).sum(axis=2)
        B = np.where(classes[1][None], pruned, 0.0).sum(axis=2)
        errors = np.stack([np.abs(A - W), np.abs(B - W)])
        return Lemma2Ticket(M1, M2.reshape(d2, d1 * n_prime), A, B, errors, float(errors.max()))

    return Setup(items.reshape(2 * d2 * d1, width), np.concatenate([W.reshape(-1)] * 2), finish)


def lemma2(target, W1, W2, tol=None, threads=None, **solve_options) -> Lemma2Ticket:
    """Lemma 2 construction (ReLU, sign split): ``target`` W (d2, d1), ``W1`` (n, d1), ``W2`` (d2, n),
    ``n = d1·n'``; the ``2·d1·d2`` subset sums in one batched solver call."""
    return run([lemma2_setup(target, W1, W2)], tol, threads, **solve_options)[0]


def relu_net_setups(target, source):
    """Per target layer l, the Lemma 2 setup on source layers 2l, 2l+1; and the ticket assembler."""
    target = target if isinstance(target, ReLUNet) else ReLUNet(tuple(target))
    source = source if isinstance(source, ReLUNet) else ReLUNet(tuple(source))
    L = len(target.layers)
    if len(source.layers) != 2 * L:
        raise ValueError(f"Theorem 10 needs 2L = {2 * L} source layers for L = {L} target layers, "
                         f"got {len(source.layers)}")
    setups = [lemma2_setup(target.layers[l], source.layers[2 * l], source.layers[2 * l + 1],
                           f"Theorem 10, target layer {l}") for l in range(L)]

    def assemble(layer_tickets):
        masks = tuple(M for t in layer_tickets for M in (t.M1, t.M2))
        return ReLUNetTicket(tuple(layer_tickets), masks, source.pruned(masks),
                             np.array([t.max_error for t in layer_tickets]))

    return setups, assemble


def relu_net(target, source, tol=None, threads=None, **solve_options) -> ReLUNetTicket:
    """Theorem 10: Lemma 2 on target layer l with source layers ``2l-1, 2l`` (ReLU between all source
    layers, as in ``slt.models.relu_net``); ``target``/``source`` are ReLUNet or layer lists."""
    setups, assemble = relu_net_setups(target, source)
    return assemble(run(setups, tol, threads, **solve_options))
