"""Constructions of slt.construct: the proofs' block structure, the reported errors recomputed from the
masks, optimality per entry against brute force, and the pruned forward passes."""
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slt import construct, samplers
from slt.models import ReLUNet, Transformer, block, mha, mha_merged, relu_net, transformer

EPS = np.finfo(np.float64).eps


def brute_force_optimum(items, targets):
    """min over all 2^n' subsets of |t - Σ_S c|, per row (the test's own slow reference)."""
    n = items.shape[1]
    bits = np.array(list(itertools.product((0.0, 1.0), repeat=n)))
    return np.abs(targets[:, None] - items @ bits.T).min(axis=1)


def rounding(items, targets):
    """Slack for comparing two float64 evaluations of the same subset sum: (n' + 4) eps (|t| + Σ|c|)."""
    return (items.shape[-1] + 4) * EPS * (np.abs(targets) + np.abs(items).sum(axis=-1))


def block_diagonal(d1, n_prime):
    return np.kron(np.eye(d1, dtype=bool), np.ones((n_prime, 1), dtype=bool))


def lemma7_items(W, W1, W2, n_prime):
    """Items v_ijk u_jk of entry (i, j), written out with loops from docs/statements.md#lemma7."""
    d2, d1 = W.shape
    items = np.empty((d2, d1, n_prime))
    for i, j, k in itertools.product(range(d2), range(d1), range(n_prime)):
        items[i, j, k] = W2[i, j * n_prime + k] * W1[j * n_prime + k, j]
    return items


def uniform_pair(rng, d2, d1, n_prime):
    return rng.uniform(-1, 1, (d1 * n_prime, d1)), rng.uniform(-1, 1, (d2, d1 * n_prime))


# ------------------------------------------------------------------------------------------------ Lemma 7

def test_lemma7_structure_errors_and_optimality():
    rng = np.random.default_rng(0)
    d2, d1, n_prime = 3, 4, 10
    W = samplers.spectral_matrices(rng, (d2, d1))
    W1, W2 = uniform_pair(rng, d2, d1, n_prime)
    t = construct.lemma7(W, W1, W2)
    np.testing.assert_array_equal(t.M1, block_diagonal(d1, n_prime))
    assert t.M2.shape == (d2, d1 * n_prime) and t.M2.dtype == np.bool_
    np.testing.assert_array_equal(t.product, (W2 * t.M2) @ (W1 * t.M1))
    np.testing.assert_array_equal(t.errors, np.abs(W - t.product))
    assert t.max_error == np.abs(W - t.product).max()
    items = lemma7_items(W, W1, W2, n_prime)
    chosen = t.M2.reshape(d2, d1, n_prime)
    np.testing.assert_allclose((items * chosen).sum(-1), t.product, rtol=0, atol=rounding(items, W).max())
    best = brute_force_optimum(items.reshape(-1, n_prime), W.ravel()).reshape(d2, d1)
    assert np.all(np.abs(t.errors - best) <= rounding(items, W)), np.abs(t.errors - best).max()


@given(d1=st.integers(1, 3), d2=st.integers(1, 3), n_prime=st.integers(1, 9), seed=st.integers(0, 2**32 - 1),
       relu=st.booleans())
def test_drawn_shapes_are_optimal_per_entry(d1, d2, n_prime, seed, relu):
    """Lemma 7 and Lemma 2 on drawn shapes: block-diagonal M1 and the brute-force optimum in every entry."""
    rng = np.random.default_rng(seed)
    W = rng.uniform(-1, 1, (d2, d1))
    W1, W2 = uniform_pair(rng, d2, d1, n_prime)
    t = (construct.lemma2 if relu else construct.lemma7)(W, W1, W2)
    np.testing.assert_array_equal(t.M1, block_diagonal(d1, n_prime))
    if relu:
        rows = [sign_split_items(W, W1, W2, n_prime, positive) for positive in (True, False)]
        errors = t.errors.reshape(2, -1)
    else:
        rows = [lemma7_items(W, W1, W2, n_prime).reshape(-1, n_prime)]
        errors = t.errors.reshape(1, -1)
    for items, err in zip(rows, errors):
        assert np.all(np.abs(err - brute_force_optimum(items, W.ravel())) <= rounding(items, W.ravel()))


