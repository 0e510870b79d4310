"""Tiled Gram matrices: engines agree, stores resume and refuse foreign inputs."""
from __future__ import annotations

import numpy as np
import pytest

from ntkviz.core.conv.architecture import Architecture, Layer
from ntkviz.core.conv.gram import gram_matrix
from ntkviz.dataset import GramRun, compute_gram, dask_client

#: a cheap architecture on 8x8 images: one pair costs microseconds
ARCH = Architecture((Layer(3, 2, "gaussian", "relu"),))


@pytest.fixture(scope="module")
def images():
    rng = np.random.default_rng(3)
    return rng.random((11, 8, 8)), rng.random((5, 8, 8))


@pytest.fixture(scope="module")
def reference(images):
    """The whole-matrix engine of ntkviz.core.conv (an independent code path)."""
    a, b = images
    return {"ntk": gram_matrix(a, ARCH, "ntk"), "ckn": gram_matrix(a, ARCH, "ckn"),
            "cross": gram_matrix(a, ARCH, "ntk", images_b=b)}


def _close(K, ref, diag_rtol=1e-9):
    off = ~np.eye(*K.shape, dtype=bool) if K.shape[0] == K.shape[1] else np.ones(K.shape, bool)
    np.testing.assert_allclose(K[off], ref[off], rtol=1e-12)
    if K.shape[0] == K.shape[1]:
        np.testing.assert_allclose(np.diag(K), np.diag(ref), rtol=diag_rtol)


def test_in_process_tiles_match_whole_matrix(images, reference):
    a, b = images
    K = compute_gram(a, None, ARCH, ("ckn", "ntk"), tile=4)
    _close(K["ntk"], reference["ntk"])
    _close(K["ckn"], reference["ckn"])
    np.testing.assert_array_equal(K["ntk"], K["ntk"].T)  # upper tiles mirrored exactly
    C = compute_gram(a, b, ARCH, ("ntk",), tile=3)["ntk"]
    _close(C, reference["cross"])


@pytest.mark.parametrize("processes", [False, True])
def test_dask_cluster_matches_in_process(images, processes):
    a, b = images
    local = compute_gram(a, None, ARCH, ("ckn", "ntk"), tile=4)
    cross = compute_gram(a, b, ARCH, ("ntk",), tile=4)["ntk"]
    with dask_client(workers=2, processes=processes) as client:
        K = compute_gram(a, None, ARCH, ("ckn", "ntk"), tile=4, client=client)
        C = compute_gram(a, b, ARCH, ("ntk",), tile=4, client=client)["ntk"]
    for kind in ("ckn", "ntk"):
        np.testing.assert_allclose(K[kind], local[kind], rtol=1e-12, atol=0)
    np.testing.assert_allclose(C, cross, rtol=1e-12, atol=0)


def test_interrupted_run_resumes_only_missing_tiles(tmp_path, images, reference):
    a, _ = images
    stores = {"ntk": tmp_path / "K.zarr"}
    run = GramRun(a, None, ARCH, ("ntk",), 4, stores)
    assert run.tiles_total == 6  # 3x3 grid of tiles, upper triangle only
    events = run.events()
    for ev in events:
        if run.tiles_computed == 2:
            break
    events.close()  # the "crash": two tiles written
    again = GramRun(a, None, ARCH, ("ntk",), 4, stores)
    for _ in again.events():
        pass
    assert (again.tiles_skipped, again.tiles_computed) == (2, 4)
    _close(again.matrix("ntk"), reference["ntk"])
    import zarr

    np.testing.assert_array_equal(zarr.open_group(str(tmp_path / "K.zarr"))["gram"][:], again.matrix("ntk"))
    third = GramRun(a, None, ARCH, ("ntk",), 4, stores)
    for _ in third.events():
        pass
    assert (third.tiles_skipped, third.tiles_computed, third.pairs_computed) == (6, 0, 0)


def test_corrupt_tile_is_recomputed(tmp_path, images, reference):
    import zarr

    a, _ = images
    path = tmp_path / "K.zarr"
    compute_gram(a, None, ARCH, ("ntk",), 4, {"ntk": path})
    g = zarr.open_group(str(path), mode="r+")
    g["gram"][0:4, 4:8] = 0.0  # bytes no longer match the recorded sha256
    run = GramRun(a, None, ARCH, ("ntk",), 4, {"ntk": path})
    for _ in run.events():
        pass
    assert run.tiles_computed == 1
    _close(run.matrix("ntk"), reference["ntk"])


