"""Spherical harmonics on ``S^{p-1}``: how many there are of each degree, and the constant
of the eigenvalue decay of the ReLU kernels.

``N(p, k)``, the dimension of the degree-``k`` harmonics, is the multiplicity of each Mercer
eigenvalue ``μ_k`` of a dot-product kernel (Bietti & Mairal 2019, App. C), so
``Σ_k N(p, k) μ_k = κ(1)``. It is computed exactly, in integers.
"""
from __future__ import annotations

import math

import numpy as np

from ntkviz import limits as _limits
from ntkviz._check import check_int

__all__ = ["multiplicity", "exact_multiplicities", "log10_multiplicity", "asymptotic_constant"]


def multiplicity(p: int, k) -> np.ndarray:
    """``N(p, k)``: dimension of the degree-``k`` spherical harmonics on ``S^{p-1}``.

    ``N(p, 0) = 1``, ``N(p, k) = (2k + p - 2)/k · C(k + p - 3, p - 2)``;
    ``N(2, k) = 2``, ``N(3, k) = 2k + 1``. Computed in exact integer arithmetic and
    returned as float64: exact below 2^53, correctly rounded above, ``inf`` beyond the
    float64 range.
    """
    p = check_int("dim", p, _limits.DIM_RANGE)
    karr = np.asarray(k)
    if karr.dtype.kind not in "iu" and not (
        karr.dtype.kind == "f" and np.all(np.isfinite(karr)) and np.all(karr == np.round(karr))
    ):
        raise ValueError(f"k must be non-negative integers, got {k!r}")
    if karr.size and karr.min() < 0:
        raise ValueError(f"k must be non-negative integers, got min {karr.min()}")
    flat = karr.ravel().astype(np.int64)
    table = _multiplicity_table(p, int(flat.max()) if flat.size else 0)
    return table[flat].reshape(karr.shape)


def exact_multiplicities(p: int, kmax: int) -> list[int]:
    """``[N(p, 0), ..., N(p, kmax)]`` as exact Python integers (recurrence on
    ``C(k + p - 3, p - 2)``)."""
    out = [1]
    binom = 1  # C(k + p - 3, p - 2) at k = 1
    for k in range(1, kmax + 1):
        if k > 1:
            binom = binom * (k + p - 3) // (k - 1)
        out.append((2 * k + p - 2) * binom // k)
    return out


def log10_multiplicity(p: int, k) -> np.ndarray:
    """``log10 N(p, k)`` (float64, correctly rounded logs of the exact integers)."""
    return _log10_multiplicity(check_int("dim", p, _limits.DIM_RANGE), k)


def _log10_multiplicity(p: int, k) -> np.ndarray:
    """:func:`log10_multiplicity` for a checked ``p`` (no checks)."""
    karr = np.asarray(k, dtype=np.int64)
    exact = exact_multiplicities(p, int(karr.max()) if karr.size else 0)
    table = np.array([math.log10(n) for n in exact])
    return table[karr.ravel()].reshape(karr.shape)


def _multiplicity_table(p: int, kmax: int) -> np.ndarray:
    """N(p, k) for k = 0..kmax as float64 (``inf`` beyond the float64 range)."""
    out = np.empty(kmax + 1)
    for k, value in enumerate(exact_multiplicities(p, kmax)):
        try:
            out[k] = float(value)
        except OverflowError:
            out[k:] = math.inf
            break
    return out


def asymptotic_constant(p: int) -> float:
    """``C(p) = 2^{p-1} Γ(p/2)² / π²``: ``μ_k ~ C(p) k^{-p}`` for κ0 (odd k) and the
    two-layer NTK (even k); ``p C(p) k^{-p-2}`` for κ1 (even k) (Bietti & Mairal
    2019). May be inf
    for very large ``p`` (float64 range)."""
    return _asymptotic_constant(check_int("dim", p, _limits.DIM_RANGE))


def _asymptotic_constant(p: int) -> float:
    """:func:`asymptotic_constant` for a checked ``p`` (no checks)."""
    log_c = (p - 1) * math.log(2.0) + 2.0 * math.lgamma(0.5 * p) - 2.0 * math.log(math.pi)
    return math.exp(log_c) if log_c < 709.0 else math.inf
