"""Kernel-curve panel model (Qt-free): validation, sessions, requests, display-only fields."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ntkviz.models.kernel_curves import (KernelCurvesModel, KernelCurvesParams, choice_specs,
                                         parse_int_list, parse_name_list)


def test_importing_the_models_loads_no_qt_numba_or_scipy():
    code = ("import sys, ntkviz.models.kernel_curves, ntkviz.models.spectrum\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('PySide6', 'pyqtgraph', 'numba', 'scipy')]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_default_request_is_the_documented_choice():
    from ntkviz.core import KernelSpec

    request = KernelCurvesModel().request()
    # κ1 then the two-layer ReLU NTK (drawing order κ0, κ1, NTK, NNGP), 801 points, no overlay
    assert request.specs == (KernelSpec("arccos1"), KernelSpec("ntk", 2, 0.0, "relu"))
    assert request.n_points == 801 and request.width is None and not request.derivative
    assert request.near_one  # always computed: showing it is display-only


@pytest.mark.parametrize("bias", [0.12345, 0.0004, 1e-9, 100.0])
def test_request_carries_the_exact_bias(bias):
    model = KernelCurvesModel()
    model.update(bias=bias, kernels=("ntk", "nngp"), depth=4, extra_depths=(7,))
    specs = model.request().specs
    assert [s.bias for s in specs] == [bias] * 4
    assert [(s.name, s.depth) for s in specs] == [("ntk", 4), ("ntk", 7), ("nngp", 4), ("nngp", 7)]


def test_extra_depth_equal_to_depth_is_drawn_once():
    p = KernelCurvesParams(kernels=("ntk",), depth=3, extra_depths=(3, 5))
    assert [s[1] for s in choice_specs(p)] == [3, 5]


def test_overlay_uses_the_model_width_exactly():
    model = KernelCurvesModel()
    model.update(overlay=True, width=1, n_samples=3, seed=4_000_000_000)
    request = model.request()
    assert (request.width, request.n_samples, request.seed) == (1, 3, 4_000_000_000)
    model.update(overlay=False)
    assert model.request().width is None


@pytest.mark.parametrize("changes, message", [
    ({"depth": 99}, "depth must be in [2, 50], got 99"),
    ({"depth": 1}, "depth must be in [2, 50], got 1"),
    ({"extra_depths": (3, 51)}, "extra_depths must be in [2, 50], got 51"),
    ({"extra_depths": (3, 3)}, "extra_depths must not repeat a depth"),
    ({"bias": -0.1}, "bias must be in [0, 100], got -0.1"),
    ({"bias": 100.5}, "bias must be in [0, 100]"),
    ({"bias": float("nan")}, "bias must be in [0, 100], got nan"),
    ({"kernels": ()}, "choose at least one"),
    ({"kernels": ("ntk", "ntk")}, "kernels must not repeat a name"),
    ({"kernels": ("rbf",)}, "kernels must be among arccos0, arccos1, ntk, nngp; got 'rbf'"),
    ({"activation": "swish"}, "activation must be one of relu"),
    ({"width": 0}, "width must be in [1, 65536], got 0"),
    ({"width": 65537}, "width must be in [1, 65536]"),
    ({"n_samples": 65}, "n_samples must be in [1, 64]"),
    ({"seed": -1}, "seed must be in [0, 4294967295]"),
    ({"n_points": 2}, "n_points must be in [3, 20001]"),
    ({"kernels": ("arccos1",), "overlay": True}, "needs an NTK or NNGP curve"),
    ({"kernels": ("ntk", "nngp"), "extra_depths": (3, 4, 5, 6)}, "at most 8 curves"),
])
def test_out_of_range_values_are_refused_and_nothing_changes(changes, message):
    model = KernelCurvesModel()
    before = model.params
    seen = []
    model.connect(lambda changed, recompute: seen.append(changed))
    with pytest.raises(ValueError) as info:
        model.update(**changes)
    assert message in str(info.value)
    assert model.params is before and not seen


def test_near_one_is_display_only_and_depth_recomputes():
    model = KernelCurvesModel()
    seen = []
    model.connect(lambda changed, recompute: seen.append((set(changed), recompute)))
    model.update(near_one=False)
    model.update(depth=5)
    assert seen == [({"near_one"}, False), ({"depth"}, True)]


def test_session_round_trip_through_json():
    model = KernelCurvesModel()
    model.update(kernels=("arccos0", "nngp"), activation="tanh", depth=4, extra_depths=(6,),
                 bias=0.25, normalize=True, near_one=False, n_points=301, overlay=True,
                 width=500, seed=3, n_samples=2)
    state = json.loads(json.dumps(model.to_session()))
    other = KernelCurvesModel()
    other.restore(state)
    assert other.params == model.params


@pytest.mark.parametrize("state, message", [
    ({"depth": "3"}, "depth must be an integer"),
    ({"extra_depths": "6"}, "extra_depths must be a list"),
    ({"overlay": 1}, "overlay must be true or false"),
    ({"colour": "red"}, "unknown parameter 'colour'"),
    ({"depth": 10 ** 400}, "depth must be in [2, 50]"),
])
def test_bad_session_is_refused_naming_the_field(state, message):
    model = KernelCurvesModel()
    before = model.params
    with pytest.raises(ValueError) as info:
        model.restore(state)
    assert message in str(info.value) and "0" * 30 not in str(info.value)
    assert model.params is before


def test_gallery_cases_are_valid_sessions():
    cases = KernelCurvesModel.gallery_cases()
    assert "default" in cases
    assert any(p.get("depth") == 50 and p.get("bias") for p in cases.values())
    for state in cases.values():
        KernelCurvesModel.build_request(KernelCurvesModel.parse(state))


def test_text_lists_refuse_empty_entries():
    assert parse_int_list("--depths", " 3, 5 ") == (3, 5)
    assert parse_int_list("--depths", "") == ()
    for bad in (",", "3,,5", "3, x"):
        with pytest.raises(ValueError, match="--depths must be integers separated by commas"):
            parse_int_list("--depths", bad)
    assert parse_name_list("--kernels", "ntk, nngp", ()) == ("ntk", "nngp")
    with pytest.raises(ValueError, match="single commas"):
        parse_name_list("--kernels", "ntk,,nngp", ())
