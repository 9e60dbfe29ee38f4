"""Forward passes of slt.models against straightforward per-token loops and mpmath references."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slt import models, samplers
from slt.models import (Block, BlockMasks, MHAMasks, MHAWeights, ReLUNet, Transformer, block, masked_softmax, mha,
                        mha_merged, relu_net, transformer)

EPS = np.finfo(np.float64).eps


# ------------------------------------------------------------------------------------- loop references

def loop_softmax(z, a):
    kept = [j for j in range(len(z)) if a[j]]
    top = max(z[j] for j in kept)
    e = [math.exp(z[j] - top) if a[j] else 0.0 for j in range(len(z))]
    s = sum(e)
    return np.array([v / s for v in e])


def loop_mha(X, w, mask):
    """One token, one head at a time (the definition in docs/statements.md#objects, read literally)."""
    X = np.atleast_3d(X) if X.ndim == 3 else X[None]
    mask = np.broadcast_to(mask, (X.shape[0],) + mask.shape[-2:])
    out = np.zeros(X.shape[:2] + (w.d2,))
    for b in range(X.shape[0]):
        for i in range(X.shape[1]):
            for h in range(w.H):
                q = X[b, i] @ w.WQ[h]
                z = [w.scale * float(q @ (X[b, j] @ w.WK[h])) for j in range(X.shape[1])]
                p = loop_softmax(z, mask[b, i])
                out[b, i] += sum(p[j] * (X[b, j] @ w.WV[h] @ w.WO[h]) for j in range(X.shape[1]))
    return out


def loop_relu(x, layers):
    out = []
    for v in x:
        for l, W in enumerate(layers):
            v = np.array([sum(W[r, c] * v[c] for c in range(W.shape[1])) for r in range(W.shape[0])])
            if l < len(layers) - 1:
                v = np.array([max(t, 0.0) for t in v])
        out.append(v)
    return np.array(out)


def mp_softmax(z, a):
    """mpmath reference of σ(z; a) at 40 digits, from the exact float64 logits."""
    with mpmath.workdps(40):
        e = [mpmath.exp(mpmath.mpf(float(z[j]))) if a[j] else mpmath.mpf(0) for j in range(len(z))]
        s = mpmath.fsum(e)
        return [v / s for v in e]


def softmax_tolerance(z, a, ref):
    """Forward error of the float64 softmax: the shift z_j - max rounds (|z_j - max| eps), exp adds 1 ulp,
    the sum of T terms at most T eps relative; below the underflow threshold an absolute tiny term."""
    top = np.max(np.where(a, z, -np.inf))
    T = int(np.sum(a))
    rel = EPS * (np.abs(np.where(np.isfinite(z), z, top) - top) + T + 4)  # exp(-inf) = 0 exactly
    return rel * np.abs(np.array([float(r) for r in ref])) + 1e-300


# ----------------------------------------------------------------------------------------- softmax

@pytest.mark.parametrize("case", ["huge", "ties", "long", "mixed_inf"])
def test_masked_softmax_matches_mpmath(case):
    rng = np.random.default_rng(11)
    T = 4096 if case == "long" else 64
    if case == "huge":
        z = rng.uniform(-1e3, 1e3, T)
    elif case == "ties":
        z = 700.0 + rng.integers(-2, 3, T) * 1e-13
    elif case == "long":
        z = rng.normal(0, 30, T)
    else:
        z = rng.uniform(-1e3, 1e3, T)
        z[::3] = -np.inf
    a = rng.random(T) < 0.7
    a[np.argmax(np.isfinite(z))] = True
    p = masked_softmax(z, a)
    ref = mp_softmax(z, a)
    err = np.abs(p - np.array([float(r) for r in ref]))
    assert np.all(err <= softmax_tolerance(z, a, ref)), np.max(err)
    assert np.all(p[~a] == 0.0)
    assert abs(p.sum() - 1) <= T * EPS


def test_masked_softmax_matches_loop_and_broadcasts():
    rng = np.random.default_rng(0)
    z = rng.normal(0, 100, (3, 5, 9))
    a = samplers.attention_mask(rng, 9, "random", batch=3)[:, :5]
    p = masked_softmax(z, a)
    for idx in np.ndindex(3, 5):
        np.testing.assert_allclose(p[idx], loop_softmax(z[idx], a[idx]), rtol=1e-13, atol=1e-300)
    full = masked_softmax(z, np.ones(9, dtype=bool))  # mask broadcast over rows
    np.testing.assert_allclose(full, np.exp(z - z.max(-1, keepdims=True)) /
                               np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True), rtol=1e-13)


