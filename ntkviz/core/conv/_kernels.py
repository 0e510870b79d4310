"""The numba engine of the convolutional kernels (private): plan, recursion, work buffers.

Performance design: the per-image "norm" pipeline
(the ``(x, x)`` pass) is computed once and kept in an :class:`ImageNorms`; a
pair then costs one cross pass. The cross pass never materialises the
``(H, W, H, W)`` tensor of the first layer: for each y position with a
non-zero norm it evaluates the patch kernel against all non-zero x positions
as one vector (a zero patch contributes an exact 0, as in the reference),
applies the non-linearity and pools it at once, into preallocated per-thread
work buffers (no allocation per pair). Gram matrices run one
``parallel=True`` kernel over pairs.

Conventions implemented here: :mod:`ntkviz.core.conv` (points 1-6).
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit, prange

from ntkviz.core.conv.architecture import PATCH_KERNELS, Architecture, patch_offsets, pooling_matrix

__all__: list[str] = []  # private module: the public functions are in ntkviz.core.conv.gram

#: work memory allowed per thread (bytes); the exact kernel costs O((H W)^2) time and O(H W h w) memory
MAX_WORK_BYTES = 512 * 2**20

# --------------------------------------------------------------------------- numeric plan
_NI = 11  # ints per layer in the plan table
(_H, _W, _S, _HO, _WO, _KERN, _HPTR, _HENT, _WPTR, _WENT, _NOFF) = range(_NI)


@dataclass(frozen=True)
class Plan:
    """Flat numeric description of an architecture at one input size (numba input)."""

    lay_i: np.ndarray    # (L, _NI) int64, columns named by the _H.. constants
    lay_f: np.ndarray    # (L, 2) float64: nu (patch factor), 1/sigma^2
    offsets: np.ndarray  # (L, max s) int64: patch offsets in the reference's summation order
    csr_ptr: np.ndarray  # int64, per axis: ptr[in + 1] into the entries (scatter form of the pooling)
    csr_out: np.ndarray  # int64 output index of each entry
    csr_w: np.ndarray    # float64 weight of each entry
    norm_len: int        # total length of the flat per-image norm array
    fsize: int           # float work-buffer length per thread
    isize: int           # int work-buffer length per thread


@lru_cache(maxsize=64)
def plan_for(arch: Architecture, height: int, width: int, channels: int) -> Plan:
    sizes = arch.layer_sizes(height, width)
    L = len(arch.layers)
    lay_i = np.zeros((L, _NI), np.int64)
    lay_f = np.zeros((L, 2))
    offsets = np.zeros((L, max(lay.npatch for lay in arch.layers)), np.int64)
    ptrs, outs, wts = [], [], []
    norm_off = 0
    maxpool = maxacc = maxhw = 1
    for k, (lay, ((h, w), _conv, (ho, wo))) in enumerate(zip(arch.layers, sizes)):
        axis = []
        for n in (h, w):
            mat = pooling_matrix(lay, n)
            axis += [len(ptrs), len(outs)]
            ptr = [0]
            for i in range(n):
                nz = np.nonzero(mat[:, i])[0]
                outs.extend(nz.tolist())
                wts.extend(mat[nz, i].tolist())
                ptr.append(ptr[-1] + len(nz))
            ptrs.extend(ptr)
        s = lay.npatch
        offsets[k, :s] = patch_offsets(s, arch.even_patch_offsets)
        lay_i[k] = (h, w, s, ho, wo, PATCH_KERNELS.index(lay.kernel), *axis, norm_off)
        lay_f[k] = (1.0 if arch.patch_normalization == "sum" else 1.0 / (s * s), 1.0 / (lay.sigma ** 2))
        norm_off += h * w
        maxpool = max(maxpool, (ho * wo) ** 2)
        maxacc = max(maxacc, ho * wo * h * w)
        maxhw = max(maxhw, h * w)
    kdim = arch.layers[0].npatch ** 2 * channels
    fsize = 5 * maxpool + 6 * maxacc + kdim * maxhw + 7 * maxhw
    if fsize * 8 > MAX_WORK_BYTES:
        raise ValueError(
            f"{height}x{width} images are too large for the exact kernel with this architecture: it needs "
            f"{fsize * 8 / 2**20:.0f} MiB of work memory per thread (limit {MAX_WORK_BYTES // 2**20} MiB); "
            "use smaller images or more subsampling in the first layer")
    isize = maxhw
    as_i = lambda v: np.array(v, np.int64)  # noqa: E731
    return Plan(lay_i, lay_f, offsets, as_i(ptrs), as_i(outs), np.array(wts, np.float64),
                 norm_off, fsize, isize)


# --------------------------------------------------------------------------- numba kernels
#: cosines at or above this are taken as exactly 1 (conventions of ntkviz.core.conv, point 3)
_COS_SNAP = 1.0 - 4.0 * 2.0 ** -53


@njit(nogil=True, cache=True)
def _off_grid(p, p2, v, n):
    """True when ``p + v`` or ``p2 + v`` falls outside ``[0, n)`` (a dropped patch term)."""
    return p + v < 0 or p + v >= n or p2 + v < 0 or p2 + v >= n


@njit(nogil=True, cache=True)
def _patch_sum(T, i, j, i2, j2, h, w, offs):
    """Plain patch sum of T(u + v, u' + v) over v in offs x offs, off-grid terms dropped.

    Summation order as the reference: for each column offset (in ``offs``
    order) the sum over row offsets, then the sum of those.
    """
    acc = 0.0
    for b in offs:
        if _off_grid(j, j2, b, w):
            continue
        col = 0.0
        for a in offs:
            if not _off_grid(i, i2, a, h):
                col += T[i + a, j + b, i2 + a, j2 + b]
        acc += col
    return acc


@njit(nogil=True, cache=True)
def _patch_dot(px, kx, ky, s, nc):
    """First-layer patch sum of positions kx and ky of one image (patch columns of ``px``)."""
    acc = 0.0
    k = 0
    for b in range(s):
        col = 0.0
        for a in range(s * nc):
            col += px[k, kx] * px[k, ky]
            k += 1
        acc += col
    return acc


@njit(nogil=True, cache=True)
def _layer_norms(first, px, Gin, out2d, h, w, s, offs, nu):
    """Per-position patch norms n(u) = sqrt(P_xx(u, u)) of one image at one layer."""
    nc = px.shape[0] // (s * s)
    for i in range(h):
        for j in range(w):
            if first:
                acc = _patch_dot(px, i * w + j, i * w + j, s, nc)
            else:
                acc = _patch_sum(Gin, i, j, i, j, h, w, offs)
            out2d[i, j] = math.sqrt(max(acc * nu, 0.0))


@njit(nogil=True, cache=True)
def _layer(first, px, py, Gin, Nin, nx, ny, li, offs, nu, inv_s2, ntk, csr_ptr, csr_out, csr_w,
           Gout, Nout, G2, accC, accN, accX, accT, rowC, rowN, pxc, P, Q, Col, T, Tn, xinv, xn, xpos):
    """One layer of the cross recursion: patch kernel, non-linearity, pooling.

    Tensors are stored y-major, ``G[i', j', i, j]`` (y position first). For
    every position u' of y with a non-zero norm (row-major order), the patch
    kernel with all positions u of x (on the first layer only those with a
    non-zero norm) is evaluated as one long vector, the non-linearity applied
    to it, and the result pooled along j' (per row of y) then i' into
    ``acc[y output, u]``; the x axes (j, then i) are pooled at the end. This
    is the reference's pooling order with every sum sequential over its taps,
    and its formulas and operation order (libm arccos, division by pi): where
    its sums are sequential too (average/strided pooling, e.g. M3) the values
    agree bitwise. Zero-norm positions contribute exact zeros.

    Inner loops index 0-based slices (``d = acc[base:base + n]; d[k] += ...``)
    rather than ``acc[base + k]``: numba cannot prove ``base + k >= 0``, keeps
    its negative-index wraparound and LLVM leaves such loops scalar; over a
    slice they vectorise (about 2x faster per pair, same floating-point order).
    """
    h, w, s, ho, wo, kern = li[_H], li[_W], li[_S], li[_HO], li[_WO], li[_KERN]
    hp, he, wp, we = li[_HPTR], li[_HENT], li[_WPTR], li[_WENT]
    nc = px.shape[0] // (s * s)
    kdim = px.shape[0]
    noy = ho * wo
    pi = math.pi
    # x positions as one vector: compact non-zero list on the first layer, the full grid later
    nxp = 0
    for i in range(h):
        for j in range(w):
            if (not first) or nx[i, j] > 0.0:
                xpos[nxp] = i * w + j
                xn[nxp] = nx[i, j]
                xinv[nxp] = 1.0 / max(nx[i, j], 1e-6)
                nxp += 1
    if first:
        for k in range(kdim):
            for xp in range(nxp):
                pxc[k * nxp + xp] = px[k, xpos[xp]]
    accC[: noy * nxp] = 0.0
    if ntk:
        accN[: noy * nxp] = 0.0
    for i2 in range(h):
        row_used = False
        for t in range(w):
            nyv = ny[i2, t]
            if nyv <= 0.0:
                continue
            if not row_used:
                row_used = True
                rowC[: wo * nxp] = 0.0
                if ntk:
                    rowN[: wo * nxp] = 0.0
            # patch kernel of y position (i2, t) with every x position, grouped by column offset
            for xp in range(nxp):
                P[xp] = 0.0
            if first:
                k = 0
                for b in range(s):  # the first column offset sums straight into P (0 + x is exact)
                    acc = P if b == 0 else Col
                    if b > 0:
                        for xp in range(nxp):
                            Col[xp] = 0.0
                    for a in range(s * nc):
                        yv = py[k, i2 * w + t]
                        if yv != 0.0:
                            prow = pxc[k * nxp:(k + 1) * nxp]
                            for xp in range(nxp):
                                acc[xp] += prow[xp] * yv
                        k += 1
                    if b > 0:
                        for xp in range(nxp):
                            P[xp] += Col[xp]
                if ntk:
                    for xp in range(nxp):
                        Q[xp] = P[xp]
            else:
                for pass_ in range(2 if ntk else 1):
                    src = Gin if pass_ == 0 else Nin
                    dst = P if pass_ == 0 else Q
                    for xp in range(nxp):
                        dst[xp] = 0.0
                    for b in offs:  # offs[0] == 0: that column offset sums straight into dst
                        c2 = t + b
                        if c2 < 0 or c2 >= w:
                            continue
                        j0 = max(0, -b)
                        j1 = min(w, w - b)
                        acc = dst if b == 0 else Col
                        if b != 0:
                            for xp in range(nxp):
                                Col[xp] = 0.0
                        for a in offs:
                            r2 = i2 + a
                            if r2 < 0 or r2 >= h:
                                continue
                            for i in range(max(0, -a), min(h, h - a)):
                                row = src[r2, c2, i + a, j0 + b:j1 + b]
                                dacc = acc[i * w + j0:i * w + j1]
                                for j in range(j1 - j0):
                                    dacc[j] += row[j]
                        if b != 0:
                            for xp in range(nxp):
                                dst[xp] += Col[xp]
            # non-linearity: cosine (P * 1/n) * 1/n', then the reference's formulas
            iny = 1.0 / max(nyv, 1e-6)
            if kern == 0:
                for xp in range(nxp):
                    c = (P[xp] * nu * xinv[xp]) * iny
                    # a cosine within 4 ulps of 1 is 1 (parallel patches, e.g. a self-pair):
                    # kappa0's infinite slope would turn the rounding into ~1e-8 errors
                    P[xp] = 1.0 if c >= _COS_SNAP else max(c, -1.0)
                for xp in range(nxp):  # libm's arccos (a scalar call; the other loops vectorise)
                    Tn[xp] = math.acos(P[xp])
                for xp in range(nxp):
                    c = P[xp]
                    T[xp] = ((math.sqrt(1.0 - c * c) + c * (pi - Tn[xp])) / pi * xn[xp]) * nyv
                if ntk:
                    for xp in range(nxp):
                        Tn[xp] = (Q[xp] * nu * (pi - Tn[xp])) / pi + T[xp]
            else:
                for xp in range(nxp):
                    c = (P[xp] * nu * xinv[xp]) * iny
                    c = min(max(c, -1.0), 1.0)
                    T[xp] = (math.exp(inv_s2 * (c - 1.0)) * xn[xp]) * nyv
            # pool along j' (this row of y)
            for e in range(csr_ptr[wp + t], csr_ptr[wp + t + 1]):
                g = csr_w[we + e]
                base = csr_out[we + e] * nxp
                dC = rowC[base:base + nxp]
                for xp in range(nxp):
                    dC[xp] += g * T[xp]
                if ntk:
                    dN = rowN[base:base + nxp]
                    for xp in range(nxp):
                        dN[xp] += g * Tn[xp]
        if not row_used:
            continue
        # pool along i' (rows of y)
        for e in range(csr_ptr[hp + i2], csr_ptr[hp + i2 + 1]):
            g = csr_w[he + e]
            base = csr_out[he + e] * wo * nxp
            dC = accC[base:base + wo * nxp]
            for k in range(wo * nxp):
                dC[k] += g * rowC[k]
            if ntk:
                dN = accN[base:base + wo * nxp]
                for k in range(wo * nxp):
                    dN[k] += g * rowN[k]
    # pool along j then i (x axes): transpose acc to [x position, y output] first
    for pass_ in range(2 if ntk else 1):
        acc = accC if pass_ == 0 else accN
        out = Gout if pass_ == 0 else Nout
        for oy in range(noy):
            for xp in range(nxp):
                accX[xp * noy + oy] = acc[oy * nxp + xp]
        for e in range(h * wo * noy):
            accT[e] = 0.0
        for xp in range(nxp):
            i = xpos[xp] // w
            j = xpos[xp] - i * w
            for e in range(csr_ptr[wp + j], csr_ptr[wp + j + 1]):
                g = csr_w[we + e]
                base = (i * wo + csr_out[we + e]) * noy
                dT = accT[base:base + noy]
                sX = accX[xp * noy:(xp + 1) * noy]
                for oy in range(noy):
                    dT[oy] += g * sX[oy]
        for e in range(noy * noy):
            G2[e] = 0.0
        for i in range(h):
            for e in range(csr_ptr[hp + i], csr_ptr[hp + i + 1]):
                g = csr_w[he + e]
                dst0 = csr_out[he + e] * wo * noy
                src0 = i * wo * noy
                dG = G2[dst0:dst0 + wo * noy]
                sT = accT[src0:src0 + wo * noy]
                for k in range(wo * noy):
                    dG[k] += g * sT[k]
        for oi in range(ho):  # G2 is [x output, y output]; store y-major
            for oj in range(wo):
                base = (oi * wo + oj) * noy
                for yi in range(ho):
                    for yj in range(wo):
                        out[yi, yj, oi, oj] = G2[base + yi * wo + yj]


@njit(nogil=True, cache=True)
def _pipeline(self_mode, px, py, norms_x, norms_y, lay_i, lay_f, offs_all, csr_ptr, csr_out, csr_w,
              ntk, fbuf, ibuf):
    """Run all layers for one pair; return (K_ckn, K_ntk).

    In ``self_mode`` (``py is px``), the per-layer norms of the image are
    computed along the way and written into ``norms_x`` (= ``norms_y``).
    """
    L = lay_i.shape[0]
    maxpool = maxacc = maxhw = 1
    for k in range(L):
        h, w, ho, wo = lay_i[k, _H], lay_i[k, _W], lay_i[k, _HO], lay_i[k, _WO]
        maxpool = max(maxpool, (ho * wo) ** 2)
        maxacc = max(maxacc, ho * wo * h * w)
        maxhw = max(maxhw, h * w)
    kdim = px.shape[0]
    GA = fbuf[0:maxpool]
    NA = fbuf[maxpool:2 * maxpool]
    GB = fbuf[2 * maxpool:3 * maxpool]
    NB = fbuf[3 * maxpool:4 * maxpool]
    G2 = fbuf[4 * maxpool:5 * maxpool]
    p0 = 5 * maxpool
    acc = fbuf[p0:p0 + 6 * maxacc].reshape((6, maxacc))  # rows: views of the work buffer
    accC, accN, accX, accT, rowC, rowN = acc[0], acc[1], acc[2], acc[3], acc[4], acc[5]
    p0 += 6 * maxacc
    pxc = fbuf[p0:p0 + kdim * maxhw]
    p0 += kdim * maxhw
    pos = fbuf[p0:p0 + 7 * maxhw].reshape((7, maxhw))
    P, Q, Col, T, Tn, xinv, xn = pos[0], pos[1], pos[2], pos[3], pos[4], pos[5], pos[6]
    xpos = ibuf[0:maxhw]
    Gin4 = GA[:1].reshape((1, 1, 1, 1))
    Nin4 = NA[:1].reshape((1, 1, 1, 1))
    Gout4 = Gin4
    Nout4 = Nin4
    for k in range(L):
        h, w, ho, wo = lay_i[k, _H], lay_i[k, _W], lay_i[k, _HO], lay_i[k, _WO]
        noff = lay_i[k, _NOFF]
        nx = norms_x[noff:noff + h * w].reshape((h, w))
        ny = norms_y[noff:noff + h * w].reshape((h, w))
        first = k == 0
        offs = offs_all[k, :lay_i[k, _S]]
        if self_mode:
            _layer_norms(first, px, Gin4, nx, h, w, lay_i[k, _S], offs, lay_f[k, 0])
        n4 = (ho * wo) ** 2
        if k % 2 == 0:
            Gout4 = GB[:n4].reshape((ho, wo, ho, wo))
            Nout4 = NB[:n4].reshape((ho, wo, ho, wo))
        else:
            Gout4 = GA[:n4].reshape((ho, wo, ho, wo))
            Nout4 = NA[:n4].reshape((ho, wo, ho, wo))
        _layer(first, px, py, Gin4, Nin4, nx, ny, lay_i[k], offs, lay_f[k, 0], lay_f[k, 1], ntk,
               csr_ptr, csr_out, csr_w, Gout4, Nout4, G2, accC, accN, accX, accT, rowC, rowN, pxc, P, Q, Col,
               T, Tn, xinv, xn, xpos)
        Gin4 = Gout4
        Nin4 = Nout4
    ho, wo = lay_i[L - 1, _HO], lay_i[L - 1, _WO]
    kc = 0.0
    kn = 0.0
    for i in range(ho):
        for j in range(wo):
            kc += Gout4[i, j, i, j]
            if ntk:
                kn += Nout4[i, j, i, j]
    return kc, kn


@njit(nogil=True, cache=True, parallel=True)
def pairs_parallel(self_mode, pa, pb, patches, norms, lay_i, lay_f, offs_all, csr_ptr, csr_out, csr_w,
                    ntk, fbufs, ibufs, out_ckn, out_ntk):
    """Kernel values of many pairs (``pa[p]``, ``pb[p]``) in parallel over pairs.

    One worker per row of ``fbufs``/``ibufs`` (per-thread work buffers); each
    takes every ``nthreads``-th pair. In ``self_mode`` pair ``p`` is image
    ``pa[p]`` with itself and its norms are written into ``norms[pa[p]]``.
    """
    nthreads = fbufs.shape[0]
    npairs = pa.shape[0]
    for t in prange(nthreads):
        for p in range(t, npairs, nthreads):
            a = pa[p]
            b = pb[p]
            kc, kn = _pipeline(self_mode, patches[a], patches[b], norms[a], norms[b], lay_i, lay_f, offs_all,
                               csr_ptr, csr_out, csr_w, ntk, fbufs[t], ibufs[t])
            out_ckn[p] = kc
            out_ntk[p] = kn


# --------------------------------------------------------------------------- work buffers and batches
def first_layer_patches(img: np.ndarray, s: int, even: str = "reference") -> np.ndarray:
    """Zero-padded first-layer patches of an (H, W, C) image, transposed: ``(s*s*C, H*W)``.

    Column ``i*W + j`` holds ``x[i + a, j + b, c]`` ordered (b, a, c), with a, b
    running over :func:`patch_offsets` (the order of the reference's patch sums).
    """
    h, w, c = img.shape
    offs = patch_offsets(s, even)
    m = max(abs(v) for v in offs)
    pad = np.zeros((h + 2 * m, w + 2 * m, c))
    pad[m:m + h, m:m + w] = img
    out = np.empty((s, s, c, h, w))
    for bi, b in enumerate(offs):
        for ai, a in enumerate(offs):
            out[bi, ai] = np.moveaxis(pad[m + a:m + a + h, m + b:m + b + w, :], 2, 0)
    return np.ascontiguousarray(out.reshape(s * s * c, h * w))


class _Workspace(threading.local):
    """Per-thread work buffers for single-pair calls, grown on demand and reused."""

    def __init__(self):
        self.fbuf = np.zeros(0)
        self.ibuf = np.zeros(0, np.int64)

    def get(self, plan: Plan):
        if self.fbuf.size < plan.fsize:
            self.fbuf = np.zeros(plan.fsize)
        if self.ibuf.size < plan.isize:
            self.ibuf = np.zeros(plan.isize, np.int64)
        return self.fbuf, self.ibuf


_WS = _Workspace()


def run_pair(self_mode, px, py, nx, ny, plan, ntk):
    fbuf, ibuf = _WS.get(plan)
    return _pipeline(self_mode, px, py, nx, ny, plan.lay_i, plan.lay_f, plan.offsets, plan.csr_ptr, plan.csr_out, plan.csr_w,
                     ntk, fbuf, ibuf)
