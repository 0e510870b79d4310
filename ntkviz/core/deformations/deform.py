"""Image deformations: displacement fields, the warp L_tau, and their size.

Conventions
-----------
* Pixel coordinates ``u = (u1, u2) = (row, column)``: row 0 at the top, ``u1``
  points **down**, ``u2`` points **right**. A displacement field ``tau`` has
  shape ``(2, H, W)``: ``tau[0]`` is the downward and ``tau[1]`` the rightward
  component, in pixels.
* The warp is ``L_tau x(u) = x(u - tau(u))`` (Bietti & Mairal 2019, §4),
  evaluated by bilinear interpolation (``scipy.ndimage.map_coordinates``,
  order 1) with zero fill outside the image. Hence content moves **along**
  tau: a constant ``tau = (0, +3)`` (``translate_x = 3``) moves the digit 3 px
  to the right, ``translate_y > 0`` moves it down.
* Rotation, scaling and shear act about the image centre ``((H-1)/2, (W-1)/2)``;
  ``rotation_deg > 0`` turns the content counter-clockwise as displayed
  (rows down); ``scale > 1`` enlarges it; ``shear = k`` moves row ``r`` by
  ``k (r - centre)`` px to the right. For a linear content map ``A`` the field
  is ``tau(u) = (I - A^-1)(u - centre)``, so a rotation by ``theta`` has
  ``||grad tau||_inf = 2 |sin(theta/2)|``.
* **Composition inside one** :class:`Deformation`: the fields of its terms are
  **summed** (translation + rotation + scale + shear + smooth field), which is
  first-order composition. To compose warps exactly, use
  :func:`compose_fields` (``tau = tau2 + tau1(u - tau2(u))`` gives
  ``L_tau = L_tau2 L_tau1``).
* Smooth random field: each component is white noise filtered by a
  Gaussian of standard deviation ``smooth_length`` px (zero padding at the
  border); both components are then scaled together so that the largest
  component magnitude equals ``smooth_amplitude`` px.
* Infinite-MNIST style deformation (Loosli, Canu & Bottou 2007), with our
  own smooth fields ``F1, F2`` (max |F| = 1, length 4 px, seed
  ``infimnist_seed``) instead of Bottou's data files:
  ``x' = clip(x + alpha (F1 d x/d u1 - F2 d x/d u2))`` with ``np.gradient``
  derivatives, clipped to ``[min(0, min x), max(1, max x)]`` (the uint8 clip
  of the original, for images in [0, 1]). It is the first-order form of
  ``L_tau x`` with ``tau = (-alpha F1, +alpha F2)``, the field reported for the
  read-outs. It is applied after the warp of the other terms.
* Sizes: ``||tau||_inf`` is the largest Euclidean length
  ``|tau(u)|`` (px); ``||grad tau||_inf`` is the largest per-pixel operator
  norm of the ``np.gradient`` Jacobian (dimensionless).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ntkviz import limits as _limits
from ntkviz._check import check_float, check_int


def _ndimage():
    """``scipy.ndimage``, imported on first use (so :class:`Deformation` is light to import)."""
    from scipy import ndimage

    return ndimage

__all__ = [
    "Deformation",
    "DEFORMATION_FIELDS",
    "INFIMNIST_FIELD_LENGTH",
    "displacement_field",
    "smooth_field",
    "infimnist_fields",
    "warp",
    "deform_image",
    "compose_fields",
    "tau_sup_norm",
    "jacobian_sup_norm",
    "dilation",
    "DILATION_MAX",
]

#: correlation length (px) of the two smooth fields of the Infinite-MNIST style deformation
INFIMNIST_FIELD_LENGTH = 4.0
#: the largest dilation s of :func:`dilation` (its scale 1 / (1 - s) reaches the scale limit 20)
DILATION_MAX = _limits.DILATION_RANGE[1]
#: (field, allowed range, integer) of every :class:`Deformation` field, from ``ntkviz.limits``
DEFORMATION_FIELDS = (
    ("translate_x", _limits.TRANSLATE_RANGE, False),
    ("translate_y", _limits.TRANSLATE_RANGE, False),
    ("rotation_deg", _limits.ROTATION_RANGE, False),
    ("scale", _limits.SCALE_RANGE, False),
    ("shear", _limits.SHEAR_RANGE, False),
    ("smooth_amplitude", _limits.SMOOTH_AMPLITUDE_RANGE, False),
    ("smooth_length", _limits.SMOOTH_LENGTH_RANGE, False),
    ("smooth_seed", _limits.SEED_RANGE, True),
    ("infimnist_alpha", _limits.INFIMNIST_ALPHA_RANGE, False),
    ("infimnist_seed", _limits.SEED_RANGE, True),
)


@dataclass(frozen=True)
class Deformation:
    """Parameters of a deformation (see the module docstring for conventions).

    translate_x, translate_y : px, +right / +down.
    rotation_deg : degrees, counter-clockwise as displayed, about the centre.
    scale : content magnification about the centre (> 0).
    shear : horizontal shear factor (px per row from the centre).
    smooth_amplitude, smooth_length, smooth_seed : smooth random field (px, px, seed).
    infimnist_alpha, infimnist_seed : first-order Infinite-MNIST style deformation.

    Valid by construction: every field is checked against its range in
    :data:`DEFORMATION_FIELDS` (``ValueError`` naming the field and the range) and stored as
    a ``float`` (seeds as ``int``), so a ``Deformation`` is never checked again.
    """

    translate_x: float = 0.0
    translate_y: float = 0.0
    rotation_deg: float = 0.0
    scale: float = 1.0
    shear: float = 0.0
    smooth_amplitude: float = 0.0
    smooth_length: float = 4.0
    smooth_seed: int = 0
    infimnist_alpha: float = 0.0
    infimnist_seed: int = 0

    def __post_init__(self):
        for name, bounds, integer in DEFORMATION_FIELDS:
            value = (check_int if integer else check_float)(name, getattr(self, name), bounds)
            object.__setattr__(self, name, value)

    @property
    def is_identity(self) -> bool:
        """True when every term is inactive (the deformed image equals the original)."""
        return self.affine_matrix() is None and self.translate_x == 0 and self.translate_y == 0 \
            and self.smooth_amplitude == 0 and self.infimnist_alpha == 0

    def affine_matrix(self) -> np.ndarray | None:
        """The linear content map ``A`` (rotation @ scale @ shear) in (down, right) coordinates, or None."""
        if self.rotation_deg == 0 and self.scale == 1 and self.shear == 0:
            return None
        th = math.radians(self.rotation_deg)
        # counter-clockwise on screen, written in (down, right) coordinates:
        # (0, 1) (right of the centre) goes to (-1, 0) (above it) for th = 90 deg
        rot = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
        shear = np.array([[1.0, 0.0], [self.shear, 1.0]])
        return rot @ (self.scale * np.eye(2)) @ shear


def dilation(s: float) -> Deformation:
    """The dilation ``tau(u) = s (u - centre)`` (``||grad tau||_inf = s``), ``s`` in [0, 0.95].

    ``L_tau x(u) = x((1 - s)(u - centre) + centre)``: content magnified by ``1 / (1 - s)``
    about the image centre, i.e. ``Deformation(scale=1 / (1 - s))`` (the deformation of
    the Fourier-modulus counterexample, Mallat 2012).
    """
    s = check_float("dilation s", s, _limits.DILATION_RANGE)
    return Deformation(scale=1.0 / (1.0 - s))


def _shape(shape) -> tuple[int, int]:
    shape = tuple(int(v) for v in shape)
    if len(shape) < 2:
        raise ValueError(f"shape must be (H, W) or (H, W, C), got {shape}")
    h = check_int("image height", shape[0], _limits.GRID_SIDE_RANGE)
    w = check_int("image width", shape[1], _limits.GRID_SIDE_RANGE)
    return h, w


def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates relative to the centre, (down, right), each (H, W)."""
    r = np.arange(h, dtype=np.float64) - (h - 1) / 2.0
    c = np.arange(w, dtype=np.float64) - (w - 1) / 2.0
    return np.meshgrid(r, c, indexing="ij")