def test_masked_softmax_extremes():
    p = masked_softmax(np.array([1e308, -1e308, 5.0, 1e300]), np.array([True, True, False, True]))
    np.testing.assert_array_equal(p, [1.0, 0.0, 0.0, 0.0])
    p = masked_softmax(np.array([3.0, 3.0, 3.0]), np.array([True, False, True]))
    np.testing.assert_array_equal(p, [0.5, 0.0, 0.5])


@pytest.mark.parametrize("z, a, match", [
    (np.zeros((2, 3)), np.array([[True, False, False], [False, False, False]]), r"row \(1,\) keeps no position"),
    (np.array([0.0, np.nan]), np.array([True, True]), "NaN"),
    (np.array([0.0, np.inf]), np.array([True, True]), "inf"),
    (np.array([-np.inf, 1.0]), np.array([True, False]), "-inf at every kept position"),
    (np.zeros(3), np.array([1, 1, 1]), "dtype bool"),
    (np.zeros(3), np.ones(4, dtype=bool), "does not broadcast"),
])
def test_masked_softmax_bad_input(z, a, match):
    with pytest.raises(ValueError, match=match):
        masked_softmax(z, a)


# ---------------------------------------------------------------------------------------------- MHA

@pytest.mark.parametrize("kind", ["full", "causal", "random"])
def test_mha_matches_loop(kind):
    rng = np.random.default_rng(1)
    w = samplers.target_mha(rng, d1=3, d2=2, H=2, dK=4, dV=5)
    X = samplers.inputs(rng, 6, 3, alpha=2.0, batch=2)
    mask = samplers.attention_mask(rng, 6, kind, batch=2)
    out = mha(X, w, mask)
    assert out.shape == (2, 6, 2)
    np.testing.assert_allclose(out, loop_mha(X, w, mask), rtol=1e-12, atol=1e-14)
    # 2-D input and a (T, T) mask broadcast over a batch
    np.testing.assert_allclose(mha(X[1], w, mask[1]), out[1], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(mha(X, w, mask[0]), loop_mha(X, w, mask[0]), rtol=1e-12, atol=1e-14)


@given(H=st.integers(1, 3), d1=st.integers(1, 4), dK=st.integers(1, 4), dV=st.integers(1, 4),
       d2=st.integers(1, 4), T=st.integers(1, 6), batch=st.sampled_from([None, 2]),
       kind=st.sampled_from(["full", "causal", "random"]), init=st.sampled_from(["spectral", "paper"]),
       scale=st.sampled_from([1.0, 30.0]), seed=st.integers(0, 2**32 - 1))
def test_mha_matches_loop_on_drawn_shapes(H, d1, dK, dV, d2, T, batch, kind, init, scale, seed):
    rng = np.random.default_rng(seed)
    w = samplers.target_mha(rng, d1, d2, H=H, dK=dK, dV=dV, init=init)
    w = MHAWeights(w.WQ * scale, w.WK, w.WV, w.WO)  # scale 30: logits up to ~1e3
    X = samplers.inputs(rng, T, d1, alpha=np.sqrt(d1), batch=batch)
    mask = samplers.attention_mask(rng, T, kind, batch=batch)
    out = mha(X, w, mask)
    assert out.shape == X.shape[:-1] + (d2,)
    ref = loop_mha(X, w, mask).reshape(out.shape)
    vmax = sum(np.abs(X @ w.WV[h] @ w.WO[h]).max() for h in range(H))
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9 * vmax + 1e-300)


def test_mha_query_blocks_do_not_change_the_result(monkeypatch):
    rng = np.random.default_rng(12)
    w = samplers.target_mha(rng, 3, H=2)
    X = samplers.inputs(rng, 9, 3, alpha=2.0, batch=2)
    mask = samplers.attention_mask(rng, 9, "random", batch=2)
    whole = mha(X, w, mask)
    monkeypatch.setattr(models, "LOGITS_PER_CHUNK", 40)  # 2 query rows per block with batch 2, T = 9
    np.testing.assert_allclose(mha(X, w, mask), whole, rtol=1e-15, atol=1e-16)
    empty = mask.copy()
    empty[1, 7] = False
    with pytest.raises(ValueError, match=r"row \(1, 7\) keeps no position"):
        mha(X, w, empty)


