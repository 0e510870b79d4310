"""Gram stores under faults: a damaged tile is computed again (and counted), a store of the
wrong shape, dtype or chunking is refused before anything is written, broken metadata names
its file, an empty folder is used, a full disk names the store and says how to resume.

The matrices are compared with the whole-matrix engine of :mod:`ntkviz.core.conv` (an
independent code path: no tiles, no store)."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from faultlib import error_line, run_cli

#: a cheap one-layer architecture for 8x8 images (a pair costs microseconds)
MODEL = [{"npatch": 3, "subsampling": 2}]
N, TILE = 11, 4  # a 3 x 3 grid of tiles, 6 of them computed (symmetric), the last row/column partial


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("store-inputs")
    np.save(d / "a.npy", np.random.default_rng(5).random((N, 8, 8)))
    (d / "m.json").write_text(json.dumps(MODEL))
    return d


@pytest.fixture(scope="module")
def reference(inputs):
    from ntkviz.core.conv.architecture import architecture_from_dict
    from ntkviz.core.conv.gram import gram_matrix

    return gram_matrix(np.load(inputs / "a.npy"), architecture_from_dict(MODEL), "ntk")


def _argv(inputs, out, *extra):
    return ["gram", "--model", inputs / "m.json", "--mode", "ntk", "--images", inputs / "a.npy",
            "--tile-size", str(TILE), "--out", out, *extra]


def _summary(err: str) -> str:
    return [ln for ln in err.replace("\r", "\n").splitlines() if ln.startswith("gram:") and "tile(s)" in ln][-1]


def _matrix(path: Path) -> np.ndarray:
    import zarr

    return np.asarray(zarr.open_group(str(path), mode="r")["gram"][:])


def _same(K, ref):
    off = ~np.eye(N, dtype=bool)
    np.testing.assert_allclose(K[off], ref[off], rtol=1e-12)
    np.testing.assert_allclose(np.diag(K), np.diag(ref), rtol=1e-9)
    np.testing.assert_array_equal(K, K.T)


def _snapshot(path: Path) -> dict:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture()
def store(inputs, tmp_path, capsys):
    """A complete store K.zarr of the inputs."""
    out = tmp_path / "K.zarr"
    code, _, err = run_cli(_argv(inputs, out), capsys)
    assert code == 0, err
    return out


# ------------------------------------------------------------------ 1. damaged tiles
def _zero(b: bytes) -> bytes:
    return b""


def _half(b: bytes) -> bytes:
    return b[: len(b) // 2]


def _flip_header(b: bytes) -> bytes:  # the zstd frame header descriptor, right after the magic number
    assert b[:4] == bytes.fromhex("28b52ffd"), "not a zstd frame"
    return b[:4] + bytes([b[4] ^ 0xFF]) + b[5:]


DAMAGE = {"cut to 0 bytes": _zero, "cut in half": _half, "zstd header byte flipped": _flip_header}
#: chunk files: an inner tile, a partial tile of the last row and column, the lower mirror of an
#: upper tile, a checksum
CHUNKS = {"inner tile": "gram/c/0/1", "partial edge tile": "gram/c/2/2", "mirrored tile": "gram/c/2/0",
          "checksum": "tile_sha256/c/1/2/0"}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
@pytest.mark.parametrize("chunk", CHUNKS, ids=list(CHUNKS))
def test_damaged_tile_is_recomputed_and_counted(damage, chunk, store, inputs, reference, capsys):
    path = store / CHUNKS[chunk]
    path.write_bytes(DAMAGE[damage](path.read_bytes()))
    code, _, err = run_cli(_argv(inputs, store), capsys)
    assert code == 0, err[-400:]
    line = _summary(err)
    assert "1 tile(s)" in line and "(5 of 6 already done" in line and "1 damaged tile recomputed" in line, line
    _same(_matrix(store), reference)
    code, _, err = run_cli(_argv(inputs, store), capsys)  # the store is whole again
    assert code == 0 and "(6 of 6 already done)" in _summary(err)


def test_every_tile_damaged(store, inputs, reference, capsys):
    for f in (store / "gram" / "c").rglob("*"):
        if f.is_file():
            f.write_bytes(b"")
    code, _, err = run_cli(_argv(inputs, store), capsys)
    assert code == 0 and "6 damaged tiles recomputed" in _summary(err), err[-400:]
    _same(_matrix(store), reference)


# ------------------------------------------------------------------ 2. a store of another shape
def _recreate(store: Path, name: str, **spec):
    import zarr

    g = zarr.open_group(str(store), mode="r+")
    del g[name]
    g.create_array(name, **spec)


WRONG = {
    "gram of a quarter the size": ("gram", dict(shape=(6, 6), chunks=(TILE, TILE), dtype="float64",
                                                fill_value=float("nan")), "shape"),
    "gram as float32": ("gram", dict(shape=(N, N), chunks=(TILE, TILE), dtype="float32",
                                     fill_value=float("nan")), "float32"),
    "gram in other chunks": ("gram", dict(shape=(N, N), chunks=(3, 3), dtype="float64",
                                          fill_value=float("nan")), "chunks"),
    "checksums of another grid": ("tile_sha256", dict(shape=(2, 2, 32), chunks=(1, 1, 32), dtype="uint8",
                                                      fill_value=0), "shape"),
}


@pytest.mark.parametrize("case", WRONG, ids=list(WRONG))
def test_store_of_the_wrong_layout_is_refused_untouched(case, store, inputs, capsys):
    name, spec, needle = WRONG[case]
    _recreate(store, name, **spec)
    before = _snapshot(store)
    code, _, err = run_cli(_argv(inputs, store), capsys)
    assert code == 2, err[-400:]
    line = error_line(err)
    assert "K.zarr" in line and name in line and needle in line, line
    assert _snapshot(store) == before


def test_store_member_that_is_a_group_is_refused(store, inputs, capsys):
    import zarr

    g = zarr.open_group(str(store), mode="r+")
    del g["gram"]
    g.create_group("gram")
    code, _, err = run_cli(_argv(inputs, store), capsys)
    line = error_line(err)
    assert code == 2 and "gram" in line and "not an array" in line, line


# ------------------------------------------------------------------ 3. metadata, folders, full disks
@pytest.mark.parametrize("member", ["zarr.json", "gram/zarr.json", "tile_sha256/zarr.json"])
@pytest.mark.parametrize("content", [b"garbage", b"", b'{"zarr_format": 3}'], ids=["garbage", "empty", "incomplete"])
def test_broken_metadata_names_the_file(member, content, store, inputs, capsys):
    (store / member).write_bytes(content)
    before = _snapshot(store)
    code, _, err = run_cli(_argv(inputs, store), capsys)
    assert code == 2, err[-400:]
    line = error_line(err)
    assert str(store / member) in line, line
    assert _snapshot(store) == before


def test_empty_folder_as_out_is_used(inputs, tmp_path, reference, capsys):
    out = tmp_path / "K.zarr"
    out.mkdir()
    code, _, err = run_cli(_argv(inputs, out), capsys)
    assert code == 0, err[-400:]
    _same(_matrix(out), reference)


def test_folder_with_other_files_is_refused_plainly(inputs, tmp_path, capsys):
    out = tmp_path / "K.zarr"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    code, _, err = run_cli(_argv(inputs, out), capsys)
    line = error_line(err)
    assert code == 2 and "K.zarr" in line and "not a Zarr store" in line and "Error" not in line, line
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_disk_full_names_the_store_and_how_to_resume(inputs, tmp_path, reference, capsys, monkeypatch):
    """The third chunk write fails with ENOSPC inside Zarr's local store."""
    import errno

    import zarr.storage._local as local

    real, calls = local._put, []

    def put(path, value, exclusive=False):
        if "/c/" in str(path).replace(os.sep, "/"):
            calls.append(path)
            if len(calls) == 3:
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, value, exclusive)

    monkeypatch.setattr(local, "_put", put)
    out = tmp_path / "K.zarr"
    code, _, err = run_cli(_argv(inputs, out), capsys)
    assert code == 2
    line = error_line(err)
    assert line.startswith(f"ntkviz gram: error: {out}:") and "No space left on device" in line, line
    assert "rerun to resume" in line and ".partial" not in line, line
    monkeypatch.setattr(local, "_put", real)
    code, _, err = run_cli(_argv(inputs, out), capsys)
    assert code == 0 and "already done" in _summary(err) and "(0 of" not in _summary(err)
    _same(_matrix(out), reference)


