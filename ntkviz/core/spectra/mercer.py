"""Mercer spectra of dot-product kernels on the sphere ``S^{p-1}``.

Conventions (Bietti & Mairal 2019, App. C):

* ``τ`` is the uniform **probability** measure on ``S^{p-1}``; ``P_k`` is the Legendre
  (Gegenbauer) polynomial in dimension ``p`` with ``P_k(1) = 1``.
* ``μ_k = ω ∫_{-1}^{1} κ(t) P_k(t) (1 - t²)^{(p-3)/2} dt``, ``ω = ω_{p-2}/ω_{p-1} =
  Γ(p/2)/(√π Γ((p-1)/2))`` (Funk–Hecke, eq. 20–22), is the eigenvalue of **each** of the
  ``N(p, k)`` degree-``k`` spherical harmonics, so
  ``κ(<x, y>) = Σ_k μ_k N(p, k) P_k(<x, y>)`` and ``Σ_k N(p, k) μ_k = κ(1)``.
* Kernels follow :class:`ntkviz.core.kernels.dotkernel.KernelSpec`: NTK
  parameterisation with the ReLU factor 2, ``NTK_L(1) = L`` unless ``normalize``.

Methods (``Spectrum.method``), one module each:

``closed-form`` (:mod:`~ntkviz.core.spectra._closed_form`)
    κ0, κ1 and the two-layer ReLU NTK (Prop. 5), with ``lgamma`` in log
    space; exact zeros are exactly ``0.0`` and flagged in ``exact_zero``.
``series`` (:mod:`~ntkviz.core.spectra._power_series`)
    Every ReLU-family kernel (deep NTK/NNGP, any depth, any bias β ≥ 0; step NNGP) is a
    power series ``κ(u) = Σ b_n u^n`` with ``b_n >= 0``. Monomials have positive closed-form
    eigenvalues ``T(n, k)``, and the ``√(1 ∓ u)``-type end-point singularities, expanded as
    ``Σ_j c_j (1 - u)^{j/2} + Σ_j d_j (1 + u)^{j/2}`` (Puiseux series computed through the
    same recursion), have closed-form eigenvalues ``E_k(j/2)``. With ``S`` that singular
    part and ``r_n = b_n - [u^n] S``::

        μ_k = Σ_j (c_j + (-1)^k d_j) E_k(j/2) + Σ_{n ≡ k (2), n >= k} r_n T(n, k),

    an exact identity whose second sum converges fast (``r_n`` decays like a high power
    of ``1/n``) and is truncated at ``n < 1024``. No step subtracts two large numbers
    for the tail, so relative accuracy holds where ``μ_k`` is ``1e-30`` of ``μ_0``.
    Several truncation orders of ``S`` are tried per ``k``; the one with the smallest
    error estimate (rounding bound + a model of the neglected tail) wins. With a bias β
    the first layer also has a singular point at ``u* = -(1 + 2β)``, subtracted the same
    way when it is close to the disk. erf's duals (arcsin) have no singular point on the
    closed disk and tanh/GELU/softplus/sigmoid duals are Mehler series
    ``Σ_n c_σ a_n² ρ^n``, ``a_n = E[σ(√q z) h_n(z)]`` (400 terms, computed here by a
    composite Gauss–Legendre rule to ~2e-16 absolute, σ and c_σ from
    :func:`ntkviz.core.kernels.activations.activation_functions`), composed as series: the same
    positive sum applies, limited by the accuracy of the ``a_n``, which the error
    estimate carries.
``quadrature`` (:mod:`~ntkviz.core.spectra._quadrature`)
    Gauss–Legendre in ``θ`` (``t = cos θ``, analytic integrand), with ``P_k`` by the
    three-term recurrence (19): absolute accuracy ~1e-16 ``μ_0``; the error estimate
    (difference of two rules plus a rounding bound) marks the tail. Used for the step NTK
    and deep step NNGP, and per ``k`` wherever it beats the series route
    (``series+quadrature``: very deep ReLU kernels at small ``p``, activation kernels).

Log space: every route works in units of ``exp(ref[k])`` per degree (the closed forms
directly on ``log μ_k``), so ``Spectrum.log10_mu`` keeps its digits far below the float64
range (1e-308) and ``mu`` is only multiplied out at the end.

``error_estimate`` is an estimated absolute error of each ``μ_k`` (0 for exact zeros) and
``relative_error`` the same relative to μ_k; on the series route the estimate bounds the
error (rounding of every sum, n·ε per layer in the Taylor coefficients, the modelled tail;
checked against 200-digit quadrature). Every kernel here is positive definite, so μ_k >= 0:
a value below the resolution is returned as 0 with ``error_estimate`` >= the true μ_k and is
never trustworthy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ntkviz import limits as _limits
from ntkviz._check import check_int
from ntkviz.core.kernels.dotkernel import KernelSpec
from ntkviz.core.spectra import _series
from ntkviz.core.spectra._closed_form import closed_form_name, closed_form_spectrum
from ntkviz.core.spectra._power_series import _N_PUISEUX, expansion, series_kernel, series_spectrum
from ntkviz.core.spectra._quadrature import quadrature_route
from ntkviz.core.spectra.harmonics import (
    _asymptotic_constant,
    _log10_multiplicity,
    _multiplicity_table,
    asymptotic_constant,
    exact_multiplicities,
    log10_multiplicity,
    multiplicity,
)

__all__ = [
    "multiplicity",
    "log10_multiplicity",
    "exact_multiplicities",
    "Spectrum",
    "mercer_spectrum",
    "decay_guides",
    "asymptotic_constant",
]

_EPS = _series.EPS
#: the series route falls back to quadrature, per k, where its error estimate is above this
_HYBRID_RTOL = 1e-10
#: eigenvalues below this are at the edge of the float64 range (no hybrid, no claims)
_TINY = 1e-280


# --------------------------------------------------------------------------- result type
@dataclass(frozen=True)
class Spectrum:
    """Mercer eigenvalues of one kernel on ``S^{dim-1}`` for ``k = 0..kmax``.

    ``mu[k]`` is the eigenvalue (uniform probability measure) of each of the
    ``multiplicity[k] = N(dim, k)`` degree-``k`` harmonics, as a float64 (it underflows to
    a subnormal or 0 below ~1e-308); ``log10_mu[k]`` is its base-10 logarithm, computed in
    log space, so it keeps its digits however small μ_k is (``-inf`` at exact zeros and
    where μ_k is below the resolution). ``error_estimate[k]`` is an estimated absolute
    error of ``mu[k]`` and ``relative_error[k]`` the same relative to μ_k (computed in log
    space: finite wherever μ_k > 0 was resolved); ``exact_zero[k]`` marks eigenvalues that
    are 0 by parity (``mu`` is exactly 0.0 there). A ``mu`` of 0.0 that is not an exact zero
    means "below the resolution": ``0 <= μ_k <= error_estimate[k]``, never trustworthy.
    ``method`` names the route (module docstring).
    """

    k: np.ndarray
    multiplicity: np.ndarray
    mu: np.ndarray
    error_estimate: np.ndarray
    exact_zero: np.ndarray
    dim: int
    spec: KernelSpec
    method: str
    log10_mu: np.ndarray | None = None
    relative_error: np.ndarray | None = None

    def __post_init__(self):
        if self.log10_mu is None:  # built from plain float64 values
            with np.errstate(divide="ignore", invalid="ignore"):
                mu = np.asarray(self.mu, dtype=np.float64)
                object.__setattr__(self, "log10_mu", np.where(mu > 0.0, np.log10(np.abs(mu)),
                                                              -np.inf))
                rel = np.where(mu > 0.0, self.error_estimate / np.abs(mu), np.inf)
                object.__setattr__(self, "relative_error", np.where(self.exact_zero, 0.0, rel))

    @cached_property
    def within_sum_rule(self) -> np.ndarray:
        """Degrees consistent with the sum rule Σ_k N(p, k) μ_k = κ(1), whose terms are all
        >= 0: N(p, k) μ_k <= κ(1) (compared in log10, to 1e-6). A value breaking it is wrong
        whatever its error estimate says, and is never trusted. (Computed once, read-only.)"""
        from ntkviz.core.kernels.dotkernel import kernel_at_one

        at_one = kernel_at_one(self.spec)
        if not (math.isfinite(at_one) and at_one > 0.0):
            return _readonly(np.ones(self.k.shape, dtype=bool))
        with np.errstate(invalid="ignore"):
            excess = self.log10_multiplicity + self.log10_mu - math.log10(at_one)
        return _readonly(~(excess > 1e-6))

    @property
    def log10_trustworthy(self) -> np.ndarray:
        """Degrees whose ``log10_mu`` is vouched for: estimated relative error of μ_k at
        most 1e-6, however small μ_k is, and within the sum rule (exact zeros included)."""
        return self.exact_zero | ((self.relative_error <= 1e-6) & self.within_sum_rule)

    @property
    def trustworthy(self) -> np.ndarray:
        """Degrees whose float64 ``mu`` (and ``log10_mu``) is vouched for: estimated relative
        error at most 1e-6, within the sum rule and ``mu`` a normal float64 (not
        underflowed), or an exact zero."""
        normal = np.abs(self.mu) >= np.finfo(np.float64).tiny
        return self.exact_zero | ((self.relative_error <= 1e-6) & normal & self.within_sum_rule)

    @cached_property
    def log10_multiplicity(self) -> np.ndarray:
        """``log10 N(dim, k)`` from exact integers (finite at p = 1000, k = 2000; computed
        once, read-only)."""
        return _readonly(_log10_multiplicity(self.dim, self.k))

    def rows(self):
        """CSV rows ``k, multiplicity, mu, error_estimate, log10_mu, trustworthy``
        (multiplicity as an exact int; ``log10_mu`` an empty string where μ_k is an exact
        zero or below the resolution, i.e. where its log10 is not a finite number)."""
        exact = exact_multiplicities(self.dim, int(self.k.max()) if self.k.size else 0)
        trust = self.trustworthy
        for i in range(self.k.shape[0]):
            lg = float(self.log10_mu[i])
            yield (int(self.k[i]), exact[int(self.k[i])], float(self.mu[i]),
                   float(self.error_estimate[i]), lg if math.isfinite(lg) else "", bool(trust[i]))


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


# --------------------------------------------------------------------------- parity zeros
def _parity_zeros(spec: KernelSpec, kmax: int) -> np.ndarray:
    """Eigenvalues that vanish by symmetry for activation kernels without bias.

    An odd σ (tanh, erf) makes every dual map odd in s and every k̂' even, so the NNGP and
    the NTK are odd functions of u: μ_k = 0 for even k. The sigmoid is 1/2 + odd, so at
    depth 2 the kernel is a constant plus an odd function: μ_k = 0 for even k >= 2. GELU and
    softplus are z/2 plus an even function: at depth 2, μ_k = 0 for odd k >= 3.
    """
    k = np.arange(kmax + 1)
    if spec.bias != 0.0 or spec.name not in ("ntk", "nngp"):
        return np.zeros(kmax + 1, dtype=bool)
    if spec.activation in ("tanh", "erf"):
        return k % 2 == 0
    if spec.activation == "sigmoid" and spec.depth == 2:
        return (k % 2 == 0) & (k >= 2)
    if spec.activation in ("gelu", "softplus") and spec.depth == 2:
        # σ(z) - σ(-z) = z: the odd part is z/2, so only the linear odd term survives
        return (k % 2 == 1) & (k >= 3)
    return np.zeros(kmax + 1, dtype=bool)


# --------------------------------------------------------------------------- public API
def _check_spec(spec) -> KernelSpec:
    """``spec`` itself (a ``KernelSpec`` is valid by construction), or ``ValueError``."""
    if not isinstance(spec, KernelSpec):
        raise ValueError(f"spec must be a KernelSpec, got {type(spec).__name__}")
    return spec


def mercer_spectrum(spec: KernelSpec, dim: int, kmax: int, *, check_input: bool = True) -> Spectrum:
    """Mercer eigenvalues ``μ_k`` of ``spec`` on ``S^{dim-1}`` for ``k = 0..kmax``.

    Parameters
    ----------
    spec : KernelSpec
        The dot-product kernel; ``spec.normalize`` divides by ``κ(1)``.
    dim : int
        Input dimension ``p`` in ``limits.DIM_RANGE`` = [2, 1000] (sphere ``S^{p-1}``).
    kmax : int
        Highest degree, in ``limits.KMAX_RANGE`` = [0, 2000].
    check_input : bool
        ``False`` skips the checks of ``dim`` and ``kmax``, for a caller that checked
        them against the same ranges once already (a request).

    Returns
    -------
    Spectrum
        ``mu`` for the uniform probability measure (eigenvalue per harmonic) and
        ``log10_mu`` (every k, also far below 1e-308), with multiplicities ``N(p, k)``,
        absolute ``error_estimate``, ``relative_error`` and ``exact_zero`` flags. See the
        module docstring for the methods and their accuracy.
    """
    spec = _check_spec(spec)
    if check_input:
        dim = check_int("dim", dim, _limits.DIM_RANGE)
        kmax = check_int("kmax", kmax, _limits.KMAX_RANGE)
    p = dim
    if spec.name == "ntk" and spec.activation == "step" and p == 2:
        raise ValueError("dim must be >= 3 for the step-activation NTK: it behaves like "
                         "(1 - u)^(-1/2) at u = 1, so its eigenvalues diverge on the circle")
    form = closed_form_name(spec)
    if form is not None:
        log_scale, mu, err, zero, at_one = closed_form_spectrum(form, p, kmax)
        method = "closed-form"
    elif series_kernel(spec):
        log_scale, mu, err, zero, at_one = series_spectrum(spec, p, kmax)
        method = "series"
        parity = _parity_zeros(spec, kmax)
        with np.errstate(divide="ignore"):
            not_tiny = log_scale + np.log(np.abs(mu)) > math.log(_TINY)
        if np.any(~(err <= _HYBRID_RTOL * np.abs(mu)) & ~parity & (not_tiny | ~np.isfinite(err))):
            # very deep or nearly singular kernels: take quadrature where it is better
            _, q_mu, q_err, _, _ = quadrature_route(spec.replace(normalize=False), p, kmax)
            with np.errstate(divide="ignore"):
                better = ~(np.log(q_err) >= np.log(err) + log_scale)
            if np.any(better):
                mu = np.where(better, q_mu, mu)
                err = np.where(better, q_err, err)
                log_scale = np.where(better, 0.0, log_scale)
                method = "series+quadrature"
    else:
        log_scale, mu, err, zero, at_one = quadrature_route(spec, p, kmax)
        at_one = 1.0
        method = "quadrature"
    if method != "closed-form":
        zero = _parity_zeros(spec, kmax)
        mu = np.where(zero, 0.0, mu)
        err = np.where(zero, 0.0, err)
        # every kernel here is positive definite on every sphere, so μ_k >= 0: a negative
        # value is below the resolution; report 0 <= μ_k <= error_estimate (untrusted)
        negative = mu < 0.0
        err = np.where(negative, np.maximum(err, 0.0) - 2.0 * mu, err)
        mu = np.where(negative, 0.0, mu)
    if spec.normalize and method not in ("quadrature",):
        # the quadrature parts evaluate the normalised kernel already
        log_scale = log_scale - math.log(at_one)
    ks = np.arange(kmax + 1)
    # over: err / mu of a subnormal mu is inf, the right relative error of a value that
    # has lost its digits (it is then untrusted)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_mu = np.where(mu > 0.0, log_scale + np.log(np.where(mu > 0.0, mu, 1.0)), -np.inf)
        log10_mu = log_mu / math.log(10.0)
        # representation: log μ_k is a float64 (and μ_k = exp of one), whose rounding is
        # a relative error of ε |log μ_k| in μ_k (4e-13 at μ ~ 1e-830)
        err = np.where(mu > 0.0, err + 2.0 * _EPS * (np.abs(log_mu) + 1.0) * mu, err)
        relative = np.where(mu > 0.0, err / np.where(mu > 0.0, mu, 1.0), np.inf)
    relative = np.where(zero, 0.0, relative)
    return Spectrum(k=ks, multiplicity=_multiplicity_table(p, kmax), mu=_series.times_exp(mu, log_scale),
                    error_estimate=_series.times_exp(err, log_scale), exact_zero=zero, dim=p,
                    spec=spec, method=method, log10_mu=log10_mu, relative_error=relative)


def decay_guides(spec: KernelSpec, dim: int, *, check_input: bool = True
                 ) -> list[tuple[str, float, float]]:
    """Guide lines ``μ_k ≈ C k^exponent`` for the spectrum plot: ``(label, C, exponent)``.

    * κ0 and NTKs: ``C(p) k^{-p}``; κ1 / NNGPs: ``p C(p) k^{-p-2}``.
    * ReLU-family kernels other than the two-layer closed forms also get their exact
      leading asymptote per parity, from the end-point expansion
      ``κ(±(1 - ε)) ≈ ... + c_± ε^{α}``: ``μ_k ~ (c_+ + (-1)^k c_-) E_k(α)``.
    * Smooth activations (eigenvalues decaying faster than any power): ``[]``.

    ``check_input=False`` skips the check of ``dim`` (a request checked it once).
    """
    spec = _check_spec(spec)
    p = check_int("dim", dim, _limits.DIM_RANGE) if check_input else dim
    form = closed_form_name(spec)
    cp = _asymptotic_constant(p)
    scale = 1.0
    if form is not None:
        if spec.normalize:
            scale = 2.0 if form == "ntk" else 1.0
        if form == "arccos1":
            return [(f"p·C(p)·k^-{p + 2} (even k)", p * cp / scale, float(-p - 2))]
        parity = "odd" if form == "arccos0" else "even"
        return [(f"C(p)·k^-{p} ({parity} k)", cp / scale, float(-p))]
    if not series_kernel(spec) or spec.activation not in ("relu", "step"):
        return []  # smooth activations: faster than any power
    ex = expansion(spec)
    if spec.normalize:
        scale = float(ex.c[0])
    guides = []
    nngp_like = spec.name == "nngp" and spec.activation == "relu"
    theory = (p * cp, -p - 2, "p·C(p)") if nngp_like else (cp, -p, "C(p)")
    guides.append((f"{theory[2]}·k^{theory[1]} (theory rate)", theory[0] / scale,
                   float(theory[1])))
    for j in range(1, _N_PUISEUX, 2):
        if abs(ex.c[j]) + abs(ex.d[j]) > 1e-14 * max(1.0, abs(ex.c[0])):
            break
    else:
        return guides
    alpha = 0.5 * j
    # E_k(α) ~ K k^{-2α-p+1}, K = ω Γ((p-1)/2) 2^{α+p-2} Γ(α+(p-1)/2) / Γ(-α)
    log_k = (math.lgamma(0.5 * p) - 0.5 * math.log(math.pi) + (alpha + p - 2) * math.log(2.0)
             + math.lgamma(alpha + 0.5 * (p - 1)) - math.lgamma(-alpha))
    sign_k = math.copysign(1.0, math.gamma(-alpha))
    kconst = sign_k * math.exp(log_k) if log_k < 709.0 else sign_k * math.inf
    expo = float(-2.0 * alpha - p + 1.0)
    for name, par in (("even", 1.0), ("odd", -1.0)):
        const = (ex.c[j] + par * ex.d[j]) * kconst / scale
        if const > 0:
            guides.append((f"asymptote {const:.4g}·k^{expo:g} ({name} k)", float(const), expo))
    return guides
