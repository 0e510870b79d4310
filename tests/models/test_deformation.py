"""The deformation editor's Qt-free model: ranges, sessions, requests (no Qt)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ntkviz import limits
from ntkviz.models.deformation import CUSTOM, DeformationModel, DeformationParams, map_sizes


def test_importing_the_model_loads_no_qt_numba_or_scipy():
    code = ("import sys, ntkviz.models.deformation, ntkviz.models.stability; "
            "print(any(m in sys.modules for m in ('PySide6', 'numba', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("field, bounds", [
    ("translate_x", limits.TRANSLATE_RANGE), ("rotation_deg", limits.ROTATION_RANGE),
    ("scale", limits.SCALE_RANGE), ("shear", limits.SHEAR_RANGE),
    ("smooth_amplitude", limits.SMOOTH_AMPLITUDE_RANGE),
])
def test_range_ends_are_kept_exactly_and_beyond_is_refused(field, bounds):
    lo, hi = bounds
    for value in (lo, hi):
        assert getattr(DeformationModel.parse({field: value}), field) == value
    with pytest.raises(ValueError, match=rf"{field} must be in \[{lo:g}, {hi:g}\]"):
        DeformationModel.parse({field: hi * 1.5 + 1})


def test_values_outside_any_slider_reach_the_request_exactly():
    from ntkviz.core.deformations.deform import Deformation

    state = {"label": 1, "rotation_deg": 90.0, "translate_x": 100.0, "scale": 3.0, "shear": 5.0,
             "smooth_amplitude": 0.12345}
    req = DeformationModel.build_request(DeformationModel.parse(state))
    assert req.deformation == Deformation(translate_x=100.0, rotation_deg=90.0, scale=3.0,
                                          shear=5.0, smooth_amplitude=0.12345)


def test_session_round_trip_and_strict_restore():
    model = DeformationModel()
    model.update(label=4, index=7, rotation_deg=12.5, preset=CUSTOM,
                 layers=((2, 2, "gaussian", "relu", 1.0, None), (3, 3, "average", "relu", 1.0, 2)))
    saved = model.to_session()
    other = DeformationModel()
    other.restore(saved)
    assert other.params == model.params
    before = other.params
    for bad in ({"label": 10}, {"preset": "M9"}, {"layers": "x"}, {"colour": 1},
                {"rotation_deg": "90"}, {"user_pixels": [[0.5] * 28] * 27}):
        with pytest.raises(ValueError):
            other.restore(bad)
        assert other.params is before


def test_custom_layers_are_checked_on_the_28_pixel_digit():
    with pytest.raises(ValueError, match="layer 2: patch 15×15 is larger than its 13×13"):
        DeformationParams(preset=CUSTOM, layers=((3, 2, "gaussian", "relu", 1.0, None),
                                                 (15, 2, "gaussian", "relu", 1.0, None),
                                                 (3, 2, "gaussian", "relu", 1.0, None)))
    with pytest.raises(ValueError, match="layers must be empty unless preset is 'custom'"):
        DeformationParams(layers=((3, 2, "gaussian", "relu", 1.0, None),))
    p = DeformationParams()  # M1: sizes as the core computes them
    from ntkviz.core.conv.architecture import PRESETS

    want = [(a[0], c[0]) for a, _, c in PRESETS["M1"].layer_sizes(28, 28)]
    assert map_sizes(p) == want


def test_user_pixels_must_be_a_prepared_non_blank_image():
    good = tuple(tuple(0.5 for _ in range(28)) for _ in range(28))
    assert DeformationParams(user_pixels=good).is_user_image
    with pytest.raises(ValueError, match="blank"):
        DeformationParams(user_pixels=tuple(tuple(0.0 for _ in range(28)) for _ in range(28)))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        DeformationParams(user_pixels=tuple(tuple(2.0 for _ in range(28)) for _ in range(28)))


def test_pre_release_nested_session_is_refused():
    """The nested form of pre-release sessions (digit / deformation / architecture objects)
    is no longer read: each of its fields is an unknown parameter, named."""
    for key, value in (("digit", {"kind": "bundled", "label": 2, "index": 3}),
                       ("deformation", {"rotation_deg": 5.0}),
                       ("architecture", {"layers": [{"npatch": 3, "subsampling": 2}] * 3})):
        with pytest.raises(ValueError, match=f"unknown parameter '{key}'"):
            DeformationModel.parse({key: value, "preset": "M2"})


def test_every_gallery_case_is_valid():
    for name, state in DeformationModel.gallery_cases().items():
        DeformationModel.parse(state)


def test_even_patch_offsets_field():
    p = DeformationParams(preset=CUSTOM, even_patch_offsets="same",
                          layers=((2, 2, "gaussian", "relu", 1.0, None),))
    assert p.architecture().even_patch_offsets == "same"
    with pytest.raises(ValueError, match="even_patch_offsets must be one of reference, same"):
        DeformationParams(even_patch_offsets="valid")


def test_request_digit_is_the_bundled_one():
    from ntkviz.core.deformations.digits import digit_image

    req = DeformationModel.build_request(DeformationModel.parse({"label": 6, "index": 9}))
    np.testing.assert_array_equal(req.image, digit_image(6, 9))
    assert req.label == 6


def test_the_context_request_is_built_again_only_when_the_digit_or_architecture_changes(
        tmp_path, monkeypatch):
    """A slider move of the deformation builds (and checks, and hashes) no context request;
    a new digit or architecture does."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    model = DeformationModel()
    first = model.context_request()
    for change in ({"rotation_deg": 12.0}, {"translate_x": 3.0}, {"smooth_amplitude": 1.0}):
        model.update(**change)
        assert model.context_request() is first
    model.update(label=4)
    second = model.context_request()
    assert second is not first and second.label == 4
    model.update(preset="M2")
    assert model.context_request() is not second
    assert model.context_request().cache_dir == str(tmp_path / "ntkviz" / "context")
