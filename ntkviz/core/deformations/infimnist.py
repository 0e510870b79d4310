"""Bottou's Infinite-MNIST deformations (Loosli, Canu & Bottou 2007): the index rule, the
tangent-vector deformation and the one-pixel moves, on arrays (no files).

Every Infinite-MNIST digit is named by an index ``i >= 0``. With ``n_test`` test digits,
``n_train`` training digits and ``n_fields`` stored random fields ``F_k`` (the real data:
10000, 60000 and 1522):

* ``i < n_test`` is test digit ``i``; ``n_test <= i < n_test + n_train`` is training digit
  ``i - n_test``; both unchanged;
* ``i >= n_test + n_train`` is training digit ``a = (i - n_test) mod n_train`` deformed
  by two fields, chosen from ``i`` with the 32-bit wrap-around of the original mnist8m
  generator::

      k1 = ((i mod 2^32) * 131071 mod 2^32) mod (n_fields - 1)
      k2 = (k1 + 1 + 2 i) mod n_fields
      s  = -1 if k1 + k2 is odd else +1
      x'(u) = x(u) + (s α) (F_k1(u) T_a,1(u) - F_k2(u) T_a,2(u))

  where ``x`` is the digit's uint8 image and ``T_a,1``, ``T_a,2`` its two stored tangent
  vectors. The arithmetic is IEEE single precision (float32) in exactly this order: the
  two products, their difference, times ``s α`` (``α`` rounded to float32), plus the
  pixel. The pixel is then 0 when ``x' < 0`` (or NaN), 255 when ``x' > 255`` and
  ``x'`` truncated toward zero otherwise;
* with ``translate``, the deformed digit is then moved by one pixel, move ``k1 mod 9``
  (:data:`MOVES`; move 8 leaves it in place). The moves are those of the reference
  generator, border behaviour included (:func:`pixel_moves`).

This module holds the pure array maths; reading the user's data folder (the MNIST IDX
files, ``fields_float_1522x28x28.bin`` and ``tangVec_float_60000x28x28.bin``) is
:mod:`ntkviz.dataset.infimnist`. A slow scalar transcription of the same rules is
``_reference.infimnist_digit`` (the tests compare both byte for byte).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntkviz import limits as _limits

__all__ = ["MOVES", "MAX_INDEX", "IndexPlan", "index_plan", "deform_pixels", "pixel_moves"]

#: the one-pixel moves of the ``translate`` option, by number (``k1 mod 9``)
MOVES = ("up", "down", "left", "right", "up-left", "up-right", "down-left", "down-right", "none")
#: the largest index (the rule's ``2 i`` must stay within a signed 64-bit integer)
MAX_INDEX = _limits.INFIMNIST_MAX_INDEX
#: the multiplier of the first field's number (the original generator's constant)
_FIELD_MULTIPLIER = 131071


@dataclass(frozen=True)
class IndexPlan:
    """What the index rule says about each index (arrays of one entry per index).

    ``row`` is the digit's position in the concatenation (test digits, then training
    digits); ``deformed`` marks the indexes ``>= n_test + n_train``; for those,
    ``k1``, ``k2`` (field numbers), ``sign`` (+1 or -1, the sign of ``α``) and ``move``
    (``k1 mod 9``, :data:`MOVES`) apply (they are computed for every index).
    """

    row: np.ndarray
    deformed: np.ndarray
    k1: np.ndarray
    k2: np.ndarray
    sign: np.ndarray
    move: np.ndarray


def index_plan(indexes, n_test: int, n_train: int, n_fields: int) -> IndexPlan:
    """Apply the index rule (module docstring) to ``indexes`` (integers in
    ``[0, MAX_INDEX]``); ``n_train >= 1``, ``n_fields >= 2`` (checked by the caller)."""
    i = np.asarray(indexes, dtype=np.int64).ravel()
    wrapped = (i.astype(np.uint64) & np.uint64(0xFFFFFFFF)) * np.uint64(_FIELD_MULTIPLIER)
    k1 = ((wrapped & np.uint64(0xFFFFFFFF)) % np.uint64(n_fields - 1)).astype(np.int64)
    k2 = (k1 + 1 + 2 * (i % n_fields)) % n_fields  # = (k1 + 1 + 2 i) mod n_fields, without overflow
    deformed = i >= n_test + n_train
    row = np.where(deformed, n_test + (i - n_test) % n_train, i)
    sign = np.where((k1 + k2) & 1, -1, 1).astype(np.int64)
    return IndexPlan(row=row, deformed=deformed, k1=k1, k2=k2, sign=sign, move=k1 % 9)


def deform_pixels(pixels: np.ndarray, field1: np.ndarray, tangent1: np.ndarray, field2: np.ndarray,
                  tangent2: np.ndarray, signed_alpha: np.ndarray) -> np.ndarray:
    """The deformed uint8 pixels ``x + (s α)(F1 T1 - F2 T2)`` (float32, this order), clipped
    to [0, 255] and truncated toward zero (NaN gives 0, as the reference on x86).

    ``pixels`` uint8 (N, P); the fields and tangents float32 (N, P), row ``n`` belonging
    to digit ``n``; ``signed_alpha`` float32 (N,) is ``s α`` per digit.
    """
    f32 = np.float32
    x = pixels.astype(f32)
    term = np.multiply(field1, tangent1, dtype=f32)
    term -= np.multiply(field2, tangent2, dtype=f32)
    term *= np.asarray(signed_alpha, dtype=f32)[:, None]
    x += term
    with np.errstate(invalid="ignore"):
        kept = x >= 0  # False for negative values and NaN: both give 0
        x = np.where(kept, np.minimum(x, f32(255)), f32(0))  # NaN would survive minimum: masked
    return x.astype(np.uint8)  # values in [0, 255]: truncation toward zero


def _move_up(flat: np.ndarray, w: int) -> np.ndarray:
    out = np.zeros_like(flat)
    out[:, :-w] = flat[:, w:]
    return out


def _move_down(flat: np.ndarray, w: int) -> np.ndarray:
    out = np.zeros_like(flat)
    out[:, w:] = flat[:, :-w]
    return out


def _move_left(flat: np.ndarray, w: int) -> np.ndarray:
    # pixel p takes pixel p + 1 (so a row's last pixel takes the next row's first), then the
    # first pixel of every row and the image's last pixel are cleared
    out = np.zeros_like(flat)
    out[:, :-1] = flat[:, 1:]
    out[:, ::w] = 0
    return out


def _move_right(flat: np.ndarray, w: int) -> np.ndarray:
    # pixel p takes pixel p - 1 (so a row's first pixel takes the previous row's last), then
    # the second pixel of every row and the image's first pixel are cleared
    out = np.zeros_like(flat)
    out[:, 1:] = flat[:, :-1]
    out[:, 1::w] = 0
    return out


_STEPS = {0: (_move_up,), 1: (_move_down,), 2: (_move_left,), 3: (_move_right,),
          4: (_move_up, _move_left), 5: (_move_up, _move_right), 6: (_move_down, _move_left),
          7: (_move_down, _move_right), 8: ()}


def pixel_moves(images: np.ndarray, moves) -> np.ndarray:
    """Move each image (N, H, W) by one pixel, move ``moves[n]`` of :data:`MOVES` (0..8).

    The moves are the reference generator's, written on the row-major pixel sequence:
    ``up`` and ``down`` shift whole rows (the row that comes in is blank); ``left`` gives
    pixel ``p`` the value of pixel ``p + 1`` and then clears the first column (and the
    last pixel); ``right`` gives pixel ``p`` the value of pixel ``p - 1`` and then clears
    the *second* column (and the first pixel); diagonal moves are ``up``/``down``
    followed by ``left``/``right``. On an image whose first two columns and last column
    are blank (every MNIST digit) ``left`` and ``right`` are exact one-pixel shifts; on
    others the first column receives the previous row's last pixel (``right``), or the
    last column the next row's first pixel (``left``), as in the reference. Any dtype;
    a new array is returned.
    """
    images = np.asarray(images)
    n, h, w = images.shape
    moves = np.asarray(moves, dtype=np.int64).ravel()
    out = images.reshape(n, h * w).copy()
    for move, steps in _STEPS.items():
        rows = np.flatnonzero(moves == move)
        if rows.size and steps:
            block = out[rows]
            for step in steps:
                block = step(block, w)
            out[rows] = block
    return out.reshape(n, h, w)
