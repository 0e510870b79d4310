"""Lazy-training core (ntkviz.core.training.dynamics): exactness, independent routes, and the
claims of Chizat, Oyallon & Bach (2019) as measured laws (log–log slopes, limits).

Reference routes: the plain-loop NumPy reference (explicit Jacobians), central finite
differences, scipy's matrix exponential, the closed-form two-layer ReLU NTK κ and a
Monte-Carlo average of wide random networks.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg

from ntkviz.core.training import dynamics as dyn
from ntkviz.core.training._reference import (finite_difference_gradient, ref_gradient, ref_jacobian,
                                             ref_kernel_gd, ref_ntk_kappa, ref_objective, ref_output,
                                             ref_tangent_kernel, ref_train)
from ntkviz.core.training.dynamics import TrainConfig, make_flow, make_setup, train, train_frames

ALPHAS = np.geomspace(10.0, 1000.0, 5)
PAPER = dict(width=20, samples=15, teacher=3, dim=2)  # Chizat et al. Fig. 1 (a, b)


def slope(x, y) -> float:
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def random_weights(rng, m, d):
    return rng.standard_normal(m), rng.standard_normal((m, d))


# ------------------------------------------------------------------- exactness, validation
@pytest.mark.parametrize("dim,width,seed", [(2, 20, 0), (5, 64, 3), (100, 50, 7)])
def test_symmetrised_init_gives_exactly_zero_output(dim, width, seed):
    setup = make_setup(TrainConfig(width=width, dim=dim, seed=seed, samples=30))
    assert np.all(setup.f0_train == 0.0) and np.all(setup.f0_eval == 0.0)
    # pairs really are (b, −a) copies, with N(0, 1) halves
    half = width // 2
    np.testing.assert_array_equal(setup.B0[:half], setup.B0[half:])
    np.testing.assert_array_equal(setup.a0[:half], -setup.a0[half:])
    first = train(TrainConfig(width=width, dim=dim, seed=seed, samples=30, steps=1, frames=1))
    assert np.all(first.frames[0].net == 0.0)


def test_centered_init_is_centred():
    setup = make_setup(TrainConfig(init="centered", seed=2))
    assert np.abs(setup.f0_train).max() > 0.1  # i.i.d. weights: f(w0) != 0 ...
    first = train(TrainConfig(init="centered", seed=2, steps=1, frames=1)).frames[0]
    assert np.all(first.net == 0.0)  # ... but alpha h(w0) = alpha (f - f(w0)) = 0


@pytest.mark.parametrize("field,value,match", [
    ("width", 7, "width must be even"), ("width", 0, "width"), ("alpha", 0.0, "alpha"),
    ("alpha", float("nan"), "alpha"), ("lr", 0.0, "lr"), ("dim", 1, "dim"), ("dim", 101, "dim"),
    ("samples", 0, "samples"), ("steps", 0, "steps"), ("init", "zero", "init"),
])
def test_bad_config_names_the_field(field, value, match):
    with pytest.raises(ValueError, match=match):
        TrainConfig(**{field: value})


def test_frame_steps_are_sorted_and_cover_the_run():
    for log_time in (True, False):
        steps = TrainConfig(steps=1000, frames=50, log_time=log_time).frame_steps()
        assert steps[0] == 0 and steps[-1] == 1000
        assert np.all(np.diff(steps) > 0) and len(steps) <= 52


def test_alpha_tau_relation():
    assert dyn.tau_from_alpha(0.01) == pytest.approx(0.1)
    assert dyn.alpha_from_tau(2.0) == 4.0
    # 2-homogeneity behind alpha = tau^2: alpha f(w) = f(sqrt(alpha) w)
    rng = np.random.default_rng(0)
    a, B = random_weights(rng, 10, 3)
    X = rng.standard_normal((7, 3))
    np.testing.assert_allclose(9.0 * dyn.student_output(a, B, X), dyn.student_output(3 * a, 3 * B, X),
                               rtol=1e-13)


# --------------------------------------------------------------- numba against reference
def test_forward_linearisation_and_kernel_match_reference():
    rng = np.random.default_rng(1)
    m, d, s = 12, 3, 0.4
    a, B = random_weights(rng, m, d)
    da, dB = random_weights(rng, m, d)
    X1, X2 = rng.standard_normal((9, d)), rng.standard_normal((4, d))
    np.testing.assert_allclose(dyn.student_output(a, B, X1, s), ref_output(a, B, X1, s), rtol=1e-12,
                               atol=1e-14)
    delta = np.concatenate([da, dB.ravel()])
    np.testing.assert_allclose(dyn.linearized_output(a, B, da, dB, X1, s),
                               ref_jacobian(a, B, X1, s) @ delta, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dyn.tangent_kernel(a, B, X1, X2, s),
                               ref_tangent_kernel(a, B, X1, X2, s), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("alpha,scale", [(1.0, 1.0), (0.05, 1.0), (30.0, 1 / math.sqrt(8))])
def test_gradient_matches_reference_and_finite_differences(alpha, scale):
    rng = np.random.default_rng(2)
    m, d, n = 8, 2, 6
    a, B = random_weights(rng, m, d)
    X = rng.standard_normal((n, d))
    y = rng.standard_normal(n)
    f0 = rng.standard_normal(n) * 0.1
    value, ga, gB = dyn.objective_and_gradient(a, B, X, y, alpha, scale, f0)
    assert value == pytest.approx(ref_objective(a, B, X, y, alpha, scale, f0), rel=1e-12)
    ra, rB = ref_gradient(a, B, X, y, alpha, scale, f0)
    np.testing.assert_allclose(ga, ra, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(gB, rB, rtol=1e-11, atol=1e-13)

    def objective(flat):
        return dyn.objective_and_gradient(flat[:m], flat[m:].reshape(m, d), X, y, alpha, scale, f0)[0]

    fd = finite_difference_gradient(objective, np.concatenate([a, B.ravel()]), eps=1e-6)
    np.testing.assert_allclose(np.concatenate([ga, gB.ravel()]), fd, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("init,ntk_scaling,alpha", [("symmetric", False, 3.0),
                                                    ("centered", True, 0.5)])
def test_training_matches_reference_gradient_descent(init, ntk_scaling, alpha):
    cfg = TrainConfig(alpha=alpha, width=6, samples=5, dim=3, lr=0.02, steps=40, frames=3,
                      log_time=False, init=init, ntk_scaling=ntk_scaling, seed=4)
    result = train(cfg)
    setup, last = result.setup, result.frames[-1]
    s = cfg.scale
    a, B, da, dB = ref_train(setup.a0, setup.B0, setup.X_train, setup.y_train, alpha, cfg.lr,
                             cfg.steps, s)
    Xg = setup.X_eval[setup.grid]
    net = alpha * (ref_output(a, B, Xg, s) - ref_output(setup.a0, setup.B0, Xg, s))
    lin = alpha * ref_jacobian(setup.a0, setup.B0, Xg, s) @ np.concatenate([da, dB.ravel()])
    np.testing.assert_allclose(last.net, net, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(last.linear, lin, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(last.neurons, (alpha * s * np.abs(a))[:, None] * B[:, :2], rtol=1e-10)
    disp = math.sqrt(np.sum((a - setup.a0) ** 2) + np.sum((B - setup.B0) ** 2))
    assert last.metrics["displacement"] == pytest.approx(disp, rel=1e-10)


# ------------------------------------------------------------------------- kernel flows
def test_make_flow_against_matrix_exponential_and_kernel_regression():
    rng = np.random.default_rng(3)
    n, n_cross = 7, 5
    F = rng.standard_normal((n + n_cross, 4))
    K_all = F @ F.T + 0.1 * np.eye(n + n_cross)  # a PSD kernel on train + cross inputs
    K, Kx = K_all[:n, :n], K_all[n:, :n]
    y = rng.standard_normal(n)
    predict = make_flow(K, y, Kx)
    t = 3.7
    expected = y - scipy.linalg.expm(-t / n * K) @ y  # u' = -(1/n) K (u - y), u(0) = 0
    u, ux = predict(t)
    np.testing.assert_allclose(u, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ux, Kx @ np.linalg.solve(K, expected), rtol=1e-9, atol=1e-12)
    u_inf, ux_inf = predict(1e9)  # t -> infinity: kernel regression (interpolation)
    np.testing.assert_allclose(u_inf, y, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(ux_inf, Kx @ np.linalg.solve(K, y), rtol=1e-8, atol=1e-10)
    lr = 0.05
    u_gd, ux_gd = make_flow(K, y, Kx, lr=lr)(lr * 40)
    ref_u, ref_ux = ref_kernel_gd(K, Kx, y, lr, 40)
    np.testing.assert_allclose(u_gd, ref_u, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ux_gd, ref_ux, rtol=1e-10, atol=1e-12)


def test_linearised_net_is_kernel_gradient_descent_and_alpha_free():
    kw = dict(PAPER, lr=0.05, steps=300, frames=4, log_time=False)
    results = [train(TrainConfig(alpha=alpha, **kw)) for alpha in (0.3, 7.0, 500.0)]
    setup = results[0].setup
    steps = results[0].steps[-1]
    _, expected = ref_kernel_gd(setup.K0, setup.K0_eval, setup.y_train, kw["lr"], int(steps))
    for res in results:
        np.testing.assert_allclose(res.frames[-1].linear, expected[setup.grid], rtol=1e-8, atol=1e-10)


def test_infinite_width_ntk_is_kappa_and_the_mean_of_wide_nets():
    cfg = TrainConfig(width=40, samples=12, dim=3, ntk_scaling=True, seed=5)
    setup = make_setup(cfg)
    u = setup.X_train @ setup.X_train.T
    np.testing.assert_allclose(setup.ntk, 0.5 * ref_ntk_kappa(u), rtol=1e-12, atol=1e-14)
    # Monte-Carlo: the empirical tangent kernel of a wide net at init averages to it
    wide = make_setup(TrainConfig(width=20000, samples=12, dim=3, ntk_scaling=True, seed=5))
    np.testing.assert_allclose(wide.K0, wide.ntk, atol=0.04)  # ~3 sd at m = 20000
    paper = make_setup(TrainConfig(width=40, samples=12, dim=3, seed=5))
    np.testing.assert_allclose(paper.ntk, 40 * setup.ntk, rtol=1e-12)  # m s^2 / 2 with s = 1


# ------------------------------------------------------------------ the verified claims
def _final_metrics(cfg_kw, alphas, setup=None):
    rows = []
    for alpha in alphas:
        res = train(TrainConfig(alpha=float(alpha), **cfg_kw), setup)
        assert not res.diverged, res.message
        setup = res.setup
        rows.append(res.frames[-1].metrics)
    return rows


@pytest.mark.parametrize("init", ["symmetric", "centered"])
def test_displacement_scales_like_one_over_alpha(init):
    kw = dict(PAPER, init=init, steps=1500, frames=3, lr=0.05, seed=1)
    rows = _final_metrics(kw, ALPHAS)
    disp = [r["displacement"] for r in rows]
    assert slope(ALPHAS, disp) == pytest.approx(-1.0, abs=0.15)
    # alpha ||w - w0|| flattens to an alpha-independent value (Chizat et al. Thm 2.2: O(1/alpha))
    assert np.ptp(ALPHAS * disp) / np.mean(ALPHAS * disp) < 0.1


def test_gap_scales_like_one_over_alpha_with_centred_model():
    """Thm 2.2's O(1/α) net–linearised gap, attained by the centred i.i.d. initialisation."""
    kw = dict(PAPER, init="centered", steps=1500, frames=3, lr=0.05, seed=0)
    rows = _final_metrics(kw, ALPHAS)
    assert all(r["flip_share"] == 0.0 for r in rows)  # the smooth regime the theorem assumes
    assert slope(ALPHAS, [r["train_gap"] for r in rows]) == pytest.approx(-1.0, abs=0.15)


