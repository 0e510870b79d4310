"""KernelSpec validation, labels and the evaluate_kernel / kernel_at_one front end."""
import json

import numpy as np
import pytest

from ntkviz.core.kernels import arccos, deep
from ntkviz.core.kernels.dotkernel import (ACTIVATIONS, KERNEL_NAMES, KernelSpec, evaluate_kernel,
                                           kernel_at_one)


def test_names():
    assert KERNEL_NAMES == ("arccos0", "arccos1", "ntk", "nngp")
    assert {"relu", "step", "tanh", "erf", "gelu", "softplus", "sigmoid"} <= set(ACTIVATIONS)


def test_defaults_are_two_layer_relu_ntk(data_dir):
    o = json.loads((data_dir / "kernels_oracle.json").read_text())
    value, deriv = evaluate_kernel(KernelSpec(), np.array(o["u_values"]))
    np.testing.assert_allclose(value, o["kernels"]["kappa_ntk"]["value"], rtol=1e-13)
    assert deriv[0] == -np.inf and deriv[-1] == np.inf


@pytest.mark.parametrize("name,impl", [("arccos0", arccos.kappa0), ("arccos1", arccos.kappa1)])
def test_arccos_names(data_dir, name, impl):
    u = np.linspace(-1, 1, 101)
    value, deriv = evaluate_kernel(KernelSpec(name), u)
    np.testing.assert_array_equal(value, impl(u))
    assert kernel_at_one(KernelSpec(name)) == 1.0


def test_step_nngp_at_depth_two_is_kappa0():
    u = np.linspace(-1, 1, 101)
    value, deriv = evaluate_kernel(KernelSpec("nngp", 2, activation="step"), u)
    np.testing.assert_allclose(value, arccos.kappa0(u), rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(deriv, arccos.arccos_with_deriv("kappa0", u)[1], rtol=1e-14)


@pytest.mark.parametrize("depth", [2, 5, 50])
def test_kernel_at_one(depth):
    assert kernel_at_one(KernelSpec("ntk", depth)) == pytest.approx(depth, rel=1e-14)
    assert kernel_at_one(KernelSpec("nngp", depth)) == pytest.approx(1.0, rel=1e-14)
    assert kernel_at_one(KernelSpec("ntk", depth, 0.5, "tanh", normalize=True)) == pytest.approx(1.0, rel=1e-14)


def test_normalize_divides_by_value_at_one():
    spec = KernelSpec("ntk", 4, 0.2, "gelu")
    u = np.linspace(-1, 1, 11)
    v, d = evaluate_kernel(spec, u)
    vn, dn = evaluate_kernel(spec.replace(normalize=True), u)
    np.testing.assert_allclose(vn, v / kernel_at_one(spec), rtol=1e-15)
    np.testing.assert_allclose(dn, d / kernel_at_one(spec), rtol=1e-15)


def test_matches_deep_module():
    u = np.linspace(-1, 1, 51)
    spec = KernelSpec("nngp", 7, 0.1, "softplus")
    v, d = evaluate_kernel(spec, u)
    v2, d2 = deep.deep_nngp(u, 7, 0.1, "softplus")
    np.testing.assert_array_equal(v, v2)
    np.testing.assert_array_equal(d, d2)


def test_shapes():
    v, d = evaluate_kernel(KernelSpec(), 0.5)
    assert v.shape == () and d.shape == ()
    v, d = evaluate_kernel(KernelSpec("nngp", 3), np.zeros((4, 5)))
    assert v.shape == (4, 5) and d.shape == (4, 5)


def test_label():
    assert KernelSpec("ntk", 3).label == "NTK L=3 (relu)"
    assert "β=0.5" in KernelSpec("nngp", 3, 0.5, "tanh").label
    assert KernelSpec("arccos0").label.startswith("κ0")


def test_spec_is_frozen_and_hashable():
    spec = KernelSpec()
    with pytest.raises(Exception):
        spec.depth = 3
    assert {spec: 1}[KernelSpec()] == 1


@pytest.mark.parametrize("args,match", [
    (("foo",), "name"),
    (("ntk", 1), "depth"),
    (("ntk", 51), "depth"),
    (("ntk", 2.5), "depth"),
    (("ntk", 2, -1.0), "bias"),
    (("ntk", 2, float("nan")), "bias"),
    (("ntk", 2, 1e9), "bias"),
    (("ntk", 2, 0.0, "swish"), "activation"),
    (("arccos0", 3), "depth"),
    (("arccos1", 2, 0.5), "bias"),
    (("arccos1", 2, 0.0, "tanh"), "activation"),
    (("ntk", 2, 0.0, "step", True), "normalize"),
    (("ntk", 2, 0.0, "relu", "yes"), "normalize"),
])
def test_validation_errors_name_the_field(args, match):
    """A bad spec cannot be built, so no function ever sees one."""
    with pytest.raises(ValueError, match=match):
        KernelSpec(*args)
    with pytest.raises(ValueError, match=match):
        KernelSpec().replace(**dict(zip(("name", "depth", "bias", "activation", "normalize"), args)))


def test_valid_spec_normalises_its_types():
    spec = KernelSpec("ntk", np.int64(3), 1, "relu", np.bool_(True))
    assert (type(spec.depth), type(spec.bias), spec.normalize) == (int, float, True)
    assert spec == KernelSpec("ntk", 3, 1.0, "relu", True)
    with pytest.raises(ValueError, match="spec must be a KernelSpec"):
        evaluate_kernel("ntk", [0.0])


@pytest.mark.parametrize("u", [[1.01], [np.nan], [-2.0]])
def test_bad_cosines(u):
    with pytest.raises(ValueError, match="u must"):
        evaluate_kernel(KernelSpec(), u)


def test_step_ntk_two_layer_closed_form():
    """Step NTK (σ' a Dirac delta): Θ = κ0(u) + u κ0'(u), infinite at u = ±1, no NaN."""
    from ntkviz.core.kernels import _reference as ref

    u = np.linspace(-0.99, 0.99, 41)
    value, _ = evaluate_kernel(KernelSpec("ntk", 2, activation="step"), u)
    np.testing.assert_allclose(value, ref.kappa0_ref(u) + u * ref.kappa0_deriv_ref(u), rtol=1e-13)
    ends, dends = evaluate_kernel(KernelSpec("ntk", 2, activation="step"), [-1.0, 1.0])
    assert ends.tolist() == [-np.inf, np.inf] and not np.isnan(dends).any()
    assert kernel_at_one(KernelSpec("ntk", 3, activation="step")) == np.inf


def test_empty_input():
    value, deriv = evaluate_kernel(KernelSpec("ntk", 3, normalize=True), np.array([]))
    assert value.shape == (0,) and deriv.shape == (0,)
