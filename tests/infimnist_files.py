"""Small Infinite-MNIST data folders for the tests, in the generator's binary formats.

The files have the reference's names and formats (MNIST IDX: magic, big-endian sizes,
uint8 data; fields and tangent vectors: headerless little-endian float32 images) with
random contents and small counts, so nothing large is stored in the repository.
"""
from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FIELDS = "fields_float_1522x28x28.bin"
TANGENTS = "tangVec_float_60000x28x28.bin"


@dataclass
class Folder:
    path: Path
    test_images: np.ndarray
    test_labels: np.ndarray
    train_images: np.ndarray
    train_labels: np.ndarray
    fields: np.ndarray
    tangents: np.ndarray

    def arrays(self) -> tuple:
        """The arguments of ``_reference.infimnist_digit`` before the index."""
        return (self.test_images, self.test_labels, self.train_images, self.train_labels,
                self.fields, self.tangents)


def idx_bytes(arr: np.ndarray) -> bytes:
    """An IDX file's bytes: 00 00 08 ndim, big-endian uint32 sizes, the uint8 data."""
    head = bytes([0, 0, 0x08, arr.ndim]) + np.array(arr.shape, ">u4").tobytes()
    return head + np.ascontiguousarray(arr, np.uint8).tobytes()


def _write(path: Path, data: bytes, gz: bool) -> None:
    if gz:
        with gzip.open(path.with_name(path.name + ".gz"), "wb") as fh:
            fh.write(data)
    else:
        path.write_bytes(data)


def write_folder(path, n_test: int = 3, n_train: int = 7, n_fields: int = 5, shape=(28, 28),
                 seed: int = 0, margin: int = 0, gz: bool = False) -> Folder:
    """Write a data folder with random digits (blank borders ``margin`` px wide), random
    labels, random fields (order 1) and tangent vectors (order 60, so that many pixels
    clip and many truncate). ``gz`` writes every file gzipped."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    h, w = shape

    def digits(n):
        imgs = rng.integers(0, 256, (n, h, w)).astype(np.uint8)
        imgs[rng.random((n, h, w)) < 0.5] = 0
        if margin:
            imgs[:, :margin] = imgs[:, -margin:] = 0
            imgs[:, :, :margin] = imgs[:, :, -margin:] = 0
        return imgs

    folder = Folder(path, digits(n_test), rng.integers(0, 10, n_test).astype(np.uint8),
                    digits(n_train), rng.integers(0, 10, n_train).astype(np.uint8),
                    rng.standard_normal((n_fields, h, w)).astype(np.float32),
                    (60 * rng.standard_normal((2 * n_train, h, w))).astype(np.float32))
    _write(path / "t10k-images-idx3-ubyte", idx_bytes(folder.test_images), gz)
    _write(path / "t10k-labels-idx1-ubyte", idx_bytes(folder.test_labels), gz)
    _write(path / "train-images-idx3-ubyte", idx_bytes(folder.train_images), gz)
    _write(path / "train-labels-idx1-ubyte", idx_bytes(folder.train_labels), gz)
    _write(path / FIELDS, folder.fields.astype("<f4").tobytes(), gz)
    _write(path / TANGENTS, folder.tangents.astype("<f4").tobytes(), gz)
    return folder
