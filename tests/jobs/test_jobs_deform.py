"""Qt-free jobs of the deformation editor and the stability view.

Every value is checked against the core functions called directly (an
independent route through the public API) or against closed forms (block
replication, exact zeros)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.conv.gram import image_norms, rel_distances
from ntkviz.core.deformations.deform import Deformation, deform_image, jacobian_sup_norm, tau_sup_norm
from ntkviz.core.deformations.digits import digit_image, load_digits, prepare_user_image
from ntkviz.jobs import (ContextRequest, ContextResult, DeformRequest, StabilityRequest, deform_csv_table,
                         run_to_end)
from ntkviz.limits import CKN_RESOLUTION, NTK_RESOLUTION

M1 = PRESETS["M1"]


@pytest.fixture(scope="module")
def digit():
    return digit_image(3, 1)


# --------------------------------------------------------------------------- user images
def test_user_image_of_the_right_kind_is_used_as_is(digit):
    image, note = prepare_user_image(digit)
    np.testing.assert_array_equal(image, digit)
    assert note == "used as is"


def test_user_image_block_replicated_resamples_back(digit):
    big = np.kron(digit, np.ones((3, 3))) * 255.0  # 84x84 grey levels 0..255
    image, note = prepare_user_image(big)
    np.testing.assert_allclose(image, digit, rtol=0, atol=1e-12)
    assert "84×84" in note and "[0, 1]" in note and "downsampled" in note


def test_user_image_dark_on_light_is_inverted(digit):
    image, note = prepare_user_image(1.0 - digit)
    np.testing.assert_allclose(image, digit, atol=1e-15)
    assert "inverted" in note


def test_user_image_non_square_is_padded_then_resampled():
    rng = np.random.default_rng(0)
    small = rng.uniform(0, 0.4, size=(14, 7))  # dark border: no inversion
    padded = np.zeros((14, 14))
    padded[:, 3:10] = small  # centred: (14 - 7) // 2 = 3 columns on the left
    image, note = prepare_user_image(small)
    np.testing.assert_allclose(image, np.kron(padded, np.ones((2, 2))), atol=1e-15)
    assert "padded" in note


def test_user_image_colour_channels_are_averaged(digit):
    rgb = np.stack([digit, digit, digit], axis=2)
    image, note = prepare_user_image(rgb)
    np.testing.assert_allclose(image, digit, atol=1e-15)
    assert "grey" in note


@pytest.mark.parametrize("bad, words", [
    (np.full((28, 28), np.nan), "NaN"),
    (np.zeros(28), "shape"),
    (np.zeros((2, 28, 28, 1)), "shape"),
    (-np.ones((28, 28)), ">= 0"),
    (np.zeros((28, 28)), "blank"),
])
def test_user_image_errors_name_the_problem(bad, words):
    with pytest.raises(ValueError, match=words):
        prepare_user_image(bad, name="mine.npy")


# --------------------------------------------------------------------------- DeformRequest
def test_zero_deformation_reads_exactly_zero(digit):
    resp = DeformRequest(digit, Deformation(), M1)()
    assert resp.identical
    assert resp.ckn_distance == 0.0 and resp.ntk_distance == 0.0 and resp.pixel_distance == 0.0
    assert resp.tau_sup == 0.0 and resp.jacobian_sup == 0.0
    assert not resp.ckn_below_resolution and not resp.ntk_below_resolution
    assert math.isnan(resp.ratio)
    np.testing.assert_array_equal(resp.difference, 0.0)


@pytest.mark.parametrize("deformation", [
    Deformation(translate_x=1.25, rotation_deg=6.0),
    Deformation(smooth_amplitude=0.8, smooth_length=3.0, smooth_seed=4),
    Deformation(scale=1.1, shear=-0.15, translate_y=-0.5),
])
def test_deform_request_matches_the_core(digit, deformation):
    resp = DeformRequest(digit, deformation, M1)()
    deformed, tau = deform_image(digit, deformation)
    np.testing.assert_array_equal(resp.deformed, deformed)
    np.testing.assert_array_equal(resp.tau, tau)
    np.testing.assert_array_equal(resp.difference, deformed - digit)
    ckn, ntk = rel_distances(image_norms(digit, M1), image_norms(deformed, M1), M1)
    assert resp.ckn_distance == pytest.approx(ckn, rel=1e-12)
    assert resp.ntk_distance == pytest.approx(ntk, rel=1e-12)
    assert resp.ratio == pytest.approx(ntk / ckn, rel=1e-12)
    assert resp.pixel_distance == pytest.approx(
        np.linalg.norm(deformed - digit) / np.linalg.norm(digit), rel=1e-14)
    assert resp.tau_sup == tau_sup_norm(tau)
    assert resp.jacobian_sup == jacobian_sup_norm(tau)
    assert not resp.identical


def test_cached_reference_norms_give_the_same_answer(digit):
    d = Deformation(translate_x=0.7)
    fresh = DeformRequest(digit, d, M1)()
    cached = DeformRequest(digit, d, M1, reference_norms=fresh.reference_norms)()
    assert cached.ckn_distance == fresh.ckn_distance
    assert cached.ntk_distance == fresh.ntk_distance


@pytest.mark.parametrize("shift", [1e-9, 1e-7])
def test_tiny_distances_are_flagged_below_resolution(digit, shift):
    resp = DeformRequest(digit, Deformation(translate_x=shift), M1)()
    assert not resp.identical and resp.pixel_distance > 0
    assert resp.ntk_distance < NTK_RESOLUTION and resp.ntk_below_resolution
    assert resp.ckn_distance < CKN_RESOLUTION and resp.ckn_below_resolution
    assert math.isnan(resp.ratio)  # no ratio of noise


def test_resolvable_small_distances_are_data(digit):
    # a 1e-3 px shift: CKN ~ 1e-4 (linear), NTK ~ 2e-3 (square root), both resolved
    resp = DeformRequest(digit, Deformation(translate_x=1e-3), M1)()
    assert not resp.ckn_below_resolution and not resp.ntk_below_resolution
    assert resp.ntk_distance > NTK_RESOLUTION and resp.ckn_distance > CKN_RESOLUTION
    assert resp.ratio == pytest.approx(resp.ntk_distance / resp.ckn_distance)


def test_exp_architecture_has_no_ntk(digit):
    resp = DeformRequest(digit, Deformation(translate_x=1.0), PRESETS["M4"])()
    assert math.isnan(resp.ntk_distance) and math.isnan(resp.ratio)
    assert resp.ckn_distance > 0


def test_request_snapshots_its_image(digit):
    img = digit.copy()
    req = DeformRequest(img, Deformation(), M1)
    img[:] = 0.0
    np.testing.assert_array_equal(req.image, digit)
    assert not req.image.flags.writeable


@pytest.mark.parametrize("kwargs, words", [
    ({"image": np.full((28, 28), np.nan)}, "NaN"),
    ({"deformation": {"translate_x": 1}}, "deformation"),
    ({"architecture": "M1"}, "architecture"),
])
def test_deform_request_validates(digit, kwargs, words):
    args = {"image": digit, "deformation": Deformation(), "architecture": M1, **kwargs}
    with pytest.raises(ValueError, match=words):
        DeformRequest(**args)


# --------------------------------------------------------------------------- ContextRequest
def _reference_set(per_class):
    images, labels = load_digits()
    idx = np.concatenate([np.flatnonzero(labels == k)[:per_class] for k in range(10)])
    return images[idx].astype(np.float64) / 255.0, labels[idx].astype(int)


def test_context_matches_direct_distances():
    x, label = digit_image(5, 0), 5  # the first 5: also in the reference set, so excluded
    result = ContextRequest(x, label, M1, per_class=2)()
    refs, labels = _reference_set(2)
    nx = image_norms(x, M1)
    direct = {"ckn": [], "ntk": [], "pixel": []}
    for y in refs:
        c, n = rel_distances(nx, image_norms(y, M1), M1)
        direct["ckn"].append(c)
        direct["ntk"].append(n)
        direct["pixel"].append(np.linalg.norm(y - x) / np.linalg.norm(x))
    itself = np.array([np.array_equal(y, x) for y in refs])
    assert itself.sum() == 1
    same = (labels == label) & ~itself
    other = labels != label
    assert (result.n_same, result.n_other) == (1, 18)
    for m, d in direct.items():
        d = np.asarray(d)
        lv = result.levels[m]
        assert lv["nearest_same"] == pytest.approx(d[same].min(), rel=1e-12)
        assert lv["mean_same"] == pytest.approx(d[same].mean(), rel=1e-12)
        assert lv["nearest_other"] == pytest.approx(d[other].min(), rel=1e-12)
        assert lv["mean_other"] == pytest.approx(d[other].mean(), rel=1e-12)


def test_context_is_cached_and_reports_progress():
    x = digit_image(7, 3)
    req = ContextRequest(x, 7, M1, per_class=2)
    items = []
    result = run_to_end(req.iterate(), on_item=items.append)
    assert isinstance(result, ContextResult) and all(0 < it.fraction < 1 for it in items)
    fractions = [it.fraction for it in items]
    assert fractions == sorted(fractions) and len(items) > 1
    again = []
    assert run_to_end(ContextRequest(x.copy(), 7, M1, per_class=2).iterate(),
                      on_item=again.append) is result
    assert again == []  # cached: no work, no progress


def test_context_cancelled_early_caches_nothing():
    x = digit_image(8, 2)
    req = ContextRequest(x, 8, M1, per_class=2)
    gen = req.iterate()
    next(gen)
    gen.close()
    assert req.cached() is None


def test_context_without_label_counts_every_digit_as_other():
    x = digit_image(2, 50)  # not among the first 2 of its class
    result = ContextRequest(x, None, M1, per_class=2)()
    assert result.n_same == 0 and result.n_other == 20
    assert math.isnan(result.levels["ckn"]["mean_same"])
    assert result.levels["ckn"]["mean_other"] > 0


# --------------------------------------------------------------------------- StabilityRequest
def test_stability_model_defaults_build_the_request():
    from ntkviz.models.stability import StabilityModel

    req = StabilityModel().request()
    assert req.family == "smooth" and req.digits == tuple(range(0, 1000, 100))   # one of each label
    np.testing.assert_allclose(req.amplitudes, np.geomspace(0.01, 3.0, 6), rtol=1e-14)
    assert req.amplitudes[0] == 0.01 and req.amplitudes[-1] == 3.0
    assert req.seeds == (0,)
    assert req.architecture == M1
    labels = load_digits()[1][list(req.digits)]
    assert list(labels) == list(range(10))


def test_stability_request_runs_the_core_sweep():
    from ntkviz.core.deformations.stability import stability_sweep
    from ntkviz.models.stability import StabilityModel

    state = {"digits": [0, 100], "amplitude_min": 0.1, "amplitude_max": 1.0,
             "amplitude_count": 2, "seeds": 1, "reference_per_class": 2}
    req = StabilityModel.build_request(StabilityModel.parse(state))
    items = []
    got = run_to_end(req.iterate(), on_item=items.append)
    assert [len(it.partial.amplitudes) for it in items] == [1, 2]  # partial sweeps
    assert got.complete and not any(it.partial.complete for it in items)
    assert req().to_csv_rows() == got.to_csv_rows()  # calling runs it to the end
    images, labels = load_digits()
    refs, ref_labels = _reference_set(2)
    want = None
    for want in stability_sweep(images[[0, 100]] / 255.0, labels[[0, 100]].astype(int), M1,
                                "smooth", np.array(req.amplitudes), (0,),
                                reference_images=refs, reference_labels=ref_labels):
        pass
    assert got.to_csv_rows() == want.result.to_csv_rows()
    assert all(math.isfinite(v) for row in got.to_csv_rows()[1] for v in row)


def test_context_from_a_zero_digit_is_infinite_never_nan():
    zero = np.zeros((28, 28))
    resp = DeformRequest(zero, Deformation(translate_x=1.0), M1)()
    assert resp.identical and resp.ckn_distance == 0.0  # zero moved is zero
    result = ContextRequest(zero, None, M1, per_class=1)()
    for m in ("ckn", "ntk", "pixel"):
        assert result.levels[m]["mean_other"] == math.inf
        assert result.levels[m]["nearest_other"] == math.inf
    header, rows = deform_csv_table("context", resp, result)
    values = [r[2] for r in rows]
    assert not any(math.isnan(v) for v in values)
    assert {r[0] for r in rows} == {"deformation", "nearest_other", "mean_other"}  # no label


def test_context_distances_are_kept_on_disk_between_sessions(tmp_path, monkeypatch):
    """A result computed once is read back from the cache folder by a later session (the
    memory cache emptied) without computing anything; a damaged file is computed again."""
    import ntkviz.jobs._deform as jobs_deform

    x = digit_image(3, 7)
    first = ContextRequest(x, 3, M1, per_class=1, cache_dir=str(tmp_path))()
    files = list(tmp_path.glob("context-*.json"))
    assert len(files) == 1
    monkeypatch.setattr(jobs_deform, "_CONTEXT_CACHE", {})

    def no_kernels(*args, **kwargs):
        raise AssertionError("computed again")

    with monkeypatch.context() as m:
        m.setattr(jobs_deform, "rel_distances", no_kernels)
        again = ContextRequest(x.copy(), 3, M1, per_class=1, cache_dir=str(tmp_path))()
    assert again.levels == first.levels and (again.n_same, again.n_other) == (first.n_same,
                                                                               first.n_other)
    # another architecture or label is another file
    ContextRequest(x, None, M1, per_class=1, cache_dir=str(tmp_path))()
    assert len(list(tmp_path.glob("context-*.json"))) == 2
    files[0].write_text("{not json")
    monkeypatch.setattr(jobs_deform, "_CONTEXT_CACHE", {})
    assert ContextRequest(x, 3, M1, per_class=1, cache_dir=str(tmp_path))().levels == first.levels
