"""Monte-Carlo kernel ridge regression on uniform points of ``S^{p-1}``.

``f̂(x) = K(x, X)(K(X, X) + δ I)⁻¹ y`` with ``K(x, y) = κ(⟨x, y⟩)``, ``y = f(X) + σ ε``
(δ is **not** multiplied by n). The test MSE is ``mean_test (f̂ - f)² + σ²``: the error
against a fresh noisy label, whose noise part has the exact expectation σ² (added rather
than sampled). Learned fraction of a degree k present in the target (Funk–Hecke):
``⟨f̂_k, f_k⟩/‖f_k‖² = μ_k Σ_i α_i P_k(⟨x_i, z_k⟩) / a_k`` (expectation ``L_k``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def uniform_sphere(rng: np.random.Generator, count: int, dim: int) -> np.ndarray:
    """``count`` points uniform on ``S^{dim-1}`` (normalised Gaussians)."""
    x = rng.standard_normal((count, dim))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def gram(spec, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``κ(⟨a_i, b_j⟩)`` via :func:`ntkviz.core.kernels.dotkernel.evaluate_kernel`."""
    from ntkviz.core.kernels.dotkernel import evaluate_kernel

    cosines = a @ b.T
    np.clip(cosines, -1.0, 1.0, out=cosines)
    return evaluate_kernel(spec, cosines)[0]


@dataclass(frozen=True)
class KrrTrial:
    """One Monte-Carlo run: test MSE, train MSE and learned fraction per listed degree."""

    test_mse: float
    train_mse: float
    degrees: np.ndarray
    learned_fraction: np.ndarray


def krr_trial(spec, target, directions, projection, spectrum_mu, n: int, n_test: int,
              ridge: float, noise: float, seed: int) -> KrrTrial:
    """Fit KRR on ``n`` fresh uniform points (seed ``seed``) and score it on ``n_test``."""
    import scipy.linalg

    dim = directions.shape[1]
    rng = np.random.default_rng([int(seed), int(n), 41])
    x = uniform_sphere(rng, n, dim)
    f_train = target.evaluate(x, directions)
    y = f_train + noise * rng.standard_normal(n)
    k_xx = gram(spec, x, x)
    reg = k_xx + ridge * np.eye(n)
    try:
        alpha = scipy.linalg.solve(reg, y, assume_a="pos", check_finite=False)
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
        alpha = np.linalg.lstsq(reg, y, rcond=None)[0]
    x_test = uniform_sphere(rng, n_test, dim)
    pred = gram(spec, x_test, x) @ alpha
    test = float(np.mean((pred - target.evaluate(x_test, directions)) ** 2)) + noise * noise
    train = float(np.mean((k_xx @ alpha - y) ** 2))
    degrees, fractions = _learned_fractions(target, directions, projection, spectrum_mu, x, alpha)
    return KrrTrial(test, train, degrees, fractions)


def _learned_fractions(target, directions, projection, mu, x, alpha):
    from ntkviz.core.learning._gegenbauer import gegenbauer

    coef = projection.coefficient
    if target.kind == "components":
        pairs = [(k, j) for j, (k, c) in enumerate(target.components) if c != 0.0 and k < mu.size]
    else:
        kmax = min(mu.size - 1, 20)
        pairs = [(k, 0) for k in range(kmax + 1) if coef[k] != 0.0]
    degrees = np.array([k for k, _ in pairs], dtype=np.int64)
    out = np.empty(len(pairs))
    if not pairs:
        return degrees, out
    u = np.clip(x @ directions.T, -1.0, 1.0)
    kmax = int(degrees.max())
    tables = {}
    for i, (k, j) in enumerate(pairs):
        if j not in tables:
            tables[j] = gegenbauer(x.shape[1], kmax, u[:, j])
        out[i] = mu[k] * float(alpha @ tables[j][k]) / coef[k]
    return degrees, out


@dataclass(frozen=True)
class CircleFit:
    """A KRR fit seen along the great circle ``x(θ) = cos θ e1 + sin θ e2`` (``e1`` the
    target's first direction): ``target``/``prediction`` at ``theta``; training points near
    the circle (``|proj| >= 0.9``, all of them for p = 2) at ``train_theta`` with their labels."""

    theta: np.ndarray
    target: np.ndarray
    prediction: np.ndarray
    train_theta: np.ndarray
    train_y: np.ndarray


def circle_frame(directions: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal ``(e1, e2)``: e1 the first target direction, e2 random orthogonal."""
    e1 = directions[0]
    rng = np.random.default_rng([int(seed), 3])
    v = rng.standard_normal(e1.shape[0])
    v -= (v @ e1) * e1
    return e1, v / np.linalg.norm(v)


def krr_fit_on_circle(spec, target, directions, n: int, ridge: float, noise: float, seed: int,
                      points: int = 721) -> CircleFit:
    """Fit KRR on ``n`` uniform points (seed ``seed``) and evaluate it along a great circle."""
    import scipy.linalg

    dim = directions.shape[1]
    rng = np.random.default_rng([int(seed), int(n), 41])
    x = uniform_sphere(rng, n, dim)
    y = target.evaluate(x, directions) + noise * rng.standard_normal(n)
    reg = gram(spec, x, x) + ridge * np.eye(n)
    try:
        alpha = scipy.linalg.solve(reg, y, assume_a="pos", check_finite=False)
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
        alpha = np.linalg.lstsq(reg, y, rcond=None)[0]
    e1, e2 = circle_frame(directions, seed)
    theta = np.linspace(-np.pi, np.pi, points)
    xc = np.cos(theta)[:, None] * e1[None, :] + np.sin(theta)[:, None] * e2[None, :]
    a, b = x @ e1, x @ e2
    near = np.hypot(a, b) >= (0.9 if dim > 2 else 0.0)
    return CircleFit(theta, target.evaluate(xc, directions), gram(spec, xc, x) @ alpha,
                     np.arctan2(b, a)[near], y[near])
