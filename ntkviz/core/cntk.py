"""Exact infinite-width convolutional kernels of a ReLU CNN on images: CKN and NTK.

For an architecture (a list of :class:`Layer` s: patch size, subsampling,
pooling, patch kernel) this module computes, for two images ``x`` and ``y`` of
shape (H, W) or (H, W, C):

* ``K_CKN(x, y)``: the kernel of training only the last layer of the
  infinitely wide CNN (the CKN of Bietti & Mairal, the "NNGP" of a CNN);
* ``K_NTK(x, y)``: the convolutional neural tangent kernel, Bietti & Mairal
  (NeurIPS 2019), Prop. 2; the NTK recursion carries the CKN one, so both come
  out of a single pass.

Conventions (ntkviz's definition, ``docs/spec.md`` §3.3): those of the
reference implementation albietz/ckn_kernel at its 2021 HEAD (``c59fe52``):

1. "same" zero padding; the patch kernel is the **plain sum**
   ``P(u, u') = sum_{v in S} G(u + v, u' + v)`` over ``S = {o..o+s-1}^2`` with
   ``o = -((s - 1) // 2)``; a term is dropped when a shifted position falls off
   the grid. ``patch_normalization="mean"`` multiplies every patch sum by the
   paper's ``1/|S| = 1/s^2`` instead (Prop. 2's ``|S_k|^{-1/2}`` patch
   operator): for the 1-homogeneous ``relu`` and ``exp`` kernels this
   multiplies every kernel value by ``prod_l s_l^-2`` and leaves cosines and
   relative distances unchanged -- absolute values then differ from the
   reference.
2. norms ``n(u) = sqrt(P_xx(u, u))`` from the CKN chain of ``(x, x)``
   (also in NTK mode); cosine ``c = (P * (1/max(n, 1e-6))) * (1/max(n', 1e-6))``
   in this operation order, then **clipped to [-1, 1]** (the reference clips
   only at 1 and returns NaN when rounding gives ``c < -1`` on signed inputs;
   wherever the reference is finite the values are identical).
3. ``relu``: ``C = n n' kappa1(c)``, ``kappa1(c) = (sqrt(1-c^2) + c(pi - arccos c))/pi``;
   ``exp``: ``C = n n' exp((c - 1)/sigma^2)``.
4. NTK (``relu`` only): ``N = C + Q kappa0(c)``, ``kappa0(c) = (pi - arccos c)/pi``,
   ``Q_0 = P_0`` and ``Q_l`` the patch sum of the pooled NTK tensor ``N_{l-1}``.
5. separable pooling (the same 1-D filter on each axis): ``gaussian``
   ``2 pf + 1`` taps ``exp(-a^2/pf^2)`` normalised to 1, window from
   ``sub * i``, output size ``H // sub - 1``; ``average`` ``pf`` taps ``1/pf``
   from ``sub * i``, size ``H // sub``; ``strided`` ``in[sub (i + 1)]``, size
   ``H // sub - 1``; taps past the end are dropped without renormalisation.
6. output: the trace over the last pooled grid (the l2 inner product of the
   final feature maps).

Unlike the reference, images may be non-square and multi-channel.

Performance design (``docs/spec.md`` §3.6): the per-image "norm" pipeline
(the ``(x, x)`` pass) is computed once and kept in an :class:`ImageNorms`; a
pair then costs one cross pass. The cross pass never materialises the
``(H, W, H, W)`` tensor of the first layer: it walks pairs of rows, evaluates
the patch kernel only where both patch norms are non-zero (exactly where the
reference's value is non-zero -- a zero patch contributes an exact 0), and
pools each slab along the four axes separately, into preallocated
per-thread work buffers (no allocation per pair).
"""
from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator, Sequence

import numba
import numpy as np
from numba import njit, prange

from ntkviz.core._validate import check_choice, check_float, check_int
from ntkviz.core.digits import validate_image, validate_images

__all__ = [
    "Layer",
    "Architecture",
    "PRESETS",
    "POOLINGS",
    "PATCH_KERNELS",
    "PATCH_NORMALIZATIONS",
    "MODES",
    "ImageNorms",
    "GramProgress",
    "architecture_from_dict",
    "architecture_to_dict",
    "image_norms",
    "cross_kernels",
    "rel_distances",
    "gram_iter",
    "gram_matrix",
]

POOLINGS = ("gaussian", "average", "strided")
PATCH_KERNELS = ("relu", "exp")
PATCH_NORMALIZATIONS = ("sum", "mean")
MODES = ("ckn", "ntk")
_LAYER_KEYS = ("npatch", "subsampling", "pooling", "kernel", "sigma", "poolfactor")


# --------------------------------------------------------------------------- architecture
@dataclass(frozen=True)
class Layer:
    """One convolutional layer: patch extraction, patch kernel, pooling.

    Parameters
    ----------
    npatch : patch side ``s`` (an ``s x s`` patch, offsets from ``-((s-1)//2)``).
    subsampling : pooling stride ``sub``.
    pooling : ``"gaussian"``, ``"average"`` or ``"strided"`` (see module docstring).
    kernel : patch kernel, ``"relu"`` (arc-cosine kappa1; NTK possible) or
        ``"exp"`` (``exp((c-1)/sigma^2)``, CKN only).
    sigma : bandwidth of ``exp`` (ignored by ``relu``).
    poolfactor : pooling filter scale ``pf``; ``None`` means ``subsampling``.
    """

    npatch: int
    subsampling: int
    pooling: str = "gaussian"
    kernel: str = "relu"
    sigma: float = 1.0
    poolfactor: int | None = None

    @property
    def pool_factor(self) -> int:
        """The pooling filter scale actually used (``poolfactor`` or ``subsampling``)."""
        return self.subsampling if self.poolfactor is None else self.poolfactor

    def validated(self, name: str = "layer") -> "Layer":
        """Return a normalised copy, or raise ``ValueError`` naming the field and range."""
        npatch = check_int(f"{name} npatch", self.npatch, 1, 99)
        sub = check_int(f"{name} subsampling", self.subsampling, 1, 99)
        pooling = check_choice(f"{name} pooling", self.pooling, POOLINGS)
        kernel = check_choice(f"{name} kernel", self.kernel, PATCH_KERNELS)
        sigma = check_float(f"{name} sigma", self.sigma, 1e-3, 1e3)
        pf = None if self.poolfactor is None else check_int(f"{name} poolfactor", self.poolfactor, 1, 99)
        return Layer(npatch, sub, pooling, kernel, sigma, pf)

    def pooled_size(self, n: int) -> int:
        """Output length of this layer's pooling on a conv axis of length ``n``."""
        if self.pooling == "average":
            return n // self.subsampling
        return n // self.subsampling - 1


