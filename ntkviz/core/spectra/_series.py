"""Truncated power-series machinery behind the Mercer spectra (private).

Everything here works on float64 arrays ``a`` holding the coefficients
``a[0] + a[1] t + a[2] t**2 + ...`` of a series truncated at ``len(a)``.
The variable ``t`` is either the cosine ``u`` (expansion at ``u = 0``, used for
the Taylor coefficients ``b_n`` of a dot-product kernel) or ``h = sqrt(1 - u)``
/ ``h = sqrt(1 + u)`` (Puiseux expansions at the singular end points).

Three families of closed forms feed :mod:`ntkviz.core.spectra.mercer`, all for the
Funk–Hecke integral with the uniform probability measure on ``S^{p-1}``,
``μ_k[f] = ω ∫_{-1}^{1} f(t) P_k(t) (1 - t²)^{(p-3)/2} dt``,
``ω = Γ(p/2) / (√π Γ((p-1)/2))``:

* monomials (Rodrigues + k integrations by parts), for ``n = k + 2j``::

      T(n, k) = ω Γ((p-1)/2) n! Γ(j + 1/2) / ((n-k)! 2^k Γ(j + k + p/2))  > 0

  and ``T(n, k) = 0`` when ``n < k`` or ``n - k`` is odd;
* half-integer powers at the end points (same route, then a Beta integral)::

      E_k(α) = μ_k[(1 - t)^α]
             = ω Γ((p-1)/2) 2^(α+p-2) Γ(α + (p-1)/2) Γ(k - α) / (Γ(-α) Γ(α + k + p - 1)),

  and ``μ_k[(1 + t)^α] = (-1)^k E_k(α)``;
* Taylor coefficients ``[u^n] (1 - u)^α = Γ(n - α) / (Γ(-α) n!)``.

All of them are evaluated in log space with a separate sign, so ``p`` up to 1000 and
``k`` up to a few thousand neither overflow nor lose digits; sums can be returned scaled
by ``exp(logscale[k])`` so that values far below the float64 range (1e-308) keep their
digits. The k-dependence of ``T(k, k)`` and ``E_k(α)`` comes from exact ratio recurrences
in k (a product of k correctly rounded factors), not from differences of ``lgamma``
values: at p = 1000, k = 2000 those are ~1e4 with ~4e-12 absolute error each, which
would put a relative error of ~1e-11 on every eigenvalue.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__: list[str] = []  # private module; imported explicitly by mercer.py

_LOG2 = math.log(2.0)
#: renormalisation step of running products (a power of 2: dividing by it is exact)
_BIG = 2.0**600
_LOG_BIG = 600.0 * 0.6931471805599453
#: relative rounding per factor of a running product (one multiply, one divide)
#: float64 machine epsilon (2^-52), shared by every route
EPS = float(np.finfo(np.float64).eps)
PRODUCT_ROUNDING = 2.0 * 2.0**-53


# --------------------------------------------------------------------------- arithmetic
def mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Product of two series, truncated to ``len(a)`` terms (direct convolution, exact order)."""
    return np.convolve(a, b)[: len(a)]


@njit(nogil=True, cache=True)
def power(a, alpha):
    """``a(t)**alpha`` for a series with ``a[0] > 0`` (J.C.P. Miller recurrence, O(n²)).

    ``c_n = (1 / (n a_0)) Σ_{j=1..n} ((α + 1) j - n) a_j c_{n-j}``. When ``a_j <= 0``
    for ``j >= 1`` and ``α < 0`` every term is non-negative (no cancellation).
    """
    n = a.shape[0]
    c = np.zeros(n)
    c[0] = a[0] ** alpha
    for m in range(1, n):
        s = 0.0
        for j in range(1, m + 1):
            s += ((alpha + 1.0) * j - m) * a[j] * c[m - j]
        c[m] = s / (m * a[0])
    return c


def deriv(a: np.ndarray) -> np.ndarray:
    """d/dt, keeping the length (last coefficient becomes 0)."""
    out = np.zeros_like(a)
    out[:-1] = a[1:] * np.arange(1, len(a))
    return out


def integ(a: np.ndarray, const: float) -> np.ndarray:
    """Antiderivative with value ``const`` at t = 0, keeping the length."""
    out = np.empty_like(a)
    out[0] = const
    out[1:] = a[:-1] / np.arange(1, len(a))
    return out


