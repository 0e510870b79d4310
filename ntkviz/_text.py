"""Text helpers shared by every layer. Lists of numbers typed by a user (command-line
options, text fields of the app): one parser and one message for all of them; exponents
written as Unicode superscripts (axis ticks, legends). Standard library only (no Qt, no
numerics), so the command line, the dataset layer, the models and the views can all use it."""
from __future__ import annotations

import math

__all__ = ["number_list", "superscript"]

_SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")


def superscript(text) -> str:
    """The digits and signs of ``text`` as Unicode superscripts (``-39`` -> ``⁻³⁹``)."""
    return str(text).translate(_SUPERSCRIPT)


def number_list(name: str, text: str, kind: type = int) -> tuple:
    """``"3, 5"`` -> ``(3, 5)``: the comma-separated values of ``text`` as ``kind`` (``int``
    or ``float``); blank text gives ``()``. An empty entry (``"3,,5"``), a value that is not
    a ``kind`` or a non-finite float raises ``ValueError("<name> must be integers (or
    numbers) separated by commas, got '<text>'")``. Ranges are the caller's to check."""
    text = str(text)
    if not text.strip():
        return ()
    values = []
    for token in text.split(","):
        try:
            value = kind(token.strip())
        except ValueError:
            value = None
        if value is None or (kind is float and not math.isfinite(value)):
            what = "integers" if kind is int else "numbers"
            raise ValueError(f"{name} must be {what} separated by commas, got {text!r}")
        values.append(value)
    return tuple(values)
