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
