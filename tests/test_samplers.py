"""Samplers: norms, ranges, distributions (Kolmogorov-Smirnov at fixed seeds), masks, determinism, bad input."""
import numpy as np
import pytest
from scipy import stats

from slt import samplers


def spectral(W):
    return np.linalg.norm(W, ord=2, axis=(-2, -1))


def ks_uniform(x, bound):
    """Kolmogorov-Smirnov p-value of x against U[-bound, bound] (fixed seeds: deterministic)."""
    return stats.kstest(np.ravel(x), stats.uniform(-bound, 2 * bound).cdf).pvalue


def test_spectral_targets_have_norms_at_most_one():
    w = samplers.target_mha(0, d1=4, d2=3, H=50, dK=5, dV=6)
    norms = np.concatenate([spectral(getattr(w, k)) for k in ("WQ", "WK", "WV", "WO")])
    assert norms.max() <= 1 + 1e-14
    assert norms.min() < 0.05 and norms.max() > 0.95  # drawn over (0, 1], not pinned at 1
    assert stats.kstest(norms, "uniform").pvalue > 1e-3
    assert w.scale == 1 / np.sqrt(5)
    net = samplers.target_relu(1, (3, 4, 4, 2))
    assert max(spectral(W) for W in net.layers) <= 1 + 1e-14
    tf = samplers.target_transformer(2, B=3, d1=3, H=2, L=2)
    for b in tf.blocks:
        assert max(spectral(W) for W in b.fc.layers) <= 1 + 1e-14
        assert spectral(b.mha.WO).max() <= 1 + 1e-14
        assert len(b.fc.layers) == 2 and b.fc.d_in == b.fc.d_out == 3


def test_paper_target_initialisation():
    w = samplers.target_mha(3, d1=2, d2=2, H=1, dK=8, dV=2, init="paper")
    big = samplers.target_mha(3, d1=40, d2=40, H=4, dK=16, dV=40, init="paper")
    b = 16 ** 0.25
    assert np.abs(big.WQ).max() <= b and np.abs(big.WQ).max() > 0.99 * b
    assert ks_uniform(big.WQ, b) > 1e-3 and ks_uniform(big.WK, b) > 1e-3
    assert ks_uniform(big.WV, 1) > 1e-3 and ks_uniform(big.WO, 1) > 1e-3
    assert np.abs(w.WQ).max() <= 8 ** 0.25 and w.dK == 8 and w.scale == 1 / np.sqrt(8)
    net = samplers.target_relu(4, (30, 30, 30), init="paper")
    assert all(ks_uniform(W, 1) > 1e-3 for W in net.layers)


@pytest.mark.parametrize("init", ["theory", "xavier"])
def test_source_initialisations(init):
    d1, d2, H, nK, nV = 3, 2, 5, 64, 48
    w = samplers.source_mha(5, d1, d2, H, nK, nV, init=init)
    assert (w.WQ.shape, w.WV.shape, w.WO.shape) == ((H, d1, nK), (H, d1, nV), (H, nV, d2))
    assert w.scale == 1 / np.sqrt(nK)
    bound = {"theory": {"WQ": nK ** 0.25, "WK": nK ** 0.25, "WV": 1.0, "WO": 1.0},
             "xavier": {"WQ": np.sqrt(6 / (d1 + nK)), "WK": np.sqrt(6 / (d1 + nK)),
                        "WV": np.sqrt(6 / (d1 + nV)), "WO": np.sqrt(6 / (nV + d2))}}[init]
    for k, b in bound.items():
        W = getattr(w, k)
        assert np.abs(W).max() <= b and np.abs(W).max() > 0.95 * b, k
        assert ks_uniform(W, b) > 1e-3, k
    net = samplers.source_relu(6, (3, 40, 5, 40, 3), init=init)
    assert [W.shape for W in net.layers] == [(40, 3), (5, 40), (40, 5), (3, 40)]
    for W in net.layers:
        b = 1.0 if init == "theory" else np.sqrt(6 / sum(W.shape))
        assert np.abs(W).max() <= b and ks_uniform(W, b) > 1e-3