def shift_up(a: np.ndarray, m: int) -> np.ndarray:
    """Multiply by ``t**m`` (truncated)."""
    out = np.zeros_like(a)
    out[m:] = a[: len(a) - m]
    return out


def _arccos_one_minus(y: np.ndarray) -> np.ndarray:
    """Series of ``arccos(1 - y)`` for ``y = h² g(h)``, ``g(0) > 0``; ``h`` is the variable.

    ``arccos(1 - y) = 2 arcsin(√(y/2)) = h √(2g) Σ_j a_j (y/2)^j``,
    ``a_j = (2j)! / (4^j (j!)² (2j+1))``.
    """
    n = len(y)
    g = np.zeros(n)
    g[: n - 2] = y[2:]
    half = y / 2.0
    acc = np.zeros(n)
    a_j = [1.0]
    for j in range(1, n // 2 + 1):
        a_j.append(a_j[-1] * (2 * j - 1) * (2 * j - 1) / (2 * j * (2 * j + 1)))
    for j in range(len(a_j) - 1, -1, -1):  # Horner in y/2
        acc = mul(acc, half)
        acc[0] += a_j[j]
    return shift_up(mul(power(2.0 * g, 0.5), acc), 1)


def arcsin_series(x: np.ndarray):
    """``(arcsin(x(t)), (1 - x(t)²)^{-1/2})`` for a series with ``|x(0)| < 1``.

    ``d arcsin(x)/dt = x'(t) (1 - x²)^{-1/2}``, integrated term by term; with
    ``x(0) >= 0`` and non-negative coefficients every sum is of positive terms.
    """
    y = -mul(x, x)
    y[0] += 1.0
    w = power(y, -0.5)
    return integ(mul(deriv(x), w), math.asin(float(x[0]))), w


def relu_duals(x: np.ndarray):
    """Series of ``κ0(x(t))`` and ``κ1(x(t))`` for a series ``x(t)`` with ``x(0) ∈ [-1, 1]``.

    κ0(x) = (π - arccos x)/π, κ1(x) = (√(1 - x²) + x (π - arccos x))/π.

    * ``|x(0)| < 1`` (analytic point): ``κ0' = 1/(π√(1 - x²))``, ``κ1' = κ0`` integrated
      along ``t`` (chain rule); cancellation-free when ``x(0) >= 0`` and ``x`` has
      non-negative coefficients.
    * ``x(0) = ±1`` (end point, ``t = h`` the square root of the distance): ``1 ∓ x`` must be
      ``h² g(h)``; closed expansions of arccos and √(1 - x²) in ``h`` are used.
    """
    x0 = float(x[0])
    if abs(x0) < 1.0 - 1e-12:
        k0 = arcsin_series(x)[0] / math.pi
        k0[0] += 0.5
        k1 = integ(mul(deriv(x), k0), _kappa1_scalar(x0))
        return k0, k1
    sign = 1.0 if x0 > 0 else -1.0
    y = -sign * x  # 1 ∓ x = h² g(h)
    y[0] = 0.0
    y[1] = 0.0
    acos_near = _arccos_one_minus(y)  # arccos(1 - y)
    two_minus_y = -y
    two_minus_y[0] += 2.0
    root = mul(y, two_minus_y)  # 1 - x² = y (2 - y) = h² (...)
    g = np.zeros_like(root)
    g[:-2] = root[2:]
    sqrt_1mx2 = shift_up(power(g, 0.5), 1)
    if sign > 0:
        pi_minus_acos = -acos_near
        pi_minus_acos[0] += math.pi
    else:
        pi_minus_acos = acos_near
    k0 = pi_minus_acos / math.pi
    k1 = (sqrt_1mx2 + mul(x, pi_minus_acos)) / math.pi
    return k0, k1


def _kappa1_scalar(x: float) -> float:
    return (math.sqrt((1.0 - x) * (1.0 + x)) + x * (math.pi - math.acos(x))) / math.pi


#: c_σ for erf: 1 / E[erf(z)²] = 1 / ((2/π) asin(2/3))
ERF_NORMALISATION = 1.0 / ((2.0 / math.pi) * math.asin(2.0 / 3.0))
#: activations whose dual maps this module expands in closed form (step: NNGP only)
SERIES_ACTIVATIONS = ("relu", "step", "erf")


def hermite_compose(coef: np.ndarray, rho: np.ndarray):
    """``Σ_n coef[n] ρ(t)^n`` and ``Σ_n n coef[n] ρ(t)^{n-1}`` for a series ρ.

    Baby-step giant-step (Paterson–Stockmeyer): the powers ρ^0..ρ^{s-1} and ρ^s, s ≈ √n,
    then Horner in ρ^s over blocks — about 3√n series products instead of 2n. With
    ``coef >= 0`` and ρ of non-negative coefficients every sum is of positive terms.
    """
    m = coef.shape[0]
    step = max(1, int(math.ceil(math.sqrt(m))))
    powers = [np.zeros_like(rho)]
    powers[0][0] = 1.0
    for _ in range(step):
        powers.append(mul(powers[-1], rho))
    giant = powers[step]
    baby = np.array(powers[:step])

    def evaluate(c):
        out = np.zeros_like(rho)
        for start in range(((len(c) - 1) // step) * step, -1, -step):
            block = c[start:start + step]
            out = mul(out, giant) + block @ baby[: len(block)]
        return out

    return evaluate(coef), evaluate(coef[1:] * np.arange(1, m))


def dual_recursion(u_series: np.ndarray, depth: int, bias: float, activation: str,
                   hermite=None):
    """Deep NNGP/NTK recursion (NTK parameterisation, ReLU factor 2) on series: returns ``(NNGP_L, NTK_L)`` as series.

    ``u_series`` is the cosine ``u`` as a series in the working variable.
    Σ_0 = u + β, q_0 = 1 + β, Θ_0 = Σ_0; Σ_l = k̂(Σ_{l-1}; q_{l-1}) + β,
    q_l = k̂(q_{l-1}; q_{l-1}) + β, Θ_l = Σ_l + Θ_{l-1} k̂'(Σ_{l-1}; q_{l-1}), with

    * relu: ``k̂(s; q) = q κ1(s/q)``, ``k̂' = κ0(s/q)``;
    * step: ``k̂ = κ0(s/q)`` (NNGP only: the step NTK is infinite at u = 1, ``None``);
    * erf: ``k̂ = c (2/π) asin(x)``, ``k̂' = c (2/π) (2/(1+2q)) (1 - x²)^{-1/2}``,
      ``x = 2s/(1+2q)``, ``c = ERF_NORMALISATION`` (Williams 1997);
    * any other activation: ``hermite = (q, coef, ncoef)`` per layer (Mehler's formula,
      :func:`ntkviz.core.kernels.activations.dual_tables`): ``k̂ = Σ_n coef[l, n] ρ^n``,
      ``k̂' = Σ_n n coef[l, n] ρ^{n-1} / q_l``, ρ = s/q_l.
    """
    sigma = u_series.copy()
    sigma[0] += bias
    q = 1.0 + bias
    theta = sigma.copy()
    for layer in range(depth - 1):
        if hermite is not None:
            q = float(hermite[0][layer])
            val, dval = hermite_compose(hermite[1][layer, : hermite[2][layer]], sigma / q)
            new_sigma = val
            new_q = float(hermite[0][layer + 1])
            theta = new_sigma + mul(theta, dval / q)
        elif activation == "erf":
            scale = 2.0 / (1.0 + 2.0 * q)
            asin, w = arcsin_series(sigma * scale)
            amp = ERF_NORMALISATION * 2.0 / math.pi
            new_sigma = amp * asin
            new_q = amp * math.asin(q * scale) + bias
            theta = new_sigma + mul(theta, (amp * scale) * w)
        else:
            k0, k1 = relu_duals(sigma / q)
            if activation == "relu":
                new_sigma = q * k1
                new_q = q + bias  # q κ1(1) + β
                theta = new_sigma + mul(theta, k0)
            else:  # step
                new_sigma = k0.copy()
                new_q = 1.0 + bias
                theta = None
        new_sigma[0] += bias
        if theta is not None:
            theta[0] += bias
        sigma, q = new_sigma, new_q
    return sigma, theta


# --------------------------------------------------------------------------- closed forms
@njit(nogil=True, cache=True)
def _log_omega_gamma(p):
    """log(ω Γ((p-1)/2)) = log Γ(p/2) - log √π."""
    return math.lgamma(0.5 * p) - 0.5 * math.log(math.pi)


#: Stirling-series coefficients B_2m / (2m (2m - 1)), m = 1..7
_STIRLING = (1.0 / 12.0, -1.0 / 360.0, 1.0 / 1260.0, -1.0 / 1680.0, 1.0 / 1188.0,
             -691.0 / 360360.0, 1.0 / 156.0)


@njit(nogil=True, cache=True)
def log_gamma_ratio(x, a):
    """log(Γ(x + a) / Γ(x)) for x > 0, x + a > 0, accurate to a few ulps of the result.

    ``lgamma(x + a) - lgamma(x)`` loses the absolute error of two values of size
    ~x log x (4e-12 at x = 2500); for x, x + a >= 20 Stirling's series is differenced
    term by term instead: (x - 1/2) log1p(a/x) + a log(x + a) - a
    + Σ_m c_m ((x + a)^{1-2m} - x^{1-2m}), truncation below 1e-19.
    """
    y = x + a
    if x < 20.0 or y < 20.0:
        return math.lgamma(y) - math.lgamma(x)
    out = (x - 0.5) * math.log1p(a / x) + a * math.log(y) - a
    iy = 1.0 / y
    ix = 1.0 / x
    py = iy
    px = ix
    for c in _STIRLING:
        out += c * (py - px)
        py *= iy * iy
        px *= ix * ix
    return out


@njit(nogil=True, cache=True)
def log_singular_moment0(alpha, p):
    """log E_0(α) = log μ_0[(1 - t)^α] (E_0 > 0).

    By the duplication formula, E_0(α) = Γ(p/2) Γ(z + α/2) / (Γ(z) Γ((α + p)/2)) with
    z = (α + p - 1)/2, two Gamma ratios of arguments a small α/2 apart.
    """
    z = 0.5 * (alpha + p - 1.0)
    return log_gamma_ratio(z, 0.5 * alpha) - log_gamma_ratio(0.5 * p, 0.5 * alpha)


@njit(nogil=True, cache=True)
def singular_moments_log(alpha, kmax, p, log_abs, sign):
    """(log|E_k(α)|, sign E_k(α)) for k = 0..kmax, E_k(α) = μ_k[(1 - t)^α], α > 0 not an
    integer: E_0 from :func:`log_singular_moment0`, then the exact ratio
    E_{k+1}/E_k = (k - α)/(α + k + p - 1) as a running product (relative rounding at most
    ``PRODUCT_ROUNDING`` per degree)."""
    lg0 = log_singular_moment0(alpha, p)
    m = 1.0
    sgn = 1.0
    renorm = 0
    for k in range(kmax + 1):
        log_abs[k] = lg0 + math.log(m) - renorm * _LOG_BIG
        sign[k] = sgn
        r = (k - alpha) / (alpha + k + p - 1.0)
        if r < 0.0:
            sgn = -sgn
            r = -r
        m *= r
        if m < 1.0 / _BIG:
            m *= _BIG
            renorm += 1


@njit(nogil=True, cache=True)
def log_monomial_moment(n, k, p):
    """log T(n, k) (see module docstring); only for n >= k, n - k even."""
    j = (n - k) // 2
    return (_log_omega_gamma(p) + math.lgamma(n + 1.0) - math.lgamma(n - k + 1.0)
            - k * 0.6931471805599453 + math.lgamma(j + 0.5) - math.lgamma(j + k + 0.5 * p))


def taylor_one_minus_power(alpha: float, n: int) -> np.ndarray:
    """``[u^m] (1 - u)^α`` for m = 0..n-1 (exact recurrence m c_m = (m - 1 - α) c_{m-1})."""
    m = np.arange(1, n, dtype=np.float64)
    return np.concatenate(([1.0], np.cumprod((m - 1.0 - alpha) / m)))


def moment_sums_rows(rows, kmax, p, out, absout, logscale=None):
    """out[i, k] = Σ_{n ≡ k (2), k <= n < N} rows[i, n] T(n, k); absout the same with |rows|.

    T is built by the exact ratio recurrence in n (step 2) from log T(k, k), which is
    cheaper than lgamma per term and as accurate; a running exponent keeps the
    partial sums inside the float64 range for any p <= 1000, k <= a few thousand.

    With ``logscale`` (an array of ``kmax + 1``) the sums are returned *scaled*: the
    value is ``out[i, k] · exp(logscale[k])`` (log space: nothing underflows however
    small ``T(n, k)`` is); without it they are multiplied out (values below ~1e-308
    underflow).
    """
    scale = np.zeros(kmax + 1)
    _moment_sums(np.ascontiguousarray(np.asarray(rows, dtype=np.float64).T), kmax, float(p),
                 out, absout, scale)
    if logscale is not None:
        logscale[:] = scale
        return
    out[:] = times_exp(out, scale)
    absout[:] = times_exp(absout, scale)


def times_exp(x, log_factor):
    """``x · exp(log_factor)`` (broadcast on the last axis) without overflow in between:
    ``sign(x) exp(log|x| + log_factor)``; exact zeros stay 0."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        out = np.sign(x) * np.exp(np.log(np.abs(x)) + log_factor)
    return np.where(x == 0.0, 0.0, out)


@njit(nogil=True, cache=True)
def _moment_sums(cols, kmax, p, out, absout, logscale):
    nmax = cols.shape[0]
    nrows = cols.shape[1]
    big = _BIG
    lbig = _LOG_BIG
    s = np.zeros(nrows)
    sa = np.zeros(nrows)
    diag = 1.0
    renorm = 0
    for k in range(kmax + 1):
        for i in range(nrows):
            out[i, k] = 0.0
            absout[i, k] = 0.0
            s[i] = 0.0
            sa[i] = 0.0
        logscale[k] = 0.0
        # T(k, k) = Γ(p/2) k! / (2^k Γ(k + p/2)) = diag · 2^(-600 renorm), by the exact
        # ratio T(k+1, k+1)/T(k, k) = (k + 1)/(2k + p) (no lgamma differences)
        if k > 0:
            diag *= k / (2.0 * k - 2.0 + p)
            if diag < 1.0 / _BIG:
                diag *= _BIG
                renorm += 1
        if k >= nmax:
            continue
        scale = math.log(diag) - renorm * _LOG_BIG  # values are t * exp(scale)
        t = 1.0
        j = 0
        n = k
        while n < nmax:
            for i in range(nrows):
                term = cols[n, i] * t
                s[i] += term
                sa[i] += abs(term)
            # T(n+2, k)/T(n, k) = (n+1)(n+2)/((n-k+1)(n-k+2)) * (j+1/2)/(j+k+p/2)
            t *= ((n + 1.0) * (n + 2.0) / ((n - k + 1.0) * (n - k + 2.0))
                  * (j + 0.5) / (j + k + 0.5 * p))
            if t > big:
                t /= big
                for i in range(nrows):
                    s[i] /= big
                    sa[i] /= big
                scale += lbig
            n += 2
            j += 1
        for i in range(nrows):
            out[i, k] = s[i]
            absout[i, k] = sa[i]
        logscale[k] = scale


@njit(nogil=True, cache=True)
def _monomial_grows(n, k, p):
    """T(n + 2, k) > T(n, k) (ratio of the recurrence in ``_moment_sums``)."""
    j = (n - k) // 2
    return ((n + 1.0) * (n + 2.0) * (j + 0.5)
            > (n - k + 1.0) * (n - k + 2.0) * (j + k + 0.5 * p))


@njit(nogil=True, cache=True)
def max_monomial_moments(nmin, kmax, p, out):
    """out[k] = max_{n >= max(nmin, k), n ≡ k (2)} log T(n, k).

    T(n, k) is unimodal in n (its ratio T(n+2, k)/T(n, k) decreases through 1), so the
    peak is found by doubling then bisection on that ratio: O(log n) per k (the peak
    sits near n ~ k² at p = 2, far too far for a linear climb).
    """
    for k in range(kmax + 1):
        lo = max(nmin, k)
        if (lo - k) % 2 == 1:
            lo += 1
        if not _monomial_grows(lo, k, p):
            out[k] = log_monomial_moment(lo, k, p)
            continue
        step = 2
        hi = lo + step
        while _monomial_grows(hi, k, p):  # invariant: grows at lo, not at hi (after loop)
            lo = hi
            step *= 2
            hi = lo + step
        while hi - lo > 2:
            mid = lo + ((hi - lo) // 4) * 2
            if _monomial_grows(mid, k, p):
                lo = mid
            else:
                hi = mid
        out[k] = log_monomial_moment(hi, k, p)
