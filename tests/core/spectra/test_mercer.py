"""Mercer spectra: oracle values, closed forms, sum rule, far-tail accuracy, errors."""
from __future__ import annotations

import functools
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from ntkviz.core.spectra import _reference as ref
from ntkviz.core.spectra import _series
from ntkviz.core.kernels.activations import activation_functions
from ntkviz.core.kernels.dotkernel import KernelSpec, evaluate_kernel
from ntkviz.core.spectra.mercer import asymptotic_constant, decay_guides, mercer_spectrum, multiplicity

DIMS = (2, 3, 5, 10)
ORACLE_SPECS = {
    "kappa0": KernelSpec("arccos0"),
    "kappa1": KernelSpec("arccos1"),
    "kappa_ntk": KernelSpec("ntk"),
    "ntk_L3": KernelSpec("ntk", 3),
    "nngp_L3": KernelSpec("nngp", 3),
    "ntk_L5": KernelSpec("ntk", 5),
    "nngp_L5": KernelSpec("nngp", 5),
}
CLOSED = ("kappa0", "kappa1", "kappa_ntk")


@pytest.fixture(scope="module")
def oracle(data_dir):
    with open(data_dir / "kernels_oracle.json") as fh:
        return json.load(fh)["mercer"]


def oracle_mu(oracle, p, name):
    # the 25-digit strings: exact to well below float64 rounding
    return np.array([float(v) for v in oracle[f"p{p}"][f"{name}_str"]])


# --------------------------------------------------------------------------- oracle
@pytest.mark.parametrize("p", DIMS)
@pytest.mark.parametrize("name", list(ORACLE_SPECS))
def test_oracle_eigenvalues(oracle, p, name):
    expected = oracle_mu(oracle, p, name)
    s = mercer_spectrum(ORACLE_SPECS[name], p, 60)
    assert s.method == ("closed-form" if name in CLOSED else "series")
    zero = expected == 0.0
    # exact zeros are exactly 0 and flagged; nothing else is flagged
    assert np.array_equal(s.exact_zero, zero)
    assert np.all(s.mu[zero] == 0.0) and np.all(s.error_estimate[zero] == 0.0)
    # closed forms: rtol 1e-12; deep kernels: 1e-12
    np.testing.assert_allclose(s.mu[~zero], expected[~zero], rtol=1e-12, atol=0)
    # the error estimate bounds the actual error and is itself below 1e-11 relative (it
    # carries a worst-case model of the rounding in the Taylor coefficients: n eps per layer)
    assert np.all(np.abs(s.mu - expected) <= s.error_estimate)
    assert np.all(s.error_estimate[~zero] <= 1e-11 * np.abs(expected[~zero]))