def test_lemma7_error_decreases_with_n_prime():
    rng = np.random.default_rng(1)
    means = []
    for n_prime in (2, 4, 8, 12, 16):
        errs = []
        for _ in range(10):
            W = samplers.spectral_matrices(rng, (2, 2))
            errs.append(construct.lemma7(W, *uniform_pair(rng, 2, 2, n_prime)).max_error)
        means.append(np.mean(errs))
    assert all(a > b for a, b in zip(means, means[1:])), means
    assert means[-1] < 1e-3 * means[0], means


def test_lemma7_tolerance_mode():
    rng = np.random.default_rng(2)
    W = rng.uniform(-1, 1, (3, 3))
    W1, W2 = uniform_pair(rng, 3, 3, 12)
    tol = 1e-3
    t = construct.lemma7(W, W1, W2, tol=tol)
    best = brute_force_optimum(lemma7_items(W, W1, W2, 12).reshape(-1, 12), W.ravel()).reshape(3, 3)
    assert np.all(t.errors <= np.maximum(tol, best) * (1 + 1e-12))


@pytest.mark.parametrize("shapes, match", [
    (((2, 3), (7, 3), (2, 7)), "Lemma 7: the hidden width n = 7 must be a positive multiple d1·n' of d1 = 3"),
    (((2, 3), (2, 3), (2, 2)), "multiple d1·n' of d1 = 3"),
    (((2, 3), (6, 2), (2, 6)), r"needs W1 \(n, 3\)"),
    (((2, 3), (6, 3), (3, 6)), r"W2 \(2, n\)"),
])
def test_lemma7_bad_shapes(shapes, match):
    W, W1, W2 = (np.zeros(s) for s in shapes)
    with pytest.raises(ValueError, match=match):
        construct.lemma7(W, W1, W2)


def test_lemma7_beyond_the_exact_window_needs_an_explicit_strategy():
    rng = np.random.default_rng(11)
    W = rng.uniform(-1, 1, (2, 2))
    W1, W2 = uniform_pair(rng, 2, 2, 44)
    with pytest.raises(ValueError, match="exceeds the exact path's maximum"):
        construct.lemma7(W, W1, W2)
    t = construct.lemma7(W, W1, W2, best_effort=True)  # solver option passed through
    np.testing.assert_array_equal(t.errors, np.abs(W - (W2 * t.M2) @ (W1 * t.M1)))
    assert t.max_error < 1e-9  # 2^44 subsets of products of U[-1,1]: the optimum is ~1e-13


def test_lemma7_bad_values():
    W1, W2 = np.zeros((6, 3)), np.zeros((2, 6))
    W = np.zeros((2, 3))
    W[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"Lemma 7 target contains NaN at index \(1, 2\)"):
        construct.lemma7(W, W1, W2)
    W1[0, 0] = np.inf
    with pytest.raises(ValueError, match="Lemma 7 W1 contains inf"):
        construct.lemma7(np.zeros((2, 3)), W1, W2)


# ---------------------------------------------------------------------------------- Lemma 2, Theorem 10

def sign_split_items(W, W1, W2, n_prime, positive):
    """Per entry (i, j): items v_ijk u_jk over the units k of block j with u_jk > 0 (resp. < 0)."""
    d2, d1 = W.shape
    rows = []
    for i, j in itertools.product(range(d2), range(d1)):
        u = W1[j * n_prime:(j + 1) * n_prime, j]
        ks = [k for k in range(n_prime) if (u[k] >= 0) == positive]
        rows.append([W2[i, j * n_prime + k] * u[k] for k in ks])
    width = max(len(r) for r in rows)
    return np.array([r + [0.0] * (width - len(r)) for r in rows])