def _limit_file_size(limit):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_file_size_limit_mid_run_then_resume(tmp_path):
    """``ulimit -f`` below one tile's chunk: exit 2, one line naming the store and saying to
    rerun; the rerun without the limit completes the store. A real process, a real limit."""
    rng = np.random.default_rng(6)
    np.save(tmp_path / "a.npy", rng.random((60, 8, 8)))
    (tmp_path / "m.json").write_text(json.dumps(MODEL))
    argv = [sys.executable, "-m", "ntkviz", "gram", "--model", str(tmp_path / "m.json"), "--mode", "ntk",
            "--images", str(tmp_path / "a.npy"), "--tile-size", "30"]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    warm = subprocess.run([*argv, "--out", str(tmp_path / "warm.zarr")], capture_output=True, text=True,
                          timeout=600, env=env)
    assert warm.returncode == 0, warm.stderr[-500:]
    limit = 4096
    assert (tmp_path / "warm.zarr" / "gram" / "c" / "0" / "0").stat().st_size > limit
    assert max(p.stat().st_size for p in (tmp_path / "warm.zarr").rglob("zarr.json")) < limit
    out = tmp_path / "K.zarr"
    proc = subprocess.run([*argv, "--out", str(out)], capture_output=True, text=True, timeout=600, env=env,
                          preexec_fn=_limit_file_size(limit))
    assert proc.returncode == 2, proc.stderr[-500:]
    line = error_line(proc.stderr)
    assert str(out) in line and "File too large" in line and "rerun to resume" in line, line
    assert not [p for p in out.rglob("*") if ".partial" in p.name]
    again = subprocess.run([*argv, "--out", str(out)], capture_output=True, text=True, timeout=600, env=env)
    assert again.returncode == 0, again.stderr[-500:]
    np.testing.assert_array_equal(_matrix(out), _matrix(tmp_path / "warm.zarr"))