@dataclass(frozen=True)
class Architecture:
    """A convolutional architecture: layers plus the patch normalisation.

    ``patch_normalization="sum"`` is the reference (albietz/ckn_kernel HEAD)
    convention, the ntkviz default; ``"mean"`` is the paper's ``1/|S|``.
    """

    layers: tuple[Layer, ...]
    patch_normalization: str = "sum"

    def __post_init__(self):
        object.__setattr__(self, "layers", tuple(self.layers))

    def validated(self) -> "Architecture":
        """Return a validated copy, or raise ``ValueError`` saying which layer and why."""
        if not isinstance(self.layers, tuple) or not self.layers:
            raise ValueError("architecture must have at least one layer")
        if len(self.layers) > 8:
            raise ValueError(f"architecture must have at most 8 layers, got {len(self.layers)}")
        layers = []
        for k, lay in enumerate(self.layers, 1):
            if not isinstance(lay, Layer):
                raise ValueError(f"layer {k} must be a Layer, got {type(lay).__name__}")
            layers.append(lay.validated(f"layer {k}"))
        norm = check_choice("patch_normalization", self.patch_normalization, PATCH_NORMALIZATIONS)
        return Architecture(tuple(layers), norm)

    @property
    def supports_ntk(self) -> bool:
        """True when every layer uses the ``relu`` patch kernel (the NTK needs kappa0)."""
        return all(lay.kernel == "relu" for lay in self.layers)

    def layer_sizes(self, height: int, width: int) -> list[tuple[tuple[int, int], tuple[int, int], tuple[int, int]]]:
        """Grid sizes ``((h, w) input, (h, w) conv, (h, w) pooled)`` per layer.

        Raises ``ValueError`` naming the layer when its patch is larger than
        its input map or its pooling shrinks the map to nothing.
        """
        arch = self.validated()
        h = check_int("image height", height, 1, 4096)
        w = check_int("image width", width, 1, 4096)
        sizes = []
        for k, lay in enumerate(arch.layers, 1):
            desc = f"layer {k} ({lay.npatch}x{lay.npatch} patch, {lay.pooling} pooling, subsampling {lay.subsampling})"
            if lay.npatch > min(h, w):
                raise ValueError(f"{desc}: patch larger than its {h}x{w} input map")
            ho, wo = lay.pooled_size(h), lay.pooled_size(w)
            if ho < 1 or wo < 1:
                raise ValueError(
                    f"{desc}: pooling shrinks the {h}x{w} map to nothing "
                    f"({max(ho, 0)}x{max(wo, 0)}); use fewer layers, smaller subsampling or larger images")
            sizes.append(((h, w), (h, w), (ho, wo)))
            h, w = ho, wo
        return sizes

    def check_mode(self, mode: str) -> str:
        """Validate ``mode`` (``"ckn"``/``"ntk"``) for this architecture."""
        check_choice("mode", mode, MODES)
        if mode == "ntk" and not self.supports_ntk:
            raise ValueError("mode 'ntk' needs the relu patch kernel in every layer "
                             "(the exp kernel has no NTK); use mode 'ckn'")
        return mode

    @property
    def label(self) -> str:
        """Short human-readable description, e.g. ``3x3/2 gaussian relu | 3x3/5 gaussian relu``."""
        parts = []
        for lay in self.layers:
            kern = lay.kernel if lay.kernel == "relu" else f"exp σ={lay.sigma:g}"
            pf = "" if lay.poolfactor is None else f" pf={lay.poolfactor}"
            parts.append(f"{lay.npatch}x{lay.npatch}/{lay.subsampling} {lay.pooling}{pf} {kern}")
        norm = "" if self.patch_normalization == "sum" else " (1/|S| patches)"
        return " | ".join(parts) + norm


def _preset(*layers: tuple) -> Architecture:
    return Architecture(tuple(Layer(*lay) for lay in layers))


#: The oracle models of ``docs/spec.md`` §3.3 (M1 is the reference's README example).
PRESETS: dict[str, Architecture] = {
    "M1": _preset((3, 2, "gaussian", "relu"), (3, 5, "gaussian", "relu")),
    "M2": _preset((3, 2, "gaussian", "relu"), (3, 2, "gaussian", "relu"), (3, 2, "gaussian", "relu")),
    "M3": _preset((5, 2, "average", "relu"), (3, 3, "strided", "relu")),
    "M4": _preset((3, 2, "gaussian", "exp", 0.65), (3, 5, "gaussian", "exp", 0.65)),
}


def _layer_from_dict(d, k: int) -> Layer:
    if not isinstance(d, dict):
        raise ValueError(f"layer {k} must be a dict with keys npatch, subsampling, ...; got {type(d).__name__}")
    unknown = sorted(set(d) - set(_LAYER_KEYS))
    if unknown:
        raise ValueError(f"layer {k}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(_LAYER_KEYS)}")
    for req in ("npatch", "subsampling"):
        if req not in d:
            raise ValueError(f"layer {k}: missing required key {req!r}")
    return Layer(
        npatch=d["npatch"], subsampling=d["subsampling"], pooling=d.get("pooling", "gaussian"),
        kernel=d.get("kernel", "relu"), sigma=d.get("sigma", 1.0), poolfactor=d.get("poolfactor"),
    ).validated(f"layer {k}")