def test_lemma2_sign_split():
    rng = np.random.default_rng(3)
    d2, d1, n_prime = 2, 3, 12
    W = samplers.spectral_matrices(rng, (d2, d1))
    W1, W2 = uniform_pair(rng, d2, d1, n_prime)
    W1[:n_prime, 0] = np.abs(W1[:n_prime, 0])  # block 0 has no ReLU(-x_0) carrier: B[:, 0] must be 0
    t = construct.lemma2(W, W1, W2)
    np.testing.assert_array_equal(t.M1, block_diagonal(d1, n_prime))
    x = rng.normal(size=(50, d1))
    net = ReLUNet((W1 * t.M1, W2 * t.M2))
    exact = np.maximum(x, 0) @ t.positive.T - np.maximum(-x, 0) @ t.negative.T
    np.testing.assert_allclose(relu_net(x, net), exact, rtol=1e-13, atol=1e-14)
    np.testing.assert_array_equal(t.errors, np.stack([np.abs(t.positive - W), np.abs(t.negative - W)]))
    np.testing.assert_array_equal(t.negative[:, 0], 0.0)
    # ||F_S(x) - W x||_∞ <= max_error ||x||_1 (the identity F_S - W = (A-W)ReLU(x) - (B-W)ReLU(-x))
    gap = np.abs(relu_net(x, net) - x @ W.T).max(axis=1)
    assert np.all(gap <= t.max_error * np.abs(x).sum(axis=1) * (1 + 1e-12))
    for s, positive in enumerate((True, False)):
        items = sign_split_items(W, W1, W2, n_prime, positive)
        best = brute_force_optimum(items, W.ravel()).reshape(d2, d1)
        slack = rounding(items, W.ravel()).reshape(d2, d1)
        assert np.all(np.abs(t.errors[s] - best) <= slack), (s, np.abs(t.errors[s] - best).max())


def test_relu_net_theorem10():
    rng = np.random.default_rng(4)
    target = samplers.target_relu(rng, (3, 2, 3))
    source = samplers.source_relu(rng, (3, 3 * 12, 2, 2 * 12, 3))
    t = construct.relu_net(target, source)
    assert len(t.masks) == 4 and len(t.layers) == 2
    for l, lt in enumerate(t.layers):
        alone = construct.lemma2(target.layers[l], source.layers[2 * l], source.layers[2 * l + 1])
        np.testing.assert_array_equal(lt.M2, alone.M2)
        assert t.max_errors[l] == alone.max_error
    for W, P, M in zip(source.layers, t.pruned.layers, t.masks):
        np.testing.assert_array_equal(P, W * M)
    # the pruned source is exactly the composition of the layers' x -> A ReLU(x) - B ReLU(-x)
    x = samplers.inputs(rng, 200, 3, 1.0)
    y = x
    for l, lt in enumerate(t.layers):
        y = np.maximum(y, 0) @ lt.positive.T - np.maximum(-y, 0) @ lt.negative.T
        y = np.maximum(y, 0) if l < len(t.layers) - 1 else y
    np.testing.assert_allclose(relu_net(x, t.pruned), y, rtol=1e-12, atol=1e-14)
    errs = [np.abs(relu_net(x, construct.relu_net(target, samplers.source_relu(rng, (3, 3 * k, 2, 2 * k, 3))).pruned)
                   - relu_net(x, target)).max() for k in (2, 6, 14)]
    assert errs[0] > errs[1] > errs[2], errs
    with pytest.raises(ValueError, match="Theorem 10, target layer 1: the hidden width n = 5"):
        construct.relu_net(target, ReLUNet(source.layers[:2] + (source.layers[2][:5], source.layers[3][:, :5])))
    with pytest.raises(ValueError, match="2L = 4 source layers for L = 2 target layers, got 3"):
        construct.relu_net(target, source.layers[:3])


# ---------------------------------------------------------------------------------------------- Theorem 9

