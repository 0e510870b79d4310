"""Bottou's Infinite-MNIST generator over the user's own data folder (never downloads).

The folder is the ``data`` folder of Léon Bottou's *infimnist* distribution (Loosli,
Canu & Bottou 2007, *Training invariant support vector machines using selective
sampling*); it holds

* the four MNIST IDX files ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``,
  ``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte`` (each also read as ``.gz``);
* ``fields_float_1522x28x28.bin``: the random deformation fields, float32 (native
  little-endian byte order, no header), one ``H x W`` image after the other;
* ``tangVec_float_60000x28x28.bin``: two float32 ``H x W`` tangent vectors per training
  digit, digit after digit (both also read as ``.gz``).

The counts (test and training digits, fields) and the image size come from the IDX
headers and the file sizes, so any files in these formats work (10000, 60000 and 1522
for the real data). :class:`InfiniteMNIST` gives digit ``i`` exactly as the reference C
generator does, byte for byte (the rules: :mod:`ntkviz.core.deformations.infimnist`).
Every problem with a file raises a one-line ``ValueError`` that names the file.
"""
from __future__ import annotations

import gzip
import threading
from pathlib import Path

import numpy as np

from ntkviz.core.deformations.infimnist import MAX_INDEX, deform_pixels, index_plan, pixel_moves

__all__ = ["InfiniteMNIST", "open_infimnist", "DATA_FILES", "FIELDS_FILE", "TANGENTS_FILE"]

FIELDS_FILE = "fields_float_1522x28x28.bin"
TANGENTS_FILE = "tangVec_float_60000x28x28.bin"
_IDX_FILES = ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", "train-images-idx3-ubyte",
              "train-labels-idx1-ubyte")
#: the files of an Infinite-MNIST data folder (each may also be gzipped, name + ``.gz``)
DATA_FILES = _IDX_FILES + (FIELDS_FILE, TANGENTS_FILE)
#: digits generated per block (bounds the float32 work memory to ~20 MB)
_BLOCK = 4096


