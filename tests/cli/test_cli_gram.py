"""``ntkviz gram``: files in, tiled matrix out (Zarr or .npy), resume, one-line errors."""
from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.conv.gram import gram_matrix

MODEL = [{"npatch": 3, "subsampling": 2}]  # a cheap one-layer architecture for 8x8 images


@pytest.fixture(scope="module")
def ckn_reference(data_dir):
    return np.load(data_dir / "ckn_kernel_first12.npz")


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    np.save(tmp_path / "a.npy", rng.random((7, 8, 8)))
    np.save(tmp_path / "b.npy", rng.random((3, 8, 8)))
    (tmp_path / "m.json").write_text(json.dumps(MODEL))
    return tmp_path


def test_gram_preset_matches_reference_code(tmp_path, ckn_reference, capsys):
    images = tmp_path / "x.npy"
    np.save(images, ckn_reference["images_first12"][:5].astype(np.float64) / 255.0)
    out = tmp_path / "K.npy"
    assert main(["gram", "--model", "M3", "--images", str(images), "--mode", "ntk", "--out", str(out),
                 "--tile-size", "2"]) == 0
    K = np.load(out)
    ref = ckn_reference["M3_ntk_first12_K"][:5, :5]
    off = ~np.eye(5, dtype=bool)
    np.testing.assert_allclose(K[off], ref[off], rtol=1e-12)
    # the diagonal: the reference code's NTK self-pairs carry ~1e-9 rounding errors that the core
    # removes (it is tested against mpmath there); through tiles it must equal the whole-matrix engine
    whole = gram_matrix(np.load(images), PRESETS["M3"], "ntk")
    np.testing.assert_allclose(np.diag(K), np.diag(whole), rtol=1e-13)
    np.testing.assert_allclose(np.diag(K), np.diag(ref), rtol=1e-8)
    err = capsys.readouterr().err
    assert "pair/s" in err and "15 pairs in 6 tile(s)" in err and "pairs/s/core" in err


def test_gram_uint8_npz_input_is_scaled(tmp_path, ckn_reference):
    raw = ckn_reference["images_first12"][:4]
    np.savez(tmp_path / "x.npz", images=raw.astype(np.uint8), labels=np.arange(4))
    out = tmp_path / "K.npy"
    assert main(["gram", "--model", "M3", "--images", str(tmp_path / "x.npz"), "--mode", "ckn",
                 "--out", str(out)]) == 0
    np.testing.assert_allclose(np.load(out), gram_matrix(raw / 255.0, PRESETS["M3"], "ckn"), rtol=1e-12)


def test_zarr_store_cross_matrix_and_resume(files, capsys):
    import zarr

    out = files / "C.zarr"
    args = ["gram", "--model", str(files / "m.json"), "--images", str(files / "a.npy"), "--images-b",
            str(files / "b.npy"), "--mode", "ntk", "--out", str(out), "--tile-size", "3"]
    assert main(args) == 0
    g = zarr.open_group(str(out))
    a, b = np.load(files / "a.npy"), np.load(files / "b.npy")
    from ntkviz.core.conv.architecture import architecture_from_dict

    np.testing.assert_allclose(g["gram"][:], gram_matrix(a, architecture_from_dict(MODEL), "ntk", images_b=b),
                               rtol=1e-12)
    meta = dict(g.attrs)["ntkviz"]
    assert meta["mode"] == "ntk" and meta["tile_size"] == 3 and meta["input_shape"] == [7, 8, 8]
    assert meta["architecture"]["layers"][0]["npatch"] == 3 and len(meta["input_hash"]) == 64
    capsys.readouterr()
    assert main(args) == 0  # rerun: everything is already there
    assert "0 pairs in 0 tile(s) (3 of 3 already done)" in capsys.readouterr().err


def test_gram_with_local_dask_workers(files):
    base = ["gram", "--model", str(files / "m.json"), "--images", str(files / "a.npy"), "--mode", "ckn",
            "--tile-size", "4"]
    assert main(base + ["--out", str(files / "K1.npy")]) == 0
    assert main(base + ["--out", str(files / "K2.npy"), "--workers", "2"]) == 0
    np.testing.assert_allclose(np.load(files / "K2.npy"), np.load(files / "K1.npy"), rtol=1e-12, atol=0)


def _run(args, capsys):
    code = main(["gram", *args])
    err = capsys.readouterr().err.strip().splitlines()
    return code, err[-1] if err else ""


