"""The target training of Figures 4-5 under both readings of Appendix B.1's regression token (``slt.train``)."""
from __future__ import annotations

import numpy as np
import pytest

from slt import train
from slt.data import angular_velocity, angular_velocity_lengths

SMALL = dict(n_train=96, n_val=32, T_min=4, T_max=12, batch=32, epochs=2)


def test_data_places_the_token_in_row_zero():
    X0, w0 = angular_velocity(4, 5, 3)
    X1, w1 = angular_velocity(4, 5, 3, token=[0.5, -0.25])
    assert np.all(X0[:, 0] == 0) and np.all(X1[:, 0] == [0.5, -0.25])
    np.testing.assert_array_equal(X0[:, 1:], X1[:, 1:])
    np.testing.assert_array_equal(w0, w1)
    X, mask, _ = angular_velocity_lengths(6, 2, 5, 1, token=[1.0, 2.0])
    assert np.all(X[:, 0] == [1.0, 2.0]) and mask[:, 0].all()
    for bad in ([1.0], [np.nan, 0.0], [[1.0, 2.0]]):
        with pytest.raises(ValueError, match="regression token"):
            angular_velocity(2, 3, 0, token=bad)


def test_unknown_reading_is_rejected():
    with pytest.raises(ValueError, match="regression_token"):
        train.mha_target(0, train=False, regression_token="random")


def test_untrained_target_records_a_zero_token_under_both_readings():
    for reading in train.TOKEN_READINGS:
        _, info = train.mha_target(0, train=False, regression_token=reading)
        assert info["regression_token"] == {"reading": reading, "vector": [0.0, 0.0]}


def test_learned_token_is_trained_and_opens_the_query_key_path():
    """With the zero token W_Q, W_K only decay (no gradient); with the learned token they receive gradients, the
    token leaves zero, and the zero reading is unchanged by the option's existence."""
    pytest.importorskip("torch", reason="PyTorch is the optional [torch] extra (pip install -e .[torch])")
    initial, _ = train.mha_target(0, train=False)
    steps = 2 * 3
    decay = (1 - train.RECIPE["lr"] * train.RECIPE["weight_decay"]) ** steps
    zero, info0 = train.train_mha(initial, 1, SMALL)
    assert info0["regression_token"] == {"reading": "zero", "vector": [0.0, 0.0]}
    np.testing.assert_allclose(zero.WQ, initial.WQ * decay, rtol=1e-12)
    learned, info1 = train.train_mha(initial, 1, dict(SMALL, regression_token="learned"))
    token = np.asarray(info1["regression_token"]["vector"])
    assert info1["regression_token"]["reading"] == "learned" and np.linalg.norm(token) > 1e-3
    assert not np.allclose(learned.WQ, initial.WQ * decay, rtol=1e-9)


def test_learned_token_target_is_cached_with_its_token(tmp_path, monkeypatch):
    pytest.importorskip("torch", reason="PyTorch is the optional [torch] extra (pip install -e .[torch])")
    import slt.train as t

    monkeypatch.setattr(t, "RECIPE", dict(t.RECIPE, **SMALL))
    w1, i1 = t.mha_target(0, cache_dir=tmp_path, regression_token="learned")
    w2, i2 = t.mha_target(0, cache_dir=tmp_path, regression_token="learned")
    _, i0 = t.mha_target(0, cache_dir=tmp_path, regression_token="zero")
    assert "cached" in i2 and i2["regression_token"] == i1["regression_token"]
    np.testing.assert_array_equal(w1.WQ, w2.WQ)
    assert i0["regression_token"]["vector"] == [0.0, 0.0]
    assert sorted(p.name for p in (tmp_path / "targets").iterdir()) == [
        "mha_target_seed0_dK8.npz", "mha_target_seed0_dK8_learned_token.npz"]


def test_learned_token_reaches_every_test_input_of_figures_4_and_5(monkeypatch):
    """The learned-token figures put the target's token in row 0 of the inputs of source and target alike."""
    import slt.train as t
    from slt import figures
    from slt.figures import targets

    real = t.mha_target

    def trained_token(seed, cache_dir=None, train=True, log=None, regression_token="zero"):
        weights, info = real(seed, train=False, regression_token=regression_token)
        return weights, dict(info, regression_token={"reading": regression_token, "vector": [0.3, -0.2]})

    monkeypatch.setattr(t, "mha_target", trained_token)
    for name in ("fig4-learned-token", "fig5-learned-token"):
        fig = figures.get(name)
        params, info = fig.target(fig.plan(True), None, True, None)
        assert params["token"] == [0.3, -0.2] and "learned-token" in info["tag"]
    zero_params, zero_info = figures.get("fig4").target(figures.get("fig4").plan(True), None, True, None)
    assert "token" not in zero_params and "learned-token" not in zero_info["tag"]
    X = targets.evaluation_inputs(4, 3, token=(0.3, -0.2))
    assert np.all(X[:, 0] == [0.3, -0.2]) and np.all(targets.evaluation_inputs(4, 3)[:, 0] == 0)
    fig = figures.get("fig4-learned-token")
    params, info = fig.target(fig.plan(True), None, True, None)
    task = next(task for task in fig.tasks(fig.plan(True), params, info) if task.params["n"] >= 20)
    with_token = task.function()(seed=task.seed, **task.params)
    without = task.function()(seed=task.seed, **dict(task.params, target=zero_params))
    assert with_token["err_reg"] != without["err_reg"]
