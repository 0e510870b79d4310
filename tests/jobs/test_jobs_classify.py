"""The Classification tab's job: splits, Wilson intervals and confusion matrices, against a
direct NumPy kernel ridge regression of each split."""
from __future__ import annotations

import numpy as np
import pytest

from ntkviz.core.deformations.digits import load_digits
from ntkviz.dataset._accuracy import wilson_interval
from ntkviz.jobs import ClassifyRequest

SETTINGS = dict(kernels=("pixels",), train_sizes=(20, 60), test_size=50, ridge=0.1, family="none")


def _direct(split: int, n: int, seed: int = 0, test_size: int = 50, ridge: float = 0.1):
    """Split ``split`` of the bundled digits by its definition (the last ``test_size`` of a seeded
    permutation: ``default_rng(seed)`` for split 0, ``default_rng([seed, split])`` otherwise), the
    first ``n`` training digits of ``default_rng(seed).permutation``, and KRR with the Gaussian
    pixel kernel (median-distance bandwidth) by a dense solve: (test labels, predictions)."""
    images, labels = load_digits()
    x = images.reshape(len(labels), -1).astype(float) / 255.0
    order = np.random.default_rng(seed if split == 0 else [seed, split]).permutation(len(labels))
    pool, test = order[:-test_size], order[-test_size:]
    train = pool[np.random.default_rng(seed).permutation(len(pool))[:n]]
    d2 = ((x[train][:, None, :] - x[train][None, :, :]) ** 2).sum(-1)
    h = np.median(np.sqrt(d2[np.triu_indices(n, 1)]))
    K = np.exp(-d2 / (2 * h * h))
    Kx = np.exp(-((x[test][:, None, :] - x[train][None, :, :]) ** 2).sum(-1) / (2 * h * h))
    classes = np.unique(labels[train])
    Y = (labels[train][:, None] == classes[None, :]).astype(float)
    scores = Kx @ np.linalg.solve(K + ridge * np.trace(K) / n * np.eye(n), Y)
    return labels[test], classes[np.argmax(scores, axis=1)]


@pytest.fixture(scope="module")
def three_splits():
    return ClassifyRequest(**SETTINGS, splits=3)()


def test_every_split_is_the_direct_regression(three_splits):
    rows = three_splits.result.rows
    assert [(r.split, r.train_size) for r in rows] == [(s, n) for s in range(3) for n in (20, 60)]
    for r in rows:
        truth, pred = _direct(r.split, r.train_size)
        correct = int(np.count_nonzero(pred == truth))
        assert r.accuracy == correct / 50 and r.n_test == 50
        assert (r.accuracy_ci_low, r.accuracy_ci_high) == wilson_interval(correct, 50)
        matrix = three_splits.result.confusion[(r.split, "pixels", r.train_size, 0.0)]
        direct = np.zeros((10, 10), dtype=int)
        for t, p in zip(truth, pred):
            direct[t, p] += 1
        np.testing.assert_array_equal(matrix, direct)


def test_split_zero_is_the_run_without_splits(three_splits):
    one = ClassifyRequest(**SETTINGS)()
    assert one.result.rows == tuple(r for r in three_splits.result.rows if r.split == 0)
    assert one.csv_table("train_size")[0][-3:] == ["n_test", "accuracy_ci_low", "accuracy_ci_high"]
    series = one.series("train_size")["pixels"]
    assert series.splits == 1
    assert series.low == tuple(r.accuracy_ci_low for r in one.result.rows)


def test_the_mean_over_splits_and_its_bars(three_splits):
    series = three_splits.series("train_size")["pixels"]
    assert series.x == (20.0, 60.0) and series.splits == 3
    for j, n in enumerate((20, 60)):
        acc = np.array([r.accuracy for r in three_splits.result.rows if r.train_size == n])
        sem = acc.std(ddof=1) / np.sqrt(3)
        assert series.accuracy[j] == pytest.approx(acc.mean(), rel=1e-14)
        assert series.low[j] == pytest.approx(acc.mean() - sem, rel=1e-12)
        assert series.high[j] == pytest.approx(acc.mean() + sem, rel=1e-12)
    header, rows = three_splits.csv_table("train_size")
    assert header[-2:] == ["split", "accuracy_sem"]
    from scipy import stats

    for n in (20, 60):  # the mean rows: Student-t interval of the three accuracies, within [0, 1]
        acc = np.array([r[4] for r in rows if r[1] == n and r[-2] != "mean"])
        (mean,) = [r for r in rows if r[1] == n and r[-2] == "mean"]
        lo, hi = stats.t.interval(0.95, 2, loc=acc.mean(), scale=acc.std(ddof=1) / np.sqrt(3))
        assert mean[8:10] == pytest.approx([max(lo, 0.0), min(hi, 1.0)], rel=1e-12)
    assert [r[-2] for r in rows] == [0, 0, 1, 1, 2, 2, "mean", "mean"]


def test_confusion_view_table(three_splits):
    header, rows = three_splits.csv_table("confusion")
    assert header == ["kernel", "train_size", "deformation", "amplitude", "n_test", "true_label",
                      "predicted_label", "count"]
    assert len(rows) == 100 and sum(r[-1] for r in rows) == 50
    truth, pred = _direct(0, 60)
    assert sum(r[-1] for r in rows if r[5] == r[6]) == np.count_nonzero(truth == pred)
    assert three_splits.confusion("pixels")[2:] == (60, 0.0)


def test_splits_are_checked():
    with pytest.raises(ValueError, match=r"splits must be in \[1, 100\], got 0"):
        ClassifyRequest(**SETTINGS, splits=0)
