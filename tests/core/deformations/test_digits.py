"""Bundled digits, image validation and .npy loading."""
from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from ntkviz.core._validate import validate_image, validate_images
from ntkviz.core.deformations.digits import digit_image, digit_indices, load_digits, load_image_file


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
    (np.zeros((0, 4)), r"4×0 pixels \(width×height\); each side must be 1\.\.256"),
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
        "bad.npy": (b"not a numpy file", "not a NumPy .npy file"),
        "obj.npy": (np.array([{"a": 1}], dtype=object), "holds Python objects"),
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


# --------------------------------------------------------------------------- user images
def _png(path, rgba):
    from PIL import Image

    Image.fromarray(np.asarray(rgba, dtype=np.uint8)).save(path)
    return path


def test_large_image_is_downsampled_by_area_with_a_note():
    from ntkviz.core.deformations.digits import prepare_user_image

    digit = digit_image(4, 2)
    big = np.kron(digit, np.ones((25, 25)))  # 700×700: each output pixel averages a 25×25 block
    image, note = prepare_user_image(big, name="big.npy")
    np.testing.assert_allclose(image, digit, rtol=0, atol=1e-12)
    assert "downsampled (area average, anti-aliased) from 700×700 to 28×28" in note


def test_non_square_large_image_is_padded_then_averaged():
    from ntkviz.core.deformations.digits import prepare_user_image

    rng = np.random.default_rng(1)
    img = rng.uniform(0, 0.4, size=(30, 50))  # 50 wide, 30 high: dark border, no inversion
    image, note = prepare_user_image(img, name="wide.npy")
    padded = np.zeros((50, 50))
    padded[10:40] = img
    # independent reference: the mean over each 50/28-px cell, by supersampling every pixel
    # into 28×28 sub-cells (each output cell is then exactly 50×50 sub-cells)
    fine = np.repeat(np.repeat(padded, 28, axis=0), 28, axis=1)
    want = fine.reshape(28, 50, 28, 50).mean(axis=(1, 3))
    np.testing.assert_allclose(image, want, rtol=1e-12, atol=1e-14)
    assert "50×30" in note and "padded to 50×50" in note


def test_transparent_png_uses_alpha_as_the_stroke(tmp_path):
    from ntkviz.core.deformations.digits import load_user_image

    digit = digit_image(7, 0)
    rgba = np.zeros((28, 28, 4))
    rgba[..., 3] = np.round(digit * 255)  # black ink, opacity = stroke, transparent background
    image, note = load_user_image(_png(tmp_path / "ink.png", rgba))
    np.testing.assert_allclose(image, np.round(digit * 255) / 255, atol=1e-12)
    assert "alpha" in note


def test_blank_results_are_refused_with_the_reason(tmp_path):
    from ntkviz.core.deformations.digits import load_user_image

    white = _png(tmp_path / "white.png", np.full((1, 1, 3), 255))
    with pytest.raises(ValueError, match=r"white\.png: the image is blank after: inverted"):
        load_user_image(white)
    np.save(tmp_path / "zero.npy", np.zeros((5, 5)))
    with pytest.raises(ValueError, match=r"zero\.npy: the image is blank"):
        load_user_image(tmp_path / "zero.npy")


@pytest.mark.parametrize("make, match", [
    (lambda d: d, r"is a folder, not a file"),
    (lambda d: d / "missing.png", r"missing\.png: no such file"),
    (lambda d: (np.save(d / "stack.npy", np.zeros((4, 28, 28))), d / "stack.npy")[1],
     r"stack\.npy: shape \(4, 28, 28\) is not one image; expected \(H, W\) or \(H, W, C\) "
     r"with 1\.\.16 channels"),
    (lambda d: (d / "x.txt").write_text("hi") and d / "x.txt", r"x\.txt: file type \.txt"),
])
def test_user_image_messages_name_the_file_then_the_problem(tmp_path, make, match):
    from ntkviz.core.deformations.digits import load_user_image

    with pytest.raises(ValueError, match=match):
        load_user_image(make(tmp_path))


def test_size_words_never_repeat_the_thing():
    with pytest.raises(ValueError) as info:
        validate_image(np.zeros((300, 500)), "image")
    assert "image image" not in str(info.value)
    assert "500×300" in str(info.value)
