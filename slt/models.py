"""Float64 forward passes of the paper's objects (docs/statements.md#objects): masked softmax, multi-head attention
(target form, pruned-source form, merged form of eq. 10-11), bias-free ReLU nets, transformer blocks and
transformers without normalisation.

Tokens are row vectors: ``X`` has shape ``(T, d1)`` or ``(batch, T, d1)``; an attention mask has shape
``(T, T)`` or ``(batch, T, T)``, dtype bool, row ``i`` being ``a_i`` (the positions token ``i`` attends to).
Everything is vectorised over tokens and batches (heads and layers are short Python loops).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["finite_array", "bool_mask", "masked_softmax", "MHAWeights", "MHAMasks", "ReLUNet", "Block", "BlockMasks",
           "Transformer", "mha", "mha_merged", "relu_net", "block", "transformer"]


# ----------------------------------------------------------------------------------------------- validation

def finite_array(name, a, ndim=None, allow_neg_inf=False):
    """``a`` as a float64 array of the given ndim(s), finite (or -inf where allowed); otherwise a ValueError
    naming ``name`` and the first offending index."""
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} is not a real array: {exc}") from None
    if ndim is not None and arr.ndim not in np.atleast_1d(ndim):
        raise ValueError(f"{name} must have ndim in {tuple(np.atleast_1d(ndim))}, got shape {arr.shape}")
    if np.isfinite(arr).all():
        return arr
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN at index {tuple(int(i) for i in np.argwhere(np.isnan(arr))[0])}")
    bad = (arr == np.inf) if allow_neg_inf else np.isinf(arr)
    if bad.any():
        raise ValueError(f"{name} contains inf at index {tuple(int(i) for i in np.argwhere(bad)[0])}")
    return arr


def bool_mask(name, mask, shape=None):
    """``mask`` as a bool array (dtype must already be bool), optionally of an exact shape."""
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise ValueError(f"{name} must have dtype bool, got {m.dtype}")
    if shape is not None and m.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {m.shape}")
    return m


def _require_kept(mask):
    """Every attention row keeps a position (``||a_i||_1 >= 1``, docs/statements.md#objects); else name the first row."""
    empty = ~mask.any(axis=-1)
    if empty.any():
        row = tuple(int(i) for i in np.argwhere(empty)[0])
        raise ValueError(f"attention mask row {row} keeps no position (||a_i||_1 >= 1 is required)")


# -------------------------------------------------------------------------------------------------- softmax

def masked_softmax(z, mask):
    """Masked softmax ``σ(z; a)_j = a_j exp(z_j) / Σ_k a_k exp(z_k)`` over the last axis (docs/statements.md#objects).

    Stable for logits of any size: the masked row maximum is subtracted before exponentiating, masked
    positions never enter an ``exp``. Logits may be ``-inf`` (weight 0); NaN or ``+inf`` raise. ``mask`` is
    bool and broadcastable to ``z``; a row with no kept position, or whose kept logits are all ``-inf``,
    raises ValueError naming the row.
    """
    z = finite_array("logits z", z, allow_neg_inf=True)
    if z.ndim == 0:
        raise ValueError("logits z must have at least one axis")
    mask = bool_mask("mask", mask)
    try:
        shape = np.broadcast_shapes(z.shape, mask.shape)
    except ValueError:
        raise ValueError(f"mask of shape {mask.shape} does not broadcast to logits of shape {z.shape}") from None
    mask = np.broadcast_to(mask, shape)
    _require_kept(mask)
    with np.errstate(over="ignore"):
        return _softmax(z, mask)


def _softmax(z, mask):
    """``masked_softmax``'s arithmetic on logits and a mask it has checked (or ``_attend`` has: finite logits, a
    bool mask whose every row keeps a position); a row whose kept logits are all ``-inf`` still raises."""
    zm = np.where(mask, z, -np.inf)
    top = zm.max(axis=-1, keepdims=True)
    dead = np.isneginf(top[..., 0])
    if dead.any():
        row = tuple(int(i) for i in np.argwhere(dead)[0])
        raise ValueError(f"logit row {row} has -inf at every kept position")
    np.subtract(zm, top, out=zm)  # zm is a fresh array: work in place (the T^2 arrays dominate memory)
    np.exp(zm, out=zm)
    zm /= zm.sum(axis=-1, keepdims=True)
    return zm


# ------------------------------------------------------------------------------------------------- weights

@dataclass(frozen=True)
class MHAMasks:
    """Bool masks of an MHA, per head stacked like :class:`MHAWeights`."""

    MQ: np.ndarray
    MK: np.ndarray
    MV: np.ndarray
    MO: np.ndarray


@dataclass(frozen=True, eq=False)
class MHAWeights:
    """Multi-head attention weights, per head stacked: ``WQ, WK (H, d1, dK)``, ``WV (H, d1, dV)``,
    ``WO (H, dV, d2)``; ``scale`` multiplies the logits. ``scale=None`` means ``1/sqrt(dK)``: for a target
    that is ``1/sqrt(d_K)``, for a source (``dK = n_K``) it is ``1/sqrt(n_K)`` (docs/statements.md#objects).
    """

    WQ: np.ndarray
    WK: np.ndarray
    WV: np.ndarray
    WO: np.ndarray
    scale: float | None = None

    def __post_init__(self):
        arrs = {k: finite_array(k, getattr(self, k), ndim=3) for k in ("WQ", "WK", "WV", "WO")}
        H, d1, dK = arrs["WQ"].shape
        dV = arrs["WV"].shape[2]
        expect = {"WK": (H, d1, dK), "WV": (H, d1, dV), "WO": (H, dV, arrs["WO"].shape[2])}
        for k, want in expect.items():
            if arrs[k].shape != want:
                raise ValueError(f"{k} has shape {arrs[k].shape}, expected {want} from WQ {arrs['WQ'].shape} "
                                 f"and WV {arrs['WV'].shape}")
        if min(H, d1, dK, dV, arrs["WO"].shape[2]) < 1:
            raise ValueError(f"MHA dimensions must be positive, got WQ {arrs['WQ'].shape}, WO {arrs['WO'].shape}")
        scale = 1.0 / np.sqrt(dK) if self.scale is None else float(self.scale)
        if not np.isfinite(scale) or scale <= 0:
            raise ValueError(f"logit scale must be finite and positive, got {self.scale}")
        for k, v in arrs.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "scale", scale)

    H = property(lambda self: self.WQ.shape[0])
    d1 = property(lambda self: self.WQ.shape[1])
    dK = property(lambda self: self.WQ.shape[2])
    dV = property(lambda self: self.WV.shape[2])
    d2 = property(lambda self: self.WO.shape[2])

    def merged(self):
        """``(WQK, WVO)``: per head ``scale · W_Q W_K^T`` (H, d1, d1) and ``W_V W_O`` (H, d1, d2) (eq. 10-11)."""
        return self.scale * self.WQ @ np.swapaxes(self.WK, 1, 2), self.WV @ self.WO

    def pruned(self, masks: MHAMasks) -> "MHAWeights":
        """``W~⊙M`` for every weight; the logit scale is kept (the source's is ``1/sqrt(n_K)`` for any mask)."""
        return MHAWeights(*(getattr(self, "W" + k) * bool_mask("M" + k, getattr(masks, "M" + k),
                                                          getattr(self, "W" + k).shape) for k in "QKVO"),
                          scale=self.scale)