def test_symmetrised_gap_decays_at_least_like_one_over_alpha():
    """Pairs (b, a), (b, −a) cancel the second-order term: the gap is o(1/α) (≈ 1/α²)."""
    kw = dict(PAPER, steps=1500, frames=3, lr=0.05, seed=0)
    rows = _final_metrics(kw, ALPHAS)
    assert all(r["flip_share"] == 0.0 for r in rows)
    assert slope(ALPHAS, [r["train_gap"] for r in rows]) < -1.0 + 0.15


def test_kernel_drift_vanishes_as_alpha_grows():
    kw = dict(PAPER, steps=1500, frames=3, lr=0.05, seed=2)
    alphas = np.geomspace(0.1, 1000.0, 5)
    drift = np.array([r["kernel_drift"] for r in _final_metrics(kw, alphas)])
    assert np.all(np.diff(drift) < 0)
    assert drift[-1] < 1e-3 * drift[0] and drift[-1] < 1e-4
    flips = [r["flip_share"] for r in _final_metrics(kw, alphas[[0, -1]])]
    assert flips[0] > 0 and flips[-1] == 0


def test_large_alpha_net_matches_kernel_regression_with_initial_tangent_kernel():
    cfg = TrainConfig(alpha=1000.0, lr=0.02, steps=4000, frames=2, **PAPER)
    res = train(cfg)
    setup, last = res.setup, res.frames[-1]
    scale = np.sqrt(np.mean(last.net**2))
    _, gd = ref_kernel_gd(setup.K0, setup.K0_eval, setup.y_train, cfg.lr, cfg.steps)
    lazy_error = np.sqrt(np.mean((last.net - gd[setup.grid]) ** 2))
    assert lazy_error < 1e-3 * scale
    # the closed-form flow at t = lr * steps: same up to the O(lr) time discretisation
    assert np.sqrt(np.mean((last.net - last.kernel) ** 2)) < 2e-2 * scale
    # small alpha (feature learning) ends elsewhere than kernel regression with K0
    small = train(TrainConfig(alpha=0.01, lr=cfg.lr / 4, steps=4 * cfg.steps, frames=2, **PAPER))
    _, gd_small = ref_kernel_gd(setup.K0, setup.K0_eval, setup.y_train, cfg.lr / 4, 4 * cfg.steps)
    assert np.sqrt(np.mean((small.frames[-1].net - gd_small[setup.grid]) ** 2)) > 20 * lazy_error