def architecture_from_dict(obj) -> Architecture:
    """Build an :class:`Architecture` from JSON data.

    Accepts the reference's model format -- a list of layer dicts with keys
    ``npatch``, ``subsampling`` and optional ``pooling`` (default gaussian),
    ``kernel`` (default relu), ``sigma`` (1.0), ``poolfactor`` (= subsampling)
    -- or a dict ``{"layers": [...], "patch_normalization": "sum"|"mean"}``.
    """
    norm = "sum"
    if isinstance(obj, dict):
        unknown = sorted(set(obj) - {"layers", "patch_normalization"})
        if unknown:
            raise ValueError(f"architecture: unknown key(s) {', '.join(unknown)}; "
                             "expected 'layers' and optional 'patch_normalization'")
        if "layers" not in obj:
            raise ValueError("architecture: missing key 'layers' (a list of layer dicts)")
        norm = obj.get("patch_normalization", "sum")
        obj = obj["layers"]
    if not isinstance(obj, (list, tuple)) or not obj:
        raise ValueError("architecture must be a non-empty list of layer dicts")
    layers = tuple(_layer_from_dict(d, k) for k, d in enumerate(obj, 1))
    return Architecture(layers, norm).validated()


def architecture_to_dict(arch: Architecture) -> dict:
    """JSON-serialisable form, readable by :func:`architecture_from_dict`."""
    layers = []
    for lay in arch.layers:
        d = {"npatch": lay.npatch, "subsampling": lay.subsampling, "pooling": lay.pooling, "kernel": lay.kernel}
        if lay.kernel == "exp":
            d["sigma"] = lay.sigma
        if lay.poolfactor is not None:
            d["poolfactor"] = lay.poolfactor
        layers.append(d)
    return {"layers": layers, "patch_normalization": arch.patch_normalization}


# --------------------------------------------------------------------------- pooling filters
def pooling_matrix(layer: Layer, n: int) -> np.ndarray:
    """Dense 1-D pooling matrix ``(pooled_size(n), n)`` of ``layer`` on an axis of length ``n``."""
    m = layer.pooled_size(n)
    sub, pf = layer.subsampling, layer.pool_factor
    mat = np.zeros((max(m, 0), n))
    if layer.pooling == "gaussian":  # computed exactly as the reference's makeFilter
        sig = pf / math.sqrt(2.0)
        taps = [math.exp(-(a * a) / (2 * sig * sig)) for a in range(-pf, pf + 1)]
        total = 0.0
        for t in taps:
            total += t
        taps = [t / total for t in taps]
    elif layer.pooling == "average":
        taps = np.full(pf, 1.0 / pf)
    for o in range(m):
        if layer.pooling == "strided":
            mat[o, sub * (o + 1)] = 1.0
            continue
        for t, wt in enumerate(taps):
            if sub * o + t < n:
                mat[o, sub * o + t] = wt
    return mat


# --------------------------------------------------------------------------- numeric plan
_NI = 13  # ints per layer in the plan table
(_H, _W, _S, _HO, _WO, _KERN, _HPTR, _HENT, _WPTR, _WENT, _DOFF, _GOFF, _NOFF) = range(_NI)