def smooth_field(shape, length: float, seed: int, components: int = 2) -> np.ndarray:
    """Smooth random field ``(components, H, W)``, largest component magnitude 1.

    White noise (``np.random.default_rng(seed)``) filtered by a Gaussian of
    standard deviation ``length`` px with zero padding; all components are
    scaled by one common factor.
    """
    h, w = _shape(shape)
    length = check_float("smooth_length", length, _limits.SMOOTH_LENGTH_RANGE)
    rng = np.random.default_rng(check_int("seed", seed, _limits.SEED_RANGE))
    noise = rng.standard_normal((components, h, w))
    out = np.stack([_ndimage().gaussian_filter(n, length, mode="constant") for n in noise])
    peak = np.abs(out).max()
    return out / peak if peak > 0 else out


def infimnist_fields(shape, seed: int) -> np.ndarray:
    """The two smooth scalar fields ``(F1, F2)`` of the Infinite-MNIST style deformation."""
    return smooth_field(shape, INFIMNIST_FIELD_LENGTH, seed ^ 0x5EED5EED, components=2)


def _warp_field(d: Deformation, h: int, w: int) -> np.ndarray:
    tau = np.zeros((2, h, w))
    tau[0] += d.translate_y
    tau[1] += d.translate_x
    A = d.affine_matrix()
    if A is not None:
        rr, cc = _grid(h, w)
        M = np.eye(2) - np.linalg.inv(A)
        tau[0] += M[0, 0] * rr + M[0, 1] * cc
        tau[1] += M[1, 0] * rr + M[1, 1] * cc
    if d.smooth_amplitude != 0:
        tau += d.smooth_amplitude * smooth_field((h, w), d.smooth_length, d.smooth_seed)
    return tau


