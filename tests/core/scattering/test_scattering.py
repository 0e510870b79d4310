"""Scattering transform and Fourier modulus: closed forms, the slow reference, kymatio 0.3.0."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.deformations.digits import load_digits
from ntkviz.core.scattering._reference import (gabor_hat, reference_bank, reference_fourier_modulus,
                                               reference_scattering)
from ntkviz.core.scattering.filters import WAVELET_SIGMA, filter_bank, littlewood_paley, wavelet_angles
from ntkviz.core.scattering.transform import ScatteringParams, fourier_modulus, scattering_paths, scattering_transform

#: kymatio 0.3.0 normalises its Gabor atoms by 2 * 3.1415 * sigma^2 / slant instead of 2 pi ...
KYMATIO_FILTER_FACTOR = math.pi / 3.1415


@pytest.fixture(scope="module")
def digits():
    images, _ = load_digits()
    return images[::97][:6] / 255.0


@pytest.fixture(scope="module")
def kymatio(request):
    """kymatio 0.3.0, imported once ``scipy.special.sph_harm`` exists again: SciPy 1.17 removed
    it for ``sph_harm_y(n, m, polar, azimuth)``; kymatio's 3-D module imports the old
    ``sph_harm(m, n, azimuth, polar)`` at import time, its 2-D transform never calls it."""
    import scipy.special

    mp = pytest.MonkeyPatch()
    if not hasattr(scipy.special, "sph_harm"):
        mp.setattr(scipy.special, "sph_harm",
                   lambda m, n, azimuth, polar: scipy.special.sph_harm_y(n, m, polar, azimuth), raising=False)
    request.addfinalizer(mp.undo)
    return pytest.importorskip("kymatio", minversion="0.3.0")


def _orders(params):
    return np.array([len(j) for j, _ in scattering_paths(params)])


# --------------------------------------------------------------------------- filters


@pytest.mark.parametrize("M,N,J,L", [(16, 16, 2, 4), (36, 36, 2, 8), (24, 40, 3, 5)])
def test_filters_are_the_poisson_sums_of_their_closed_form_transforms(M, N, J, L):
    bank = filter_bank((M, N), J, L)
    phi, psi = reference_bank(M, N, J, L)
    for r in range(J):
        np.testing.assert_allclose(bank.phi[r], phi[r], rtol=0, atol=1e-13)
    for j in range(J):
        assert len(bank.psi[j]) == max(j, 1)            # the levels the cascade uses
        for r, level in enumerate(bank.psi[j]):
            assert level.shape == (L, M >> r, N >> r)
            for l in range(L):
                np.testing.assert_allclose(level[l], psi[j][l][r], rtol=0, atol=1e-13)


@pytest.mark.parametrize("J", [1, 2, 4])
def test_filter_normalisation(J):
    M = 2 ** (J + 3)
    bank = filter_bank((M, M), J, 8)
    sigma = WAVELET_SIGMA * 2 ** (J - 1)
    # sum phi = 1 up to the Poisson-summation aliases 2 exp(-2 pi^2 sigma^2) per axis
    eps = 2 * math.exp(-2 * math.pi ** 2 * sigma ** 2)
    assert abs(bank.phi[0][0, 0] - 1.0) <= 2.1 * eps + 1e-14
    # every wavelet has zero mean, exactly (Morlet correction)
    for j in range(J):
        assert np.abs(bank.psi[j][0][:, 0, 0]).max() < 1e-15
    # the Gabor envelope integrates to 1 (normalisation 2 pi sigma^2 / slant, slant = 4 / L)
    env = gabor_hat(M, M, 2.0, 0.3, 0.0, 0.5)
    assert env[0, 0] == pytest.approx(1.0, abs=1e-12)


def test_angles_are_kymatios_order():
    np.testing.assert_allclose(wavelet_angles(8), np.array([3, 2, 1, 0, -1, -2, -3, -4]) * math.pi / 8)
    np.testing.assert_allclose(wavelet_angles(1), [0.0])


def test_filter_bank_matches_kymatio(kymatio):
    from kymatio.scattering2d.filter_bank import filter_bank as kymatio_bank

    for M, J, L in [(36, 2, 8), (40, 3, 6)]:
        ours, theirs = filter_bank((M, M), J, L), kymatio_bank(M, M, J, L)
        for r in range(J):
            np.testing.assert_allclose(KYMATIO_FILTER_FACTOR * ours.phi[r], theirs["phi"]["levels"][r],
                                       rtol=0, atol=1e-6)      # kymatio's filters are float32
        for j in range(J):
            for r, level in enumerate(ours.psi[j]):
                for l in range(L):
                    np.testing.assert_allclose(KYMATIO_FILTER_FACTOR * level[l],
                                               theirs["psi"][j * L + l]["levels"][r], rtol=0, atol=1e-6)


def test_littlewood_paley_sum_and_energy(kymatio):
    from kymatio.scattering2d.filter_bank import filter_bank as kymatio_bank

    M, J, L = 32, 3, 8
    bank = filter_bank((M, M), J, L)
    A = littlewood_paley(bank)
    theirs = kymatio_bank(M, M, J, L)
    A_k = theirs["phi"]["levels"][0] ** 2 + 0.5 * sum(
        p["levels"][0] ** 2 + np.roll(p["levels"][0][::-1, ::-1], 1, axis=(0, 1)) ** 2 for p in theirs["psi"])
    np.testing.assert_allclose(A, A_k / KYMATIO_FILTER_FACTOR ** 2, rtol=0, atol=1e-6)
    # not a tight frame: A(0) = phi(0)^2 = 1, at most 1.05 anywhere (the wavelet transform
    # expands energy by < 5 %), and no frequency of the disc |w| <= pi is left uncovered
    k = np.fft.fftfreq(M) * 2 * np.pi
    disc = np.hypot(*np.meshgrid(k, k, indexing="ij")) <= math.pi
    assert A[0, 0] == pytest.approx(1.0, abs=1e-12)
    assert A.max() <= 1.05 and A[disc].min() >= 0.3
    # Parseval: ||x * phi||^2 + sum ||x * psi||^2 = (1/MN) sum A |x_hat|^2, by direct convolutions
    from ntkviz.core.scattering._reference import circular_convolution

    small = filter_bank((16, 16), 2, L)
    A = littlewood_paley(small)
    x = np.random.default_rng(1).random((16, 16))
    energy = np.sum(circular_convolution(x, small.phi[0]).real ** 2) + sum(
        np.sum(np.abs(circular_convolution(x, small.psi[j][0][l])) ** 2) for j in range(2) for l in range(L))
    assert energy == pytest.approx(np.sum(A * np.abs(np.fft.fft2(x)) ** 2) / 16 ** 2, rel=1e-12)
    assert A.min() * np.sum(x ** 2) <= energy <= A.max() * np.sum(x ** 2)


# --------------------------------------------------------------------------- the transform


@pytest.mark.parametrize("H,W,J,L,order,padding", [
    (16, 16, 2, 4, 2, "periodic"), (12, 20, 2, 3, 2, "zero"), (13, 11, 1, 6, 2, "reflect"),
    (16, 24, 3, 2, 2, "periodic"), (9, 14, 3, 2, 1, "zero"), (10, 10, 2, 2, 0, "reflect")])
def test_transform_matches_the_direct_convolution_reference(H, W, J, L, order, padding):
    x = np.random.default_rng(H * W + J).random((H, W))
    params = ScatteringParams(J=J, L=L, order=order, padding=padding)
    ours = scattering_transform(x, params)
    ref = reference_scattering(x, J, L, order, padding)
    assert ours.shape == ref.shape == params.output_shape(H, W)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-13 * np.abs(ref).max())


def test_batches_and_blocks_give_the_single_image_values(digits, monkeypatch):
    import ntkviz.core.scattering.transform as transform

    one = np.stack([scattering_transform(d) for d in digits])
    monkeypatch.setattr(transform, "_BLOCK_BYTES", 1)           # one image, one orientation per block
    np.testing.assert_allclose(scattering_transform(digits), one, rtol=0, atol=1e-15 * np.abs(one).max())
    assert scattering_transform(digits.reshape(2, 3, 28, 28)).shape == (2, 3, 81, 7, 7)


def test_paths_order_and_count():
    for J, L in [(1, 8), (2, 8), (3, 4), (4, 6)]:
        params = ScatteringParams(J=J, L=L)
        paths = scattering_paths(params)
        assert len(paths) == params.channels == 1 + J * L + L * L * J * (J - 1) // 2
        assert paths[0] == ((), ()) and paths[1] == ((0,), (0,)) and paths[L] == ((0,), (L - 1,))
        assert J == 1 or paths[1 + L] == ((1,), (0,))
        second = paths[1 + J * L:]
        assert all(j1 < j2 for (j1, j2), _ in second)
        assert second == sorted(second, key=lambda p: (p[0][0], p[1][0], p[0][1], p[1][1]))
    assert len(scattering_paths(ScatteringParams(order=1))) == 17
    assert len(scattering_paths(ScatteringParams(order=0))) == 1


def test_matches_kymatio(kymatio, digits):
    from kymatio.numpy import Scattering2D

    for J, L in [(2, 8), (3, 6), (1, 4)]:
        theirs = Scattering2D(J=J, shape=(28, 28), L=L, max_order=2)(digits)
        params = ScatteringParams(J=J, L=L, padding="reflect")
        ours = scattering_transform(digits, params) * (KYMATIO_FILTER_FACTOR ** (_orders(params) + 1))[:, None, None]
        assert ours.shape == theirs.shape
        # per channel, relative to the channel's largest coefficient (kymatio's filters are float32)
        err = np.abs(ours - theirs).max(axis=(0, 2, 3)) / np.abs(theirs).max(axis=(0, 2, 3))
        assert err.max() < 1e-6


def test_circular_shifts_by_multiples_of_2J_shift_the_output(digits):
    params = ScatteringParams(J=2, L=8, padding="periodic")
    x = digits[0]
    S = scattering_transform(x, params)
    for a, b in [(4, 0), (0, 8), (-12, 4), (28, 28)]:
        moved = scattering_transform(np.roll(x, (a, b), axis=(0, 1)), params)
        np.testing.assert_allclose(moved, np.roll(S, (a // 4, b // 4), axis=(1, 2)), rtol=0, atol=1e-14)
        # so the spatial sums (averages over positions) are invariant
        np.testing.assert_allclose(moved.sum(axis=(1, 2)), S.sum(axis=(1, 2)), rtol=1e-13, atol=1e-15)
    # a shift by a non-multiple of 2^J is only approximately invariant
    assert not np.allclose(scattering_transform(np.roll(x, 1, axis=1), params), S, atol=1e-6)


@pytest.mark.parametrize("L", [4, 6, 8])
def test_rotation_by_90_degrees_permutes_orientations(digits, L):
    """A quarter turn about the grid's origin maps theta_l to theta_l + pi/2, i.e. l to l - L/2
    (mod L; theta + pi gives the conjugate wavelet, the same modulus for real images)."""
    params = ScatteringParams(J=2, L=L, padding="periodic")
    x = digits[1]
    n = x.shape[0]
    turned = x[np.arange(n)[None, :], (-np.arange(n)[:, None]) % n]     # x'(i, j) = x(j, -i)
    assert np.array_equal(turned[3, 5], x[5, (-3) % n])
    S, S_turned = scattering_transform(x, params), scattering_transform(turned, params)
    m = S.shape[1]
    index = {p: c for c, p in enumerate(scattering_paths(params))}
    for c, (scales, angles) in enumerate(scattering_paths(params)):
        source = index[(scales, tuple((l + L // 2) % L for l in angles))]
        expected = S[source][np.arange(m)[None, :], (-np.arange(m)[:, None]) % m]
        np.testing.assert_allclose(S_turned[c], expected, rtol=0, atol=1e-12)


def test_zero_padding_treats_the_image_as_zero_outside(digits):
    """With zero padding, moving a digit inside its frame by 2^J px moves its coefficients by
    one sample (the interior ones: the outer ring of samples was dropped)."""
    params = ScatteringParams(J=2)
    x = np.zeros((40, 40))
    x[6:34, 6:34] = digits[2]
    S, moved = scattering_transform(x, params), scattering_transform(np.roll(x, 4, axis=1), params)
    np.testing.assert_allclose(moved[:, :, 1:], S[:, :, :-1], rtol=0, atol=1e-14)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="J = 5 needs image sides >= 2\\^J = 32"):
        scattering_transform(np.zeros((28, 28)), ScatteringParams(J=5))
    with pytest.raises(ValueError, match="multiples of 2\\^J = 8"):
        scattering_transform(np.zeros((28, 28)), ScatteringParams(J=3, padding="periodic"))
    with pytest.raises(ValueError, match="padding must be one of"):
        scattering_transform(np.zeros((8, 8)), ScatteringParams(padding="mirror"))
    with pytest.raises(ValueError, match="L must be in"):
        ScatteringParams(L=0)
    with pytest.raises(ValueError, match="NaN"):
        scattering_transform(np.full((8, 8), np.nan))
    with pytest.raises(ValueError, match="filter grid sides must be multiples"):
        filter_bank((30, 32), 2, 8)


def test_filter_bank_is_cached_and_read_only():
    a, b = filter_bank((16, 16), 2, 4), filter_bank((16, 16), 2, 4)
    assert a is b
    with pytest.raises(ValueError):
        a.phi[0][0, 0] = 2.0


# --------------------------------------------------------------------------- Fourier modulus


def test_fourier_modulus_parseval_shifts_and_reference():
    x = np.random.default_rng(4).standard_normal((2, 9, 12))
    F = fourier_modulus(x)
    np.testing.assert_allclose(np.sum(F ** 2, axis=(1, 2)), np.sum(x ** 2, axis=(1, 2)), rtol=1e-13)
    np.testing.assert_allclose(F[0], reference_fourier_modulus(x[0]), rtol=0, atol=1e-13)
    assert F[1, 0, 0] == pytest.approx(abs(x[1].sum()) / math.sqrt(9 * 12), rel=1e-13)
    for shift in [(1, 0), (0, 5), (-4, 7)]:
        np.testing.assert_allclose(fourier_modulus(np.roll(x, shift, axis=(1, 2))), F, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="shape"):
        fourier_modulus(np.zeros(5))