def patch_offsets(s: int) -> list[int]:
    """Patch offsets v of an ``s x s`` patch, in the reference's summation order.

    The reference (HEAD) adds ``G(u - r, u' - r)`` for ``r = start .. start+s-1``
    with ``start = -((s-1)//2)`` (C++ division), after the ``r = 0`` term:
    offsets ``{-1, 0, 1}`` for s = 3, ``{-2..2}`` for s = 5, and for even s
    the window leans backwards: ``{-1, 0}`` for s = 2, ``{-2..1}`` for s = 4.
    """
    start = -((s - 1) // 2)
    return [0] + [-r for r in range(start, start + s) if r != 0]


@dataclass(frozen=True)
class _Plan:
    """Flat numeric description of an architecture at one input size (numba input)."""

    lay_i: np.ndarray    # (L, _NI) int64, columns named by the _H.. constants
    lay_f: np.ndarray    # (L, 2) float64: nu (patch factor), 1/sigma^2
    offsets: np.ndarray  # (L, max s) int64: patch offsets in the reference's summation order
    csr_ptr: np.ndarray  # int64, per axis: ptr[in + 1] into the entries (scatter form of the pooling)
    csr_out: np.ndarray  # int64 output index of each entry
    csr_w: np.ndarray    # float64 weight of each entry
    dense_w: np.ndarray  # float64, per layer: the (wo, w) pooling matrix of the width axis (gather form)
    gather: np.ndarray   # int64, per layer: [first, last + 1) input range of each width output
    norm_len: int        # total length of the flat per-image norm array
    fsize: int           # float work-buffer length per thread
    isize: int           # int work-buffer length per thread


@lru_cache(maxsize=64)
def _plan(arch: Architecture, height: int, width: int) -> _Plan:
    sizes = arch.layer_sizes(height, width)
    L = len(arch.layers)
    lay_i = np.zeros((L, _NI), np.int64)
    lay_f = np.zeros((L, 2))
    offsets = np.zeros((L, max(lay.npatch for lay in arch.layers)), np.int64)
    ptrs, outs, wts, dense, gather = [], [], [], [], []
    norm_off = 0
    maxpool = maxw = maxu = maxhw = maxh = maxwo = 1
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
        wmat = pooling_matrix(lay, w)
        doff, goff = len(dense), len(gather)
        dense.extend(wmat.ravel().tolist())
        for o in range(wo):
            nz = np.nonzero(wmat[o])[0]
            gather += [int(nz[0]), int(nz[-1]) + 1]
        s = lay.npatch
        offsets[k, :s] = patch_offsets(s)
        lay_i[k] = (h, w, s, ho, wo, PATCH_KERNELS.index(lay.kernel), *axis, doff, goff, norm_off)
        lay_f[k] = (1.0 if arch.patch_normalization == "sum" else 1.0 / (s * s), 1.0 / (lay.sigma ** 2))
        norm_off += h * w
        maxpool = max(maxpool, (ho * wo) ** 2)
        maxw = max(maxw, w)
        maxwo = max(maxwo, wo)
        maxu = max(maxu, ho * wo * wo)
        maxhw = max(maxhw, h * w)
        maxh = max(maxh, h)
    fsize = 4 * maxpool + 2 * maxwo * maxwo + 2 * maxu + 5 * maxw + 2 * maxwo * maxw + maxhw
    isize = maxh + 1 + maxhw + 2 * maxh
    as_i = lambda v: np.array(v, np.int64)  # noqa: E731
    return _Plan(lay_i, lay_f, offsets, as_i(ptrs), as_i(outs), np.array(wts, np.float64),
                 np.array(dense, np.float64), as_i(gather), norm_off, fsize, isize)


# --------------------------------------------------------------------------- numba kernels
# fdlibm's acos (|error| <= 1 ulp), written branch-free so that LLVM vectorises the row loops.
_PS0, _PS1, _PS2 = 1.66666666666666657415e-01, -3.25565818622400915405e-01, 2.01212532134862925881e-01
_PS3, _PS4, _PS5 = -4.00555345006794114027e-02, 7.91534994289814532176e-04, 3.47933107596021167570e-05
_QS1, _QS2 = -2.40339491173441421878e+00, 2.02094576023350569471e+00
_QS3, _QS4 = -6.88283971605453293030e-01, 7.70381505559019352791e-02
_PIO2_HI, _PIO2_LO = 1.57079632679489655800e+00, 6.12323399573676603587e-17


@njit(nogil=True, cache=True, inline="always")
def _acos(x):
    """arccos on [-1, 1] (fdlibm's rational approximation, within 1 ulp of libm)."""
    ax = abs(x)
    zb = (1.0 - ax) * 0.5
    small = ax < 0.5
    z = x * x if small else zb
    p = z * (_PS0 + z * (_PS1 + z * (_PS2 + z * (_PS3 + z * (_PS4 + z * _PS5)))))
    r = p / (1.0 + z * (_QS1 + z * (_QS2 + z * (_QS3 + z * _QS4))))
    s = math.sqrt(zb)
    big = 2.0 * (s + s * r) if x > 0 else math.pi - 2.0 * (s + (r * s - _PIO2_LO))
    return _PIO2_HI - (x - (_PIO2_LO - x * r)) if small else big


@njit(nogil=True, cache=True)
def _nonzero_cols(n2d, ptr, col):
    """CSR list (per row) of the positions with a non-zero norm."""
    h, w = n2d.shape
    k = 0
    ptr[0] = 0
    for i in range(h):
        for j in range(w):
            if n2d[i, j] > 0.0:
                col[k] = j
                k += 1
        ptr[i + 1] = k


@njit(nogil=True, cache=True)
def _nonzero_span(n2d, lo, hi):
    """Per row, the span [lo, hi) of the positions with a non-zero norm (empty: lo >= hi)."""
    h, w = n2d.shape
    for i in range(h):
        lo[i] = w
        hi[i] = 0
        for j in range(w):
            if n2d[i, j] > 0.0:
                lo[i] = min(lo[i], j)
                hi[i] = j + 1


@njit(nogil=True, cache=True, inline="always")
def _patch_sum(T, i, j, i2, j2, h, w, offs):
    """Plain patch sum of T(u + v, u' + v) over v in offs x offs, off-grid terms dropped.

    Summation order as the reference: for each column offset (in ``offs``
    order) the sum over row offsets, then the sum of those.
    """
    acc = 0.0
    for b in offs:
        c = j + b
        c2 = j2 + b
        if c < 0 or c >= w or c2 < 0 or c2 >= w:
            continue
        col = 0.0
        for a in offs:
            r = i + a
            r2 = i2 + a
            if r < 0 or r >= h or r2 < 0 or r2 >= h:
                continue
            col += T[r, c, r2, c2]
        acc += col
    return acc


@njit(nogil=True, cache=True, inline="always")
def _patch_row_tensor(T, i, j, i2, lo, hi, h, w, offs, P, Col):
    """Later layers: P[t] = patch sum of T(u + v, u' + v), u = (i, j), u' = (i2, t), t in [lo, hi).

    Same terms and summation order as :func:`_patch_sum`, vectorised along t.
    """
    for t in range(lo, hi):
        P[t] = 0.0
    for b in offs:
        c = j + b
        if c < 0 or c >= w:
            continue
        t0 = max(lo, -b)
        t1 = min(hi, w - b)
        for t in range(t0, t1):
            Col[t] = 0.0
        for a in offs:
            r = i + a
            r2 = i2 + a
            if r < 0 or r >= h or r2 < 0 or r2 >= h:
                continue
            for t in range(t0, t1):
                Col[t] += T[r, c, r2, t + b]
        for t in range(t0, t1):
            P[t] += Col[t]


@njit(nogil=True, cache=True, inline="always")
def _patch_row(px, py, kx, ky0, lo, hi, s, nc, P, Col):
    """First layer: P[t] = patch sum of x at position kx with y at ky0 + t, t in [lo, hi).

    Patches are stored transposed, (s*s*C, H*W), components ordered (column
    offset, row offset, channel): the per-column-offset partial sums match
    the reference's order exactly.
    """
    for t in range(lo, hi):
        P[t] = 0.0
    k = 0
    for b in range(s):
        for t in range(lo, hi):
            Col[t] = 0.0
        for a in range(s * nc):
            xv = px[k, kx]
            if xv != 0.0:
                for t in range(lo, hi):
                    Col[t] += xv * py[k, ky0 + t]
            k += 1
        for t in range(lo, hi):
            P[t] += Col[t]


@njit(nogil=True, cache=True)
def _layer_norms(first, px, Gin, out2d, h, w, s, offs, nu, Col, P):
    """Per-position patch norms n(u) = sqrt(P_xx(u, u)) of one image at one layer."""
    nc = px.shape[0] // (s * s)
    for i in range(h):
        for j in range(w):
            if first:
                _patch_row(px, px, i * w + j, i * w, j, j + 1, s, nc, P, Col)
                acc = P[j]
            else:
                acc = _patch_sum(Gin, i, j, i, j, h, w, offs)
            out2d[i, j] = math.sqrt(max(acc * nu, 0.0))


@njit(nogil=True, cache=True)
def _layer(first, px, py, Gin, Nin, nx, ny, li, offs, nu, inv_s2, ntk, csr_ptr, csr_out, csr_w,
           dense_w, gather, Gout, Nout, W, Wn, U, Un, P, Q, Col, T, Tn, Wt, Wtn, iny,
           nzx_ptr, nzx_col, ylo, yhi):
    """One layer of the cross recursion: patch kernel, non-linearity, pooling.

    For each pair of rows (i, i') with non-zero norms in both images and each
    non-zero position j of row i, the patch kernel and the non-linearity are
    evaluated on the whole span of non-zero positions of row i' (vectorised
    row loops) and scattered along j (into Wt); the slab is then pooled along
    j' (gather, into W) and scattered along i' (into U) and i (into Gout, Nout).
    """
    h, w, s, ho, wo, kern = li[_H], li[_W], li[_S], li[_HO], li[_WO], li[_KERN]
    hp, he, wp, we, doff, goff = li[_HPTR], li[_HENT], li[_WPTR], li[_WENT], li[_DOFF], li[_GOFF]
    nc = px.shape[0] // (s * s)
    pi = math.pi
    for i2 in range(h):
        for t in range(w):
            iny[i2 * w + t] = 1.0 / max(ny[i2, t], 1e-6)
    Gout[:] = 0.0
    if ntk:
        Nout[:] = 0.0
    for i in range(h):
        if nzx_ptr[i + 1] == nzx_ptr[i]:
            continue
        U[:] = 0.0
        if ntk:
            Un[:] = 0.0
        oxlo = wo
        oxhi = 0
        for jj in range(nzx_ptr[i], nzx_ptr[i + 1]):
            j = nzx_col[jj]
            e0 = csr_ptr[wp + j]
            e1 = csr_ptr[wp + j + 1]
            if e1 > e0:
                oxlo = min(oxlo, csr_out[we + e0])
                oxhi = max(oxhi, csr_out[we + e1 - 1] + 1)
        if oxhi <= oxlo:
            continue
        for i2 in range(h):
            lo = ylo[i2]
            hi = yhi[i2]
            if hi <= lo:
                continue
            # outputs of the width pooling reached by the span [lo, hi)
            olo = wo
            ohi = 0
            for t in range(lo, hi):
                e0 = csr_ptr[wp + t]
                e1 = csr_ptr[wp + t + 1]
                if e1 > e0:
                    olo = min(olo, csr_out[we + e0])
                    ohi = max(ohi, csr_out[we + e1 - 1] + 1)
            if ohi <= olo:
                continue
            for o in range(oxlo, oxhi):
                for t in range(lo, hi):
                    Wt[o * w + t] = 0.0
                    Wtn[o * w + t] = 0.0
            for jj in range(nzx_ptr[i], nzx_ptr[i + 1]):
                j = nzx_col[jj]
                if first:
                    _patch_row(px, py, i * w + j, i2 * w, lo, hi, s, nc, P, Col)
                    if ntk:
                        for t in range(lo, hi):
                            Q[t] = P[t]
                else:
                    _patch_row_tensor(Gin, i, j, i2, lo, hi, h, w, offs, P, Col)
                    if ntk:
                        _patch_row_tensor(Nin, i, j, i2, lo, hi, h, w, offs, Q, Col)
                nxv = nx[i, j]
                inx = 1.0 / max(nxv, 1e-6)
                # non-linearity, in the reference's operation order (cosines bitwise equal matter at c ~ 1)
                if kern == 0 and ntk:
                    for t in range(lo, hi):
                        c = (P[t] * nu * inx) * iny[i2 * w + t]
                        c = min(max(c, -1.0), 1.0)
                        theta = _acos(c)
                        T[t] = ((math.sqrt(1.0 - c * c) + c * (pi - theta)) / pi * nxv) * ny[i2, t]
                        Tn[t] = (Q[t] * nu * (pi - theta)) / pi + T[t]
                elif kern == 0:
                    for t in range(lo, hi):
                        c = (P[t] * nu * inx) * iny[i2 * w + t]
                        c = min(max(c, -1.0), 1.0)
                        theta = _acos(c)
                        T[t] = ((math.sqrt(1.0 - c * c) + c * (pi - theta)) / pi * nxv) * ny[i2, t]
                else:
                    for t in range(lo, hi):
                        c = (P[t] * nu * inx) * iny[i2 * w + t]
                        c = min(max(c, -1.0), 1.0)
                        T[t] = (math.exp(inv_s2 * (c - 1.0)) * nxv) * ny[i2, t]
                # pool along j (scatter the row into Wt[o, :])
                for e in range(csr_ptr[wp + j], csr_ptr[wp + j + 1]):
                    o = csr_out[we + e]
                    g = csr_w[we + e]
                    if ntk:
                        for t in range(lo, hi):
                            Wt[o * w + t] += g * T[t]
                            Wtn[o * w + t] += g * Tn[t]
                    else:
                        for t in range(lo, hi):
                            Wt[o * w + t] += g * T[t]
            # pool along j' (gather over the span, only the outputs it reaches)
            for o in range(oxlo, oxhi):
                for o2 in range(olo, ohi):
                    a0 = max(gather[goff + 2 * o2], lo)
                    a1 = min(gather[goff + 2 * o2 + 1], hi)
                    acc = 0.0
                    accn = 0.0
                    for t in range(a0, a1):
                        g = dense_w[doff + o2 * w + t]
                        acc += g * Wt[o * w + t]
                        accn += g * Wtn[o * w + t]
                    W[o * wo + o2] = acc
                    Wn[o * wo + o2] = accn
            # pool along i' (scatter W into U[o])
            for e in range(csr_ptr[hp + i2], csr_ptr[hp + i2 + 1]):
                g = csr_w[he + e]
                base = csr_out[he + e] * wo * wo
                for o in range(oxlo, oxhi):
                    for o2 in range(olo, ohi):
                        U[base + o * wo + o2] += g * W[o * wo + o2]
                        Un[base + o * wo + o2] += g * Wn[o * wo + o2]
        # pool along i: Gout[o, jo, io', jo'] += g * U[io', jo, jo']
        for e in range(csr_ptr[hp + i], csr_ptr[hp + i + 1]):
            o = csr_out[he + e]
            g = csr_w[he + e]
            for io2 in range(ho):
                for jo in range(wo):
                    for jo2 in range(wo):
                        Gout[o, jo, io2, jo2] += g * U[(io2 * wo + jo) * wo + jo2]
                        if ntk:
                            Nout[o, jo, io2, jo2] += g * Un[(io2 * wo + jo) * wo + jo2]


@njit(nogil=True, cache=True)
def _pipeline(self_mode, px, py, norms_x, norms_y, lay_i, lay_f, offs_all, csr_ptr, csr_out, csr_w,
              dense_w, gather, ntk, fbuf, ibuf):
    """Run all layers for one pair; return (K_ckn, K_ntk).

    In ``self_mode`` (``py is px``), the per-layer norms of the image are
    computed along the way and written into ``norms_x`` (= ``norms_y``).
    """
    L = lay_i.shape[0]
    maxpool = maxw = maxwo = maxu = maxh = maxhw = 1
    for k in range(L):
        h, w, ho, wo = lay_i[k, _H], lay_i[k, _W], lay_i[k, _HO], lay_i[k, _WO]
        maxpool = max(maxpool, (ho * wo) ** 2)
        maxw = max(maxw, w)
        maxwo = max(maxwo, wo)
        maxu = max(maxu, ho * wo * wo)
        maxh = max(maxh, h)
        maxhw = max(maxhw, h * w)
    GA = fbuf[0:maxpool]
    NA = fbuf[maxpool:2 * maxpool]
    GB = fbuf[2 * maxpool:3 * maxpool]
    NB = fbuf[3 * maxpool:4 * maxpool]
    p0 = 4 * maxpool
    W = fbuf[p0:p0 + maxwo * maxwo]
    Wn = fbuf[p0 + maxwo * maxwo:p0 + 2 * maxwo * maxwo]
    p0 += 2 * maxwo * maxwo
    U = fbuf[p0:p0 + maxu]
    Un = fbuf[p0 + maxu:p0 + 2 * maxu]
    p0 += 2 * maxu
    P = fbuf[p0:p0 + maxw]
    Q = fbuf[p0 + maxw:p0 + 2 * maxw]
    Col = fbuf[p0 + 2 * maxw:p0 + 3 * maxw]
    T = fbuf[p0 + 3 * maxw:p0 + 4 * maxw]
    Tn = fbuf[p0 + 4 * maxw:p0 + 5 * maxw]
    p0 += 5 * maxw
    Wt = fbuf[p0:p0 + maxwo * maxw]
    Wtn = fbuf[p0 + maxwo * maxw:p0 + 2 * maxwo * maxw]
    p0 += 2 * maxwo * maxw
    iny = fbuf[p0:p0 + maxhw]
    nzx_ptr = ibuf[0:maxh + 1]
    nzx_col = ibuf[maxh + 1:maxh + 1 + maxhw]
    ylo = ibuf[maxh + 1 + maxhw:2 * maxh + 1 + maxhw]
    yhi = ibuf[2 * maxh + 1 + maxhw:3 * maxh + 1 + maxhw]
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
            _layer_norms(first, px, Gin4, nx, h, w, lay_i[k, _S], offs, lay_f[k, 0], Col, P)
        _nonzero_cols(nx, nzx_ptr, nzx_col)
        _nonzero_span(ny, ylo, yhi)
        n4 = (ho * wo) ** 2
        if k % 2 == 0:
            Gout4 = GB[:n4].reshape((ho, wo, ho, wo))
            Nout4 = NB[:n4].reshape((ho, wo, ho, wo))
        else:
            Gout4 = GA[:n4].reshape((ho, wo, ho, wo))
            Nout4 = NA[:n4].reshape((ho, wo, ho, wo))
        _layer(first, px, py, Gin4, Nin4, nx, ny, lay_i[k], offs, lay_f[k, 0], lay_f[k, 1], ntk,
               csr_ptr, csr_out, csr_w, dense_w, gather, Gout4, Nout4,
               W[:wo * wo], Wn[:wo * wo], U[:ho * wo * wo], Un[:ho * wo * wo], P, Q, Col, T, Tn, Wt, Wtn, iny,
               nzx_ptr, nzx_col, ylo, yhi)
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
def _pairs_parallel(self_mode, pa, pb, patches, norms, lay_i, lay_f, offs_all, csr_ptr, csr_out, csr_w,
                    dense_w, gather, ntk, fbufs, ibufs, out_ckn, out_ntk):
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
                               csr_ptr, csr_out, csr_w, dense_w, gather, ntk, fbufs[t], ibufs[t])
            out_ckn[p] = kc
            out_ntk[p] = kn


