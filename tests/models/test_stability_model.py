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


# --------------------------------------------------------------------------- the sets figure

@pytest.mark.parametrize("state, match", [
    ({"figure": "bars"}, "figure must be one of amplitude, sets"),
    ({"sets": ["deform:3", "bogus"]}, "set must be one of deform"),
    ({"sets": ["deform"]}, "needs its α"),
    ({"sets": ["same:2"]}, "takes no α"),
    ({"sets": ["deform:3", "deform:3.0"]}, "twice"),
    ({"sets": ["deform:1", "deform:2", "deform:3", "deform:4", "deform:5", "deform:6", "deform:7",
               "deform:8", "deform:9"]}, "sets must name 1 to 8 sets, got 9"),
    ({"set_size": 501}, r"set_size must be in \[1, 500\]"),
    ({"reference_label": 10}, r"reference_label must be in \[0, 9\]"),
    ({"sweep": "width"}, "sweep must be one of last-pooling, patch, layers, amplitude"),
    ({"sweep_values": [2, 2.5]}, r"sweep_values \(last-pooling\) must be an integer"),
    ({"sweep": "amplitude", "sweep_values": [0.3, 1001]}, r"must be in \[0, 1000\]"),
    ({"sweep_values": []}, "non-empty"),
    ({"infimnist_data": " "}, "infimnist_data must be a folder name or null"),
    ({"maps": ["ckn", "wavelets"]}, "maps must be one of ckn, ntk, scattering, fourier, pixels"),
    ({"maps": []}, "maps must be a non-empty list"),
    ({"scattering_j": 5}, "scattering_j must be at most 4"),
    ({"family": "noise", "amplitude_max": 1001.0}, r"amplitude_max must be in"),
    ({"family": "dilation", "amplitude_min": 0.1, "amplitude_max": 0.99}, "at most 0.95"),
])
def test_bad_sets_and_maps_values_are_refused_naming_the_field(state, match):
    with pytest.raises(ValueError, match=match):
        StabilityModel.parse(state)


def test_set_names_are_read_as_their_tokens():
    p = StabilityModel.parse({"sets": [" deform:3.0", "deform+translate:1", "same", "any"]})
    assert p.sets == ("deform:3", "deform+translate:1", "same", "any")


def test_every_field_belongs_to_one_figure_or_the_drawing():
    import dataclasses

    from ntkviz.models.stability import FIGURE_FIELDS

    names = {f.name for f in dataclasses.fields(StabilityParams)}
    amplitude, sets = set(FIGURE_FIELDS["amplitude"]), set(FIGURE_FIELDS["sets"])
    assert amplitude | sets | StabilityModel.display_only == names
    assert amplitude & sets == {"architecture"}  # the one field both figures are computed from
    a, b = StabilityParams(), StabilityParams(set_size=3)
    assert StabilityModel.same_figure("amplitude", a, b) and not StabilityModel.same_figure("sets", a, b)


def test_sets_request_carries_exactly_the_parameters():
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.jobs import StabilitySetsRequest, StabilityRequest

    p = StabilityModel.parse({"figure": "sets", "reference_label": 3, "reference_index": 4,
                              "sets": ["deform:2", "any"], "set_size": 7, "sweep": "patch",
                              "sweep_values": [1, 3], "architecture": "M2"})
    req = StabilityModel.build_request(p)
    assert isinstance(req, StabilitySetsRequest)
    assert (req.reference_label, req.reference_index, [s.token for s in req.sets], req.set_size,
            req.sweep, req.values) == (3, 4, ["deform:2", "any"], 7, "patch", (1, 3))
    assert all(isinstance(v, int) for v in req.values) and req.architecture == PRESETS["M2"]
    assert isinstance(StabilityModel.figure_request(p, "amplitude"), StabilityRequest)
    amp = StabilityModel.build_request(StabilityModel.parse({"figure": "sets", "sweep": "amplitude",
                                                             "sweep_values": [0.3, 1.5]}))
    assert amp.values == (0.3, 1.5)


def test_maps_and_scattering_reach_the_sweep():
    req = StabilityModel.build_request(StabilityModel.parse({"maps": ["ckn", "scattering", "fourier"],
                                                             "scattering_j": 3, "scattering_l": 4}))
    assert req.maps == ("ckn", "scattering", "fourier")
    assert (req.scattering.J, req.scattering.L) == (3, 4)
    assert StabilityModel.build_request(StabilityParams()).scattering is None


@pytest.mark.parametrize("text, want", [
    ("patch", {"sweep": "patch", "sweep_values": (1.0, 3.0, 5.0)}),
    ("layers:1,4", {"sweep": "layers", "sweep_values": (1.0, 4.0)}),
    ("amplitude:0.5, 2", {"sweep": "amplitude", "sweep_values": (0.5, 2.0)}),
])
def test_parse_sweep(text, want):
    from ntkviz.models.stability import parse_sweep

    assert parse_sweep("--sweep", text) == want


@pytest.mark.parametrize("text, match", [
    ("width:3", "NAME among last-pooling"), ("patch:3,3", "repeat"), ("patch:0", r"in \[1, 99\]"),
    ("patch:1.5", "integers"), ("amplitude:", "needs at least one value"),
])
def test_parse_sweep_refusals_name_the_option(text, match):
    from ntkviz.models.stability import parse_sweep

    with pytest.raises(ValueError, match=match) as info:
        parse_sweep("--sweep", text)
    assert str(info.value).startswith("--sweep")


def test_every_family_has_its_axis_and_a_valid_default_range():
    from ntkviz import limits
    from ntkviz.models.stability import FAMILY_AXES

    assert tuple(FAMILY_AXES) == limits.SWEEP_FAMILIES
    for family in limits.SWEEP_FAMILIES:
        StabilityModel.parse({"family": family, **family_defaults(family)})
