"""Where a panel's image comes from: the pieces the deformation editor and the Scattering tab
share (standard library only at import).

* ``--image gabor:omega0=W``: the Gabor probe instead of a file (:func:`gabor_option`);
  ``W`` (and every angle-like number of a model option) may be written as a number or as a
  multiple of pi, ``pi/4``, ``3pi/4``, ``2*pi`` (:func:`radians_value`);
* :func:`check_pixels`: the check of a session's ``user_pixels`` (rows of grey values in
  [0, 1], not blank); :func:`checked_source`: the rules tying ``source``, ``user_pixels`` and
  ``gabor_omega0`` together; :func:`gabor_caption`: the probe's one-line description.
"""
from __future__ import annotations

import math
import re

__all__ = ["GABOR_PREFIX", "SOURCES", "radians_value", "radians_list", "gabor_option",
           "check_pixels", "checked_source", "gabor_caption", "BLANK_LEVEL"]

#: ``--image gabor:omega0=W``: the Gabor probe instead of a file
GABOR_PREFIX = "gabor:"
#: where a panel's image comes from: a bundled digit, the user's image, the Gabor probe
SOURCES = ("digit", "image", "gabor")
#: an image whose pixels are all below this is blank (= ntkviz.core.deformations.digits.BLANK_LEVEL)
BLANK_LEVEL = 1e-3
_PI = re.compile(r"^\s*([0-9]*\.?[0-9]*)\s*\*?\s*(?:pi|π)\s*(?:/\s*([0-9]*\.?[0-9]+))?\s*$")


def radians_value(flag: str, text: str) -> float:
    """``text`` as a finite number: ``1.57``, or a multiple of pi: ``pi``, ``pi/4``, ``3pi/4``,
    ``2*pi``, ``0.5π``; ``ValueError`` naming ``flag`` otherwise."""
    m = _PI.match(text)
    if m:
        factor = float(m.group(1)) if m.group(1) not in ("", ".") else 1.0
        divisor = float(m.group(2)) if m.group(2) else 1.0
        if divisor > 0:
            return factor * math.pi / divisor
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ValueError(f"{flag} must be a number of radians per pixel (e.g. 1.57 or pi/2), "
                         f"got {text!r}")
    return value


def radians_list(flag: str, text: str) -> tuple[float, ...]:
    """Comma-separated :func:`radians_value` items (``pi/4,pi/2,pi``)."""
    items = text.split(",")
    if not text.strip() or any(not t.strip() for t in items):
        raise ValueError(f"{flag} must be numbers separated by commas (e.g. pi/4,pi/2,pi), got {text!r}")
    return tuple(radians_value(flag, t.strip()) for t in items)


def gabor_option(flag: str, text: str) -> float:
    """``W`` of ``--image gabor:omega0=W`` (the text after the prefix); the range is the
    model's to check."""
    key, sep, value = text.partition("=")
    if key.strip() != "omega0" or not sep:
        raise ValueError(f"{flag} {GABOR_PREFIX}omega0=W takes the Gabor probe's wave number W in "
                         f"radians per pixel (e.g. {GABOR_PREFIX}omega0=pi/2), got "
                         f"{GABOR_PREFIX}{text!r}")
    return radians_value(f"{flag} {GABOR_PREFIX}omega0", value.strip())


def gabor_caption(omega0: float, side: int, angle_deg: float) -> str:
    """The Gabor probe ``x(u) = cos(ω₀ ⟨e, u − c⟩) exp(−|u − c|²/(2σ²))`` on a ``side × side``
    grid (``c`` its centre, ``σ = side/8``, wave vector ``e`` at ``angle_deg``), in one line."""
    return (f"Gabor probe ω₀ = {omega0:.4g} rad/px ({side}×{side} px, σ = {side / 8:g} px, "
            f"at {angle_deg:g}°)")


def check_pixels(pixels, shape: tuple | None = None, max_side: int = 4096) -> tuple[int, int]:
    """``(H, W)`` of ``pixels``: rows (tuples) of equal length of grey values in [0, 1], of
    ``shape`` if given (else each side in [1, max_side]), not blank; ``ValueError`` naming
    ``user_pixels`` otherwise."""
    want = f"{shape[0]} rows of {shape[1]} grey values" if shape else \
        f"rows of grey values of one length, at most {max_side} × {max_side}"
    if not isinstance(pixels, tuple) or not pixels or any(not isinstance(r, tuple) for r in pixels):
        raise ValueError(f"user_pixels must be {want} (a prepared image)")
    h, w = len(pixels), len(pixels[0])
    if any(len(r) != w for r in pixels) or (shape and (h, w) != tuple(shape)) or \
            not (1 <= h <= max_side and 1 <= w <= max_side):
        raise ValueError(f"user_pixels must be {want} (a prepared image), got {h} rows of "
                         f"{w if all(len(r) == w for r in pixels) else 'unequal'} values")
    bad = [v for row in pixels for v in row
           if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0]
    if bad:
        raise ValueError(f"user_pixels must be numbers in [0, 1], got {bad[0]!r}")
    if max(max(row) for row in pixels) < BLANK_LEVEL:
        raise ValueError(f"user_pixels is blank (all values below {BLANK_LEVEL:g}): nothing to show")
    return h, w


def checked_source(params, omega0_range: tuple, shape: tuple | None = None,
                   max_side: int = 4096) -> None:
    """Check (and normalise, in the frozen ``params``) ``source``, ``user_pixels`` and
    ``gabor_omega0``: ``source`` one of :data:`SOURCES`; ``user_pixels`` checked by
    :func:`check_pixels` and present exactly for ``"image"`` (pixels given with the default
    ``"digit"`` mean the image: a session of an earlier version); ``gabor_omega0`` in
    ``omega0_range`` (a float)."""
    from ntkviz._check import check_choice, check_float

    check_choice("source", params.source, SOURCES)
    if params.user_pixels is not None:
        check_pixels(params.user_pixels, shape, max_side)
        if params.source == "digit":
            object.__setattr__(params, "source", "image")
    if params.source == "image" and params.user_pixels is None:
        raise ValueError("source 'image' needs user_pixels (your image); open one first")
    if params.source == "gabor" and params.user_pixels is not None:
        raise ValueError("user_pixels must be empty for the Gabor probe (source 'gabor')")
    object.__setattr__(params, "gabor_omega0", check_float("gabor_omega0", params.gabor_omega0,
                                                           omega0_range))
