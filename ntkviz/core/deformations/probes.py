"""Synthetic probe images whose deformations are known in closed form.

The Gabor probe is the image of the Fourier-modulus counterexample (Mallat 2012,
*Group invariant scattering*, §2): for ``x(u) = exp(i omega0 u - u^2 / 2)`` and the
dilation ``tau(u) = s u``, ``|| |x_tau^| - |x^| || >~ omega0 s``: the Fourier modulus is
translation invariant but not stable to small dilations of high-frequency content, while
the scattering transform moves by ``O(s)`` whatever ``omega0``.

ntkviz's probe is real (images are real)::

    x(u) = cos(omega0 <e, u - c>) exp(-|u - c|^2 / (2 sigma^2)),   e = (-sin a, cos a),

``c = ((H - 1) / 2, (W - 1) / 2)`` the image centre, ``u = (row, column)`` (rows down) and
``a`` the angle of the wave vector ``e`` counter-clockwise as displayed from the rightward
direction (``a = 0``: vertical stripes, the oscillation runs along each row). The default ``a = 22.5°`` keeps ``omega0 = pi``
below the Nyquist frequency on both axes (``pi cos 22.5° = 2.90``; at ``a = 0`` an even
width samples ``cos(pi (u2 - c2))`` at its zeros). Its spectrum is two Gaussian bumps of
width ``1 / sigma`` at ``+-omega0 e``; a dilation by ``s`` moves them by ``omega0 s``.

Values are exact samples of the continuous probe; :func:`gabor_image` also samples
``x(u - tau(u))`` for a displacement field ``tau`` (the warp ``L_tau x`` without the
interpolation error of a bilinear warp, which near ``omega0 = pi`` would exceed the
deformation's own effect).
"""
from __future__ import annotations

import math

import numpy as np

from ntkviz._check import check_float

__all__ = ["gabor_image", "deform_gabor", "GABOR_ANGLE_DEG", "OMEGA0_RANGE"]

#: default angle (degrees) of the probe's wave vector, counter-clockwise from rightward
GABOR_ANGLE_DEG = 22.5
#: accepted omega0 (radians per px): up to the Nyquist frequency pi times sqrt(2)
OMEGA0_RANGE = (0.0, math.pi * math.sqrt(2.0))


def gabor_image(shape=(28, 28), omega0: float = math.pi / 2, sigma: float | None = None,
                angle_deg: float = GABOR_ANGLE_DEG, tau=None) -> np.ndarray:
    """The Gabor probe of the module docstring, float64 ``(H, W)``, values in [-1, 1].

    Parameters
    ----------
    shape : (H, W), sides in [2, 4096].
    omega0 : wave number (radians per px) in [0, pi sqrt 2].
    sigma : envelope width (px) in [0.25, 1e3]; default ``min(H, W) / 8`` (the envelope is
        below 3.4e-4 at the nearest edge).
    angle_deg : angle of the wave vector, counter-clockwise from rightward, in [-360, 360].
    tau : optional displacement field ``(2, H, W)`` (px, components (down, right));
        the result is then ``x(u - tau(u))``, sampled exactly.
    """
    from ntkviz.core.deformations.deform import _check_tau, _grid, _shape

    h, w = _shape(shape)
    if min(h, w) < 2:
        raise ValueError(f"a Gabor probe needs at least 2 × 2 pixels, got {h}×{w}")
    omega0 = check_float("omega0", omega0, OMEGA0_RANGE)
    sigma = min(h, w) / 8.0 if sigma is None else check_float("sigma", sigma, (0.25, 1e3))
    a = math.radians(check_float("angle_deg", angle_deg, (-360.0, 360.0)))
    v1, v2 = _grid(h, w)
    if tau is not None:
        tau = _check_tau(tau, h, w)
        v1, v2 = v1 - tau[0], v2 - tau[1]
    phase = omega0 * (-math.sin(a) * v1 + math.cos(a) * v2)
    return np.cos(phase) * np.exp(-(v1 * v1 + v2 * v2) / (2.0 * sigma * sigma))


def deform_gabor(d, shape=(28, 28), omega0: float = math.pi / 2, sigma: float | None = None,
                 angle_deg: float = GABOR_ANGLE_DEG) -> tuple[np.ndarray, np.ndarray]:
    """``(L_tau x, tau)`` of the Gabor probe ``x`` (:func:`gabor_image`) under the deformation
    ``d`` (a :class:`~ntkviz.core.deformations.deform.Deformation`): as
    :func:`~ntkviz.core.deformations.deform.deform_image`, but the warp ``x(u - tau(u))`` is
    sampled exactly from the continuous probe (no bilinear interpolation); the
    Infinite-MNIST term, a first-order update and not a warp, is applied as there."""
    from ntkviz.core.deformations.deform import deform_image

    image = gabor_image(shape, omega0, sigma, angle_deg)
    return deform_image(image, d, check_input=False,
                        sample=lambda tau: gabor_image(shape, omega0, sigma, angle_deg, tau=tau))
