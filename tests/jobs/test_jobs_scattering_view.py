"""The Scattering tab's job: the filter pictures are the core bank's arrays (space: their
inverse DFTs; frequency: the Littlewood-Paley sum written out here), the coefficient mosaics
are the transform's channels in ``scattering_paths`` order, the counterexample's exponents
are those of the core computed directly, and the contours lie on their level."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.deformations.deform import dilation, displacement_field
from ntkviz.core.deformations.digits import digit_image
from ntkviz.core.deformations.maps import map_features, relative_distances
from ntkviz.core.deformations.probes import gabor_image
from ntkviz.core.deformations.stability import fit_loglog_slope
from ntkviz.core.scattering.filters import filter_bank
from ntkviz.core.scattering.transform import ScatteringParams, scattering_paths, scattering_transform
from ntkviz.jobs import ScatteringViewRequest
from ntkviz.jobs._scattering import GAP, display_grid, level_segments, mosaic


def tile(image, r, c, h, w):
    """Tile (r, c) of a mosaic of (h, w) tiles."""
    return image[r * (h + GAP):r * (h + GAP) + h, c * (w + GAP):c * (w + GAP) + w]


@pytest.fixture(scope="module")
def response():
    params = ScatteringParams(J=2, L=4, order=2)
    return ScatteringViewRequest(digit_image(3, 0), params, omega0s=(math.pi / 2,),
                                 dilations=(0.01, 0.05))()


def test_display_grid_is_the_transforms_grid_or_64():
    assert display_grid((28, 28), ScatteringParams(J=2)) == 64            # padded 36: too small
    assert display_grid((100, 100), ScatteringParams(J=2)) == 108         # padded: (100 // 4 + 2) * 4
    assert display_grid((28, 28), ScatteringParams(J=3, padding="zero")) == 64
    assert display_grid((128, 128), ScatteringParams(J=6, padding="periodic")) == 128


def test_filter_pictures_are_the_bank_and_its_littlewood_paley_sum(response):
    f = response.filters
    J, L, G = 2, 4, f.grid
    bank = filter_bank((G, G), J, L)
    for j in range(J):
        np.testing.assert_array_equal(f.psi_hat[j], bank.psi[j][0])
    np.testing.assert_array_equal(f.phi_hat, bank.phi[0])
    # A(w) = |phi(w)|^2 + 1/2 sum (|psi(w)|^2 + |psi(-w)|^2), written out on the grid
    A = bank.phi[0] ** 2
    for j in range(J):
        for l in range(L):
            p = bank.psi[j][0][l]
            A = A + 0.5 * (p ** 2 + np.roll(p[::-1, ::-1], 1, axis=(0, 1)) ** 2)
    np.testing.assert_allclose(f.littlewood_paley, A, rtol=0, atol=1e-15)
    np.testing.assert_allclose(f.plane, np.fft.fftshift(A), rtol=0, atol=1e-15)
    k = np.arange(-G // 2, G // 2)
    np.testing.assert_allclose(f.frequencies, 2 * np.pi * k / G, rtol=0, atol=1e-15)
    np.testing.assert_allclose(f.along_omega2, np.fft.fftshift(A)[G // 2], rtol=0, atol=1e-15)
    np.testing.assert_allclose(f.along_omega1, np.fft.fftshift(A)[:, G // 2], rtol=0, atol=1e-15)
    assert f.frame_bounds == (A.min(), A.max())
    # space: the centred inverse DFT of each filter, real part over the largest modulus
    h = f.half_width
    side = 2 * h + 1
    for j in range(J):
        for l in range(L):
            psi = np.fft.fftshift(np.fft.ifft2(bank.psi[j][0][l]))[G // 2 - h:G // 2 + h + 1,
                                                                   G // 2 - h:G // 2 + h + 1]
            np.testing.assert_allclose(tile(f.wavelets, j, l, side, side), psi.real / np.abs(psi).max(),
                                       rtol=0, atol=1e-14)
    crop = slice(G // 2 - h, G // 2 + h + 1)
    phi = np.fft.fftshift(np.fft.ifft2(bank.phi[0]).real)[crop, crop]
    np.testing.assert_allclose(tile(f.wavelets, J, 0, side, side), phi / phi.max(), rtol=0, atol=1e-14)
    assert np.isnan(tile(f.wavelets, J, 1, side, side)).all()


def test_contours_are_at_half_maximum_of_each_filter(response):
    f = response.filters
    step = f.frequencies[1] - f.frequencies[0]
    assert len(f.contours) == 2 * 4 + 1
    for j, l, w1, w2 in f.contours:
        mag = np.fft.fftshift(np.abs(f.phi_hat if l < 0 else f.psi_hat[j, l]))
        rows, cols = (w1 - f.frequencies[0]) / step, (w2 - f.frequencies[0]) / step
        assert rows.size > 0 and rows.size % 2 == 0
        # every end point is on a grid edge where the linear interpolation equals max / 2
        r0, c0 = np.floor(rows + 1e-9).astype(int), np.floor(cols + 1e-9).astype(int)
        on_row = np.abs(rows - np.round(rows)) < 1e-9
        for r, c, rr, cc, horizontal in zip(r0, c0, rows, cols, on_row):
            if horizontal:
                a, b, t = mag[int(round(rr)), c], mag[int(round(rr)), min(c + 1, mag.shape[1] - 1)], cc - c
            else:
                a, b, t = mag[r, int(round(cc))], mag[min(r + 1, mag.shape[0] - 1), int(round(cc))], rr - r
            assert (1 - t) * a + t * b == pytest.approx(0.5 * mag.max(), rel=1e-9)


def test_level_segments_cross_every_sign_change_once():
    rng = np.random.default_rng(3)
    values = rng.standard_normal((9, 11))
    rows, cols = level_segments(values, 0.2)
    points = set(zip(np.round(rows, 12), np.round(cols, 12)))
    want = set()
    v = values - 0.2
    for r in range(9):
        for c in range(11):
            for dr, dc in ((0, 1), (1, 0)):
                if r + dr < 9 and c + dc < 11 and (v[r, c] > 0) != (v[r + dr, c + dc] > 0):
                    t = v[r, c] / (v[r, c] - v[r + dr, c + dc])
                    want.add((round(r + dr * t, 12), round(c + dc * t, 12)))
    assert points == want
    # each crossing ends one segment in each cell it borders: two for an inner edge, one on the border
    border = sum(1 for r, c in want if r in (0, 8) or c in (0, 10))
    assert len(rows) == 2 * len(want) - border


def test_coefficient_mosaics_are_the_transforms_channels_in_path_order(response):
    params = response.params
    S = scattering_transform(digit_image(3, 0), params)
    c = response.coefficients
    np.testing.assert_array_equal(c.coefficients, S)
    assert list(c.paths) == scattering_paths(params)
    h, w = S.shape[1:]
    np.testing.assert_array_equal(c.order0, S[0])
    for j in range(2):
        for l in range(4):
            np.testing.assert_array_equal(tile(c.order1, j, l, h, w), S[1 + 4 * j + l])
    assert set(c.order2) == {(0, 1)}
    for k, (scales, orients) in enumerate(scattering_paths(params)):
        if len(scales) == 2:
            np.testing.assert_array_equal(tile(c.order2[scales], orients[0], orients[1], h, w), S[k])
    # colour scales per order: from min(0, least value) (aliasing leaves tiny negatives) to the largest
    assert c.order1_levels == (min(0.0, S[1:9].min()), S[1:9].max())
    assert c.order2_levels == (min(0.0, S[9:].min()), S[9:].max())


def test_orders_below_two_have_no_order_two_mosaic():
    r = ScatteringViewRequest(digit_image(1, 0), ScatteringParams(J=2, L=8, order=0),
                              omega0s=(1.0,), dilations=(0.01, 0.02))()
    assert r.coefficients.order1 is None and r.coefficients.order2 == {}
    assert r.coefficients.coefficients.shape[0] == 1


def _direct(name, omega0, s, params):
    tau = displacement_field(dilation(s), (64, 64))
    pair = np.stack([gabor_image((64, 64), omega0), gabor_image((64, 64), omega0, tau=tau)])
    f = map_features(name, pair, params)
    return relative_distances(f[:1], f[1:])[0]


def test_counterexample_is_the_cores_with_the_issues_exponents():
    """The core test's setting: 64-px probe, J = 3, L = 8, s = 0.05, omega0 in {pi/4, pi/2, pi}."""
    params = ScatteringParams(J=3, L=8)
    omega0s = (math.pi / 4, math.pi / 2, math.pi)
    c = ScatteringViewRequest(digit_image(0, 0), params, omega0s=omega0s,
                              dilations=(0.0125, 0.025, 0.05))().counterexample
    assert c.unavailable == ""
    for i, w in enumerate(omega0s):
        for k, s in enumerate(c.dilations):
            assert c.fourier[i, k] == pytest.approx(_direct("fourier", w, s, params), rel=1e-12)
            assert c.scattering[i, k] == pytest.approx(_direct("scattering", w, s, params), rel=1e-12)
        assert c.fourier_slopes[i] == pytest.approx(fit_loglog_slope(c.dilations, c.fourier[i]), abs=1e-12)
    assert c.fourier_exponent == pytest.approx(fit_loglog_slope(omega0s, c.fourier[:, -1]), abs=1e-12)
    assert c.fourier_exponent == pytest.approx(1.0, abs=0.2)
    assert c.scattering_exponent <= 0.3
    # and the scattering distance is Lipschitz in s at every omega0
    assert np.all(np.abs(c.scattering_slopes - 1.0) < 0.1)


