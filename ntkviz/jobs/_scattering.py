"""The job of the Scattering tab (Qt-free): the filter bank, the coefficients of one image
and Mallat's Fourier-modulus counterexample, ready to draw.

:class:`ScatteringViewRequest` -> :class:`ScatteringViewResponse`, in three parts:

* :class:`FilterPictures` -- the Morlet filter bank of
  :func:`ntkviz.core.scattering.filters.filter_bank` on a display grid ``G x G``
  (the transform's own padded grid, or the smallest multiple of ``2^J`` from 64 px on):
  the wavelets in space (real parts, each tile divided by its largest modulus), the
  Littlewood-Paley sum :func:`~ntkviz.core.scattering.filters.littlewood_paley` on the
  frequency plane ``[-pi, pi)^2`` (radians per px) with the half-maximum contour of every
  ``|psi_hat_{j,l}|`` and of ``phi_hat``, and the sum along the two frequency axes with its
  frame bounds (its least and largest value on the grid);
* :class:`CoefficientPictures` -- the scattering coefficients
  :func:`~ntkviz.core.scattering.transform.scattering_transform` of the image, the order-1
  channels tiled by (scale j, orientation theta) and the order-2 channels of each pair of
  scales (j1, j2) tiled by (theta1, theta2);
* :class:`Counterexample` -- the Gabor probe (:func:`~ntkviz.core.deformations.probes.gabor_image`,
  64 x 64 px, sigma = 8 px, wave vector at 22.5 deg) dilated by ``tau(u) = s (u - c)``
  (sampled exactly) for a few ``omega0`` and ``s``: relative distances of the Fourier
  modulus and of the scattering coefficients, and their fitted log-log exponents in ``s``
  and in ``omega0`` (Mallat 2012: the first grows like ``omega0 s``, the second like ``s``).
  Kept per (scattering parameters, omega0s, s values): a new image does not redo it.

Tiles are laid out as mosaics (:func:`mosaic`): one image with a one-pixel gap of NaN
between tiles, so a view draws a whole grid as one picture. The half-maximum contours are
line segments (:func:`level_segments`, marching squares on the grid's samples).
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ntkviz._check import check_float
from ntkviz.core import validate_image
from ntkviz.jobs._run import Progress, run_to_end

__all__ = ["ScatteringViewRequest", "ScatteringViewResponse", "FilterPictures",
           "CoefficientPictures", "Counterexample", "mosaic", "level_segments", "display_grid",
           "PROBE_SHAPE", "PROBE_SIGMA", "DISPLAY_GRID_MIN", "GAP"]

#: the Gabor probe of the counterexample: 64 x 64 px, envelope sigma = 8 px
PROBE_SHAPE = (64, 64)
PROBE_SIGMA = 8.0
#: the smallest side (px) of the grid the filters are drawn on
DISPLAY_GRID_MIN = 64
#: pixels of NaN between the tiles of a mosaic
GAP = 1


# --------------------------------------------------------------------------- helpers
def mosaic(tiles: np.ndarray, gap: int = GAP) -> np.ndarray:
    """Tiles ``(R, C, h, w)`` as one ``(R h + (R - 1) gap, C w + (C - 1) gap)`` image, tile
    ``(r, c)`` at rows ``r (h + gap) ...`` and columns ``c (w + gap) ...``, NaN between
    tiles (and where a tile is NaN: no tile)."""
    R, C, h, w = tiles.shape
    out = np.full((R * (h + gap) - gap, C * (w + gap) - gap), np.nan)
    for r in range(R):
        for c in range(C):
            out[r * (h + gap):r * (h + gap) + h, c * (w + gap):c * (w + gap) + w] = tiles[r, c]
    return out


def level_segments(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The contour ``values = level`` of samples ``values[r, c]`` at points ``(row r, col c)``,
    as line segments: ``(rows, cols)`` of the segments' end points, pairs ``2k, 2k + 1``.

    Marching squares: on each cell's edges where ``values - level`` changes sign, the
    crossing is placed by linear interpolation between the two samples; a cell with two
    crossings gets one segment, a saddle (four) two, joined as the cell's mean says.
    """
    v = np.asarray(values, dtype=np.float64) - level
    a, b = v[:-1, :-1], v[:-1, 1:]        # top-left, top-right
    d, c = v[1:, :-1], v[1:, 1:]          # bottom-left, bottom-right
    r0, c0 = np.meshgrid(np.arange(v.shape[0] - 1, dtype=np.float64),
                         np.arange(v.shape[1] - 1, dtype=np.float64), indexing="ij")

    def cross(p, q):
        with np.errstate(divide="ignore", invalid="ignore"):
            return (p > 0) != (q > 0), np.where(p != q, p / (p - q), 0.5)

    # the four edges: (crosses, row, col) of the crossing point
    ct, tt = cross(a, b)
    cr, tr = cross(b, c)
    cb, tb = cross(d, c)
    cl, tl = cross(a, d)
    edges = {"top": (ct, r0, c0 + tt), "right": (cr, r0 + tr, c0 + 1), "bottom": (cb, r0 + 1, c0 + tb),
             "left": (cl, r0 + tl, c0)}
    count = ct.astype(int) + cr + cb + cl
    rows, cols = [], []

    def add(mask, e1, e2):
        m1, m2 = edges[e1], edges[e2]
        seg_r = np.stack([m1[1][mask], m2[1][mask]], axis=1).ravel()
        seg_c = np.stack([m1[2][mask], m2[2][mask]], axis=1).ravel()
        rows.append(seg_r)
        cols.append(seg_c)

    two = count == 2
    names = ("top", "right", "bottom", "left")
    for i, e1 in enumerate(names):
        for e2 in names[i + 1:]:
            add(two & edges[e1][0] & edges[e2][0], e1, e2)
    saddle = count == 4
    joined = ((a + b + c + d) > 0) == (a > 0)     # a and c connected through the centre
    add(saddle & joined, "top", "right")
    add(saddle & joined, "bottom", "left")
    add(saddle & ~joined, "top", "left")
    add(saddle & ~joined, "right", "bottom")
    return np.concatenate(rows), np.concatenate(cols)


