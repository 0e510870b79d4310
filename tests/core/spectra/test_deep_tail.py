"""Deep-tail spectra against an independent ball-arithmetic reference.

The reference (``tests/data/deep_tail_p1000.npz``, written by
``tests/data/make_deep_tail_reference.py``) computes the Taylor coefficients of the deep
ReLU NTK/NNGP by a Cauchy integral in 512-bit complex ball arithmetic and sums the
positive series μ_k = Σ_n b_n T(n, k) with a rigorous truncation bound; it shares no code
with ntkviz. Here: every value ntkviz vouches for is within 1e-6 of it, and every error
estimate bounds the actual error, at depth 50, p = 1000, k <= 2000, β ∈ {0, 1, 10}.
The method itself is checked against the 50-digit oracle at a small size.
"""
from __future__ import annotations

import importlib.util
import json
import math

import numpy as np
import pytest

from ntkviz.core import KernelSpec, mercer_spectrum
from ntkviz.core.spectra import _series

CASES = [(name, beta) for beta in (0.0, 1.0, 10.0) for name in ("ntk", "nngp")]


@pytest.fixture(scope="module")
def reference(data_dir):
    with np.load(data_dir / "deep_tail_p1000.npz") as ref:
        return {key: ref[key] for key in ref.files}


def relative_difference(log10_value, mantissa, exponent):
    """|x/ref - 1| for x = 10**log10_value and ref = mantissa 10**exponent (no underflow)."""
    with np.errstate(over="ignore", invalid="ignore"):
        diff = ((log10_value - exponent) - np.log10(mantissa)) * math.log(10.0)
        return np.abs(np.expm1(diff))


@pytest.mark.parametrize("name, beta", CASES)
def test_trusted_values_and_estimates_against_reference(reference, name, beta):
    depth, p, kmax = int(reference["depth"]), int(reference["dim"]), int(reference["kmax"])
    key = f"{name}_beta{beta:g}"
    s = mercer_spectrum(KernelSpec(name, depth, beta), p, kmax)
    trusted = s.log10_trustworthy & ~s.exact_zero
    assert trusted.sum() > kmax // 2  # the check has something to check
    rel = relative_difference(s.log10_mu, reference[f"{key}_mantissa"], reference[f"{key}_exponent"])
    unc = reference[f"{key}_unc"]
    assert np.all(unc < 1e-13)
    wrong = np.nonzero(trusted & ~(rel <= 1e-6))[0]
    assert wrong.size == 0, f"trusted but wrong at k = {wrong[:10]}: {rel[wrong[:10]]}"
    exceeded = np.nonzero(trusted & ~(rel <= s.relative_error + unc))[0]
    assert exceeded.size == 0, (f"estimate exceeded at k = {exceeded[:10]}: actual "
                                f"{rel[exceeded[:10]]}, estimate {s.relative_error[exceeded[:10]]}")
    # float64 mu where representable agrees as well (normal range only)
    normal = s.trustworthy & ~s.exact_zero
    ref_mu = reference[f"{key}_mantissa"][normal] * 10.0 ** reference[f"{key}_exponent"][normal]
    np.testing.assert_allclose(s.mu[normal], ref_mu, rtol=1e-6)


def _generator(data_dir):
    path = data_dir / "make_deep_tail_reference.py"
    spec = importlib.util.spec_from_file_location("make_deep_tail_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_method_against_the_50_digit_oracle(data_dir):
    """The generator's method (Cauchy integral in ball arithmetic + positive series with a
    truncation bound), run small, reproduces the oracle's depth-3 eigenvalues at p = 10."""
    pytest.importorskip("flint")
    gen = _generator(data_dir)
    with open(data_dir / "kernels_oracle.json") as fh:
        oracle = json.load(fh)["mercer"]["p10"]
    kmax = 20
    kernels = gen.taylor_coefficients(3, 0.0, points=2**13, n_max=6000, decay=60, prec=128)
    for name, (bn, at_one) in zip(("ntk_L3", "nngp_L3"), kernels):
        mant, expo, unc = gen.eigenvalues(bn, at_one, 10, kmax)
        want = np.array([float(v) for v in oracle[f"{name}_str"][: kmax + 1]])
        got = mant * 10.0 ** expo
        # at p = 10 T(n, k) decays slowly in n, so the truncation bound is what limits it
        assert np.all(unc[:5] < 1e-12) and np.all(unc < 1e-7)
        np.testing.assert_allclose(got, want, rtol=1e-7, err_msg=name)
        assert np.all(np.abs(got / want - 1.0) <= unc + 1e-15), name  # the bound holds


# --------------------------------------------------------------------------- prefactors
def test_log_gamma_ratio_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    for x in (0.5, 3.0, 19.5, 20.0, 250.25, 499.5, 2999.0):
        for a in (0.25, 0.5, 3.25, 7.0):
            want = mpmath.loggamma(mpmath.mpf(x) + a) - mpmath.loggamma(x)
            assert _series.log_gamma_ratio(x, a) == pytest.approx(float(want), rel=4e-15, abs=4e-16)


def test_diagonal_monomial_moments_are_accurate_at_p_1000():
    """T(k, k) (the scale of every degree-k sum) to ~1e-13 relative at k <= 2000, p = 1000
    (a difference of lgamma values ~1e4 would be off by ~4e-12)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    p, kmax = 1000, 2000
    rows = np.eye(kmax + 1)[:, : kmax + 1]  # row i: the monomial u^i
    out = np.zeros((kmax + 1, kmax + 1))
    absout = np.zeros_like(out)
    scale = np.zeros(kmax + 1)
    _series.moment_sums_rows(rows, kmax, p, out, absout, scale)
    for k in (0, 1, 7, 300, 999, 1500, 2000):
        want = (mpmath.loggamma(mpmath.mpf(p) / 2) + mpmath.loggamma(k + 1)
                - k * mpmath.log(2) - mpmath.loggamma(k + mpmath.mpf(p) / 2))
        got = scale[k] + math.log(out[k, k])
        assert abs(got - float(want)) <= 2e-13 + 2.0**-52 * abs(float(want)), k


def test_singular_moments_are_accurate_at_p_1000():
    """E_k(α) = μ_k[(1 - t)^α] by its closed form in 40-digit arithmetic."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    p, kmax = 1000, 2000
    for alpha in (0.5, 1.5, 6.5):
        log_abs = np.zeros(kmax + 1)
        sign = np.zeros(kmax + 1)
        _series.singular_moments_log(alpha, kmax, float(p), log_abs, sign)
        a = mpmath.mpf(alpha)
        for k in (0, 1, 6, 7, 500, 2000):
            value = (mpmath.gamma(mpmath.mpf(p) / 2) / mpmath.sqrt(mpmath.pi) * 2 ** (a + p - 2)
                     * mpmath.gamma(a + mpmath.mpf(p - 1) / 2) * mpmath.gamma(k - a)
                     / (mpmath.gamma(-a) * mpmath.gamma(a + k + p - 1)))
            assert sign[k] == (1.0 if value > 0 else -1.0), (alpha, k)
            assert abs(log_abs[k] - float(mpmath.log(abs(value)))) <= 2e-13 + 1e-16 * k, (alpha, k)
