"""Deep NTK/NNGP recursion: oracle (L = 2, 3, 5), unrolled Arora form, Gauss–Hermite reference, bias."""
import json

import numpy as np
import pytest

from ntkviz.core.kernels import _reference as ref
from ntkviz.core.kernels.activations import ACTIVATIONS
from ntkviz.core.kernels.deep import deep_kernel, deep_nngp, deep_ntk


@pytest.fixture(scope="module")
def oracle(data_dir):
    return json.loads((data_dir / "kernels_oracle.json").read_text())


def _arr(lst):
    return np.array([np.nan if v is None else v for v in lst])


@pytest.mark.parametrize("depth", [2, 3, 5])
@pytest.mark.parametrize("kind", ["ntk", "nngp"])
def test_values_and_derivatives_match_oracle(oracle, depth, kind):
    u = np.array(oracle["u_values"])
    entry = oracle["deep_fc"][f"L{depth}"]
    value, deriv = deep_kernel(u, depth, ntk=kind == "ntk")
    np.testing.assert_allclose(value, entry[kind], rtol=1e-13, atol=0)
    expected = _arr(entry[f"{kind}_deriv"])
    finite = ~np.isnan(expected)
    # rtol 1e-10 for deep derivatives at u = 0.999999; this recursion does 1e-13
    np.testing.assert_allclose(deriv[finite], expected[finite], rtol=1e-13, atol=0)
    for d, limit in zip(deriv, entry[f"{kind}_deriv_limit"]):
        if limit is not None:
            assert d == (np.inf if limit == "+inf" else -np.inf)


@pytest.mark.parametrize("depth", [2, 3, 5])
def test_ntk_over_L_matches_oracle(oracle, depth):
    u = np.array(oracle["u_values"])
    value, _ = deep_ntk(u, depth, normalize=True)
    np.testing.assert_allclose(value, oracle["deep_fc"][f"L{depth}"]["ntk_over_L"], rtol=1e-13, atol=0)


@pytest.mark.parametrize("depth", [2, 4, 9, 20, 50])
def test_relu_against_unrolled_reference(depth):
    u = np.random.default_rng(depth).uniform(-0.99, 0.99, 64)
    ntk, nngp, dntk, dnngp = ref.deep_relu_ref(u, depth)
    v, d = deep_ntk(u, depth)
    np.testing.assert_allclose(v, ntk, rtol=1e-12)
    np.testing.assert_allclose(d, dntk, rtol=1e-10)
    v, d = deep_nngp(u, depth)
    np.testing.assert_allclose(v, nngp, rtol=1e-12)
    np.testing.assert_allclose(d, dnngp, rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("depth", [2, 7, 50])
def test_paper_normalisation(depth):
    assert deep_ntk(1.0, depth)[0] == pytest.approx(depth, rel=1e-14)
    assert deep_nngp(1.0, depth)[0] == pytest.approx(1.0, rel=1e-14)
    assert deep_ntk(1.0, depth, normalize=True)[0] == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize("activation", ["tanh", "erf", "gelu", "softplus", "sigmoid"])
@pytest.mark.parametrize("bias", [0.0, 0.4])
def test_general_activation_against_gauss_hermite_reference(activation, bias):
    u = np.array([-0.97, -0.4, 0.0, 0.35, 0.8, 0.99])
    ntk, nngp, dntk, dnngp = ref.deep_general_ref(u, 3, activation, bias)
    v, d = deep_ntk(u, 3, bias, activation)
    np.testing.assert_allclose(v, ntk, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(d, dntk, rtol=1e-9, atol=1e-11)
    v, d = deep_nngp(u, 3, bias, activation)
    np.testing.assert_allclose(v, nngp, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(d, dnngp, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_derivative_is_the_derivative(activation):
    """Central differences of the value agree with the carried derivative (interior points)."""
    u = np.linspace(-0.9, 0.9, 13)
    h = 1e-6
    for ntk in (True, False):
        _, d = deep_kernel(u, 4, ntk=ntk, bias=0.2, activation=activation)
        fd = (deep_kernel(u + h, 4, ntk=ntk, bias=0.2, activation=activation)[0]
              - deep_kernel(u - h, 4, ntk=ntk, bias=0.2, activation=activation)[0]) / (2 * h)
        np.testing.assert_allclose(d, fd, rtol=1e-6, atol=1e-7)


def test_relu_bias_closed_diagonal():
    """ReLU: q_k = 1 + (k+1)β, so NNGP_L(1) = 1 + Lβ; the NTK at 1 is Σ_k q_k."""
    beta, depth = 0.3, 6
    assert deep_nngp(1.0, depth, beta)[0] == pytest.approx(1 + depth * beta, rel=1e-14)
    assert deep_ntk(1.0, depth, beta)[0] == pytest.approx(sum(1 + (k + 1) * beta for k in range(depth)),
                                                         rel=1e-14)


def test_relu_bias_two_layer_closed_form():
    """L = 2 with bias: Σ1 = q0 κ1(ρ) + β, Θ1 = Σ1 + (u + β) κ0(ρ), ρ = (u + β)/(1 + β)."""
    beta = 0.7
    u = np.linspace(-1, 1, 41)
    rho = (u + beta) / (1 + beta)
    sigma1 = (1 + beta) * ref.kappa1_ref(rho) + beta
    np.testing.assert_allclose(deep_nngp(u, 2, beta)[0], sigma1, rtol=1e-13)
    np.testing.assert_allclose(deep_ntk(u, 2, beta)[0], sigma1 + (u + beta) * ref.kappa0_ref(rho), rtol=1e-13)
    # with bias the derivative at u = −1 is finite (ρ > −1), still +inf at u = 1
    d = deep_ntk(np.array([-1.0, 1.0]), 2, beta)[1]
    assert np.isfinite(d[0]) and d[1] == np.inf


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("depth", [2, 3, 50])
def test_no_nan_anywhere(activation, depth):
    u = np.concatenate([[-1 - 1e-13, -1, 1, 1 + 1e-13], np.linspace(-1, 1, 201)])
    for bias in (0.0, 1.0):
        for ntk in (True, False):
            value, deriv = deep_kernel(u, depth, ntk=ntk, bias=bias, activation=activation)
            assert not np.isnan(value).any() and not np.isnan(deriv).any()


@pytest.mark.parametrize("kwargs,match", [
    (dict(depth=0), "depth"), (dict(depth=51), "depth"), (dict(bias=-0.1), "bias"),
    (dict(bias=float("nan")), "bias"), (dict(activation="swish"), "activation"),
])
def test_bad_arguments(kwargs, match):
    args = dict(depth=3, ntk=True, bias=0.0, activation="relu") | kwargs
    with pytest.raises(ValueError, match=match):
        deep_kernel([0.1], **args)
