"""Activations and their dual maps (the expectations behind the deep recursion).

Normalisation. Every activation σ carries c_σ = 1 / E_{z~N(0,1)}[σ(z)²], so
that a unit-variance pre-activation keeps unit variance through a layer
(ReLU: c = 2, the paper's factor 2 of √(2/m); step σ = 1{z ≥ 0}: c = 2). With
a 2×2 covariance [[q, s], [s, q]] (equal variances q — inputs on the sphere)
and correlation ρ = s/q, the dual maps are

    k̂(s; q)   = c_σ E[σ(a) σ(b)],
    k̂'(s; q)  = c_σ E[σ'(a) σ'(b)]   = ∂k̂/∂s   (Price's theorem),
    k̂''(s; q) = c_σ E[σ''(a) σ''(b)] = ∂k̂'/∂s,

the last one used for the derivative of the deep NTK in u.

Closed forms:

* relu: k̂ = q κ1(ρ), k̂' = κ0(ρ), k̂'' = κ0'(ρ)/q (arc-cosine kernels);
* step: k̂ = κ0(ρ), k̂' = κ0'(ρ)/q (σ' is a Dirac delta: the step NTK is
  infinite at ρ = ±1), k̂'' = κ0''(ρ)/q²;
* erf: k̂ = c (2/π) asin(2s/(1+2q)), c = 1/((2/π) asin(2/3)).

tanh, gelu (z Φ(z)), softplus (log(1+eᶻ)) and sigmoid use Mehler's formula,
E[σ(a)σ(b)] = Σ_n a_n² ρⁿ with a_n = E[σ(√q z) h_n(z)] the coefficients of
σ(√q ·) in the orthonormal Hermite polynomials h_n = He_n/√(n!), computed once
per layer variance q by an 800-node Gauss–Hermite rule (then k̂' and k̂'' are
the term-wise derivatives divided by q, q²). At q ≲ 4 (any activation without
bias: the normalisation keeps q = 1 in every layer) 400 terms reach ~1e−14;
at larger q (large bias β, or GELU/softplus with bias at large depth, whose
variance grows) σ(√q ·) approaches a kink and the series converges slowly:
:attr:`DualTables.tail` reports the truncated mass (relative) per layer.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
from numba import njit

from ntkviz import limits as _limits
from ntkviz.core.kernels._hermite import hermite_coefficients, mehler_layer
from ntkviz._check import check_choice, check_float, check_int
from ntkviz.core._validate import check_cosines
from ntkviz.core.kernels.arccos import relu_duals

__all__ = ["ACTIVATIONS", "activation_functions", "activation_normalisation", "second_derivative",
           "dual_kernel", "DualTables", "dual_tables"]

ACTIVATIONS: tuple[str, ...] = _limits.ACTIVATIONS

KIND_RELU, KIND_STEP, KIND_ERF, KIND_SERIES = 0, 1, 2, 3
_JIT = dict(nogil=True, cache=True, error_model="numpy")

#: Hermite-series sizes: terms kept and Gauss–Hermite nodes
N_TERMS = 400


def _special():
    """``scipy.special``, imported at first use: it costs ~0.1 s, and the ReLU kernels of
    the app's first plot never need it."""
    from scipy import special

    return special


def _erf(z):
    return _special().erf(z)


def _expit(z):
    """The logistic sigmoid 1/(1 + e^{-z})."""
    return _special().expit(z)


def _sqrt2pi_inv(z):
    return np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def _relu(z):
    return np.maximum(z, 0.0)


def _step(z):
    return (np.asarray(z) >= 0).astype(np.float64)


def _zeros(z):
    return np.zeros_like(np.asarray(z, dtype=np.float64))


def _tanh_d1(z):
    return 1.0 - np.tanh(z) ** 2


def _tanh_d2(z):
    t = np.tanh(z)
    return -2.0 * t * (1.0 - t * t)


def _erf_d1(z):
    return 2.0 / math.sqrt(math.pi) * np.exp(-z * z)


def _erf_d2(z):
    return -4.0 * z / math.sqrt(math.pi) * np.exp(-z * z)


def _gelu(z):
    return z * _special().ndtr(z)


def _gelu_d1(z):
    return _special().ndtr(z) + z * _sqrt2pi_inv(z)


def _gelu_d2(z):
    return (2.0 - z * z) * _sqrt2pi_inv(z)


