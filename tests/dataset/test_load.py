"""Reading .npy / .npz / MNIST IDX files: values, scaling, one-line errors."""
from __future__ import annotations

import gzip
import struct

import numpy as np
import pytest

from ntkviz.dataset import load_dataset, read_idx


def _idx_bytes(arr: np.ndarray, code: int) -> bytes:
    head = bytes([0, 0, code, arr.ndim]) + b"".join(struct.pack(">I", d) for d in arr.shape)
    return head + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


@pytest.mark.parametrize("gz", [False, True])
def test_idx_images_and_labels(tmp_path, gz):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (5, 6, 7), dtype=np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    suffix = ".gz" if gz else ""
    writer = gzip.open if gz else open
    with writer(tmp_path / f"t10k-images-idx3-ubyte{suffix}", "wb") as fh:
        fh.write(_idx_bytes(images, 0x08))
    with writer(tmp_path / f"t10k-labels-idx1-ubyte{suffix}", "wb") as fh:
        fh.write(_idx_bytes(labels, 0x08))
    ds = load_dataset(tmp_path / f"t10k-images-idx3-ubyte{suffix}")
    np.testing.assert_array_equal(ds.images, images / 255.0)  # uint8 scaled by 1/255
    np.testing.assert_array_equal(ds.labels, labels)


def test_idx_big_endian_types(tmp_path):
    arr = np.arange(-6, 6, dtype=np.int32).reshape(3, 4) * 1000
    (tmp_path / "x.idx").write_bytes(_idx_bytes(arr, 0x0C))
    out = read_idx(tmp_path / "x.idx")
    np.testing.assert_array_equal(out, arr)
    arr = np.linspace(-1, 1, 6).reshape(2, 3)
    (tmp_path / "y.idx").write_bytes(_idx_bytes(arr, 0x0E))
    np.testing.assert_array_equal(read_idx(tmp_path / "y.idx"), arr)


def test_idx_errors(tmp_path):
    bad = tmp_path / "a-images-idx3-ubyte"
    bad.write_bytes(b"\x01\x02\x08\x03" + b"\0" * 12)
    with pytest.raises(ValueError, match="wrong magic number"):
        load_dataset(bad)
    short = tmp_path / "b-images-idx3-ubyte"
    short.write_bytes(_idx_bytes(np.zeros((2, 3, 3), np.uint8), 0x08)[:-1])
    with pytest.raises(ValueError, match="header says"):
        load_dataset(short)
    images = tmp_path / "c-images-idx3-ubyte"
    images.write_bytes(_idx_bytes(np.zeros((2, 3, 3), np.uint8), 0x08))
    (tmp_path / "c-labels-idx1-ubyte").write_bytes(_idx_bytes(np.zeros(3, np.uint8), 0x08))
    with pytest.raises(ValueError, match="labels has length 3, images has 2"):
        load_dataset(images)


def test_npz_npy_and_errors(tmp_path):
    x = np.random.default_rng(1).random((4, 5, 5))
    np.savez(tmp_path / "d.npz", images=x, labels=np.arange(4))
    ds = load_dataset(tmp_path / "d.npz")
    np.testing.assert_array_equal(ds.images, x)  # floats used as stored
    np.testing.assert_array_equal(ds.labels, np.arange(4))
    np.save(tmp_path / "u.npy", np.full((2, 3, 3), 255, np.uint8))
    assert load_dataset(tmp_path / "u.npy").images.max() == 1.0
    assert load_dataset(tmp_path / "u.npy").labels is None
    with pytest.raises(ValueError, match="labels missing"):
        load_dataset(tmp_path / "u.npy").require_labels("--train")
    np.savez(tmp_path / "w.npz", images=x, labels=np.arange(3))
    with pytest.raises(ValueError, match="labels has length 3, images has 4"):
        load_dataset(tmp_path / "w.npz")
    y = x.copy()
    y[1, 2, 2] = np.nan
    np.save(tmp_path / "nan.npy", y)
    with pytest.raises(ValueError, match="NaN"):
        load_dataset(tmp_path / "nan.npy")
    np.savez(tmp_path / "noimg.npz", pictures=x)
    with pytest.raises(ValueError, match="no array 'images'"):
        load_dataset(tmp_path / "noimg.npz")
    with pytest.raises(ValueError, match="is a directory"):
        load_dataset(tmp_path)
    (tmp_path / "x.png").write_bytes(b"\x89PNG")
    with pytest.raises(ValueError, match="unsupported format"):
        load_dataset(tmp_path / "x.png")
    (tmp_path / "broken.npy").write_bytes(b"not numpy")
    with pytest.raises(ValueError, match="not a NumPy .npy file"):
        load_dataset(tmp_path / "broken.npy")
