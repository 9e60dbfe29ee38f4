"""A small GPT-2-style decoder whose weights are never trained: edge-popup (Ramanujan et al., 2020) learns a score
per weight and keeps the top fraction (30%) of each weight matrix by score; the source's query and key weights are
multiplied by a scale ``s`` (the paper's Section 4.3, Figures 7 and 8).

Architecture (GPT-2, Radford et al. 2019): token and position embeddings, ``n_layer`` pre-LayerNorm blocks
(causal multi-head self-attention with logits divided by sqrt(n_K), then a 4x MLP with GELU), a final LayerNorm and
a language-model head tied to the token embedding. Choices the paper leaves open (*choice*, documented):

- every weight matrix carries a score and a mask: the token embedding (and with it the tied head), the position
  embedding, W_Q, W_K, W_V, the attention output projection and both MLP matrices; the mask keeps exactly
  ``round(keep * numel)`` entries of each matrix, the largest scores (ties broken by ``torch.topk``);
- no biases (GPT-2 initialises them to zero and they are not trained here, so they would stay zero);
  LayerNorm gains 1 and shifts 0, fixed;
- initialisation as GPT-2: every weight N(0, sigma^2) with GPT-2's sigma = ``init_std`` = 0.02 by default, the two
  residual projections (attention output, MLP output) N(0, (sigma / sqrt(2 n_layer))^2); scores as edge-popup's reference code, kaiming-uniform, U[-1/sqrt(fan_in),
  1/sqrt(fan_in)];
- the query/key scale ``s`` multiplies the (masked) query and key weights, so every attention logit is
  multiplied by ``s^2`` (``tests/test_gpt2.py`` checks this); ``s = n_K^{1/4}`` is the theory's scale.

Gradients reach the scores straight through the top-k selection: the mask's backward passes its incoming gradient
unchanged, so ``dL/dscore = dL/dW_eff * W`` (edge-popup's rule); the weights are buffers, not parameters.

PyTorch is the optional ``[torch]`` extra: this module imports it at the top, so import it only where torch is
known to be installed (``slt.train.torch_available``).
"""
from __future__ import annotations

import dataclasses
import math

import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["GPTConfig", "EdgePopupGPT", "TopKMask", "topk_mask"]

@dataclasses.dataclass(frozen=True)
class GPTConfig:
    vocab: int
    context: int = 64
    n_layer: int = 2
    d_model: int = 64
    n_head: int = 1
    keep: float = 0.3
    qk_scale: float = 1.0
    init_std: float = 0.02

    def __post_init__(self):
        for name in ("vocab", "context", "n_layer", "d_model", "n_head"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.d_model % self.n_head:
            raise ValueError(f"d_model ({self.d_model}) must be a multiple of n_head ({self.n_head})")
        if not 0.0 < self.keep <= 1.0:
            raise ValueError(f"keep must be in (0, 1], got {self.keep!r}")
        for name in ("qk_scale", "init_std"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a positive finite number, got {value!r}")

    @property
    def n_K(self) -> int:
        """Query/key dimension per head."""
        return self.d_model // self.n_head


class TopKMask(torch.autograd.Function):
    """Forward: 0/1 mask of the ``k`` largest scores. Backward: the gradient passes straight through."""

    @staticmethod
    def forward(ctx, scores, k):
        mask = torch.zeros_like(scores)
        idx = torch.topk(scores.reshape(-1), k, sorted=False).indices
        mask.view(-1)[idx] = 1.0
        return mask

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def kept(numel: int, keep: float) -> int:
    """How many entries of a matrix of ``numel`` entries the mask keeps: ``round(keep * numel)``, at least one."""
    return max(1, int(round(keep * numel)))


def topk_mask(scores: torch.Tensor, keep: float) -> torch.Tensor:
    return TopKMask.apply(scores, kept(scores.numel(), keep))


class Masked(nn.Module):
    """A fixed random weight (buffer) with a learned score per entry; ``weight()`` is ``W * mask(scores)``."""

    def __init__(self, shape, std, fan_in, keep, generator):
        super().__init__()
        self.register_buffer("w", torch.randn(shape, generator=generator, dtype=torch.float64) * std)
        bound = 1.0 / math.sqrt(fan_in)
        self.scores = nn.Parameter((torch.rand(shape, generator=generator, dtype=torch.float64) * 2 - 1) * bound)
        self.keep = keep

    def weight(self):
        return self.w * topk_mask(self.scores, self.keep)


class Block(nn.Module):
    def __init__(self, cfg: GPTConfig, gen):
        super().__init__()
        d, std, keep = cfg.d_model, cfg.init_std, cfg.keep
        proj_std = std / math.sqrt(2 * cfg.n_layer)
        self.cfg = cfg
        self.ln1 = nn.LayerNorm(d, elementwise_affine=False, dtype=torch.float64)
        self.ln2 = nn.LayerNorm(d, elementwise_affine=False, dtype=torch.float64)
        self.q, self.k, self.v = (Masked((d, d), std, d, keep, gen) for _ in range(3))  # drawn in this order
        self.o = Masked((d, d), proj_std, d, keep, gen)
        self.fc = Masked((d, 4 * d), std, d, keep, gen)
        self.proj = Masked((4 * d, d), proj_std, 4 * d, keep, gen)

    def logits(self, h):
        """Attention logits ``(batch, heads, T, T)`` before the causal mask, from the block's normalised input."""
        cfg, (b, T, d) = self.cfg, h.shape
        s = cfg.qk_scale
        q = (h @ (s * self.q.weight())).view(b, T, cfg.n_head, cfg.n_K).transpose(1, 2)
        k = (h @ (s * self.k.weight())).view(b, T, cfg.n_head, cfg.n_K).transpose(1, 2)
        return (q @ k.transpose(-2, -1)) / math.sqrt(cfg.n_K)

    def forward(self, x):
        cfg, (b, T, d) = self.cfg, x.shape
        h = self.ln1(x)
        att = self.logits(h)
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        att = torch.softmax(att.masked_fill(~causal, float("-inf")), dim=-1)
        v = (h @ self.v.weight()).view(b, T, cfg.n_head, cfg.n_K).transpose(1, 2)
        y = (att @ v).transpose(1, 2).reshape(b, T, d)
        x = x + y @ self.o.weight()
        return x + F.gelu(self.ln2(x) @ self.fc.weight()) @ self.proj.weight()


class EdgePopupGPT(nn.Module):
    """GPT-2-style decoder with edge-popup masks; the only parameters are the scores."""

    def __init__(self, cfg: GPTConfig, seed: int):
        super().__init__()
        self.cfg = cfg
        gen = torch.Generator().manual_seed(int(seed))
        d = cfg.d_model
        self.wte = Masked((cfg.vocab, d), cfg.init_std, d, cfg.keep, gen)
        self.wpe = Masked((cfg.context, d), cfg.init_std, d, cfg.keep, gen)
        self.blocks = nn.ModuleList(Block(cfg, gen) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(d, elementwise_affine=False, dtype=torch.float64)

    def masked_modules(self):
        return [m for m in self.modules() if isinstance(m, Masked)]

    def forward(self, idx):
        T = idx.shape[1]
        if T > self.cfg.context:
            raise ValueError(f"sequence length {T} exceeds the context {self.cfg.context}")
        wte = self.wte.weight()
        x = F.embedding(idx, wte) + self.wpe.weight()[:T]
        for blk in self.blocks:
            x = blk(x)
        return self.ln_f(x) @ wte.T

    def loss(self, idx, targets):
        logits = self.forward(idx)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
