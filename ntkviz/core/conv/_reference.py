"""Slow, obvious NumPy reference of the CKN / convolutional NTK (tests only).

The full 4-D tensor recursion written directly:
input Gram tensor by ``einsum``, patch sums by shifting the whole tensor,
the non-linearity elementwise, pooling by ``einsum`` with the dense 1-D
pooling matrices. Conventions as :mod:`ntkviz.core.conv` (reference HEAD; the
patch offsets of :func:`ntkviz.core.conv.architecture.patch_offsets`; cosines clipped to
[-1, 1]). Memory is O((H W)^2) per tensor: keep images small. The initial pooling
``A_0`` (``initial_pooling_sigma``) is applied first, by :func:`gaussian_blur_dense`.
"""
from __future__ import annotations

import math

import numpy as np

from ntkviz.core.conv.architecture import Architecture, patch_offsets, pooling_matrix


def _shift_sum(G: np.ndarray, offsets, nu: float) -> np.ndarray:
    """P(u, u') = nu * sum_v G(u + v, u' + v), terms off the grid dropped."""
    h, w = G.shape[:2]
    P = np.zeros_like(G)
    for a in offsets:
        for b in offsets:
            src_r = slice(max(a, 0), h + min(a, 0))
            dst_r = slice(max(-a, 0), h + min(-a, 0))
            src_c = slice(max(b, 0), w + min(b, 0))
            dst_c = slice(max(-b, 0), w + min(-b, 0))
            P[dst_r, dst_c, dst_r, dst_c] += G[src_r, src_c, src_r, src_c]
    return nu * P


def _pool(T: np.ndarray, Mh: np.ndarray, Mw: np.ndarray) -> np.ndarray:
    return np.einsum("ai,bj,ck,dl,ijkl->abcd", Mh, Mw, Mh, Mw, T, optimize=True)


class _MpLib:
    """The few NumPy functions the recursion uses, elementwise in mpmath (object arrays)."""

    def __init__(self):
        import mpmath

        self.pi = mpmath.pi
        self.sqrt = np.frompyfunc(mpmath.sqrt, 1, 1)
        self.arccos = np.frompyfunc(mpmath.acos, 1, 1)
        self.exp = np.frompyfunc(mpmath.exp, 1, 1)
        self.maximum = np.frompyfunc(lambda a, b: a if a > b else mpmath.mpf(b), 2, 1)
        self.clip = lambda a, lo, hi: np.frompyfunc(lambda v: min(max(v, lo), hi), 1, 1)(a)


def gaussian_blur_dense(image, sigma: float) -> np.ndarray:
    """``A_0 x``: the Gaussian filter of standard deviation ``sigma`` px on both axes, taps
    ``exp(-a^2 / (2 sigma^2))`` for ``|a| <= ceil(4 sigma)`` normalised to sum 1, zero
    padding, the input's size; written as a double loop over output pixels and taps."""
    x = np.asarray(image, dtype=np.float64)
    x3 = x[..., None] if x.ndim == 2 else x
    radius = math.ceil(4 * sigma)
    taps = [math.exp(-a * a / (2 * sigma * sigma)) for a in range(-radius, radius + 1)]
    total = sum(taps)
    h, w = x3.shape[:2]
    out = np.zeros_like(x3)
    for i in range(h):
        for j in range(w):
            for a in range(-radius, radius + 1):
                for b in range(-radius, radius + 1):
                    if 0 <= i + a < h and 0 <= j + b < w:
                        out[i, j] += taps[a + radius] * taps[b + radius] / (total * total) * x3[i + a, j + b]
    return out[..., 0] if x.ndim == 2 else out


def reference_kernels(x: np.ndarray, y: np.ndarray, arch: Architecture,
                      exact: bool = False) -> tuple[float, float]:
    """(K_CKN(x, y), K_NTK(x, y)) by the direct 4-D recursion; K_NTK is NaN without NTK support.

    ``exact=True`` runs the same recursion in 50-digit ``mpmath`` on the float64 inputs
    (object arrays; tiny images only): no cosine rounding, the "exact computation" the
    fast code's self-pairs are checked against.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if arch.initial_pooling_sigma is not None:
        x, y = (gaussian_blur_dense(z, arch.initial_pooling_sigma) for z in (x, y))
    if exact:
        import mpmath

        with mpmath.workdps(50):
            to_mp = np.frompyfunc(mpmath.mpf, 1, 1)
            return _recursion(to_mp(x), to_mp(y), arch, _MpLib())
    return _recursion(x, y, arch, np)


def _recursion(x, y, arch: Architecture, lib) -> tuple[float, float]:
    if x.ndim == 2:
        x, y = x[..., None], y[..., None]
    ntk = arch.supports_ntk
    G = {"xy": np.einsum("ijc,klc->ijkl", x, y), "xx": np.einsum("ijc,klc->ijkl", x, x),
         "yy": np.einsum("ijc,klc->ijkl", y, y)}
    N = dict(G)
    for k, lay in enumerate(arch.layers):
        h, w = G["xy"].shape[:2]
        offs = patch_offsets(lay.npatch, arch.even_patch_offsets)
        nu = 1.0 if arch.patch_normalization == "sum" else 1.0 / lay.npatch ** 2
        P = {key: _shift_sum(T, offs, nu) for key, T in G.items()}
        Q = P if k == 0 else {key: _shift_sum(T, offs, nu) for key, T in N.items()}
        norm = {z: lib.sqrt(lib.maximum(np.einsum("ijij->ij", P[z + z]), 0.0)) for z in "xy"}
        Mh, Mw = pooling_matrix(lay, h), pooling_matrix(lay, w)
        newG, newN = {}, {}
        for key in G:
            n1 = norm[key[0]][:, :, None, None]
            n2 = norm[key[1]][None, None, :, :]
            c = lib.clip((P[key] * (1.0 / lib.maximum(n1, 1e-6))) * (1.0 / lib.maximum(n2, 1e-6)),
                         -1.0, 1.0)
            if lay.kernel == "relu":
                theta = lib.arccos(c)
                C = n1 * n2 * (lib.sqrt(1.0 - c * c) + c * (lib.pi - theta)) / lib.pi
                Nc = C + Q[key] * (lib.pi - theta) / lib.pi
            else:
                C = n1 * n2 * lib.exp((c - 1.0) / lay.sigma ** 2)
                Nc = C
            newG[key] = _pool(C, Mh, Mw)
            newN[key] = _pool(Nc, Mh, Mw)
        G, N = newG, newN
    k_ckn = float(np.einsum("ijij->", G["xy"]))
    k_ntk = float(np.einsum("ijij->", N["xy"])) if ntk else float("nan")
    return k_ckn, k_ntk