def test_read_only_npy_target_is_not_called_a_store(inputs, tmp_path, capsys, monkeypatch):
    """``--out ro/old.npy`` in a folder that cannot be written: the message names the folder
    (a .npy file is replaced through a temporary file beside it), never "store"."""
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "old.npy").write_bytes(b"kept")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) in (ro, ro / "old.npy")
                        else real(p, mode, **kw))
    code, _, err = run_cli(_argv(inputs, ro / "old.npy"), capsys)
    line = error_line(err)
    assert code == 2 and "store" not in line and "not writable" in line and str(ro) in line, line
    assert (ro / "old.npy").read_bytes() == b"kept"


# ------------------------------------------------------------------ the read-only opener
def test_read_only_opener_checks_and_reads(store, reference):
    from ntkviz.dataset import open_gram_store

    opened = open_gram_store(store)
    assert opened.meta.mode == "ntk" and opened.meta.input_shape == (N, 8, 8) and opened.meta.tile == TILE
    _same(opened.complete_matrix(), reference)
    before = _snapshot(store)
    _flip = store / "gram" / "c" / "1" / "1"
    _flip.write_bytes(_flip_header(_flip.read_bytes()))
    with pytest.raises(ValueError, match=r"1 of 6 tiles are missing or damaged"):
        open_gram_store(store).complete_matrix()
    with pytest.raises(ValueError, match="not a Zarr store"):
        open_gram_store(store / "gram" / "c")
    assert {k: v for k, v in _snapshot(store).items() if k != "gram/c/1/1"} == \
        {k: v for k, v in before.items() if k != "gram/c/1/1"}
