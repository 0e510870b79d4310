"""Kernel ridge classification: closed forms, bandwidth, CV, and CKN/NTK beating pixels."""
from __future__ import annotations

import numpy as np
import pytest

from ntkviz.core.conv.architecture import Architecture, Layer
from ntkviz.core.deformations.digits import load_digits
from ntkviz.dataset.classify import (classify_iter, cv_ridge, deform_images, krr_predict, krr_scores,
                                     median_bandwidth, parse_deform, pixel_gram)


def test_krr_scores_closed_form():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    K = X @ X.T + np.eye(12)
    Y = rng.normal(size=(12, 2))
    Kx = rng.normal(size=(4, 12))
    lam = 0.3
    ref = Kx @ np.linalg.inv(K + lam * np.mean(np.diag(K)) * np.eye(12)) @ Y
    np.testing.assert_allclose(krr_scores(K, Y, Kx, lam), ref, rtol=1e-10)


def test_pixel_gram_and_bandwidth_by_loops():
    rng = np.random.default_rng(1)
    a, b = rng.random((5, 3, 3)), rng.random((4, 3, 3))
    h = 0.7
    ref = np.array([[np.exp(-np.sum((x - y) ** 2) / (2 * h * h)) for y in b] for x in a])
    np.testing.assert_allclose(pixel_gram(a, b, h), ref, rtol=1e-12)
    d = [np.linalg.norm(a[i] - a[j]) for i in range(5) for j in range(i + 1, 5)]
    assert median_bandwidth(a) == pytest.approx(np.median(d), rel=1e-12)


def test_separable_classes_and_cv():
    # two well separated clusters: any ridge classifies them; CV returns a grid value
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(-3, 0.3, (20, 2)), rng.normal(3, 0.3, (20, 2))])
    y = np.repeat([4, 7], 20)
    K = pixel_gram(x, x, 1.0)
    pred = krr_predict(K, y, pixel_gram(np.array([[-3.0, -3.0], [3.0, 3.0]]), x, 1.0), 1e-3)
    np.testing.assert_array_equal(pred, [4, 7])
    lam = cv_ridge(K, y)
    assert lam == 10.0  # all ridges are perfect: the largest is chosen


def test_parse_deform_and_identity():
    assert parse_deform("rotation:0,5,10") == ("rotation", (0.0, 5.0, 10.0))
    for bad, match in [("spin:1", "FAMILY one of"), ("rotation:", "at least one"),
                       ("rotation:a", "must be numbers"), ("rotation:400", r"\[-360, 360\]")]:
        with pytest.raises(ValueError, match=match):
            parse_deform(bad)
    x = np.random.default_rng(0).random((2, 6, 6))
    assert deform_images(x, "rotation", 0.0) is x
    y = deform_images(x, "rotation", 90.0)
    np.testing.assert_allclose(y[:, 1:-1, 1:-1], np.rot90(x, 1, axes=(1, 2))[:, 1:-1, 1:-1], atol=1e-9)


def test_conv_kernels_beat_pixels_on_bundled_digits():
    """100 training and 200 test digits (2x2-averaged to 14x14, a cheap two-layer net):
    CKN and NTK classify better than the Gaussian pixel kernel."""
    images, labels = load_digits()
    x = (images / 255.0).reshape(-1, 14, 2, 14, 2).mean(axis=(2, 4))
    order = np.random.default_rng(1).permutation(len(labels))
    tr, te = order[:100], order[100:300]
    arch = Architecture((Layer(3, 2, "gaussian", "relu"), Layer(3, 3, "gaussian", "relu")))
    item = None
    for item in classify_iter(x[tr], labels[tr], x[te], labels[te], arch, ("ckn", "ntk", "pixels"), (100,)):
        assert 0.0 <= item.fraction <= 1.0
    acc = {r[0]: r[4] for r in item.result.rows}
    assert acc["pixels"] > 0.5  # a sane baseline
    assert acc["ckn"] > acc["pixels"] + 0.03 and acc["ntk"] > acc["pixels"] + 0.03, acc


def test_scattering_kernel_is_the_gaussian_kernel_on_the_coefficients():
    """The ``scattering`` kernel: exp(-|S x - S y|^2 / (2 h^2)), h the median distance between
    the training coefficient vectors, written out with loops and a dense solve."""
    from ntkviz.core.scattering.transform import ScatteringParams, scattering_transform

    images, labels = load_digits()
    x = (images / 255.0).reshape(-1, 14, 2, 14, 2).mean(axis=(2, 4))
    order = np.random.default_rng(3).permutation(len(labels))
    tr, te = order[:30], order[30:50]
    params = ScatteringParams(J=1, L=4)
    item = None
    for item in classify_iter(x[tr], labels[tr], x[te], labels[te], None, ("scattering",), (30,), 0.1,
                              scattering=params):
        pass
    F = scattering_transform(x[tr], params).reshape(30, -1)
    G = scattering_transform(x[te], params).reshape(20, -1)
    h = np.median([np.linalg.norm(F[i] - F[j]) for i in range(30) for j in range(i + 1, 30)])
    K = np.array([[np.exp(-np.sum((a - b) ** 2) / (2 * h * h)) for b in F] for a in F])
    Kx = np.array([[np.exp(-np.sum((a - b) ** 2) / (2 * h * h)) for b in F] for a in G])
    classes = np.unique(labels[tr])
    Y = (labels[tr][:, None] == classes[None, :]).astype(float)
    scores = Kx @ np.linalg.solve(K + 0.1 * np.mean(np.diag(K)) * np.eye(30), Y)
    accuracy = np.mean(classes[np.argmax(scores, axis=1)] == labels[te])
    assert [tuple(r[:5]) for r in item.result.rows] == [("scattering", 30, "none", 0.0, accuracy)]


def test_scattering_beats_pixels_on_a_200_200_split():
    """The bundled digits, 200 training and 200 test digits, the same relative ridge 0.01: the
    Gaussian kernel on the scattering coefficients (J = 2, L = 8) beats it on pixels by >= 0.02."""
    from ntkviz.jobs import ClassifyRequest

    response = ClassifyRequest(kernels=("pixels", "scattering"), train_sizes=(200,), test_size=200, ridge=0.01,
                               family="none")()
    acc = {r[0]: r[4] for r in response.result.rows}
    assert acc["pixels"] > 0.6 and acc["scattering"] >= acc["pixels"] + 0.02, acc
