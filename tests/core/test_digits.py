"""Bundled digits, image validation and .npy loading."""
from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from ntkviz.core.digits import (digit_image, digit_indices, load_digits, load_image_file, validate_image,
                                validate_images)


def test_bundled_subset():
    images, labels = load_digits()
    assert images.dtype == np.uint8 and images.shape == (1000, 28, 28)
    assert labels.dtype == np.uint8 and np.array_equal(np.bincount(labels), [100] * 10)
    assert np.all(np.diff(labels.astype(int)) >= 0)            # label order, as the source file
    size = resources.files("ntkviz.resources").joinpath("digits.npz").stat().st_size \
        if hasattr(resources.files("ntkviz.resources").joinpath("digits.npz"), "stat") else None
    with resources.as_file(resources.files("ntkviz.resources").joinpath("digits.npz")) as p:
        size = p.stat().st_size
    assert size < 1_000_000
    x = digit_image(7, 3)
    assert x.dtype == np.float64 and x.shape == (28, 28) and 0 <= x.min() and x.max() <= 1
    np.testing.assert_array_equal(x * 255, images[digit_indices(7)[3]])
    with pytest.raises(ValueError, match="index must be in"):
        digit_image(7, 100)
    with pytest.raises(ValueError, match="label must be in"):
        digit_indices(10)


@pytest.mark.parametrize("arr,match", [
    (np.zeros(5), r"shape \(H, W\) or \(H, W, C\)"),
    (np.zeros((2, 3, 4, 5)), r"shape \(H, W\) or \(H, W, C\)"),
    (np.array([[1.0, np.nan]]), "NaN or infinite"),
    (np.array([[1.0, np.inf]]), "NaN or infinite"),
    (np.array([["a", "b"]]), "real numbers"),
    (np.zeros((0, 4)), "between 1 and"),
    (np.zeros((4, 4, 40)), "channels"),
])
def test_validate_image_errors(arr, match):
    with pytest.raises(ValueError, match=match):
        validate_image(arr, "image")


def test_validate_images():
    assert validate_images(np.zeros((2, 5, 6), np.uint8)).dtype == np.float64
    with pytest.raises(ValueError, match="at least one image"):
        validate_images(np.zeros((0, 5, 6)))
    with pytest.raises(ValueError, match=r"\(N, H, W\)"):
        validate_images(np.zeros((5, 6)))


def test_load_image_file(tmp_path):
    good = tmp_path / "x.npy"
    np.save(good, np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(load_image_file(good), np.arange(12.0).reshape(3, 4))
    stack = tmp_path / "s.npy"
    np.save(stack, np.zeros((2, 3, 4, 2), np.float32))
    assert load_image_file(stack, stack=True).shape == (2, 3, 4, 2)
    cases = {
        "missing.npy": (None, "no such file"),
        "bad.npy": (b"not a numpy file", "unreadable"),
        "obj.npy": (np.array([{"a": 1}], dtype=object), "unreadable"),
        "nan.npy": (np.array([[np.nan, 1.0]]), "NaN or infinite"),
        "shape.npy": (np.zeros(7), "shape"),
        "img.png": (b"\x89PNG", "only .npy"),
    }
    for name, (content, match) in cases.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif content is not None:
            np.save(path, content, allow_pickle=True)
        with pytest.raises(ValueError, match=match) as info:
            load_image_file(path)
        assert name in str(info.value)
