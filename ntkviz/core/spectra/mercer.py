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

Methods (``Spectrum.method``):

``closed-form``
    κ0, κ1 and the two-layer ReLU NTK (Prop. 5), with ``lgamma`` in log
    space; exact zeros are exactly ``0.0`` and flagged in ``exact_zero``.
``series``
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
``quadrature``
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
from functools import lru_cache

import numpy as np
from numba import njit

from ntkviz import limits as _limits
from ntkviz.core.spectra import _series
from ntkviz.core._validate import check_int
from ntkviz.core.kernels.activations import activation_functions
from ntkviz.core.kernels.dotkernel import KernelSpec, _evaluate_kernel

__all__ = [
    "multiplicity",
    "log10_multiplicity",
    "exact_multiplicities",
    "Spectrum",
    "mercer_spectrum",
    "decay_guides",
    "asymptotic_constant",
    "MAX_DIM",
    "MAX_KMAX",
]

MAX_DIM = _limits.DIM_RANGE[1]
MAX_KMAX = _limits.KMAX_RANGE[1]
_EPS = np.finfo(np.float64).eps
#: number of Taylor coefficients b_n used by the series route
_N_TAYLOR = 1024
#: the same for kernels of Hermite-series activations (truncated polynomials, fast decay)
_N_TAYLOR_SMOOTH = 384
#: absolute error of one Hermite coefficient a_n (composite Gauss–Legendre, _series),
#: relative to √E[σ²]: measured <= 2.3e-16 for tanh against 30-digit mpmath (n <= 320)
_HERMITE_COEF_ERR = 1e-15
#: length of the Puiseux expansions in h = sqrt(1 ∓ u) (powers h^0 .. h^40)
_N_PUISEUX = 41
#: highest odd power of h kept in the singular part S, candidates tried per k
_SINGULAR_ORDERS = (1, 3, 5, 9, 15, 23, 31, 39)
#: relative accuracy assumed for the Taylor coefficients b_n, per layer: 2e-14 + n · 16 eps
#: (the series products and Miller's power recurrence add n positive terms per coefficient;
#: measured ≤ 6e-13 per layer at n ~ 300, NNGP L = 30, β = 10, p = 200, against 200-digit
#: quadrature)
_TAYLOR_RTOL_PER_LAYER = 2e-14
_TAYLOR_RTOL_PER_ORDER = 16.0 * _EPS
#: relative error floor of the series route (measured: <= 3e-13 against 50-digit values)
_SERIES_RTOL_FLOOR = 5e-13
#: the series route falls back to quadrature, per k, where its error estimate is above this
_HYBRID_RTOL = 1e-10
#: eigenvalues below this are at the edge of the float64 range (no hybrid, no claims)
_TINY = 1e-280


# --------------------------------------------------------------------------- multiplicities
def multiplicity(p: int, k) -> np.ndarray:
    """``N(p, k)``: dimension of the degree-``k`` spherical harmonics on ``S^{p-1}``.

    ``N(p, 0) = 1``, ``N(p, k) = (2k + p - 2)/k · C(k + p - 3, p - 2)``;
    ``N(2, k) = 2``, ``N(3, k) = 2k + 1``. Computed in exact integer arithmetic and
    returned as float64: exact below 2^53, correctly rounded above, ``inf`` beyond the
    float64 range.
    """
    p = check_int("dim", p, 2, MAX_DIM)
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
    return _log10_multiplicity(check_int("dim", p, 2, MAX_DIM), k)


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

    @property
    def within_sum_rule(self) -> np.ndarray:
        """Degrees consistent with the sum rule Σ_k N(p, k) μ_k = κ(1), whose terms are all
        >= 0: N(p, k) μ_k <= κ(1) (compared in log10, to 1e-6). A value breaking it is wrong
        whatever its error estimate says, and is never trusted."""
        from ntkviz.core.kernels.dotkernel import _kernel_at_one

        at_one = _kernel_at_one(self.spec)
        if not (math.isfinite(at_one) and at_one > 0.0):
            return np.ones(self.k.shape, dtype=bool)
        with np.errstate(invalid="ignore"):
            excess = self.log10_multiplicity + self.log10_mu - math.log10(at_one)
        return ~(excess > 1e-6)

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

    @property
    def log10_multiplicity(self) -> np.ndarray:
        """``log10 N(dim, k)`` from exact integers (finite at p = 1000, k = 2000)."""
        return _log10_multiplicity(self.dim, self.k)

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