# --------------------------------------------------------------------------- per-image norms
def _as_image(image, name: str = "image") -> np.ndarray:
    img = validate_image(image, name)
    if img.ndim == 2:
        img = img[:, :, None]
    return np.ascontiguousarray(img, dtype=np.float64)


def _patches(img: np.ndarray, s: int) -> np.ndarray:
    """Zero-padded first-layer patches of an (H, W, C) image, transposed: ``(s*s*C, H*W)``.

    Column ``i*W + j`` holds ``x[i + a, j + b, c]`` ordered (b, a, c), with a, b
    running over :func:`patch_offsets` (the order of the reference's patch sums).
    """
    h, w, c = img.shape
    offs = patch_offsets(s)
    m = max(abs(v) for v in offs)
    pad = np.zeros((h + 2 * m, w + 2 * m, c))
    pad[m:m + h, m:m + w] = img
    out = np.empty((s, s, c, h, w))
    for bi, b in enumerate(offs):
        for ai, a in enumerate(offs):
            out[bi, ai] = np.moveaxis(pad[m + a:m + a + h, m + b:m + b + w, :], 2, 0)
    return np.ascontiguousarray(out.reshape(s * s * c, h * w))


@dataclass(frozen=True, eq=False)
class ImageNorms:
    """Everything a pair computation needs about one image, computed once.

    Attributes
    ----------
    image : float64 (H, W, C) copy of the image.
    arch : the architecture the norms belong to.
    patches : (s0*s0*C, H*W) zero-padded first-layer patches (transposed).
    norms : flat per-layer patch norms ``n_l(u)`` (layer-major).
    k_ckn, k_ntk : self kernels ``K(x, x)`` (``k_ntk`` is NaN without NTK support).
    """

    image: np.ndarray
    arch: Architecture
    patches: np.ndarray = field(repr=False)
    norms: np.ndarray = field(repr=False)
    k_ckn: float
    k_ntk: float

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.image.shape


