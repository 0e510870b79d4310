"""Convolutional kernels of images: per-image norms, pairs, Gram matrices and tiles.

* :func:`image_norms` -- the per-image pass (norms of every layer, self kernels), cached;
  :func:`cross_kernels` / :func:`rel_distances` -- one pair from two cached passes;
* :func:`gram_iter` / :func:`gram_matrix` -- a whole (or cross) Gram matrix in chunks;
* :func:`kernel_tile_iter` -- both kernels of one tile ``rows x cols`` from one pass
  (the building block of the Gram matrices and of :mod:`ntkviz.dataset`'s tiled stores),
  over an :class:`ImageBatch`; :func:`homogeneous_rescale` / :func:`scale_back` the power-of-two
  rescaling of huge and small images (``K(c x, c y) = c^2 K(x, y)``).

Conventions: :mod:`ntkviz.core.conv`; the recursion itself: the private ``_kernels``.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Iterator

import numba
import numpy as np

from ntkviz._env import parallel_section
from ntkviz._check import check_int
from ntkviz.core._validate import validate_image, validate_images
from ntkviz.core.conv._kernels import first_layer_patches, pairs_parallel, plan_for, run_pair
from ntkviz.core.conv.architecture import Architecture, check_architecture

__all__ = [
    "ImageNorms",
    "GramProgress",
    "TileStep",
    "ImageBatch",
    "image_stack",
    "image_norms",
    "cross_kernels",
    "rel_distances",
    "gram_iter",
    "gram_matrix",
    "kernel_tile_iter",
    "homogeneous_rescale",
    "scale_back",
]


# --------------------------------------------------------------------------- per-image norms
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


_CACHE_LOCK = threading.Lock()
_NORMS_CACHE: "OrderedDict[tuple, ImageNorms]" = OrderedDict()
#: the norm cache holds at most this many bytes of patches and norms (~69 KiB per 28×28
#: digit for M1: ~1900 digits, more than a context view's 10 × 30 references and the
#: stability sweep's digits together)
_NORMS_CACHE_BYTES = 128 * 2**20
_norms_cache_bytes = 0


def image_norms(image, arch: Architecture, *, check_input: bool = True) -> ImageNorms:
    """Per-image norm pipeline (the ``(x, x)`` pass) and self kernels, cached.

    ``image`` is (H, W) or (H, W, C), finite, used as given (MNIST: divide
    uint8 by 255 first). Results are cached by content (least recently used first out,
    128 MiB in all), so calling this again on the same array is free. This is the one
    cache of image norms: the jobs do not keep their own. ``check_input=False`` skips the
    image's check, for a caller that passes a float64 image it validated
    (:func:`ntkviz.core.validate_image`) or computed from one.
    """
    arch = check_architecture(arch)
    if check_input:
        image = validate_image(image)
    img = np.array(image[:, :, None] if image.ndim == 2 else image, dtype=np.float64, order="C")
    key = (arch, img.shape, hashlib.sha1(img.tobytes()).hexdigest())
    with _CACHE_LOCK:
        hit = _NORMS_CACHE.get(key)
        if hit is not None:
            _NORMS_CACHE.move_to_end(key)
            return hit
    plan = plan_for(arch, *img.shape)
    px = first_layer_patches(arch.initial_pooling(img), arch.layers[0].npatch, arch.even_patch_offsets)
    norms = np.zeros(plan.norm_len)
    ntk = arch.supports_ntk
    kc, kn = run_pair(True, px, px, norms, norms, plan, ntk)
    img.setflags(write=False)  # (patches and norms stay writable: numba types read-only arrays apart)
    result = ImageNorms(img, arch, px, norms, float(kc), float(kn) if ntk else math.nan)
    global _norms_cache_bytes
    with _CACHE_LOCK:
        if key not in _NORMS_CACHE:
            _NORMS_CACHE[key] = result
            _norms_cache_bytes += _footprint(result)
        while _norms_cache_bytes > _NORMS_CACHE_BYTES and len(_NORMS_CACHE) > 1:
            _norms_cache_bytes -= _footprint(_NORMS_CACHE.popitem(last=False)[1])
    return result


def _footprint(n: ImageNorms) -> int:
    return n.image.nbytes + n.patches.nbytes + n.norms.nbytes


def _check_pair(nx: ImageNorms, ny: ImageNorms, arch: Architecture) -> Architecture:
    arch = check_architecture(arch)
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
    plan = plan_for(arch, h, w, c)
    ntk = arch.supports_ntk
    kc, kn = run_pair(False, norms_x.patches, norms_y.patches, norms_x.norms, norms_y.norms, plan, ntk)
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


def _as_4d(images) -> np.ndarray:
    arr = np.asarray(images, dtype=np.float64)
    return np.ascontiguousarray(arr[..., None] if arr.ndim == 3 else arr)


def image_stack(images, name: str = "images") -> np.ndarray:
    """A validated float64 (N, H, W, C) copy of ``images`` (N, H, W) or (N, H, W, C);
    errors as :func:`ntkviz.core.validate_images`."""
    return _as_4d(validate_images(images, name))


def _threads() -> int:
    return max(1, numba.get_num_threads())


class ImageBatch:
    """A stack of images prepared for parallel kernel evaluation (norms filled on demand).

    ``stack`` is a validated float64 (N, H, W, C) array (not re-checked here) that fits
    ``arch`` (a validated :class:`Architecture`); ``ntk`` asks for ``K_NTK`` too.

    ``self_chunk`` runs the per-image norm pass on a range of images,
    ``pair_chunk`` the cross pass on index pairs; both call the one
    ``parallel=True`` kernel with per-thread work buffers allocated once here.
    """

    def __init__(self, stack: np.ndarray, arch: Architecture, ntk: bool):
        self.arch = arch
        self.ntk = ntk
        n, h, w, c = stack.shape
        self.plan = plan = plan_for(arch, h, w, c)
        s0 = arch.layers[0].npatch
        self.patches = np.stack([first_layer_patches(arch.initial_pooling(im), s0, arch.even_patch_offsets)
                                 for im in stack])
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
            pairs_parallel(True, idx, idx, self.patches, self.norms, *self._args,
                           self.self_ckn[start:stop], self.self_ntk[start:stop])

    def pair_chunk(self, ii: np.ndarray, jj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(K_ckn, K_ntk) of the pairs (ii[p], jj[p]); the norms of both must be done."""
        ii = np.ascontiguousarray(ii, dtype=np.int64)
        jj = np.ascontiguousarray(jj, dtype=np.int64)
        out_c = np.zeros(len(ii))
        out_n = np.zeros(len(ii))
        with parallel_section():
            pairs_parallel(False, ii, jj, self.patches, self.norms, *self._args, out_c, out_n)
        if not self.ntk:
            out_n[:] = np.nan
        return out_c, out_n


