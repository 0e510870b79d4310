"""Reading image data sets: ``.npy``, ``.npz`` and MNIST IDX files.

Accepted inputs
---------------
* ``.npy``: an array (N, H, W) or (N, H, W, C); no labels.
* ``.npz``: arrays ``images`` (as above) and, optionally, ``labels`` (N,) integers.
* MNIST IDX (the files users download from the MNIST page):
  ``*-images-idx3-ubyte`` or ``*-images-idx3-ubyte.gz``; the labels are read
  from the sibling ``*-labels-idx1-ubyte[.gz]`` when it exists. The IDX header
  is parsed here: magic ``00 00 <type> <ndim>``, then ``ndim`` big-endian
  uint32 sizes, then the big-endian data.

Scaling: **uint8 images are divided by 255** (MNIST becomes [0, 1], the
convention of the kernels); any other numeric dtype is used as stored
(converted to float64). Every problem raises a one-line ``ValueError`` that
names the file and what is wrong.
"""
from __future__ import annotations

import gzip
import hashlib
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ntkviz.core import validate_images

__all__ = ["Dataset", "load_dataset", "read_idx", "images_hash", "IDX_TYPES"]

#: IDX type code -> big-endian numpy dtype
IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_IDX_IMAGES = re.compile(r"^(?P<stem>.*)-images[-.]idx3-ubyte(?P<gz>\.gz)?$")


@dataclass(frozen=True, eq=False)
class Dataset:
    """Images as float64 ``(N, H, W)`` or ``(N, H, W, C)`` (uint8 scaled by 1/255),
    integer ``labels`` (N,) or None, and ``source`` (the file it came from)."""

    images: np.ndarray
    labels: np.ndarray | None
    source: str

    def __len__(self) -> int:
        return int(self.images.shape[0])

    def require_labels(self, name: str) -> np.ndarray:
        """The labels, or ``ValueError`` saying ``name`` has none."""
        if self.labels is None:
            raise ValueError(f"{name} {self.source}: labels missing (use a .npz with 'labels' "
                             "or IDX images with their *-labels-idx1-ubyte file beside them)")
        return self.labels


def images_hash(images: np.ndarray) -> str:
    """sha256 (hex) of the float64 image bytes and their shape (identifies an input)."""
    arr = np.ascontiguousarray(images, dtype=np.float64)
    h = hashlib.sha256(repr(tuple(arr.shape)).encode())
    h.update(arr.tobytes())
    return h.hexdigest()


def _open_bytes(path: Path) -> bytes:
    try:
        if path.suffix.lower() == ".gz":
            with gzip.open(path, "rb") as fh:
                return fh.read()
        return path.read_bytes()
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise ValueError(f"{path}: unreadable ({getattr(exc, 'strerror', None) or exc})") from None


def read_idx(path) -> np.ndarray:
    """The array stored in an IDX file (``.gz`` read transparently), native byte order.

    Raises ``ValueError`` naming the file for a wrong magic number, an unknown
    type code or a size that does not match the header.
    """
    path = Path(path)
    data = _open_bytes(path)
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise ValueError(f"{path}: not an IDX file (wrong magic number {data[:4].hex() or 'empty'}; "
                         "expected 00 00 <type> <ndim>)")
    code, ndim = data[2], data[3]
    if code not in IDX_TYPES:
        raise ValueError(f"{path}: unknown IDX type code 0x{code:02x} (allowed: "
                         f"{', '.join(f'0x{c:02x}' for c in IDX_TYPES)})")
    if not 1 <= ndim <= 4:
        raise ValueError(f"{path}: IDX files with {ndim} dimensions are not supported (1..4)")
    head = 4 + 4 * ndim
    if len(data) < head:
        raise ValueError(f"{path}: truncated IDX header")
    dims = tuple(int(v) for v in np.frombuffer(data, ">u4", ndim, 4))
    dtype = np.dtype(IDX_TYPES[code])
    expected = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    if len(data) - head != expected:
        raise ValueError(f"{path}: IDX header says {dims} ({expected} bytes of data), "
                         f"the file holds {len(data) - head}")
    return np.frombuffer(data, dtype, offset=head).reshape(dims).astype(dtype.newbyteorder("="))


def _scaled(images: np.ndarray, source: str) -> np.ndarray:
    arr = np.asarray(images)
    scale = arr.dtype == np.uint8
    if arr.dtype == object:
        raise ValueError(f"{source}: images must hold numbers, got dtype object")
    try:
        out = validate_images(arr, "images")
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
    if scale:
        out /= 255.0
    out.setflags(write=False)
    return out


def _labels(labels, n: int, source: str) -> np.ndarray:
    lab = np.asarray(labels)
    if lab.ndim != 1:
        raise ValueError(f"{source}: labels must be a 1-D array, got shape {lab.shape}")
    if lab.shape[0] != n:
        raise ValueError(f"{source}: labels has length {lab.shape[0]}, images has {n}")
    if not np.issubdtype(lab.dtype, np.integer):
        if not (np.issubdtype(lab.dtype, np.floating) and np.all(np.isfinite(lab))
                and np.all(lab == np.round(lab))):
            raise ValueError(f"{source}: labels must be integers, got dtype {lab.dtype}")
    out = lab.astype(np.int64)
    out.setflags(write=False)
    return out


def _load_npy(path: Path) -> Dataset:
    from ntkviz.core.deformations.digits import read_npy

    arr = read_npy(path)
    return Dataset(_scaled(arr, str(path)), None, str(path))


def _load_npz(path: Path) -> Dataset:
    try:
        with np.load(path, allow_pickle=False) as z:
            if "images" not in z.files:
                raise ValueError(f"{path}: .npz has no array 'images' (found: {', '.join(z.files) or 'none'})")
            images = z["images"]
            labels = z["labels"] if "labels" in z.files else None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: unreadable .npz file ({exc})") from None
    except ValueError as exc:
        if str(exc).startswith(str(path)):
            raise
        raise ValueError(f"{path}: unreadable .npz file ({exc})") from None
    imgs = _scaled(images, str(path))
    return Dataset(imgs, None if labels is None else _labels(labels, len(imgs), str(path)), str(path))


def _load_idx(path: Path, match: re.Match) -> Dataset:
    raw = read_idx(path)
    if raw.ndim not in (3, 4):
        raise ValueError(f"{path}: IDX images must have 3 dimensions (N, H, W), got shape {raw.shape}")
    images = _scaled(raw, str(path))
    labels = None
    for gz in (".gz", ""):
        cand = path.with_name(f"{match['stem']}-labels-idx1-ubyte{gz}")
        if cand.is_file():
            lab = read_idx(cand)
            labels = _labels(lab, len(images), str(cand))
            break
    return Dataset(images, labels, str(path))


def load_dataset(path) -> Dataset:
    """Load images (and labels when the format has them) from ``path``.

    Formats: see the module docstring (``.npy``, ``.npz``, MNIST IDX).
    uint8 images are scaled by 1/255; others are used as stored.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path}: is a directory, expected an .npy, .npz or MNIST IDX file")
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    m = _IDX_IMAGES.match(path.name)
    if m:
        return _load_idx(path, m)
    suffix = path.suffix.lower()
    if suffix == ".npy":
        return _load_npy(path)
    if suffix == ".npz":
        return _load_npz(path)
    raise ValueError(f"{path}: unsupported format; expected .npy, .npz (images, labels) or "
                     "MNIST *-images-idx3-ubyte[.gz]")
