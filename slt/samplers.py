"""Random targets, sources, inputs and attention masks (docs/statements.md#objects).

Every sampler takes an explicit ``rng``: a ``numpy.random.Generator`` or an int seed (nothing global).

- Targets, ``init="spectral"``: every weight matrix (W_Q, W_K, W_V, W_O per head, every FC layer) is a
  Gaussian matrix rescaled to a spectral norm drawn from U(0, 1] -- the hypotheses of Theorems 9-14.
  ``init="paper"``: the paper's untrained targets (Appendix B.1): query/key U[-d_K^{1/4}, d_K^{1/4}] with the
  target's own d_K, value/output U[-1, 1], FC U[-1, 1] (spectral norms NOT bounded by 1).
- Sources, ``init="theory"``: query/key U[-n_K^{1/4}, n_K^{1/4}], value/output and FC U[-1, 1] (§0);
  ``init="xavier"``: Xavier-uniform, U[-b, b] with ``b = sqrt(6/(fan_in + fan_out))`` per matrix.
"""
from __future__ import annotations

import numbers

import numpy as np

from slt.models import Block, MHAWeights, ReLUNet, Transformer

__all__ = ["as_rng", "spectral_matrices", "target_mha", "target_relu", "target_block", "target_transformer",
           "source_mha", "source_relu", "source_block", "source_transformer", "inputs", "attention_mask"]

TARGET_INITS = ("spectral", "paper")
SOURCE_INITS = ("theory", "xavier")
MASK_KINDS = ("full", "causal", "random")


