"""The angular-velocity estimation task of Section 4.1 and Appendix B.1.

A sequence of T two-dimensional tokens on the unit circle, ``x_t = (cos(omega t + theta0), sin(omega t + theta0))``
for ``t = 1..T``, with ``omega ~ U[-pi, pi]`` and ``theta0 ~ U[0, pi]``, preceded by a regression token (like
BERT's CLS token); the task is to predict ``omega`` at the regression token.

Appendix B.1 says the token is "initialised to zero" and shared by source and target. Two readings: a constant zero
vector (the default, ``token=None``), or a learned vector, initialised to zero, trained with the target
(``slt.train``, ``regression_token="learned"``) and then placed in row 0 of every source's and target's input
(``token=`` the learned vector).
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["angular_velocity", "angular_velocity_lengths"]


def _rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ValueError(f"rng must be a numpy Generator or a non-negative integer seed, got {rng!r}")


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _token(token) -> np.ndarray | None:
    if token is None:
        return None
    t = np.asarray(token, dtype=np.float64)
    if t.shape != (2,) or not np.all(np.isfinite(t)):
        raise ValueError(f"the regression token must be 2 finite numbers, got {token!r}")
    return t


def angular_velocity(n: int, T: int, rng, token=None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` sequences of length ``T`` (plus the regression token), float64.

    Returns ``inputs`` of shape ``(n, T + 1, 2)`` whose row 0 is the regression token (zero, or ``token``: the
    learned reading, see the module docstring) and whose rows
    ``1..T`` lie on the unit circle, and ``omega`` of shape ``(n,)`` (the regression targets). ``rng`` is a numpy
    Generator or an integer seed; the same seed gives the same data.
    """
    n, T = _positive_int("n", n), _positive_int("T", T)
    token = _token(token)
    gen = _rng(rng)
    omega = gen.uniform(-np.pi, np.pi, size=n)
    theta0 = gen.uniform(0.0, np.pi, size=n)
    phase = omega[:, None] * np.arange(1, T + 1)[None, :] + theta0[:, None]
    inputs = np.zeros((n, T + 1, 2))
    inputs[:, 1:, 0] = np.cos(phase)
    inputs[:, 1:, 1] = np.sin(phase)
    if token is not None:
        inputs[:, 0, :] = token
    return inputs, omega


def angular_velocity_lengths(n: int, T_min: int, T_max: int, rng, token=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` sequences of lengths drawn uniformly from ``T_min..T_max`` (the training set of Appendix B.1).

    Returns ``inputs`` of shape ``(n, T_max + 1, 2)`` padded with zeros after each sequence's last token,
    ``key_mask`` of shape ``(n, T_max + 1)`` (True on the regression token and the sequence's own tokens), and
    ``omega`` of shape ``(n,)``.
    """
    n, T_min, T_max = _positive_int("n", n), _positive_int("T_min", T_min), _positive_int("T_max", T_max)
    if T_min > T_max:
        raise ValueError(f"T_min must not exceed T_max, got T_min={T_min}, T_max={T_max}")
    gen = _rng(rng)
    lengths = gen.integers(T_min, T_max + 1, size=n)
    inputs, omega = angular_velocity(n, T_max, gen, token=token)
    key_mask = np.arange(T_max + 1)[None, :] <= lengths[:, None]
    inputs[~key_mask] = 0.0
    return inputs, key_mask, omega