def _softplus(z):
    return np.logaddexp(0.0, z)


def _sigmoid_d1(z):
    s = _expit(z)
    return s * (1.0 - s)


def _sigmoid_d2(z):
    s = _expit(z)
    return s * (1.0 - s) * (1.0 - 2.0 * s)


#: name -> (σ, σ', σ'', kind); σ' and σ'' of relu/step are their a.e. values
_FUNCTIONS: dict[str, tuple[Callable, Callable, Callable, int]] = {
    "relu": (_relu, _step, _zeros, KIND_RELU),
    "step": (_step, _zeros, _zeros, KIND_STEP),
    "tanh": (np.tanh, _tanh_d1, _tanh_d2, KIND_SERIES),
    "erf": (_erf, _erf_d1, _erf_d2, KIND_ERF),
    "gelu": (_gelu, _gelu_d1, _gelu_d2, KIND_SERIES),
    "softplus": (_softplus, _expit, _sigmoid_d1, KIND_SERIES),
    "sigmoid": (_expit, _sigmoid_d1, _sigmoid_d2, KIND_SERIES),
}


def _hermite_coefficients(name: str, q: float) -> tuple[np.ndarray, float]:
    """a_n = E[σ(√q z) h_n(z)], n < N_TERMS, and E[σ(√q z)²] (one quadrature rule for the
    whole package: :func:`ntkviz.core.kernels._hermite.hermite_coefficients`, ~2e-16 absolute)."""
    return hermite_coefficients(_FUNCTIONS[name][0], q, N_TERMS)


@lru_cache(maxsize=None)
def activation_normalisation(name: str) -> float:
    """c_σ = 1/E_{z~N(0,1)}[σ(z)²] (relu, step: 2; erf: 1/((2/π) asin(2/3)))."""
    check_choice("activation", name, ACTIVATIONS)
    kind = _FUNCTIONS[name][3]
    if kind in (KIND_RELU, KIND_STEP):
        return 2.0
    if kind == KIND_ERF:
        return 1.0 / (2.0 / math.pi * math.asin(2.0 / 3.0))
    return 1.0 / _hermite_coefficients(name, 1.0)[1]


def activation_functions(name: str) -> tuple[Callable, Callable, float]:
    """NumPy σ(z), σ'(z) and c_σ = 1/E[σ(z)²] for ``name`` in :data:`ACTIVATIONS`.

    σ' of relu is the step 1{z > 0}; σ' of step is 0 almost everywhere (its
    distributional derivative, a Dirac delta, enters only through the closed
    form of the dual map).
    """
    check_choice("activation", name, ACTIVATIONS)
    sigma, dsigma, _, _ = _FUNCTIONS[name]
    return sigma, dsigma, activation_normalisation(name)


def second_derivative(name: str) -> Callable:
    """NumPy σ''(z) (0 for relu and step, a.e.)."""
    check_choice("activation", name, ACTIVATIONS)
    return _FUNCTIONS[name][2]


@njit(inline="always", **_JIT)
def dual_map(kind, c, coef, layer, ncoef, q, rho, delta, eps):
    """Dual maps at variance q and correlation ρ = s/q.

    ``delta`` = 1 − ρ and ``eps`` = 1 + ρ, each as accurate as known;
    ``coef[layer, :ncoef]`` holds c·a_n² (kind KIND_SERIES only).

    Returns k̂(s;q), k̂'(s;q), k̂''(s;q) and k̂(q;q) − k̂(s;q) (the last one
    accurately when ρ is near 1, for the next layer's δ).
    """
    if kind == 0:  # relu
        k0, k1, dk0, _, _, om_k1 = relu_duals(rho, delta, eps)
        return q * k1, k0, dk0 / q, q * om_k1
    if kind == 1:  # step
        k0, _, dk0, ddk0, om_k0, _ = relu_duals(rho, delta, eps)
        return k0, dk0 / q, ddk0 / (q * q), om_k0
    if kind == 2:  # erf
        a = 1.0 + 2.0 * q
        s = q * rho
        scale = c * 2.0 / math.pi
        arg = 2.0 * s / a
        prod = (a - 2.0 * s) * (a + 2.0 * s)
        k = scale * math.asin(arg)
        kp = 2.0 * scale / math.sqrt(prod)
        kpp = 8.0 * scale * s / (prod * math.sqrt(prod))
        return k, kp, kpp, scale * math.asin(2.0 * q / a) - k
    # Hermite series Σ b_n ρ^n, with 1 − ρ^n = ρ(1 − ρ^{n−1}) + δ
    k = 0.0
    kp = 0.0
    kpp = 0.0
    om = 0.0
    p0 = 1.0  # ρ^n
    p1 = 0.0  # ρ^{n−1}
    p2 = 0.0  # ρ^{n−2}
    om_n = 0.0  # 1 − ρ^n
    for n in range(ncoef):
        b = coef[layer, n]
        k += b * p0
        kp += n * b * p1
        kpp += n * (n - 1.0) * b * p2
        om += b * om_n
        p2 = p1
        p1 = p0
        p0 = p0 * rho
        om_n = rho * om_n + delta
    return k, kp / q, kpp / (q * q), om


