"""Array checks shared by the public core functions: cosines and images.

The scalar checks (``check_int``, ``check_float``, ``check_bool``, ``check_choice``) are
the one family of :mod:`ntkviz._check`, with the ranges of :mod:`ntkviz.limits`. Errors
are ``ValueError`` whose message names the argument and its allowed range, so the CLI and
the GUI's message bar can show them verbatim. The public names reach callers outside
the core through the ``ntkviz.core`` face (``from ntkviz.core import validate_image``).
"""
from __future__ import annotations

import numpy as np

from ntkviz.limits import IMAGE_SIDE_RANGE, MAX_CHANNELS

__all__ = ["check_cosines", "check_image_values", "validate_image", "validate_images"]

#: how far outside [-1, 1] a cosine may be and still count as rounding error
COSINE_SLACK = 1e-12


def check_cosines(u, name: str = "u") -> np.ndarray:
    """Return cosines as a C-contiguous float64 array clipped to [-1, 1].

    Values outside [-1, 1] by at most ``COSINE_SLACK`` (rounding error) are
    clipped; anything further out, or NaN/inf, raises ``ValueError``.
    """
    arr = np.ascontiguousarray(np.asarray(u, dtype=np.float64))
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (found NaN or inf)")
    if arr.size and (arr.min() < -1 - COSINE_SLACK or arr.max() > 1 + COSINE_SLACK):
        raise ValueError(
            f"{name} must lie in [-1, 1] (cosines); got values in [{arr.min()!r}, {arr.max()!r}]"
        )
    return np.clip(arr, -1.0, 1.0)


def check_image_values(arr, name: str) -> np.ndarray:
    """``arr`` as float64, or ``ValueError`` naming ``name`` for a non-numeric dtype or NaN/inf."""
    arr = np.asarray(arr)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
                                   or arr.dtype == np.bool_):
        raise ValueError(f"{name} must hold real numbers (integer or float dtype), got dtype {arr.dtype}")
    out = np.asarray(arr, dtype=np.float64)
    if out.size and not np.all(np.isfinite(out)):
        bad = int(np.count_nonzero(~np.isfinite(out)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); images must be finite")
    return out


def _check_image_dims(shape, name: str) -> None:
    h, w = shape[0], shape[1]
    if len(shape) == 3 and not 1 <= shape[2] <= MAX_CHANNELS:
        raise ValueError(f"{name} has shape {tuple(shape)}: read as (H, W, C) its last axis would be "
                         f"{shape[2]} channels, allowed 1..{MAX_CHANNELS}; give one image as (H, W) "
                         "or (H, W, C)")
    lo, hi = IMAGE_SIDE_RANGE
    if not (lo <= h <= hi and lo <= w <= hi):
        raise ValueError(f"{name} is {w}×{h} pixels (width×height); each side must be {lo}..{hi}")


def validate_image(arr, name: str = "image") -> np.ndarray:
    """Return a float64 copy of a (H, W) or (H, W, C) image, values as given.

    Raises ``ValueError`` naming ``name`` for a wrong number of dimensions,
    sizes outside 1..256 (channels 1..16), a non-numeric dtype, or NaN/inf.
    """
    a = np.asarray(arr)
    if a.ndim not in (2, 3):
        raise ValueError(f"{name} must have shape (H, W) or (H, W, C), got shape {a.shape}")
    _check_image_dims(a.shape, name)
    return np.array(check_image_values(a, name), dtype=np.float64, copy=True)


def validate_images(arr, name: str = "images") -> np.ndarray:
    """Return a float64 stack (N, H, W) or (N, H, W, C) (N >= 1); errors as :func:`validate_image`."""
    a = np.asarray(arr)
    if a.ndim not in (3, 4):
        raise ValueError(f"{name} must have shape (N, H, W) or (N, H, W, C), got shape {a.shape}")
    if a.shape[0] < 1:
        raise ValueError(f"{name} must contain at least one image, got shape {a.shape}")
    _check_image_dims(a.shape[1:], f"each of {name}")
    return np.array(check_image_values(a, name), dtype=np.float64, copy=True)