# --------------------------------------------------------------------------- closed forms
def asymptotic_constant(p: int) -> float:
    """``C(p) = 2^{p-1} Γ(p/2)² / π²``: ``μ_k ~ C(p) k^{-p}`` for κ0 (odd k) and the
    two-layer NTK (even k); ``p C(p) k^{-p-2}`` for κ1 (even k). Spec §2.2. May be inf
    for very large ``p`` (float64 range)."""
    return _asymptotic_constant(check_int("dim", p, 2, MAX_DIM))


def _asymptotic_constant(p: int) -> float:
    """:func:`asymptotic_constant` for a checked ``p`` (no checks)."""
    log_c = (p - 1) * math.log(2.0) + 2.0 * math.lgamma(0.5 * p) - 2.0 * math.log(math.pi)
    return math.exp(log_c) if log_c < 709.0 else math.inf


def _arccos0_closed(p: int, kmax: int):
    """log μ_{0,k}: 1/2, Γ(p/2)²Γ(k/2)²/(2π²Γ((k+p)/2)²) for odd k, 0 for even k >= 2."""
    k = np.arange(kmax + 1)
    log_mu = np.full(kmax + 1, -np.inf)
    lg_size = np.zeros(kmax + 1)
    log_mu[0] = math.log(0.5)
    odd = k[1::2].astype(np.float64)
    log_mu[1::2] = (2.0 * math.lgamma(0.5 * p) + 2.0 * _lgamma(0.5 * odd)
                    - math.log(2.0 * math.pi ** 2) - 2.0 * _lgamma(0.5 * (odd + p)))
    lg_size[1::2] = 2.0 * (abs(math.lgamma(0.5 * p)) + np.abs(_lgamma(0.5 * odd))
                           + np.abs(_lgamma(0.5 * (odd + p)))) + 2.0
    zero = (k >= 2) & (k % 2 == 0)
    return log_mu, lg_size, zero


def _arccos1_closed(p: int, kmax: int):
    """log μ_{1,k}: 2p(Γ(p/2)/(2√πΓ((p+1)/2)))², 1/(2p), then
    pΓ(p/2)²Γ((k-1)/2)²/(8π²Γ((k+p+1)/2)²) for even k, 0 for odd k >= 3."""
    k = np.arange(kmax + 1)
    log_mu = np.full(kmax + 1, -np.inf)
    lg_size = np.zeros(kmax + 1)
    lg0 = math.lgamma(0.5 * p) - math.log(2.0 * math.sqrt(math.pi)) - math.lgamma(0.5 * (p + 1))
    log_mu[0] = math.log(2.0 * p) + 2.0 * lg0
    lg_size[0] = 2.0 * (abs(math.lgamma(0.5 * p)) + abs(math.lgamma(0.5 * (p + 1)))) + 2.0
    if kmax >= 1:
        log_mu[1] = -math.log(2.0 * p)
        lg_size[1] = 1.0
    even = k[2::2].astype(np.float64)
    log_mu[2::2] = (math.log(p) + 2.0 * math.lgamma(0.5 * p) + 2.0 * _lgamma(0.5 * (even - 1.0))
                    - math.log(8.0 * math.pi ** 2) - 2.0 * _lgamma(0.5 * (even + p + 1.0)))
    lg_size[2::2] = 2.0 * (abs(math.lgamma(0.5 * p)) + np.abs(_lgamma(0.5 * (even - 1.0)))
                           + np.abs(_lgamma(0.5 * (even + p + 1.0)))) + 2.0
    zero = (k >= 3) & (k % 2 == 1)
    return log_mu, lg_size, zero


def _ntk2_closed(p: int, kmax: int):
    """Two-layer ReLU NTK (Bietti & Mairal 2019, Prop. 5): μ_0 = μ_{0,1} + μ_{1,0};
    μ_k = k/(2k+p-2) μ_{0,k-1} + (k+p-2)/(2k+p-2) μ_{0,k+1} + μ_{1,k}
    (positive terms, added in log space)."""
    lmu0, lg0, _ = _arccos0_closed(p, kmax + 1)
    lmu1, lg1, zero = _arccos1_closed(p, kmax)
    log_mu = lmu1.copy()
    lg = lg1.copy()
    log_mu[0] = np.logaddexp(lmu1[0], lmu0[1])
    lg[0] = max(lg[0], lg0[1])
    k = np.arange(1, kmax + 1, dtype=np.float64)
    den = 2.0 * k + p - 2.0
    log_mu[1:] = np.logaddexp(np.logaddexp(lmu1[1:], np.log(k / den) + lmu0[:-2]),
                              np.log((k + p - 2.0) / den) + lmu0[2:])
    lg[1:] = np.maximum(lg[1:], np.maximum(lg0[:-2], lg0[2:])) + 1.0
    return log_mu, lg, zero


