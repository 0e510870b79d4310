"""Argument checks shared by the public core functions.

Errors are ``ValueError`` whose message names the argument and its allowed
range, so the CLI and the GUI status bar can show them verbatim.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

__all__ = ["check_int", "check_float", "check_choice", "check_cosines"]

#: how far outside [-1, 1] a cosine may be and still count as rounding error
COSINE_SLACK = 1e-12


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    """Return ``value`` as int, or raise ``ValueError`` naming ``name`` and ``[lo, hi]``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be {rng}, got {value}")
    return value


def check_float(name: str, value, lo: float = -math.inf, hi: float = math.inf) -> float:
    """Return ``value`` as a finite float in ``[lo, hi]``, or raise ``ValueError``."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(value) or value < lo or value > hi:
        raise ValueError(f"{name} must be a finite number in [{lo:g}, {hi:g}], got {value!r}")
    return value


def check_choice(name: str, value: str, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError`` listing them."""
    choices = tuple(choices)
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return value


def check_cosines(u, name: str = "u") -> np.ndarray:
    """Return cosines as a C-contiguous float64 array clipped to [-1, 1].

    Values outside [-1, 1] by at most ``COSINE_SLACK`` (rounding error) are
    clipped; anything further out, or NaN/inf, raises ``ValueError``.
    """
    arr = np.ascontiguousarray(np.asarray(u, dtype=np.float64))
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (found NaN or inf)")
    if arr.size and (arr.min() < -1 - COSINE_SLACK or arr.max() > 1 + COSINE_SLACK):
        raise ValueError(
            f"{name} must lie in [-1, 1] (cosines); got values in [{arr.min()!r}, {arr.max()!r}]"
        )
    return np.clip(arr, -1.0, 1.0)
