"""The last layer alone (random features) and the other training modes of the core.

Independent routes: NumPy least squares on the augmented system for the ridge fit, a dense
solve for kernel ridge regression, the closed-form κ1 and a Monte-Carlo average of random
features for the infinite-width kernel, plain-loop gradient descent (frozen layers, mean-field
steps) and kernel gradient descent for the linear last layer.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from ntkviz.core.training._reference import (ref_kappa1, ref_kernel_gd, ref_kernel_ridge, ref_ntk_kappa,
                                             ref_output, ref_ridge_weights, ref_train)
from ntkviz.core.training.dynamics import (TrainConfig, infinite_width_kernel, make_flow, make_setup,
                                           student_output, train)
from ntkviz.core.training.random_features import (feature_matrix, fit_last_layer, kernel_ridge,
                                                  ridge_weights)


@pytest.mark.parametrize("m", [5, 12, 30])
@pytest.mark.parametrize("ridge", [0.0, 1e-8, 0.3])
def test_ridge_weights_match_least_squares(m, ridge):
    rng = np.random.default_rng(m)
    n = 12
    Phi = feature_matrix(rng.standard_normal((m, 4)), rng.standard_normal((n, 4)), 1 / math.sqrt(m))
    y = rng.standard_normal(n)
    np.testing.assert_allclose(ridge_weights(Phi, y, ridge), ref_ridge_weights(Phi, y, ridge),
                               rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("ridge", [1e-6, 0.5])
def test_kernel_ridge_matches_a_dense_solve(ridge):
    rng = np.random.default_rng(7)
    F = rng.standard_normal((15, 6))
    K_all = F @ F.T
    K, Kx = K_all[:9, :9], K_all[9:, :9]
    y = rng.standard_normal(9)
    train_pred, cross = kernel_ridge(K, Kx, y, ridge)
    np.testing.assert_allclose(cross, ref_kernel_ridge(K, Kx, y, ridge), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(train_pred, ref_kernel_ridge(K, K, y, ridge), rtol=1e-8, atol=1e-10)


def test_ridgeless_kernel_regression_is_the_flow_limit():
    """δ = 0 on a singular kernel: the ridgeless limit K_× K⁺ y that the kernel flow reaches."""
    rng = np.random.default_rng(8)
    F = rng.standard_normal((14, 5))  # rank 5 < 9 training inputs
    K, Kx = (F @ F.T)[:9, :9], (F @ F.T)[9:, :9]
    y = rng.standard_normal(9)
    _, cross = kernel_ridge(K, Kx, y, 0.0)
    _, flow = make_flow(K, y, Kx)(1e9)
    np.testing.assert_allclose(cross, flow, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("layers,expected", [
    ("all", lambda u: ref_ntk_kappa(u)), ("last", lambda u: ref_kappa1(u)),
    ("first", lambda u: u * (math.pi - np.arccos(np.clip(u, -1, 1))) / math.pi),
])
def test_infinite_width_kernel_closed_forms_and_monte_carlo(layers, expected):
    rng = np.random.default_rng(9)
    X = rng.standard_normal((6, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    u = np.clip(X @ X.T, -1, 1)
    np.testing.assert_allclose(infinite_width_kernel(X, X, 40, 0.5, layers), 0.5 * 40 * 0.25 * expected(u),
                               rtol=1e-12, atol=1e-14)
    # the empirical tangent kernel of the trained layers at m = 20000 (NTK scaling) is close
    wide = make_setup(TrainConfig(width=20000, samples=6, dim=3, seed=1, ntk_scaling=True, layers=layers))
    np.testing.assert_allclose(wide.K0, wide.ntk, atol=0.04)  # ~3 sd


def test_closed_form_last_layer_is_consistent():
    cfg = TrainConfig(width=40, samples=25, dim=5, seed=2, layers="last", init="centered",
                      ntk_scaling=True, noise=0.1)
    setup = make_setup(cfg)
    fit = fit_last_layer(setup, 1e-3)
    Phi = cfg.scale * np.maximum(setup.X_train @ setup.B0.T, 0.0)
    v = ref_ridge_weights(Phi, setup.y_train, 1e-3)
    np.testing.assert_allclose(fit.weights, v, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(fit.evaluation, cfg.scale * np.maximum(setup.X_eval @ setup.B0.T, 0) @ v,
                               rtol=1e-7, atol=1e-10)
    # the network with a = a0 + v/alpha predicts exactly Phi v (h = f - f(w0) is linear in a)
    alpha = 3.0
    net = alpha * (ref_output(setup.a0 + v / alpha, setup.B0, setup.X_train, cfg.scale)
                   - ref_output(setup.a0, setup.B0, setup.X_train, cfg.scale))
    np.testing.assert_allclose(fit.train, net, rtol=1e-9, atol=1e-12)
    K = cfg.scale**2 / 2 * cfg.width * ref_kappa1(setup.X_train @ setup.X_train.T)
    Kx = cfg.scale**2 / 2 * cfg.width * ref_kappa1(setup.X_eval @ setup.X_train.T)
    np.testing.assert_allclose(fit.kernel_evaluation, ref_kernel_ridge(K, Kx, setup.y_train, 1e-3),
                               rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="last"):
        fit_last_layer(make_setup(replace(cfg, layers="all")), 1e-3)


def test_random_features_tend_to_kernel_ridge_regression():
    """As m grows the ridge fit of the random features approaches kernel ridge regression with
    (m s²/2) κ1 on the same data (here at ridge 1e-2, m = 20000 vs m = 200)."""
    errors = []
    for m in (200, 20000):
        cfg = TrainConfig(width=m, samples=30, dim=4, seed=5, layers="last", init="centered",
                          ntk_scaling=True)
        fit = fit_last_layer(make_setup(cfg), 1e-2)
        errors.append(np.max(np.abs(fit.evaluation - fit.kernel_evaluation)))
    assert errors[1] < 0.2 * errors[0] and errors[1] < 0.02


@pytest.mark.parametrize("layers", ["last", "first"])
def test_frozen_layer_training_matches_reference(layers):
    cfg = TrainConfig(alpha=2.0, width=6, samples=5, dim=3, lr=0.05, steps=30, frames=2, log_time=False,
                      seed=6, layers=layers, init="centered", ntk_scaling=True)
    result = train(cfg)
    setup, last = result.setup, result.frames[-1]
    a, B, da, dB = ref_train(setup.a0, setup.B0, setup.X_train, setup.y_train, cfg.alpha, cfg.lr,
                             cfg.steps, cfg.scale, layers)
    np.testing.assert_array_equal(B == setup.B0, np.full(B.shape, layers == "last"))
    grid = setup.X_eval[setup.grid]
    net = cfg.alpha * (ref_output(a, B, grid, cfg.scale) - ref_output(setup.a0, setup.B0, grid, cfg.scale))
    np.testing.assert_allclose(last.net, net, rtol=1e-10, atol=1e-12)
    trained = np.concatenate([a - setup.a0]) if layers == "last" else (B - setup.B0).ravel()
    w0 = setup.a0 if layers == "last" else setup.B0.ravel()
    assert last.metrics["relative_displacement"] == pytest.approx(
        np.linalg.norm(trained) / np.linalg.norm(w0), rel=1e-10)
    if layers == "last":
        assert last.metrics["flip_share"] == 0.0 and last.metrics["kernel_drift"] == 0.0


def test_last_layer_gradient_descent_is_kernel_gradient_descent():
    """The last layer alone is linear: net = linearisation = kernel gradient descent with K0."""
    cfg = TrainConfig(alpha=5.0, width=30, samples=10, dim=3, lr=0.2, steps=400, frames=1, seed=7,
                      layers="last", init="centered", ntk_scaling=True)
    result = train(cfg)
    setup, last = result.setup, result.frames[-1]
    _, expected = ref_kernel_gd(setup.K0, setup.K0_eval, setup.y_train, cfg.lr, cfg.steps)
    np.testing.assert_allclose(last.net, expected[setup.grid], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(last.linear, last.net, rtol=1e-11, atol=1e-13)


def test_mean_field_steps_are_lr_times_m():
    cfg = TrainConfig(alpha=1.5, width=8, samples=5, dim=2, lr=0.01, steps=25, frames=1, seed=8,
                      mean_field=True)
    assert cfg.scale == 1 / 8 and cfg.step_size == pytest.approx(0.08)
    result = train(cfg)
    setup = result.setup
    a, B, _, _ = ref_train(setup.a0, setup.B0, setup.X_train, setup.y_train, cfg.alpha, 0.08, 25, 1 / 8)
    grid = setup.X_eval[setup.grid]
    np.testing.assert_allclose(result.frames[-1].net, cfg.alpha * ref_output(a, B, grid, 1 / 8),
                               rtol=1e-10, atol=1e-12)
    assert result.frames[-1].time == pytest.approx(0.01 * 25)  # the mean-field time
    with pytest.raises(ValueError, match="exclude"):
        TrainConfig(mean_field=True, ntk_scaling=True)


def test_noise_and_odd_widths():
    clean = make_setup(TrainConfig(width=9, samples=200, dim=3, seed=3, init="centered"))
    noisy = make_setup(TrainConfig(width=9, samples=200, dim=3, seed=3, init="centered", noise=0.5))
    np.testing.assert_array_equal(clean.X_train, noisy.X_train)  # noise has its own stream
    np.testing.assert_array_equal(clean.B0, noisy.B0)
    eps = (noisy.y_train - clean.y_train) / 0.5
    assert abs(eps.mean()) < 4 / math.sqrt(200) and abs(eps.std() - 1) < 0.15
    np.testing.assert_array_equal(clean.y_eval, noisy.y_eval)  # the test loss sees the teacher
    np.testing.assert_allclose(student_output(clean.a0, clean.B0, clean.X_train),
                               ref_output(clean.a0, clean.B0, clean.X_train), rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="even"):
        TrainConfig(width=9)


def test_double_descent_peak_at_the_interpolation_threshold():
    """Ridgeless-ish random features with label noise on S⁹: the test error at m = n is far above
    m = n/4 and m = 8n (a plain NumPy random-features model: ~100× at d = 10, n = 100)."""
    def test_loss(m, seed):
        setup = make_setup(TrainConfig(width=m, samples=100, dim=10, seed=seed, layers="last",
                                       init="centered", ntk_scaling=True, noise=0.1))
        fit = fit_last_layer(setup, 1e-8)
        return 0.5 * np.mean((fit.evaluation[setup.test] - setup.y_eval[setup.test]) ** 2)

    loss = {m: np.mean([test_loss(m, s) for s in range(3)]) for m in (25, 100, 800)}
    assert loss[100] >= 5 * max(loss[25], loss[800])