def _lgamma(x: np.ndarray) -> np.ndarray:
    return np.array([math.lgamma(v) for v in np.ravel(x)]).reshape(np.shape(x))


_CLOSED_FORMS = {"arccos0": _arccos0_closed, "arccos1": _arccos1_closed, "ntk": _ntk2_closed}


def _closed_form_name(spec) -> str | None:
    """Which closed form (if any) gives this spec exactly (before normalisation)."""
    if spec.name in ("arccos0", "arccos1"):
        return spec.name
    if spec.depth == 2 and spec.bias == 0.0:
        if spec.activation == "relu":
            return "ntk" if spec.name == "ntk" else "arccos1"
        if spec.activation == "step" and spec.name == "nngp":
            return "arccos0"
    return None


def _closed_form_spectrum(form: str, p: int, kmax: int):
    """``(log_scale, mu_scaled, err_scaled, exact_zero, κ(1))``: μ_k = mu_scaled[k]
    exp(log_scale[k]) (here ``mu_scaled`` is 1, or 0 at the exact zeros)."""
    log_mu, lg_size, zero = _CLOSED_FORMS[form](p, kmax)
    log_mu = log_mu[: kmax + 1].copy()
    lg_size = lg_size[: kmax + 1]
    zero = zero[: kmax + 1]
    mu_s = np.where(zero, 0.0, 1.0)
    log_mu[zero] = 0.0
    # float64 lgamma: relative error ~ eps * (size of the log terms) + a few ulps
    err_s = mu_s * _EPS * (8.0 + 2.0 * lg_size)
    value_at_one = 2.0 if form == "ntk" else 1.0
    return log_mu, mu_s, err_s, zero, value_at_one


# --------------------------------------------------------------------------- series route
@dataclass(frozen=True)
class _Expansion:
    """Taylor coefficients at u = 0 and Puiseux coefficients at u = ±1 of one kernel."""

    b: np.ndarray  # [u^n] κ, n < _N_TAYLOR
    c: np.ndarray  # κ(1 - h²) = Σ c_j h^j
    d: np.ndarray  # κ(-1 + h²) = Σ d_j h^j
    layers: int
    star: float = 0.0  # β > 0: the first layer's singular point u* = -(1 + 2β) < -1 ...
    e: np.ndarray | None = None  # ... and κ(u* + h²) = Σ e_j h^j
    #: Hermite duals: (relative mass dropped by their truncation, lowest degree dropped)
    hermite_truncation: tuple[float, int] = (0.0, 0)


def _series_kernel(spec) -> bool:
    """Kernels the series route expands: every ``ntk``/``nngp`` except the step NNGP deeper
    than 2 (κ0∘κ0 has a (1 - u)^{1/4} end-point singularity, outside the half-integer
    Puiseux form used here) and the step NTK (infinite at u = 1): those go to quadrature.
    """
    if spec.name not in ("ntk", "nngp"):
        return False
    return spec.activation != "step" or (spec.name == "nngp" and spec.depth == 2)


def _expansion(spec) -> _Expansion:
    """Expansions of ``spec`` (cached on the fields that matter: not on ``normalize``)."""
    return _expansion_cached(spec.name, spec.depth, spec.bias, spec.activation)


@lru_cache(maxsize=32)
def _expansion_cached(name: str, depth: int, bias: float, activation: str) -> _Expansion:
    ex = _compute_expansion(KernelSpec(name, depth, bias, activation))
    for arr in (ex.b, ex.c, ex.d, ex.e):
        if arr is not None:
            arr.flags.writeable = False
    return ex