def displacement_field(d: Deformation, shape) -> np.ndarray:
    """The displacement field ``tau`` (2, H, W) in px, components (down, right).

    Sum of the fields of all terms; the Infinite-MNIST term contributes its
    first-order equivalent ``(-alpha F1, +alpha F2)``.
    """
    h, w = _shape(shape)
    d = _check_deformation(d)
    tau = _warp_field(d, h, w)
    if d.infimnist_alpha != 0:
        F = infimnist_fields((h, w), d.infimnist_seed)
        tau[0] -= d.infimnist_alpha * F[0]
        tau[1] += d.infimnist_alpha * F[1]
    return tau


def _check_deformation(d) -> Deformation:
    if not isinstance(d, Deformation):
        raise ValueError(f"deformation must be a Deformation, got {type(d).__name__}")
    return d


def _check_tau(tau, h: int | None = None, w: int | None = None) -> np.ndarray:
    tau = np.asarray(tau, dtype=np.float64)
    if tau.ndim != 3 or tau.shape[0] != 2:
        raise ValueError(f"tau must have shape (2, H, W), got {tau.shape}")
    if h is not None and tau.shape[1:] != (h, w):
        raise ValueError(f"tau has grid {tau.shape[1:]}, the image is {(h, w)}")
    if not np.all(np.isfinite(tau)):
        raise ValueError("tau must be finite (found NaN or inf)")
    return tau


def warp(image, tau) -> np.ndarray:
    """``L_tau x(u) = x(u - tau(u))``: bilinear interpolation, zero fill outside.

    ``image`` is (H, W) or (H, W, C); ``tau`` (2, H, W) in px (down, right).
    Content moves along ``tau`` (``tau = (0, 1)`` shifts it one pixel right).
    """
    from ntkviz.core._validate import validate_image

    img = validate_image(image)
    h, w = img.shape[:2]
    return _warp(img, _check_tau(tau, h, w))


