"""The argument checks of every layer: one family, one message form.

``check_int``, ``check_float``, ``check_bool`` and ``check_choice`` return the value in its
normalised type (``int``, ``float``, ``bool``, the choice itself) or raise ``ValueError``
with one line naming the argument, what is wrong and the allowed range, e.g.
``depth must be in [2, 50], got 99``, so the command line, the app's message bar and a
library caller show it verbatim. The ranges are inclusive ``(low, high)`` pairs, from the
one range table :mod:`ntkviz.limits` (``high`` may be ``None``: no upper bound).

Standard library only (NumPy scalars are recognised through :mod:`numbers`), so the
numeric core, the requests, the parameter models and the command line all use it without
loading numba, NumPy or Qt.
"""
from __future__ import annotations

import math
import numbers
from typing import Iterable

__all__ = ["check_int", "check_float", "check_bool", "check_choice", "shown"]


def shown(value) -> str:
    """``repr(value)`` cut to 24 characters (a 400-digit number stays one short line)."""
    try:
        text = repr(value)
    except ValueError:  # an int beyond Python's digit limit for str()
        text = f"about 10^{int(value.bit_length() * 0.30103)}"
    return text if len(text) <= 24 else text[:21] + "…"


def _range(lo, hi, fmt: str = "") -> str:
    if hi is None:
        return f">= {lo:{fmt}}"
    return f"in [{lo:{fmt}}, {hi:{fmt}}]"


def check_int(name: str, value, bounds: tuple) -> int:
    """``value`` as an ``int`` within ``bounds = (lo, hi)`` (``hi`` None: unbounded).

    Accepts Python and NumPy integers and integral floats (``3.0``); refuses booleans,
    fractions, NaN and everything else with ``"<name> must be an integer in [lo, hi], got
    …"``, and integers outside the range with ``"<name> must be in [lo, hi], got …"``."""
    lo, hi = bounds
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if (isinstance(value, numbers.Real) and not isinstance(value, bool)
                and math.isfinite(value) and float(value).is_integer()):
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer {_range(lo, hi)}, got {shown(value)}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name} must be {_range(lo, hi)}, got {shown(value)}")
    return value


def check_float(name: str, value, bounds: tuple) -> float:
    """``value`` as a finite ``float`` within ``bounds = (lo, hi)`` (``hi`` None: unbounded).

    Refuses booleans, strings and other non-numbers with ``"<name> must be a number in
    [lo, hi], got …"``, and NaN, ±inf or values outside the range with ``"<name> must be
    in [lo, hi], got …"`` (the ends written with ``:g``)."""
    lo, hi = bounds
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number {_range(lo, hi, 'g')}, got {shown(value)}")
    try:
        out = float(value)
    except OverflowError:  # an int beyond the float64 range
        out = math.inf if value > 0 else -math.inf
    if not (math.isfinite(out) and out >= lo and (hi is None or out <= hi)):
        raise ValueError(f"{name} must be {_range(lo, hi, 'g')}, got {shown(value)}")
    return out


def check_bool(name: str, value) -> bool:
    """``value`` as a ``bool`` (Python or NumPy booleans), else ``"<name> must be true or
    false, got …"``."""
    if isinstance(value, bool):
        return value
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool"):
        return bool(value)
    raise ValueError(f"{name} must be true or false, got {shown(value)}")


def check_choice(name: str, value, choices: Iterable):
    """``value`` if it is one of ``choices``, else ``"<name> must be one of a, b, got …"``."""
    choices = tuple(choices)
    try:
        known = value in choices
    except TypeError:  # e.g. an unhashable value compared with strings
        known = False
    if not known:
        raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}, got {shown(value)}")
    return value
