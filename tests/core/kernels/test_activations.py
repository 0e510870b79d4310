"""Activations: normalisation c_σ, dual maps against quadrature / Monte-Carlo, Price's theorem, Prop. 9."""
import math

import numpy as np
import pytest
from scipy import integrate

from ntkviz.core.kernels import _reference as ref
from ntkviz.core.kernels.activations import (ACTIVATIONS, activation_functions, activation_normalisation,
                                             dual_kernel, dual_tables, second_derivative)
from ntkviz.core.kernels.deep import deep_ntk

SMOOTH = ["tanh", "erf", "gelu", "softplus", "sigmoid"]


def _gauss_expectation(f):
    g = lambda z: f(np.array(z)) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    return sum(integrate.quad(g, a, b, epsabs=0, epsrel=1e-13, limit=200)[0]
               for a, b in [(-np.inf, 0), (0, np.inf)])


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_normalisation_is_inverse_second_moment(name):
    sigma, _, c = activation_functions(name)
    assert c == pytest.approx(1.0 / _gauss_expectation(lambda z: sigma(z) ** 2), rel=1e-12)
    assert activation_normalisation(name) == c


def test_paper_constants():
    assert activation_normalisation("relu") == 2.0
    assert activation_normalisation("step") == 2.0


@pytest.mark.parametrize("name", SMOOTH)
def test_derivative_callables(name):
    sigma, dsigma, _ = activation_functions(name)
    d2 = second_derivative(name)
    z = np.linspace(-4, 4, 33)
    h = 1e-5
    np.testing.assert_allclose(dsigma(z), (sigma(z + h) - sigma(z - h)) / (2 * h), atol=1e-9)
    np.testing.assert_allclose(d2(z), (dsigma(z + h) - dsigma(z - h)) / (2 * h), atol=1e-9)


@pytest.mark.parametrize("name", SMOOTH)
@pytest.mark.parametrize("q", [1.0, 1.8])
def test_smooth_duals_against_2d_gauss_hermite(name, q):
    """Mehler series (1-D Hermite coefficients) against a tensor 2-D Gauss–Hermite rule."""
    sigma, dsigma, c = activation_functions(name)
    rho = np.array([-1.0, -0.93, -0.2, 0.0, 0.5, 0.97, 1.0])
    k, kp = dual_kernel(name, rho * q, q)
    np.testing.assert_allclose(k, c * ref.gauss_hermite_2d(sigma, sigma, rho, q), rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(kp, c * ref.gauss_hermite_2d(dsigma, dsigma, rho, q), rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("name", ["relu", "step", "erf", "tanh", "gelu"])
def test_duals_against_monte_carlo(name):
    """Closed forms (relu, step, erf) and series against plain Monte-Carlo E[σ(a)σ(b)]."""
    sigma, _, c = activation_functions(name)
    rng = np.random.default_rng(7)
    n = 400_000
    q = 1.3
    for rho in (-0.6, 0.1, 0.8):
        z1, z2 = rng.standard_normal((2, n))
        a = math.sqrt(q) * z1
        b = math.sqrt(q) * (rho * z1 + math.sqrt(1 - rho * rho) * z2)
        samples = c * sigma(a) * sigma(b)
        mc, err = samples.mean(), samples.std() / math.sqrt(n)
        k, _ = dual_kernel(name, rho * q, q)
        assert abs(k - mc) < 5 * err, (rho, k, mc, err)


def test_relu_and_step_closed_forms():
    from ntkviz.core.kernels.arccos import arccos_with_deriv, kappa0, kappa1

    rho = np.linspace(-0.99, 0.99, 9)
    q = 2.5
    k, kp = dual_kernel("relu", rho * q, q)
    np.testing.assert_allclose(k, q * kappa1(rho), rtol=1e-14)
    np.testing.assert_allclose(kp, kappa0(rho), rtol=1e-14)
    k, kp = dual_kernel("step", rho * q, q)
    np.testing.assert_allclose(k, kappa0(rho), rtol=1e-14)
    np.testing.assert_allclose(kp, arccos_with_deriv("kappa0", rho)[1] / q, rtol=1e-14)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_price_theorem(name):
    """k̂' = ∂k̂/∂s."""
    q = 1.4
    s = np.linspace(-0.8, 0.8, 9) * q
    h = 1e-6
    _, kp = dual_kernel(name, s, q)
    fd = (dual_kernel(name, s + h, q)[0] - dual_kernel(name, s - h, q)[0]) / (2 * h)
    np.testing.assert_allclose(kp, fd, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_unit_variance_is_preserved_without_bias(name):
    assert np.allclose(dual_tables(name, 10, 0.0).q, 1.0, rtol=0, atol=1e-13)


@pytest.mark.parametrize("name", SMOOTH)
def test_prop9_lipschitz_bound(name):
    """Prop. 9: ‖Φσ(x) − Φσ(y)‖ <= C ‖x − y‖ for the two-layer kernel Kσ = Θ/c on the sphere."""
    sigma, dsigma, c = activation_functions(name)
    d2 = second_derivative(name)
    g0, g1, g2 = (_gauss_expectation(lambda z, f=f: f(z) ** 2) for f in (sigma, dsigma, d2))
    bound2 = (g0 + g1) * max(1.0, (2 * g1 + g2) / (g0 + g1))
    u = np.linspace(-1, 1 - 1e-6, 2001)
    k = deep_ntk(u, 2, activation=name)[0] / c
    k1 = deep_ntk(1.0, 2, activation=name)[0] / c
    dist2 = 2 * k1 - 2 * k  # ‖Φ(x) − Φ(y)‖²
    assert np.all(dist2 <= bound2 * (2 - 2 * u) * (1 + 1e-9))


def test_bad_arguments():
    with pytest.raises(ValueError, match="activation"):
        activation_functions("swish")
    with pytest.raises(ValueError, match="s/q"):
        dual_kernel("tanh", 2.0, 1.0)