def display_grid(shape: tuple, params) -> int:
    """Side ``G`` of the square grid the filters of ``params`` are drawn on for an image of
    ``shape``: the transform's padded grid when its sides are equal and at least
    :data:`DISPLAY_GRID_MIN`, else the smallest multiple of ``2^J`` that is at least both."""
    (M, N), _ = params.grid(*shape[:2])
    k = 2 ** params.J
    side = max(M, N, DISPLAY_GRID_MIN)
    return -(-side // k) * k


def _angle_numerators(L: int) -> tuple[int, ...]:
    """``theta_l = n_l pi / L``: the integers ``n_l`` (kymatio's order, see ``wavelet_angles``)."""
    return tuple(max(L // 2 - 1, 0) - l for l in range(L))


# --------------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class FilterPictures:
    """The filter bank on the display grid, ready to draw (arrays read-only).

    Attributes
    ----------
    grid : G, the side of the display grid (px); frequencies ``2 pi k / G``.
    psi_hat : (J, L, G, G) the bank's full-grid ``psi_hat_{j,l}`` (DFT order, real).
    phi_hat : (G, G) ``phi_hat_J``.
    littlewood_paley : (G, G) ``A`` of :func:`~ntkviz.core.scattering.filters.littlewood_paley` (DFT order).
    frequencies : (G,) ``omega_k = 2 pi k / G`` for ``k = -G/2 .. G/2 - 1`` (radians per px).
    plane : (G, G) ``A`` on the frequency plane: row ``omega1``, column ``omega2`` as in
        ``frequencies`` (``numpy.fft.fftshift`` of ``littlewood_paley``).
    along_omega2, along_omega1 : (G,) ``A(0, omega)`` and ``A(omega, 0)`` on ``frequencies``.
    frame_bounds : ``(min A, max A)`` over the grid.
    contours : tuple of ``(j, l, omega1s, omega2s)``: the half-maximum contour of
        ``|psi_hat_{j,l}|`` (``l = -1``: of ``phi_hat``) as segment end points (pairs).
    half_width : h; the space tiles are ``(2h + 1)^2`` px centred on ``u = 0``.
    wavelets : mosaic of ``Re psi_{j,l}(u) / max_u |psi_{j,l}|`` (rows j, columns l) and a
        last row holding ``phi_J / max phi_J`` in its first tile.
    angle_numerators : ``n_l`` with ``theta_l = n_l pi / L``.
    """

    grid: int
    psi_hat: np.ndarray
    phi_hat: np.ndarray
    littlewood_paley: np.ndarray
    frequencies: np.ndarray
    plane: np.ndarray
    along_omega2: np.ndarray
    along_omega1: np.ndarray
    frame_bounds: tuple
    contours: tuple
    half_width: int
    wavelets: np.ndarray
    angle_numerators: tuple


@dataclass(frozen=True, eq=False)
class CoefficientPictures:
    """The scattering coefficients of one image, ready to draw.

    Attributes
    ----------
    coefficients : (K, H', W') ``S_J x`` in :func:`~ntkviz.core.scattering.transform.scattering_paths` order.
    paths : the channels' ``(scales, orientations)``.
    order0 : (H', W') ``x * phi_J``.
    order1 : mosaic of the order-1 channels, rows j, columns l (None below order 1).
    order2 : ``{(j1, j2): mosaic}`` of the order-2 channels of the scales (j1, j2), rows l1,
        columns l2 (empty below order 2).
    order0_levels, order1_levels, order2_levels : ``(low, high)`` colour scale of each order
        (0, or the least value of order 0 if negative, to the order's largest value; all
        pairs (j1, j2) share order 2's).
    """

    coefficients: np.ndarray
    paths: tuple
    order0: np.ndarray
    order1: np.ndarray | None
    order2: dict
    order0_levels: tuple
    order1_levels: tuple
    order2_levels: tuple


@dataclass(frozen=True, eq=False)
class Counterexample:
    """Relative distances of the dilated Gabor probe (see the module docstring).

    ``fourier``, ``scattering``: ``(len(omega0s), len(dilations))`` relative distances
    ``||Phi(L_tau x) - Phi(x)|| / ||Phi(x)||``; ``fourier_slopes``, ``scattering_slopes``:
    per omega0 the least-squares log-log slope against s; ``fourier_exponent``,
    ``scattering_exponent``: the slope against omega0 at the largest s. ``unavailable``: why
    nothing was computed ("" when it was), e.g. a J too large for the 64-px probe.
    """

    omega0s: tuple
    dilations: tuple
    fourier: np.ndarray
    scattering: np.ndarray
    fourier_slopes: np.ndarray
    scattering_slopes: np.ndarray
    fourier_exponent: float
    scattering_exponent: float
    params: object
    unavailable: str = ""


@dataclass(frozen=True, eq=False)
class ScatteringViewResponse:
    """``filters`` (:class:`FilterPictures`), ``coefficients`` (:class:`CoefficientPictures`),
    ``counterexample`` (:class:`Counterexample`) of ``image`` (H, W) under ``params``."""

    image: np.ndarray
    params: object
    filters: FilterPictures
    coefficients: CoefficientPictures
    counterexample: Counterexample
    caption: str = ""

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        """``(header, rows)`` of a view of the Scattering tab: the numbers it draws."""
        return _csv_table(self, view)


# --------------------------------------------------------------------------- the request
_COUNTER_LOCK = threading.Lock()
_COUNTER: dict = {}        # (params, omega0s, dilations) -> Counterexample
_COUNTER_MAX = 8


@dataclass(frozen=True, eq=False)
class ScatteringViewRequest:
    """What the Scattering tab shows for one image and one set of scattering parameters.

    Parameters
    ----------
    image : array (H, W)
        The image (a digit, the user's image or the Gabor probe), ``2^J`` at most its sides.
    params : ScatteringParams
        J, L, order and padding of the transform and of the filter bank drawn.
    omega0s : tuple of float
        Wave numbers of the counterexample's probe (radians per px, in (0, pi sqrt 2]).
    dilations : tuple of float
        Its dilations s (in (0, 0.95], increasing).
    caption : str
        What the image is (titles).

    ``iterate()`` yields :class:`~ntkviz.jobs.Progress` items (filters, coefficients,
    counterexample per omega0) and returns the :class:`ScatteringViewResponse`.
    """

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = True

    image: np.ndarray
    params: object
    omega0s: tuple = (math.pi / 4, math.pi / 2, math.pi)
    dilations: tuple = (0.005, 0.01, 0.02, 0.05)
    caption: str = ""

    def __post_init__(self):
        from ntkviz import limits
        from ntkviz.core.deformations.probes import OMEGA0_RANGE
        from ntkviz.core.scattering.transform import ScatteringParams

        image = validate_image(self.image, "image")
        if image.ndim != 2:
            raise ValueError(f"image must have shape (H, W), got {image.shape}")
        if not isinstance(self.params, ScatteringParams):
            raise ValueError(f"params must be ScatteringParams, got {type(self.params).__name__}")
        self.params.grid(*image.shape)
        image.setflags(write=False)
        object.__setattr__(self, "image", image)
        omega0s = tuple(check_float("omega0s", w, OMEGA0_RANGE) for w in self.omega0s)
        dilations = tuple(check_float("dilations", s, limits.DILATION_RANGE) for s in self.dilations)
        for name, values in (("omega0s", omega0s), ("dilations", dilations)):
            if not values or min(values) <= 0 or len(set(values)) != len(values):
                raise ValueError(f"{name} must be distinct numbers > 0, got {list(values)}")
        object.__setattr__(self, "omega0s", tuple(sorted(omega0s)))
        object.__setattr__(self, "dilations", tuple(sorted(dilations)))

    def __call__(self) -> ScatteringViewResponse:
        return run_to_end(self.iterate())

    def iterate(self):
        """Progress items; returns the :class:`ScatteringViewResponse`."""
        filters = filter_pictures(self.image.shape, self.params)
        yield Progress(0.2, "filter bank")
        coefficients = coefficient_pictures(self.image, self.params)
        yield Progress(0.3, "scattering coefficients")
        key = (self.params, self.omega0s, self.dilations)
        with _COUNTER_LOCK:
            counter = _COUNTER.get(key)
        if counter is None and 2 ** self.params.J > min(PROBE_SHAPE):
            counter = unavailable_counterexample(
                self.omega0s, self.dilations, self.params,
                f"J = {self.params.J} averages over more than the {PROBE_SHAPE[0]}-px probe")
        elif counter is None:
            rows = []
            for i, omega0 in enumerate(self.omega0s):
                rows.append(_probe_distances(omega0, self.dilations, self.params))
                yield Progress(0.3 + 0.7 * (i + 1) / len(self.omega0s), "counterexample")
            counter = _counterexample(self.omega0s, self.dilations, self.params, rows)
        if key not in _COUNTER:
            with _COUNTER_LOCK:
                if len(_COUNTER) >= _COUNTER_MAX:
                    _COUNTER.pop(next(iter(_COUNTER)))
                _COUNTER[key] = counter
        return ScatteringViewResponse(image=self.image, params=self.params, filters=filters,
                                      coefficients=coefficients, counterexample=counter,
                                      caption=self.caption)


# --------------------------------------------------------------------------- the parts
def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


def filter_pictures(shape: tuple, params) -> FilterPictures:
    """The :class:`FilterPictures` of ``params`` for an image of ``shape``."""
    from ntkviz.core.scattering.filters import WAVELET_SIGMA, filter_bank, littlewood_paley

    J, L = params.J, params.L
    G = display_grid(shape, params)
    bank = filter_bank((G, G), J, L)
    psi_hat = np.stack([bank.psi[j][0] for j in range(J)])         # (J, L, G, G)
    phi_hat = bank.phi[0]
    A = littlewood_paley(bank)
    shift = np.fft.fftshift
    freqs = 2.0 * math.pi * np.arange(-(G // 2), G - G // 2) / G
    plane = shift(A)
    centre = G // 2                                                  # omega = 0 in the shifted grid
    contours = []
    for j in range(J):
        for l in range(L):
            mag = shift(np.abs(psi_hat[j, l]))
            contours.append((j, l, *_to_frequencies(level_segments(mag, 0.5 * mag.max()), freqs)))
    mag = shift(np.abs(phi_hat))
    contours.append((J - 1, -1, *_to_frequencies(level_segments(mag, 0.5 * mag.max()), freqs)))
    # space: centred crops wide enough for the coarsest envelope (3 sigma / slant)
    slant = 4.0 / L
    h = min(G // 2 - 1, math.ceil(3.0 * WAVELET_SIGMA * 2.0 ** (J - 1) * max(1.0, 1.0 / slant)))
    crop = slice(centre - h, centre + h + 1)
    tiles = np.full((J + 1, L, 2 * h + 1, 2 * h + 1), np.nan)
    for j in range(J):
        for l in range(L):
            psi = shift(np.fft.ifft2(psi_hat[j, l]))[crop, crop]
            tiles[j, l] = psi.real / np.abs(psi).max()
    phi = shift(np.fft.ifft2(phi_hat).real)[crop, crop]
    tiles[J, 0] = phi / np.abs(phi).max()
    return FilterPictures(
        grid=G, psi_hat=psi_hat, phi_hat=phi_hat, littlewood_paley=_readonly(A),
        frequencies=_readonly(freqs), plane=_readonly(plane),
        along_omega2=_readonly(plane[centre].copy()), along_omega1=_readonly(plane[:, centre].copy()),
        frame_bounds=(float(A.min()), float(A.max())), contours=tuple(contours), half_width=h,
        wavelets=_readonly(mosaic(tiles)), angle_numerators=_angle_numerators(L))


def _to_frequencies(segments, freqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Segment end points from grid (row, col) indices to (omega1, omega2) radians per px."""
    rows, cols = segments
    step = freqs[1] - freqs[0]
    return _readonly(freqs[0] + rows * step), _readonly(freqs[0] + cols * step)


def coefficient_pictures(image: np.ndarray, params) -> CoefficientPictures:
    """The :class:`CoefficientPictures` of ``image`` under ``params``."""
    from ntkviz.core.scattering.transform import scattering_paths, scattering_transform

    S = scattering_transform(image, params)
    paths = tuple(scattering_paths(params))
    J, L = params.J, params.L
    hw = S.shape[1:]
    order1 = order2 = None
    pictures = {}
    if params.order >= 1:
        order1 = np.stack([np.stack([S[1 + j * L + l] for l in range(L)]) for j in range(J)])
    if params.order >= 2:
        index = {path: k for k, path in enumerate(paths)}
        for j1 in range(J):
            for j2 in range(j1 + 1, J):
                tiles = np.empty((L, L) + hw)
                for l1 in range(L):
                    for l2 in range(L):
                        tiles[l1, l2] = S[index[((j1, j2), (l1, l2))]]
                pictures[(j1, j2)] = _readonly(mosaic(tiles))
    orders = np.array([len(scales) for scales, _ in paths])
    return CoefficientPictures(
        coefficients=_readonly(S), paths=paths, order0=_readonly(S[0]),
        order1=None if order1 is None else _readonly(mosaic(order1)), order2=pictures,
        order0_levels=_levels(S[orders == 0]), order1_levels=_levels(S[orders == 1]),
        order2_levels=_levels(S[orders == 2]))


def _levels(values: np.ndarray) -> tuple[float, float]:
    """``(min(0, least value), largest value)`` (``(0, 1)`` for no or constant values)."""
    if values.size == 0:
        return 0.0, 1.0
    low, high = min(0.0, float(values.min())), float(values.max())
    return (low, high) if high > low else (low, low + 1.0)


def _probe_distances(omega0: float, dilations: tuple, params) -> tuple[np.ndarray, np.ndarray]:
    """Fourier-modulus and scattering relative distances of the probe ``omega0`` and its
    dilations by each ``s`` (exact samples), as :func:`~ntkviz.core.deformations.maps.map_distances`."""
    from ntkviz.core.deformations.deform import dilation, displacement_field
    from ntkviz.core.deformations.maps import _map_features, relative_distances
    from ntkviz.core.deformations.probes import gabor_image

    images = [gabor_image(PROBE_SHAPE, omega0, PROBE_SIGMA)]
    for s in dilations:
        tau = displacement_field(dilation(s), PROBE_SHAPE)
        images.append(gabor_image(PROBE_SHAPE, omega0, PROBE_SIGMA, tau=tau))
    stack = np.stack(images)[..., None]
    out = []
    for name in ("fourier", "scattering"):
        f = _map_features(name, stack, params)
        out.append(relative_distances(f[:1], f[1:]))
    return out[0], out[1]


def _counterexample(omega0s, dilations, params, rows) -> Counterexample:
    from ntkviz.core.deformations.stability import fit_loglog_slope

    fourier = _readonly(np.array([r[0] for r in rows]))
    scattering = _readonly(np.array([r[1] for r in rows]))
    return Counterexample(
        omega0s=omega0s, dilations=dilations, fourier=fourier, scattering=scattering,
        fourier_slopes=_readonly(np.array([fit_loglog_slope(dilations, d) for d in fourier])),
        scattering_slopes=_readonly(np.array([fit_loglog_slope(dilations, d) for d in scattering])),
        fourier_exponent=fit_loglog_slope(omega0s, fourier[:, -1]),
        scattering_exponent=fit_loglog_slope(omega0s, scattering[:, -1]), params=params)


def unavailable_counterexample(omega0s, dilations, params, reason: str) -> Counterexample:
    """A :class:`Counterexample` that says ``reason`` instead of numbers."""
    empty = np.zeros((0, 0))
    return Counterexample(omega0s=omega0s, dilations=dilations, fourier=empty, scattering=empty,
                          fourier_slopes=np.zeros(0), scattering_slopes=np.zeros(0),
                          fourier_exponent=math.nan, scattering_exponent=math.nan, params=params,
                          unavailable=reason)


# --------------------------------------------------------------------------- tables
def _csv_table(resp: ScatteringViewResponse, view: str) -> tuple[list[str], list[list]]:
    f, c, x = resp.filters, resp.coefficients, resp.counterexample
    J, L = resp.params.J, resp.params.L
    angles = [n * math.pi / L for n in f.angle_numerators]
    if view == "wavelets":
        h = f.half_width
        step = 2 * h + 1 + GAP
        rows = []
        for j in range(J + 1):
            for l in range(L if j < J else 1):
                tile = f.wavelets[j * step:j * step + 2 * h + 1, l * step:l * step + 2 * h + 1]
                for (r, q), v in np.ndenumerate(tile):
                    rows.append(["phi" if j == J else "psi", j if j < J else J, l if j < J else "",
                                 angles[l] if j < J else "", r - h, q - h, float(v)])
        return ["filter", "j", "l", "theta_rad", "u1_px", "u2_px", "real_part_over_max_modulus"], rows
    if view == "frequency":
        w = f.frequencies
        return (["omega1_rad_per_px", "omega2_rad_per_px", "littlewood_paley_A"],
                [[float(w[r]), float(w[q]), float(v)] for (r, q), v in np.ndenumerate(f.plane)])
    if view == "littlewood_paley":
        lo, hi = f.frame_bounds
        return (["omega_rad_per_px", "A_along_omega2_at_omega1_0", "A_along_omega1_at_omega2_0",
                 "frame_bound_min", "frame_bound_max"],
                [[float(w), float(a), float(b), lo, hi]
                 for w, a, b in zip(f.frequencies, f.along_omega2, f.along_omega1)])
    if view in ("coefficients", "order2"):
        header = ["order", "j1", "l1", "j2", "l2", "row", "col", "value"]
        rows = []
        for k, (scales, orients) in enumerate(c.paths):
            order = len(scales)
            if (view == "coefficients") != (order < 2):
                continue
            pad = ["", ""] * (2 - order)
            ident = [v for pair in zip(scales, orients) for v in pair]
            for (r, q), v in np.ndenumerate(c.coefficients[k]):
                rows.append([order, *ident, *pad, r, q, float(v)])
        return header, rows
    if view in ("dilation", "omega0"):
        header = ["omega0_rad_per_px", "dilation_s", "fourier_modulus_distance", "scattering_distance"]
        if x.unavailable:
            return header, []
        cols = range(len(x.dilations)) if view == "dilation" else [len(x.dilations) - 1]
        return header, [[w, x.dilations[k], float(x.fourier[i, k]), float(x.scattering[i, k])]
                        for i, w in enumerate(x.omega0s) for k in cols]
    raise ValueError(f"view must be one of wavelets, frequency, littlewood_paley, coefficients, "
                     f"order2, dilation, omega0, got {view!r}")
