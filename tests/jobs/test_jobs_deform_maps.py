"""The deformation editor's explicit maps (scattering, Fourier modulus, pixels), the Gabor
probe and the dilation, in the jobs layer: every read-out equals the map registry's own
distance (``map_distances``) of the same images, the probe's deformation equals its exact
samples, and the context levels of the new maps equal direct computations."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.deformations.deform import Deformation, dilation, displacement_field, jacobian_sup_norm
from ntkviz.core.deformations.digits import digit_image, load_digits
from ntkviz.core.deformations.maps import map_distances
from ntkviz.core.deformations.probes import gabor_image
from ntkviz.core.scattering.transform import ScatteringParams
from ntkviz.jobs import ContextRequest, DeformRequest, deform_csv_table

M1 = PRESETS["M1"]


@pytest.mark.parametrize("deformation, params", [
    (Deformation(translate_x=1.0), ScatteringParams()),
    (Deformation(rotation_deg=9.0, smooth_amplitude=0.7), ScatteringParams(J=3, L=4)),
    (Deformation(scale=1.2, infimnist_alpha=2.0), ScatteringParams(J=1, L=6)),
])
def test_explicit_read_outs_are_the_registry_distances_of_the_same_images(deformation, params):
    x = digit_image(5, 2)
    pictures = DeformRequest(x, deformation, M1, scattering=params).images()
    y = pictures.deformed[None]
    assert pictures.scattering_distance == pytest.approx(
        map_distances("scattering", x, y, scattering=params)[0], rel=1e-12)
    assert pictures.fourier_distance == pytest.approx(map_distances("fourier", x, y)[0], rel=1e-12)
    assert pictures.pixel_distance == pytest.approx(map_distances("pixels", x, y)[0], rel=1e-14)
    assert pictures.scattering is params


def test_the_kernel_response_carries_the_same_pictures_computed_once():
    request = DeformRequest(digit_image(1, 0), Deformation(rotation_deg=4.0), M1)
    first = request.images()
    response = request()
    assert request.images() is first
    np.testing.assert_array_equal(response.deformed, first.deformed)
    assert (response.scattering_distance, response.fourier_distance) == \
        (first.scattering_distance, first.fourier_distance)


def test_identity_reads_exactly_zero_and_a_circular_shift_leaves_the_fourier_modulus():
    x = digit_image(3, 0)
    same = DeformRequest(x, Deformation(), M1).images()
    assert same.identical and same.scattering_distance == 0.0 and same.fourier_distance == 0.0
    # the digit is zero near its border: a 1-px translation is a circular shift
    moved = DeformRequest(x, Deformation(translate_x=1.0), M1).images()
    assert moved.fourier_distance < 1e-14 < moved.scattering_distance


def test_the_probe_is_deformed_by_exact_sampling():
    omega0, s = 2.0, 0.1
    d = Deformation(scale=1.0 / (1.0 - s), rotation_deg=3.0)
    request = DeformRequest(np.zeros((28, 28)), d, M1, probe_omega0=omega0)
    np.testing.assert_array_equal(request.image, gabor_image((28, 28), omega0))
    pictures = request.images()
    tau = displacement_field(d, (28, 28))
    np.testing.assert_allclose(pictures.tau, tau, rtol=0, atol=1e-14)
    np.testing.assert_allclose(pictures.deformed, gabor_image((28, 28), omega0, tau=tau), rtol=0, atol=1e-15)
    assert pictures.fourier_distance == pytest.approx(
        map_distances("fourier", request.image, pictures.deformed[None])[0], rel=1e-12)


def test_the_dilation_of_the_probe_is_tau_equal_s_u():
    s = 0.05
    pictures = DeformRequest(np.zeros((28, 28)), dilation(s), M1, probe_omega0=math.pi / 2).images()
    rows, cols = np.mgrid[0:28, 0:28] - 13.5
    np.testing.assert_allclose(pictures.tau, s * np.stack([rows, cols]), rtol=0, atol=1e-13)
    assert pictures.jacobian_sup == pytest.approx(s, rel=1e-12)


@pytest.mark.parametrize("kwargs, words", [
    ({"probe_omega0": 9.0}, "probe_omega0 must be in"),
    ({"scattering": ScatteringParams(J=5)}, r"needs image sides >= 2\^J = 32"),
    ({"scattering": "J=2"}, "scattering must be ScatteringParams"),
])
def test_bad_map_arguments_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        DeformRequest(digit_image(0, 0), Deformation(), M1, **kwargs)


def test_context_levels_of_the_explicit_maps_are_direct_distances():
    x, label, per_class = digit_image(7, 1), 7, 3
    params = ScatteringParams(J=2, L=4)
    result = ContextRequest(x, label, M1, per_class=per_class, scattering=params)()
    images, labels = load_digits()
    idx = np.concatenate([np.flatnonzero(labels == k)[:per_class] for k in range(10)])
    refs, ref_labels = images[idx] / 255.0, labels[idx]
    keep = np.array([not np.array_equal(r, x) for r in refs])
    for name in ("scattering", "fourier"):
        d = map_distances(name, x, refs, scattering=params)
        same = keep & (ref_labels == label)
        other = keep & (ref_labels != label)
        levels = result.levels[name]
        assert levels["nearest_same"] == pytest.approx(d[same].min(), rel=1e-12)
        assert levels["mean_same"] == pytest.approx(d[same].mean(), rel=1e-12)
        assert levels["nearest_other"] == pytest.approx(d[other].min(), rel=1e-12)
        assert levels["mean_other"] == pytest.approx(d[other].mean(), rel=1e-12)


def test_the_context_cache_tells_scattering_parameters_apart():
    x = digit_image(2, 0)
    a = ContextRequest(x, 2, M1, per_class=2, scattering=ScatteringParams(J=2))
    b = ContextRequest(x, 2, M1, per_class=2, scattering=ScatteringParams(J=3))
    assert a.cache_key != b.cache_key
    assert a().levels["scattering"] != b().levels["scattering"]


def test_the_context_table_keeps_the_maps_asked_for():
    x = digit_image(4, 0)
    response = DeformRequest(x, Deformation(translate_y=1.0), M1)()
    context = ContextRequest(x, 4, M1, per_class=2)()
    header, rows = deform_csv_table("context", response, context)
    assert {r[1] for r in rows} == {"ckn", "ntk", "scattering", "fourier", "pixel"}
    deformation_rows = {r[1]: r[2] for r in rows if r[0] == "deformation"}
    assert deformation_rows["scattering"] == response.scattering_distance
    assert deformation_rows["fourier"] == response.fourier_distance
    _, rows = deform_csv_table("context", response, context, maps=("scattering", "pixels"))
    assert {r[1] for r in rows} == {"scattering", "pixel"}
    with pytest.raises(ValueError, match="maps must be distinct names"):
        deform_csv_table("context", response, context, maps=("sift",))