def _warp(img: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """:func:`warp` of a validated float64 image by a checked field (no checks)."""
    h, w = img.shape[:2]
    rr, cc = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    coords = np.stack([rr - tau[0], cc - tau[1]])
    if img.ndim == 2:
        return _ndimage().map_coordinates(img, coords, order=1, mode="constant", cval=0.0)
    return np.stack([_ndimage().map_coordinates(img[..., k], coords, order=1, mode="constant", cval=0.0)
                     for k in range(img.shape[2])], axis=-1)


def _infimnist_update(img: np.ndarray, alpha: float, seed: int) -> np.ndarray:
    h, w = img.shape[:2]
    F = infimnist_fields((h, w), seed)
    lo = min(0.0, float(img.min()))
    hi = max(1.0, float(img.max()))
    chans = img[..., None] if img.ndim == 2 else img
    out = np.empty_like(chans)
    for k in range(chans.shape[2]):
        d1, d2 = np.gradient(chans[..., k])
        out[..., k] = chans[..., k] + alpha * (F[0] * d1 - F[1] * d2)
    out = np.clip(out, lo, hi)
    return out[..., 0] if img.ndim == 2 else out


def deform_image(image, d: Deformation, *, check_input: bool = True,
                 sample=None) -> tuple[np.ndarray, np.ndarray]:
    """``(deformed image, tau)``: warp by the summed field, then the Infinite-MNIST update.

    The zero deformation returns an exact copy of the image. ``check_input=False`` skips
    the image's check, for a caller that passes a float64 image it validated
    (:func:`ntkviz.core.validate_image`) or made itself. ``sample(tau)``, if given,
    returns ``x(u - tau(u))`` of an image known in closed form (e.g. the Gabor probe of
    :mod:`ntkviz.core.deformations.probes`) instead of the bilinear :func:`warp` of
    ``image``; it is called only for a non-zero field.
    """
    from ntkviz.core._validate import validate_image

    d = _check_deformation(d)
    img = validate_image(image) if check_input else image
    h, w = img.shape[:2]
    tau = _warp_field(d, h, w)
    if not np.any(tau):
        out = img.copy()
    else:
        out = _warp(img, tau) if sample is None else np.asarray(sample(tau), dtype=np.float64)
    if d.infimnist_alpha != 0:
        out = _infimnist_update(out, d.infimnist_alpha, d.infimnist_seed)
        F = infimnist_fields((h, w), d.infimnist_seed)
        tau = tau + np.stack([-d.infimnist_alpha * F[0], d.infimnist_alpha * F[1]])
    return out, tau


def compose_fields(tau1, tau2) -> np.ndarray:
    """Field of "warp by ``tau1``, then by ``tau2``": ``tau2(u) + tau1(u - tau2(u))``.

    ``L_tau2 L_tau1 x = L_tau x`` for the returned ``tau`` (``tau1`` is
    interpolated bilinearly, extended by its nearest border value).
    """
    tau1 = _check_tau(tau1)
    tau2 = _check_tau(tau2, *tau1.shape[1:])
    h, w = tau1.shape[1:]
    rr, cc = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    coords = np.stack([rr - tau2[0], cc - tau2[1]])
    moved = np.stack([_ndimage().map_coordinates(tau1[k], coords, order=1, mode="nearest") for k in range(2)])
    return tau2 + moved


def tau_sup_norm(tau) -> float:
    """``||tau||_inf``: the largest displacement length ``|tau(u)|`` in px."""
    tau = _check_tau(tau)
    return float(np.sqrt(tau[0] ** 2 + tau[1] ** 2).max())


def jacobian_sup_norm(tau, mask=None) -> float:
    """``||grad tau||_inf``: max over pixels of the operator norm of the Jacobian.

    The Jacobian is ``np.gradient`` of each component (central differences
    inside, one-sided at the border); per pixel, with ``S = a^2+b^2+c^2+d^2``
    and ``D = ad - bc``, ``sigma_max = sqrt((S + sqrt(S^2 - 4 D^2)) / 2)``
    evaluated in the equivalent cancellation-free form
    ``(hypot(a+d, c-b) + hypot(a-d, b+c)) / 2``. ``mask`` (bool (H, W)) optionally restricts the maximum.
    """
    tau = _check_tau(tau)
    if min(tau.shape[1:]) < 2:
        raise ValueError("tau needs at least 2 x 2 pixels for a Jacobian")
    a, b = np.gradient(tau[0])
    c, d = np.gradient(tau[1])
    # sqrt((S + sqrt(S^2 - 4 D^2)) / 2) written without its cancellation (equal singular values):
    smax = 0.5 * (np.hypot(a + d, c - b) + np.hypot(a - d, b + c))
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != smax.shape:
            raise ValueError(f"mask must have shape {smax.shape}, got {mask.shape}")
        smax = smax[mask]
        if smax.size == 0:
            return 0.0
    return float(smax.max())