def _compute_expansion(spec) -> _Expansion:
    which = 1 if spec.name == "ntk" else 0
    smooth = spec.activation not in ("relu", "step")
    hermite = None
    if smooth and spec.activation != "erf":
        sigma, _, c_sigma = activation_functions(spec.activation)
        tables = _series.hermite_tables(sigma, c_sigma, spec.depth, spec.bias)
        hermite = tables[:3]
    u = np.zeros(_N_TAYLOR_SMOOTH if hermite else _N_TAYLOR)
    u[1] = 1.0
    b = _series.dual_recursion(u, spec.depth, spec.bias, spec.activation, hermite)[which]
    if smooth:
        # no end-point singularity: erf's duals are analytic on the closed disk (b_n decays
        # geometrically), the Hermite (Mehler) duals are truncated polynomials; the plain
        # positive sum is the whole story, up to the truncation of the Hermite series
        c = np.zeros(_N_PUISEUX)
        c[0] = float(np.sum(b[::-1]))
        trunc = (0.0, 0)
        if hermite:
            trunc = (spec.depth * float(np.sum(tables[3])), int(tables[2].min()))
        return _Expansion(b=b, c=c, d=np.zeros(_N_PUISEUX), layers=spec.depth,
                          hermite_truncation=trunc)
    h_plus = np.zeros(_N_PUISEUX)
    h_plus[0], h_plus[2] = 1.0, -1.0
    c = _series.dual_recursion(h_plus, spec.depth, spec.bias, spec.activation)[which]
    h_minus = np.zeros(_N_PUISEUX)
    h_minus[0], h_minus[2] = -1.0, 1.0
    d = _series.dual_recursion(h_minus, spec.depth, spec.bias, spec.activation)[which]
    if spec.bias > 0.0 and spec.activation != "erf":
        star = -(1.0 + 2.0 * spec.bias)
        h_star = np.zeros(_N_PUISEUX)
        h_star[0], h_star[2] = star, 1.0
        e = _series.dual_recursion(h_star, spec.depth, spec.bias, spec.activation)[which]
        return _Expansion(b=b, c=c, d=d, layers=spec.depth, star=star, e=e)
    return _Expansion(b=b, c=c, d=d, layers=spec.depth)


#: odd powers of sqrt(u - u*) subtracted at the bias singularity u* (when it is close)
_STAR_ORDERS = 7
#: the bias singularity is handled when a^{-N} (a = |u*|) exceeds this
_STAR_THRESHOLD = 1e-30
#: longest direct sum used for the eigenvalues of (u - u*)^{j/2}
_STAR_MAX_TERMS = 400_000


def _bias_singularity(ex: _Expansion, p: int, kmax: int):
    """Part of the series route for β > 0: the first layer's cosine (u + β)/(1 + β) hits
    -1 at ``u* = -(1 + 2β)``, just outside the unit disk when β is small, and
    ``b_n`` carries a ``(-1)^n a^{-n} n^{-3/2}`` component (a = 1 + 2β) that decays too
    slowly for the truncated sum. It is subtracted as ``Σ_j e_j (u + a)^{j/2}``, whose
    eigenvalues are direct sums ``Σ_n [u^n](u + a)^{j/2} T(n, k)`` of one sign per parity
    (geometric convergence, no cancellation).

    Returns ``(s_n, part, part_abs, log_scale)`` (Taylor coefficients for n < N,
    eigenvalue part and its absolute-value scale per k, both scaled by
    ``exp(log_scale[k])``), ``None`` when the singularity is far enough, or ``"too close"``
    when ``a - 1`` is so small (β ≲ 1e-4) that the direct sums would need more than
    ``_STAR_MAX_TERMS`` terms: the series route cannot vouch for such a kernel.
    """
    if ex.e is None:
        return None
    a = -ex.star
    log_a = math.log1p(a - 1.0)
    n_taylor = ex.b.shape[0]
    if n_taylor * log_a > -math.log(_STAR_THRESHOLD):
        return None
    if log_a * (_STAR_MAX_TERMS - n_taylor - 2 * kmax) < 80.0:
        return "too close"
    n_long = int(n_taylor + 80.0 / log_a + 2 * kmax)
    n = np.arange(n_long)
    sign_n = np.where(n % 2 == 0, 1.0, -1.0)
    rows = []
    for j in range(1, _STAR_ORDERS + 1, 2):
        alpha = 0.5 * j
        g = _series.taylor_one_minus_power(alpha, n_long)
        rows.append(ex.e[j] * sign_n * g * np.exp((alpha - n) * log_a))
    rows = np.array(rows)
    part = np.zeros((rows.shape[0], kmax + 1))
    part_abs = np.zeros_like(part)
    log_scale = np.zeros(kmax + 1)
    _series.moment_sums_rows(rows, kmax, float(p), part, part_abs, log_scale)
    return rows[:, :n_taylor].sum(axis=0), part.sum(axis=0), part_abs.sum(axis=0), log_scale


