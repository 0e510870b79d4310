"""Hermite (Mehler) expansions of activation functions (private).

For a standard Gaussian z and the orthonormal Hermite polynomials ``h_n = He_n/√n!``,
``a_n(q) = E[σ(√q z) h_n(z)]`` gives Mehler's formula for the dual of σ at variance q:
``E[σ(a)σ(b)] = Σ_n a_n² ρ^n`` for pairs of correlation ρ. The kernels of
:mod:`ntkviz.core.kernels.activations` and the power-series spectra of
:mod:`ntkviz.core.spectra` both build on these coefficients.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__: list[str] = []  # private: imported explicitly

#: Hermite coefficients kept per layer, and the composite Gauss–Legendre rule behind them
HERMITE_TERMS = 400
_HERMITE_PANELS = 96
_HERMITE_PANEL_NODES = 64
_HERMITE_HALF_WIDTH = 24.0


@lru_cache(maxsize=1)
def _hermite_rule():
    """Nodes z_i and √(w_i φ(z_i)) of a composite Gauss–Legendre rule on [-24, 24].

    The integrands σ(√q z) h_n(z) φ(z) are analytic in a strip (tanh, sigmoid, softplus
    have poles at distance ≳ π/(2√q) from the real axis): panels of width 0.5 with 64
    nodes reach rounding level, where an 800-node Gauss–Hermite rule stops near 3e-15.
    """
    from scipy.special import roots_legendre  # only the activation kernels need it

    z, w = roots_legendre(_HERMITE_PANEL_NODES)
    edges = np.linspace(-_HERMITE_HALF_WIDTH, _HERMITE_HALF_WIDTH, _HERMITE_PANELS + 1)
    mid = 0.5 * (edges[:-1] + edges[1:])
    half = 0.5 * (edges[1:] - edges[:-1])
    nodes = (mid[:, None] + half[:, None] * z).ravel()
    weights = (half[:, None] * w).ravel()
    root_w = np.sqrt(weights * np.exp(-0.5 * nodes * nodes) / math.sqrt(2.0 * math.pi))
    return nodes, root_w


@lru_cache(maxsize=2)
def _hermite_basis(n_terms: int) -> np.ndarray:
    """``Ψ[n, i] = h_n(z_i) √(w_i φ(z_i))`` on the rule's nodes (computed once; 19 MB for
    400 terms), so each coefficient set is one matrix-vector product."""
    z, root_w = _hermite_rule()
    psi = np.empty((n_terms, z.size))
    prev = np.zeros_like(z)
    cur = root_w.copy()
    for n in range(n_terms):
        psi[n] = cur
        prev, cur = cur, (z * cur - math.sqrt(n) * prev) / math.sqrt(n + 1.0)
    psi.setflags(write=False)
    return psi


def hermite_coefficients(sigma, q: float, n_terms: int = HERMITE_TERMS):
    """``a_n = E[σ(√q z) h_n(z)]`` (orthonormal Hermite ``h_n = He_n/√n!``) and ``E[σ(√q z)²]``.

    Mehler: ``E[σ(a)σ(b)] = Σ_n a_n² ρ^n`` for unit-correlation-ρ pairs at variance q.
    Absolute accuracy ~2e-16 (checked against mpmath for tanh).
    """
    z, root_w = _hermite_rule()
    f = sigma(math.sqrt(q) * z) * root_w
    return _hermite_basis(n_terms) @ f, float(f @ f)


def mehler_layer(sigma, c_sigma: float, q: float, cutoff: float):
    """One layer's Mehler series ``k̂(s; q) = Σ_n b_n (s/q)^n``, ``b_n = c_σ a_n(q)²``.

    Returns ``(b, n, total)``: the coefficients, how many to keep (the last one
    above ``cutoff · total``) and ``total = c_σ E[σ(√q z)²] = k̂(q; q)``.
    """
    a, second_moment = hermite_coefficients(sigma, q)
    b = c_sigma * a * a
    total = c_sigma * second_moment
    keep = np.nonzero(b > cutoff * total)[0]
    return b, (int(keep[-1]) + 1 if keep.size else 1), total


def hermite_tables(sigma, c_sigma: float, depth: int, bias: float):
    """Per-layer Mehler coefficients ``(q, coef, ncoef, tail)`` of the deep recursion.

    Layer l maps Σ_l to Σ_{l+1} = Σ_n coef[l, n] (Σ_l/q_l)^n + β with
    ``coef = c_σ a_n(q_l)²``; ``q_{l+1} = c_σ E[σ(√q_l z)²] + β``; ``tail[l]`` is the
    relative mass beyond the kept terms.
    """
    q = np.empty(depth)
    q[0] = 1.0 + bias
    coef = np.zeros((max(depth - 1, 1), HERMITE_TERMS))
    ncoef = np.ones(max(depth - 1, 1), dtype=np.int64)
    tail = np.zeros(max(depth - 1, 1))
    for layer in range(depth - 1):
        b, n, total = mehler_layer(sigma, c_sigma, q[layer], 1e-34)
        coef[layer, :n] = b[:n]
        ncoef[layer] = n
        # mass beyond the kept terms, extrapolated from the last ones (the difference
        # total - Σ b would only show rounding)
        tail[layer] = float(np.max(b[-10:])) * HERMITE_TERMS / total
        q[layer + 1] = total + bias
    return q, coef, ncoef, tail
