"""The Morlet filter bank of the 2-D scattering transform (kymatio's design, in float64).

Coordinates are ``u = (u1, u2) = (row, column)`` in pixels, as everywhere in ntkviz;
a filter on an ``M x N`` grid is centred at index ``(0, 0)`` and periodized.

Filters (Bruna & Mallat 2013; the filter bank of kymatio 0.3.0, ``L`` orientations,
``J`` scales, ``j = 0..J-1``, ``l = 0..L-1``):

* Gabor atom with scale ``sigma``, angle ``theta``, frequency ``xi`` and slant ``s``::

      g(u) = exp(-u^T C u + i xi (u1 cos theta + u2 sin theta)) / (2 pi sigma^2 / s),
      C = R_theta diag(1, s^2) R_theta^T / (2 sigma^2),

  ``R_theta`` the rotation by ``theta`` in the ``(u1, u2)`` plane. The envelope has unit
  integral over the plane (``int exp(-u^T C u) du = 2 pi sigma^2 / s``); kymatio writes
  the constant with 3.1415 for pi, so each of its filters is ``pi / 3.1415`` times ours.
* Periodization: the value at grid index ``(k1, k2)`` is the sum of ``g`` over
  ``u = (c1 + e1 M, c2 + e2 N)``, ``c_i = k_i - M round(k_i / M)`` the centred index and
  ``|e_i| <= 2`` restricted to the copies within 12 standard deviations of the envelope
  (the others weigh less than ``exp(-72)``). kymatio sums ``u = (k1 + e1 M, ...)`` with
  ``e_i in {-2, ..., 2}`` (five periods, not centred); the two differ by less than
  ``exp(-(2.5 M)^2 / (2 sigma^2))`` relative. The centred, symmetric sum keeps
  ``g_theta(R u) = g_(theta + pi/2)(u)`` exact for a quarter turn ``R`` of a square grid.
* Morlet wavelet ``psi_{j,l} = g_{xi} - K g_0`` with ``sigma_j = 0.8 * 2^j``,
  ``xi_j = 3 pi / 4 * 2^-j``, ``theta_l = (max(floor(L/2) - 1, 0) - l) pi / L``
  (kymatio's order: ``theta`` decreases with ``l``; ``l = floor(L/2) - 1`` is
  ``theta = 0``, an oscillation along the rows), slant ``s = 4 / L``, and
  ``K = sum g_xi / sum g_0`` over the grid, so that ``sum psi = 0`` exactly
  (``psi_hat(0) = 0``).
* Low-pass ``phi_J = g`` with ``sigma = 0.8 * 2^(J-1)``, ``xi = 0``, ``s = 1``
  (isotropic, the scale of the coarsest wavelet ``psi_{J-1}``; kymatio's choice), so
  ``phi_hat(0) = sum phi = 1`` up to the Poisson-summation error ``2 exp(-2 pi^2 sigma^2)``
  per axis.

Filters are stored in the Fourier domain (``DFT[k] = sum_u f(u) exp(-2 pi i (k1 u1 / M
+ k2 u2 / N))``, unnormalised), real parts only: ``f(-u) = conj f(u)`` makes them real up
to the truncation of the periodization. A filter used on a grid subsampled by ``2^r``
("level r") keeps the frequencies ``-M / 2^(r+1) <= k_i < M / 2^(r+1)`` of the full-grid
filter and drops the rest (kymatio's ``periodize_filter_fft``: its mask removes exactly
the frequencies its fold would alias).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

__all__ = ["FilterBank", "filter_bank", "littlewood_paley", "gabor_2d", "morlet_2d",
           "wavelet_angles", "WAVELET_SIGMA", "WAVELET_XI", "PERIODS"]

#: sigma_j = WAVELET_SIGMA * 2^j (px)
WAVELET_SIGMA = 0.8
#: xi_j = WAVELET_XI * 2^-j (radians per px)
WAVELET_XI = 3.0 * math.pi / 4.0
#: the most periods summed per axis on each side of the centred grid (kymatio sums five)
PERIODS = 2
#: copies of the envelope farther than REACH standard deviations are left out (exp(-72) = 5e-32)
REACH = 12.0


def wavelet_angles(L: int) -> np.ndarray:
    """``theta_l = (max(floor(L/2) - 1, 0) - l) pi / L`` for ``l = 0..L-1`` (kymatio's order)."""
    return (max(L // 2 - 1, 0) - np.arange(L, dtype=np.float64)) * math.pi / L


def _periodized(M: int, reach: float) -> tuple[np.ndarray, int]:
    """Centred coordinates ``k - M round(k / M)`` of an ``M``-grid plus their copies ``e M`` for
    ``|e| <= P``, ``P`` the fewest periods that cover ``reach`` px (at most :data:`PERIODS`)."""
    periods = min(PERIODS, max(0, math.ceil(reach / M - 0.5)))
    centred = (np.arange(M) + M // 2) % M - M // 2
    return (centred[None, :] + M * np.arange(-periods, periods + 1)[:, None]).ravel().astype(np.float64), periods


def gabor_2d(M: int, N: int, sigma: float, theta: float, xi: float, slant: float = 1.0) -> np.ndarray:
    """The periodized Gabor atom ``g`` of the module docstring on an ``M x N`` grid (space, complex)."""
    c, s = math.cos(theta), math.sin(theta)
    rot = np.array([[c, -s], [s, c]])
    curv = rot @ np.diag([1.0, slant * slant]) @ rot.T / (2.0 * sigma * sigma)
    reach = REACH * sigma * max(1.0, 1.0 / slant)
    u1, p1 = _periodized(M, reach)
    u2, p2 = _periodized(N, reach)
    a, b = u1[:, None], u2[None, :]
    arg = -(curv[0, 0] * a * a + 2.0 * curv[0, 1] * a * b + curv[1, 1] * b * b) + 1j * xi * (a * c + b * s)
    g = np.exp(arg).reshape(2 * p1 + 1, M, 2 * p2 + 1, N).sum(axis=(0, 2))
    return g / (2.0 * math.pi * sigma * sigma / slant)


def morlet_2d(M: int, N: int, sigma: float, theta: float, xi: float, slant: float) -> np.ndarray:
    """Morlet wavelet ``g_xi - K g_0`` with ``K = sum g_xi / sum g_0`` (zero mean; space, complex)."""
    wave = gabor_2d(M, N, sigma, theta, xi, slant)
    envelope = gabor_2d(M, N, sigma, theta, 0.0, slant)
    return wave - (wave.sum() / envelope.sum()) * envelope


def _crop_index(M: int, r: int) -> np.ndarray:
    """Full-grid frequency indices kept at level ``r`` (``|k| < M / 2^(r+1)``), in coarse-grid order."""
    half = M >> (r + 1)
    return np.concatenate([np.arange(half), np.arange(M - half, M)])


def _level(filt: np.ndarray, r: int) -> np.ndarray:
    """The level-``r`` version of full-grid Fourier filters ``(..., M, N)``."""
    if r == 0:
        return filt
    M, N = filt.shape[-2:]
    return filt[..., _crop_index(M, r)[:, None], _crop_index(N, r)[None, :]]


@dataclass(frozen=True, eq=False)
class FilterBank:
    """Fourier-domain Morlet filters of one grid, ``J`` and ``L`` (arrays read-only).

    Attributes
    ----------
    shape : (M, N), the (padded) grid the transform runs on.
    J, L : scales and orientations.
    phi : tuple of ``J`` arrays; ``phi[r]`` is ``phi_hat`` at level ``r``, shape ``(M/2^r, N/2^r)``.
    psi : tuple of ``J`` tuples; ``psi[j][r]`` is ``(L, M/2^r, N/2^r)``: the ``L`` wavelets of
        scale ``j`` at level ``r`` for ``r = 0..max(j-1, 0)`` (the levels the transform uses).
    angles : ``theta_l`` (radians).
    """

    shape: tuple
    J: int
    L: int
    phi: tuple
    psi: tuple
    angles: np.ndarray


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@lru_cache(maxsize=16)
def _filter_bank(M: int, N: int, J: int, L: int) -> FilterBank:
    angles = wavelet_angles(L)
    full_phi = np.fft.fft2(gabor_2d(M, N, WAVELET_SIGMA * 2.0 ** (J - 1), 0.0, 0.0, 1.0)).real
    phi = tuple(_readonly(_level(full_phi, r)) for r in range(J))
    psi = []
    for j in range(J):
        full = np.stack([np.fft.fft2(morlet_2d(M, N, WAVELET_SIGMA * 2.0 ** j, theta, WAVELET_XI * 2.0 ** -j,
                                               4.0 / L)).real for theta in angles])
        psi.append(tuple(_readonly(_level(full, r)) for r in range(max(j, 1))))
    return FilterBank(shape=(M, N), J=J, L=L, phi=phi, psi=tuple(psi), angles=_readonly(angles))


def filter_bank(shape, J: int, L: int) -> FilterBank:
    """The filter bank on grid ``shape = (M, N)`` (cached: the 16 most recent grids, J, L).

    ``M`` and ``N`` must be multiples of ``2^J`` (every level is a whole grid). Pure function
    of its arguments; the returned arrays are read-only and shared between callers.
    """
    from ntkviz import limits
    from ntkviz._check import check_int

    J = check_int("J", J, limits.SCATTERING_J_RANGE)
    L = check_int("L", L, limits.SCATTERING_L_RANGE)
    M, N = (check_int("filter grid side", v, (2 ** J, None)) for v in shape)
    if M % 2 ** J or N % 2 ** J:
        raise ValueError(f"filter grid sides must be multiples of 2^J = {2 ** J}, got {M}×{N}")
    return _filter_bank(M, N, J, L)


def littlewood_paley(bank: FilterBank) -> np.ndarray:
    """The Littlewood-Paley sum of the full-grid filters of ``bank``, ``(M, N)`` on the DFT grid::

        A(w) = |phi_hat(w)|^2 + 1/2 sum_{j,l} (|psi_hat_{j,l}(w)|^2 + |psi_hat_{j,l}(-w)|^2),

    symmetrised in ``w`` because the images are real (``x * conj(psi)`` carries the energy of
    ``psi_hat(-w)``). The energy of the first wavelet layer is exactly
    ``||x * phi||^2 + sum ||x * psi||^2 = (1 / MN) sum_k A[k] |x_hat[k]|^2``, so
    ``min A ||x||^2 <= ... <= max A ||x||^2`` (the frame bounds; 1 at both for a tight frame;
    kymatio's Morlet bank is not tight: ``A(0) = 1`` and ``A <= 1.05``).
    """
    M, N = bank.shape
    psi = np.concatenate([bank.psi[j][0] for j in range(bank.J)])
    flipped = psi[:, (-np.arange(M)) % M][:, :, (-np.arange(N)) % N]
    return bank.phi[0] ** 2 + 0.5 * (psi ** 2 + flipped ** 2).sum(axis=0)
