"""RKHS norms, best bounded-norm approximation, GP prior samples and Funk–Hecke sums.

With ``f = Σ_k f_k`` (degree parts of power ``P_k``) and Mercer eigenvalues ``μ_k``:

* ``‖f‖²_H = Σ_k P_k / μ_k`` — infinite when ``P_k > 0`` on an exact zero ``μ_k = 0``;
* best approximant with ``‖g‖_H <= B``: ``g_k = μ_k/(μ_k + λ) f_k`` with ``λ >= 0`` such
  that ``Σ P_k μ_k/(μ_k+λ)² = B²`` (``λ = 0`` when ``‖f‖_H <= B``); error
  ``A(B) = Σ_k P_k (λ/(μ_k+λ))²`` (+ the power on exact zeros and above kmax);
* the GP prior with covariance ``κ(⟨x, x'⟩)`` restricted to a great circle
  ``x(θ) = cos θ e1 + sin θ e2`` has the circulant covariance ``κ(cos(θ_i - θ_j))``;
* Funk–Hecke partial sums ``S_K(u) = Σ_{k<=K} N(p,k) μ_k P_k(u) → κ(u)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RkhsNorm:
    """``squared`` = Σ_{k<=kmax} P_k/μ_k (``inf`` when ``zero_degrees`` is non-empty: power
    on exact zeros); ``log10_squared`` its log10; ``partial`` True when the target has power
    above kmax (the sum is then a lower bound)."""

    squared: float
    log10_squared: float
    zero_degrees: tuple
    partial: bool


def rkhs_norm(spectrum, projection) -> RkhsNorm:
    """Squared RKHS norm of the target under the kernel of ``spectrum`` (module docstring)."""
    lp = projection.log10_power
    has = np.isfinite(lp)
    lm = np.asarray(spectrum.log10_mu)
    zero = has & ~np.isfinite(lm)
    zeros = tuple(int(k) for k in np.nonzero(zero)[0])
    if zeros:
        return RkhsNorm(math.inf, math.inf, zeros, projection.tail_power > 0)
    terms = lp[has] - lm[has]
    if terms.size == 0:
        return RkhsNorm(0.0, -math.inf, (), projection.tail_power > 0)
    top = float(terms.max())
    log10_sq = top + math.log10(float(np.sum(10.0 ** (terms - top))))
    sq = 10.0 ** log10_sq if log10_sq < 308 else math.inf
    return RkhsNorm(sq, log10_sq, (), projection.tail_power > 0)


def approximation_error(spectrum, projection, bounds) -> np.ndarray:
    """``A(B)`` for each norm bound ``B`` (module docstring; bisection on ``ln λ``)."""
    from ntkviz.core.learning._theory import spectrum_weights

    _, mu = spectrum_weights(spectrum)
    power = projection.power
    on_zero = float(power[mu == 0.0].sum())
    keep = (power > 0) & (mu > 0)
    p_k, m_k = power[keep], mu[keep]
    b = np.asarray(bounds, dtype=np.float64)
    out = np.zeros(b.shape[0])
    if p_k.size:
        full = float(p_k.sum())
        with np.errstate(over="ignore"):  # inf: a norm beyond float64 exceeds every bound, as it should
            norm_at_zero = float(np.sum(p_k / m_k))   # ‖f‖²_H (λ = 0)
        need = b * b < norm_at_zero                # otherwise g = f, error 0
        # bisection on ln λ for every bound at once: Σ P μ/(μ+λ)² decreases in λ
        lo = np.full(b.shape[0], -745.0)
        hi = np.full(b.shape[0], math.log(max(1e-300, math.sqrt(float(np.sum(p_k * m_k))))) + 1.0)
        with np.errstate(divide="ignore"):
            hi = np.maximum(hi, hi - np.log(np.where(b > 0, b, 1.0)))
        for _ in range(120):
            mid = 0.5 * (lo + hi)
            lam = np.exp(mid)[:, None]
            # P μ/(μ+λ)² as (P/(μ+λ)) (μ/(μ+λ)): no underflow of (μ+λ)²; a term beyond float64
            # is inf, which exceeds every bound as the true value does
            with np.errstate(over="ignore"):
                too_big = np.sum(p_k / (m_k + lam) * (m_k / (m_k + lam)), axis=1) > b * b
            lo = np.where(too_big, mid, lo)
            hi = np.where(too_big, hi, mid)
            if np.all(hi - lo < 1e-13 * np.maximum(1.0, np.abs(hi))):
                break
        lam = np.exp(0.5 * (lo + hi))[:, None]
        err = np.sum(p_k * (lam / (m_k + lam)) ** 2, axis=1)
        out = np.where(b <= 0.0, full, np.where(need, err, 0.0))
    return out + on_zero + projection.tail_power


def gp_samples_on_circle(spec, count: int, points: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` samples of the GP with covariance κ along a great circle at ``points``
    equispaced angles θ ∈ [0, 2π): returns ``(theta, samples[count, points])``.

    The covariance ``κ(cos(θ_i - θ_j))`` is circulant: its eigenvalues are the DFT of
    the first row (negative rounding residue clipped to 0), sampled exactly by FFT."""
    from ntkviz.core.kernels.dotkernel import evaluate_kernel

    theta = 2.0 * np.pi * np.arange(points) / points
    row = evaluate_kernel(spec, np.cos(theta))[0]
    lam = np.clip(np.fft.fft(row).real, 0.0, None)
    rng = np.random.default_rng([int(seed), 7])
    z = rng.standard_normal((count, points)) + 1j * rng.standard_normal((count, points))
    field = np.fft.fft(z * np.sqrt(lam / points)[None, :], axis=1)
    # real and imaginary parts are independent samples with covariance κ; keep the real part
    return theta, field.real


def funk_hecke_partial_sums(spectrum, u, degrees) -> np.ndarray:
    """``S_K(u) = Σ_{k<=K} N μ_k P_k(u)`` for each ``K`` in ``degrees`` (rows)."""
    from ntkviz.core.learning._gegenbauer import gegenbauer
    from ntkviz.core.learning._theory import spectrum_weights

    w, _ = spectrum_weights(spectrum)
    kmax = int(max(degrees))
    table = gegenbauer(spectrum.dim, kmax, u)
    cumulative = np.cumsum(w[:kmax + 1, None] * table, axis=0)
    return cumulative[np.asarray(degrees, dtype=np.int64)]
