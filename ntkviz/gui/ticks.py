"""The text of axis ticks, in one style for every plot of ntkviz (Qt-free).

* Log axes read ``10ⁿ`` at the decades and ``m·10ⁿ`` between them
  (:func:`log_tick_strings`), never ``0.001`` beside ``10⁻⁵``.
* Linear axes read plain numbers while every tick lies in [10⁻³, 10⁶) in magnitude,
  with thin spaces between groups of three digits from 10⁴ on (``12 000``); beyond,
  every tick reads ``m·10ⁿ`` with its own exponent and a mantissa 1 ≤ m < 10
  (``2.5·10⁻⁴``, ``1.2·10⁷``): never a scale factor spread over the ticks
  (``0.1·10⁴ … 1.3·10⁴``).
* Angles read as multiples of π (:func:`angle_ticks`).
"""
from __future__ import annotations

import math

from ntkviz._text import superscript

__all__ = ["power_of_ten", "log_tick_strings", "linear_tick_strings", "angle_ticks", "pi_text",
           "THIN_SPACE", "PLAIN_RANGE"]

#: separator of digit groups in large plain numbers (U+2009 THIN SPACE)
THIN_SPACE = "\u2009"
#: magnitudes a linear tick is written as a plain number in (0 aside)
PLAIN_RANGE = (1e-3, 1e6)


def power_of_ten(exponent: int) -> str:
    """``10ⁿ`` with a Unicode superscript exponent (``10⁻⁵``, ``10⁰``, ``10¹²``)."""
    return "10" + superscript(str(int(exponent)))


def log_tick_strings(exponents) -> list[str]:
    """Labels of log-axis ticks at ``10**e``: ``10ⁿ`` at decades, ``m·10ⁿ`` between
    (one style for every tick: never ``1`` or ``0.001``)."""
    out = []
    for e in exponents:
        n = math.floor(float(e) + 1e-9)
        mantissa = 10.0 ** (float(e) - n)
        if abs(mantissa - round(mantissa)) < 1e-6:
            mantissa = round(mantissa)
        text = power_of_ten(n)
        out.append(text if mantissa == 1 else f"{mantissa:.3g}·{text}")
    return out


def _grouped(text: str) -> str:
    """``"12000.5"`` -> ``"12 000.5"`` (thin spaces) from 10⁴ on; shorter integers as they are."""
    sign, body = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, dot, frac = body.partition(".")
    if len(whole) <= 4:
        return text
    groups = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    return sign + THIN_SPACE.join(groups) + dot + frac


def _places(spacing: float, values=()) -> int:
    """Decimals that tell ticks ``spacing`` apart and write each of ``values`` exactly
    (a spacing of 2.5 needs one: 2.5, 5.0, 7.5)."""
    places = max(0, math.ceil(-math.log10(spacing) - 1e-9)) if spacing > 0 else 0
    for _ in range(4):
        if all(abs(round(v, places) - v) <= 1e-9 * max(1.0, abs(v)) for v in values):
            break
        places += 1
    return places


def _scientific(value: float, spacing: float) -> str:
    """``m·10ⁿ`` with 1 ≤ m < 10 and the decimals ``spacing`` needs at that decade,
    trailing zeros dropped."""
    n = math.floor(math.log10(abs(value)) + 1e-9)
    for _ in range(2):  # once more if rounding gave a mantissa of 10
        m = value / 10.0 ** n
        places = _places(spacing / 10.0 ** n, [m]) if spacing > 0 else 3
        mantissa = f"{m:.{places}f}"
        if abs(float(mantissa)) < 10:
            break
        n += 1
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}·{power_of_ten(n)}"


def linear_tick_strings(values, spacing: float) -> list[str]:
    """Labels of linear-axis ticks ``spacing`` apart, one style per axis.

    Plain numbers with the decimals the spacing needs (so ticks over a tiny range such
    as 1.6420388 … 1.6420392 stay distinct, with no offset and no ``·10⁰``), digit
    groups from 10⁴ on (``12 000``), while every tick is 0 or in :data:`PLAIN_RANGE` in
    magnitude; else ``0`` and ``m·10ⁿ`` per tick with 1 ≤ m < 10 (no common factor:
    ``0.1·10⁴`` never appears)."""
    values = [float(v) for v in values]
    spacing = abs(float(spacing))
    zero = 0.5 * spacing if spacing > 0 else 0.0
    big = [abs(v) for v in values if abs(v) > max(zero, 1e-300)]
    lo, hi = PLAIN_RANGE
    if all(lo <= a < hi for a in big) and (spacing >= lo or big):
        places = _places(spacing, values)
        return [_grouped(f"{v:.{places}f}") if abs(v) > zero else f"{0:.{places}f}"
                for v in values]
    return ["0" if abs(v) <= zero or v == 0 else _scientific(v, spacing) for v in values]


def _pi_text(numerator: int, denominator: int) -> str:
    """``numerator·π/denominator`` in lowest terms: ``0``, ``π``, ``−π/2``, ``3π/2``."""
    if numerator == 0:
        return "0"
    g = math.gcd(numerator, denominator)
    num, den = numerator // g, denominator // g
    sign = "−" if num < 0 else ""
    coef = "" if abs(num) == 1 else str(abs(num))
    return f"{sign}{coef}π" + (f"/{den}" if den != 1 else "")


def pi_text(numerator: int, denominator: int) -> str:
    """An angle ``numerator·π/denominator`` as an angle axis reads it (lowest terms)."""
    return _pi_text(numerator, denominator)


def angle_ticks(lo: float, hi: float) -> list[list[tuple[float, str]]]:
    """pyqtgraph tick levels for an angle axis in radians over ``[lo, hi]``: major ticks
    at multiples of π (or π/2 when fewer than three multiples of π are in range), minor
    ticks at multiples of π/4 (π/2 under π majors), all labelled in multiples of π."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [[], []]

    def multiples(denominator: int) -> list[int]:
        step = math.pi / denominator
        return list(range(math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9) + 1))

    major_den = 1
    while len(multiples(major_den)) < 3 and major_den < 8:
        major_den *= 2
    minor_den = 2 * major_den
    major = [(m * math.pi / major_den, _pi_text(m, major_den)) for m in multiples(major_den)]
    minor = [(m * math.pi / minor_den, _pi_text(m, minor_den)) for m in multiples(minor_den)
             if m % 2]
    return [major, minor]
