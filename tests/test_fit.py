"""slt.fit: exponential-decay fits eps = gamma exp(-delta n) with confidence intervals."""
import numpy as np
import pytest

from slt.fit import PAPER, fit_exponential, fit_shared_delta

N = np.arange(4, 101, 4, dtype=float)


def _noisy(gamma, delta, sigma, seed, n=N):
    rng = np.random.default_rng(seed)
    return gamma * np.exp(-delta * n) * np.exp(sigma * rng.standard_normal(np.shape(n)))


@pytest.mark.parametrize("space", ["log", "linear"])
def test_recovers_exact_curve(space):
    fit = fit_exponential(N, 0.8 * np.exp(-0.06 * N), space=space)
    assert fit.gamma == pytest.approx(0.8, rel=1e-8) and fit.delta == pytest.approx(0.06, rel=1e-8)
    np.testing.assert_allclose(fit(N), 0.8 * np.exp(-0.06 * N), rtol=1e-8)


def test_log_fit_interval_coverage():
    """95% intervals on log-normal noise (the log fit's model) cover the truth at a binomially plausible rate:
    400 fixed seeds; the coverage count must not be significantly below 95% (one-sided binomial test, 1e-3)."""
    from scipy import stats

    covered = np.zeros(2, dtype=int)
    trials = 400
    for seed in range(trials):
        fit = fit_exponential(N, _noisy(PAPER["gamma"], PAPER["delta"], 0.3, seed))
        covered += [fit.gamma_ci[0] <= 0.8 <= fit.gamma_ci[1], fit.delta_ci[0] <= 0.06 <= fit.delta_ci[1]]
    for k in covered:
        assert stats.binomtest(int(k), trials, 0.95, alternative="less").pvalue > 1e-3, covered
        assert stats.binomtest(int(k), trials, 0.95, alternative="greater").pvalue > 1e-3, covered


def test_floor_is_left_out():
    eps = np.maximum(0.8 * np.exp(-0.3 * N), 1e-12)
    fit = fit_exponential(N, eps, floor=1e-10)
    assert fit.delta == pytest.approx(0.3, rel=1e-8)
    assert max(fit.n_used) < N[eps <= 1e-10].min()
    with pytest.raises(ValueError, match="at least 3 points"):
        fit_exponential(N, eps, floor=1.0)


def test_shared_delta_per_block_gamma():
    gammas = [0.5, 1.5, 4.0]
    curves = [_noisy(g, 0.05, 0.05, seed) for seed, g in enumerate(gammas)]
    fits = fit_shared_delta(N, curves)
    assert [f.delta for f in fits] == [fits[0].delta] * 3
    assert fits[0].delta_ci[0] <= 0.05 <= fits[0].delta_ci[1]
    assert all(f.delta_fixed for f in fits[1:]) and not fits[0].delta_fixed
    for f, g in zip(fits, gammas):
        assert f.gamma == pytest.approx(g, rel=0.1)
    linear = fit_shared_delta(N, [g * np.exp(-0.05 * N) for g in gammas], space="linear")
    assert [f.gamma for f in linear] == pytest.approx(gammas, rel=1e-6)


@pytest.mark.parametrize("n, eps, word", [([1, 2, 3], [1, np.nan, 1], "finite"), ([1, 2], [1, 2, 3], "shape"),
                                          ([1, 2, 3], [1, -1, 1], "non-negative")])
def test_bad_input(n, eps, word):
    with pytest.raises(ValueError, match=word):
        fit_exponential(n, eps)
    with pytest.raises(ValueError, match="space"):
        fit_exponential(N, np.exp(-N), space="cubic")


def test_power_trend_recovers_exponents_and_flags_only_real_trends():
    from slt.fit import power_trend

    rng = np.random.default_rng(3)
    d1 = np.repeat([2.0, 4.0, 8.0, 16.0], 6)
    H = np.tile([1.0, 2.0, 4.0, 8.0, 1.0, 2.0], 4)
    logC = 0.2 + 0.5 * np.log(d1) + 0.0 * np.log(H) + 0.05 * rng.standard_normal(d1.size)
    fit = power_trend({"log d1": np.log(d1), "log H": np.log(H)}, logC)
    lo, hi = fit["coefficients"]["log d1"]["ci"]
    assert lo < 0.5 < hi and lo > 0  # a real trend: significant, and the interval covers the truth
    lo, hi = fit["coefficients"]["log H"]["ci"]
    assert lo < 0 < hi  # no trend: the interval contains 0


def test_power_trend_refuses_what_it_cannot_fit():
    from slt.fit import power_trend

    with pytest.raises(ValueError, match="more points than parameters"):
        power_trend({"a": [1.0, 2.0]}, [0.0, 1.0])
    with pytest.raises(ValueError, match="collinear"):
        power_trend({"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 4.0, 6.0, 8.0]}, [0.0, 1.0, 2.0, 2.5])
    with pytest.raises(ValueError, match="finite"):
        power_trend({"a": [1.0, 2.0, float("nan"), 4.0]}, [0.0, 1.0, 2.0, 2.5])