@dataclass(frozen=True, eq=False)
class ReLUNet:
    """Bias-free ReLU net ``x ↦ W_L ReLU(W_{L-1} ... ReLU(W_1 x))``; ``layers[l]`` has shape (d_{l+1}, d_l)."""

    layers: tuple

    def __post_init__(self):
        layers = tuple(finite_array(f"layer {l}", W, ndim=2) for l, W in enumerate(self.layers))
        if not layers:
            raise ValueError("a ReLU net needs at least one layer")
        for l in range(1, len(layers)):
            if layers[l].shape[1] != layers[l - 1].shape[0]:
                raise ValueError(f"layer {l} has shape {layers[l].shape} but layer {l - 1} outputs "
                                 f"{layers[l - 1].shape[0]} features")
        object.__setattr__(self, "layers", layers)

    d_in = property(lambda self: self.layers[0].shape[1])
    d_out = property(lambda self: self.layers[-1].shape[0])

    def pruned(self, masks) -> "ReLUNet":
        masks = tuple(masks)
        if len(masks) != len(self.layers):
            raise ValueError(f"{len(masks)} masks for {len(self.layers)} layers")
        return ReLUNet(tuple(W * bool_mask(f"mask of layer {l}", M, W.shape)
                             for l, (W, M) in enumerate(zip(self.layers, masks))))