@njit(nogil=True, cache=True)
def _singular_moments(alphas, kmax, p):
    """log|E[i, k]| and sign of E[i, k] = μ_k[(1 - t)^{alphas[i]}] (closed form, see _series)."""
    log_abs = np.zeros((alphas.shape[0], kmax + 1))
    sign = np.zeros((alphas.shape[0], kmax + 1))
    for i in range(alphas.shape[0]):
        _series.singular_moments_log(alphas[i], kmax, p, log_abs[i], sign[i])
    return log_abs, sign


def _scaled(x, log_factor, ref):
    """``x · exp(log_factor - ref)``: a quantity given as x·exp(log_factor), in units of
    exp(ref) (per k, the last axis)."""
    return _series.times_exp(x, log_factor - ref)


def _series_spectrum(spec, p: int, kmax: int):
    """μ_k = Σ_j (c_j + (-1)^k d_j) E_k(j/2) + Σ_n r_n T(n, k) per candidate order of the
    singular part, with error estimates; the best candidate per k (module docstring).

    Log space: every term is computed in units of ``exp(ref[k])``, ``ref[k]`` the log of
    the largest term of degree k, so eigenvalues far below 1e-308 keep their digits.
    Returns ``(ref, mu_scaled, err_scaled, exact_zero, κ(1))``.
    """
    ex = _expansion(spec)
    n_taylor = ex.b.shape[0]
    odd = np.arange(1, _N_PUISEUX, 2)
    alphas = 0.5 * odd
    ks = np.arange(kmax + 1)
    par_k = np.where(ks % 2 == 0, 1.0, -1.0)
    par_n = np.where(np.arange(n_taylor) % 2 == 0, 1.0, -1.0)
    taylor = np.array([_series.taylor_one_minus_power(a, n_taylor) for a in alphas])
    emom_log, emom_sign = _singular_moments(alphas, kmax, float(p))
    c_odd = ex.c[odd]
    d_odd = ex.d[odd]
    b = ex.b
    star = _bias_singularity(ex, p, kmax)
    if isinstance(star, str):  # cannot vouch: infinite error, quadrature takes over
        return (np.zeros(kmax + 1), np.zeros(kmax + 1), np.full(kmax + 1, np.inf),
                np.zeros(kmax + 1, dtype=bool), float(ex.c[0]))
    if star is not None:
        b = b - star[0]
    # cumulative singular parts: one row per candidate order (smooth kernels: nothing to subtract)
    smooth = not (np.any(ex.c[1:]) or np.any(ex.d))
    orders = (1,) if smooth else _SINGULAR_ORDERS
    nc = len(orders)
    rows_r = []
    rows_model = []
    model_coef = np.zeros(nc)
    for ci, jmax in enumerate(orders):
        m = (jmax + 1) // 2  # number of odd powers kept
        s_n = (c_odd[:m, None] * taylor[:m] + d_odd[:m, None] * taylor[:m] * par_n).sum(axis=0)
        r = b - s_n
        rows_r.append(r)
        # tail model: r_n ≈ C [u^n](1-u)^{α*} beyond the truncation, α* the next exponent
        nxt = min(m, len(alphas) - 1)
        g = taylor[nxt]
        model_coef[ci] = max(abs(r[-1] / g[-1]), abs(r[-2] / g[-2]))
        rows_model.append(g)
    extra = [ex.b, ex.b * np.arange(n_taylor)]
    dropped_mass, dropped_degree = ex.hermite_truncation
    if dropped_degree:
        # Hermite duals: noise δa_n ~ ε √E[σ²] makes δb_n ~ 2 ε √(b_n κ(1)) per layer
        extra.append(2.0 * _HERMITE_COEF_ERR * ex.layers * np.sqrt(np.abs(ex.b) * abs(ex.c[0])))
    big = np.array(rows_r + rows_model + extra)
    sums = np.zeros((big.shape[0], kmax + 1))
    abs_sums = np.zeros_like(sums)
    log_sums = np.zeros(kmax + 1)
    _series.moment_sums_rows(big, kmax, float(p), sums, abs_sums, log_sums)
    # reference scale per k: the largest term of any kind
    with np.errstate(divide="ignore"):
        ref = np.maximum(log_sums + np.log(abs_sums.max(axis=0)), emom_log.max(axis=0))
        if star is not None:
            ref = np.maximum(ref, star[3] + np.log(star[2]))
    ref = np.where(np.isfinite(ref), ref, 0.0)
    sums = _scaled(sums, log_sums, ref)
    abs_sums = _scaled(abs_sums, log_sums, ref)
    emom = emom_sign * np.exp(emom_log - ref)
    s_part = np.zeros((nc, kmax + 1))
    s_abs = np.zeros_like(s_part)
    model_moment = np.zeros_like(s_part)
    for ci, jmax in enumerate(orders):
        m = (jmax + 1) // 2
        contrib = (c_odd[:m, None] + d_odd[:m, None] * par_k) * emom[:m]
        s_part[ci] = contrib.sum(axis=0)
        s_abs[ci] = np.abs(contrib).sum(axis=0)
        model_moment[ci] = emom[min(m, len(alphas) - 1)]
    mu_c = s_part + sums[:nc]
    # rounding of the sums of N terms (sequential, |terms| adding up to S): ≤ N eps S in the
    # worst case, ~√N eps S for independent roundings; bound used (8 + √N/2) eps S
    # plus the prefactors T(k, k) and E_k(α): running products over k, at most
    # PRODUCT_ROUNDING relative per degree
    round_factor = ((8.0 + 0.5 * math.sqrt(n_taylor)) * _EPS
                    + (2.0 + ks) * _series.PRODUCT_ROUNDING)
    rounding = round_factor * (s_abs + abs_sums[:nc])
    if star is not None:
        mu_c += _scaled(star[1], star[3], ref)
        rounding += round_factor * _scaled(star[2], star[3], ref)
    taylor_err = ex.layers * (_TAYLOR_RTOL_PER_LAYER * abs_sums[2 * nc]
                              + _TAYLOR_RTOL_PER_ORDER * abs_sums[2 * nc + 1])
    # the tail model is a model, and the best candidate is picked by its estimate (which
    # favours underestimates): a factor 2 keeps it above the actual error (checked against
    # an independent ball-arithmetic reference at depth 50, p = 1000, k <= 2000)
    tail = 2.0 * model_coef[:, None] * np.abs(model_moment - sums[nc:2 * nc])
    err_c = (rounding + taylor_err + tail + 8.0 * _EPS * np.abs(model_coef[:, None] * model_moment)
             + _SERIES_RTOL_FLOOR * np.abs(mu_c))
    if dropped_degree:
        # dropped terms (degree >= n_min, total mass τ κ(1)) add at most τ κ(1) max T(n, k)
        log_max_t = np.zeros(kmax + 1)
        _series.max_monomial_moments(dropped_degree, kmax, float(p), log_max_t)
        err_c = (err_c + sums[2 * nc + 2]
                 + dropped_mass * abs(ex.c[0]) * np.exp(np.minimum(log_max_t - ref, 700.0)))
    best = np.argmin(err_c, axis=0)
    mu = mu_c[best, ks]
    err = err_c[best, ks]
    value_at_one = float(ex.c[0])
    return ref, mu, err, np.zeros(kmax + 1, dtype=bool), value_at_one