def _find(folder: Path, name: str) -> Path:
    for candidate in (folder / name, folder / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    raise ValueError(f"{folder / name}: no such file (an Infinite-MNIST data folder holds "
                     f"{', '.join(DATA_FILES)}, each plain or .gz)")


def _idx(path: Path, ndim: int) -> np.ndarray:
    from ntkviz.dataset._load import read_idx

    arr = read_idx(path)
    if arr.dtype != np.uint8 or arr.ndim != ndim:
        kind = "(N, H, W) uint8 images" if ndim == 3 else "(N,) uint8 labels"
        raise ValueError(f"{path}: expected {kind}, the IDX header says {arr.dtype} of shape {arr.shape}")
    return arr


def _labels(path: Path, n: int, images: Path) -> np.ndarray:
    labels = _idx(path, 1)
    if len(labels) != n:
        raise ValueError(f"{path}: holds {len(labels)} labels, {images.name} holds {n} images")
    if len(labels) and labels.max() > 9:
        raise ValueError(f"{path}: labels must be in [0, 9], found {int(labels.max())}")
    return labels


def _floats(path: Path, image_bytes: int) -> np.ndarray:
    """The float32 images of a ``.bin`` file, (n, pixels): memory-mapped when plain (the
    tangent vectors are 376 MB), read whole when gzipped."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                data = fh.read()
            size = len(data)
        else:
            size = path.stat().st_size
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise ValueError(f"{path}: unreadable ({getattr(exc, 'strerror', None) or exc})") from None
    if size == 0 or size % image_bytes:
        raise ValueError(f"{path}: {size} bytes is not a whole number of float32 images of "
                         f"{image_bytes} bytes (a short or foreign file?)")
    n = size // image_bytes
    if path.suffix == ".gz":
        return np.frombuffer(data, "<f4").reshape(n, image_bytes // 4)
    try:
        return np.memmap(path, dtype="<f4", mode="r", shape=(n, image_bytes // 4))
    except OSError as exc:
        raise ValueError(f"{path}: unreadable ({exc.strerror or exc})") from None


class InfiniteMNIST:
    """Bottou's Infinite-MNIST generator on the data folder ``folder``.

    Digit ``i`` (index rule: :mod:`ntkviz.core.deformations.infimnist`) is test digit ``i``
    for ``i < n_test``, training digit ``i - n_test`` below ``n_test + n_train``, and a
    deformation of training digit ``(i - n_test) mod n_train`` beyond, scaled by ``α`` and,
    with ``translate``, moved by one pixel. The files are checked when the object is made
    (``ValueError`` naming the file: missing, unreadable, wrong IDX header, counts or
    sizes that do not match); the float files are memory-mapped, so making one is cheap.

    Attributes
    ----------
    folder : Path
    n_test, n_train, n_fields : int
        Counts read from the IDX headers and the fields file's size.
    shape : (int, int)
        Image size (H, W) from the IDX headers (28 x 28 for MNIST).
    """

    def __init__(self, folder):
        folder = Path(folder)
        if not folder.is_dir():
            raise ValueError(f"{folder}: {'is not a folder' if folder.exists() else 'no such folder'} "
                             f"(give the Infinite-MNIST data folder holding {', '.join(DATA_FILES)})")
        self.folder = folder
        paths = {name: _find(folder, name) for name in DATA_FILES}
        test_path, train_path = paths["t10k-images-idx3-ubyte"], paths["train-images-idx3-ubyte"]
        test = _idx(test_path, 3)
        train = _idx(train_path, 3)
        if test.shape[1:] != train.shape[1:]:
            raise ValueError(f"{test_path}: images are {test.shape[1]}x{test.shape[2]}, those of "
                             f"{train_path.name} {train.shape[1]}x{train.shape[2]}")
        if len(train) == 0:
            raise ValueError(f"{train_path}: holds no training digit")
        self.shape = (int(train.shape[1]), int(train.shape[2]))
        pixels = self.shape[0] * self.shape[1]
        self.n_test, self.n_train = len(test), len(train)
        self._digits = np.concatenate([test.reshape(-1, pixels), train.reshape(-1, pixels)])
        self._labels = np.concatenate([
            _labels(paths["t10k-labels-idx1-ubyte"], self.n_test, test_path),
            _labels(paths["train-labels-idx1-ubyte"], self.n_train, train_path)])
        self._fields_path, self._tangents_path = paths[FIELDS_FILE], paths[TANGENTS_FILE]
        self._fields = _floats(self._fields_path, 4 * pixels)
        self.n_fields = len(self._fields)
        if self.n_fields < 2:
            raise ValueError(f"{self._fields_path}: holds {self.n_fields} field; the generator needs at least 2")
        if not np.all(np.isfinite(self._fields)):
            raise ValueError(f"{self._fields_path}: holds NaN or infinite values (a foreign file?)")
        self._tangents = _floats(self._tangents_path, 4 * pixels)
        if len(self._tangents) != 2 * self.n_train:
            raise ValueError(f"{self._tangents_path}: holds {len(self._tangents)} tangent vectors of "
                             f"{self.shape[0]}x{self.shape[1]}, expected 2 per training digit of "
                             f"{train_path.name} ({2 * self.n_train})")

    @property
    def n_digits(self) -> int:
        """Test plus training digits (the indexes below this are undeformed MNIST digits)."""
        return self.n_test + self.n_train

    def __repr__(self) -> str:
        return (f"InfiniteMNIST({str(self.folder)!r}: {self.n_test} test, {self.n_train} training "
                f"digits, {self.n_fields} fields, {self.shape[0]}x{self.shape[1]})")

    def _indexes(self, indexes) -> np.ndarray:
        arr = np.asarray(indexes)
        if arr.ndim > 1 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
            raise ValueError(f"indexes must be a 1-D list of integers, got {arr.dtype} of shape {arr.shape}")
        arr = arr.astype(np.int64).ravel()
        if arr.size and (arr.min() < 0 or arr.max() > MAX_INDEX):
            bad = int(arr.min()) if arr.min() < 0 else int(arr.max())
            raise ValueError(f"indexes must be in [0, {MAX_INDEX}], got {bad}")
        return arr

    def labels(self, indexes) -> np.ndarray:
        """The labels (uint8 (N,)) of digits ``indexes``: a deformed digit keeps its source's."""
        idx = self._indexes(indexes)
        return self._labels[index_plan(idx, self.n_test, self.n_train, self.n_fields).row]

    def training_indexes(self, train_digit: int, count: int) -> np.ndarray:
        """The first ``count`` Infinite-MNIST indexes deforming training digit ``train_digit``
        (0-based in the training file): ``n_test + train_digit + m n_train`` for m = 1..count."""
        if not 0 <= train_digit < self.n_train:
            raise ValueError(f"training digit must be in [0, {self.n_train - 1}], got {train_digit}")
        m = np.arange(1, count + 1, dtype=np.int64)
        return self.n_test + train_digit + m * self.n_train

    def images(self, indexes, alpha: float = 1.0, translate: bool = False) -> np.ndarray:
        """The images (uint8 (N, H, W)) of digits ``indexes`` with deformation scale ``alpha``
        (rounded to float32, as the reference's ``float``) and the one-pixel moves when
        ``translate``. Byte-identical to the reference generator."""
        idx = self._indexes(indexes)
        with np.errstate(over="ignore"):
            alpha32 = np.float32(alpha)
        if not np.isfinite(alpha32):
            raise ValueError(f"alpha must be a finite number within float32 range, got {alpha!r}")
        out = np.empty((len(idx), *self.shape), np.uint8)
        for start in range(0, len(idx), _BLOCK):
            block = idx[start:start + _BLOCK]
            out[start:start + len(block)] = self._block(block, alpha32, bool(translate))
        return out

    def _block(self, idx: np.ndarray, alpha32: np.float32, translate: bool) -> np.ndarray:
        plan = index_plan(idx, self.n_test, self.n_train, self.n_fields)
        pixels = self._digits[plan.row].copy()
        d = np.flatnonzero(plan.deformed)
        if d.size:
            a = plan.row[d] - self.n_test
            tangents = np.asarray(self._tangents[np.stack([2 * a, 2 * a + 1], axis=1).ravel()])
            if not np.all(np.isfinite(tangents)):
                raise ValueError(f"{self._tangents_path}: holds NaN or infinite values (a foreign file?)")
            tangents = tangents.reshape(d.size, 2, -1)
            signed = (plan.sign[d] * alpha32).astype(np.float32)
            pixels[d] = deform_pixels(pixels[d], self._fields[plan.k1[d]], tangents[:, 0],
                                      self._fields[plan.k2[d]], tangents[:, 1], signed)
        images = pixels.reshape(len(idx), *self.shape)
        if translate and d.size:
            images[d] = pixel_moves(images[d], plan.move[d])
        return images


_OPEN_LOCK = threading.Lock()
_OPEN: dict = {}


def open_infimnist(folder) -> InfiniteMNIST:
    """An :class:`InfiniteMNIST` of ``folder``, kept while its files are unchanged (one per
    folder: the jobs ask for it on every run)."""
    folder = Path(folder)
    try:
        stamp = tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns)
                      for p in sorted(folder.iterdir()) if p.name.split(".gz")[0] in DATA_FILES)
        key = str(folder.resolve())
    except OSError:
        return InfiniteMNIST(folder)  # it raises the right message
    with _OPEN_LOCK:
        hit = _OPEN.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    gen = InfiniteMNIST(folder)
    with _OPEN_LOCK:
        _OPEN.clear()  # one folder at a time: the arrays are large
        _OPEN[key] = (stamp, gen)
    return gen
