"""The Infinite-MNIST generator on small data folders written by the tests, against the
scalar transcription of the reference generator (byte for byte) and closed forms."""
from __future__ import annotations

import gzip

import numpy as np
import pytest
from infimnist_files import FIELDS, TANGENTS, idx_bytes, write_folder

from ntkviz.cli import main
from ntkviz.core.deformations import _reference
from ntkviz.core.deformations.infimnist import MOVES, index_plan
from ntkviz.dataset.infimnist import InfiniteMNIST


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return write_folder(tmp_path_factory.mktemp("infimnist"), n_test=3, n_train=7, n_fields=5, seed=1)


def _deformed_indexes(n_digits: int) -> np.ndarray:
    """Indexes on both sides of the first deformed one, and beyond the 32-bit wrap of the
    field rule."""
    return np.concatenate([np.arange(n_digits - 2, n_digits + 30),
                           2**32 + np.arange(-4, 4), [10**12 + 17, 2**62 - 1]]).astype(np.int64)


def test_counts_and_shape_come_from_the_files(tmp_path):
    for shape, counts in (((28, 28), (3, 7, 5)), ((7, 5), (4, 2, 2))):
        f = write_folder(tmp_path / f"{shape[0]}x{shape[1]}", *counts, shape=shape)
        gen = InfiniteMNIST(f.path)
        assert (gen.n_test, gen.n_train, gen.n_fields, gen.shape) == (*counts, shape)
        assert gen.n_digits == counts[0] + counts[1]


@pytest.mark.parametrize("alpha", [0.5, 1.0, 3.0, -1.7])
@pytest.mark.parametrize("translate", [False, True])
def test_byte_identical_to_the_scalar_reference(folder, alpha, translate):
    gen = InfiniteMNIST(folder.path)
    idx = _deformed_indexes(gen.n_digits)
    images = gen.images(idx, alpha, translate)
    labels = gen.labels(idx)
    assert images.dtype == np.uint8 and images.shape == (len(idx), 28, 28)
    for k, i in enumerate(idx):
        ref_image, ref_label = _reference.infimnist_digit(*folder.arrays(), int(i), alpha, translate)
        np.testing.assert_array_equal(images[k], ref_image, err_msg=f"index {i}")
        assert labels[k] == ref_label
    deformed = images[idx >= gen.n_digits]
    assert np.any((deformed > 0) & (deformed < 255))   # the arithmetic was exercised,
    assert np.any(deformed == 255) and np.any(deformed == 0)   # and both clips


def test_non_square_images_and_gzipped_files(tmp_path):
    """Rows and columns are not mixed up (7 x 5 images), and .gz files read the same."""
    plain = write_folder(tmp_path / "plain", 2, 3, 4, shape=(7, 5), seed=5)
    zipped = write_folder(tmp_path / "gz", 2, 3, 4, shape=(7, 5), seed=5, gz=True)
    assert not (zipped.path / FIELDS).exists() and (zipped.path / f"{FIELDS}.gz").exists()
    idx = np.arange(0, 200)
    for translate in (False, True):
        got = InfiniteMNIST(plain.path).images(idx, 2.0, translate)
        np.testing.assert_array_equal(InfiniteMNIST(zipped.path).images(idx, 2.0, translate), got)
        for k in idx:
            np.testing.assert_array_equal(
                got[k], _reference.infimnist_digit(*plain.arrays(), int(k), 2.0, translate)[0])


def test_mnist_digits_below_the_first_deformed_index(folder):
    gen = InfiniteMNIST(folder.path)
    idx = np.arange(gen.n_digits)
    for alpha, translate in ((3.0, True), (0.0, False)):
        np.testing.assert_array_equal(gen.images(idx, alpha, translate),
                                      np.concatenate([folder.test_images, folder.train_images]))
    np.testing.assert_array_equal(gen.labels(idx), np.concatenate([folder.test_labels, folder.train_labels]))


def test_alpha_zero_gives_the_source_digit(folder):
    gen = InfiniteMNIST(folder.path)
    idx = np.arange(gen.n_digits, gen.n_digits + 40)
    source = (idx - gen.n_test) % gen.n_train
    np.testing.assert_array_equal(gen.images(idx, 0.0, False), folder.train_images[source])
    np.testing.assert_array_equal(gen.labels(idx), folder.train_labels[source])


def _shifted(image: np.ndarray, move: str) -> np.ndarray:
    """``image`` moved by one pixel in the direction named ``move``, blank pixels coming in."""
    out = image
    for part in move.split("-"):
        if part == "none":
            continue
        dr, dc = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}[part]
        moved = np.zeros_like(out)
        h, w = out.shape
        moved[max(dr, 0):h + min(dr, 0), max(dc, 0):w + min(dc, 0)] = \
            out[max(-dr, 0):h + min(-dr, 0), max(-dc, 0):w + min(-dc, 0)]
        out = moved
    return out


def test_translate_moves_exactly_one_pixel(tmp_path):
    """On digits with blank borders (as MNIST's), every move is a shift by one pixel, and
    over many indexes all nine moves occur."""
    f = write_folder(tmp_path / "m", 2, 5, 20, shape=(9, 8), margin=2, seed=3)
    gen = InfiniteMNIST(f.path)
    idx = np.arange(gen.n_digits, gen.n_digits + 200)
    plain = gen.images(idx, 1.5, False)
    moved = gen.images(idx, 1.5, True)
    moves = index_plan(idx, gen.n_test, gen.n_train, gen.n_fields).move
    assert set(moves) == set(range(9))
    for k in range(len(idx)):
        if plain[k][:, :2].any() or plain[k][:, -1].any() or plain[k][[0, -1]].any():
            continue  # the deformation reached the border: the reference's border rule applies
        np.testing.assert_array_equal(moved[k], _shifted(plain[k], MOVES[moves[k]]))