def test_bad_inputs_one_line_exit_2(files, capsys):
    m, a = str(files / "m.json"), str(files / "a.npy")
    np.save(files / "big.npy", np.zeros((2, 9, 9)))
    bad = np.load(files / "a.npy")
    bad[0, 0, 0] = np.nan
    np.save(files / "nan.npy", bad)
    cases = [
        (["--images", a, "--images-b", str(files / "big.npy")], "same image size"),
        (["--images", str(files / "nan.npy")], "NaN"),
        (["--images", a, "--tile-size", "0"], r"--tile-size must be in \[1, 2048\], got 0"),
        (["--images", a, "--out", a], "is one of the inputs"),
        (["--images", a, "--out", str(files / "K.txt")], "--out must end in .zarr or .npy"),
        (["--images", str(files)], "is a directory"),
    ]
    for extra, match in cases:
        args = ["--model", m, "--mode", "ntk", "--out", str(files / "K.zarr"), *extra]
        if "--out" in extra:
            args = ["--model", m, "--mode", "ntk", *extra]
        code, line = _run(args, capsys)
        assert code == 2 and line.startswith("ntkviz gram: error:"), (extra, line)
        assert __import__("re").search(match, line), (match, line)
    assert not (files / "K.zarr").exists()


def test_unreachable_scheduler_fails_within_seconds(files, capsys):
    start = time.perf_counter()
    code, line = _run(["--model", str(files / "m.json"), "--images", str(files / "a.npy"), "--mode", "ntk",
                       "--out", str(files / "K.zarr"), "--scheduler", "tcp://127.0.0.1:9"], capsys)
    assert code == 2 and "no Dask scheduler reachable" in line
    assert time.perf_counter() - start < 20


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_output_folder(files, capsys):
    ro = files / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        code, line = _run(["--model", str(files / "m.json"), "--images", str(files / "a.npy"), "--mode", "ntk",
                           "--out", str(ro / "K.zarr")], capsys)
    finally:
        ro.chmod(0o700)
    assert code == 2 and "not writable" in line


def test_store_of_another_version_is_kept(files, capsys, monkeypatch):
    import ntkviz

    args = ["--model", str(files / "m.json"), "--images", str(files / "a.npy"), "--mode", "ntk",
            "--out", str(files / "K.zarr"), "--tile-size", "4"]
    assert main(["gram", *args]) == 0
    import zarr

    before = zarr.open_group(str(files / "K.zarr"))["gram"][:]
    monkeypatch.setattr(ntkviz, "__version__", "0.0.1")
    code, line = _run(args, capsys)
    assert code == 2 and "another ntkviz version" in line
    np.testing.assert_array_equal(zarr.open_group(str(files / "K.zarr"))["gram"][:], before)


def test_disk_full_mid_run_keeps_written_tiles(files, capsys, monkeypatch):
    """The third tile write fails (ENOSPC): one line, exit 2; the rerun computes only the rest."""
    import errno

    from ntkviz.dataset._store import GramStore

    original, calls = GramStore.write, []

    def failing(self, i, j, block):
        calls.append((i, j))
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return original(self, i, j, block)

    args = ["--model", str(files / "m.json"), "--images", str(files / "a.npy"), "--mode", "ntk",
            "--out", str(files / "K.zarr"), "--tile-size", "3"]
    monkeypatch.setattr(GramStore, "write", failing)
    code, line = _run(args, capsys)
    assert code == 2 and "No space left on device" in line
    monkeypatch.setattr(GramStore, "write", original)
    code, line = _run(args, capsys)
    assert code == 0 and "(2 of 6 already done)" in line


def test_resumed_run_rate_counts_computed_pairs_only(capsys):
    """A resumed run's skipped tiles advance the bar but not its rate: 10 s computing 100
    pairs a second after 10⁶ pairs found done reads 100 pair/s (not 10⁵), and the ETA
    is that of the pairs left at that rate."""
    from ntkviz.cli._gram import progress_bar, skip

    clock = [0.0]
    bar = progress_bar(2_000_000, 0, "gram")
    bar._time = lambda: clock[0]
    bar.start_t = bar.last_print_t = 0.0
    skip(bar, 1_000_000)
    for _ in range(10):
        clock[0] += 1.0
        bar.update(100)
    info = bar.format_dict
    rate = info["rate"] or (info["n"] - info["initial"]) / info["elapsed"]
    assert bar.n == 1_001_000 and rate == pytest.approx(100.0, rel=1e-6)
    bar.close()
    assert "100pair/s" in capsys.readouterr().err.replace(" ", "")
