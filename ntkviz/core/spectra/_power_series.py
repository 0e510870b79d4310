"""The power-series route: Mercer eigenvalues of the ReLU-family kernels (deep NTK/NNGP,
any depth and bias; step NNGP; erf and the Hermite-series activations) as positive sums.

``κ(u) = Σ b_n u^n`` with ``b_n >= 0``; the ``√(1 ∓ u)``-type end-point singularities are
subtracted as Puiseux series ``S`` with closed-form eigenvalues ``E_k(j/2)``, and with
``r_n = b_n - [u^n] S``::

    μ_k = Σ_j (c_j + (-1)^k d_j) E_k(j/2) + Σ_{n ≡ k (2), n >= k} r_n T(n, k),

an exact identity (the whole method is described in :mod:`ntkviz.core.spectra.mercer`;
the closed forms ``T``, ``E`` and the expansions are in :mod:`ntkviz.core.spectra._series`).
"""
from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

from ntkviz.core.kernels._hermite import hermite_tables
from ntkviz.core.kernels.activations import activation_functions
from ntkviz.core.spectra import _series

__all__: list[str] = []  # private: used by ntkviz.core.spectra.mercer

_EPS = _series.EPS
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


def series_kernel(spec) -> bool:
    """Kernels the series route expands: every ``ntk``/``nngp`` except the step NNGP deeper
    than 2 (κ0∘κ0 has a (1 - u)^{1/4} end-point singularity, outside the half-integer
    Puiseux form used here) and the step NTK (infinite at u = 1): those go to quadrature.
    """
    if spec.name not in ("ntk", "nngp"):
        return False
    return spec.activation != "step" or (spec.name == "nngp" and spec.depth == 2)


def expansion(spec) -> _Expansion:
    """Expansions of ``spec`` (cached on the fields that matter: not on ``normalize``)."""
    return _expansion_cached(spec.name, spec.depth, spec.bias, spec.activation)


#: the fields of a ``KernelSpec`` an expansion depends on (taken from a valid spec)
_Kernel = namedtuple("_Kernel", "name depth bias activation")


@lru_cache(maxsize=32)
def _expansion_cached(name: str, depth: int, bias: float, activation: str) -> _Expansion:
    ex = _compute_expansion(_Kernel(name, depth, bias, activation))
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
        tables = hermite_tables(sigma, c_sigma, spec.depth, spec.bias)
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


def series_spectrum(spec, p: int, kmax: int):
    """μ_k = Σ_j (c_j + (-1)^k d_j) E_k(j/2) + Σ_n r_n T(n, k) per candidate order of the
    singular part, with error estimates; the best candidate per k (module docstring).

    Log space: every term is computed in units of ``exp(ref[k])``, ``ref[k]`` the log of
    the largest term of degree k, so eigenvalues far below 1e-308 keep their digits.
    Returns ``(ref, mu_scaled, err_scaled, exact_zero, κ(1))``.
    """
    ex = expansion(spec)
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