class _Workspace(threading.local):
    """Per-thread work buffers for single-pair calls, grown on demand and reused."""

    def __init__(self):
        self.fbuf = np.zeros(0)
        self.ibuf = np.zeros(0, np.int64)

    def get(self, plan: _Plan):
        if self.fbuf.size < plan.fsize:
            self.fbuf = np.zeros(plan.fsize)
        if self.ibuf.size < plan.isize:
            self.ibuf = np.zeros(plan.isize, np.int64)
        return self.fbuf, self.ibuf


_WS = _Workspace()
_CACHE_LOCK = threading.Lock()
_NORMS_CACHE: "OrderedDict[tuple, ImageNorms]" = OrderedDict()
_NORMS_CACHE_SIZE = 256


def _run_pipeline(self_mode, px, py, nx, ny, plan, ntk):
    fbuf, ibuf = _WS.get(plan)
    return _pipeline(self_mode, px, py, nx, ny, plan.lay_i, plan.lay_f, plan.offsets, plan.csr_ptr, plan.csr_out, plan.csr_w,
                     plan.dense_w, plan.gather, ntk, fbuf, ibuf)


def image_norms(image, arch: Architecture) -> ImageNorms:
    """Per-image norm pipeline (the ``(x, x)`` pass) and self kernels, cached.

    ``image`` is (H, W) or (H, W, C), finite, used as given (MNIST: divide
    uint8 by 255 first). Results are cached by content (last 256 images), so
    calling this again on the same array is free.
    """
    arch = arch.validated()
    img = _as_image(image)
    key = (arch, img.shape, hashlib.sha1(img.tobytes()).hexdigest())
    with _CACHE_LOCK:
        hit = _NORMS_CACHE.get(key)
        if hit is not None:
            _NORMS_CACHE.move_to_end(key)
            return hit
    plan = _plan(arch, img.shape[0], img.shape[1])
    px = _patches(img, arch.layers[0].npatch)
    norms = np.zeros(plan.norm_len)
    ntk = arch.supports_ntk
    kc, kn = _run_pipeline(True, px, px, norms, norms, plan, ntk)
    img.setflags(write=False)  # (patches and norms stay writable: numba types read-only arrays apart)
    result = ImageNorms(img, arch, px, norms, float(kc), float(kn) if ntk else math.nan)
    with _CACHE_LOCK:
        _NORMS_CACHE[key] = result
        while len(_NORMS_CACHE) > _NORMS_CACHE_SIZE:
            _NORMS_CACHE.popitem(last=False)
    return result


