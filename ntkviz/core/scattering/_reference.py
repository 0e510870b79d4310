"""Slow, obvious references of the scattering transform and the Fourier modulus (tests only).

* Filters from their closed-form Fourier transforms: the Gabor atom's envelope
  ``exp(-u^T C u) / (2 pi sigma^2 / s)`` has the transform ``exp(-w^T C^-1 w / 4)``, and
  the DFT of a periodized sampled function is the sum of its transform over the aliases
  ``2 pi k / M + 2 pi m`` (Poisson summation; ``|m_i| <= 3``). The Morlet constant is
  ``K = G_xi[0] / G_0[0]`` (the grid sums are the zero-frequency DFT values).
* Level-``r`` filters by kymatio's mask-and-fold loops, written out.
* The cascade by direct circular convolutions in space (a sum of shifted copies of the
  filter, one per pixel of the signal) and subsampling ``y[::k]`` in space.
* The Fourier modulus by explicit DFT matrices.
"""
from __future__ import annotations

import math

import numpy as np

from ntkviz.core.scattering.filters import WAVELET_SIGMA, WAVELET_XI, wavelet_angles

ALIASES = 3


def gabor_hat(M: int, N: int, sigma: float, theta: float, xi: float, slant: float = 1.0) -> np.ndarray:
    """DFT of the periodized Gabor atom from its closed-form transform (Poisson summation)."""
    c, s = math.cos(theta), math.sin(theta)
    rot = np.array([[c, -s], [s, c]])
    inv = 2.0 * sigma * sigma * rot @ np.diag([1.0, 1.0 / (slant * slant)]) @ rot.T   # C^-1
    k1, k2 = np.meshgrid(np.arange(M) / M, np.arange(N) / N, indexing="ij")
    out = np.zeros((M, N))
    for m1 in range(-ALIASES, ALIASES + 1):
        for m2 in range(-ALIASES, ALIASES + 1):
            d1 = 2 * math.pi * (k1 + m1) - xi * c
            d2 = 2 * math.pi * (k2 + m2) - xi * s
            out += np.exp(-(inv[0, 0] * d1 * d1 + 2 * inv[0, 1] * d1 * d2 + inv[1, 1] * d2 * d2) / 4.0)
    return out


def morlet_hat(M: int, N: int, sigma: float, theta: float, xi: float, slant: float) -> np.ndarray:
    wave = gabor_hat(M, N, sigma, theta, xi, slant)
    env = gabor_hat(M, N, sigma, theta, 0.0, slant)
    return wave - wave[0, 0] / env[0, 0] * env


def periodize(filt: np.ndarray, r: int) -> np.ndarray:
    """kymatio's level-``r`` filter: zero the frequencies ``M/2^(r+1) <= k < M - M/2^(r+1)``,
    then fold the grid onto ``M/2^r x N/2^r`` by summing its aliases."""
    M, N = filt.shape
    f = filt.copy()
    f[M // 2 ** (r + 1): M - M // 2 ** (r + 1), :] = 0.0
    f[:, N // 2 ** (r + 1): N - N // 2 ** (r + 1)] = 0.0
    m, n = M // 2 ** r, N // 2 ** r
    out = np.zeros((m, n), dtype=filt.dtype)
    for a in range(m):
        for b in range(n):
            for i in range(2 ** r):
                for j in range(2 ** r):
                    out[a, b] += f[a + i * m, b + j * n]
    return out


def reference_bank(M: int, N: int, J: int, L: int) -> tuple[list, list]:
    """``(phi, psi)``: ``phi[r]`` and ``psi[j][l][r]`` Fourier filters at every level ``r < J``."""
    phi_full = gabor_hat(M, N, WAVELET_SIGMA * 2.0 ** (J - 1), 0.0, 0.0, 1.0)
    phi = [periodize(phi_full, r) for r in range(J)]
    psi = []
    for j in range(J):
        per_l = []
        for theta in wavelet_angles(L):
            full = morlet_hat(M, N, WAVELET_SIGMA * 2.0 ** j, theta, WAVELET_XI * 2.0 ** -j, 4.0 / L)
            per_l.append([periodize(full, r) for r in range(J)])
        psi.append(per_l)
    return phi, psi


def circular_convolution(a: np.ndarray, filt_hat: np.ndarray) -> np.ndarray:
    """``(a * h)[n] = sum_m a[m] h[n - m]`` on the periodic grid, ``h`` the filter whose DFT is ``filt_hat``."""
    h = np.fft.ifft2(filt_hat)
    out = np.zeros(a.shape, dtype=complex)
    for m1 in range(a.shape[0]):
        for m2 in range(a.shape[1]):
            if a[m1, m2] != 0:
                out += a[m1, m2] * np.roll(h, (m1, m2), axis=(0, 1))
    return out


def reference_scattering(x: np.ndarray, J: int, L: int, order: int = 2, padding: str = "periodic") -> np.ndarray:
    """``S_J x`` of one image ``(H, W)``: kymatio's cascade with direct convolutions (see module)."""
    H, W = x.shape
    k = 2 ** J
    if padding == "periodic":
        xp = np.asarray(x, dtype=np.float64)
    else:
        M, N = (H // k + 2) * k, (W // k + 2) * k
        top, left = (M - H) // 2, (N - W) // 2
        xp = np.pad(x, ((top, M - H - top), (left, N - W - left)),
                    mode="constant" if padding == "zero" else "reflect")
    phi, psi = reference_bank(*xp.shape, J, L)
    out = [circular_convolution(xp, phi[0])[::k, ::k].real]
    for j1 in range(J if order >= 1 else 0):
        for l1 in range(L):
            U1 = np.abs(circular_convolution(xp, psi[j1][l1][0])[::2 ** j1, ::2 ** j1])
            out.append(circular_convolution(U1, phi[j1])[::2 ** (J - j1), ::2 ** (J - j1)].real)
    for j1 in range(J if order >= 2 else 0):
        for l1 in range(L):
            U1 = np.abs(circular_convolution(xp, psi[j1][l1][0])[::2 ** j1, ::2 ** j1])
            for j2 in range(j1 + 1, J):
                for l2 in range(L):
                    step = 2 ** (j2 - j1)
                    U2 = np.abs(circular_convolution(U1, psi[j2][l2][j1])[::step, ::step])
                    out.append(circular_convolution(U2, phi[j2])[::2 ** (J - j2), ::2 ** (J - j2)].real)
    S = np.stack(out)
    return S if padding == "periodic" else S[:, 1:-1, 1:-1]


def reference_fourier_modulus(x: np.ndarray) -> np.ndarray:
    """``|F_H x F_W^T|`` with the unitary DFT matrices ``F[k, u] = exp(-2 pi i k u / n) / sqrt(n)``."""
    H, W = x.shape

    def dft(n):
        k = np.arange(n)
        return np.exp(-2j * np.pi * np.outer(k, k) / n) / math.sqrt(n)

    return np.abs(dft(H) @ x @ dft(W).T)
