"""Lottery tickets in attention, as Theorem 9 / 11 / 14 build them (docs/statements.md#theorem9, #theorem11, #theorem14).

Theorem 9, per head h (eq. 10-11):
- QK: ``W_QK = scale_T W_Q W_K^T`` (``scale_T = 1/sqrt(d_K)``) is approximated by
  ``(W~'_Q⊙M_Q)(W~'_K⊙M_K)^T`` with ``W~' = sqrt(scale_S) W~`` (``= W~/n_K^{1/4}`` for the source scale
  ``1/sqrt(n_K)``), so that this product IS the pruned source's merged logit matrix. Lemma 7 with
  ``W2 = W~'_Q`` (d1×n_K), ``W1 = W~'_K^T`` (n_K×d1): ``M_Q = M2``, ``M_K = M1^T`` (block diagonal).
- VO: ``W_VO = W_V W_O`` via ``W_VO^T = (W~_O⊙M_O)^T (W~_V⊙M_V)^T``: Lemma 7 with ``W2 = W~_O^T`` (d2×n_V),
  ``W1 = W~_V^T`` (n_V×d1), so ``M_V = M1^T`` is block diagonal and ``n_V = d1·n'``; ``M_O = M2^T``.
Theorem 11: the MHA by Theorem 9 and the FC net by Theorem 10; Theorem 14: block by block. All subset sums of
one call (every head, both merged matrices, every layer and block) go to the solver batched by n'.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from slt.construct._batch import run
from slt.construct.linear import ReLUNetTicket, lemma7_setup, relu_net_setups
from slt.models import Block, BlockMasks, MHAMasks, MHAWeights, Transformer

__all__ = ["MHATicket", "BlockTicket", "TransformerTicket", "mha", "block", "transformer"]


@dataclass(frozen=True, eq=False)
class MHATicket:
    """Theorem 9 ticket: ``masks`` (per head stacked), the ``pruned`` source, per-head measured
    ``dQK = pruned merged QK - W_QK`` (H, d1, d1) and ``dVO = pruned W_V W_O - W_VO`` (H, d1, d2), their
    max-entry norms per head ``qk_max_error``, ``vo_max_error`` (H,), and the Lemma 7 tickets per head
    (``qk``: of W_QK; ``vo``: of W_VO^T)."""

    masks: MHAMasks
    pruned: MHAWeights
    dQK: np.ndarray
    dVO: np.ndarray
    qk_max_error: np.ndarray
    vo_max_error: np.ndarray
    qk: tuple
    vo: tuple


@dataclass(frozen=True, eq=False)
class BlockTicket:
    """Theorem 11 ticket: the MHA and FC tickets, the block's masks and the pruned source block."""

    mha: MHATicket
    fc: ReLUNetTicket
    masks: BlockMasks
    pruned: Block


@dataclass(frozen=True, eq=False)
class TransformerTicket:
    """Theorem 14 ticket: one :class:`BlockTicket` per block, the masks per block, the pruned transformer."""

    blocks: tuple
    masks: tuple
    pruned: Transformer


def _mha_setups(target: MHAWeights, source: MHAWeights):
    if not (isinstance(target, MHAWeights) and isinstance(source, MHAWeights)):
        raise ValueError("Theorem 9 needs target and source as MHAWeights")
    for name in ("H", "d1", "d2"):
        if getattr(target, name) != getattr(source, name):
            raise ValueError(f"target and source differ in {name}: {getattr(target, name)} vs {getattr(source, name)}")
    d1 = target.d1
    for name, n in (("n_K", source.dK), ("n_V", source.dV)):
        if n % d1:
            raise ValueError(f"Theorem 9 needs {name} = d1·n'; got {name} = {n}, d1 = {d1}")
    WQK, WVO = target.merged()
    c = np.sqrt(source.scale)  # W~' = W~ / n_K^{1/4} for the source scale 1/sqrt(n_K)
    setups = [lemma7_setup(WQK[h], (c * source.WK[h]).T, c * source.WQ[h], f"Theorem 9, head {h}, W_QK")
              for h in range(target.H)]
    setups += [lemma7_setup(WVO[h].T, source.WV[h].T, source.WO[h].T, f"Theorem 9, head {h}, W_VO^T")
               for h in range(target.H)]

    def assemble(tickets):
        qk, vo = tuple(tickets[:target.H]), tuple(tickets[target.H:])
        masks = MHAMasks(MQ=np.stack([t.M2 for t in qk]), MK=np.stack([t.M1.T for t in qk]),
                         MV=np.stack([t.M1.T for t in vo]), MO=np.stack([t.M2.T for t in vo]))
        pruned = source.pruned(masks)
        PQK, PVO = pruned.merged()
        dQK, dVO = PQK - WQK, PVO - WVO
        return MHATicket(masks, pruned, dQK, dVO, np.abs(dQK).max(axis=(1, 2)), np.abs(dVO).max(axis=(1, 2)),
                         qk, vo)

    return setups, assemble


def _block_setups(target: Block, source: Block):
    if not (isinstance(target, Block) and isinstance(source, Block)):
        raise ValueError("Theorem 11 needs target and source as Block")
    mha_setups, mha_assemble = _mha_setups(target.mha, source.mha)
    fc_setups, fc_assemble = relu_net_setups(target.fc, source.fc)

    def assemble(tickets):
        m = mha_assemble(tickets[:len(mha_setups)])
        f = fc_assemble(tickets[len(mha_setups):])
        masks = BlockMasks(m.masks, f.masks)
        return BlockTicket(m, f, masks, source.pruned(masks))

    return mha_setups + fc_setups, assemble


def mha(target: MHAWeights, source: MHAWeights, tol=None, threads=None, **solve_options) -> MHATicket:
    """Theorem 9 construction (module docstring): ``source.dK = n_K`` and ``source.dV = n_V`` must be
    multiples of d1; any source initialisation (theory or Xavier) is accepted."""
    setups, assemble = _mha_setups(target, source)
    return assemble(run(setups, tol, threads, **solve_options))


def block(target: Block, source: Block, tol=None, threads=None, **solve_options) -> BlockTicket:
    """Theorem 11 construction: MHA by Theorem 9, FC (L target layers, 2L source layers) by Theorem 10."""
    setups, assemble = _block_setups(target, source)
    return assemble(run(setups, tol, threads, **solve_options))


def transformer(target: Transformer, source: Transformer, tol=None, threads=None,
                **solve_options) -> TransformerTicket:
    """Theorem 14 construction: Theorem 11 block by block (the masks of block b depend only on the
    weights of block b), all subset sums solved together."""
    if not (isinstance(target, Transformer) and isinstance(source, Transformer)):
        raise ValueError("Theorem 14 needs target and source as Transformer")
    if len(target.blocks) != len(source.blocks):
        raise ValueError(f"target has {len(target.blocks)} blocks, source {len(source.blocks)}")
    parts = [_block_setups(t, s) for t, s in zip(target.blocks, source.blocks)]
    tickets = run([s for setups, _ in parts for s in setups], tol, threads, **solve_options)
    blocks, at = [], 0
    for setups, assemble in parts:
        blocks.append(assemble(tickets[at:at + len(setups)]))
        at += len(setups)
    masks = tuple(b.masks for b in blocks)
    return TransformerTicket(tuple(blocks), masks, source.pruned(masks))
