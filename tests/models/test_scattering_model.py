"""The Scattering tab's Qt-free model: ranges, the image sources, the request, sessions."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from ntkviz.models._sources import radians_list, radians_value
from ntkviz.models.scattering import ScatteringModel, ScatteringTabParams, dilations, image_shape, max_j


def test_importing_the_model_loads_no_qt_numba_or_scipy():
    code = ("import sys, ntkviz.models.scattering; "
            "print(any(m in sys.modules for m in ('PySide6', 'numba', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_default_request():
    from ntkviz.core.deformations.digits import digit_image

    req = ScatteringModel.build_request(ScatteringTabParams())
    np.testing.assert_array_equal(req.image, digit_image(3, 0))
    assert (req.params.J, req.params.L, req.params.order, req.params.padding) == (2, 8, 2, "zero")
    assert req.omega0s == (math.pi / 4, math.pi / 2, math.pi)
    # log-spaced: a geometric sequence from 0.005 to 0.05, ends exact
    s = req.dilations
    assert s[0] == 0.005 and s[-1] == 0.05 and len(s) == 5
    np.testing.assert_allclose(np.diff(np.log(s)), math.log(10) / 4, rtol=1e-12)


def test_the_probe_and_user_images():
    from ntkviz.core.deformations.probes import gabor_image

    probe = ScatteringTabParams(source="gabor", gabor_omega0=2.0, J=6)
    assert image_shape(probe) == (64, 64) and max_j((64, 64)) == 6
    np.testing.assert_array_equal(probe.image(), gabor_image((64, 64), 2.0))
    pixels = tuple(tuple(0.5 for _ in range(37)) for _ in range(33))
    mine = ScatteringTabParams(user_pixels=pixels, user_name="odd.npy")
    assert mine.source == "image" and image_shape(mine) == (33, 37)   # pixels alone mean the image
    assert "37×33" in mine.caption()
    with pytest.raises(ValueError, match="source 'image' needs user_pixels"):
        ScatteringTabParams(source="image")
    with pytest.raises(ValueError, match="must be empty for the Gabor probe"):
        ScatteringTabParams(source="gabor", user_pixels=pixels)
    with pytest.raises(ValueError, match="at most 128"):
        ScatteringTabParams(user_pixels=tuple(tuple(0.5 for _ in range(130)) for _ in range(3)))


@pytest.mark.parametrize("state, words", [
    ({"J": 5}, r"J = 5 needs image sides >= 2\^J = 32, got 28×28"),
    ({"J": 3, "padding": "periodic"}, "multiples of 2\\^J = 8"),
    ({"L": 17}, r"L must be in \[1, 16\]"),
    ({"order": 3}, r"order must be in \[0, 2\]"),
    ({"padding": "mirror"}, "padding must be one of zero, reflect, periodic"),
    ({"j1": 1, "j2": 1}, "j2 must be > j1 = 1"),
    ({"omega0s": [0.0]}, "omega0s must be in"),
    ({"omega0s": [1.0, 1.0]}, "must not repeat"),
    ({"omega0s": [0.1] * 9}, "1..8 wave numbers"),
    ({"dilation_min": 0.05, "dilation_max": 0.01}, "dilation_min must be < dilation_max"),
    ({"dilation_max": 0.99}, r"dilation_max must be in \[0, 0.95\]"),
    ({"dilation_count": 1}, r"dilation_count must be in \[2, 20\]"),
    ({"gabor_omega0": 5.0, "source": "gabor"}, "gabor_omega0 must be in"),
])
def test_bad_parameters_are_refused_by_name(state, words):
    with pytest.raises(ValueError, match=words):
        ScatteringModel.parse(state)


def test_the_order_two_view_exists_for_order_two_and_valid_scales():
    names = ScatteringModel.view_names
    assert "order2" in names(ScatteringTabParams())
    assert "order2" not in names(ScatteringTabParams(order=1))
    assert "order2" not in names(ScatteringTabParams(J=2, j1=0, j2=2))
    assert "order2" in names(ScatteringTabParams(J=3, j1=0, j2=2))
    assert ScatteringModel.display_only == {"j1", "j2"}
    assert ScatteringModel.same_computation(ScatteringTabParams(J=3), ScatteringTabParams(J=3, j1=1, j2=2))


def test_session_round_trip_and_gallery_cases():
    model = ScatteringModel()
    model.update(J=3, L=4, order=1, padding="reflect", source="gabor", gabor_omega0=1.0,
                 omega0s=(0.5, 1.5), dilation_min=0.01, dilation_max=0.1, dilation_count=4)
    other = ScatteringModel()
    other.restore(model.to_session())
    assert other.params == model.params
    for name, state in ScatteringModel.gallery_cases().items():
        ScatteringModel.parse(state)
    odd = ScatteringModel.parse(ScatteringModel.gallery_cases()["odd_user_image"])
    assert image_shape(odd) == (33, 37)


def test_radians_are_numbers_or_multiples_of_pi():
    assert radians_value("w", "1.25") == 1.25
    assert radians_value("w", "pi") == math.pi
    assert radians_value("w", "3pi/4") == 3 * math.pi / 4
    assert radians_value("w", "2*pi") == 2 * math.pi
    assert radians_value("w", "0.5π") == 0.5 * math.pi
    assert radians_list("--omega0s", "pi/4, pi/2,pi") == (math.pi / 4, math.pi / 2, math.pi)
    for bad in ("pie", "nan", "pi/0", ""):
        with pytest.raises(ValueError, match="must be"):
            radians_list("--omega0s", bad)
