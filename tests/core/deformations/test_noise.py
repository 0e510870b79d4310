"""The additive-noise family: fixed relative size, and the smoothness slopes 1 (CKN), 1/2 (NTK)."""
from __future__ import annotations

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.deformations.digits import digit_indices, load_digits
from ntkviz.core.deformations.noise import additive_noise
from ntkviz.core.deformations.stability import NOISE, SWEEP_FAMILIES, fit_loglog_slope, stability_sweep


def test_noise_has_the_asked_relative_norm():
    x = load_digits()[0][3] / 255.0
    for a in (1e-4, 0.3, 2.0):
        y = additive_noise(x, a, 7)
        assert np.linalg.norm(y - x) / np.linalg.norm(x) == pytest.approx(a, rel=1e-12)
    assert not np.allclose(additive_noise(x, 0.1, 1), additive_noise(x, 0.1, 2))
    np.testing.assert_array_equal(additive_noise(x, 0.1, 1), additive_noise(x, 0.1, 1))
    assert np.linalg.norm(additive_noise(np.zeros((4, 4)), 0.5, 0)) == pytest.approx(0.5)


def test_small_amplitude_slopes_are_one_and_one_half():
    images, labels = load_digits()
    idx = [digit_indices(k)[1] for k in (2, 5, 8)]
    X, y = images[idx] / 255.0, labels[idx]
    assert NOISE in SWEEP_FAMILIES
    amps = [1e-4, 3e-4, 1e-3]
    r = list(stability_sweep(X, y, PRESETS["M1"], NOISE, amps, 2, X, y))[-1].result
    assert r.ckn_slope == pytest.approx(1.0, abs=0.1)
    assert r.ntk_slope == pytest.approx(0.5, abs=0.1)
    assert r.ckn_slope == pytest.approx(fit_loglog_slope(amps, r.ckn_mean))
    np.testing.assert_allclose(r.pixel_mean, amps, rtol=1e-10)   # the pixel distance is the amplitude
    assert np.all(r.pixel_std < 1e-12 * np.array(amps) + 1e-18)
    assert np.all(r.tau_sup == 0) and np.all(r.jacobian_sup == 0)