def test_mha_equals_merged_form():
    rng = np.random.default_rng(2)
    w = samplers.source_mha(rng, d1=3, d2=4, H=3, nK=12, nV=9)
    assert w.scale == 1 / np.sqrt(12)
    X = samplers.inputs(rng, 10, 3, alpha=3.0, batch=4)
    mask = samplers.attention_mask(rng, 10, "random", batch=4)
    WQK, WVO = w.merged()
    np.testing.assert_allclose(mha(X, w, mask), mha_merged(X, WQK, WVO, mask), rtol=1e-12, atol=1e-13)


def test_mha_matches_mpmath_on_large_logits_and_long_sequences():
    """Logits ~1e3 (query/key scaled up) over T = 4096 tokens; mpmath evaluates three query tokens."""
    rng = np.random.default_rng(3)
    T, d = 4096, 2
    w = samplers.target_mha(rng, d1=d, d2=d, H=1, dK=2, init="paper")
    w = MHAWeights(w.WQ * 25, w.WK * 25, w.WV, w.WO)
    X = samplers.inputs(rng, T, d, alpha=4.0)
    mask = samplers.attention_mask(rng, T, "causal")
    out = mha(X, w, mask)
    for i in (0, 1000, T - 1):
        with mpmath.workdps(40):
            mp = lambda M: mpmath.matrix([[float(v) for v in row] for row in np.atleast_2d(M)])
            Xi = mp(X[: i + 1])
            q = mp(X[i]) * mp(w.WQ[0]) * mpmath.mpf(float(w.scale))
            K = Xi * mp(w.WK[0])
            z = [mpmath.fsum(q[0, k] * K[j, k] for k in range(w.dK)) for j in range(i + 1)]
            zmax = max(z)
            e = [mpmath.exp(v - zmax) for v in z]
            s = mpmath.fsum(e)
            V = Xi * mp(w.WV[0]) * mp(w.WO[0])
            ref = np.array([float(mpmath.fsum(e[j] * V[j, c] for j in range(i + 1)) / s) for c in range(d)])
            kappa = float(max(abs(v) for v in z))
        assert kappa > 300  # the case really has large logits
        # float64 logits carry ~ (d dK) eps kappa absolute error, turned into relative error of the weights;
        # plus T eps from the normalising sum and d eps from the values
        vmax = np.abs(X[: i + 1] @ w.WV[0] @ w.WO[0]).max()
        bound = EPS * (8 * d * w.dK * kappa + 2 * (i + 1) + 8 * d) * vmax
        assert np.all(np.abs(out[i] - ref) <= bound), (i, np.abs(out[i] - ref), bound)


def test_mha_bad_input():
    rng = np.random.default_rng(4)
    w = samplers.target_mha(rng, 3)
    X = samplers.inputs(rng, 5, 3, 1.0)
    full = np.ones((5, 5), dtype=bool)
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN at index \(2, 1\)"):
        mha(bad, w, full)
    bad[2, 1] = -np.inf
    with pytest.raises(ValueError, match="X contains inf"):
        mha(bad, w, full)
    with pytest.raises(ValueError, match="features"):
        mha(X[:, :2], w, full)
    with pytest.raises(ValueError, match="dtype bool"):
        mha(X, w, full.astype(int))
    with pytest.raises(ValueError, match=r"shape \(T, T\)"):
        mha(X, w, full[:4])
    with pytest.raises(ValueError, match="batch"):
        mha(np.stack([X, X]), w, np.ones((3, 5, 5), dtype=bool))
    empty = full.copy()
    empty[3] = False
    with pytest.raises(ValueError, match=r"row \(3,\) keeps no position"):
        mha(X, w, empty)
    with pytest.raises(ValueError, match="WK has shape"):
        MHAWeights(w.WQ, w.WK[:, :, :2], w.WV, w.WO)
    with pytest.raises(ValueError, match="WO has shape"):
        MHAWeights(w.WQ, w.WK, w.WV, w.WO[:, :2])
    with pytest.raises(ValueError, match="WV contains NaN"):
        MHAWeights(w.WQ, w.WK, w.WV * np.nan, w.WO)
    with pytest.raises(ValueError, match="scale"):
        MHAWeights(w.WQ, w.WK, w.WV, w.WO, scale=-1.0)
    with pytest.raises(ValueError, match="WQK must be"):
        mha_merged(X, np.zeros((1, 3, 2)), np.zeros((1, 3, 3)), full)


