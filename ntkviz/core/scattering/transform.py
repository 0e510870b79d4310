"""The 2-D scattering transform ``S_J`` (orders 0-2) and the Fourier modulus ``|x_hat|``.

Scattering (Mallat 2012, *Group invariant scattering*; Bruna & Mallat 2013), with the
Morlet filters of :mod:`ntkviz.core.scattering.filters`::

    S_J x = { x * phi_J,
              |x * psi_{j1,l1}| * phi_J,                          0 <= j1 < J,
              ||x * psi_{j1,l1}| * psi_{j2,l2}| * phi_J }          j1 < j2 < J,

each sampled every ``2^J`` px. ``*`` is the circular convolution on the (padded) grid,
computed by FFT. The cascade is kymatio's (0.3.0) fast algorithm, so its numbers are
kymatio's: ``x * psi_{j1}`` is computed on the full grid and kept every ``2^j1`` px, the
modulus and its convolutions with ``psi_{j2}`` and ``phi_J`` then run on that coarser
grid with the level-``j1`` filters (their frequencies below the coarse Nyquist), and
likewise for ``psi_{j2}`` at ``2^j2``. Subsampling by ``k`` is exact spatial subsampling
``y[k n]``, done in the Fourier domain by averaging the ``k x k`` aliased blocks.

Coefficient order (kymatio's): channel 0 is order 0; then order 1, ``j1``-major,
``l1`` minor (channel ``1 + j1 L + l1``); then order 2 by ``(j1, l1)`` in that order and,
for each, ``j2 = j1+1 .. J-1``, ``l2 = 0..L-1``. There are
``1 + J L + L^2 J (J - 1) / 2`` channels (81 for J = 2, L = 8); :func:`scattering_paths`
lists them.

Padding (``padding``):

* ``"periodic"``: no padding; the image is one period of a periodic image. The sides
  must be multiples of ``2^J``; the output is ``H / 2^J x W / 2^J`` samples at
  ``u = 2^J n``. A circular shift by a multiple of ``2^J`` px circularly shifts the
  output (exactly), so spatial sums of the coefficients are invariant to it.
* ``"zero"`` (default) and ``"reflect"`` (kymatio's): the image is padded to
  ``(floor(H / 2^J) + 2) 2^J`` rows (``top = floor(pad / 2)``, the rest at the bottom;
  columns alike) with zeros (the image vanishes outside its frame, as
  :func:`ntkviz.core.deformations.deform.warp` assumes) or by reflection about the edge
  pixels (``numpy.pad(mode="reflect")``); the transform runs periodically on the
  padded grid and the outer ring of output samples is dropped: ``floor(H / 2^J) x
  floor(W / 2^J)`` samples at ``u = 2^J (n + 1) - top``. Any size with
  ``2^J <= min(H, W)`` works.

Normalisation: ``phi_hat(0) = 1`` (``x * phi_J`` is a local mean), wavelets as in
:mod:`~ntkviz.core.scattering.filters`. With ``padding="reflect"`` the coefficients of
order ``m`` equal kymatio 0.3.0's times ``(3.1415 / pi)^(m + 1)`` (kymatio writes pi as
3.1415 in its filter normalisation and computes its filters in float32).

Fourier modulus: ``|x_hat[k]|`` with the unitary 2-D DFT of the whole image,
``x_hat[k] = (H W)^(-1/2) sum_u x[u] exp(-2 pi i (k1 u1 / H + k2 u2 / W))``, so that
``sum |x_hat|^2 = sum x^2`` (Parseval) and ``|x_hat|`` is exactly invariant to circular
shifts.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import fft as sfft

from ntkviz import limits as _limits
from ntkviz._check import check_choice, check_int
from ntkviz.core._validate import check_image_values
from ntkviz.core.scattering.filters import _filter_bank

__all__ = ["ScatteringParams", "PADDINGS", "scattering_transform", "scattering_paths", "fourier_modulus",
           "J_RANGE", "L_RANGE", "ORDER_RANGE"]

PADDINGS = ("zero", "reflect", "periodic")
J_RANGE = _limits.SCATTERING_J_RANGE
L_RANGE = _limits.SCATTERING_L_RANGE
ORDER_RANGE = (0, 2)
#: the largest work array (bytes) of one block of the cascade
_BLOCK_BYTES = 4 * 2 ** 20


@dataclass(frozen=True)
class ScatteringParams:
    """Parameters of :func:`scattering_transform` (see the module docstring for conventions);
    valid by construction (``ValueError`` naming the field and its range).

    J : scale ``2^J`` of the averaging and of the output sampling, in [1, 8].
    L : orientations in [0, pi), in [1, 16] (kymatio's filters are designed for 8).
    order : highest order kept, 0, 1 or 2.
    padding : ``"zero"``, ``"reflect"`` (kymatio's) or ``"periodic"``.
    """

    J: int = 2
    L: int = 8
    order: int = 2
    padding: str = "zero"

    def __post_init__(self):
        for name, bounds in (("J", J_RANGE), ("L", L_RANGE), ("order", ORDER_RANGE)):
            object.__setattr__(self, name, check_int(name, getattr(self, name), bounds))
        check_choice("padding", self.padding, PADDINGS)

    @property
    def channels(self) -> int:
        """Number of coefficient channels: ``1 + J L + L^2 J (J - 1) / 2`` up to ``order``."""
        return len(scattering_paths(self))

    def grid(self, H: int, W: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """``((M, N), (top, left))``: the padded grid and the offset of the image in it;
        ``ValueError`` if an ``H x W`` image does not fit these parameters."""
        k = 2 ** self.J
        if k > min(H, W):
            raise ValueError(f"scattering J = {self.J} needs image sides >= 2^J = {k}, got {H}×{W}")
        if self.padding == "periodic":
            if H % k or W % k:
                raise ValueError(f"scattering with periodic padding needs image sides that are multiples "
                                 f"of 2^J = {k}, got {H}×{W} (use padding zero or reflect)")
            return (H, W), (0, 0)
        M, N = (H // k + 2) * k, (W // k + 2) * k
        return (M, N), ((M - H) // 2, (N - W) // 2)

    def output_shape(self, H: int, W: int) -> tuple[int, int, int]:
        """``(channels, H', W')`` of the transform of an ``H x W`` image."""
        k = 2 ** self.J
        self.grid(H, W)
        return (self.channels, H // k, W // k)


def scattering_paths(params: ScatteringParams) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """``[(scales, orientations), ...]`` per output channel, in output order: ``((), ())`` for
    order 0, ``((j1,), (l1,))`` for order 1, ``((j1, j2), (l1, l2))`` for order 2."""
    J, L = params.J, params.L
    paths = [((), ())]
    if params.order >= 1:
        paths += [((j1,), (l1,)) for j1 in range(J) for l1 in range(L)]
    if params.order >= 2:
        paths += [((j1, j2), (l1, l2)) for j1 in range(J) for l1 in range(L)
                  for j2 in range(j1 + 1, J) for l2 in range(L)]
    return paths


_LOCAL = threading.local()


def _work(slot: str, shape: tuple, dtype=np.complex128) -> np.ndarray:
    """A scratch array of ``shape`` private to this thread and ``slot`` (contents undefined).

    Reused from call to call: a fresh array of this size costs a page fault per 4 KiB on
    every call (glibc returns freed memory of this size to the system), which is most of
    the time of a transform of one digit. Arrays above ``_BLOCK_BYTES`` (a single block of
    a large image) are allocated afresh, so a thread keeps at most five blocks' worth."""
    size = math.prod(shape)
    if size * np.dtype(dtype).itemsize > _BLOCK_BYTES:
        return np.empty(shape, dtype)           # larger than any block of a small image: not kept
    buffers = _LOCAL.__dict__.setdefault("buffers", {})
    buf = buffers.get((slot, dtype))
    if buf is None or buf.size < size:
        buf = buffers[(slot, dtype)] = np.empty(size, dtype)
    return buf[:size].reshape(shape)


def _fold_product(src: np.ndarray, filt: np.ndarray, k: int, slot: str) -> np.ndarray:
    """``k^2 x`` the Fourier coefficients of ``(u * f)[k n]``: ``src * filt`` (broadcast) summed
    over its ``k x k`` aliased blocks, into the scratch array ``slot``."""
    shape = np.broadcast_shapes(src.shape, filt.shape)
    if k == 1:
        return np.multiply(src, filt, out=_work(slot, shape))
    prod = np.multiply(src, filt, out=_work("product", shape))
    M, N = shape[-2:]
    m, n = M // k, N // k
    rows = _work("rows", shape[:-2] + (m, N))
    np.copyto(rows, prod[..., :m, :])
    for i in range(1, k):
        rows += prod[..., i * m:(i + 1) * m, :]
    out = _work(slot, shape[:-2] + (m, n))
    np.copyto(out, rows[..., :n])
    for i in range(1, k):
        out += rows[..., i * n:(i + 1) * n]
    return out


def _modulus(z: np.ndarray) -> np.ndarray:
    """``|ifft2(z)|`` then its FFT, in place in ``z`` (complex, (..., M, N))."""
    sfft.ifft2(z, overwrite_x=True)
    np.abs(z, out=z.real)
    z.imag[...] = 0.0
    sfft.fft2(z, overwrite_x=True)
    return z


def _lowpass(uf: np.ndarray, phi: np.ndarray, k: int) -> np.ndarray:
    """``(u * phi)[k n]`` (real, a view of scratch memory) from the Fourier coefficients of ``u``;
    ``phi`` carries the ``1 / k^2`` of the subsampling."""
    return sfft.ifft2(_fold_product(uf, phi, k, "lowpass"), overwrite_x=True).real


def _pad(x: np.ndarray, params: ScatteringParams) -> np.ndarray:
    H, W = x.shape[-2:]
    (M, N), (top, left) = params.grid(H, W)
    if params.padding == "periodic":
        return x
    width = [(0, 0)] * (x.ndim - 2) + [(top, M - H - top), (left, N - W - left)]
    return np.pad(x, width, mode="constant" if params.padding == "zero" else "reflect")


@lru_cache(maxsize=16)
def _scaled_filters(M: int, N: int, J: int, L: int) -> tuple:
    """``(phi, psi1, psi2)``: the bank's filters divided by the ``k^2`` of the subsampling each
    is used with: ``phi[r]`` (by ``2^(J-r)``), ``psi1[j]`` level 0 (by ``2^j``) and
    ``psi2[j1][j2]`` level ``j1`` (by ``2^(j2-j1)``)."""
    bank = _filter_bank(M, N, J, L)
    phi = tuple(f / 4.0 ** (J - r) for r, f in enumerate(bank.phi))
    psi1 = tuple(bank.psi[j][0] / 4.0 ** j for j in range(J))
    psi2 = tuple({j2: bank.psi[j2][j1] / 4.0 ** (j2 - j1) for j2 in range(j1 + 1, J)} for j1 in range(J))
    return phi, psi1, psi2


def _blocks(n: int, bytes_per_item: int) -> list[slice]:
    """``n`` items cut into slices of at most ``_BLOCK_BYTES`` (at least one item each)."""
    step = max(1, _BLOCK_BYTES // max(bytes_per_item, 1))
    return [slice(a, min(a + step, n)) for a in range(0, n, step)]


def _scattering(x: np.ndarray, params: ScatteringParams) -> np.ndarray:
    """:func:`scattering_transform` of a float64 stack ``(B, H, W)`` with validated params (no checks).

    Images and first-order orientations are processed in blocks whose work arrays stay
    below ``_BLOCK_BYTES``; the work arrays are per-thread scratch memory (:func:`_work`)."""
    J, L, order = params.J, params.L, params.order
    xp = _pad(x, params)
    B, M, N = xp.shape
    phi, psi1, psi2 = _scaled_filters(M, N, J, L)
    k = 2 ** J
    hw = (M // k, N // k)
    S = np.empty((B, len(scattering_paths(params))) + hw)
    second = 1 + J * L      # first channel of order 2
    n_second = [(J - 1 - j1) * L for j1 in range(J)]   # order-2 channels per (j1, l1)
    for imgs in _blocks(B, 16 * L * (L if order >= 2 else 1) * M * N):
        X = sfft.fft2(xp[imgs])
        b = X.shape[0]
        S[imgs, 0] = _lowpass(X, phi[0], k)
        for j1 in range(J if order >= 1 else 0):
            M1, N1 = M >> j1, N >> j1
            width = L if order >= 2 and j1 < J - 1 else 1
            first = 1 + j1 * L
            ch2 = second + sum(L * n for n in n_second[:j1])
            for ls in _blocks(L, 16 * b * width * M1 * N1):
                U1f = _modulus(_fold_product(X[:, None], psi1[j1][ls], 2 ** j1, "u1"))
                S[imgs, first + ls.start:first + ls.stop] = _lowpass(U1f, phi[j1], 2 ** (J - j1))
                if order < 2 or j1 == J - 1:
                    continue
                # channels (l1, j2, l2) under j1: kymatio's order
                block = S[imgs, ch2 + ls.start * n_second[j1]:ch2 + ls.stop * n_second[j1]]
                block = block.reshape(b, ls.stop - ls.start, n_second[j1], *hw)
                for t, j2 in enumerate(range(j1 + 1, J)):
                    U2f = _modulus(_fold_product(U1f[:, :, None], psi2[j1][j2], 2 ** (j2 - j1), "u2"))
                    block[:, :, t * L:(t + 1) * L] = _lowpass(U2f, phi[j2], 2 ** (J - j2))
    if params.padding != "periodic":
        S = S[..., 1:-1, 1:-1]
    return np.ascontiguousarray(S)


def scattering_transform(x, params: ScatteringParams | None = None) -> np.ndarray:
    """The scattering coefficients ``S_J x`` (see the module docstring), float64.

    Parameters
    ----------
    x : array (..., H, W)
        One image or a batch (leading axes; kymatio's layout). Real, finite.
    params : ScatteringParams, default J = 2, L = 8, order 2, zero padding.

    Returns
    -------
    ndarray (..., K, H', W')
        ``K = params.channels`` channels in :func:`scattering_paths` order, ``H' = H // 2^J``.
    """
    params = ScatteringParams() if params is None else params
    if not isinstance(params, ScatteringParams):
        raise ValueError(f"params must be ScatteringParams, got {type(params).__name__}")
    x = check_image_values(x, "scattering input")
    if x.ndim < 2:
        raise ValueError(f"scattering input must have shape (..., H, W), got {x.shape}")
    H, W = x.shape[-2:]
    params.grid(H, W)
    lead = x.shape[:-2]
    S = _scattering(np.ascontiguousarray(x.reshape((-1, H, W))), params)
    return S.reshape(lead + S.shape[1:])


def fourier_modulus(x) -> np.ndarray:
    """``|x_hat|``: modulus of the unitary 2-D DFT over the last two axes (see the module docstring)."""
    x = check_image_values(x, "Fourier-modulus input")
    if x.ndim < 2:
        raise ValueError(f"Fourier-modulus input must have shape (..., H, W), got {x.shape}")
    return np.abs(sfft.fft2(x, norm="ortho"))
