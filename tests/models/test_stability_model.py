"""The stability view's Qt-free model: ranges, refusals, amplitudes (no Qt)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.models.stability import StabilityModel, StabilityParams, amplitudes, family_defaults


def test_amplitudes_are_geometric_with_exact_ends():
    p = StabilityParams(amplitude_min=0.01, amplitude_max=500.0, amplitude_count=7)
    a = np.array(amplitudes(p))
    assert a[0] == 0.01 and a[-1] == 500.0
    np.testing.assert_allclose(np.diff(np.log(a)), math.log(50000) / 6, rtol=1e-12)
    assert amplitudes(StabilityParams(amplitude_min=2.0, amplitude_max=2.0,
                                      amplitude_count=1)) == (2.0,)


@pytest.mark.parametrize("state, match", [
    ({"family": "warp"}, r"family must be one of smooth, translation, rotation, infimnist"),
    ({"digits": [1000]}, r"digits must be in \[0, 999\], got 1000"),
    ({"digits": []}, "digits must be a non-empty list"),
    ({"digits": [3, 3]}, "must not repeat"),
    ({"amplitude_min": 0.0}, r"amplitude_min must be in \(0, 1000\]"),
    ({"amplitude_max": 1001.0}, r"amplitude_max must be in \[0, 1000\]"),
    ({"amplitude_min": 2.0, "amplitude_max": 1.0}, "amplitude_min must be <= amplitude_max"),
    ({"seeds": 0}, r"seeds must be in \[1, 1000\]"),
    ({"architecture": "M9"}, "architecture must be one of M1, M2, M3, M4"),
    ({"digits": [0], "reference_per_class": 1}, "reference_per_class must be >= 2 for digits 0"),
])
def test_bad_values_are_refused_naming_the_field(state, match):
    with pytest.raises(ValueError, match=match):
        StabilityModel.parse(state)


def test_digit_with_another_same_label_reference_is_accepted():
    StabilityModel.parse({"digits": [0, 150], "reference_per_class": 1})  # 150 has digit 100


def test_request_carries_exactly_the_parameters():
    from ntkviz.core.conv.architecture import PRESETS

    p = StabilityModel.parse({"family": "rotation", **family_defaults("rotation"),
                              "digits": [5, 205], "seeds": 3, "first_seed": 10,
                              "architecture": "M3", "reference_per_class": 4})
    req = StabilityModel.build_request(p)
    assert (req.family, req.digits, req.seeds, req.reference_per_class) == \
        ("rotation", (5, 205), (10, 11, 12), 4)
    assert req.architecture == PRESETS["M3"]
    assert req.amplitudes == amplitudes(p)


def test_every_gallery_case_is_valid():
    for state in StabilityModel.gallery_cases().values():
        StabilityModel.parse(state)
