"""The deformation editor's optional initial anti-aliasing pooling A₀ (σ₀): the model's field
reaches the architecture, round-trips through the architecture JSON and sessions, and a bad
σ₀ is refused naming the field."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ntkviz.models.deformation import CONTEXT_FIELDS, DeformationModel


def test_sigma0_reaches_the_architecture_and_round_trips_through_its_json():
    from ntkviz.core.conv.architecture import architecture_from_dict, architecture_to_dict

    p = DeformationModel.parse({"preset": "M2", "initial_pooling_sigma": 0.7})
    arch = p.architecture()
    assert arch.initial_pooling_sigma == 0.7
    assert arch.layers == DeformationModel.parse({"preset": "M2"}).architecture().layers
    data = json.loads(json.dumps(architecture_to_dict(arch)))
    assert data["initial_pooling_sigma"] == 0.7
    assert architecture_from_dict(data) == arch
    assert DeformationModel.parse({}).architecture().initial_pooling_sigma is None
    assert "initial_pooling_sigma" not in architecture_to_dict(DeformationModel.parse({}).architecture())


def test_sigma0_round_trips_through_a_session_and_changes_the_context():
    model = DeformationModel()
    model.update(initial_pooling_sigma=1.5)
    state = json.loads(json.dumps(model.to_session()))
    assert state["initial_pooling_sigma"] == 1.5
    other = DeformationModel()
    other.restore(state)
    assert other.params == model.params
    assert "initial_pooling_sigma" in CONTEXT_FIELDS  # the context distances depend on A₀


def test_sigma0_filters_the_digit_before_the_first_layer():
    """With A₀ the editor's distances are those of the Gaussian-filtered digits (Φ(A₀x)):
    equal to the distances without A₀ between images filtered independently."""
    from scipy.ndimage import gaussian_filter

    from ntkviz.core.conv.gram import image_norms, rel_distances
    from ntkviz.core.deformations.deform import deform_image

    with_a0 = DeformationModel.parse({"label": 3, "translate_x": 1.0, "initial_pooling_sigma": 1.2})
    r = DeformationModel.build_request(with_a0)()
    plain = DeformationModel.parse({"label": 3}).architecture()
    x, _, _ = with_a0.digit()
    y, _ = deform_image(x, with_a0.deformation())
    # A₀: taps exp(−a²/2σ²) for |a| ≤ ⌈4σ⌉ = 5, summing to 1, zero padding: scipy's filter
    fx, fy = (gaussian_filter(im, 1.2, mode="constant", truncate=4.0) for im in (x, y))
    ckn, _ = rel_distances(image_norms(fx, plain), image_norms(fy, plain), plain)
    np.testing.assert_allclose(r.ckn_distance, ckn, rtol=1e-9)


@pytest.mark.parametrize("value", [0.0, 51.0, "1"])
def test_bad_sigma0_is_refused(value):
    with pytest.raises(ValueError, match="initial_pooling_sigma"):
        DeformationModel.parse({"initial_pooling_sigma": value})
