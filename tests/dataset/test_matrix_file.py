"""Reading whole Gram matrices (Zarr stores of ``ntkviz gram``, ``.npy``) and their labels."""
import gzip

import numpy as np
import pytest

from ntkviz.core.conv.architecture import architecture_from_dict
from ntkviz.dataset import GramRun
from ntkviz.dataset._matrix_file import read_gram, read_gram_blocks, read_labels

ARCH = architecture_from_dict([{"npatch": 3, "subsampling": 2}])  # cheap: one layer, 8x8 images


@pytest.fixture
def images():
    return np.random.default_rng(0).random((7, 8, 8))


def _store(path, images, b=None, tile=3):
    run = GramRun(images, b, ARCH, ("ntk",), tile, {"ntk": path})
    for _ in run.events():
        pass
    return run


def test_store_is_read_whole_in_blocks(tmp_path, images):
    path = tmp_path / "K.zarr"
    _store(path, images)
    memory = GramRun(images, None, ARCH, ("ntk",), 7)
    for _ in memory.events():
        pass
    fractions, items = [], read_gram_blocks(path, 100)
    while True:
        try:
            fractions.append(next(items))
        except StopIteration as stop:
            got = stop.value
            break
    np.testing.assert_array_equal(got.matrix, memory.matrix("ntk"))
    assert got.matrix.dtype == np.float64 and not got.matrix.flags.writeable
    assert got.meta["mode"] == "ntk" and got.meta["tile_size"] == 3 and got.source == str(path)
    assert fractions == [0.0, 1.0]  # opened and checked; read and checked against the sha256


def test_incomplete_or_damaged_store_is_refused(tmp_path, images):
    import zarr

    path = tmp_path / "K.zarr"
    _store(path, images)
    group = zarr.open_group(str(path), mode="r+")
    group["tile_sha256"][0:1, 1:2, :] = np.zeros((1, 1, 32), np.uint8)  # a tile never written
    with pytest.raises(ValueError, match=r"K\.zarr: 1 of 6 tiles are missing or damaged "
                                         r"\(first: tile \(0, 1\)\); rerun"):
        read_gram(path, 100)
    path2 = tmp_path / "K2.zarr"
    _store(path2, images)
    group = zarr.open_group(str(path2), mode="r+")
    group["gram"][6, 6] = 123.0  # bytes that no longer match the tile's checksum
    with pytest.raises(ValueError, match="K2.zarr: 1 of 6 tiles are missing or damaged"):
        read_gram(path2, 100)


def test_cross_matrix_store_and_foreign_folders_are_refused(tmp_path, images):
    import zarr

    path = tmp_path / "X.zarr"
    _store(path, images, images[:4])
    with pytest.raises(ValueError, match=r"square.*\(7, 4\).*cross matrix"):
        read_gram(path, 100)
    (tmp_path / "empty.zarr").mkdir()
    with pytest.raises(ValueError, match="empty.zarr: exists and is not a Zarr store"):
        read_gram(tmp_path / "empty.zarr", 100)
    zarr.create_group(str(tmp_path / "other.zarr"))
    with pytest.raises(ValueError, match="not an ntkviz Gram store"):
        read_gram(tmp_path / "other.zarr", 100)
    with pytest.raises(ValueError, match="no such file"):
        read_gram(tmp_path / "missing.zarr", 100)


def test_store_size_limit(tmp_path, images):
    path = tmp_path / "K.zarr"
    _store(path, images)
    with pytest.raises(ValueError, match=r"size N must be in \[2, 5\], got 7.*8 N²"):
        read_gram(path, 5)


def test_npy_matrices(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 3))
    K = x @ x.T
    np.save(tmp_path / "K.npy", K.astype(np.float32))
    got = read_gram(tmp_path / "K.npy", 100)
    np.testing.assert_array_equal(got.matrix, K.astype(np.float32).astype(np.float64))
    assert got.meta == {}
    tiny = K.copy()
    tiny[0, 1] += 1e-14  # rounding of a producer: made exactly symmetric
    np.save(tmp_path / "tiny.npy", tiny)
    sym = read_gram(tmp_path / "tiny.npy", 100).matrix
    np.testing.assert_array_equal(sym, sym.T)
    assert sym[0, 1] == pytest.approx(K[0, 1], abs=1e-14)
    cases = {"cube.npy": (np.zeros((2, 2, 2)), "square"), "nan.npy": (np.where(np.eye(3) > 0, np.nan, 1.0), "NaN"),
             "asym.npy": (np.array([[1.0, 0.2], [0.3, 1.0]]), "symmetric"),
             "obj.npy": (np.array([{}, {}], dtype=object), "unreadable")}
    for name, (arr, match) in cases.items():
        np.save(tmp_path / name, arr, allow_pickle=True)
        with pytest.raises(ValueError, match=match):
            read_gram(tmp_path / name, 100)
    (tmp_path / "K.txt").write_text("1 0\n0 1\n")
    with pytest.raises(ValueError, match=r"\.zarr store \(ntkviz gram\) or a \.npy"):
        read_gram(tmp_path / "K.txt", 100)


def test_labels_files(tmp_path):
    labels = np.array([3, 1, 4, 1, 5], dtype=np.uint8)
    np.save(tmp_path / "l.npy", labels)
    np.testing.assert_array_equal(read_labels(tmp_path / "l.npy", 5), labels)
    np.savez(tmp_path / "d.npz", images=np.zeros((5, 2, 2)), labels=labels)
    assert read_labels(tmp_path / "d.npz", 5).dtype == np.int64
    idx = bytes([0, 0, 8, 1]) + (5).to_bytes(4, "big") + labels.tobytes()
    with gzip.open(tmp_path / "t10k-labels-idx1-ubyte.gz", "wb") as fh:
        fh.write(idx)
    np.testing.assert_array_equal(read_labels(tmp_path / "t10k-labels-idx1-ubyte.gz", 5), labels)
    np.savez(tmp_path / "nolabels.npz", images=np.zeros((5, 2, 2)))
    bad = {"l.npy": (4, "5 labels, the Gram matrix has 4 rows"), "nolabels.npz": (5, "labels missing")}
    for name, (n, match) in bad.items():
        with pytest.raises(ValueError, match=match):
            read_labels(tmp_path / name, n)
    np.save(tmp_path / "f.npy", np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="integers"):
        read_labels(tmp_path / "f.npy", 2)
    np.save(tmp_path / "neg.npy", np.array([0, -1]))
    with pytest.raises(ValueError, match=">= 0"):
        read_labels(tmp_path / "neg.npy", 2)
    with pytest.raises(ValueError, match="no such labels file"):
        read_labels(tmp_path, 2)
    (tmp_path / "l.csv").write_text("1,2")
    with pytest.raises(ValueError, match="must be a .npy"):
        read_labels(tmp_path / "l.csv", 2)