def _teacher_alignment(setup, frame) -> float:
    """Mass-weighted mean cosine between each neuron p_j and the nearest teacher direction with
    the same output sign."""
    P, signs = frame.neurons, frame.signs
    norms = np.linalg.norm(P, axis=1)
    cos = (P / norms[:, None]) @ setup.teacher_B[:, :2].T
    best = np.where(signs[:, None] == setup.teacher_a[None, :], cos, -1.0).max(axis=1)
    return float(np.sum(norms * best) / np.sum(norms))


def test_small_alpha_neurons_travel_to_the_teacher_and_large_alpha_ones_stay():
    """τ = 0.1 (α = 0.01), paper set-up: O(1) moves toward the teacher neurons; α = 100 lazy."""
    before, after, lazy_change = [], [], []
    for seed in range(5):
        kw = dict(PAPER, lr=0.005, steps=10000, frames=2, seed=seed)
        res = train(TrainConfig(alpha=0.01, **kw))
        setup, first, last = res.setup, res.frames[0], res.frames[-1]
        assert not res.diverged and last.metrics["train_loss"] < 1e-3 * setup.initial_loss
        assert np.linalg.norm(first.neurons, axis=1).max() < 0.1  # starts near 0 (τ² scale) ...
        assert np.linalg.norm(last.neurons - first.neurons, axis=1).max() > 0.4  # ... moves O(1)
        assert last.metrics["relative_displacement"] > 1.0
        before.append(_teacher_alignment(setup, first))
        after.append(_teacher_alignment(setup, last))
        lazy = train(TrainConfig(alpha=100.0, **kw), setup)
        assert lazy.frames[-1].metrics["relative_displacement"] < 1e-2
        lazy_change.append(abs(_teacher_alignment(setup, lazy.frames[-1])
                               - _teacher_alignment(setup, lazy.frames[0])))
    assert np.median(before) < 0.4 and np.median(after) > 0.85
    assert max(lazy_change) < 0.01


