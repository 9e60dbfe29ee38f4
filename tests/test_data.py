"""slt.data: the angular-velocity task of Appendix B.1."""
import numpy as np
import pytest

from slt.data import angular_velocity, angular_velocity_lengths


@pytest.mark.parametrize("n, T", [(1, 1), (7, 4), (3, 257)])
def test_shapes_regression_token_and_unit_norms(n, T):
    X, omega = angular_velocity(n, T, 0)
    assert X.shape == (n, T + 1, 2) and omega.shape == (n,)
    assert X.dtype == np.float64
    assert np.all(X[:, 0] == 0.0)
    np.testing.assert_allclose(np.linalg.norm(X[:, 1:], axis=-1), 1.0, rtol=0, atol=1e-15)


def test_tokens_rotate_by_omega():
    X, omega = angular_velocity(50, 6, 3)
    angle = np.arctan2(X[:, 1:, 1], X[:, 1:, 0])
    step = np.angle(np.exp(1j * np.diff(angle, axis=1)))  # wrapped to (-pi, pi]
    np.testing.assert_allclose(step, np.broadcast_to(omega[:, None], step.shape), atol=1e-12)
    theta0 = np.mod(angle[:, 0] - omega, 2 * np.pi)
    assert np.all(theta0 <= np.pi + 1e-12)


def test_parameter_ranges_and_uniformity():
    from scipy import stats

    X, omega = angular_velocity(20_000, 2, 11)
    assert np.all((-np.pi <= omega) & (omega <= np.pi))
    theta0 = np.mod(np.arctan2(X[:, 1, 1], X[:, 1, 0]) - omega, 2 * np.pi)
    theta0[theta0 > 1.5 * np.pi] -= 2 * np.pi  # values within rounding below 0
    assert stats.kstest(omega, stats.uniform(-np.pi, 2 * np.pi).cdf).pvalue > 1e-3
    assert stats.kstest(theta0, stats.uniform(0, np.pi).cdf).pvalue > 1e-3


def test_seeded():
    a = angular_velocity(5, 8, 42)
    b = angular_velocity(5, 8, np.random.default_rng(42))
    c = angular_velocity(5, 8, 43)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])


@pytest.mark.parametrize("n, T, rng, word", [(0, 4, 0, "n"), (3, 0, 0, "T"), (2.5, 4, 0, "n"), (3, 4, None, "rng"),
                                             (3, 4, -1, "rng"), (True, 4, 0, "n")])
def test_bad_arguments(n, T, rng, word):
    with pytest.raises(ValueError, match=word):
        angular_velocity(n, T, rng)


def test_variable_lengths_padding():
    X, key_mask, omega = angular_velocity_lengths(200, 4, 9, 5)
    lengths = key_mask.sum(axis=1) - 1
    assert X.shape == (200, 10, 2) and key_mask.shape == (200, 10) and omega.shape == (200,)
    assert lengths.min() == 4 and lengths.max() == 9
    assert np.all(key_mask[:, 0])
    np.testing.assert_allclose(np.linalg.norm(X, axis=-1)[key_mask & (np.arange(10) > 0)], 1.0, atol=1e-15)
    assert np.all(X[~key_mask] == 0.0)
    with pytest.raises(ValueError, match="T_min"):
        angular_velocity_lengths(3, 9, 4, 0)