def test_counterexample_of_a_j_larger_than_the_probe_says_why():
    r = ScatteringViewRequest(np.ones((128, 128)), ScatteringParams(J=7), omega0s=(1.0,),
                              dilations=(0.01, 0.02))()
    assert "64-px probe" in r.counterexample.unavailable
    assert r.csv_table("dilation")[1] == []


def test_tables_hold_the_drawn_numbers(response):
    header, rows = response.csv_table("coefficients")
    assert header[:5] == ["order", "j1", "l1", "j2", "l2"]
    S = response.coefficients.coefficients
    h, w = S.shape[1:]
    assert len(rows) == 9 * h * w and rows[0][-1] == S[0, 0, 0]
    _, rows = response.csv_table("order2")
    assert len(rows) == 16 * h * w
    _, rows = response.csv_table("frequency")
    assert len(rows) == response.filters.grid ** 2
    _, rows = response.csv_table("dilation")
    assert [r[1] for r in rows] == [0.01, 0.05]
    with pytest.raises(ValueError, match="view must be one of"):
        response.csv_table("filters")


def test_mosaic_layout():
    tiles = np.arange(2 * 3 * 2 * 2, dtype=float).reshape(2, 3, 2, 2)
    m = mosaic(tiles, gap=1)
    assert m.shape == (5, 8)
    np.testing.assert_array_equal(m[3:5, 6:8], tiles[1, 2])
    assert np.isnan(m[2]).all() and np.isnan(m[:, 2]).all()


@pytest.mark.parametrize("kwargs, words", [
    ({"omega0s": ()}, "omega0s must be distinct numbers > 0"),
    ({"omega0s": (0.0,)}, "omega0s must be distinct numbers > 0"),
    ({"dilations": (0.5, 0.99)}, "dilations must be in"),
    ({"params": ScatteringParams(J=5)}, "needs image sides >= 2\\^J = 32"),
])
def test_bad_requests_are_refused(kwargs, words):
    args = {"image": digit_image(0, 0), "params": ScatteringParams(), **kwargs}
    with pytest.raises(ValueError, match=words):
        ScatteringViewRequest(**args)
