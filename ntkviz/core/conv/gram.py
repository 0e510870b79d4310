"""Exact infinite-width convolutional kernels of a ReLU CNN on images: CKN and NTK.

For an architecture (a list of :class:`Layer` s: patch size, subsampling,
pooling, patch kernel) this module computes, for two images ``x`` and ``y`` of
shape (H, W) or (H, W, C):

* ``K_CKN(x, y)``: the kernel of training only the last layer of the
  infinitely wide CNN (the CKN of Bietti & Mairal, the "NNGP" of a CNN);
* ``K_NTK(x, y)``: the convolutional neural tangent kernel, Bietti & Mairal
  (NeurIPS 2019), Prop. 2; the NTK recursion carries the CKN one, so both come
  out of a single pass.

Conventions (ntkviz's definition): those of the reference implementation albietz/ckn_kernel at its 2021 HEAD (``c59fe52``):

1. "same" zero padding; the patch kernel is the **plain sum**
   ``P(u, u') = sum_{v in S} G(u + v, u' + v)`` over ``S = V x V``, a term
   dropped when a shifted position falls off the grid. ``V`` is what the
   reference's code sums (:func:`patch_offsets`): ``{-1, 0, 1}`` for s = 3,
   ``{-2..2}`` for s = 5, and for even s ``{-s/2 .. s/2 - 1}`` (e.g. ``{-1, 0}``
   for s = 2, ``{-2..1}`` for s = 4): the window leans backwards. The other
   common convention, neural-tangents' 'SAME' padding, leans forwards
   (``{0, 1}`` for s = 2, ``{-1..2}`` for s = 4); choose it with
   ``Architecture(even_patch_offsets="same")``. Odd s are the same in both.
   ``patch_normalization="mean"`` multiplies every patch sum by the
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
3. ``relu``: ``C = n n' kappa1(c)``, ``kappa1(c) = (sqrt(1-c^2) + c(pi - arccos c))/pi``,
   with one deliberate difference from the reference: a cosine within 4 ulps of 1 is
   taken as exactly 1. Parallel patches (every position of a self-pair, identical patches
   of two images) have cosine 1, which the rounded ``(P / n) / n'`` misses by an ulp or
   two, and ``kappa0``'s infinite slope at 1 turns that ulp into a ~5e-9 error per term
   (NTK self-pairs came out 1.6-4e-9 too small). A true cosine that close to 1 but below
   it cannot be resolved from float64 inputs anyway; for 8-bit images it cannot occur
   (distinct patches have ``1 - c >= ~1e-13``).
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

Floating-point order: patch sums, cosines, kappa formulas (libm arccos,
division by pi) and the pooling order (axes j', i', j, i, each sum sequential)
follow the reference, so values agree with it to ~1e-16 and bit for bit where
its sums are sequential (average/strided pooling, model M3). This matters for
NTK self-pairs, where c = 1 - O(ulp) is amplified by kappa0's infinite slope.

Performance design: the per-image "norm" pipeline
(the ``(x, x)`` pass) is computed once and kept in an :class:`ImageNorms`; a
pair then costs one cross pass. The cross pass never materialises the
``(H, W, H, W)`` tensor of the first layer: for each y position with a
non-zero norm it evaluates the patch kernel against all non-zero x positions
as one vector (a zero patch contributes an exact 0, as in the reference),
applies the non-linearity and pools it at once, into preallocated per-thread
work buffers (no allocation per pair). Gram matrices run one
``parallel=True`` kernel over pairs.
"""
from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator

import numba
import numpy as np
from numba import njit, prange

from ntkviz import limits as _limits
from ntkviz._env import parallel_section
from ntkviz.core._validate import check_choice, check_float, check_int
from ntkviz.core.digits import validate_image, validate_images

__all__ = [
    "Layer",
    "Architecture",
    "PRESETS",
    "POOLINGS",
    "PATCH_KERNELS",
    "PATCH_NORMALIZATIONS",
    "EVEN_PATCH_OFFSETS",
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
    "patch_offsets",
    "pooling_matrix",
]

POOLINGS = _limits.POOLINGS
#: patch offsets of even patch sizes: the reference code's {-s/2 .. s/2-1} or 'SAME' {-(s/2-1) .. s/2}
EVEN_PATCH_OFFSETS = ("reference", "same")
PATCH_KERNELS = _limits.PATCH_KERNELS
PATCH_NORMALIZATIONS = _limits.PATCH_NORMALIZATIONS
MODES = _limits.CONV_MODES
#: work memory allowed per thread (bytes); the exact kernel costs O((H W)^2) time and O(H W h w) memory
MAX_WORK_BYTES = 512 * 2**20
_LAYER_KEYS = ("npatch", "subsampling", "pooling", "kernel", "sigma", "poolfactor")


