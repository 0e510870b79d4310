"""Deformations: sign convention, analytic fields, composition, read-outs."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.deformations.deform import (Deformation, compose_fields, deform_image, displacement_field,
                                             infimnist_fields, jacobian_sup_norm, smooth_field, tau_sup_norm,
                                             warp)
from ntkviz.core.deformations.digits import digit_image


@pytest.fixture(scope="module")
def digit():
    return digit_image(3, 0)


@pytest.mark.parametrize("dx,dy", [(2, 0), (0, 3), (-1, 2), (4, -3)])
def test_integer_translation_moves_pixels_exactly(digit, dx, dy):
    y, tau = deform_image(digit, Deformation(translate_x=dx, translate_y=dy))
    expected = np.zeros_like(digit)
    h, w = digit.shape
    expected[max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = \
        digit[max(-dy, 0):h + min(-dy, 0), max(-dx, 0):w + min(-dx, 0)]
    assert np.array_equal(y, expected)            # +x right, +y down, zero fill
    assert tau_sup_norm(tau) == pytest.approx(math.hypot(dx, dy), rel=1e-15)
    assert jacobian_sup_norm(tau) == 0.0


def test_zero_deformation_is_identity(digit):
    y, tau = deform_image(digit, Deformation())
    assert np.array_equal(y, digit) and not np.any(tau)
    assert Deformation().is_identity and not Deformation(rotation_deg=1).is_identity
    rgb = np.random.default_rng(0).random((9, 11, 3))
    assert np.array_equal(warp(rgb, np.zeros((2, 9, 11))), rgb)


@pytest.mark.parametrize("theta", [1.0, 10.0, -35.0, 90.0, 180.0])
def test_rotation_jacobian_norm(theta):
    tau = displacement_field(Deformation(rotation_deg=theta), (28, 28))
    assert jacobian_sup_norm(tau) == pytest.approx(2 * abs(math.sin(math.radians(theta) / 2)), rel=1e-12)
    corner = math.hypot(13.5, 13.5)
    assert tau_sup_norm(tau) == pytest.approx(2 * abs(math.sin(math.radians(theta) / 2)) * corner, rel=1e-12)


def test_rotation_direction_and_scale():
    img = np.zeros((21, 21))
    img[10, 15] = 1.0                               # right of the centre
    y, _ = deform_image(img, Deformation(rotation_deg=90))
    assert np.unravel_index(np.argmax(y), y.shape) == (5, 10)   # counter-clockwise: now above the centre
    for s in (0.5, 1.25, 2.0):
        tau = displacement_field(Deformation(scale=s), (20, 24))
        assert jacobian_sup_norm(tau) == pytest.approx(abs(1 - 1 / s), rel=1e-12)
    big, _ = deform_image(img, Deformation(scale=2.0))
    assert big[10, 20] > 0.99                       # 5 px from the centre -> 10 px
    tau = displacement_field(Deformation(shear=0.5), (11, 11))
    assert np.allclose(tau[0], 0) and np.allclose(tau[1], 0.5 * (np.arange(11) - 5)[:, None])


def test_fields_of_one_deformation_are_summed():
    shape = (18, 23)
    d = Deformation(translate_x=1.5, translate_y=-0.5, rotation_deg=12, smooth_amplitude=0.7, smooth_seed=4)
    parts = [Deformation(translate_x=1.5, translate_y=-0.5), Deformation(rotation_deg=12),
             Deformation(smooth_amplitude=0.7, smooth_seed=4)]
    total = sum(displacement_field(p, shape) for p in parts)
    np.testing.assert_allclose(displacement_field(d, shape), total, rtol=0, atol=1e-13)


def test_compose_fields_translations_and_rotations(digit):
    t1 = displacement_field(Deformation(translate_x=2, translate_y=1), (28, 28))
    t2 = displacement_field(Deformation(translate_x=-1, translate_y=3), (28, 28))
    tau = compose_fields(t1, t2)
    np.testing.assert_allclose(tau, t1 + t2, atol=1e-14)
    np.testing.assert_array_equal(warp(warp(digit, t1), t2)[4:24, 4:24], warp(digit, tau)[4:24, 4:24])
    r1 = displacement_field(Deformation(rotation_deg=20), (41, 41))
    r2 = displacement_field(Deformation(rotation_deg=30), (41, 41))
    r = displacement_field(Deformation(rotation_deg=50), (41, 41))
    inner = np.s_[:, 12:29, 12:29]       # where the interpolated field stays on the linear grid exactly
    np.testing.assert_allclose(compose_fields(r1, r2)[inner], r[inner], atol=1e-12)


def test_smooth_field_amplitude_and_seed():
    f = smooth_field((28, 28), 4.0, 3)
    assert np.abs(f).max() == pytest.approx(1.0, rel=1e-15)
    np.testing.assert_array_equal(f, smooth_field((28, 28), 4.0, 3))
    assert not np.allclose(f, smooth_field((28, 28), 4.0, 4))
    tau = displacement_field(Deformation(smooth_amplitude=0.3, smooth_seed=3), (28, 28))
    assert np.abs(tau).max() == pytest.approx(0.3, rel=1e-14)


def test_infimnist_is_linear_in_alpha_and_first_order_warp():
    r, c = np.mgrid[0:28, 0:28].astype(float)

    def f(r, c):  # smooth, values inside (0, 1): no clipping
        return 0.5 + 0.3 * np.exp(-((r - 13.2) ** 2 + (c - 14.7) ** 2) / (2 * 4.0 ** 2))

    blob = f(r, c)
    y1, tau1 = deform_image(blob, Deformation(infimnist_alpha=1.0, infimnist_seed=5))
    y3, tau3 = deform_image(blob, Deformation(infimnist_alpha=3.0, infimnist_seed=5))
    np.testing.assert_allclose(y3 - blob, 3 * (y1 - blob), atol=1e-14)
    np.testing.assert_allclose(tau3, 3 * tau1, atol=1e-14)
    F = infimnist_fields((28, 28), 5)
    np.testing.assert_allclose(tau1, np.stack([-F[0], F[1]]), atol=1e-15)
    # first order: x + alpha (F1 dx/du1 - F2 dx/du2) ~ x(u - tau(u)) for small alpha
    a = 0.05
    ys, taus = deform_image(blob, Deformation(infimnist_alpha=a, infimnist_seed=5))
    exact = f(r - taus[0], c - taus[1])             # the continuous warp x(u - tau(u))
    inner = np.s_[2:-2, 2:-2]
    assert np.abs(ys - exact)[inner].max() < 0.05 * np.abs(ys - blob)[inner].max()


def test_infimnist_clips_to_image_range(digit):
    y, _ = deform_image(digit, Deformation(infimnist_alpha=5.0))
    assert y.min() >= 0.0 and y.max() <= 1.0


def test_jacobian_norm_against_svd():
    rng = np.random.default_rng(2)
    tau = rng.standard_normal((2, 9, 12))
    a, b = np.gradient(tau[0])
    c, d = np.gradient(tau[1])
    J = np.stack([np.stack([a, b], -1), np.stack([c, d], -1)], -2)
    assert jacobian_sup_norm(tau) == pytest.approx(np.linalg.svd(J, compute_uv=False).max(), rel=1e-12)
    S = a * a + b * b + c * c + d * d
    D = a * d - b * c
    spec_formula = np.sqrt((S + np.sqrt(S * S - 4 * D * D)) / 2)
    assert jacobian_sup_norm(tau) == pytest.approx(spec_formula.max(), rel=1e-10)
    mask = np.zeros((9, 12), bool)
    mask[4, 5] = True
    assert jacobian_sup_norm(tau, mask) == pytest.approx(np.linalg.svd(J[4, 5], compute_uv=False)[0])


def test_bad_inputs():
    with pytest.raises(ValueError, match="tau must have shape"):
        warp(np.zeros((5, 5)), np.zeros((3, 5, 5)))
    with pytest.raises(ValueError, match="tau must be finite"):
        tau_sup_norm(np.full((2, 3, 3), np.nan))
    with pytest.raises(ValueError, match="scale must be"):
        deform_image(np.zeros((5, 5)), Deformation(scale=0.0))
    with pytest.raises(ValueError, match="grid"):
        warp(np.zeros((5, 5)), np.zeros((2, 4, 5)))