@dataclass(frozen=True)
class BlockMasks:
    mha: MHAMasks
    fc: tuple


@dataclass(frozen=True, eq=False)
class Block:
    """Transformer block without normalisation: ``Blk(x_i) = F(Attn(x_i)^T + x_i) + Attn(x_i)^T + x_i``."""

    mha: MHAWeights
    fc: ReLUNet

    def __post_init__(self):
        d1, d2 = self.mha.d1, self.mha.d2
        if d2 != d1:
            raise ValueError(f"the residual needs the MHA output dim d2 = d1, got d1={d1}, d2={d2}")
        if (self.fc.d_in, self.fc.d_out) != (d1, d1):
            raise ValueError(f"the FC net must map R^{d1} to R^{d1}, got R^{self.fc.d_in} to R^{self.fc.d_out}")

    def pruned(self, masks: BlockMasks) -> "Block":
        return Block(self.mha.pruned(masks.mha), self.fc.pruned(masks.fc))


@dataclass(frozen=True, eq=False)
class Transformer:
    """``Tf = Blk^(B) ∘ ... ∘ Blk^(1)`` (docs/statements.md#objects)."""

    blocks: tuple

    def __post_init__(self):
        blocks = tuple(self.blocks)
        if not blocks or not all(isinstance(b, Block) for b in blocks):
            raise ValueError("a transformer needs a non-empty sequence of Block")
        object.__setattr__(self, "blocks", blocks)

    def pruned(self, masks) -> "Transformer":
        masks = tuple(masks)
        if len(masks) != len(self.blocks):
            raise ValueError(f"{len(masks)} block masks for {len(self.blocks)} blocks")
        return Transformer(tuple(b.pruned(m) for b, m in zip(self.blocks, masks)))


# ------------------------------------------------------------------------------------------ forward passes

def _inputs(X, d1, mask):
    """Validated ``X`` (…, T, d1) and bool mask broadcast against its leading axes (None = full)."""
    X = finite_array("X", X, ndim=(2, 3))
    if X.shape[-1] != d1:
        raise ValueError(f"X has {X.shape[-1]} features, the weights expect d1={d1}")
    T = X.shape[-2]
    if T < 1:
        raise ValueError("X has no tokens (T = 0)")
    if mask is None:
        return X, np.ones((T, T), dtype=bool)
    mask = bool_mask("attention mask", mask)
    if mask.ndim not in (2, 3) or mask.shape[-2:] != (T, T):
        raise ValueError(f"attention mask must have shape (T, T) or (batch, T, T) with T={T}, got {mask.shape}")
    if mask.ndim == 3 and X.ndim == 3 and mask.shape[0] != X.shape[0]:
        raise ValueError(f"attention mask batch {mask.shape[0]} differs from X batch {X.shape[0]}")
    _require_kept(mask)
    return X, mask


LOGITS_PER_CHUNK = 1 << 22  # logits formed at once (32 MiB): long sequences are processed in query blocks


