"""The Infinite-MNIST arithmetic and moves against scalar float32 transcriptions."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.deformations import _reference
from ntkviz.core.deformations.infimnist import deform_pixels, index_plan, pixel_moves


def _scalar(x, f1, t1, f2, t2, sa) -> int:
    f = np.float32
    v = f(x) + f(sa) * (f(f1) * f(t1) - f(f2) * f(t2))
    if v < 0 or math.isnan(v):
        return 0
    return 255 if v > 255 else int(v)


def test_deform_pixels_is_float32_where_float64_would_differ():
    """Pixels chosen where the float64 result truncates to another byte than the float32
    one: the vectorised arithmetic must agree with the scalar float32 one on every pixel."""
    rng = np.random.default_rng(0)
    n = 2_000_000
    x = rng.integers(0, 256, n).astype(np.uint8)
    f1, f2 = rng.standard_normal((2, n)).astype(np.float32)
    t1, t2 = (60 * rng.standard_normal((2, n))).astype(np.float32)
    sa = rng.choice(np.array([0.5, 1.0, 3.0, -1.0, -3.0], np.float32), n)
    v64 = x + sa.astype(np.float64) * (f1.astype(np.float64) * t1 - f2.astype(np.float64) * t2)
    v32 = x.astype(np.float32) + sa * (f1 * t1 - f2 * t2)   # only to find candidates
    b64, b32 = (np.trunc(np.clip(v, 0, 255)) for v in (v64, v32))
    pick = np.concatenate([np.flatnonzero(b64 != b32), np.arange(3000)])
    expected = np.array([_scalar(x[k], f1[k], t1[k], f2[k], t2[k], sa[k]) for k in pick], np.uint8)
    assert np.count_nonzero(expected != b64[pick]) >= 10  # float64 arithmetic fails on these
    got = deform_pixels(x[pick][:, None], f1[pick][:, None], t1[pick][:, None], f2[pick][:, None],
                        t2[pick][:, None], sa[pick])[:, 0]
    np.testing.assert_array_equal(got, expected)


def test_deform_pixels_nan_and_infinity():
    f = np.float32
    x = np.array([[10, 10, 10, 10]], np.uint8)
    got = deform_pixels(x, np.array([[np.nan, np.inf, -np.inf, 0]], f), np.ones((1, 4), f),
                        np.zeros((1, 4), f), np.ones((1, 4), f), np.array([1.0], f))
    np.testing.assert_array_equal(got, [[0, 255, 0, 10]])


@pytest.mark.parametrize("shape", [(28, 28), (6, 5), (3, 9)])
def test_pixel_moves_match_the_reference_loops(shape):
    rng = np.random.default_rng(1)
    images = rng.integers(1, 256, (18, *shape)).astype(np.uint8)  # no blank border: the quirks show
    moves = np.arange(18) % 9
    got = pixel_moves(images, moves)
    for k in range(18):
        ref = _reference._move(images[k].ravel().tolist(), int(moves[k]), shape[1])
        np.testing.assert_array_equal(got[k].ravel(), ref, err_msg=f"move {moves[k]}")
    np.testing.assert_array_equal(got[moves == 8], images[moves == 8])
    floats = pixel_moves(images.astype(np.float64) / 255, moves)   # any dtype
    np.testing.assert_array_equal(floats, got / 255)


def test_index_rule_against_python_integers():
    idx = np.array([0, 69999, 70000, 70001, 123456789, 2**32 - 1, 2**32, 2**32 + 5, 2**40 + 3, 2**62 - 1])
    plan = index_plan(idx, 10000, 60000, 1522)
    for k, i in enumerate(int(v) for v in idx):
        k1 = ((i % 2**32) * 131071 % 2**32) % 1521
        k2 = (k1 + 1 + 2 * i) % 1522
        assert (plan.k1[k], plan.k2[k], plan.move[k]) == (k1, k2, k1 % 9)
        assert plan.sign[k] == (-1 if (k1 + k2) % 2 else 1)
        assert plan.deformed[k] == (i >= 70000)
        assert plan.row[k] == (i if i < 70000 else 10000 + (i - 10000) % 60000)
