"""Stability sweep: small-amplitude slopes (about 1 and 1/2), progress, CSV rows."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.conv.gram import image_norms, rel_distances
from ntkviz.core.deformations.deform import deform_image
from ntkviz.core.deformations.digits import digit_indices, load_digits
from ntkviz.core.deformations.stability import (FAMILIES, SweepResult, family_deformation, fit_loglog_slope,
                                                stability_sweep)


@pytest.fixture(scope="module")
def small_set():
    images, labels = load_digits()
    idx = [digit_indices(0)[0], digit_indices(1)[0]]
    ref = [digit_indices(k)[j] for k in (0, 1, 2) for j in (98, 99)]
    return images[idx] / 255.0, labels[idx], images[ref] / 255.0, labels[ref]


@pytest.fixture(scope="module")
def sweep(small_set):
    X, y, R, ry = small_set
    return list(stability_sweep(X, y, PRESETS["M1"], "smooth", [0.01, 0.03, 0.1], 1, R, ry))


def test_small_amplitude_slopes_lipschitz_vs_holder(sweep):
    r = sweep[-1].result
    assert r.complete and len(r.amplitudes) == 3
    assert 0.85 <= r.ckn_slope <= 1.15          # CKN: Lipschitz
    assert 0.35 <= r.ntk_slope <= 0.7           # NTK: Hölder-1/2
    assert np.all(r.ntk_mean > r.ckn_mean)
    assert r.ckn_slope == pytest.approx(fit_loglog_slope(r.amplitudes, r.ckn_mean))
    assert r.pixel_mean[2] == pytest.approx(10 * r.pixel_mean[0], rel=0.2)
    assert np.all(r.tau_sup > 0) and np.allclose(r.tau_sup / r.amplitudes, r.tau_sup[0] / 0.01)


def test_sweep_values_match_direct_computation(small_set, sweep):
    X, *_ = small_set
    r = sweep[-1].result
    arch = PRESETS["M1"]
    d = [rel_distances(image_norms(X[k], arch),
                       image_norms(deform_image(X[k], family_deformation("smooth", 0.1, 1000 * k))[0], arch), arch)
         for k in range(2)]
    assert r.ckn_mean[2] == pytest.approx(np.mean([v[0] for v in d]), rel=1e-9)
    assert r.ntk_mean[2] == pytest.approx(np.mean([v[1] for v in d]), rel=1e-6)


def test_progress_partial_results_and_levels(sweep):
    fr = [p.fraction for p in sweep]
    assert fr == sorted(fr) and fr[-1] == 1.0 and len(sweep) == 4
    assert [len(p.result.amplitudes) for p in sweep] == [1, 2, 3, 3]
    assert not sweep[0].result.complete and math.isnan(sweep[0].result.any_label_ckn)
    r = sweep[-1].result
    for v in (r.same_label_ckn, r.same_label_ntk, r.any_label_ckn, r.any_label_ntk):
        assert 0 < v < 2
    assert r.any_label_ckn > r.same_label_ckn and r.any_label_ntk > r.ntk_mean[-1]
    header, rows = r.to_csv_rows()
    assert header == list(SweepResult.CSV_HEADER) and len(rows) == 3
    assert rows[1][0] == 0.03 and rows[1][1] == r.ckn_mean[1] and rows[0][11] == r.any_label_ckn


def test_cancel_and_families(small_set):
    X, y, *_ = small_set
    it = stability_sweep(X[:1], y[:1], PRESETS["M3"], "rotation", [1.0, 2.0, 4.0], 2)
    first = next(it)
    assert 0 < first.fraction < 1 and len(first.result.amplitudes) == 1
    it.close()
    for fam in FAMILIES:
        d = family_deformation(fam, 0.5, 3)
        assert not d.is_identity
    assert family_deformation("rotation", 2, 1).rotation_deg == -2
    t = family_deformation("translation", 2.0, 9)
    assert math.hypot(t.translate_x, t.translate_y) == pytest.approx(2.0)


def test_exp_architecture_gives_nan_ntk_and_bad_arguments(small_set):
    X, y, *_ = small_set
    r = list(stability_sweep(X[:1], y[:1], PRESETS["M4"], "translation", [0.5], 1))[-1].result
    assert np.isnan(r.ntk_mean).all() and np.isfinite(r.ckn_mean).all()
    assert math.isnan(r.same_label_ckn)          # a single digit: no same-label pair
    with pytest.raises(ValueError, match="increasing"):
        next(stability_sweep(X, y, PRESETS["M1"], "smooth", [0.1, 0.05], 1))
    with pytest.raises(ValueError, match="family must be one of"):
        next(stability_sweep(X, y, PRESETS["M1"], "shear", [0.1], 1))
    with pytest.raises(ValueError, match="labels must have one entry"):
        next(stability_sweep(X, y[:1], PRESETS["M1"], "smooth", [0.1], 1))


def test_csv_has_empty_cells_never_nan_for_missing_values():
    """An architecture with exp layers has no NTK: its columns are empty cells."""
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.core.deformations.digits import load_digits
    from ntkviz.core.deformations.stability import stability_sweep

    images, labels = load_digits()
    item = None
    for item in stability_sweep(images[[0]] / 255.0, labels[[0]].astype(int), PRESETS["M4"],
                                "translation", [0.5], 1):
        pass
    header, rows = item.result.to_csv_rows()
    assert all(row[header.index("ntk_mean")] == "" for row in rows)
    assert all(isinstance(row[header.index("ckn_mean")], float) for row in rows)
    assert not any(isinstance(v, float) and v != v for row in rows for v in row)


def test_maps_scattering_and_fourier_columns_match_direct_computation(small_set):
    """Other maps than the default add ``<map>_mean, _std, _slope`` and their levels; a default
    map left out drops its columns; every value is the registry's distance of the deformed digits."""
    from ntkviz.core.deformations.maps import map_distances
    from ntkviz.core.scattering.transform import ScatteringParams

    X, y, R, ry = small_set
    params = ScatteringParams(J=2, L=4)
    items = list(stability_sweep(X, y, PRESETS["M1"], "dilation", [0.01, 0.02, 0.04], 2, R, ry,
                                 maps=("scattering", "fourier", "pixels"), scattering=params))
    r = items[-1].result
    assert r.maps == ("scattering", "fourier", "pixels") and np.isnan(r.ckn_mean).all()
    for name in ("scattering", "fourier"):
        d = [map_distances(name, X[k], deform_image(X[k], family_deformation("dilation", 0.02, 1000 * k + s))[0][None],
                           scattering=params)[0] for k in range(2) for s in range(2)]
        c = r.curve(name)
        assert c.mean[1] == pytest.approx(np.mean(d), rel=1e-12) and c.std[1] == pytest.approx(np.std(d), rel=1e-9)
        assert c.slope == pytest.approx(fit_loglog_slope(r.amplitudes, c.mean), rel=1e-12)
        same = [map_distances(name, X[k], R[ry == y[k]], scattering=params) for k in range(2)]
        assert c.same_label == pytest.approx(np.mean(np.concatenate(same)), rel=1e-12)
        assert c.any_label == pytest.approx(np.mean([map_distances(name, X[k], R, scattering=params)
                                                     for k in range(2)]), rel=1e-12)
    assert 0.9 <= r.curve("scattering").slope <= 1.1          # Lipschitz in the dilation s = ||grad tau||_inf
    np.testing.assert_allclose(r.jacobian_sup, r.amplitudes, rtol=1e-9)
    header, rows = r.to_csv_rows()
    assert header == ["amplitude", "pixel_mean", "pixel_std", "tau_sup_px", "jacobian_sup",
                      "scattering_mean", "scattering_std", "scattering_slope", "same_label_scattering",
                      "any_label_scattering", "fourier_mean", "fourier_std", "fourier_slope",
                      "same_label_fourier", "any_label_fourier"]
    assert rows[1][header.index("fourier_mean")] == r.curve("fourier").mean[1]
    assert [len(p.result.curve("scattering").mean) for p in items] == [1, 2, 3, 3]
    with pytest.raises(ValueError, match="map must be one of"):
        r.curve("ckn")


def test_default_maps_keep_the_default_columns_and_curves(sweep):
    r = sweep[-1].result
    assert r.maps == ("ckn", "ntk", "pixels") and r.curves == {}
    assert r.curve("ntk").slope == r.ntk_slope and r.curve("ckn").any_label == r.any_label_ckn
    assert r.curve("pixels").slope == pytest.approx(fit_loglog_slope(r.amplitudes, r.pixel_mean))
    assert r.to_csv_rows()[0] == list(SweepResult.CSV_HEADER)


def test_dilation_family_and_its_range(small_set):
    X, y, *_ = small_set
    d = family_deformation("dilation", 0.1, 7)
    assert d.scale == pytest.approx(1 / 0.9)
    with pytest.raises(ValueError, match="dilation s must be"):
        list(stability_sweep(X[:1], y[:1], PRESETS["M1"], "dilation", [0.5, 2.0], 1, maps=("pixels",)))
    with pytest.raises(ValueError, match="maps must be distinct names"):
        stability_sweep(X, y, PRESETS["M1"], "smooth", [0.1], 1, maps=("ckn", "sift"))
