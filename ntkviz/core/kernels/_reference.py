"""Slow, obvious NumPy references for the dot-product kernels (used by tests only).

Written independently of the compiled code: direct textbook formulas (no
angle tricks), the unrolled Arora et al. form of the deep ReLU NTK, dual maps
as plain 2-D Gauss–Hermite expectations over correlated normals, and a
finite-width network with every weight matrix drawn and backpropagated
explicitly.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import roots_hermitenorm

from ntkviz.core.kernels.activations import activation_functions, second_derivative


def kappa0_ref(u):
    u = np.asarray(u, dtype=float)
    return (np.pi - np.arccos(u)) / np.pi


def kappa1_ref(u):
    u = np.asarray(u, dtype=float)
    return (np.sqrt(1.0 - u * u) + u * (np.pi - np.arccos(u))) / np.pi


def kappa_ntk_ref(u):
    u = np.asarray(u, dtype=float)
    return u * kappa0_ref(u) + kappa1_ref(u)


def kappa0_deriv_ref(u):
    u = np.asarray(u, dtype=float)
    return 1.0 / (np.pi * np.sqrt(1.0 - u * u))


def kappa_ntk_deriv_ref(u):
    u = np.asarray(u, dtype=float)
    return 2.0 * kappa0_ref(u) + u * kappa0_deriv_ref(u)


def deep_relu_ref(u, depth: int):
    """(NTK_L, NNGP_L, dNTK/du, dNNGP/du) for ReLU without bias, by the unrolled form.

    s_h = κ1^{∘h}(u), NTK_L = t_n = Σ_{h=0}^{n} s_h Π_{j=h+1}^{n} κ0(s_{j−1}), n = L − 1;
    derivatives by the product rule on the same sum, with ds_h/du = Π_{j<h} κ0(s_j).
    Only for |u| < 1.
    """
    n = depth - 1
    u = np.asarray(u, dtype=float)
    s = [u]
    ds = [np.ones_like(u)]
    for _ in range(n):
        s.append(kappa1_ref(s[-1]))
        ds.append(ds[-1] * kappa0_ref(s[-2]))
    k0 = [kappa0_ref(v) for v in s]  # κ0(s_j)
    dk0 = [kappa0_deriv_ref(v) * d for v, d in zip(s, ds)]  # d/du κ0(s_j)
    ntk = np.zeros_like(u)
    dntk = np.zeros_like(u)
    for h in range(n + 1):
        prod = np.ones_like(u)
        for j in range(h + 1, n + 1):
            prod = prod * k0[j - 1]
        dprod = np.zeros_like(u)
        for i in range(h + 1, n + 1):
            other = np.ones_like(u)
            for j in range(h + 1, n + 1):
                other = other * (dk0[j - 1] if j == i else k0[j - 1])
            dprod = dprod + other
        ntk = ntk + s[h] * prod
        dntk = dntk + ds[h] * prod + s[h] * dprod
    return ntk, s[n], dntk, ds[n]


def gauss_hermite_2d(f, g, rho, q: float, nodes: int = 300):
    """E[f(a) g(b)] for (a, b) ~ N(0, [[q, qρ], [qρ, q]]), by a tensor Gauss–Hermite rule.

    a = √q z1, b = √q (ρ z1 + √(1−ρ²) z2) with z1, z2 independent N(0, 1).
    """
    x, w = roots_hermitenorm(nodes)
    w = w / math.sqrt(2.0 * math.pi)
    rho = np.atleast_1d(np.asarray(rho, dtype=float))
    out = np.empty(rho.shape)
    fa = f(math.sqrt(q) * x)
    for i, r in enumerate(rho.ravel()):
        b = math.sqrt(q) * (r * x[:, None] + math.sqrt(max(1.0 - r * r, 0.0)) * x[None, :])
        out.flat[i] = (w * fa) @ g(b) @ w
    return out


def deep_general_ref(u, depth: int, activation: str, bias: float = 0.0, nodes: int = 300):
    """(NTK_L, NNGP_L, dNTK/du, dNNGP/du) for a smooth activation, via 2-D Gauss–Hermite duals.

    The recursion written out with explicit expectations
    c E[σσ], c E[σ'σ'], c E[σ''σ''] (the last for the derivative in u).
    """
    sigma, dsigma, c = activation_functions(activation)
    d2sigma = second_derivative(activation)
    u = np.asarray(u, dtype=float)
    sig = u + bias
    q = 1.0 + bias
    theta = sig.copy()
    dsig = np.ones_like(u)
    dtheta = np.ones_like(u)
    for _ in range(depth - 1):
        rho = np.clip(sig / q, -1.0, 1.0)
        k = c * gauss_hermite_2d(sigma, sigma, rho, q, nodes)
        kp = c * gauss_hermite_2d(dsigma, dsigma, rho, q, nodes)
        kpp = c * gauss_hermite_2d(d2sigma, d2sigma, rho, q, nodes)
        q_next = c * gauss_hermite_2d(sigma, sigma, 1.0, q, nodes)[0] + bias
        new_sig = k + bias
        dtheta = kp * dsig + dtheta * kp + theta * kpp * dsig
        theta = new_sig + theta * kp
        dsig = kp * dsig
        sig, q = new_sig, q_next
    return theta, sig, dtheta, dsig


def empirical_reference(u, width: int, depth: int, rng: np.random.Generator,
                        activation: str = "relu", bias: float = 0.0):
    """(NTK, NNGP) of one explicit network between x = e1 and x'_j = u_j e1 + √(1−u_j²) e2.

    Every weight matrix W^k (m×m) is drawn; the parameter gradients of f at
    each input are formed by backpropagation and their inner products summed
    layer by layer (weights and biases).
    """
    sigma, dsigma, c = activation_functions(activation)
    u = np.asarray(u, dtype=float)
    xs = np.vstack([[1.0, 0.0], np.column_stack([u, np.sqrt(1.0 - u * u)])])  # (N, 2)
    s = math.sqrt(c / width)
    rb = math.sqrt(bias)
    weights = [rng.standard_normal((width, 2))] + [rng.standard_normal((width, width))
                                                   for _ in range(depth - 2)]
    biases = [rng.standard_normal(width) for _ in range(depth - 1)]
    w_out = rng.standard_normal(width)
    ntk = np.zeros(len(xs))
    nngp = np.zeros(len(xs))
    grads_first = None
    for n, x in enumerate(xs):
        # forward
        hs = [weights[0] @ x + rb * biases[0]]
        for k in range(1, depth - 1):
            hs.append(s * weights[k] @ sigma(hs[-1]) + rb * biases[k])
        # backward: list of (gradient of every parameter block) flattened
        grads = [s * sigma(hs[-1]), np.array([rb])]  # w_out, b_out
        g = s * w_out * dsigma(hs[-1])
        for k in range(depth - 2, 0, -1):
            grads.append(s * np.outer(g, sigma(hs[k - 1])).ravel())  # W^{k+1}
            grads.append(rb * g)  # b^{k+1}
            g = s * (weights[k].T @ g) * dsigma(hs[k - 1])
        grads.append(np.outer(g, x).ravel())  # W^1
        grads.append(rb * g)  # b^1
        flat = np.concatenate(grads)
        if n == 0:
            grads_first = flat
            last_first = grads[0]
        ntk[n] = flat @ grads_first
        nngp[n] = grads[0] @ last_first + bias
    return ntk[1:], nngp[1:]