# ------------------------------------------------------------------- divergence, generator
@pytest.mark.parametrize("alpha,factor,which", [(1000.0, 1.5, "linearised model"),
                                                (0.01, 3.0, "network")])
def test_unstable_step_size_stops_with_message_not_nan(alpha, factor, which):
    setup = make_setup(TrainConfig(**PAPER))
    lr = factor * setup.lr_limit if alpha > 1 else 0.1
    items = list(train_frames(TrainConfig(alpha=alpha, lr=lr, steps=3000, **PAPER), setup))
    last = items[-1]
    assert last.diverged and last.done and last.frame is None
    assert "diverged" in last.message and which in last.message
    for item in items[:-1]:
        f = item.frame
        assert np.isfinite(f.net).all() and np.isfinite(f.neurons).all()
        assert all(np.isfinite(v) for v in f.metrics.values())
    res = train(TrainConfig(alpha=alpha, lr=lr, steps=3000, **PAPER), setup)
    assert res.diverged and res.message == last.message


def test_train_frames_is_progressive_and_cancellable():
    cfg = TrainConfig(steps=500, frames=20, **PAPER)
    gen = train_frames(cfg)
    items = [next(gen) for _ in range(5)]
    gen.close()  # cancel between chunks
    assert [i.index for i in items] == list(range(5))
    assert all(a.fraction <= b.fraction for a, b in zip(items, items[1:]))
    full = list(train_frames(cfg))
    assert full[-1].done and not any(i.done for i in full[:-1]) and full[-1].fraction == 1.0
    # a resumed-from-scratch run reproduces the same frames (seeded)
    np.testing.assert_array_equal(full[4].frame.net, items[4].frame.net)


def test_result_accessors():
    res = train(TrainConfig(steps=100, frames=5, **PAPER))
    assert res.stacked("neurons").shape == (len(res.frames), 20, 2)
    assert res.metric("train_loss").shape == (len(res.frames),)
    assert res.times[-1] == pytest.approx(100 * res.setup.config.lr)
    with pytest.raises(ValueError, match="metric"):
        res.metric("nope")