# --------------------------------------------------------------------------- quadrature route
@njit(nogil=True, cache=True)
def _legendre_moments(x, weights, kmax, p, out, absout):
    """out[k] = Σ_i weights[i] P_k(x[i]) by recurrence (19); absout with |·|."""
    n = x.shape[0]
    prev = np.ones(n)
    cur = x.copy()
    for k in range(kmax + 1):
        if k == 0:
            pk = prev
        elif k == 1:
            pk = cur
        else:
            nxt = np.empty(n)
            kk = k - 1.0  # P_k from P_{k-1}, P_{k-2}
            for i in range(n):
                nxt[i] = ((2.0 * kk + p - 2.0) * x[i] * cur[i] - kk * prev[i]) / (kk + p - 2.0)
            prev = cur
            cur = nxt
            pk = cur
        s = 0.0
        sa = 0.0
        for i in range(n):
            v = weights[i] * pk[i]
            s += v
            sa += abs(v)
        out[k] = s
        absout[k] = sa


@njit(nogil=True, cache=True)
def _gauss_legendre(n):
    """Gauss–Legendre nodes (descending) and weights on [-1, 1]: Newton on P_n from
    Tricomi's initial guesses, P_n and P_n' by the three-term recurrence (O(n²), ~1e-16;
    much faster than an eigenvalue solver at the thousands of nodes used here)."""
    z = np.empty(n)
    w = np.empty(n)
    for i in range((n + 1) // 2):
        x = math.cos(math.pi * (i + 0.75) / (n + 0.5))
        x = x * (1.0 - (1.0 - 1.0 / n) / (8.0 * n * n))
        dp = 1.0
        for it in range(12):
            p0 = 1.0
            p1 = x
            for j in range(2, n + 1):
                p0, p1 = p1, ((2.0 * j - 1.0) * x * p1 - (j - 1.0) * p0) / j
            dp = n * (x * p1 - p0) / (x * x - 1.0)
            dx = p1 / dp
            x -= dx
            if abs(dx) <= 1e-15:
                break
        p0 = 1.0
        p1 = x
        for j in range(2, n + 1):
            p0, p1 = p1, ((2.0 * j - 1.0) * x * p1 - (j - 1.0) * p0) / j
        dp = n * (x * p1 - p0) / (x * x - 1.0)
        z[i] = x
        z[n - 1 - i] = -x
        w[i] = 2.0 / ((1.0 - x) * (1.0 + x) * dp * dp)
        w[n - 1 - i] = w[i]
    if n % 2 == 1:
        z[n // 2] = 0.0
    return z, w


@lru_cache(maxsize=16)
def _quadrature_rule(n: int, p: int):
    """Nodes t = cos θ and weights ω w_i sin^{p-2} θ_i of Gauss–Legendre in θ ∈ [0, π]."""
    z, w = _gauss_legendre(n)
    theta = 0.5 * math.pi * (z + 1.0)
    w = 0.5 * math.pi * w
    log_omega = _series.log_gamma_ratio(0.5 * (p - 1), 0.5) - 0.5 * math.log(math.pi)
    sin_t = np.sin(theta)
    weights = w * np.exp(log_omega + (p - 2) * np.log(sin_t))
    t = np.cos(theta)
    t.flags.writeable = False
    weights.flags.writeable = False
    return t, weights


def quadrature_spectrum(kernel, p: int, kmax: int, nodes: int):
    """μ_k = ω ∫_0^π κ(cos θ) P_k(cos θ) sin^{p-2} θ dθ, ``nodes``-point Gauss–Legendre.

    ``kernel`` maps an array of cosines to kernel values. Returns ``(mu, abs_sum)`` with
    ``abs_sum[k] = Σ_i |w_i κ_i P_k|`` (the rounding scale).
    """
    t, w = _quadrature_rule(nodes, p)
    vals = np.asarray(kernel(t), dtype=np.float64)
    mu = np.zeros(kmax + 1)
    absmu = np.zeros(kmax + 1)
    _legendre_moments(t, w * vals, kmax, float(p), mu, absmu)
    return mu, absmu


def _quadrature_nodes(kmax: int) -> int:
    return max(256, 2 * kmax + 160)


def _quadrature_route(spec, p: int, kmax: int):
    def kernel(t):
        return _evaluate_kernel(spec, t)[0]

    n_fine = _quadrature_nodes(kmax)
    mu, absmu = quadrature_spectrum(kernel, p, kmax, n_fine)
    mu_coarse, _ = quadrature_spectrum(kernel, p, kmax, (3 * n_fine) // 4)
    # kernel values: ~1e-15 random and up to ~1e-14 systematic relative error (the
    # activation tables' Hermite coefficients); the sum rounds at ~eps per term
    err = np.abs(mu - mu_coarse) + 4e-15 * absmu + 8.0 * _EPS * absmu + 1e-13 * np.abs(mu)
    return np.zeros(kmax + 1), mu, err, np.zeros(kmax + 1, dtype=bool), 1.0


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
def _validated(spec) -> KernelSpec:
    if not isinstance(spec, KernelSpec):
        raise ValueError(f"spec must be a KernelSpec, got {type(spec).__name__}")
    return spec.validated()


def mercer_spectrum(spec: KernelSpec, dim: int, kmax: int) -> Spectrum:
    """Mercer eigenvalues ``μ_k`` of ``spec`` on ``S^{dim-1}`` for ``k = 0..kmax``.

    Parameters
    ----------
    spec : KernelSpec
        The dot-product kernel; ``spec.normalize`` divides by ``κ(1)``.
    dim : int
        Input dimension ``p`` in [2, 1000] (sphere ``S^{p-1}``).
    kmax : int
        Highest degree, in [0, 2000].

    Returns
    -------
    Spectrum
        ``mu`` for the uniform probability measure (eigenvalue per harmonic) and
        ``log10_mu`` (every k, also far below 1e-308), with multiplicities ``N(p, k)``,
        absolute ``error_estimate``, ``relative_error`` and ``exact_zero`` flags. See the
        module docstring for the methods and their accuracy.
    """
    p = check_int("dim", dim, 2, MAX_DIM)
    kmax = check_int("kmax", kmax, 0, MAX_KMAX)
    return _mercer_spectrum(_validated(spec), p, kmax)


def _mercer_spectrum(spec: KernelSpec, p: int, kmax: int) -> Spectrum:
    """:func:`mercer_spectrum` of a validated ``spec``, ``p`` in [2, MAX_DIM] and ``kmax`` in
    [0, MAX_KMAX] (not re-checked: for requests that validated them once)."""
    if spec.name == "ntk" and spec.activation == "step" and p == 2:
        raise ValueError("dim must be >= 3 for the step-activation NTK: it behaves like "
                         "(1 - u)^(-1/2) at u = 1, so its eigenvalues diverge on the circle")
    form = _closed_form_name(spec)
    if form is not None:
        log_scale, mu, err, zero, at_one = _closed_form_spectrum(form, p, kmax)
        method = "closed-form"
    elif _series_kernel(spec):
        log_scale, mu, err, zero, at_one = _series_spectrum(spec, p, kmax)
        method = "series"
        parity = _parity_zeros(spec, kmax)
        with np.errstate(divide="ignore"):
            not_tiny = log_scale + np.log(np.abs(mu)) > math.log(_TINY)
        if np.any(~(err <= _HYBRID_RTOL * np.abs(mu)) & ~parity & (not_tiny | ~np.isfinite(err))):
            # very deep or nearly singular kernels: take quadrature where it is better
            _, q_mu, q_err, _, _ = _quadrature_route(spec.replace(normalize=False), p, kmax)
            with np.errstate(divide="ignore"):
                better = ~(np.log(q_err) >= np.log(err) + log_scale)
            if np.any(better):
                mu = np.where(better, q_mu, mu)
                err = np.where(better, q_err, err)
                log_scale = np.where(better, 0.0, log_scale)
                method = "series+quadrature"
    else:
        log_scale, mu, err, zero, at_one = _quadrature_route(spec, p, kmax)
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
    with np.errstate(divide="ignore", invalid="ignore"):
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


def decay_guides(spec: KernelSpec, dim: int) -> list[tuple[str, float, float]]:
    """Guide lines ``μ_k ≈ C k^exponent`` for the spectrum plot: ``(label, C, exponent)``.

    * κ0 and NTKs: ``C(p) k^{-p}``; κ1 / NNGPs: ``p C(p) k^{-p-2}``.
    * ReLU-family kernels other than the two-layer closed forms also get their exact
      leading asymptote per parity, from the end-point expansion
      ``κ(±(1 - ε)) ≈ ... + c_± ε^{α}``: ``μ_k ~ (c_+ + (-1)^k c_-) E_k(α)``.
    * Smooth activations (eigenvalues decaying faster than any power): ``[]``.
    """
    return _decay_guides(_validated(spec), check_int("dim", dim, 2, MAX_DIM))


def _decay_guides(spec: KernelSpec, p: int) -> list[tuple[str, float, float]]:
    """:func:`decay_guides` of a validated ``spec`` and a checked ``p`` (no checks)."""
    form = _closed_form_name(spec)
    cp = _asymptotic_constant(p)
    scale = 1.0
    if form is not None:
        if spec.normalize:
            scale = 2.0 if form == "ntk" else 1.0
        if form == "arccos1":
            return [(f"p·C(p)·k^-{p + 2} (even k)", p * cp / scale, float(-p - 2))]
        parity = "odd" if form == "arccos0" else "even"
        return [(f"C(p)·k^-{p} ({parity} k)", cp / scale, float(-p))]
    if not _series_kernel(spec) or spec.activation not in ("relu", "step"):
        return []  # smooth activations: faster than any power
    ex = _expansion(spec)
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
