"""How sure an accuracy is: Wilson intervals, means over splits, confusion matrices.

A test accuracy ``p̂ = k / n`` counts ``k`` correct predictions among ``n`` test images.
With the classifier fixed, each test image drawn at random is right with probability
``p``, so ``k`` is binomial and the 95 % **Wilson score interval** (Wilson 1927; Brown, Cai &
DasGupta 2001 recommend it over the normal interval ``p̂ ± z √(p̂(1 − p̂)/n)``, which has
zero width at ``p̂ = 0`` or 1 and covers far less than 95 % for small ``n``) is

    centre = (p̂ + z²/(2n)) / (1 + z²/n),
    half   = z / (1 + z²/n) · √(p̂ (1 − p̂)/n + z²/(4n²)),

with ``z = Φ⁻¹(0.975) ≈ 1.96``: the set of ``p`` that a two-sided score test at level 5 %
does not reject. It accounts for the sampling of the **test set only**, not for the
randomness of the training set.

Repeating the random split ``K`` times gives accuracies ``a_1..a_K``; their mean and its
standard error ``s / √K`` (``s`` the sample standard deviation) include both sources, and
``mean ± t_{0.975, K−1} · s.e.`` is the Student-t 95 % interval of the mean.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["WILSON_Z", "wilson_interval", "mean_sem", "t_interval", "confusion_matrix"]

#: Φ⁻¹(0.975): the normal quantile of a two-sided 95 % interval
WILSON_Z = 1.959963984540054


def wilson_interval(correct: int, total: int, z: float = WILSON_Z) -> tuple[float, float]:
    """The Wilson score interval ``(low, high)`` of a proportion ``correct / total``
    (module docstring), clipped to [0, 1]; ``total`` must be >= 1."""
    if isinstance(correct, bool) or isinstance(total, bool) or total < 1 or not 0 <= correct <= total:
        raise ValueError(f"wilson_interval needs 0 <= correct <= total and total >= 1, got "
                         f"{correct} of {total}")
    p = correct / total
    z2 = z * z
    denom = 1.0 + z2 / total
    centre = (p + z2 / (2.0 * total)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / total + z2 / (4.0 * total * total))
    low = 0.0 if correct == 0 else max(0.0, centre - half)
    high = 1.0 if correct == total else min(1.0, centre + half)
    return low, high


def mean_sem(values) -> tuple[float, float]:
    """Mean and standard error ``s / √K`` (``s`` with K − 1 degrees of freedom) of ``K``
    values; the error is NaN for one value."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"mean_sem needs a non-empty list of numbers, got shape {arr.shape}")
    mean = float(arr.mean())
    sem = float(arr.std(ddof=1) / math.sqrt(arr.size)) if arr.size > 1 else math.nan
    return mean, sem


def t_interval(values, level: float = 0.95) -> tuple[float, float]:
    """``mean ± t_{(1+level)/2, K−1} · s.e.``: the Student-t interval of the mean of ``K >= 2``
    values (``(NaN, NaN)`` for one value)."""
    mean, sem = mean_sem(values)
    if not math.isfinite(sem):
        return math.nan, math.nan
    from scipy.stats import t as student_t

    half = float(student_t.ppf(0.5 + 0.5 * level, len(values) - 1)) * sem
    return mean - half, mean + half


def confusion_matrix(true_labels, predicted, classes) -> np.ndarray:
    """``M[i, j]`` = the number of test images of class ``classes[i]`` predicted as
    ``classes[j]`` (rows: true class, columns: prediction; int64). Every label must be
    one of ``classes`` (sorted, distinct)."""
    classes = np.asarray(classes)
    true_labels, predicted = np.asarray(true_labels), np.asarray(predicted)
    if true_labels.shape != predicted.shape or true_labels.ndim != 1:
        raise ValueError(f"true and predicted labels must be 1-D of one length, got shapes "
                         f"{true_labels.shape} and {predicted.shape}")
    c = classes.size
    if c == 0:
        raise ValueError("confusion_matrix needs at least one class")
    rows, cols = np.searchsorted(classes, true_labels), np.searchsorted(classes, predicted)
    if ((rows >= c) | (cols >= c)).any() or not (np.array_equal(classes[np.minimum(rows, c - 1)], true_labels)
                                                 and np.array_equal(classes[np.minimum(cols, c - 1)], predicted)):
        raise ValueError("confusion_matrix: a label is not one of the classes given")
    return np.bincount(rows * c + cols, minlength=c * c).reshape(c, c).astype(np.int64)