@dataclass(frozen=True)
class TileStep:
    """One step of :func:`kernel_tile_iter`: ``images`` self passes and ``pairs`` cross
    passes done in this chunk; the last step carries ``blocks = (K_ckn, K_ntk)``."""

    images: int = 0
    pairs: int = 0
    blocks: tuple[np.ndarray, np.ndarray] | None = None


def kernel_tile_iter(rows, cols, arch: Architecture, ntk: bool = True, chunk_pairs: int = 64,
                     guard=None) -> Iterator[TileStep]:
    """``(K_ckn, K_ntk)`` of the tile ``rows x cols`` from one pass, in chunks.

    ``rows`` (N, H, W[, C]) and ``cols`` (M, H, W[, C]) or None (the symmetric tile of
    ``rows`` with itself: only pairs ``i <= j`` are evaluated and mirrored, so it is exactly
    symmetric) are finite float images that fit ``arch``, a validated
    :class:`Architecture`: this building block does not re-check them (:func:`gram_iter`
    and :mod:`ntkviz.dataset` validate once before). ``ntk=False`` skips ``K_NTK`` (NaN), as
    does an architecture without NTK. Yields a :class:`TileStep` after every chunk of
    ``chunk_pairs`` images (self pass) or pairs (cross pass), the last one with the blocks
    (N, N) or (N, M). ``guard`` (e.g. a lock) is entered around every parallel call. The
    values depend only on the inputs: a retried tile gives the same bits.
    """
    guard = contextlib.nullcontext() if guard is None else guard
    a = _as_4d(rows)
    n_a = a.shape[0]
    stack = a if cols is None else np.concatenate([a, _as_4d(cols)])
    n_tot = stack.shape[0]
    batch = ImageBatch(stack, arch, ntk and arch.supports_ntk)
    for start in range(0, n_tot, chunk_pairs):
        stop = min(start + chunk_pairs, n_tot)
        with guard:
            batch.self_chunk(start, stop)
        yield TileStep(images=stop - start)
    if cols is None:
        ii, jj = np.triu_indices(n_a)
    else:
        ii, jj = np.meshgrid(np.arange(n_a), np.arange(n_a, n_tot), indexing="ij")
        ii, jj = ii.ravel(), jj.ravel()
    kc = np.empty(len(ii))
    kn = np.empty(len(ii))
    for start in range(0, len(ii), chunk_pairs):
        stop = min(start + chunk_pairs, len(ii))
        with guard:
            kc[start:stop], kn[start:stop] = batch.pair_chunk(ii[start:stop], jj[start:stop])
        yield TileStep(pairs=stop - start)
    if cols is None:
        blocks = []
        for vals in (kc, kn):
            K = np.empty((n_a, n_a))
            K[ii, jj] = vals
            K[jj, ii] = vals
            blocks.append(K)
        yield TileStep(blocks=tuple(blocks))
    else:
        shape = (n_a, n_tot - n_a)
        yield TileStep(blocks=(kc.reshape(shape), kn.reshape(shape)))


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
    arch = check_architecture(arch)
    arch.check_mode(mode)
    chunk_pairs = check_int("chunk_pairs", chunk_pairs, (1, None))
    A = image_stack(images, "images")
    B = None if images_b is None else image_stack(images_b, "images_b")
    if B is not None and B.shape[1:] != A.shape[1:]:
        raise ValueError(f"images_b must have the image shape of images {A.shape[1:]}, got {B.shape[1:]}")
    arch.layer_sizes(A.shape[1], A.shape[2])
    scale = homogeneous_rescale(np.array([np.max(np.abs(X)) for X in (A, B) if X is not None]))[1]
    if scale != 1.0:
        A, B = A / scale, (None if B is None else B / scale)
    n_a, n_b = A.shape[0], (0 if B is None else B.shape[0])
    total = n_a + n_b + (n_a * (n_a + 1) // 2 if B is None else n_a * n_b)  # self passes + pairs
    done = 0
    for step in kernel_tile_iter(A, B, arch, mode == "ntk", chunk_pairs):
        if step.blocks is None:
            done += step.images + step.pairs
            if done < total:
                yield GramProgress(done / total, done, total)
    K = step.blocks[1 if mode == "ntk" else 0]
    if scale != 1.0:
        K = scale_back(K, scale)
    yield GramProgress(1.0, total, total, K)


#: image stacks whose largest |pixel| is outside [1, 2^64] are divided by a power of two first
_RESCALE_ABOVE = 2.0 ** 64
_RESCALE_BELOW = 1.0


def homogeneous_rescale(stack: np.ndarray) -> tuple[np.ndarray, float]:
    """``(stack / c, c)`` with ``c`` a power of two (exact) bringing the largest |pixel| into
    [1, 2) when it exceeds 2^64 or is below 1 (and not 0), else ``(stack, 1.0)``. Both
    kernels are homogeneous of degree 2 (every layer is 1-homogeneous in each input), so
    ``K = c² K(stack / c)`` (:func:`scale_back`).

    Huge images: their patch sums would overflow (images scaled by 1e300 gave an all-NaN
    matrix). Small images: the norm floor ``max(n, 1e-6)`` of the reference convention is
    not scale-free -- it shifts the cosines of images below ~1e-4, turns images below
    ~1e-8 into a kernel of their norms only (76 % off ``c² K(x / c)``), and their kernel
    values underflow below ~1e-154. Dividing by a power of two changes no bit of any other
    step of the recursion (products, sums, square roots and divisions all commute exactly
    with it), so images whose largest pixel is in [1/2, 1) get the same values as unscaled
    wherever the floor does not act."""
    peak = float(np.max(np.abs(stack))) if stack.size else 0.0
    if not (peak > _RESCALE_ABOVE or 0.0 < peak < _RESCALE_BELOW):
        return stack, 1.0
    scale = math.ldexp(1.0, math.frexp(peak)[1] - 1)
    if scale < _SCALE_FLOOR:  # refused before any work: every value would underflow
        raise _below_range(scale, "all")
    return stack / scale, scale


#: below this scale c every kernel value c² K(x / c) underflows: with pixels in [1, 2), a
#: value K(x / c) stays far below 2^64 (at most 256² pixels × 16 channels × 4, times a factor
#: s² per layer of patch sums, for at most 8 layers of side <= 99 on images <= 256: < 2^64)
_SCALE_FLOOR = 2.0 ** -543


def _below_range(scale: float, count) -> ValueError:
    return ValueError(f"images: pixel values of at most {2 * scale:.3g} give "
                      f"kernel values below the float64 range (~2.2e-308; {count} of them would be 0 or "
                      "lose digits); rescale the images (the kernels are homogeneous of degree 2: "
                      "K(c x, c y) = c² K(x, y))")


def scale_back(K: np.ndarray, scale: float) -> np.ndarray:
    """``scale² K`` (exact: a power of two), or ``ValueError`` when a value leaves the normal
    float64 range: beyond ~1.8e308, or a nonzero value below ~2.2e-308 (0 or a subnormal
    with lost digits) -- a matrix of zeros must never look like a result. NaN stays NaN
    (the NTK of an architecture without one)."""
    with np.errstate(over="ignore", under="ignore"):
        out = K * scale * scale
    if not np.all(np.isfinite(out) | np.isnan(K)):
        raise ValueError(f"images: pixel values up to {scale:.3g} give kernel values beyond the float64 range "
                         "(~1.8e308); rescale the images (the kernels are homogeneous of degree 2: "
                         "K(c x, c y) = c² K(x, y))")
    lost = (K != 0.0) & np.isfinite(K) & (np.abs(out) < np.finfo(np.float64).tiny)
    if np.any(lost):
        raise _below_range(scale, int(np.count_nonzero(lost)))
    return out


def gram_matrix(images, arch: Architecture, mode: str, images_b=None) -> np.ndarray:
    """The whole Gram matrix of :func:`gram_iter` (``mode`` ``"ckn"`` or ``"ntk"``)."""
    item = None
    for item in gram_iter(images, arch, mode, images_b):
        pass
    return item.matrix