@pytest.mark.parametrize("p", DIMS)
def test_oracle_multiplicities(oracle, p):
    """N(p, k) against the oracle's N_pk and exact integer arithmetic.

    The oracle's ``N_pk`` is one too small at a few k (e.g. N(3, 47) = 95 = 2k + 1 is
    stored as 94; float truncation in its generator); its eigenvalues and partial sums
    are right. We hold the exact integers and allow only those off-by-one entries.
    """
    k = np.arange(61)
    mine = multiplicity(p, k)
    exact = [1] + [(2 * j + p - 2) * math.comb(j + p - 3, p - 2) // j for j in range(1, 61)]
    np.testing.assert_array_equal(mine, exact)
    stored = np.array(oracle[f"p{p}"]["N_pk"], dtype=np.float64)
    off = mine != stored
    assert np.all(mine[off] - stored[off] == 1) and off.sum() <= 5


@pytest.mark.parametrize("p", DIMS)
@pytest.mark.parametrize("name", list(ORACLE_SPECS))
def test_partial_sum_rule_matches_oracle(oracle, p, name):
    s = mercer_spectrum(ORACLE_SPECS[name], p, 60)
    partial = oracle[f"p{p}"][f"{name}_partial_sum_N_mu_k<=60"]
    assert np.sum(s.multiplicity * s.mu) == pytest.approx(partial, rel=1e-12)


# --------------------------------------------------------------------------- closed forms
def test_multiplicity_formulas():
    k = np.arange(200)
    np.testing.assert_array_equal(multiplicity(3, k), 2 * k + 1)
    np.testing.assert_array_equal(multiplicity(2, k), np.where(k == 0, 1, 2))
    np.testing.assert_array_equal(multiplicity(5, np.arange(6)), [1, 5, 14, 30, 55, 91])
    np.testing.assert_array_equal(multiplicity(10, np.arange(6)), [1, 10, 54, 210, 660, 1782])
    # exact integers (dimension of the degree-k harmonic polynomials) while < 2^53
    p, kk = 12, 40
    exact = math.comb(kk + p - 1, p - 1) - math.comb(kk + p - 3, p - 1)
    assert exact < 2**53 and multiplicity(p, kk) == exact
    assert multiplicity(1000, 2000) == math.inf  # beyond float64, not NaN
    assert multiplicity(4, 7).shape == ()


def test_p3_rational_eigenvalues():
    """At p = 3 every closed-form eigenvalue is rational."""
    fr = Fraction
    table = {
        "arccos0": [fr(1, 2), fr(1, 8), 0, fr(1, 128), 0, fr(1, 512), 0, fr(25, 32768)],
        "arccos1": [fr(3, 8), fr(1, 6), fr(3, 128), 0, fr(1, 1536), 0, fr(3, 32768)],
        "ntk": [fr(1, 2), fr(1, 3), fr(5, 64), 0, fr(1, 192), 0, fr(23, 16384)],
    }
    for name, values in table.items():
        s = mercer_spectrum(KernelSpec(name), 3, len(values) - 1)
        np.testing.assert_allclose(s.mu, [float(v) for v in values], rtol=1e-14, atol=0)


def test_p2_formulas():
    s0 = mercer_spectrum(KernelSpec("arccos0"), 2, 41)
    odd = np.arange(1, 42, 2)
    np.testing.assert_allclose(s0.mu[1::2], 2 / (np.pi**2 * odd**2), rtol=1e-13)
    s1 = mercer_spectrum(KernelSpec("arccos1"), 2, 40)
    even = np.arange(2, 41, 2)
    assert s1.mu[0] == pytest.approx(4 / np.pi**2, rel=1e-14)
    np.testing.assert_allclose(s1.mu[2::2], 4 / (np.pi**2 * (even**2 - 1) ** 2), rtol=1e-13)


def test_asymptotic_constants():
    """C(p) and μ_k k^p / C(p) -> 1 for κ0 (odd k) at large k."""
    assert asymptotic_constant(2) == pytest.approx(0.2026, abs=1e-4)
    assert asymptotic_constant(3) == pytest.approx(1 / np.pi, rel=1e-14)
    assert asymptotic_constant(5) == pytest.approx(2.865, abs=1e-3)
    assert asymptotic_constant(10) == pytest.approx(29881, rel=1e-4)
    for p in (3, 5):
        s = mercer_spectrum(KernelSpec("arccos0"), p, 2000)
        assert s.mu[1999] * 1999.0**p / asymptotic_constant(p) == pytest.approx(1, abs=1e-2)
    guides = decay_guides(KernelSpec("arccos1"), 5)
    assert guides[0][1:] == (pytest.approx(5 * asymptotic_constant(5)), -7.0)
    assert decay_guides(KernelSpec("ntk", 3, 0.0, "tanh"), 5) == []
    label, const, expo = decay_guides(KernelSpec("ntk", normalize=True), 3)[0]
    assert (const, expo) == (pytest.approx(asymptotic_constant(3) / 2), -3.0)


@pytest.mark.parametrize("spec", [KernelSpec("ntk", 3), KernelSpec("nngp", 4, 0.5)])
def test_deep_guides_are_the_asymptote(spec):
    """The per-parity asymptotes of decay_guides match μ_k at k = 2000."""
    p = 3
    s = mercer_spectrum(spec, p, 2000)
    asymptotes = [g for g in decay_guides(spec, p) if g[0].startswith("asymptote")]
    assert asymptotes
    for label, const, expo in asymptotes:
        k = 2000 if "even" in label else 1999
        assert s.mu[k] / (const * k**expo) == pytest.approx(1, abs=2e-3)


# --------------------------------------------------------------------------- sum rule
def test_sum_rule_full():
    """Σ_k N(p,k) μ_k = κ(1): NNGP at p = 2 (tail ~ k^-3 beyond 2000, < 1e-10)."""
    spec = KernelSpec("nngp", 3)
    s = mercer_spectrum(spec, 2, 2000)
    assert np.sum(s.multiplicity * s.mu) == pytest.approx(1.0, abs=1e-9)


def test_sum_rule_with_asymptotic_tail():
    """NTK L = 3 at p = 3: partial sum to 2000 plus the tail of the exact asymptote."""
    spec = KernelSpec("ntk", 3)
    p, kmax = 3, 2000
    s = mercer_spectrum(spec, p, kmax)
    tail = 0.0
    for label, const, expo in decay_guides(spec, p):
        if label.startswith("asymptote"):
            start = kmax + 2 if "even" in label else kmax + 1
            k = np.arange(start, 4_000_000, 2, dtype=np.float64)
            tail += np.sum(multiplicity(p, 2) / 5 * (2 * k + 1) * const * k**expo)
    assert np.sum(s.multiplicity * s.mu) + tail == pytest.approx(3.0, rel=1e-7)


# --------------------------------------------------------------------------- far tail
# independent 45-digit quadrature (composite Gauss–Legendre in θ, mpmath) at points where
# μ_k is 1e-11 .. 1e-32 of μ_0: float64 quadrature has no digit left there
FAR_TAIL = [
    ("ntk", 3, 0.0, 20, 200, "relu"),
    ("ntk", 3, 0.0, 5, 200, "relu"),
    ("nngp", 5, 0.0, 20, 151, "relu"),
    ("ntk", 2, 0.01, 20, 160, "relu"),
    ("ntk", 3, 0.2, 10, 60, "erf"),
]


@pytest.mark.parametrize("name,depth,bias,p,k,act", FAR_TAIL)
def test_far_tail_against_mpmath(name, depth, bias, p, k, act):
    spec = KernelSpec(name, depth, bias, act)
    s = mercer_spectrum(spec, p, k)
    exact = ref.mpmath_eigenvalue(k, p, name, depth, bias, dps=45 if act == "relu" else 60,
                                  pieces=4, activation=act)
    rel = abs((s.mu[k] - float(exact)) / float(exact))
    assert rel <= 1e-10
    assert s.error_estimate[k] <= 1e-6 * s.mu[k]
    assert abs(s.mu[k] - float(exact)) <= s.error_estimate[k]


# --------------------------------------------------------------------------- cross-checks
@pytest.mark.parametrize("spec", [
    KernelSpec("ntk", 4), KernelSpec("nngp", 3, 0.3), KernelSpec("ntk", 8, 2.0),
    KernelSpec("ntk", 3, 0.001), KernelSpec("nngp", 20), KernelSpec("nngp", 2, 0.5, "step"),
])
@pytest.mark.parametrize("p", (2, 3, 7))
def test_series_against_theta_quadrature(spec, p):
    """Independent NumPy quadrature (kernel in angles), where it is accurate."""
    kmax = 80
    s = mercer_spectrum(spec, p, kmax)
    if spec.activation == "relu":
        def kernel(theta):
            return ref.relu_kernel_theta(theta, spec.name, spec.depth, spec.bias)
    else:
        def kernel(theta):
            return evaluate_kernel(spec, np.cos(theta))[0]
    expected = ref.theta_quadrature(kernel, p, kmax, nodes=800)
    keep = np.abs(expected) >= 1e-8 * expected[0]
    np.testing.assert_allclose(s.mu[keep], expected[keep], rtol=2e-6)
    assert np.all(s.error_estimate <= 1e-6 * s.mu)  # ReLU family: 1e-6 everywhere


@pytest.mark.parametrize("activation", ["tanh", "gelu", "softplus", "sigmoid"])
@pytest.mark.parametrize("p", (3, 10))
def test_activation_spectra(activation, p):
    """Hermite-series route (+ quadrature per k) against plain NumPy θ-quadrature."""
    spec = KernelSpec("ntk", 3, 0.0, activation)
    kmax = 60
    s = mercer_spectrum(spec, p, kmax)
    assert s.method in ("series", "series+quadrature")
    expected = ref.theta_quadrature(lambda th: evaluate_kernel(spec, np.cos(th))[0], p, kmax,
                                    nodes=500)
    scale = np.abs(s.mu).max()
    # the float64 reference carries ~1e-15 scale of absolute error itself
    keep = (np.abs(expected) >= 1e-9 * scale) & ~s.exact_zero
    np.testing.assert_allclose(s.mu[keep], expected[keep], rtol=1e-6)
    assert np.all(np.abs(s.mu - expected) <= s.error_estimate + 1e-14 * scale)
    big = (np.abs(s.mu) >= 1e-9 * scale) & ~s.exact_zero
    assert np.all(s.error_estimate[big] <= 1e-6 * np.abs(s.mu[big]))
    if activation == "tanh":  # odd kernel: even k vanish exactly
        assert np.all(s.mu[::2] == 0.0) and np.all(s.exact_zero[::2])


def test_erf_series_against_quadrature():
    spec = KernelSpec("nngp", 4, 0.0, "erf")
    s = mercer_spectrum(spec, 3, 60)
    assert s.method == "series"
    expected = ref.theta_quadrature(lambda th: evaluate_kernel(spec, np.cos(th))[0], 3, 60)
    # the float64 reference itself carries ~1e-16 absolute error: compare above 1e-9
    keep = np.abs(expected) >= 1e-9 * np.abs(expected).max()
    np.testing.assert_allclose(s.mu[keep], expected[keep], rtol=1e-6)
    assert np.all(s.mu[::2] == 0.0) and np.all(s.exact_zero[::2])


def test_normalize_divides_by_value_at_one():
    for spec in (KernelSpec("ntk", 3), KernelSpec("ntk", 4, 0.5), KernelSpec("ntk"),
                 KernelSpec("ntk", 3, 0.0, "tanh")):
        raw = mercer_spectrum(spec, 4, 30)
        norm = mercer_spectrum(spec.replace(normalize=True), 4, 30)
        at_one = float(evaluate_kernel(spec, 1.0)[0])
        np.testing.assert_allclose(norm.mu, raw.mu / at_one, rtol=1e-10, atol=1e-16)


def test_deep_kernels_have_no_zeros_and_positive_spectrum():
    s = mercer_spectrum(KernelSpec("ntk", 3), 20, 2000)
    assert not s.exact_zero.any() and np.all(s.mu > 0)
    assert np.all(s.error_estimate[:201] <= 1e-6 * s.mu[:201])


@pytest.mark.parametrize("p", (2, 1000))
def test_extreme_sizes_are_finite(p):
    for spec in (KernelSpec("ntk"), KernelSpec("ntk", 5, 0.1), KernelSpec("nngp", 50)):
        s = mercer_spectrum(spec, p, 2000)
        for arr in (s.mu, s.error_estimate):
            assert np.all(np.isfinite(arr)) and np.all(arr >= 0)
        assert s.k.shape == s.mu.shape == s.multiplicity.shape == (2001,)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs,match", [
    (dict(dim=1, kmax=10), "dim"),
    (dict(dim=1001, kmax=10), "dim"),
    (dict(dim=3.5, kmax=10), "dim"),
    (dict(dim=3, kmax=-1), "kmax"),
    (dict(dim=3, kmax=2001), "kmax"),
    (dict(dim=3, kmax="ten"), "kmax"),
])
def test_bad_sizes(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mercer_spectrum(KernelSpec("ntk"), **kwargs)


def test_bad_spec():
    with pytest.raises(ValueError, match="depth"):
        mercer_spectrum(KernelSpec("ntk", depth=1), 3, 10)
    with pytest.raises(ValueError, match="name"):
        mercer_spectrum(KernelSpec("rbf"), 3, 10)
    with pytest.raises(ValueError, match="spec"):
        mercer_spectrum("ntk", 3, 10)
    with pytest.raises(ValueError, match="dim must be >= 3"):
        mercer_spectrum(KernelSpec("ntk", 3, 0.0, "step"), 2, 10)
    with pytest.raises(ValueError, match="k must"):
        multiplicity(3, -1)
    with pytest.raises(ValueError, match="dim"):
        multiplicity(1, 3)


def test_tanh_spectrum_against_mpmath_hermite(data_dir):
    """tanh NNGP L = 2 (κ = c Σ a_n² uⁿ) with 30-digit Hermite coefficients (mpmath, see the
    file's generator): relative error <= 1e-6 at least down to μ_k = 1e-12 μ_max (brief)."""
    ref_data = json.loads((data_dir / "tanh_hermite_mpmath.json").read_text())
    a = np.array([float(v) for v in ref_data["a"]])
    c_sigma = activation_functions("tanh")[2]  # the kernel module's normalisation
    b = c_sigma * a * a
    for p, kmax in ((3, 33), (10, 70)):  # n <= 320 covers these degrees
        expected = np.zeros((1, kmax + 1))
        _series.moment_sums_rows(b[None, :], kmax, float(p), expected, np.zeros_like(expected))
        expected = expected[0]
        s = mercer_spectrum(KernelSpec("nngp", 2, 0.0, "tanh"), p, kmax)
        odd = np.arange(1, kmax + 1, 2)
        assert np.all(s.mu[::2] == 0.0)
        rel = np.abs(s.mu[odd] - expected[odd]) / expected[odd]
        big = expected[odd] >= 1e-12 * expected.max()
        assert np.all(rel[big] <= 1e-6)
        assert np.all(np.abs(s.mu[odd] - expected[odd]) <= s.error_estimate[odd])


# --------------------------------------------------------------------------- issue-13 edge cases
@functools.lru_cache(maxsize=None)
def _legendre_rule(nodes: int):
    """Gauss–Legendre nodes and weights on [−1, 1] (scipy; seconds for 16,000 nodes: once)."""
    from scipy.special import roots_legendre

    return roots_legendre(nodes)


def _theta_reference(spec, p, kmax, nodes):
    """Independent float64 reference: Gauss–Legendre in θ with the Gegenbauer polynomials
    P_k = C_k^α / C_k^α(1), α = (p − 2)/2, from their three-term recurrence
    (k + 2α) P_{k+1}(t) = 2(k + α) t P_k(t) − k P_{k−1}(t), stable on [−1, 1]."""
    z, w = _legendre_rule(nodes)
    theta = 0.5 * np.pi * (z + 1.0)
    w = 0.5 * np.pi * w
    t = np.cos(theta)
    omega = math.exp(math.lgamma(p / 2) - 0.5 * math.log(math.pi) - math.lgamma((p - 1) / 2))
    vals = evaluate_kernel(spec, t)[0] * omega * w * np.sin(theta) ** (p - 2)
    alpha = (p - 2) / 2.0
    out = np.empty(kmax + 1)
    scale = np.empty(kmax + 1)
    previous, pk = np.zeros_like(t), np.ones_like(t)
    for k in range(kmax + 1):
        out[k] = vals @ pk
        scale[k] = np.abs(vals * pk).sum()
        previous, pk = pk, (2.0 * (k + alpha) * t * pk - k * previous) / (k + 2.0 * alpha)
    return out, scale


@pytest.mark.parametrize("bias", [1e-17, 5e-324, 1e-16, 1e-12, 1e-6])
def test_tiny_bias_no_crash_and_no_wrong_trusted_value(bias):
    """Β that rounds 1 + 2β to 1 crashed (log(a) = 0); β = 1e-16 / 1e-12 gave values
    20% / 2.6e-3 wrong with tiny estimates. Checked against 8000- and 16000-node quadrature."""
    spec = KernelSpec("ntk", 3, bias)
    kmax = 500
    s = mercer_spectrum(spec, 5, kmax)
    ref_fine, scale = _theta_reference(spec, 5, kmax, 16000)
    ref_coarse, _ = _theta_reference(spec, 5, kmax, 8000)
    ref_err = np.abs(ref_fine - ref_coarse) + 64 * np.finfo(float).eps * scale
    assert np.all(np.isfinite(s.mu)) and np.all(s.mu >= 0)
    assert np.all(np.abs(s.mu - ref_fine) <= s.error_estimate + ref_err)
    trusted = s.trustworthy
    assert trusted[:50].all()
    assert np.all(np.abs(s.mu - ref_fine)[trusted] <= 1e-6 * s.mu[trusted] + ref_err[trusted])


def test_negative_values_within_their_estimates():
    """Tanh NTK L = 50, β = 0.1, p = 5 gave μ_635 = -1.09e-17 with estimate 1.01e-17.
    No negative value is returned; 0 <= true μ_k <= mu + error_estimate everywhere."""
    spec = KernelSpec("ntk", 50, 0.1, "tanh")
    s = mercer_spectrum(spec, 5, 700)
    assert np.all(s.mu >= 0)
    ref_fine, scale = _theta_reference(spec, 5, 700, 16000)
    ref_coarse, _ = _theta_reference(spec, 5, 700, 8000)
    # the reference's own error: the two rules differ by ~1e-12 relative at small k, and both
    # carry the same systematic error of the tanh kernel's evaluation: twice their difference
    ref_err = 2.0 * np.abs(ref_fine - ref_coarse) + 64 * np.finfo(float).eps * scale
    assert np.all(np.abs(s.mu - ref_fine) <= s.error_estimate + ref_err)
    below = (s.mu == 0.0) & ~s.exact_zero
    assert not np.any(s.trustworthy[below])


def test_log_space_spectrum_below_float64_range():
    """Deep ReLU NTK at p = 1000: log10 μ_k finite for every k, trusted ones vouched for
    by the sum rule Σ N(p, k) μ_k = κ(1) evaluated in log space (mpmath), no trusted false 0."""
    import mpmath

    spec = KernelSpec("ntk", 50, 1.0)
    s = mercer_spectrum(spec, 1000, 400)
    assert np.all(np.isfinite(s.log10_mu)) and s.log10_mu.min() < -308
    tiny = np.abs(s.mu) < np.finfo(float).tiny
    assert tiny.any() and not np.any(s.trustworthy[tiny]) and np.all(s.log10_trustworthy)
    with mpmath.workdps(30):
        total = mpmath.fsum(mpmath.mpf(10) ** (mpmath.mpf(float(a)) + float(b))
                            for a, b in zip(s.log10_mu, s.log10_multiplicity))
        kappa_one = float(evaluate_kernel(spec, 1.0)[0])
        # the degrees beyond 400 carry a (small) rest: partial sum below, and close
        assert kappa_one * (1 - 0.2) < float(total) <= kappa_one * (1 + 1e-9)
    # closed form κ1 at p = 1000 vs mpmath's Gamma function, far below 1e-308
    k1 = mercer_spectrum(KernelSpec("arccos1"), 1000, 2000)
    with mpmath.workdps(30):
        p = 1000
        for k in (300, 1000, 2000):
            exact = mpmath.log10(p * mpmath.gamma(p / 2) ** 2 * mpmath.gamma(mpmath.mpf(k - 1) / 2) ** 2
                                 / (8 * mpmath.pi ** 2 * mpmath.gamma(mpmath.mpf(k + p + 1) / 2) ** 2))
            assert abs(k1.log10_mu[k] - float(exact)) < 1e-7


def test_error_estimate_bounds_series_route_against_mpmath():
    """Series route, deep biased ReLU at p = 200: the estimate bounds the actual error
    (200-digit composite Gauss–Legendre quadrature of the θ integral)."""
    import mpmath

    spec = KernelSpec("nngp", 30, 10.0)
    k = 150
    s = mercer_spectrum(spec, 200, k)
    exact = ref.mpmath_eigenvalue(k, 200, "nngp", 30, 10.0, dps=200, pieces=16)
    with mpmath.workdps(40):
        actual = abs(mpmath.mpf(10) ** (mpmath.mpf(float(s.log10_mu[k])) - mpmath.log10(exact)) - 1)
    assert float(actual) <= s.relative_error[k] <= 1e-9


@pytest.mark.parametrize("name, bias", [("ntk", 0.0), ("ntk", 1.0), ("nngp", 1.0), ("ntk", 10.0)])
def test_no_trusted_value_breaks_the_sum_rule_at_p_1000(name, bias):
    """Σ_k N(p, k) μ_k = κ(1) with every term >= 0, so N(p, k) μ_k <= κ(1) for every k: a
    value above that is wrong and must not be trusted (depth 50, p = 1000, k max = 2000,
    where the series route loses the high degrees)."""
    import math

    from ntkviz.core import KernelSpec, kernel_at_one, mercer_spectrum

    spec = KernelSpec(name, 50, bias)
    sp = mercer_spectrum(spec, dim=1000, kmax=2000)
    term = sp.log10_multiplicity + sp.log10_mu  # log10 of N(p, k) μ_k, -inf at zeros
    above = term > math.log10(kernel_at_one(spec)) + 1e-6
    assert not np.any(above & sp.log10_trustworthy)
    assert not np.any(above & sp.trustworthy)