def _check_pair(nx: ImageNorms, ny: ImageNorms, arch: Architecture) -> Architecture:
    arch = arch.validated()
    for name, n in (("norms_x", nx), ("norms_y", ny)):
        if not isinstance(n, ImageNorms):
            raise ValueError(f"{name} must be an ImageNorms from image_norms(), got {type(n).__name__}")
        if n.arch != arch:
            raise ValueError(f"{name} was computed for another architecture ({n.arch.label})")
    if nx.shape != ny.shape:
        raise ValueError(f"images must have the same shape, got {nx.shape} and {ny.shape}")
    return arch


def cross_kernels(norms_x: ImageNorms, norms_y: ImageNorms, arch: Architecture) -> tuple[float, float]:
    """``(K_CKN(x, y), K_NTK(x, y))`` from cached norms, in one cross pass.

    ``K_NTK`` is NaN when the architecture has an ``exp`` layer (no NTK).
    Conventions: module docstring (reference HEAD unless ``patch_normalization="mean"``).
    """
    arch = _check_pair(norms_x, norms_y, arch)
    h, w, c = norms_x.shape
    plan = _plan(arch, h, w)
    ntk = arch.supports_ntk
    kc, kn = _run_pipeline(False, norms_x.patches, norms_y.patches, norms_x.norms, norms_y.norms, plan, ntk)
    return float(kc), (float(kn) if ntk else math.nan)


def _rel(kxx: float, kyy: float, kxy: float) -> float:
    if math.isnan(kxx):
        return math.nan
    d2 = max(kxx + kyy - 2.0 * kxy, 0.0)
    if kxx <= 0.0:
        return 0.0 if d2 == 0.0 else math.inf
    return math.sqrt(d2) / math.sqrt(kxx)


