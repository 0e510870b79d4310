"""The deformation editor's model: the image sources (digit, user image, Gabor probe), the
dilation, the scattering read-out's parameters and the maps shown (no Qt)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.models.deformation import DeformationModel, DeformationParams


def test_the_gabor_probe_is_a_source_without_context():
    from ntkviz.core.deformations.probes import gabor_image

    params = DeformationParams(source="gabor", gabor_omega0=2.5)
    assert params.is_probe and not params.is_user_image
    req = DeformationModel.build_request(params)
    assert req.probe_omega0 == 2.5 and req.label is None
    np.testing.assert_array_equal(req.image, gabor_image((28, 28), 2.5))
    assert DeformationModel.build_context_request(params) is None
    model = DeformationModel(params)
    assert model.context_request() is None
    assert "Gabor probe ω₀ = 2.5 rad/px (28×28 px, σ = 3.5 px" in params.caption()


def test_sources_are_consistent():
    pixels = tuple(tuple(0.5 for _ in range(28)) for _ in range(28))
    assert DeformationParams(user_pixels=pixels).source == "image"   # an earlier session
    with pytest.raises(ValueError, match="source 'image' needs user_pixels"):
        DeformationParams(source="image")
    with pytest.raises(ValueError, match="must be empty for the Gabor probe"):
        DeformationParams(source="gabor", user_pixels=pixels)
    with pytest.raises(ValueError, match="source must be one of digit, image, gabor"):
        DeformationParams(source="photo")
    with pytest.raises(ValueError, match="gabor_omega0 must be in"):
        DeformationParams(source="gabor", gabor_omega0=-1.0)
    with pytest.raises(ValueError, match="28 rows of 28 grey values"):
        DeformationParams(user_pixels=tuple(tuple(0.5 for _ in range(27)) for _ in range(28)))


def test_the_dilation_is_composed_with_the_zoom():
    params = DeformationParams(dilation=0.2, scale=1.5)
    assert params.deformation().scale == pytest.approx(1.5 / 0.8, rel=1e-15)
    assert DeformationParams(dilation=0.0, scale=1.5).deformation().scale == 1.5
    assert DeformationParams(dilation=0.25).deformation_values()["dilation"] == 0.25
    with pytest.raises(ValueError, match="dilation must keep scale / \\(1 - dilation\\) <= 20"):
        DeformationParams(dilation=0.5, scale=12.0)
    with pytest.raises(ValueError, match=r"dilation must be in \[0, 0.95\]"):
        DeformationParams(dilation=0.99)


def test_scattering_parameters_and_maps():
    from ntkviz.core.scattering.transform import ScatteringParams

    params = DeformationParams(scattering_j=3, scattering_l=4)
    assert DeformationModel.build_request(params).scattering == ScatteringParams(J=3, L=4)
    assert DeformationModel.build_context_request(params).scattering == ScatteringParams(J=3, L=4)
    with pytest.raises(ValueError, match=r"scattering_j must be in \[1, 4\]"):
        DeformationParams(scattering_j=5)
    with pytest.raises(ValueError, match="maps must be distinct names"):
        DeformationParams(maps=())
    # the maps shown change the drawing only
    a, b = DeformationParams(), DeformationParams(maps=("scattering", "fourier"))
    assert DeformationModel.same_computation(a, b)


def test_the_context_request_follows_the_scattering_parameters(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    model = DeformationModel()
    first = model.context_request()
    model.update(maps=("ckn",), dilation=0.1)
    assert model.context_request() is first
    model.update(scattering_l=4)
    assert model.context_request() is not first


def test_the_image_option_reads_the_probe():
    from ntkviz.cli._export import state_from_options

    state, set_by = state_from_options(DeformationModel, {"user_pixels": "gabor:omega0=pi/2"})
    assert state["source"] == "gabor" and state["gabor_omega0"] == math.pi / 2
    assert set_by["gabor_omega0"] == "--image"
    with pytest.raises(ValueError, match="--image gabor:omega0=W takes"):
        state_from_options(DeformationModel, {"user_pixels": "gabor:omega=2"})
    with pytest.raises(ValueError, match="--label applies to a bundled digit only"):
        state_from_options(DeformationModel, {"user_pixels": "gabor:omega0=1", "label": "3"})