def test_source_block_and_transformer_shapes():
    blk = samplers.source_block(7, d1=2, H=2, n_MHA=10, n_FC=12, L=3)
    assert blk.mha.dK == blk.mha.dV == 10 and blk.mha.d2 == 2
    assert [W.shape for W in blk.fc.layers] == [(12, 2), (2, 12)] * 3
    tf = samplers.source_transformer(8, B=2, d1=2, H=1, n_MHA=(4, 6), n_FC=(8, 10), L=1)
    assert [b.mha.dK for b in tf.blocks] == [4, 6] and [b.fc.layers[0].shape[0] for b in tf.blocks] == [8, 10]
    with pytest.raises(ValueError, match="n_FC needs one width per block"):
        samplers.source_transformer(8, B=2, d1=2, H=1, n_MHA=4, n_FC=(8,))


def test_inputs_ball_and_sphere():
    alpha, d1 = 2.5, 3
    X = samplers.inputs(9, 4000, d1, alpha)
    r = np.linalg.norm(X, axis=-1)
    assert r.max() <= alpha * (1 + 1e-15)
    assert stats.kstest((r / alpha) ** d1, "uniform").pvalue > 1e-3  # uniform in the ball: (r/α)^d ~ U[0,1]
    u = X / r[:, None]
    assert np.abs(u.mean(0)).max() < 0.05  # isotropic directions
    S = samplers.inputs(9, 50, d1, alpha, sphere=True, batch=3)
    assert S.shape == (3, 50, d1)
    np.testing.assert_allclose(np.linalg.norm(S, axis=-1), alpha, rtol=1e-14)


def test_attention_masks():
    T = 7
    np.testing.assert_array_equal(samplers.attention_mask(0, T), np.ones((T, T), dtype=bool))
    c = samplers.attention_mask(0, T, "causal", batch=2)
    assert c.shape == (2, T, T) and c.flags.writeable
    np.testing.assert_array_equal(c[1], np.tril(np.ones((T, T), dtype=bool)))
    r = samplers.attention_mask(1, 50, "random", batch=20, p=0.3)
    assert r.dtype == np.bool_ and r.any(-1).all()
    assert abs(r.mean() - (0.3 + 0.7 / 50)) < 0.01
    sparse = samplers.attention_mask(2, 50, "random", batch=5, p=0.0)
    np.testing.assert_array_equal(sparse.sum(-1), 1)  # exactly the forced position


def test_determinism():
    a = samplers.source_mha(np.random.default_rng(3), 2, 2, 1, 8, 8)
    b = samplers.source_mha(3, 2, 2, 1, 8, 8)
    np.testing.assert_array_equal(a.WQ, b.WQ)
    np.testing.assert_array_equal(samplers.inputs(4, 5, 2, 1.0), samplers.inputs(4, 5, 2, 1.0))


@pytest.mark.parametrize("call, match", [
    (lambda: samplers.inputs(None, 3, 2, 1.0), "rng must be a numpy Generator or an int seed"),
    (lambda: samplers.inputs(0, 3, 2, -1.0), "alpha must be finite and positive"),
    (lambda: samplers.inputs(0, 3, 2, np.nan), "alpha must be finite and positive"),
    (lambda: samplers.inputs(0, 0, 2, 1.0), "T must be a positive integer"),
    (lambda: samplers.attention_mask(0, 3, "diagonal"), "mask kind must be one of"),
    (lambda: samplers.attention_mask(0, 3, "random", p=1.5), r"p must lie in \[0, 1\]"),
    (lambda: samplers.target_mha(0, 3, init="theory"), "target init must be one of"),
    (lambda: samplers.source_mha(0, 3, 3, 1, 4, 4, init="kaiming"), "source init must be one of"),
    (lambda: samplers.source_mha(0, 3, 3, 1, 2.5, 4), "nK must be a positive integer"),
    (lambda: samplers.target_relu(0, (3,)), "dims needs at least 2 entries"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
