"""Power-series machinery behind the spectra, against mpmath (independent routes)."""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from ntkviz.core.spectra import _series
from ntkviz.core.spectra._reference import mp_legendre


def gegenbauer_moment(f, k, p, dps=30):
    """ω ∫ f(t) P_k(t) (1 - t²)^{(p-3)/2} dt by mpmath quadrature."""
    with mp.workdps(dps):
        omega = mp.gamma(mp.mpf(p) / 2) / (mp.sqrt(mp.pi) * mp.gamma(mp.mpf(p - 1) / 2))

        weight = (p - 3) / mp.mpf(2)
        return omega * mp.quad(lambda t: f(t) * mp_legendre(k, p, t) * (1 - t * t) ** weight,
                               [-1, 0, 1])


@pytest.mark.parametrize("n,k,p", [(0, 0, 3), (4, 0, 5), (5, 3, 5), (10, 6, 4), (13, 1, 7),
                                   (8, 8, 3)])
def test_monomial_moment_closed_form(n, k, p):
    expected = gegenbauer_moment(lambda t: t**n, k, p)
    assert math.exp(_series.log_monomial_moment(n, k, float(p))) == pytest.approx(
        float(expected), rel=1e-13)


@pytest.mark.parametrize("alpha,k,p", [(0.5, 0, 3), (0.5, 5, 5), (1.5, 2, 4), (2.5, 7, 6),
                                       (3.5, 1, 10), (0.5, 9, 3)])
def test_singular_moment_closed_form(alpha, k, p):
    expected = float(gegenbauer_moment(lambda t: (1 - t) ** alpha, k, p))
    log_abs = np.zeros(k + 1)
    sign = np.zeros(k + 1)
    _series.singular_moments_log(alpha, k, float(p), log_abs, sign)
    assert sign[k] * math.exp(log_abs[k]) == pytest.approx(expected, rel=1e-12)


def test_moment_sums_rows_far_range():
    """Σ_n r_n T(n, k) stays finite and exact in log space for p = 1000, k = 2000."""
    rows = np.zeros((1, 2101))
    rows[0, 2000] = 1.0
    out = np.zeros((1, 2001))
    absout = np.zeros_like(out)
    _series.moment_sums_rows(rows, 2000, 30.0, out, absout)
    for k in (0, 2, 500, 1000, 1500):
        expected = math.exp(_series.log_monomial_moment(2000, k, 30.0))
        assert expected > 0 and out[0, k] == pytest.approx(expected, rel=1e-10)
    assert np.all(np.isfinite(out)) and np.all(out >= 0) and np.all(out[0, 1::2] == 0)


def test_power_and_taylor_coefficients():
    a = np.array([2.0, -0.5, 0.25, 0.0, 0.1, 0.0, 0.0, 0.0])
    with mp.workdps(30):
        expected = mp.taylor(lambda t: (2 - t / 2 + t**2 / 4 + t**4 / 10) ** mp.mpf(-0.5), 0, 7)
    np.testing.assert_allclose(_series.power(a, -0.5), [float(v) for v in expected], rtol=1e-14)
    with mp.workdps(30):
        expected = mp.taylor(lambda t: (1 - t) ** mp.mpf(2.5), 0, 9)
    np.testing.assert_allclose(_series.taylor_one_minus_power(2.5, 10),
                               [float(v) for v in expected], rtol=1e-14, atol=1e-300)


def test_relu_duals_taylor_and_puiseux():
    """κ0, κ1 composed with a series: Taylor at 0 and the expansion at u = 1 in h = √(1-u)."""
    x = np.zeros(12)
    x[1] = 1.0
    k0, k1 = _series.relu_duals(x)
    with mp.workdps(30):
        t0 = mp.taylor(lambda u: (mp.pi - mp.acos(u)) / mp.pi, 0, 11)
        t1 = mp.taylor(lambda u: (mp.sqrt(1 - u * u) + u * (mp.pi - mp.acos(u))) / mp.pi, 0, 11)
    np.testing.assert_allclose(k0, [float(v) for v in t0], rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(k1, [float(v) for v in t1], rtol=1e-14, atol=1e-16)
    h = np.zeros(9)
    h[0], h[2] = 1.0, -1.0  # u = 1 - h²
    k0, k1 = _series.relu_duals(h)
    with mp.workdps(30):
        # arccos(1 - h²) = 2 asin(h/√2): h -> κ(1 - h²) is analytic at h = 0
        def acos_near_one(s):
            return 2 * mp.asin(s / mp.sqrt(2))

        p0 = mp.taylor(lambda s: (mp.pi - acos_near_one(s)) / mp.pi, 0, 8)
        p1 = mp.taylor(lambda s: (s * mp.sqrt(2 - s * s)
                                  + (1 - s * s) * (mp.pi - acos_near_one(s))) / mp.pi, 0, 8)
    np.testing.assert_allclose(k0, [float(v) for v in p0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(k1, [float(v) for v in p1], rtol=1e-12, atol=1e-14)


def test_dual_recursion_matches_kernel_values():
    """Σ b_n u^n against the kernel front end (ntkviz.core.kernels.dotkernel) at |u| <= 0.9."""
    from ntkviz.core.kernels.dotkernel import KernelSpec, evaluate_kernel

    u_series = np.zeros(1024)
    u_series[1] = 1.0
    u = np.array([-0.9, -0.3, 0.0, 0.5, 0.9])
    powers = u[:, None] ** np.arange(1024)
    for depth, bias, act in ((3, 0.0, "relu"), (5, 0.4, "relu"), (4, 0.2, "erf")):
        nngp, ntk = _series.dual_recursion(u_series, depth, bias, act)
        assert np.all(nngp >= 0) and np.all(ntk >= 0)
        for name, coef in (("nngp", nngp), ("ntk", ntk)):
            expected = evaluate_kernel(KernelSpec(name, depth, bias, act), u)[0]
            np.testing.assert_allclose(powers @ coef, expected, rtol=1e-12)
