"""The spectrum and data-theory jobs: validation, and every number against an independent route
(NumPy eigh, explicit solves, a brentq eigenlearning root) on small pools."""
import math

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS, architecture_from_dict, architecture_to_dict
from ntkviz.core.learning._reference import (finite_theory_reference, gram_spectrum_reference,
                                             subset_fit_reference)
from ntkviz.dataset import GramRun
from ntkviz.dataset.classify import median_bandwidth, pixel_gram
from ntkviz.jobs import DataTheoryRequest, GramSpectrumRequest
from ntkviz.jobs._data_theory import DATA_THEORY_CSV_COLUMNS, SPECTRUM_CSV_COLUMNS, reference_kernel


@pytest.fixture(scope="module")
def pool():
    """60 bundled digits (6 per class, a seeded choice), their pixel Gram matrix and labels."""
    from ntkviz.core.deformations.digits import load_digits

    images, labels = load_digits()
    pick = np.random.default_rng(5).permutation(len(labels))[:60]
    x = images[pick].astype(np.float64) / 255.0
    return pixel_gram(x, x, median_bandwidth(x)), labels[pick].astype(np.int64)


def test_gram_spectrum_request_on_an_array(pool):
    K, labels = pool
    resp = GramSpectrumRequest(K, labels, name="pixels")()
    values, cumulative, kta = gram_spectrum_reference(K, labels)
    head, rows = resp.csv_table()
    assert tuple(head) == SPECTRUM_CSV_COLUMNS and len(rows) == 60
    assert [r[0] for r in rows] == list(range(1, 61))
    np.testing.assert_allclose([r[1] for r in rows], values, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose([r[3] for r in rows], cumulative, rtol=1e-9)
    assert all(r[2] is True for r in rows)  # a Gaussian kernel on distinct images: positive definite
    assert f"kernel-target alignment {kta:.4f}" in resp.summary()
    assert resp.reference is None and resp.name == "pixels"
    no_labels = GramSpectrumRequest(K)()
    assert all(r[3] == "" for r in no_labels.csv_table()[1])
    assert "no labels given" in no_labels.summary()


def test_gram_spectrum_request_reads_a_store_and_adds_the_sphere_reference(tmp_path):
    images = np.random.default_rng(0).random((9, 8, 8))
    arch = architecture_from_dict([{"npatch": 3, "subsampling": 2}])
    run = GramRun(images, None, arch, ("ntk",), 4, {"ntk": tmp_path / "K.zarr"})
    for _ in run.events():
        pass
    req = GramSpectrumRequest(str(tmp_path / "K.zarr"))
    fractions = []
    items = req.iterate()
    while True:
        try:
            fractions.append(next(items).fraction)
        except StopIteration as stop:
            resp = stop.value
            break
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    np.testing.assert_allclose(resp.spectrum.eigenvalues, gram_spectrum_reference(run.matrix("ntk"))[0],
                               rtol=1e-10, atol=1e-14 * resp.spectrum.eigenvalues[0])
    # one relu layer of 3x3 patches on one channel: the two-layer ReLU NTK on S^8
    assert resp.reference.dim == 9 and resp.reference.label.startswith("NTK L=2")
    assert resp.reference.exponent == pytest.approx(9 / 8)
    assert resp.reference.eigenvalues.shape == (9,)
    # the data-theory response carries it too, on K̃'s scale (the pool's eigenvalues sum to 1)
    theory = DataTheoryRequest(tmp_path / "K.zarr", np.arange(9) % 3, (4,), draws=2)()
    assert theory.reference.label == resp.reference.label
    np.testing.assert_allclose(theory.reference.eigenvalues,
                               resp.reference.eigenvalues / (resp.spectrum.trace / 9), rtol=1e-12)


def test_reference_kernel_of_stores():
    def meta(arch, mode, shape=(10, 28, 28)):
        return {"architecture": architecture_to_dict(arch), "mode": mode, "input_shape": list(shape)}

    spec, dim = reference_kernel(meta(PRESETS["M1"], "ntk"))
    assert (spec.name, spec.depth, dim) == ("ntk", 3, 9)
    spec, dim = reference_kernel(meta(PRESETS["M3"], "ckn", (10, 28, 28, 3)))
    assert (spec.name, spec.depth, dim) == ("nngp", 3, 75)  # 5x5 patches of 3 channels
    assert reference_kernel(meta(PRESETS["M4"], "ckn")) is None  # exp patch kernel
    assert reference_kernel({}) is None


def _independent_theory(K, labels, n, ridge):
    """The held-out prediction from scratch: NumPy eigh of K / mean diagonal, brentq root."""
    size = K.shape[0]
    w, v = np.linalg.eigh(K / (np.trace(K) / size))
    classes = np.unique(labels)
    y = (labels[:, None] == classes[None, :]).astype(float)
    y -= y.mean(axis=0)
    mu = np.where(w > size * np.finfo(float).eps * w.max(), w / size, 0.0)
    ref = finite_theory_reference(mu, np.sum((v.T @ y) ** 2, axis=1) / size, n, ridge)
    return (size * ref["test"] - n * ref["train"]) / (size - n), ref["test"]


@pytest.mark.parametrize("ridge", [0.0, 0.01])
def test_data_theory_against_independent_routes(pool, ridge):
    K, labels = pool
    req = DataTheoryRequest(K, labels, (30, 10), ridge=ridge, draws=3, seed=4, random_labels=True)
    assert req.n_values == (10, 30)
    resp = req()
    head, rows = resp.csv_table()
    assert tuple(head) == DATA_THEORY_CSV_COLUMNS
    assert [(r[0], r[1]) for r in rows] == [(10, "true"), (10, "random"), (30, "true"), (30, "random")]
    col = {name: i for i, name in enumerate(head)}
    Kn = K / (np.trace(K) / 60)
    classes = np.unique(labels)
    y = (labels[:, None] == classes[None, :]).astype(float)
    y -= y.mean(axis=0)
    cls = np.searchsorted(classes, labels)
    perm = np.random.default_rng([4, 0x5EED]).permutation(60)
    for row in rows:
        n, kind = row[0], row[1]
        yy, cc = (y, cls) if kind == "true" else (y[perm], cls[perm])
        draws = [subset_fit_reference(Kn, np.random.default_rng([4, n, d]).choice(60, n, replace=False),
                                      ridge, yy, cc) for d in range(3)]
        for key, column in (("certificate", "certificate"), ("test_mse", "measured_test_mse"),
                            ("accuracy", "measured_accuracy"), ("lambda_min", "lambda_min")):
            assert row[col[column]] == pytest.approx(np.mean([d[key] for d in draws]), rel=1e-8), column
        mse = [d["test_mse"] for d in draws]
        assert row[col["measured_test_mse_sem"]] == pytest.approx(np.std(mse, ddof=1) / math.sqrt(3), rel=1e-8)
        heldout, pooled = _independent_theory(K, labels if kind == "true" else labels[perm], n, ridge)
        assert row[col["predicted_test_mse"]] == pytest.approx(heldout, rel=1e-8)
        assert row[col["predicted_pool_mse"]] == pytest.approx(pooled, rel=1e-8)
        assert row[col["inverse"]] == "solve" and row[col["pinv_draws"]] == 0
        assert all(not isinstance(v, float) or math.isfinite(v) for v in row)
    # the spectrum of K̃ sums to 1; the true labels sit higher on the top eigenvectors than random ones
    assert resp.spectrum.eigenvalues.sum() == pytest.approx(1.0, rel=1e-12)
    assert resp.cumulative_alignment("true")[5] > resp.cumulative_alignment("random")[5]
    assert resp.curve["true"].n[0] == 1 and resp.curve["true"].n[-1] == 59


def test_singular_pool_at_ridge_zero_is_pseudo_inverted_and_reported():
    # duplicated points: every subset holding both copies has a singular H
    rng = np.random.default_rng(2)
    x = rng.standard_normal((20, 30))
    x[10:] = x[:10]
    labels = np.tile(np.arange(5), 4)
    resp = DataTheoryRequest(x @ x.T, labels, (15,), draws=4, seed=0)()
    head, rows = resp.csv_table()
    row = dict(zip(head, rows[0]))
    assert row["inverse"] == "pinv" and row["pinv_draws"] == 4
    assert all(math.isfinite(row[k]) for k in ("certificate", "lambda_min", "measured_test_mse"))


def test_one_draw_leaves_the_errors_blank(pool):
    K, labels = pool
    head, rows = DataTheoryRequest(K, labels, (20,), draws=1)().csv_table()
    row = dict(zip(head, rows[0]))
    assert row["measured_test_mse_sem"] == "" and row["certificate_sem"] == "" and rows[0][1] == "true"


@pytest.mark.parametrize("kwargs, match", [
    ({"n_values": (60,)}, r"n must be in \[1, 59\]"),
    ({"n_values": ()}, "at least one training size"),
    ({"n_values": (5, 5)}, "distinct"),
    ({"draws": 0}, r"draws must be in \[1, 1000\]"),
    ({"ridge": -1.0}, "ridge"),
    ({"seed": -1}, "seed"),
    ({"random_labels": "yes"}, "random_labels"),
    ({"labels": None}, "labels are required"),
    ({"labels": np.zeros(60, dtype=int)}, "at least 2 classes"),
    ({"labels": np.arange(59)}, r"one entry per Gram row \(60\)"),
    ({"gram": np.ones((3, 4))}, "square"),
    ({"gram": "K.txt"}, r"\.zarr store .* or a \.npy"),
    ({"gram": "missing.npy"}, "no such file"),
])
def test_data_theory_request_validates(pool, kwargs, match):
    K, labels = pool
    args = {"gram": K, "labels": labels, "n_values": (10,)}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        DataTheoryRequest(**args)


def test_training_size_is_checked_against_a_file_when_read(tmp_path, pool):
    K, labels = pool
    np.save(tmp_path / "K.npy", K)
    req = DataTheoryRequest(str(tmp_path / "K.npy"), labels, (60,))  # N unknown until read
    with pytest.raises(ValueError, match=r"n must be in \[1, 59\] \(below the pool size N = 60\)"):
        req()
