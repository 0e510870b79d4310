"""Slow, obvious NumPy references for :mod:`ntkviz.core.training.dynamics` (tests only).

Plain loops over neurons and inputs, explicit Jacobians, no numba and no clever
algebra, so that the tests compare two independent routes. Conventions are those
of :mod:`ntkviz.core.training.dynamics` (student f = s Σ a_j σ(b_j·x), objective
F_α = α^{-2}(1/2n)Σ(α(f − f0) − y)², linearisation at w0).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = [
    "ref_output",
    "ref_jacobian",
    "ref_objective",
    "ref_gradient",
    "ref_tangent_kernel",
    "ref_train",
    "ref_ntk_kappa",
    "ref_kernel_gd",
    "finite_difference_gradient",
    "ref_kappa1",
    "ref_hessian_norm",
    "ref_ridge_weights",
    "ref_kernel_ridge",
]


def ref_output(a, B, X, scale=1.0):
    """f(x) for each row of X, one neuron at a time."""
    out = np.zeros(len(X))
    for i, x in enumerate(X):
        total = 0.0
        for j in range(len(a)):
            total += a[j] * max(float(np.dot(B[j], x)), 0.0)
        out[i] = scale * total
    return out


def ref_jacobian(a, B, X, scale=1.0):
    """Rows: ∂f(x_i)/∂(a, vec B) with layout [a_1..a_m, b_11..b_1d, b_21..]."""
    m, d = B.shape
    J = np.zeros((len(X), m + m * d))
    for i, x in enumerate(X):
        for j in range(m):
            z = float(np.dot(B[j], x))
            J[i, j] = scale * max(z, 0.0)
            if z > 0:
                J[i, m + j * d: m + (j + 1) * d] = scale * a[j] * x
    return J


def ref_objective(a, B, X, y, alpha, scale=1.0, f0=None):
    """F_α(w) = α^{-2} (1/2n) Σ_i (α (f(x_i) − f0_i) − y_i)²."""
    f0 = np.zeros(len(X)) if f0 is None else f0
    r = alpha * (ref_output(a, B, X, scale) - f0) - y
    return float(np.sum(r**2)) / (2 * len(X)) / alpha**2


def ref_gradient(a, B, X, y, alpha, scale=1.0, f0=None):
    """∇F_α = α^{-1} (1/n) J^T (α(f − f0) − y), from the explicit Jacobian."""
    f0 = np.zeros(len(X)) if f0 is None else f0
    r = alpha * (ref_output(a, B, X, scale) - f0) - y
    g = ref_jacobian(a, B, X, scale).T @ r / (alpha * len(X))
    m = len(a)
    return g[:m], g[m:].reshape(B.shape)


def ref_tangent_kernel(a, B, X1, X2, scale=1.0):
    """J(X1) J(X2)^T."""
    return ref_jacobian(a, B, X1, scale) @ ref_jacobian(a, B, X2, scale).T


def ref_train(a0, B0, X, y, alpha, lr, steps, scale=1.0, layers="all"):
    """Plain gradient descent on F_α (net) and on the linearised objective.

    Returns (a, B, w_lin − w0 as (da, dB)). The linearisation uses the explicit
    Jacobian J0 at w0: h̄ = J0 (w − w0). ``layers`` "last" / "first" zero the gradient of
    the input / output weights (they stay at w0).
    """
    a, B = a0.astype(float).copy(), B0.astype(float).copy()
    f0 = ref_output(a0, B0, X, scale)
    J0 = ref_jacobian(a0, B0, X, scale)
    m = len(a0)
    mask = np.ones(J0.shape[1])
    if layers == "last":
        mask[m:] = 0.0
    elif layers == "first":
        mask[:m] = 0.0
    delta = np.zeros(J0.shape[1])
    for _ in range(steps):
        ga, gB = ref_gradient(a, B, X, y, alpha, scale, f0)
        a, B = a - lr * mask[:m] * ga, B - lr * mask[m:].reshape(B.shape) * gB
        r = alpha * (J0 @ delta) - y
        delta = delta - lr * mask * (J0.T @ r) / (alpha * len(X))
    return a, B, delta[:m], delta[m:].reshape(B0.shape)


def ref_ntk_kappa(u):
    """κ(u) = u κ0(u) + κ1(u), the two-layer ReLU NTK, straight from the arc-cosine
    closed forms."""
    u = np.clip(np.asarray(u, dtype=float), -1.0, 1.0)
    theta = np.arccos(u)
    k0 = (math.pi - theta) / math.pi
    k1 = (np.sqrt(np.maximum(1 - u * u, 0.0)) + u * (math.pi - theta)) / math.pi
    return u * k0 + k1


def ref_kernel_gd(K, K_cross, y, lr, steps):
    """Kernel gradient descent u_{k+1} = u_k − (lr/n) K (u_k − y), predictions at the cross
    inputs accumulated step by step (c_{k+1} = c_k − (lr/n)(u_k − y), f = K_cross c)."""
    n = len(y)
    c = np.zeros(n)
    for _ in range(steps):
        c = c - lr / n * (K @ c - y)
    return K @ c, K_cross @ c


def finite_difference_gradient(fun, x, eps=1e-6):
    """Central differences of a scalar function of a flat float array."""
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        g[k] = (fun(x + e) - fun(x - e)) / (2 * eps)
    return g


def ref_kappa1(u):
    """κ1(u) = (√(1−u²) + u(π − arccos u))/π, straight from the closed form."""
    u = np.clip(np.asarray(u, dtype=float), -1.0, 1.0)
    return (np.sqrt(np.maximum(1 - u * u, 0.0)) + u * (math.pi - np.arccos(u))) / math.pi


def ref_hessian_norm(a, B, X, scale=1.0, layers="all", restarts=10, iterations=100, eps=1e-6,
                     seed=0):
    """‖D²h(w)‖ = sup over ‖e‖ = ‖u‖ = ‖v‖ = 1 of ⟨e, D²h[u, v]⟩ (empirical L² norm
    (1/n)Σe_i² = 1 over the inputs, Euclidean norms over the trained weights), the generic
    way: Hessian-vector products by central differences of the explicit Jacobian, and the
    alternating (higher-order) power iteration u ← H_e v/‖·‖, v ← H_e u/‖·‖ (H_e =
    (1/n)Σ_i e_i ∇²h(x_i)), e ← the normalised (uᵀ∇²h(x_i)v)_i, from ``restarts`` random
    starts (the largest value found)."""
    m, d = B.shape
    n = len(X)
    w0 = np.concatenate([a, B.ravel()])
    keep = np.ones(w0.size, dtype=bool)
    if layers == "last":
        keep[m:] = False
    elif layers == "first":
        keep[:m] = False

    def jac(w):
        return ref_jacobian(w[:m], w[m:].reshape(m, d), X, scale)[:, keep]

    def hvp(u):
        """(n, p): row i is ∇²h(x_i) u over the trained weights."""
        step = np.zeros(w0.size)
        step[keep] = eps * u
        return (jac(w0 + step) - jac(w0 - step)) / (2 * eps)

    p = int(keep.sum())
    rng = np.random.default_rng(seed)
    best = 0.0
    for _ in range(restarts):
        e = rng.standard_normal(n)
        e *= math.sqrt(n) / np.linalg.norm(e)
        u, v = rng.standard_normal(p), rng.standard_normal(p)
        u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
        value = 0.0
        for _ in range(iterations):
            Hv = e @ hvp(v) / n
            if not np.any(Hv):
                break
            u = Hv / np.linalg.norm(Hv)
            Hu = e @ hvp(u) / n
            v = Hu / np.linalg.norm(Hu)
            bilinear = hvp(v) @ u  # u^T ∇²h(x_i) v for each i
            norm = np.linalg.norm(bilinear)
            if norm == 0.0:
                break
            e = bilinear * math.sqrt(n) / norm
            new = norm / math.sqrt(n)  # = (1/n) Σ e_i u^T ∇²h(x_i) v with the new e
            done = abs(new - value) <= 1e-13 * new
            value = new
            if done:
                break
        best = max(best, value)
    return best


def ref_ridge_weights(features, targets, ridge):
    """argmin ‖Φv − y‖² + δ‖v‖² as the ordinary least-squares problem [Φ; √δ I] v = [y; 0]
    (``np.linalg.lstsq``, minimum norm when δ = 0)."""
    Phi = np.asarray(features, dtype=float)
    m = Phi.shape[1]
    A = np.vstack([Phi, math.sqrt(ridge) * np.eye(m)])
    b = np.concatenate([np.asarray(targets, dtype=float), np.zeros(m)])
    return np.linalg.lstsq(A, b, rcond=None)[0]


def ref_kernel_ridge(K, K_cross, y, ridge):
    """K_× (K + δI)⁻¹ y by a dense solve."""
    return np.asarray(K_cross) @ np.linalg.solve(np.asarray(K) + ridge * np.eye(len(y)), y)