def output_error_estimate(X, mask, target, t):
    """Elementary a-posteriori estimate of max_i ||Attn_S(x_i) - Attn_T(x_i)|| from the MEASURED ΔQK, ΔVO:
    per head, ||p' - p||_1 <= exp(2 max_j |x_i ΔQK x_j|) - 1 (softmax under a logit shift), so the head's
    error is <= ||p'-p||_1 max_j ||x_j W_VO|| + max_j ||x_j ΔVO||."""
    WQK, WVO = target.merged()
    total = 0.0
    for h in range(target.H):
        shift = np.abs(np.where(mask, X @ t.dQK[h] @ X.T, 0)).max()
        total += (np.expm1(2 * shift) * np.linalg.norm(X @ WVO[h], axis=1).max()
                  + np.linalg.norm(X @ t.dVO[h], axis=1).max())
    return total


@pytest.mark.parametrize("init", ["theory", "xavier"])
def test_mha_theorem9(init):
    rng = np.random.default_rng(5)
    d1, d2, H, n_prime = 2, 2, 2, 14
    target = samplers.target_mha(rng, d1, d2, H=H, dK=3, dV=4)
    source = samplers.source_mha(rng, d1, d2, H, d1 * n_prime, d1 * n_prime, init=init)
    t = construct.mha(target, source)
    for h in range(H):
        np.testing.assert_array_equal(t.masks.MK[h], block_diagonal(d1, n_prime).T)
        np.testing.assert_array_equal(t.masks.MV[h], block_diagonal(d1, n_prime).T)
    for k in "QKVO":
        np.testing.assert_array_equal(getattr(t.pruned, "W" + k), getattr(source, "W" + k) * getattr(t.masks, "M" + k))
    WQK, WVO = target.merged()
    for h in range(H):
        # the Lemma 7 products are the pruned source's merged matrices (up to the rounding of sqrt(scale)^2)
        np.testing.assert_allclose(t.qk[h].product, WQK[h] + t.dQK[h], rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(t.vo[h].product.T, WVO[h] + t.dVO[h], rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(t.qk_max_error[h], t.qk[h].max_error, rtol=1e-9, atol=1e-15)
        assert t.vo_max_error[h] == np.abs(t.dVO[h]).max()
    X = samplers.inputs(rng, 16, d1, alpha=np.sqrt(d1), batch=3)
    mask = samplers.attention_mask(rng, 16, "random", batch=3)
    out = mha(X, t.pruned, mask)
    np.testing.assert_allclose(out, mha_merged(X, WQK + t.dQK, WVO + t.dVO, mask), rtol=1e-12, atol=1e-14)
    if init == "theory":
        for b in range(3):
            assert np.linalg.norm(out[b] - mha(X[b], target, mask[b]), axis=-1).max() <= \
                output_error_estimate(X[b], mask[b], target, t) * (1 + 1e-9) + 1e-14


def test_mha_output_error_falls_with_width():
    rng = np.random.default_rng(6)
    target = samplers.target_mha(rng, 2, 2, H=1)
    X = samplers.inputs(rng, 32, 2, alpha=np.sqrt(2))
    errs = []
    for n_prime in (3, 8, 16):
        t = construct.mha(target, samplers.source_mha(rng, 2, 2, 1, 2 * n_prime, 2 * n_prime))
        errs.append(np.linalg.norm(mha(X, t.pruned) - mha(X, target), axis=-1).max())
    assert errs[0] > errs[1] > errs[2], errs


def test_mha_with_a_given_solver_uses_its_masks():
    """A replacement solver (e.g. slt.mip) gets every subset-sum row once, and its masks are what the ticket keeps."""
    from slt.subset_sum import solve

    rng = np.random.default_rng(8)
    target = samplers.target_mha(rng, 2, 2, H=2)
    source = samplers.source_mha(rng, 2, 2, 2, 2 * 6, 2 * 6)
    seen = []

    def empty_subsets(items, targets):
        seen.append(items.shape)
        return np.zeros(items.shape, dtype=bool)

    t = construct.mha(target, source, solver=empty_subsets)
    assert seen == [(2 * 2 * 2 * 2, 6)]  # H heads x (W_QK and W_VO^T) x d1 x d2 entries, one batched call
    assert not any(m.any() for m in (t.masks.MQ, t.masks.MO))
    np.testing.assert_array_equal(t.dQK, -target.merged()[0])
    exact = construct.mha(target, source, solver=lambda items, targets: solve(items, targets)[0])
    np.testing.assert_array_equal(exact.dQK, construct.mha(target, source).dQK)
    with pytest.raises(ValueError, match="apply to slt.subset_sum only"):
        construct.mha(target, source, tol=1e-3, solver=empty_subsets)


def test_mha_bad_input():
    rng = np.random.default_rng(7)
    target = samplers.target_mha(rng, 2, 2, H=2)
    with pytest.raises(ValueError, match="n_K = d1·n'; got n_K = 5"):
        construct.mha(target, samplers.source_mha(rng, 2, 2, 2, 5, 4))
    with pytest.raises(ValueError, match="n_V = d1·n'; got n_V = 3"):
        construct.mha(target, samplers.source_mha(rng, 2, 2, 2, 4, 3))
    with pytest.raises(ValueError, match="differ in H: 2 vs 1"):
        construct.mha(target, samplers.source_mha(rng, 2, 2, 1, 4, 4))
    with pytest.raises(ValueError, match="differ in d2"):
        construct.mha(target, samplers.source_mha(rng, 2, 3, 2, 4, 4))
    with pytest.raises(ValueError, match="as MHAWeights"):
        construct.mha(target, (target.WQ, target.WK, target.WV, target.WO))


# ---------------------------------------------------------------------------------- Theorems 11 and 14

def test_block_and_transformer():
    rng = np.random.default_rng(8)
    d1, n = 2, 20
    target = samplers.target_transformer(rng, B=2, d1=d1, H=1, L=2)
    source = samplers.source_transformer(rng, B=2, d1=d1, H=1, n_MHA=n, n_FC=n, L=2)
    t = construct.transformer(target, source)
    X = samplers.inputs(rng, 8, d1, alpha=np.sqrt(d1))
    mask = samplers.attention_mask(rng, 8, "causal")
    for b, bt in enumerate(t.blocks):
        alone = construct.block(target.blocks[b], source.blocks[b])
        for k in "QKVO":
            np.testing.assert_array_equal(getattr(bt.masks.mha, "M" + k), getattr(alone.masks.mha, "M" + k))
        for M, A in zip(bt.masks.fc, alone.masks.fc):
            np.testing.assert_array_equal(M, A)
        np.testing.assert_array_equal(bt.mha.dQK, construct.mha(target.blocks[b].mha, source.blocks[b].mha).dQK)
        np.testing.assert_array_equal(block(X, bt.pruned, mask), block(X, source.blocks[b].pruned(bt.masks), mask))
    np.testing.assert_array_equal(transformer(X, t.pruned, mask), transformer(X, source.pruned(t.masks), mask))


def test_block_and_transformer_error_falls_with_width():
    rng = np.random.default_rng(9)
    d1 = 2
    target = samplers.target_transformer(rng, B=2, d1=d1, H=2, L=2)
    X = samplers.inputs(rng, 8, d1, alpha=np.sqrt(d1), batch=2)
    block_errs, tf_errs = [], []
    for n in (6, 16, 36):
        t = construct.transformer(target, samplers.source_transformer(rng, 2, d1, 2, n, n, L=2))
        block_errs.append(np.linalg.norm(block(X, t.blocks[0].pruned) - block(X, target.blocks[0]), axis=-1).max())
        tf_errs.append(np.linalg.norm(transformer(X, t.pruned) - transformer(X, target), axis=-1).max())
    assert block_errs[0] > block_errs[1] > block_errs[2], block_errs
    assert tf_errs[0] > tf_errs[1] > tf_errs[2], tf_errs

def test_block_and_transformer_bad_input():
    rng = np.random.default_rng(10)
    target = samplers.target_transformer(rng, B=2, d1=2)
    source = samplers.source_transformer(rng, B=2, d1=2, H=1, n_MHA=4, n_FC=4)
    with pytest.raises(ValueError, match="target has 2 blocks, source 1"):
        construct.transformer(target, Transformer(source.blocks[:1]))
    with pytest.raises(ValueError, match="as Block"):
        construct.block(target.blocks[0], source)
