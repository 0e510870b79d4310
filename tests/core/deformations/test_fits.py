"""Least-squares fits of the stability bounds' forms, on points made from the forms."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS, Architecture, Layer
from ntkviz.core.deformations.fits import fit_ckn_bound, fit_ntk_bound, pooling_scale


@pytest.fixture
def points():
    rng = np.random.default_rng(4)
    return rng.uniform(1e-3, 0.5, 30), rng.uniform(0, 0.4, 30)


def test_exact_forms_are_recovered(points):
    g, t = points
    ckn = fit_ckn_bound(g, t, 0.7 * g + 0.2 * t)
    assert ckn.coefficients == pytest.approx((0.7, 0.2), rel=1e-10) and ckn.rms < 1e-12
    ntk = fit_ntk_bound(g, 0.3 * np.sqrt(g) + 1.2 * g)
    assert ntk.coefficients == pytest.approx((0.3, 1.2), rel=1e-10)
    assert ntk.crossover == pytest.approx((0.3 / 1.2) ** 2)
    c, c2 = ntk.coefficients   # the two terms are equal at the crossover
    assert c * math.sqrt(ntk.crossover) == pytest.approx(c2 * ntk.crossover)
    np.testing.assert_allclose(ntk.predict(g), 0.3 * np.sqrt(g) + 1.2 * g, rtol=1e-10)
    np.testing.assert_allclose(ckn.predict(g, t), 0.7 * g + 0.2 * t, rtol=1e-10)
    assert "fit" in ckn.label and "not the theorem" in ntk.label and math.isnan(ckn.crossover)


def test_noisy_points_give_close_coefficients(points):
    g, t = points
    noise = 1 + 0.01 * np.random.default_rng(0).standard_normal(g.size)
    fit = fit_ntk_bound(g, (0.3 * np.sqrt(g) + 1.2 * g) * noise, relative=True)
    assert fit.coefficients == pytest.approx((0.3, 1.2), rel=0.05)
    assert 0 < fit.rms < 0.02


def test_coefficients_stay_non_negative(points):
    g, t = points
    d = 0.8 * g - 0.6 * t + 0.25
    free = np.linalg.lstsq(np.stack([g, t], axis=1), d, rcond=None)[0]
    assert np.all(d > 0) and free[1] < 0   # unconstrained least squares: a negative C2
    fit = fit_ckn_bound(g, t, d)
    assert fit.coefficients[1] == 0.0
    only_g = np.linalg.lstsq(g[:, None], d, rcond=None)[0][0]   # the fit on the active column alone
    assert fit.coefficients[0] == pytest.approx(only_g, rel=1e-10)


def test_relative_weights_are_weighted_least_squares(points):
    g, t = points
    d = 0.2 * np.sqrt(g) + 0.9 * g + 0.01 * np.cos(40 * g)
    fit = fit_ntk_bound(g, d, relative=True)
    A = np.stack([np.sqrt(g), g], axis=1) / d[:, None]
    expected = np.linalg.lstsq(A, np.ones_like(d), rcond=None)[0]
    assert np.all(expected > 0)
    assert fit.coefficients == pytest.approx(tuple(expected), rel=1e-9)


def test_bad_points():
    with pytest.raises(ValueError, match="at least 2 points"):
        fit_ntk_bound([0.1], [0.2])
    with pytest.raises(ValueError, match="one value per distance"):
        fit_ckn_bound([0.1, 0.2], [0.1], [0.3, 0.4])
    with pytest.raises(ValueError, match="finite and >= 0"):
        fit_ntk_bound([0.1, np.nan], [0.2, 0.3])
    with pytest.raises(ValueError, match="distances > 0"):
        fit_ntk_bound([0.1, 0.2], [0.0, 0.3], relative=True)


def test_pooling_scale():
    assert pooling_scale(PRESETS["M1"]) == pytest.approx(2 * 5 / math.sqrt(2))
    assert pooling_scale(Architecture((Layer(3, 2), Layer(3, 3, "average")))) == pytest.approx(
        2 * math.sqrt(8 / 12))
    assert pooling_scale(PRESETS["M3"]) == 0.0
