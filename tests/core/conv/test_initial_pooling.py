"""The optional initial anti-aliasing pooling A_0 (σ₀) of an architecture."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import ndimage

from ntkviz.core.conv._reference import gaussian_blur_dense
from ntkviz.core.conv.architecture import (PRESETS, Architecture, architecture_from_dict,
                                           architecture_to_dict, initial_pooling_matrix)
from ntkviz.core.conv.gram import ImageBatch, cross_kernels, image_norms
from ntkviz.core.deformations.digits import digit_image


@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.5])
def test_a0_is_scipys_truncated_gaussian_filter(sigma):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((17, 12, 2))
    radius = math.ceil(4 * sigma)
    expected = np.stack([ndimage.gaussian_filter(x[..., c], sigma, mode="constant", truncate=radius / sigma)
                         for c in range(2)], axis=-1)
    arch = Architecture(PRESETS["M1"].layers, initial_pooling_sigma=sigma)
    np.testing.assert_allclose(arch.initial_pooling(x), expected, rtol=0, atol=1e-14)
    np.testing.assert_allclose(gaussian_blur_dense(x, sigma), expected, rtol=0, atol=1e-14)
    m = initial_pooling_matrix(sigma, 40)
    assert m[20].sum() == pytest.approx(1.0, abs=1e-15) and m[0].sum() < 1.0   # zero padding


def test_kernels_with_a0_are_the_kernels_of_the_filtered_images():
    x, y = digit_image(5, 0), digit_image(3, 1)
    base = PRESETS["M1"]
    arch = Architecture(base.layers, initial_pooling_sigma=0.8)
    with_a0 = cross_kernels(image_norms(x, arch), image_norms(y, arch), arch)
    fx, fy = (gaussian_blur_dense(z, 0.8) for z in (x, y))
    without = cross_kernels(image_norms(fx, base), image_norms(fy, base), base)
    np.testing.assert_allclose(with_a0, without, rtol=1e-12)
    batch = ImageBatch(np.stack([x, y])[..., None], arch, True)   # the batched engine too
    batch.self_chunk(0, 2)
    kc, kn = batch.pair_chunk(np.array([0]), np.array([1]))
    np.testing.assert_allclose([kc[0], kn[0]], without, rtol=1e-12)
    assert with_a0[0] != pytest.approx(cross_kernels(image_norms(x, base), image_norms(y, base), base)[0])


def test_a0_field_is_validated_labelled_and_round_trips():
    arch = Architecture(PRESETS["M1"].layers, initial_pooling_sigma=1.5)
    assert arch.label.startswith("A₀ σ₀=1.5 | ")
    assert architecture_from_dict(architecture_to_dict(arch)) == arch
    assert "initial_pooling_sigma" not in architecture_to_dict(PRESETS["M1"])
    assert PRESETS["M1"].initial_pooling(np.ones((3, 3, 1))) is not None
    for bad in (0.0, -1.0, float("nan"), 1e6, "x"):
        with pytest.raises(ValueError, match="initial_pooling_sigma"):
            Architecture(PRESETS["M1"].layers, initial_pooling_sigma=bad)
    with pytest.raises(ValueError, match="initial_pooling_sigma"):
        architecture_from_dict({"layers": [{"npatch": 3, "subsampling": 2}], "initial_pooling_sigma": -2})