def _break(path, how):
    if how == "missing":
        path.unlink()
    elif how == "short":
        path.write_bytes(path.read_bytes()[:-1])
    elif how == "empty":
        path.write_bytes(b"")


@pytest.mark.parametrize("name,how,match", [
    ("t10k-images-idx3-ubyte", "missing", "no such file"),
    ("train-labels-idx1-ubyte", "missing", "no such file"),
    (FIELDS, "missing", "no such file"),
    (TANGENTS, "missing", "no such file"),
    ("train-images-idx3-ubyte", "short", "IDX header says"),
    ("t10k-labels-idx1-ubyte", "short", "IDX header says"),
    (FIELDS, "short", "not a whole number of float32 images"),
    (FIELDS, "empty", "not a whole number of float32 images"),
    (TANGENTS, "short", "not a whole number of float32 images"),
])
def test_missing_or_short_files(tmp_path, name, how, match):
    f = write_folder(tmp_path / "d")
    _break(f.path / name, how)
    with pytest.raises(ValueError, match=match) as err:
        InfiniteMNIST(f.path)
    message = str(err.value)
    assert str(f.path / name) in message and "\n" not in message


def test_garbage_files(tmp_path):
    rng = np.random.default_rng(0)
    cases = {
        "t10k-images-idx3-ubyte": (b"garbage" * 100, "not an IDX file"),
        "train-labels-idx1-ubyte": (idx_bytes(np.full(7, 12, np.uint8)), r"labels must be in \[0, 9\]"),
        "t10k-labels-idx1-ubyte": (idx_bytes(np.zeros(4, np.uint8)), "holds 4 labels"),
        FIELDS: (np.full((5, 28, 28), np.nan, "<f4").tobytes(), "NaN or infinite"),
        TANGENTS: (rng.standard_normal((13, 28, 28)).astype("<f4").tobytes(), "expected 2 per training digit"),
        "train-images-idx3-ubyte": (idx_bytes(np.zeros((7, 28, 27), np.uint8)), "images are 28x28"),
    }
    for name, (data, match) in cases.items():
        f = write_folder(tmp_path / name.replace(".", "_"))
        (f.path / name).write_bytes(data)
        with pytest.raises(ValueError, match=match) as err:
            InfiniteMNIST(f.path)
        assert str(f.path) in str(err.value) and "\n" not in str(err.value), err.value


def test_nan_tangent_vectors_are_refused_when_used(tmp_path):
    f = write_folder(tmp_path / "d")
    tangents = f.tangents.copy()
    tangents[4, 3, 3] = np.nan   # training digit 2's first tangent vector
    (f.path / TANGENTS).write_bytes(tangents.astype("<f4").tobytes())
    gen = InfiniteMNIST(f.path)
    gen.images([gen.n_digits], 1.0)  # training digit 0: fine
    with pytest.raises(ValueError, match=f"{TANGENTS}: holds NaN"):
        gen.images([gen.n_digits + 2], 1.0)


def test_bad_arguments(folder, tmp_path):
    gen = InfiniteMNIST(folder.path)
    with pytest.raises(ValueError, match=r"indexes must be in \[0, "):
        gen.images([-1])
    with pytest.raises(ValueError, match="alpha must be a finite number"):
        gen.images([11], alpha=1e39)
    with pytest.raises(ValueError, match="no such folder"):
        InfiniteMNIST(tmp_path / "nowhere")


# --------------------------------------------------------------------------- command line

def test_cli_writes_the_generator_output(folder, tmp_path, capsys):
    gen = InfiniteMNIST(folder.path)
    out = tmp_path / "digits.npz"
    first = gen.n_digits
    argv = ["infimnist", "--data", str(folder.path), "--indexes", f"{first}-{first + 4},1,{first + 100}",
            "--alpha", "3", "--translate", "--out", str(out)]
    assert main(argv) == 0
    assert capsys.readouterr().out == ""   # the summary goes to stderr
    idx = np.array([*range(first, first + 5), 1, first + 100])
    with np.load(out) as z:
        np.testing.assert_array_equal(z["indexes"], idx)
        np.testing.assert_array_equal(z["images"], gen.images(idx, 3.0, True))
        np.testing.assert_array_equal(z["labels"], gen.labels(idx))
        assert z["images"].dtype == np.uint8 and z["images"].shape == (7, 28, 28)
    from ntkviz.dataset import load_dataset   # the format gram and classify read

    data = load_dataset(out)
    assert len(data) == 7 and data.labels is not None and data.images.max() <= 1.0


@pytest.mark.parametrize("indexes,match", [
    ("5-3", "ends before it starts"),
    ("1-5,4", "overlap"),
    ("1,,2", "empty entries"),
    ("a-b", "inclusive range"),
    ("-3", "inclusive range"),
    ("0-1000000", "at most 1000000"),
    (str(2**62), "indexes must be in"),
])
def test_cli_refuses_bad_indexes(folder, tmp_path, capsys, indexes, match):
    out = tmp_path / "x.npz"
    with pytest.raises(SystemExit) as exc:
        main(["infimnist", "--data", str(folder.path), f"--indexes={indexes}", "--out", str(out)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0], err
    assert not out.exists()


def test_cli_bad_folder_is_one_line(tmp_path, capsys):
    f = write_folder(tmp_path / "d")
    with gzip.open(f.path / "junk.gz", "wb"):
        pass
    (f.path / TANGENTS).write_bytes(b"\0" * 7)
    assert main(["infimnist", "--data", str(f.path), "--indexes", "0-3", "--out", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and TANGENTS in err[0] and "ntkviz infimnist: error:" in err[0], err
    assert not (tmp_path / "x.npz").exists()
