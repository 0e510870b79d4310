"""The map registry, and the stability of the scattering transform against the Fourier modulus.

The acceptance checks of Mallat's comparison, on bundled digits and on the Gabor probe:

* a 1 px translation moves the scattering coefficients (J = 2) by less than half as much as
  the pixels;
* the Gabor probe (64 × 64, sigma = 8 px, wave vector at 22.5°) dilated by tau(u) = s u at
  s = 0.05: the Fourier-modulus distance grows like omega0 (fitted exponent 1 +- 0.2 over
  omega0 in {pi/4, pi/2, pi}) while the scattering distance (J = 3, so that all three
  frequencies fall in wavelet bands, not in the low-pass phi_J) hardly depends on omega0
  (exponent <= 0.3); and the scattering distance is Lipschitz in ||grad tau||_inf
  (log-log slope 1 +- 0.1 for s from 0.0025 to 0.02).

The deformed probe is sampled exactly (``gabor_image(..., tau=...)``), not warped bilinearly.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.conv.gram import image_norms, rel_distances
from ntkviz.core.deformations.deform import Deformation, deform_image, dilation, displacement_field, jacobian_sup_norm
from ntkviz.core.deformations.digits import load_digits
from ntkviz.core.deformations.maps import (DEFAULT_MAPS, MAPS, check_maps, feature_map, map_distances,
                                           map_features, relative_distances)
from ntkviz.core.deformations.probes import gabor_image
from ntkviz.core.deformations.stability import fit_loglog_slope
from ntkviz.core.scattering.transform import ScatteringParams, fourier_modulus, scattering_transform


@pytest.fixture(scope="module")
def digits():
    images, _ = load_digits()
    return images[::50][:20] / 255.0


def test_registry():
    assert MAPS == ("ckn", "ntk", "scattering", "fourier", "pixels")
    assert set(DEFAULT_MAPS) <= set(MAPS)
    assert [feature_map(m).kernel for m in MAPS] == [True, True, False, False, False]
    assert check_maps("fourier") == ("fourier",)
    for bad in ([], ["ckn", "ckn"], ["wavelets"]):
        with pytest.raises(ValueError, match="maps must be distinct names among"):
            check_maps(bad)
    with pytest.raises(ValueError, match="map must be one of"):
        feature_map("sift")


def test_features_of_each_explicit_map(digits):
    x = digits[:3]
    np.testing.assert_array_equal(map_features("pixels", x), x.reshape(3, -1))
    np.testing.assert_allclose(map_features("fourier", x), fourier_modulus(x).reshape(3, -1), rtol=0, atol=0)
    params = ScatteringParams(J=3, L=4)
    np.testing.assert_allclose(map_features("scattering", x, params), scattering_transform(x, params).reshape(3, -1),
                               rtol=0, atol=1e-15)
    # colour images: each channel's features, concatenated
    rgb = np.stack([x, 2 * x], axis=-1)
    np.testing.assert_allclose(map_features("scattering", rgb),
                               np.concatenate([scattering_transform(x).reshape(3, -1), 2 * scattering_transform(x).reshape(3, -1)], 1),
                               rtol=1e-14, atol=1e-15)
    with pytest.raises(ValueError, match="kernel map"):
        map_features("ckn", x)
    with pytest.raises(ValueError, match="multiples of 2\\^J"):
        map_features("scattering", x, ScatteringParams(J=3, padding="periodic"))


def test_relative_distances_convention():
    fx = np.array([[3.0, 4.0], [0.0, 0.0], [0.0, 0.0]])
    fy = np.array([[3.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(relative_distances(fx, fy), [0.8, 0.0, np.inf])
    np.testing.assert_array_equal(relative_distances(fx[0], fy), [0.8, 1.0, np.sqrt(20) / 5])


def test_map_distances_agree_with_each_maps_own_computation(digits):
    x, ys = digits[0], digits[1:4]
    arch = PRESETS["M1"]
    for name in ("ckn", "ntk"):
        got = map_distances(name, x, ys, architecture=arch)
        want = [rel_distances(image_norms(x, arch), image_norms(y, arch), arch)[name == "ntk"] for y in ys]
        np.testing.assert_allclose(got, want, rtol=1e-13)
    np.testing.assert_allclose(map_distances("pixels", x, ys),
                               [np.linalg.norm(y - x) / np.linalg.norm(x) for y in ys], rtol=1e-14)
    S = scattering_transform(np.concatenate([x[None], ys]))
    np.testing.assert_allclose(map_distances("scattering", x, ys),
                               [np.linalg.norm(S[k] - S[0]) / np.linalg.norm(S[0]) for k in (1, 2, 3)], rtol=1e-12)
    assert np.all(map_distances("fourier", x, np.roll(ys[:1] * 0 + x, 3, axis=2)) < 1e-14)   # shift invariant
    with pytest.raises(ValueError, match="needs an architecture"):
        map_distances("ntk", x, ys)
    with pytest.raises(ValueError, match="shape of x"):
        map_distances("pixels", x, np.zeros((2, 20, 20)))


def test_one_pixel_translation_scattering_below_half_the_pixel_distance(digits):
    """J = 2 on the 28 × 28 digits: the scattering coefficients average over 2^J = 4 px."""
    for d in (Deformation(translate_x=1.0), Deformation(translate_y=1.0)):
        moved = np.stack([deform_image(x, d)[0] for x in digits])
        scat = relative_distances(map_features("scattering", digits), map_features("scattering", moved)).mean()
        pix = relative_distances(map_features("pixels", digits), map_features("pixels", moved)).mean()
        assert scat < 0.5 * pix


PROBE = (64, 64)
OMEGA0 = (math.pi / 4, math.pi / 2, math.pi)
PROBE_SCATTERING = ScatteringParams(J=3, L=8)


def _probe_distance(name: str, omega0: float, s: float) -> tuple[float, float]:
    """(relative distance of the probe and its dilation by s under map ``name``, ||grad tau||_inf)."""
    tau = displacement_field(dilation(s), PROBE)
    pair = np.stack([gabor_image(PROBE, omega0), gabor_image(PROBE, omega0, tau=tau)])
    f = map_features(name, pair, PROBE_SCATTERING)
    return float(relative_distances(f[:1], f[1:])[0]), jacobian_sup_norm(tau)


def test_gabor_probe_fourier_modulus_grows_with_omega0_scattering_does_not():
    fourier = [_probe_distance("fourier", w, 0.05)[0] for w in OMEGA0]
    scat = [_probe_distance("scattering", w, 0.05)[0] for w in OMEGA0]
    assert fit_loglog_slope(OMEGA0, fourier) == pytest.approx(1.0, abs=0.2)
    assert fit_loglog_slope(OMEGA0, scat) <= 0.3
    assert all(sc < f for sc, f in zip(scat, fourier))


def test_scattering_is_lipschitz_in_the_dilation():
    points = [_probe_distance("scattering", math.pi / 2, s) for s in (0.0025, 0.005, 0.01, 0.02)]
    d, grad = zip(*points)
    np.testing.assert_allclose(grad, [0.0025, 0.005, 0.01, 0.02], rtol=1e-9)
    assert fit_loglog_slope(grad, d) == pytest.approx(1.0, abs=0.1)