# --------------------------------------------------------------------------- architecture
@dataclass(frozen=True)
class Layer:
    """One convolutional layer: patch extraction, patch kernel, pooling.

    Parameters
    ----------
    npatch : patch side ``s`` (an ``s x s`` patch, offsets :func:`patch_offsets`).
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
        npatch = check_int(f"{name} npatch", self.npatch, *_limits.LAYER_INT_RANGE)
        sub = check_int(f"{name} subsampling", self.subsampling, *_limits.LAYER_INT_RANGE)
        pooling = check_choice(f"{name} pooling", self.pooling, POOLINGS)
        kernel = check_choice(f"{name} kernel", self.kernel, PATCH_KERNELS)
        sigma = check_float(f"{name} sigma", self.sigma, *_limits.LAYER_SIGMA_RANGE)
        pf = (None if self.poolfactor is None
              else check_int(f"{name} poolfactor", self.poolfactor, *_limits.LAYER_INT_RANGE))
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
    ``even_patch_offsets`` places the window of an even patch size ``s``:
    ``"reference"`` (default) sums offsets ``{-s/2 .. s/2 - 1}`` (``{-1, 0}`` for
    s = 2, as the reference code), ``"same"`` sums ``{-(s/2 - 1) .. s/2}`` (``{0, 1}``
    for s = 2, neural-tangents' 'SAME' padding). Odd patch sizes are not affected.
    """

    layers: tuple[Layer, ...]
    patch_normalization: str = "sum"
    even_patch_offsets: str = "reference"

    def __post_init__(self):
        object.__setattr__(self, "layers", tuple(self.layers))

    def validated(self) -> "Architecture":
        """Return a validated copy, or raise ``ValueError`` saying which layer and why."""
        if not isinstance(self.layers, tuple) or not self.layers:
            raise ValueError("architecture must have at least one layer")
        if len(self.layers) > _limits.MAX_LAYERS:
            raise ValueError(f"architecture must have at most {_limits.MAX_LAYERS} layers, "
                             f"got {len(self.layers)}")
        layers = []
        for k, lay in enumerate(self.layers, 1):
            if not isinstance(lay, Layer):
                raise ValueError(f"layer {k} must be a Layer, got {type(lay).__name__}")
            layers.append(lay.validated(f"layer {k}"))
        norm = check_choice("patch_normalization", self.patch_normalization, PATCH_NORMALIZATIONS)
        even = check_choice("even_patch_offsets", self.even_patch_offsets, EVEN_PATCH_OFFSETS)
        return Architecture(tuple(layers), norm, even)

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
        if self.even_patch_offsets != "reference" and any(lay.npatch % 2 == 0 for lay in self.layers):
            norm += f" (even patches: {self.even_patch_offsets})"
        return " | ".join(parts) + norm


def _validated_arch(arch) -> "Architecture":
    """``arch.validated()``, or a ``ValueError`` saying what ``arch`` must be."""
    if not isinstance(arch, Architecture):
        hint = " (build one from a dict with architecture_from_dict)" if isinstance(arch, dict) else ""
        raise ValueError(f"arch must be an Architecture{hint}, got {type(arch).__name__}")
    return arch.validated()


def _preset(*layers: tuple) -> Architecture:
    return Architecture(tuple(Layer(*lay) for lay in layers))


