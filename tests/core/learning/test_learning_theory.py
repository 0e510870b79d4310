"""Eigenlearning theory vs Monte-Carlo KRR and vs its limits (independent routes)."""
import numpy as np
import pytest

from ntkviz.core import KernelSpec, kernel_at_one, mercer_spectrum
from ntkviz.core.learning import Target, krr_trial, learning_theory, spectrum_weights
from ntkviz.jobs import LearningMonteCarloRequest, LearningTheoryRequest


def _theory(spec, p, target, ns, ridge, noise, kmax=600):
    sp = mercer_spectrum(spec, p, kmax)
    pr = target.projection(p, kmax)
    return learning_theory(sp, kernel_at_one(spec), pr.power, pr.tail_power, ns, ridge, noise)


def test_kappa_solves_the_equation():
    spec, p = KernelSpec("ntk", depth=3), 5
    sp = mercer_spectrum(spec, p, 400)
    th = _theory(spec, p, Target(), [10, 300, 10_000], 1e-2, 0.0, kmax=400)
    w, mu = spectrum_weights(sp)
    tail = kernel_at_one(spec) - w.sum()
    for n, kap in zip(th.n, th.effective_ridge):
        lhs = np.sum(w / (mu + kap)) + (tail + 1e-2) / kap
        assert lhs == pytest.approx(n, rel=1e-10)


@pytest.mark.parametrize("name,target,noise", [("arccos1", Target(), 0.1),
                                               ("ntk", Target(kind="ridge", threshold=0.2), 0.0)])
def test_theory_matches_monte_carlo(name, target, noise):
    spec = KernelSpec(name)
    req = LearningMonteCarloRequest((spec,), target, dim=3, ridge=1e-3, noise=noise, n_values=(200, 400),
                                    seeds=6, n_test=1000, kmax=600)
    mc = req()
    mean, sem = mc.mean_sem()
    th = LearningTheoryRequest((spec,), target, dim=3, ridge=1e-3, noise=noise, n_values=(200, 400),
                               kmax=600)().theories[0]
    for j in range(2):
        assert abs(mean[0, j] - th.test_mse[j]) < 4 * sem[0, j] + 0.03 * th.test_mse[j], (j, mean, sem, th.test_mse)
    # learned fraction per degree (Funk–Hecke projection of f̂) against L_k
    head, rows = mc.csv_table("learned_fraction")
    for _, n, k, frac in rows:
        if k <= 4:
            assert abs(frac - th.learnability[(200, 400).index(n), k]) < 0.1


def test_zero_eigenvalue_degree_never_learned():
    # the two-layer ReLU NTK has μ_k = 0 at odd k >= 3: a degree-3 target keeps its full power
    spec = KernelSpec("ntk")
    target = Target(components=((3, 2.0),))
    power = 4.0 / 7.0  # c²/N(3, 3)
    th = _theory(spec, 3, target, [10, 100, 1000, 10**4], 1e-3, 0.0)
    assert np.all(th.learnability[:, 3] == 0.0)
    # nothing of degree 3 is learned: error = E0 · power >= power at every n
    np.testing.assert_allclose(th.test_mse, th.e0 * power, rtol=1e-12)
    assert np.all(th.e0 > 1.0)
    mc = LearningMonteCarloRequest((spec,), target, dim=3, n_values=(300,), seeds=3, n_test=1000)()
    assert np.all(mc.test_mse >= 0.97 * power)
    np.testing.assert_allclose(mc.learned_fraction[0], 0.0, atol=1e-9)


def test_pure_noise_gives_e0_sigma_squared():
    spec, sigma = KernelSpec("arccos1"), 0.5
    target = Target(components=((1, 0.0),))
    th = _theory(spec, 3, target, [100, 300], 1e-2, sigma)
    np.testing.assert_allclose(th.test_mse, th.e0 * sigma ** 2, rtol=1e-12)
    # independent: Monte-Carlo error of fitting pure noise
    mc = LearningMonteCarloRequest((spec,), target, dim=3, ridge=1e-2, noise=sigma, n_values=(100, 300),
                                   seeds=12, n_test=1000)()
    mean, sem = mc.mean_sem()
    assert np.all(np.abs(mean[0] - th.test_mse) < 4 * sem[0] + 0.01)


def test_large_n_with_ridge_reaches_noise_floor():
    # δ > 0 fixed, n → ∞: κ → δ/n → 0, every degree with μ_k > 0 is learned, E0 → 1
    spec = KernelSpec("nngp", depth=3)
    th = _theory(spec, 3, Target(), [10**7], 1e-3, 0.2)
    assert th.test_mse[0] == pytest.approx(0.04, rel=1e-3)
    assert th.e0[0] == pytest.approx(1.0, abs=1e-3)


def test_ridgeless_interpolates():
    # δ → 0: the train error vanishes (theory) and KRR interpolates its noisy labels (Monte-Carlo)
    spec = KernelSpec("arccos1")
    th = _theory(spec, 3, Target(), [200], 1e-12, 0.3)
    assert th.train_mse[0] < 1e-12
    trial = krr_trial(spec, Target(), Target().directions(3, 0), Target().projection(3, 50),
                      mercer_spectrum(spec, 3, 50).mu, 200, 200, 1e-10, 0.3, 0)
    assert trial.train_mse < 1e-8


def test_analytic_tail_beats_a_plain_cut():
    # p = 3: the tail above kmax matters at 1e-3; the analytic trace tail makes kmax = 100
    # agree with kmax = 2000 far better than the cut-off sum itself does
    spec, target, ns = KernelSpec("ntk"), Target(kind="ridge", threshold=0.1), [100, 1000]
    ref = _theory(spec, 3, target, ns, 1e-3, 0.0, kmax=2000)
    low = _theory(spec, 3, target, ns, 1e-3, 0.0, kmax=100)
    sp, pr = mercer_spectrum(spec, 3, 100), target.projection(3, 100)
    cut = learning_theory(sp, spectrum_weights(sp)[0].sum(), pr.power, 0.0, ns, 1e-3, 0.0)
    ours_err = np.abs(low.test_mse - ref.test_mse)
    cut_err = np.abs(cut.test_mse - ref.test_mse)
    print(ours_err / ref.test_mse, cut_err / ref.test_mse)
    assert np.all(ours_err < 0.1 * cut_err)
    np.testing.assert_allclose(low.test_mse, ref.test_mse, rtol=5e-3)