def _attend(X, mask, heads):
    """``Σ_h σ(Q_h K_h^T; a_i) V_h`` for per-head ``(Q (…,T,k), K (…,T,k), V (…,T,d2))``; the logits are
    formed for blocks of query rows so that memory stays O(T) per row block, not O(T^2)."""
    T = X.shape[-2]
    lead = np.broadcast_shapes(X.shape[:-2], mask.shape[:-2])
    rows = max(1, LOGITS_PER_CHUNK // (T * max(1, int(np.prod(lead)))))
    out = None
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is detected below and raised with its cause
        for h, (Q, K, V) in enumerate(heads):
            if out is None:
                out = np.zeros(lead + (T, V.shape[-1]))
            if not np.isfinite(V).all():
                raise ValueError(f"head {h}: the value path (X W_V W_O, or X WVO in the merged form) overflows "
                                 f"float64 (max |X| = {np.abs(X).max():.3g}; the weights are too large)")
            Kt = np.swapaxes(K, -1, -2)
            for a in range(0, T, rows):
                rs = slice(a, a + rows)
                z, m = Q[..., rs, :] @ Kt, mask[..., rs, :]  # the mask was checked by _inputs
                out[..., rs, :] += (_softmax(z, m) if np.isfinite(z).all() else masked_softmax(z, m)) @ V
        if not np.isfinite(out).all():
            raise ValueError("the attention output is not finite (float64 overflow in the sum over heads)")
    return out


def mha(X, weights: MHAWeights, mask=None):
    """``Attn(x_i) = Σ_h σ(scale · x_i^T W_Q^h (X W_K^h)^T ; a_i) X W_V^h W_O^h`` for every token i.

    ``X`` (T, d1) or (batch, T, d1); ``mask`` (T, T) or (batch, T, T) bool (None: every token sees every
    token). Returns (…, T, d2). Target form and pruned-source form differ only in the weights and the
    ``scale`` stored in ``weights`` (``1/sqrt(d_K)`` resp. ``1/sqrt(n_K)``).
    """
    X, mask = _inputs(X, weights.d1, mask)
    w = weights
    return _attend(X, mask, ((w.scale * (X @ w.WQ[h]), X @ w.WK[h], (X @ w.WV[h]) @ w.WO[h])
                             for h in range(w.H)))


def mha_merged(X, WQK, WVO, mask=None):
    """Merged form ``Σ_h σ(x_i^T WQK_h X^T ; a_i) X WVO_h`` (eq. 10-11); WQK (H, d1, d1), WVO (H, d1, d2)."""
    WQK = finite_array("WQK", WQK, ndim=3)
    WVO = finite_array("WVO", WVO, ndim=3)
    H, d1 = WQK.shape[:2]
    if WQK.shape[2] != d1 or WVO.shape[:2] != (H, d1):
        raise ValueError(f"WQK must be (H, d1, d1) and WVO (H, d1, d2); got {WQK.shape} and {WVO.shape}")
    X, mask = _inputs(X, d1, mask)
    return _attend(X, mask, ((X @ WQK[h], X, X @ WVO[h]) for h in range(H)))


def relu_net(x, net):
    """``W_L ReLU(... ReLU(W_1 x))`` on row vectors ``x`` (…, d_in); ``net`` a :class:`ReLUNet` or layer list."""
    net = net if isinstance(net, ReLUNet) else ReLUNet(tuple(net))
    x = finite_array("x", x)
    if x.ndim == 0 or x.shape[-1] != net.d_in:
        raise ValueError(f"x must end in {net.d_in} features, got shape {x.shape}")
    for W in net.layers[:-1]:
        x = np.maximum(x @ W.T, 0.0)
    return x @ net.layers[-1].T


def block(X, blk: Block, mask=None):
    """``Blk(x_i) = F(Attn(x_i)^T + x_i) + Attn(x_i)^T + x_i`` for every token (no normalisation)."""
    Y = mha(X, blk.mha, mask) + np.asarray(X, dtype=np.float64)
    return relu_net(Y, blk.fc) + Y


def transformer(X, tf: Transformer, mask=None):
    """``Blk^(B) ∘ ... ∘ Blk^(1)`` applied to X, the same attention mask in every block."""
    for blk in tf.blocks:
        X = block(X, blk, mask)
    return X