#: Four reference models (M1 is the reference code's README example).
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
    -- or a dict ``{"layers": [...], "patch_normalization": "sum"|"mean",
    "even_patch_offsets": "reference"|"same"}`` (both optional).
    """
    norm = "sum"
    even = "reference"
    if isinstance(obj, dict):
        unknown = sorted(set(obj) - {"layers", "patch_normalization", "even_patch_offsets"})
        if unknown:
            raise ValueError(f"architecture: unknown key(s) {', '.join(unknown)}; expected 'layers' "
                             "and optional 'patch_normalization', 'even_patch_offsets'")
        if "layers" not in obj:
            raise ValueError("architecture: missing key 'layers' (a list of layer dicts)")
        norm = obj.get("patch_normalization", "sum")
        even = obj.get("even_patch_offsets", "reference")
        obj = obj["layers"]
    if not isinstance(obj, (list, tuple)) or not obj:
        raise ValueError("architecture must be a non-empty list of layer dicts")
    layers = tuple(_layer_from_dict(d, k) for k, d in enumerate(obj, 1))
    return Architecture(layers, norm, even).validated()


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
    out = {"layers": layers, "patch_normalization": arch.patch_normalization}
    if arch.even_patch_offsets != "reference":
        out["even_patch_offsets"] = arch.even_patch_offsets
    return out


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
_NI = 11  # ints per layer in the plan table
(_H, _W, _S, _HO, _WO, _KERN, _HPTR, _HENT, _WPTR, _WENT, _NOFF) = range(_NI)


def patch_offsets(s: int, even: str = "reference") -> list[int]:
    """Patch offsets v of an ``s x s`` patch, in the reference's summation order.

    The reference (HEAD) adds ``G(u - r, u' - r)`` for ``r = start .. start+s-1``
    with ``start = -((s-1)//2)`` (C++ division), after the ``r = 0`` term:
    offsets ``{-1, 0, 1}`` for s = 3, ``{-2..2}`` for s = 5, and for even s
    the window leans backwards: ``{-1, 0}`` for s = 2, ``{-2..1}`` for s = 4.
    ``even="same"`` (neural-tangents' 'SAME' padding) leans forwards for even s:
    ``{0, 1}`` for s = 2, ``{-1..2}`` for s = 4 (the ``0`` term still first).
    """
    start = -((s - 1) // 2)
    if even == "same" and s % 2 == 0:
        return [0] + [v for v in range(start, start + s) if v != 0]
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
    norm_len: int        # total length of the flat per-image norm array
    fsize: int           # float work-buffer length per thread
    isize: int           # int work-buffer length per thread


@lru_cache(maxsize=64)
def _plan(arch: Architecture, height: int, width: int, channels: int) -> _Plan:
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
    return _Plan(lay_i, lay_f, offsets, as_i(ptrs), as_i(outs), np.array(wts, np.float64),
                 norm_off, fsize, isize)


# --------------------------------------------------------------------------- numba kernels
#: cosines at or above this are taken as exactly 1 (see the module docstring, point 3)
_COS_SNAP = 1.0 - 4.0 * 2.0 ** -53


@njit(nogil=True, cache=True)
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
    for e in range(noy * nxp):
        accC[e] = 0.0
    if ntk:
        for e in range(noy * nxp):
            accN[e] = 0.0
    for i2 in range(h):
        row_used = False
        for t in range(w):
            nyv = ny[i2, t]
            if nyv <= 0.0:
                continue
            if not row_used:
                row_used = True
                for e in range(wo * nxp):
                    rowC[e] = 0.0
                if ntk:
                    for e in range(wo * nxp):
                        rowN[e] = 0.0
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
    accC = fbuf[p0:p0 + maxacc]
    accN = fbuf[p0 + maxacc:p0 + 2 * maxacc]
    accX = fbuf[p0 + 2 * maxacc:p0 + 3 * maxacc]
    accT = fbuf[p0 + 3 * maxacc:p0 + 4 * maxacc]
    rowC = fbuf[p0 + 4 * maxacc:p0 + 5 * maxacc]
    rowN = fbuf[p0 + 5 * maxacc:p0 + 6 * maxacc]
    p0 += 6 * maxacc
    pxc = fbuf[p0:p0 + kdim * maxhw]
    p0 += kdim * maxhw
    P = fbuf[p0:p0 + maxhw]
    Q = fbuf[p0 + maxhw:p0 + 2 * maxhw]
    Col = fbuf[p0 + 2 * maxhw:p0 + 3 * maxhw]
    T = fbuf[p0 + 3 * maxhw:p0 + 4 * maxhw]
    Tn = fbuf[p0 + 4 * maxhw:p0 + 5 * maxhw]
    xinv = fbuf[p0 + 5 * maxhw:p0 + 6 * maxhw]
    xn = fbuf[p0 + 6 * maxhw:p0 + 7 * maxhw]
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
def _pairs_parallel(self_mode, pa, pb, patches, norms, lay_i, lay_f, offs_all, csr_ptr, csr_out, csr_w,
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


# --------------------------------------------------------------------------- per-image norms
def _as_image(image, name: str = "image") -> np.ndarray:
    img = validate_image(image, name)
    if img.ndim == 2:
        img = img[:, :, None]
    return np.ascontiguousarray(img, dtype=np.float64)


def _patches(img: np.ndarray, s: int, even: str = "reference") -> np.ndarray:
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
                     ntk, fbuf, ibuf)


def image_norms(image, arch: Architecture) -> ImageNorms:
    """Per-image norm pipeline (the ``(x, x)`` pass) and self kernels, cached.

    ``image`` is (H, W) or (H, W, C), finite, used as given (MNIST: divide
    uint8 by 255 first). Results are cached by content (last 256 images), so
    calling this again on the same array is free.
    """
    arch = _validated_arch(arch)
    img = _as_image(image)
    key = (arch, img.shape, hashlib.sha1(img.tobytes()).hexdigest())
    with _CACHE_LOCK:
        hit = _NORMS_CACHE.get(key)
        if hit is not None:
            _NORMS_CACHE.move_to_end(key)
            return hit
    plan = _plan(arch, *img.shape)
    px = _patches(img, arch.layers[0].npatch, arch.even_patch_offsets)
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
    arch = _validated_arch(arch)
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
    plan = _plan(arch, h, w, c)
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
    square root. If ``x`` has zero features (an all-zero
    image) the value is 0 when ``y`` has zero features too and ``inf``
    otherwise. The NTK entry is NaN for architectures without NTK. NTK distances
    below ~1e-4 are dominated by rounding (the cancellation in k_xx + k_yy - 2 k_xy).
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
        n, h, w, c = stack.shape
        self.plan = plan = _plan(arch, h, w, c)
        s0 = arch.layers[0].npatch
        self.patches = np.stack([_patches(im, s0, arch.even_patch_offsets) for im in stack])
        self.norms = np.zeros((n, plan.norm_len))
        self.self_ckn = np.full(n, np.nan)
        self.self_ntk = np.full(n, np.nan)
        nthreads = _threads()
        self._args = (plan.lay_i, plan.lay_f, plan.offsets, plan.csr_ptr, plan.csr_out, plan.csr_w,
                      ntk, np.zeros((nthreads, plan.fsize)),
                      np.zeros((nthreads, plan.isize), np.int64))

    def self_chunk(self, start: int, stop: int) -> None:
        idx = np.arange(start, stop, dtype=np.int64)
        with parallel_section():
            _pairs_parallel(True, idx, idx, self.patches, self.norms, *self._args,
                            self.self_ckn[start:stop], self.self_ntk[start:stop])

    def pair_chunk(self, ii: np.ndarray, jj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(K_ckn, K_ntk) of the pairs (ii[p], jj[p]); the norms of both must be done."""
        ii = np.ascontiguousarray(ii, dtype=np.int64)
        jj = np.ascontiguousarray(jj, dtype=np.int64)
        out_c = np.zeros(len(ii))
        out_n = np.zeros(len(ii))
        with parallel_section():
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
    arch = _validated_arch(arch)
    arch.check_mode(mode)
    chunk_pairs = check_int("chunk_pairs", chunk_pairs, 1)
    A = _as_stack(images, "images")
    B = None if images_b is None else _as_stack(images_b, "images_b")
    if B is not None and B.shape[1:] != A.shape[1:]:
        raise ValueError(f"images_b must have the image shape of images {A.shape[1:]}, got {B.shape[1:]}")
    arch.layer_sizes(A.shape[1], A.shape[2])
    stack = A if B is None else np.concatenate([A, B])
    stack, scale = _homogeneous_rescale(stack)
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
    if scale != 1.0:
        with np.errstate(over="ignore"):
            K = K * scale * scale
        if not np.all(np.isfinite(K)):
            raise ValueError(
                f"images: pixel values up to {scale:.3g} give kernel values beyond the float64 "
                "range (~1.8e308); rescale the images (the kernels are homogeneous of degree 2: "
                "K(c x, c y) = c² K(x, y))")
    yield GramProgress(1.0, total, total, K)


#: image stacks whose largest |pixel| exceeds this are divided by a power of two first
_RESCALE_ABOVE = 2.0 ** 64


def _homogeneous_rescale(stack: np.ndarray) -> tuple[np.ndarray, float]:
    """``(stack / c, c)`` with ``c`` a power of two (exact) bringing the largest |pixel| into
    [1, 2) when it exceeds 2^64, else ``(stack, 1.0)``. Both kernels are homogeneous of
    degree 2 (every layer is 1-homogeneous in each input), so ``K = c² K(stack / c)``,
    while the patch sums of the unscaled images would overflow (images scaled by 1e300
    gave an all-NaN matrix). Small images are left alone: the norm floor 1e-6 of the
    reference convention is not scale-free."""
    peak = float(np.max(np.abs(stack))) if stack.size else 0.0
    if not peak > _RESCALE_ABOVE:
        return stack, 1.0
    scale = math.ldexp(1.0, math.frexp(peak)[1] - 1)
    return stack / scale, scale


def gram_matrix(images, arch: Architecture, mode: str, images_b=None) -> np.ndarray:
    """The whole Gram matrix of :func:`gram_iter` (``mode`` ``"ckn"`` or ``"ntk"``)."""
    item = None
    for item in gram_iter(images, arch, mode, images_b):
        pass
    return item.matrix