def test_pruned_mha_applies_masks():
    rng = np.random.default_rng(5)
    w = samplers.source_mha(rng, 2, 3, 2, 4, 6)
    m = MHAMasks(*(rng.random(getattr(w, "W" + k).shape) < 0.5 for k in "QKVO"))
    p = w.pruned(m)
    assert p.scale == w.scale
    for k in "QKVO":
        np.testing.assert_array_equal(getattr(p, "W" + k), np.where(getattr(m, "M" + k), getattr(w, "W" + k), 0))
    with pytest.raises(ValueError, match="MQ must have shape"):
        w.pruned(MHAMasks(m.MQ[:1], m.MK, m.MV, m.MO))
    with pytest.raises(ValueError, match="MV must have dtype bool"):
        w.pruned(MHAMasks(m.MQ, m.MK, m.MV.astype(float), m.MO))


# ------------------------------------------------------------------------------- ReLU, block, transformer

def test_relu_net_matches_loop_and_prunes():
    rng = np.random.default_rng(6)
    net = samplers.source_relu(rng, (3, 8, 2, 7, 4))
    x = rng.normal(size=(5, 3))
    np.testing.assert_allclose(relu_net(x, net), loop_relu(x, net.layers), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(relu_net(x[None], net.layers)[0], relu_net(x, net), rtol=0, atol=0)
    masks = [rng.random(W.shape) < 0.5 for W in net.layers]
    np.testing.assert_allclose(relu_net(x, net.pruned(masks)),
                               loop_relu(x, [W * M for W, M in zip(net.layers, masks)]), rtol=1e-13, atol=1e-15)
    with pytest.raises(ValueError, match="layer 1 has shape"):
        ReLUNet((np.ones((3, 2)), np.ones((2, 4))))
    with pytest.raises(ValueError, match="2 masks for 4 layers"):
        net.pruned(masks[:2])
    with pytest.raises(ValueError, match="must end in 3 features"):
        relu_net(x[:, :2], net)


def loop_block(X, blk, mask):
    Y = loop_mha(X, blk.mha, mask)[0] + X
    return loop_relu(Y, blk.fc.layers) + Y


def test_block_and_transformer_match_loop():
    rng = np.random.default_rng(7)
    tf = samplers.target_transformer(rng, B=3, d1=3, H=2, dK=2, dV=4, L=2)
    X = samplers.inputs(rng, 5, 3, alpha=np.sqrt(3))
    mask = samplers.attention_mask(rng, 5, "causal")
    np.testing.assert_allclose(block(X, tf.blocks[0], mask), loop_block(X, tf.blocks[0], mask), rtol=1e-12)
    ref = X
    for blk in tf.blocks:
        ref = loop_block(ref, blk, mask)
    np.testing.assert_allclose(transformer(X, tf, mask), ref, rtol=1e-11, atol=1e-13)
    batch = np.stack([X, -X])
    np.testing.assert_allclose(transformer(batch, tf, mask)[0], transformer(X, tf, mask), rtol=1e-14)
    src = samplers.source_transformer(rng, 2, 3, 2, 6, 9, L=1)
    masks = [BlockMasks(MHAMasks(*(rng.random(getattr(b.mha, "W" + k).shape) < 0.5 for k in "QKVO")),
                        tuple(rng.random(W.shape) < 0.5 for W in b.fc.layers)) for b in src.blocks]
    pruned = src.pruned(masks)
    ref = X
    for blk in pruned.blocks:
        ref = loop_block(ref, blk, mask)
    np.testing.assert_allclose(transformer(X, pruned, mask), ref, rtol=1e-11, atol=1e-13)


def test_block_residual_requires_square():
    rng = np.random.default_rng(8)
    with pytest.raises(ValueError, match="d2 = d1"):
        Block(samplers.target_mha(rng, 3, 2), samplers.target_relu(rng, (3, 3)))
    with pytest.raises(ValueError, match="FC net must map R\\^3 to R\\^3"):
        Block(samplers.target_mha(rng, 3), samplers.target_relu(rng, (3, 2)))
    with pytest.raises(ValueError, match="non-empty sequence of Block"):
        Transformer(())
