"""Convolutional architectures: layers, presets, their JSON form and pooling filters.

An :class:`Architecture` is a tuple of :class:`Layer` s (patch size ``s``, subsampling,
pooling, patch kernel) plus the patch normalisation and the placement of even patches
(conventions: :mod:`ntkviz.core.conv`). :func:`pooling_matrix` and :func:`patch_offsets`
give the exact 1-D pooling filter and the patch offsets the engine sums over.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ntkviz import limits as _limits
from ntkviz._check import check_choice, check_float, check_int

__all__ = [
    "Layer",
    "Architecture",
    "PRESETS",
    "POOLINGS",
    "PATCH_KERNELS",
    "PATCH_NORMALIZATIONS",
    "EVEN_PATCH_OFFSETS",
    "MODES",
    "architecture_from_dict",
    "architecture_to_dict",
    "patch_offsets",
    "pooling_matrix",
    "check_architecture",
    "numbered_layer",
    "initial_pooling_matrix",
]

POOLINGS = _limits.POOLINGS
#: patch offsets of even patch sizes: the reference code's {-s/2 .. s/2-1} or 'SAME' {-(s/2-1) .. s/2}
EVEN_PATCH_OFFSETS = _limits.EVEN_PATCH_OFFSETS
PATCH_KERNELS = _limits.PATCH_KERNELS
PATCH_NORMALIZATIONS = _limits.PATCH_NORMALIZATIONS
MODES = _limits.CONV_MODES
_LAYER_KEYS = ("npatch", "subsampling", "pooling", "kernel", "sigma", "poolfactor")


# --------------------------------------------------------------------------- architecture
@dataclass(frozen=True)
class Layer:
    """One convolutional layer: patch extraction, patch kernel, pooling (valid by construction).

    Parameters
    ----------
    npatch : patch side ``s`` (an ``s x s`` patch, offsets :func:`patch_offsets`).
    subsampling : pooling stride ``sub``.
    pooling : ``"gaussian"``, ``"average"`` or ``"strided"`` (see module docstring).
    kernel : patch kernel, ``"relu"`` (arc-cosine kappa1; NTK possible) or
        ``"exp"`` (``exp((c-1)/sigma^2)``, CKN only).
    sigma : bandwidth of ``exp`` (ignored by ``relu``).
    poolfactor : pooling filter scale ``pf``; ``None`` means ``subsampling``.

    ``npatch``, ``subsampling`` and ``poolfactor`` are in ``limits.LAYER_INT_RANGE``,
    ``sigma`` in ``limits.LAYER_SIGMA_RANGE``; construction checks them (``ValueError``
    naming the field; :func:`numbered_layer` adds the layer's number) and normalises the
    types, so a ``Layer`` is never checked again.
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

    def __post_init__(self):
        ints = _limits.LAYER_INT_RANGE
        values = {"npatch": check_int("npatch", self.npatch, ints),
                  "subsampling": check_int("subsampling", self.subsampling, ints),
                  "pooling": check_choice("pooling", self.pooling, POOLINGS),
                  "kernel": check_choice("kernel", self.kernel, PATCH_KERNELS),
                  "sigma": check_float("sigma", self.sigma, _limits.LAYER_SIGMA_RANGE),
                  "poolfactor": (None if self.poolfactor is None
                                 else check_int("poolfactor", self.poolfactor, ints))}
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def pooled_size(self, n: int) -> int:
        """Output length of this layer's pooling on a conv axis of length ``n``."""
        if self.pooling == "average":
            return n // self.subsampling
        return n // self.subsampling - 1


@dataclass(frozen=True)
class Architecture:
    """A convolutional architecture: layers plus the patch normalisation (valid by construction).

    ``patch_normalization="sum"`` is the reference (albietz/ckn_kernel HEAD)
    convention, the ntkviz default; ``"mean"`` is the paper's ``1/|S|``.
    ``even_patch_offsets`` places the window of an even patch size ``s``:
    ``"reference"`` (default) sums offsets ``{-s/2 .. s/2 - 1}`` (``{-1, 0}`` for
    s = 2, as the reference code), ``"same"`` sums ``{-(s/2 - 1) .. s/2}`` (``{0, 1}``
    for s = 2, neural-tangents' 'SAME' padding). Odd patch sizes are not affected.
    ``initial_pooling_sigma`` (σ₀, px) adds the initial anti-aliasing pooling ``A_0`` of
    the stability theorems, ``Φ_n(x) = Φ(A_0 x)``: a Gaussian filter of standard deviation
    σ₀ without subsampling (:func:`initial_pooling_matrix`); ``None`` (default) means no
    ``A_0``, as the reference code.

    Construction checks the layers (1 to ``limits.MAX_LAYERS`` :class:`Layer` values),
    both conventions and σ₀ (``ValueError`` saying which layer and why), so an
    ``Architecture`` is never checked again.
    """

    layers: tuple[Layer, ...]
    patch_normalization: str = "sum"
    even_patch_offsets: str = "reference"
    initial_pooling_sigma: float | None = None

    def __post_init__(self):
        try:
            layers = tuple(self.layers)
        except TypeError:
            raise ValueError(f"architecture layers must be a sequence of Layer, got "
                             f"{type(self.layers).__name__}") from None
        if not layers:
            raise ValueError("architecture must have at least one layer")
        if len(layers) > _limits.MAX_LAYERS:
            raise ValueError(f"architecture must have at most {_limits.MAX_LAYERS} layers, "
                             f"got {len(layers)}")
        for k, lay in enumerate(layers, 1):
            if not isinstance(lay, Layer):
                raise ValueError(f"layer {k} must be a Layer, got {type(lay).__name__}")
        check_choice("patch_normalization", self.patch_normalization, PATCH_NORMALIZATIONS)
        check_choice("even_patch_offsets", self.even_patch_offsets, EVEN_PATCH_OFFSETS)
        object.__setattr__(self, "layers", layers)
        if self.initial_pooling_sigma is not None:
            object.__setattr__(self, "initial_pooling_sigma", check_float(
                "initial_pooling_sigma", self.initial_pooling_sigma,
                _limits.INITIAL_POOLING_SIGMA_RANGE))

    def initial_pooling(self, image: np.ndarray) -> np.ndarray:
        """``A_0 x`` of a float64 (H, W, C) image: the separable Gaussian filter of
        :func:`initial_pooling_matrix` on both axes of every channel; the image itself
        when there is no initial pooling."""
        if self.initial_pooling_sigma is None:
            return image
        mh = initial_pooling_matrix(self.initial_pooling_sigma, image.shape[0])
        mw = initial_pooling_matrix(self.initial_pooling_sigma, image.shape[1])
        return np.ascontiguousarray(np.einsum("ia,abc,jb->ijc", mh, image, mw))

    @property
    def supports_ntk(self) -> bool:
        """True when every layer uses the ``relu`` patch kernel (the NTK needs kappa0)."""
        return all(lay.kernel == "relu" for lay in self.layers)

    def layer_sizes(self, height: int, width: int) -> list[tuple[tuple[int, int], tuple[int, int], tuple[int, int]]]:
        """Grid sizes ``((h, w) input, (h, w) conv, (h, w) pooled)`` per layer.

        Raises ``ValueError`` naming the layer when its patch is larger than
        its input map or its pooling shrinks the map to nothing.
        """
        h = check_int("image height", height, _limits.GRID_SIDE_RANGE)
        w = check_int("image width", width, _limits.GRID_SIDE_RANGE)
        sizes = []
        for k, lay in enumerate(self.layers, 1):
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
        if self.initial_pooling_sigma is not None:
            parts.insert(0, f"A₀ σ₀={self.initial_pooling_sigma:g}")
        return " | ".join(parts) + norm


def check_architecture(arch, name: str = "arch") -> "Architecture":
    """``arch`` itself if it is an :class:`Architecture` (valid by construction), else a
    ``ValueError`` saying what ``name`` must be."""
    if not isinstance(arch, Architecture):
        hint = " (build one from a dict with architecture_from_dict)" if isinstance(arch, dict) else ""
        raise ValueError(f"{name} must be an Architecture{hint}, got {type(arch).__name__}")
    return arch


def numbered_layer(k: int, *args, **kwargs) -> Layer:
    """``Layer(*args, **kwargs)``, its errors prefixed with the layer's number
    (``layer 2: npatch must be in [1, 99], got 0``)."""
    try:
        return Layer(*args, **kwargs)
    except ValueError as exc:
        raise ValueError(f"layer {k}: {exc}") from None


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
    return numbered_layer(k, npatch=d["npatch"], subsampling=d["subsampling"],
                          pooling=d.get("pooling", "gaussian"), kernel=d.get("kernel", "relu"),
                          sigma=d.get("sigma", 1.0), poolfactor=d.get("poolfactor"))


def architecture_from_dict(obj) -> Architecture:
    """Build an :class:`Architecture` from JSON data.

    Accepts the reference's model format -- a list of layer dicts with keys
    ``npatch``, ``subsampling`` and optional ``pooling`` (default gaussian),
    ``kernel`` (default relu), ``sigma`` (1.0), ``poolfactor`` (= subsampling)
    -- or a dict ``{"layers": [...], "patch_normalization": "sum"|"mean",
    "even_patch_offsets": "reference"|"same", "initial_pooling_sigma": σ₀}`` (all but
    ``layers`` optional).
    """
    norm = "sum"
    even = "reference"
    sigma0 = None
    if isinstance(obj, dict):
        unknown = sorted(set(obj) - {"layers", "patch_normalization", "even_patch_offsets",
                                     "initial_pooling_sigma"})
        if unknown:
            raise ValueError(f"architecture: unknown key(s) {', '.join(unknown)}; expected 'layers' "
                             "and optional 'patch_normalization', 'even_patch_offsets', "
                             "'initial_pooling_sigma'")
        if "layers" not in obj:
            raise ValueError("architecture: missing key 'layers' (a list of layer dicts)")
        norm = obj.get("patch_normalization", "sum")
        even = obj.get("even_patch_offsets", "reference")
        sigma0 = obj.get("initial_pooling_sigma")
        obj = obj["layers"]
    if not isinstance(obj, (list, tuple)) or not obj:
        raise ValueError("architecture must be a non-empty list of layer dicts")
    layers = tuple(_layer_from_dict(d, k) for k, d in enumerate(obj, 1))
    return Architecture(layers, norm, even, sigma0)


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
    if arch.initial_pooling_sigma is not None:
        out["initial_pooling_sigma"] = arch.initial_pooling_sigma
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


def initial_pooling_matrix(sigma: float, n: int) -> np.ndarray:
    """Dense 1-D matrix ``(n, n)`` of the initial anti-aliasing pooling ``A_0``.

    Output ``i`` is ``sum_a g(a) x[i + a]`` with taps ``g(a) = exp(-a^2 / (2 sigma^2))`` for
    ``|a| <= ceil(4 sigma)``, normalised to sum 1: a Gaussian of standard deviation
    ``sigma`` px, truncated at 4 sigma, with zero padding (taps off the axis are dropped,
    not renormalised) and no subsampling, so ``A_0`` keeps the image size.
    """
    radius = math.ceil(4.0 * sigma)
    taps = np.exp(-np.arange(-radius, radius + 1) ** 2 / (2.0 * sigma * sigma))
    taps /= taps.sum()
    mat = np.zeros((n, n))
    for a, t in zip(range(-radius, radius + 1), taps):
        if abs(a) < n:
            mat += t * np.eye(n, k=a)
    return mat


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