def rel_distances(norms_x: ImageNorms, norms_y: ImageNorms, arch: Architecture) -> tuple[float, float]:
    """Relative feature distances ``||Phi(x) - Phi(y)|| / ||Phi(x)||`` for (CKN, NTK).

    ``||Phi(x) - Phi(y)||^2 = k_xx + k_yy - 2 k_xy`` is clamped at 0 before the
    square root (``docs/spec.md`` §3.2). If ``x`` has zero features (an all-zero
    image) the value is 0 when ``y`` has zero features too and ``inf``
    otherwise. The NTK entry is NaN for architectures without NTK. Under the
    reference conventions NTK values below ~1e-4 are dominated by rounding
    (spec §3.5).
    """
    kc, kn = cross_kernels(norms_x, norms_y, arch)
    return (_rel(norms_x.k_ckn, norms_y.k_ckn, kc), _rel(norms_x.k_ntk, norms_y.k_ntk, kn))


# --------------------------------------------------------------------------- Gram matrices
@dataclass(frozen=True)
class GramProgress:
    """One step of :func:`gram_iter`: ``fraction`` done in [0, 1]; ``matrix`` set on the last item."""

    fraction: float
    done_pairs: int
    total_pairs: int
    matrix: np.ndarray | None = None


def _as_stack(images, name: str) -> np.ndarray:
    arr = validate_images(images, name)
    if arr.ndim == 3:
        arr = arr[..., None]
    return np.ascontiguousarray(arr)


def _threads() -> int:
    return max(1, numba.get_num_threads())


class _Batch:
    """A stack of images prepared for parallel kernel evaluation (norms filled on demand).

    ``self_chunk`` runs the per-image norm pass on a range of images,
    ``pair_chunk`` the cross pass on index pairs; both call the one
    ``parallel=True`` kernel with per-thread work buffers allocated once here.
    """

    def __init__(self, stack: np.ndarray, arch: Architecture, ntk: bool):
        self.arch = arch
        self.ntk = ntk
        n, h, w, _c = stack.shape
        self.plan = plan = _plan(arch, h, w)
        s0 = arch.layers[0].npatch
        self.patches = np.stack([_patches(im, s0) for im in stack])
        self.norms = np.zeros((n, plan.norm_len))
        self.self_ckn = np.full(n, np.nan)
        self.self_ntk = np.full(n, np.nan)
        nthreads = _threads()
        self._args = (plan.lay_i, plan.lay_f, plan.offsets, plan.csr_ptr, plan.csr_out, plan.csr_w,
                      plan.dense_w, plan.gather, ntk, np.zeros((nthreads, plan.fsize)),
                      np.zeros((nthreads, plan.isize), np.int64))

    def self_chunk(self, start: int, stop: int) -> None:
        idx = np.arange(start, stop, dtype=np.int64)
        _pairs_parallel(True, idx, idx, self.patches, self.norms, *self._args,
                        self.self_ckn[start:stop], self.self_ntk[start:stop])

    def pair_chunk(self, ii: np.ndarray, jj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(K_ckn, K_ntk) of the pairs (ii[p], jj[p]); the norms of both must be done."""
        ii = np.ascontiguousarray(ii, dtype=np.int64)
        jj = np.ascontiguousarray(jj, dtype=np.int64)
        out_c = np.zeros(len(ii))
        out_n = np.zeros(len(ii))
        _pairs_parallel(False, ii, jj, self.patches, self.norms, *self._args, out_c, out_n)
        if not self.ntk:
            out_n[:] = np.nan
        return out_c, out_n


def gram_iter(images, arch: Architecture, mode: str, images_b=None, chunk_pairs: int = 64
              ) -> Iterator[GramProgress]:
    """Gram matrix of ``images`` (or cross matrix against ``images_b``) in chunks.

    Yields :class:`GramProgress` after every chunk of ``chunk_pairs`` images
    (norm pass) or pairs (cross pass); stop iterating to cancel (numba work is
    never interrupted mid-chunk). The last item carries ``.matrix`` (N, N) or
    (N, M). Without ``images_b`` only pairs ``i <= j`` are computed and
    mirrored, so the matrix is exactly symmetric. Pairs run in parallel (one
    ``parallel=True`` kernel, numba's thread count).
    """
    arch = arch.validated()
    arch.check_mode(mode)
    chunk_pairs = check_int("chunk_pairs", chunk_pairs, 1)
    A = _as_stack(images, "images")
    B = None if images_b is None else _as_stack(images_b, "images_b")
    if B is not None and B.shape[1:] != A.shape[1:]:
        raise ValueError(f"images_b must have the image shape of images {A.shape[1:]}, got {B.shape[1:]}")
    arch.layer_sizes(A.shape[1], A.shape[2])
    stack = A if B is None else np.concatenate([A, B])
    n_a, n_tot = A.shape[0], stack.shape[0]
    batch = _Batch(stack, arch, mode == "ntk")
    if B is None:
        ii, jj = np.triu_indices(n_a)
    else:
        ii, jj = np.meshgrid(np.arange(n_a), np.arange(n_a, n_tot), indexing="ij")
        ii, jj = ii.ravel(), jj.ravel()
    total = len(ii) + n_tot
    done = 0
    for start in range(0, n_tot, chunk_pairs):
        stop = min(start + chunk_pairs, n_tot)
        batch.self_chunk(start, stop)
        done += stop - start
        yield GramProgress(done / total, done, total)
    vals = np.zeros(len(ii))
    for start in range(0, len(ii), chunk_pairs):
        stop = min(start + chunk_pairs, len(ii))
        kc, kn = batch.pair_chunk(ii[start:stop], jj[start:stop])
        vals[start:stop] = kn if mode == "ntk" else kc
        done += stop - start
        if done < total:
            yield GramProgress(done / total, done, total)
    if B is None:
        K = np.zeros((n_a, n_a))
        K[ii, jj] = vals
        K[jj, ii] = vals
    else:
        K = vals.reshape(n_a, n_tot - n_a)
    yield GramProgress(1.0, total, total, K)


def gram_matrix(images, arch: Architecture, mode: str, images_b=None) -> np.ndarray:
    """The whole Gram matrix of :func:`gram_iter` (``mode`` ``"ckn"`` or ``"ntk"``)."""
    item = None
    for item in gram_iter(images, arch, mode, images_b):
        pass
    return item.matrix
