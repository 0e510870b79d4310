"""Arc-cosine kernels κ0, κ1 and the two-layer NTK against the 50-digit oracle, references and mpmath."""
import json

import mpmath as mp
import numpy as np
import pytest

from ntkviz.core.kernels import _reference as ref
from ntkviz.core.kernels import arccos

def _deriv(name):
    return lambda u: arccos.arccos_with_deriv(name, u)[1]


FUNCS = {name: (getattr(arccos, name), _deriv(name)) for name in arccos.ARCCOS_FORMS}


@pytest.fixture(scope="module")
def oracle(data_dir):
    return json.loads((data_dir / "kernels_oracle.json").read_text())


def _finite(lst):
    return np.array([np.nan if v is None else v for v in lst])


@pytest.mark.parametrize("name", list(FUNCS))
def test_values_match_oracle(oracle, name):
    u = np.array(oracle["u_values"])
    expected = np.array(oracle["kernels"][name]["value"])
    np.testing.assert_allclose(FUNCS[name][0](u), expected, rtol=1e-13, atol=0)


@pytest.mark.parametrize("name", list(FUNCS))
def test_derivatives_match_oracle_with_infinite_limits(oracle, name):
    u = np.array(oracle["u_values"])
    entry = oracle["kernels"][name]
    got = FUNCS[name][1](u)
    expected = _finite(entry["deriv"])
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-13, atol=0)
    for g, limit in zip(got, entry["deriv_limit"]):
        if limit is not None:
            assert g == (np.inf if limit == "+inf" else -np.inf)
    assert not np.isnan(got).any()


@pytest.mark.parametrize("name,refs", [
    ("kappa0", (ref.kappa0_ref, ref.kappa0_deriv_ref)),
    ("kappa1", (ref.kappa1_ref, ref.kappa0_ref)),
    ("kappa_ntk", (ref.kappa_ntk_ref, ref.kappa_ntk_deriv_ref)),
])
def test_against_numpy_reference(name, refs):
    u = np.random.default_rng(0).uniform(-0.95, 0.95, 500)
    for impl, reference in zip(FUNCS[name], refs):
        np.testing.assert_allclose(impl(u), reference(u), rtol=1e-12, atol=1e-15)


def test_kappa1_near_minus_one_matches_mpmath():
    """The series branch: κ1(−1 + δ) ≈ (2√2/3π) δ^{3/2} keeps full relative accuracy."""
    mp.mp.dps = 40
    for delta in [1e-14, 1e-10, 1e-7, 1e-4, 1e-2, 0.2, 0.6]:
        u = -1.0 + delta
        x = mp.mpf(u)
        exact = (mp.sqrt(1 - x * x) + x * (mp.pi - mp.acos(x))) / mp.pi
        got = arccos.kappa1(u)
        assert abs(got - float(exact)) <= 2e-14 * float(exact), (delta, got, exact)
        # 1 − κ1 near +1, used by the deep recursion: via κ1'(u) = κ0(u) consistency
        x = mp.mpf(-u)
        exact0 = (mp.pi - mp.acos(x)) / mp.pi
        assert abs(arccos.kappa0(-u) - float(exact0)) <= 2e-16 * float(exact0) + 1e-16


def test_identities():
    u = np.linspace(-1, 1, 1001)
    np.testing.assert_allclose(arccos.kappa0(u) + arccos.kappa0(-u), 1.0, rtol=0, atol=3e-16)
    np.testing.assert_allclose(arccos.kappa1(u) - arccos.kappa1(-u), u, rtol=0, atol=5e-16)
    np.testing.assert_allclose(arccos.arccos_with_deriv("kappa1", u)[1], arccos.kappa0(u), rtol=0, atol=0)


def test_special_values():
    assert arccos.kappa_ntk(1.0) == 2.0
    assert arccos.kappa_ntk(-1.0) == 0.0
    assert arccos.kappa0(0.0) == 0.5
    assert arccos.kappa1(0.0) == pytest.approx(1 / np.pi, rel=1e-15)
    assert arccos.kappa_ntk(-0.5) == pytest.approx(-0.057668885622437306, rel=1e-13)


def test_shapes_and_scalars():
    assert isinstance(arccos.kappa0(0.3), float)
    assert arccos.kappa_ntk(np.zeros((2, 3))).shape == (2, 3)
    assert arccos.kappa1([0.1, 0.2]).shape == (2,)


def test_rounding_outside_is_clipped_without_nan():
    u = np.array([-1 - 1e-15, -1.0, 1.0, 1 + 2e-16, 1 + 1e-13])
    for f, df in FUNCS.values():
        assert not np.isnan(f(u)).any()
        assert not np.isnan(df(u)).any()
    assert arccos.arccos_with_deriv("kappa_ntk", 1 + 1e-13)[1] == np.inf


@pytest.mark.parametrize("bad", [1.1, -1.5, np.nan, np.inf, [0.0, 2.0]])
def test_bad_input_raises(bad):
    with pytest.raises(ValueError, match="u must"):
        arccos.kappa_ntk(bad)


def test_an_unknown_closed_form_is_named():
    with pytest.raises(ValueError, match="arc-cosine kernel must be one of kappa0, kappa1, kappa_ntk"):
        arccos.arccos_with_deriv("kappa2", 0.5)