def test_store_of_other_inputs_or_version_is_refused(tmp_path, images, monkeypatch):
    a, b = images
    path = tmp_path / "K.zarr"
    compute_gram(a, None, ARCH, ("ntk",), 4, {"ntk": path})
    before = sorted(p.name for p in path.rglob("*"))
    with pytest.raises(ValueError, match="another input images"):
        GramRun(a[:10], None, ARCH, ("ntk",), 4, {"ntk": path})
    with pytest.raises(ValueError, match="another mode"):
        GramRun(a, None, ARCH, ("ckn",), 4, {"ckn": path})
    with pytest.raises(ValueError, match="another tile size"):
        GramRun(a, None, ARCH, ("ntk",), 5, {"ntk": path})
    with pytest.raises(ValueError, match="another architecture"):
        GramRun(a, None, Architecture((Layer(3, 3, "gaussian", "relu"),)), ("ntk",), 4, {"ntk": path})
    import ntkviz

    monkeypatch.setattr(ntkviz, "__version__", "99.0")
    with pytest.raises(ValueError, match="another ntkviz version"):
        GramRun(a, None, ARCH, ("ntk",), 4, {"ntk": path})
    assert sorted(p.name for p in path.rglob("*")) == before


def test_bad_arguments(images):
    a, b = images
    with pytest.raises(ValueError, match=r"tile size must be in \[1, 2048\], got 0"):
        GramRun(a, None, ARCH, ("ntk",), 0)
    with pytest.raises(ValueError, match="same image size"):
        GramRun(a, np.zeros((2, 9, 9)), ARCH, ("ntk",), 4)


def test_killed_worker_does_not_fail_the_run():
    """A worker process killed (SIGKILL) after the first tile: Dask reruns its tiles
    (pure tasks) and the matrix equals the in-process one."""
    import os
    import signal

    a = np.random.default_rng(4).random((240, 8, 8))  # tiles of ~10^4 cheap pairs
    local = compute_gram(a, None, ARCH, ("ntk",), tile=60)["ntk"]
    with dask_client(workers=2) as client:
        pids = list(client.run(os.getpid).values())
        run = GramRun(a, None, ARCH, ("ntk",), 60)
        killed = False
        for ev in run.events(client):
            if ev.tile is not None and not killed:
                os.kill(pids[0], signal.SIGKILL)
                killed = True
        assert killed and run.tiles_computed == run.tiles_total == 10
    np.testing.assert_allclose(run.matrix("ntk"), local, rtol=1e-12, atol=0)


def test_huge_pixel_values_are_rescaled_exactly(images):
    """Kernels are homogeneous of degree 2: images times 2^80 give the matrix times 2^160
    (the engine divides by a power of two first, as the whole-matrix engine does)."""
    a, _ = images
    c = 2.0 ** 80
    K = compute_gram(a, None, ARCH, ("ckn", "ntk"), tile=4)
    big = compute_gram(a * c, None, ARCH, ("ckn", "ntk"), tile=4)
    for kind in ("ckn", "ntk"):
        np.testing.assert_allclose(big[kind], K[kind] * c * c, rtol=1e-12)


def test_store_of_another_engine_is_refused(tmp_path, images, monkeypatch):
    a, _ = images
    path = tmp_path / "K.zarr"
    compute_gram(a, None, ARCH, ("ntk",), 4, {"ntk": path})
    import ntkviz.dataset._gram as gram

    monkeypatch.setattr(gram, "engine_fingerprint", lambda: "0" * 16)
    with pytest.raises(ValueError, match="another kernel engine"):
        GramRun(a, None, ARCH, ("ntk",), 4, {"ntk": path})


def test_engine_fingerprint_follows_every_conv_engine_source(monkeypatch):
    """A changed byte in any conv engine module changes the fingerprint; the test reference does not."""
    from pathlib import Path

    import ntkviz.dataset._gram as gram

    base = gram.engine_fingerprint()
    real = Path.read_bytes
    for name, changes in (("_kernels.py", True), ("architecture.py", True), ("gram.py", True),
                          ("_reference.py", False)):
        monkeypatch.setattr(Path, "read_bytes", lambda self, name=name: real(self) + b"#" * (self.name == name))
        assert (gram.engine_fingerprint() != base) is changes, name
