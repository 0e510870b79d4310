"""Wilson intervals, means over splits and confusion matrices against independent routes."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.dataset._accuracy import WILSON_Z, confusion_matrix, mean_sem, t_interval, wilson_interval


def _score_test_roots(k: int, n: int, z: float) -> tuple[float, float]:
    """The Wilson interval by its definition: the p where the score statistic
    (p̂ - p)² / (p (1 - p) / n) equals z², i.e. the roots of the quadratic
    (1 + z²/n) p² - (2 p̂ + z²/n) p + p̂² = 0 (numpy's polynomial roots)."""
    ph = k / n
    roots = np.sort(np.roots([1 + z * z / n, -(2 * ph + z * z / n), ph * ph]).real)
    return max(0.0, roots[0]), min(1.0, roots[1])


@pytest.mark.parametrize("k, n", [(0, 10), (1, 10), (5, 10), (10, 10), (43, 50), (37, 200), (199, 200),
                                  (1, 1), (0, 1), (731, 1000)])
def test_wilson_interval_is_the_score_test_inversion(k, n):
    low, high = wilson_interval(k, n)
    want = _score_test_roots(k, n, WILSON_Z)
    assert (low, high) == pytest.approx(want, abs=1e-12)
    assert 0.0 <= low <= k / n <= high <= 1.0
    if k == 0:
        assert low == 0.0
    if k == n:
        assert high == 1.0


def test_wilson_interval_matches_scipy_binomtest():
    """An independent implementation: scipy.stats.binomtest(...).proportion_ci(method='wilson')."""
    stats = pytest.importorskip("scipy.stats")
    for k, n in [(0, 7), (3, 7), (7, 7), (41, 50), (120, 200), (500, 999)]:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(k, n) == pytest.approx((ci.low, ci.high), abs=1e-9)


def test_z_is_the_normal_quantile():
    from scipy.stats import norm

    assert WILSON_Z == pytest.approx(norm.ppf(0.975), abs=1e-15)


def test_wilson_coverage_by_monte_carlo():
    """Drawing k ~ Binomial(n, p) many times, the interval contains p about 95 % of the time
    (Brown, Cai & DasGupta 2001: close to nominal for these n)."""
    rng = np.random.default_rng(0)
    for p, n in [(0.8, 50), (0.92, 200)]:
        ks = rng.binomial(n, p, size=4000)
        inside = np.mean([wilson_interval(int(k), n)[0] <= p <= wilson_interval(int(k), n)[1] for k in ks])
        assert 0.92 <= inside <= 0.98, (p, n, inside)


@pytest.mark.parametrize("bad", [(-1, 10), (11, 10), (0, 0), (True, 2)])
def test_wilson_refuses_impossible_counts(bad):
    with pytest.raises(ValueError, match="0 <= correct <= total"):
        wilson_interval(*bad)


def test_mean_sem_and_t_interval():
    from scipy import stats

    values = [0.8, 0.74, 0.83, 0.79, 0.81]
    mean, sem = mean_sem(values)
    assert mean == pytest.approx(sum(values) / 5, rel=1e-15)
    assert sem == pytest.approx(math.sqrt(sum((v - mean) ** 2 for v in values) / 4) / math.sqrt(5), rel=1e-12)
    assert t_interval(values) == pytest.approx(stats.t.interval(0.95, 4, loc=mean, scale=sem), rel=1e-12)
    one_mean, one_sem = mean_sem([0.5])
    assert one_mean == 0.5 and math.isnan(one_sem)
    assert all(math.isnan(v) for v in t_interval([0.5]))


def test_confusion_matrix_is_a_direct_count():
    rng = np.random.default_rng(4)
    classes = np.array([0, 2, 3, 7, 9])
    true = rng.choice(classes, 300)
    pred = np.where(rng.random(300) < 0.7, true, rng.choice(classes, 300))
    got = confusion_matrix(true, pred, classes)
    want = np.zeros((5, 5), dtype=int)
    for t, p in zip(true, pred):
        want[list(classes).index(t), list(classes).index(p)] += 1
    np.testing.assert_array_equal(got, want)
    assert got.sum() == 300 and np.trace(got) == np.count_nonzero(true == pred)
    with pytest.raises(ValueError, match="not one of the classes"):
        confusion_matrix([1], [0], classes)


def test_mean_over_splits_keeps_the_interval_within_0_and_1():
    """Three splits at 0.2, 0.9, 1.0: the Student-t interval of their mean (scipy) reaches
    below 0 and above 1; the mean row keeps its part within [0, 1]."""
    from scipy import stats

    from ntkviz.dataset.classify import AccuracyRow, ClassifyResult

    values = [0.2, 0.9, 1.0]
    rows = tuple(AccuracyRow("pixels", 10, "none", 0.0, a, 10, 0, 10, 0.0, 1.0, split=s)
                 for s, a in enumerate(values))
    (mean,) = ClassifyResult(rows, tests=10, splits=3).mean_rows()
    lo, hi = stats.t.interval(0.95, 2, loc=np.mean(values), scale=np.std(values, ddof=1) / np.sqrt(3))
    assert lo < 0.0 and hi > 1.0  # the case in question
    assert (mean.accuracy_ci_low, mean.accuracy_ci_high) == (0.0, 1.0)
    assert mean.accuracy == pytest.approx(np.mean(values), rel=1e-15) and mean.split == "mean"
