"""The Gabor probe and the dilation family: closed forms."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.deformations.deform import (DILATION_MAX, Deformation, deform_image, dilation,
                                             displacement_field, jacobian_sup_norm)
from ntkviz.core.deformations.probes import gabor_image


def test_probe_formula_and_defaults():
    h, w = 20, 30
    x = gabor_image((h, w), omega0=1.3, sigma=4.0, angle_deg=30.0)
    u1, u2 = np.meshgrid(np.arange(h) - 9.5, np.arange(w) - 14.5, indexing="ij")
    a = math.radians(30.0)
    expected = np.cos(1.3 * (-math.sin(a) * u1 + math.cos(a) * u2)) * np.exp(-(u1 ** 2 + u2 ** 2) / 32.0)
    np.testing.assert_allclose(x, expected, rtol=0, atol=1e-15)
    # default sigma = min(H, W) / 8: the envelope at the nearest edge is exp(-8)
    d = gabor_image((16, 40), omega0=0.0)
    assert d.max() == pytest.approx(math.exp(-(0.5 ** 2 + 0.5 ** 2) / 8), rel=1e-12)
    assert d[0, 20] == pytest.approx(math.exp(-(7.5 ** 2 + 0.5 ** 2) / 8), rel=1e-12)


def test_wave_vector_points_counter_clockwise_from_rightward():
    """The spectrum's peaks sit at +-omega0 e with e = (-sin a, cos a) in (down, right)."""
    n, omega0 = 64, 2 * math.pi * 8 / 64      # 8 cycles across: a bin of the DFT
    for angle, bin_ in [(0.0, (0, 8)), (90.0, (-8, 0))]:
        X = np.abs(np.fft.fft2(gabor_image((n, n), omega0, sigma=10.0, angle_deg=angle)))
        k1, k2 = np.unravel_index(np.argmax(X[:, : n // 2 + 1] if angle == 0 else X[n // 2:, :]), (n, n))
        peak = (k1, k2) if angle == 0 else (k1 + n // 2 - n, k2)
        assert peak == bin_


def test_probe_sampled_at_a_deformation_is_exact():
    shape = (24, 24)
    shift = displacement_field(Deformation(translate_x=2.5, translate_y=-1.0), shape)
    moved = gabor_image(shape, 1.0, sigma=3.0, angle_deg=0.0, tau=shift)
    u1, u2 = np.meshgrid(np.arange(24) - 11.5 + 1.0, np.arange(24) - 11.5 - 2.5, indexing="ij")
    np.testing.assert_allclose(moved, np.cos(u2) * np.exp(-(u1 ** 2 + u2 ** 2) / 18.0), rtol=0, atol=1e-15)
    # a dilation by s samples x((1 - s) (u - c))
    s = 0.1
    dil = gabor_image(shape, 1.0, sigma=3.0, angle_deg=0.0, tau=displacement_field(dilation(s), shape))
    v1, v2 = np.meshgrid((1 - s) * (np.arange(24) - 11.5), (1 - s) * (np.arange(24) - 11.5), indexing="ij")
    np.testing.assert_allclose(dil, np.cos(v2) * np.exp(-(v1 ** 2 + v2 ** 2) / 18.0), rtol=0, atol=1e-14)


@pytest.mark.parametrize("s", [0.0, 0.01, 0.05, 0.5, DILATION_MAX])
def test_dilation_field_is_s_times_u(s):
    tau = displacement_field(dilation(s), (15, 22))
    u1, u2 = np.meshgrid(np.arange(15) - 7.0, np.arange(22) - 10.5, indexing="ij")
    np.testing.assert_allclose(tau, s * np.stack([u1, u2]), rtol=0, atol=1e-12)
    assert jacobian_sup_norm(tau) == pytest.approx(s, abs=1e-12)


def test_dilation_magnifies_about_the_centre():
    img = np.zeros((21, 21))
    img[10, 14] = 1.0                            # 4 px right of the centre
    y, _ = deform_image(img, dilation(0.5))      # magnified by 2
    assert y[10, 18] == pytest.approx(1.0)


def test_bad_probe_and_dilation_arguments():
    with pytest.raises(ValueError, match="dilation s must be"):
        dilation(0.96)
    with pytest.raises(ValueError, match="omega0 must be"):
        gabor_image((8, 8), omega0=5.0)
    with pytest.raises(ValueError, match="sigma must be"):
        gabor_image((8, 8), sigma=0.0)
    with pytest.raises(ValueError, match="tau"):
        gabor_image((8, 8), tau=np.zeros((2, 8, 9)))
    with pytest.raises(ValueError, match="at least 2"):
        gabor_image((1, 8))
