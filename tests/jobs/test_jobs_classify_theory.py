"""The Classification tab's spectrum & theory job: its pool, its Gram matrices (the cached stores
read back without a kernel evaluation), its tables and the ordering note, against independent
computations."""
from __future__ import annotations

import numpy as np
import pytest

from ntkviz.core.deformations.digits import load_digits
from ntkviz.jobs import ClassifyTheoryRequest, DataTheoryRequest

SMALL = dict(kernels=("pixels",), pool_size=40, theory_sizes=(5, 10, 20), draws=3, test_size=60, seed=4,
             theory_seed=2, random_labels=True)


def _pool(test_size: int, seed: int, size: int):
    """The pool by its definition: the training part of the split (all but the last ``test_size``
    of ``default_rng(seed).permutation(1000)``), in the order ``default_rng(seed).permutation``."""
    images, labels = load_digits()
    order = np.random.default_rng(seed).permutation(len(labels))
    train = order[:-test_size]
    pick = train[np.random.default_rng(seed).permutation(len(train))[:size]]
    return images[pick].astype(float) / 255.0, labels[pick].astype(np.int64)


def _pixel_gram(x: np.ndarray) -> np.ndarray:
    flat = x.reshape(len(x), -1)
    d = np.sqrt(np.array([[np.sum((a - b) ** 2) for b in flat] for a in flat]))
    h = np.median(d[np.triu_indices(len(x), 1)])
    return np.exp(-d ** 2 / (2 * h * h))


@pytest.fixture(scope="module")
def pixels():
    return ClassifyTheoryRequest(**SMALL)()


def test_pool_and_pixel_theory_are_the_data_theory_of_the_pool(pixels):
    x, y = _pool(60, 4, 40)
    request = ClassifyTheoryRequest(**SMALL)
    got_x, got_y = request.pool()
    np.testing.assert_array_equal(got_x, x)
    np.testing.assert_array_equal(got_y, y)
    want = DataTheoryRequest(_pixel_gram(x), y, (5, 10, 20), draws=3, seed=2, random_labels=True)()
    th = pixels.theories["pixels"]
    np.testing.assert_allclose(th.spectrum.eigenvalues, want.spectrum.eigenvalues, rtol=1e-9, atol=1e-15)
    for kind in ("true", "random"):
        np.testing.assert_allclose(th.certificate[kind], want.certificate[kind], rtol=1e-8)
        np.testing.assert_allclose(th.test_mse[kind], want.test_mse[kind], rtol=1e-8)
        np.testing.assert_array_equal(th.accuracy[kind], want.accuracy[kind])
    assert th.reference is None and pixels.complete and pixels.ordering() is None


def test_tables_of_the_views(pixels):
    th = pixels.theories["pixels"]
    header, rows = pixels.csv_table("spectrum")
    assert header == ["kernel", "index", "eigenvalue", "trustworthy", "sphere_reference"]
    assert len(rows) == 40 and sum(r[2] for r in rows) == pytest.approx(1.0, rel=1e-12)  # K̃: trace N
    header, rows = pixels.csv_table("alignment")
    assert [r[1] for r in rows] == ["true"] * 40 + ["random"] * 40 and rows[39][3] == pytest.approx(1.0)
    header, rows = pixels.csv_table("learning_curve")
    measured = [r for r in rows if r[4] != ""]
    assert [(r[1], r[2]) for r in measured] == [(k, n) for k in ("true", "random") for n in (5, 10, 20)]
    assert measured[0][4] == pytest.approx(th.test_mse["true"][0].mean(), rel=1e-15)
    header, rows = pixels.csv_table("certificate")
    assert header[:4] == ["kernel", "n", "labels", "certificate"]
    assert rows[0][3] == pytest.approx(th.certificate["true"][0].mean(), rel=1e-15)
    with pytest.raises(ValueError, match="view must be one of"):
        pixels.csv_table("train_size")


def test_conv_stores_are_cached_and_read_back(tmp_path, monkeypatch):
    """The CKN/NTK pool matrices go through the tab's Gram stores: the second run reads them (no
    kernel evaluation), the store's metadata gives the sphere reference, and without a cache the
    same numbers come from memory."""
    import ntkviz.dataset._engine as engine
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.dataset import compute_gram

    settings = dict(SMALL, kernels=("ckn", "ntk"), architecture="M3", pool_size=10, theory_sizes=(3, 6),
                    draws=2)
    first = ClassifyTheoryRequest(**settings, cache_dir=str(tmp_path))()
    assert len(list(tmp_path.glob("*.zarr"))) == 2
    assert all(ev.skipped for ev in _events(settings, tmp_path))  # every tile found done in its store

    def no_kernel(*args, **kwargs):
        raise AssertionError("a kernel was evaluated")

    with monkeypatch.context() as patch:
        patch.setattr(engine, "conv_tile_iter", no_kernel)
        again = ClassifyTheoryRequest(**settings, cache_dir=str(tmp_path))()
    memory = ClassifyTheoryRequest(**settings)()
    x, y = _pool(60, 4, 10)
    direct = compute_gram(x, None, PRESETS["M3"], ("ckn",))["ckn"]
    for response in (first, again, memory):
        th = response.theories["ckn"]
        assert th.mean_diagonal == pytest.approx(np.trace(direct) / 10, rel=1e-12)
        assert th.reference is not None and th.reference.label.startswith("NNGP")
        np.testing.assert_allclose(th.certificate["true"], first.theories["ckn"].certificate["true"], rtol=1e-12)
    assert memory.theories["ntk"].reference.label == first.theories["ntk"].reference.label


def _events(settings, cache_dir):
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.dataset.classify import conv_gram_run

    x, _ = ClassifyTheoryRequest(**settings, cache_dir=str(cache_dir)).pool()
    return list(conv_gram_run(x, None, PRESETS["M3"], ("ckn", "ntk"), str(cache_dir)).events(None))


def test_ordering_of_kernels_is_read_from_the_means(pixels):
    from ntkviz.jobs._classify_theory import ClassifyTheoryResponse

    other = pixels.theories["pixels"]
    response = ClassifyTheoryResponse(ClassifyTheoryRequest(**dict(SMALL, kernels=("pixels", "scattering"))),
                                      {"pixels": other, "scattering": other})
    order = response.ordering()
    cert = other.certificate["true"][-1].mean()
    assert order.n == 20 and order.certificate == {"pixels": cert, "scattering": cert}
    assert order.vacuous == (cert > 1) and order.matches


@pytest.mark.parametrize("change, match", [
    ({"pool_size": 2}, r"pool_size must be in \[3, 990\]"),
    ({"pool_size": 960}, r"pool_size must be in \[3, 940\]"),
    ({"theory_sizes": (40,)}, r"theory_sizes must be in \[1, 39\], got 40"),
    ({"theory_sizes": (5, 5)}, "theory_sizes must not repeat"),
    ({"theory_ridge": -1.0}, "theory_ridge must be"),
    ({"draws": 0}, r"draws must be in \[1, 1000\]"),
    ({"kernels": ("ntk",), "architecture": "M4"}, "M4 .* has no NTK"),
])
def test_refused_settings(change, match):
    with pytest.raises(ValueError, match=match):
        ClassifyTheoryRequest(**{**SMALL, **change})
