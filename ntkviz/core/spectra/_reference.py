"""Slow, obvious references for :mod:`ntkviz.core.spectra.mercer` (used by the tests only).

* :func:`theta_quadrature` — plain NumPy Gauss–Legendre in ``θ`` of the Funk–Hecke
  integral, ``P_k`` by the three-term recurrence, any kernel given as a callable.
* :func:`relu_kernel_theta` — the ReLU deep recursion written in angles,
  so no ``arccos(cos θ)`` round trip at the first layer.
* :func:`mpmath_eigenvalue` — the same integral in ``mpmath`` at high precision, for a
  few far-tail points where float64 quadrature has no correct digit left.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import roots_legendre

__all__: list[str] = []


def legendre_table(t: np.ndarray, p: int, kmax: int) -> np.ndarray:
    """``P_k(t)`` for k = 0..kmax (rows), dimension-``p`` Legendre with ``P_k(1) = 1``."""
    table = np.empty((kmax + 1, t.shape[0]))
    table[0] = 1.0
    if kmax >= 1:
        table[1] = t
    for k in range(1, kmax):
        table[k + 1] = ((2 * k + p - 2) * t * table[k] - k * table[k - 1]) / (k + p - 2)
    return table


def theta_quadrature(kernel_of_theta, p: int, kmax: int, nodes: int = 600) -> np.ndarray:
    """μ_k = ω ∫_0^π κ(θ) P_k(cos θ) sin^{p-2}θ dθ, ``nodes``-point Gauss–Legendre."""
    z, w = roots_legendre(nodes)
    theta = 0.5 * np.pi * (z + 1.0)
    w = 0.5 * np.pi * w
    omega = math.exp(math.lgamma(p / 2) - 0.5 * math.log(math.pi) - math.lgamma((p - 1) / 2))
    weights = omega * w * np.sin(theta) ** (p - 2) * kernel_of_theta(theta)
    return legendre_table(np.cos(theta), p, kmax) @ weights


def relu_kernel_theta(theta, name: str = "ntk", depth: int = 2, bias: float = 0.0,
                      activation: str = "relu", lib=None):
    """Deep NTK / NNGP at ``u = cos θ``, un-normalised.

    ReLU layer by layer in angles (κ0 = 1 - θ/π, κ1 = (sin θ + (π - θ) cos θ)/π; the
    first layer uses θ itself, no ``arccos(cos θ)``); ``activation="erf"`` uses
    k̂ = c (2/π) asin(2s/(1+2q)), k̂' = c (2/π) 2/√((1+2q)² - 4s²), c = 1/((2/π) asin(2/3)).
    ``lib`` is ``numpy`` (default) or ``mpmath`` (for a scalar ``theta``).
    """
    if lib is None or lib is np:
        lib = np

        def acos(x):
            return np.arccos(np.clip(x, -1.0, 1.0))
        asin = np.arcsin
    else:
        acos, asin = lib.acos, lib.asin
    pi = lib.pi
    sigma = lib.cos(theta) + bias
    q = 1.0 + bias
    ntk = sigma
    for layer in range(depth - 1):
        if activation == "erf":
            c = 1 / (2 / pi * asin(lib.sqrt(4.0) / 3))
            den = 1 + 2 * q
            kprime = c * 2 / pi * 2 / lib.sqrt(den ** 2 - 4 * sigma ** 2)
            sigma = c * 2 / pi * asin(2 * sigma / den) + bias
            q = c * 2 / pi * asin(2 * q / den) + bias
            ntk = sigma + ntk * kprime
            continue
        ang = theta if (layer == 0 and bias == 0.0) else acos(sigma / q)
        k0 = (pi - ang) / pi
        k1 = (lib.sin(ang) + (pi - ang) * lib.cos(ang)) / pi
        sigma = q * k1 + bias
        ntk = sigma + ntk * k0
        q = q + bias
    return ntk if name == "ntk" else sigma


def mpmath_eigenvalue(k: int, p: int, name: str = "ntk", depth: int = 2, bias: float = 0.0,
                      dps: int = 50, pieces: int = 8, activation: str = "relu"):
    """μ_k of the deep ReLU NTK/NNGP by composite 96-point Gauss–Legendre in θ in ``mpmath``.

    Returns an ``mpmath.mpf``. The kernel is :func:`relu_kernel_theta` in mpmath (ReLU in
    angles, or erf); ``P_k`` by recurrence (19); the integrand is analytic in θ, so the
    rule converges exponentially. Compare two values of ``pieces`` to see its error.
    """
    import mpmath as mp

    with mp.workdps(dps):
        nodes = _mp_gauss_legendre_96(mp.mp.prec)
        bias_m = mp.mpf(bias)

        def kernel(theta):
            return relu_kernel_theta(theta, name, depth, bias_m, activation, lib=mp)

        total = mp.mpf(0)
        half = mp.pi / (2 * pieces)
        for i in range(pieces):
            mid = mp.pi * (2 * i + 1) / (2 * pieces)
            for x, w in nodes:
                theta = mid + half * x
                weight = w * mp.sin(theta) ** (p - 2)
                total += weight * kernel(theta) * mp_legendre(k, p, mp.cos(theta))
        omega = mp.gamma(mp.mpf(p) / 2) / (mp.sqrt(mp.pi) * mp.gamma(mp.mpf(p - 1) / 2))
        return omega * half * total


def mp_legendre(k: int, p: int, t):
    """``P_k(t)`` in dimension ``p`` (``P_k(1) = 1``) by recurrence (19), in the type of ``t``."""
    prev, cur = 1 + 0 * t, t
    if k == 0:
        return prev
    for j in range(1, k):
        prev, cur = cur, ((2 * j + p - 2) * t * cur - j * prev) / (j + p - 2)
    return cur


_NODE_CACHE: dict = {}


def _mp_gauss_legendre_96(prec: int):
    """96-point Gauss–Legendre nodes and weights on [-1, 1] at ``prec`` bits (cached)."""
    if prec not in _NODE_CACHE:
        import mpmath as mp
        from mpmath.calculus.quadrature import GaussLegendre

        with mp.workprec(prec):
            _NODE_CACHE[prec] = GaussLegendre(mp.mp).calc_nodes(6, prec)
    return _NODE_CACHE[prec]