@dataclass(frozen=True)
class DualTables:
    """Per-layer data of the deep recursion for one activation and bias.

    Layer k (0-based) maps Σ_k to Σ_{k+1} at the diagonal variance ``q[k]``;
    ``q`` has ``depth`` entries q_0 = 1 + β, …, q_{L−1} (the last is NNGP(1)).
    ``coef[k, :ncoef[k]]`` are c·a_n² (series activations; zeros otherwise) and
    ``tail[k]`` the relative mass of the truncated series (0 for closed forms).
    """

    activation: str
    kind: int
    c: float
    bias: float
    q: np.ndarray
    coef: np.ndarray
    ncoef: np.ndarray
    tail: np.ndarray


@lru_cache(maxsize=256)
def dual_tables(activation: str, depth: int, bias: float = 0.0) -> DualTables:
    """Tables for :func:`ntkviz.core.kernels.deep.deep_kernel` (cached per arguments)."""
    check_choice("activation", activation, ACTIVATIONS)
    depth = check_int("depth", depth, _limits.LAYERS_RANGE)
    bias = check_float("bias", bias, _limits.DEEP_BIAS_RANGE)
    kind = _FUNCTIONS[activation][3]
    c = activation_normalisation(activation)
    q = np.empty(depth)
    nlayers = max(depth - 1, 1)
    coef = np.zeros((nlayers, N_TERMS if kind == KIND_SERIES else 1))
    ncoef = np.zeros(nlayers, dtype=np.int64)
    tail = np.zeros(nlayers)
    q[0] = 1.0 + bias
    for k in range(depth - 1):
        if kind == KIND_SERIES:
            b, n, total = mehler_layer(_FUNCTIONS[activation][0], c, q[k], 1e-19)
            coef[k, :n] = b[:n]
            ncoef[k] = n
            tail[k] = abs(total - b.sum()) / total
            diag = total
        else:
            diag = dual_map(kind, c, coef, k, 0, q[k], 1.0, 0.0, 2.0)[0]
        q[k + 1] = diag + bias
    for arr in (q, coef, ncoef, tail):
        arr.setflags(write=False)
    return DualTables(activation, kind, c, bias, q, coef, ncoef, tail)


def dual_kernel(name: str, s, q: float):
    """Dual maps of ``name`` at covariance ``s`` (array) and variance ``q``.

    Returns
    -------
    (k̂, k̂') : tuple of ndarray
        c_σ E[σ(a)σ(b)] and c_σ E[σ'(a)σ'(b)] for (a, b) ~ N(0, [[q, s], [s, q]]);
        |s| <= q is required (rounding error is clipped).
    """
    check_choice("activation", name, ACTIVATIONS)
    q = check_float("q", q, _limits.DUAL_VARIANCE_RANGE)
    rho = np.atleast_1d(np.asarray(s, dtype=np.float64)) / q
    rho = check_cosines(rho, "s/q")
    kind = _FUNCTIONS[name][3]
    c = activation_normalisation(name)
    if kind == KIND_SERIES:
        a, _ = _hermite_coefficients(name, q)
        coef = (c * a * a)[None, :]
    else:
        coef = np.zeros((1, 1))
    out = np.array([dual_map(kind, c, coef, 0, coef.shape[1], q, r, 1.0 - r, 1.0 + r)[:2]
                    for r in rho.ravel()])
    shape = np.shape(s)
    return out[:, 0].reshape(shape), out[:, 1].reshape(shape)
