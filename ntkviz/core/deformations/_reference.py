"""Slow, obvious references of the deformation maths, for the tests.

:func:`infimnist_digit` transcribes the Infinite-MNIST rules one index and one pixel at a
time, with NumPy float32 scalars for the arithmetic and plain Python integers (wrapped
by hand to 32 bits) for the index rule; the row-major moves are written as the original
generator's loops over the pixel sequence.
"""
from __future__ import annotations

import math

import numpy as np


def _move(c: list, move: int, w: int) -> list:
    """One of the nine moves, as the reference's in-place loops over the pixel list ``c``."""
    e = len(c)
    if move == 0:
        for i in range(e - w):
            c[i] = c[i + w]
        for i in range(e - w, e):
            c[i] = 0
    elif move == 1:
        for i in range(e - 1, w - 1, -1):
            c[i] = c[i - w]
        for i in range(w - 1, -1, -1):
            c[i] = 0
    elif move == 2:
        for i in range(e - 1):
            c[i] = 0 if i % w == 0 else c[i + 1]
        c[e - 1] = 0
    elif move == 3:
        for i in range(e - 1, 0, -1):
            c[i] = 0 if (i - 1) % w == 0 else c[i - 1]
        c[0] = 0
    elif move in (4, 5, 6, 7):
        c = _move(c, 0 if move in (4, 5) else 1, w)
        c = _move(c, 2 if move in (4, 6) else 3, w)
    return c


def infimnist_digit(test_images, test_labels, train_images, train_labels, fields, tangents,
                    index: int, alpha: float, translate: bool) -> tuple[np.ndarray, int]:
    """``(image uint8 (H, W), label)`` of Infinite-MNIST digit ``index``.

    ``test_images`` / ``train_images`` uint8 (n, H, W), labels (n,), ``fields`` float32
    (n_fields, H, W), ``tangents`` float32 (2 n_train, H, W) (the two tangent vectors of
    training digit ``a`` are rows ``2a`` and ``2a + 1``).
    """
    n_test, n_train, n_fields = len(test_images), len(train_images), len(fields)
    h, w = train_images.shape[1:]
    if index < n_test:
        return np.array(test_images[index], np.uint8), int(test_labels[index])
    if index < n_test + n_train:
        return np.array(train_images[index - n_test], np.uint8), int(train_labels[index - n_test])
    k1 = (((index % 2**32) * 131071) % 2**32) % (n_fields - 1)
    k2 = (k1 + 1 + 2 * index) % n_fields
    a = (index - n_test) % n_train
    al = np.float32(alpha)
    if (k1 + k2) & 1:
        al = -al
    x0 = train_images[a].ravel()
    f1, f2 = fields[k1].ravel(), fields[k2].ravel()
    t1, t2 = tangents[2 * a].ravel(), tangents[2 * a + 1].ravel()
    c = []
    for j in range(h * w):
        p = np.float32(f1[j]) * np.float32(t1[j])
        q = np.float32(f2[j]) * np.float32(t2[j])
        x = np.float32(x0[j]) + al * (p - q)
        assert type(x) is np.float32
        if x < 0:
            c.append(0)
        elif x > 255:
            c.append(255)
        elif math.isnan(x):
            c.append(0)  # x86: (int)NaN is INT_MIN, whose low byte is 0
        else:
            c.append(int(x))  # truncation toward zero
    if translate:
        c = _move(c, k1 % 9, w)
    return np.array(c, np.uint8).reshape(h, w), int(train_labels[a])