def as_rng(rng) -> np.random.Generator:
    """A Generator from a Generator or an int seed; anything else (including None) is a ValueError."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise ValueError(f"rng must be a numpy Generator or an int seed, got {type(rng).__name__}")


def _pos_int(**kw):
    for name, v in kw.items():
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")


def _choice(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def _uniform(rng, bound, shape):
    return rng.uniform(-bound, bound, size=shape)


def _layer_shapes(dims):
    """Layer shapes ``(dims[l+1], dims[l])`` of a net through the positive integer widths ``dims``."""
    dims = tuple(dims)
    _pos_int(**{f"dims[{i}]": d for i, d in enumerate(dims)})
    if len(dims) < 2:
        raise ValueError(f"dims needs at least 2 entries (input and output), got {dims}")
    return [(dims[l + 1], dims[l]) for l in range(len(dims) - 1)]


def spectral_matrices(rng, shape):
    """Gaussian matrices of shape ``(..., m, n)``, each rescaled to a spectral norm drawn from U(0, 1]."""
    rng = as_rng(rng)
    G = rng.standard_normal(shape)
    target = 1.0 - rng.random(shape[:-2] + (1, 1))  # in (0, 1]
    return G * (target / np.linalg.norm(G, ord=2, axis=(-2, -1), keepdims=True))


# ----------------------------------------------------------------------------------------------- targets

def target_mha(rng, d1, d2=None, H=1, dK=None, dV=None, init="spectral") -> MHAWeights:
    """Target MHA, logit scale ``1/sqrt(d_K)``; defaults ``d2 = dK = dV = d1``."""
    rng = as_rng(rng)
    d2, dK, dV = (d1 if v is None else v for v in (d2, dK, dV))
    _pos_int(d1=d1, d2=d2, H=H, dK=dK, dV=dV)
    _choice("target init", init, TARGET_INITS)
    shapes = {"WQ": (H, d1, dK), "WK": (H, d1, dK), "WV": (H, d1, dV), "WO": (H, dV, d2)}
    if init == "spectral":
        return MHAWeights(**{k: spectral_matrices(rng, s) for k, s in shapes.items()})
    bounds = {"WQ": dK ** 0.25, "WK": dK ** 0.25, "WV": 1.0, "WO": 1.0}
    return MHAWeights(**{k: _uniform(rng, bounds[k], s) for k, s in shapes.items()})


def target_relu(rng, dims, init="spectral") -> ReLUNet:
    """Target ReLU net with layer l mapping ``dims[l]`` to ``dims[l+1]`` features."""
    rng = as_rng(rng)
    shapes = _layer_shapes(dims)
    _choice("target init", init, TARGET_INITS)
    draw = (lambda s: spectral_matrices(rng, s)) if init == "spectral" else (lambda s: _uniform(rng, 1.0, s))
    return ReLUNet(tuple(draw(shape) for shape in shapes))


def target_block(rng, d1, H=1, dK=None, dV=None, L=2, init="spectral") -> Block:
    """Target block: MHA R^{d1} -> R^{d1} and an FC net of L layers of width d1 (Theorem 11)."""
    rng = as_rng(rng)
    _pos_int(L=L)
    return Block(target_mha(rng, d1, d1, H, dK, dV, init), target_relu(rng, (d1,) * (L + 1), init))


def target_transformer(rng, B, d1, H=1, dK=None, dV=None, L=2, init="spectral") -> Transformer:
    rng = as_rng(rng)
    _pos_int(B=B)
    return Transformer(tuple(target_block(rng, d1, H, dK, dV, L, init) for _ in range(B)))


# ----------------------------------------------------------------------------------------------- sources

def _source_matrix(rng, shape, init, theory_bound):
    if init == "theory":
        return _uniform(rng, theory_bound, shape)
    fan_in, fan_out = shape[-2], shape[-1]
    return _uniform(rng, np.sqrt(6.0 / (fan_in + fan_out)), shape)


def source_mha(rng, d1, d2, H, nK, nV, init="theory") -> MHAWeights:
    """Source MHA of widths ``n_K`` (query/key) and ``n_V`` (value/output), logit scale ``1/sqrt(n_K)``."""
    rng = as_rng(rng)
    _pos_int(d1=d1, d2=d2, H=H, nK=nK, nV=nV)
    _choice("source init", init, SOURCE_INITS)
    qk = nK ** 0.25
    return MHAWeights(_source_matrix(rng, (H, d1, nK), init, qk), _source_matrix(rng, (H, d1, nK), init, qk),
                      _source_matrix(rng, (H, d1, nV), init, 1.0), _source_matrix(rng, (H, nV, d2), init, 1.0))


def source_relu(rng, dims, init="theory") -> ReLUNet:
    """Source ReLU net, layer l mapping ``dims[l]`` to ``dims[l+1]``; for Theorem 10 pass
    ``(d_1, n_1, d_2, n_2, ..., n_L, d_{L+1})`` (2L layers)."""
    rng = as_rng(rng)
    shapes = _layer_shapes(dims)
    _choice("source init", init, SOURCE_INITS)
    # stored as (out, in): fan_in = dims[l], fan_out = dims[l+1]; Xavier's bound is symmetric in the two
    return ReLUNet(tuple(_source_matrix(rng, shape, init, 1.0) for shape in shapes))


def source_block(rng, d1, H, n_MHA, n_FC, L=2, init="theory") -> Block:
    """Source block of Theorem 11: MHA with ``n_K = n_V = n_MHA``, FC of 2L layers, hidden width ``n_FC``."""
    rng = as_rng(rng)
    _pos_int(L=L, n_FC=n_FC)
    return Block(source_mha(rng, d1, d1, H, n_MHA, n_MHA, init),
                 source_relu(rng, (d1,) + (n_FC, d1) * L, init))


def source_transformer(rng, B, d1, H, n_MHA, n_FC, L=2, init="theory") -> Transformer:
    """B source blocks; ``n_MHA``/``n_FC`` an int or one width per block (Theorem 14's widths vary with b)."""
    rng = as_rng(rng)
    _pos_int(B=B)
    widths = []
    for name, n in (("n_MHA", n_MHA), ("n_FC", n_FC)):
        n = (n,) * B if isinstance(n, numbers.Integral) else tuple(n)
        if len(n) != B:
            raise ValueError(f"{name} needs one width per block (B={B}), got {len(n)}")
        widths.append(n)
    return Transformer(tuple(source_block(rng, d1, H, a, f, L, init) for a, f in zip(*widths)))


# ----------------------------------------------------------------------------------------- inputs, masks

def inputs(rng, T, d1, alpha, sphere=False, batch=None):
    """Tokens ``X`` (T, d1) or (batch, T, d1) with ``||x_i|| <= alpha``: uniform in the ball of radius
    alpha, or uniform on its sphere (``||x_i|| = alpha``) when ``sphere``."""
    rng = as_rng(rng)
    _pos_int(T=T, d1=d1)
    if batch is not None:
        _pos_int(batch=batch)
    alpha = float(alpha)
    if not np.isfinite(alpha) or alpha <= 0:
        raise ValueError(f"alpha must be finite and positive, got {alpha}")
    shape = (T, d1) if batch is None else (batch, T, d1)
    g = rng.standard_normal(shape)
    g /= np.linalg.norm(g, axis=-1, keepdims=True)
    return alpha * g if sphere else alpha * g * rng.random(shape[:-1] + (1,)) ** (1.0 / d1)


def attention_mask(rng, T, kind="full", batch=None, p=0.5):
    """Bool attention masks (T, T) or (batch, T, T), row i = a_i: ``full`` (all ones), ``causal``
    (i attends to j <= i), ``random`` (each entry kept w.p. p, then one uniformly drawn position per row
    forced on, so every row keeps at least one position)."""
    rng = as_rng(rng)
    _pos_int(T=T)
    if batch is not None:
        _pos_int(batch=batch)
    _choice("mask kind", kind, MASK_KINDS)
    shape = (T, T) if batch is None else (batch, T, T)
    if kind == "full":
        return np.ones(shape, dtype=bool)
    if kind == "causal":
        return np.broadcast_to(np.tril(np.ones((T, T), dtype=bool)), shape).copy()
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"keep probability p must lie in [0, 1], got {p}")
    m = rng.random(shape) < p
    forced = rng.integers(0, T, size=shape[:-1])
    np.put_along_axis(m, forced[..., None], True, axis=-1)
    return m
