"""The representations ("maps") that ntkviz compares under deformations: one registry.

Every map ``Phi`` is compared by the same relative distance

    d(x, y) = ||Phi(y) - Phi(x)|| / ||Phi(x)||,

Euclidean in the map's feature space; from an ``x`` with ``Phi(x) = 0`` it is 0 when
``Phi(y) = 0`` too and ``inf`` otherwise (never NaN). The maps:

* ``ckn``, ``ntk`` (kernel maps): the exact infinite-width CKN and convolutional NTK of
  an :class:`~ntkviz.core.conv.architecture.Architecture`, through their kernels,
  ``||Phi(x) - Phi(y)||^2 = k(x,x) + k(y,y) - 2 k(x,y)`` (clamped at 0);
* ``scattering``: the scattering coefficients ``S_J x`` of
  :func:`ntkviz.core.scattering.transform.scattering_transform` (all orders and positions, one
  vector; :class:`~ntkviz.core.scattering.transform.ScatteringParams`);
* ``fourier``: the Fourier modulus ``|x_hat|`` (unitary 2-D DFT of the whole image);
* ``pixels``: the image itself.

A colour image ``(H, W, C)`` is mapped channel by channel and the channels' features are
concatenated (the CKN and NTK treat channels as their first layer's input instead).

``feature_map(name)`` describes a map (title, formula, whether it needs an architecture);
``map_features`` gives the explicit maps' feature vectors of a stack of images;
``relative_distances`` is the distance above on feature vectors; ``map_distances`` is
the one entry for any map: distances from one image to several.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntkviz._check import check_choice

__all__ = ["MAPS", "DEFAULT_MAPS", "KERNEL_MAPS", "FeatureMap", "feature_map", "check_maps",
           "map_features", "relative_distances", "map_distances"]

#: every map, in display order
MAPS = ("ckn", "ntk", "scattering", "fourier", "pixels")
#: the maps compared unless chosen otherwise
DEFAULT_MAPS = ("ckn", "ntk", "pixels")
#: the maps computed through an architecture's exact kernels
KERNEL_MAPS = ("ckn", "ntk")


@dataclass(frozen=True)
class FeatureMap:
    """What a map is: ``name``, a legend ``title``, the ``formula`` of ``Phi(x)`` (tooltips)
    and whether it is a kernel map (needs an architecture; no explicit features)."""

    name: str
    title: str
    formula: str
    kernel: bool


_REGISTRY = {
    "ckn": FeatureMap("ckn", "CKN", "CKN feature map (last layer trained), exact infinite-width kernel", True),
    "ntk": FeatureMap("ntk", "NTK", "convolutional NTK feature map, exact infinite-width kernel", True),
    "scattering": FeatureMap("scattering", "scattering",
                             "S<sub>J</sub>x = {x⋆φ<sub>J</sub>, |x⋆ψ<sub>λ1</sub>|⋆φ<sub>J</sub>, "
                             "||x⋆ψ<sub>λ1</sub>|⋆ψ<sub>λ2</sub>|⋆φ<sub>J</sub>}, sampled every 2<sup>J</sup> px",
                             False),
    "fourier": FeatureMap("fourier", "Fourier modulus", "|x̂(ω)|, unitary 2-D DFT", False),
    "pixels": FeatureMap("pixels", "pixels", "x itself", False),
}


def feature_map(name: str) -> FeatureMap:
    """The :class:`FeatureMap` called ``name`` (one of :data:`MAPS`)."""
    return _REGISTRY[check_choice("map", name, MAPS)]


def check_maps(maps, name: str = "maps") -> tuple[str, ...]:
    """``maps`` as a tuple of distinct names of :data:`MAPS` (at least one), or ``ValueError``."""
    if isinstance(maps, str):
        maps = (maps,)
    maps = tuple(maps)
    if not maps or any(m not in MAPS for m in maps) or len(set(maps)) != len(maps):
        raise ValueError(f"{name} must be distinct names among {', '.join(MAPS)}, got {list(maps)}")
    return maps


def _map_features(name: str, stack: np.ndarray, scattering=None) -> np.ndarray:
    """Features ``(N, D)`` of a float64 stack ``(N, H, W, C)`` under an explicit map (no checks)."""
    n = stack.shape[0]
    if name == "pixels":
        return stack.reshape(n, -1)
    planes = np.ascontiguousarray(np.moveaxis(stack, -1, 1))        # (N, C, H, W)
    if name == "fourier":
        from ntkviz.core.scattering.transform import fourier_modulus

        return fourier_modulus(planes).reshape(n, -1)
    from ntkviz.core.scattering.transform import ScatteringParams, _scattering

    params = scattering or ScatteringParams()
    h, w = planes.shape[-2:]
    return _scattering(planes.reshape(-1, h, w), params).reshape(n, -1)


def map_features(name: str, images, scattering=None) -> np.ndarray:
    """Feature vectors ``(N, D)`` of ``images`` (N, H, W) or (N, H, W, C) under an explicit map.

    ``scattering``: :class:`~ntkviz.core.scattering.transform.ScatteringParams` of the
    ``scattering`` map (default J = 2, L = 8, order 2, zero padding). ``ValueError`` for a
    kernel map (``ckn``, ``ntk``: no explicit features) or images the map cannot take.
    """
    from ntkviz.core.conv.gram import image_stack

    if feature_map(name).kernel:
        raise ValueError(f"map {name} is a kernel map: it has no explicit features")
    stack = image_stack(images)
    if name == "scattering":
        from ntkviz.core.scattering.transform import ScatteringParams

        scattering = scattering or ScatteringParams()
        scattering.grid(*stack.shape[1:3])
    return _map_features(name, stack, scattering)


def relative_distances(fx, fy) -> np.ndarray:
    """``||fy_i - fx_i|| / ||fx_i||`` per row of feature arrays ``(N, D)`` (``fx`` may be one row
    ``(1, D)`` or ``(D,)``, broadcast); 0 or ``inf`` from a zero ``fx_i`` (see the module docstring)."""
    fx = np.atleast_2d(np.asarray(fx, dtype=np.float64))
    fy = np.atleast_2d(np.asarray(fy, dtype=np.float64))
    d = np.linalg.norm(fy - fx, axis=-1)
    nx = np.broadcast_to(np.linalg.norm(fx, axis=-1), d.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(nx > 0, d / np.where(nx > 0, nx, 1.0), np.where(d == 0, 0.0, np.inf))


def map_distances(name: str, x, ys, architecture=None, scattering=None) -> np.ndarray:
    """Relative distances ``d(x, y_i)`` of one image ``x`` (H, W[, C]) to images ``ys``
    (N, H, W[, C]) under map ``name``; kernel maps need ``architecture`` (the NTK of one
    without an NTK is NaN)."""
    from ntkviz.core._validate import validate_image
    from ntkviz.core.conv.gram import image_stack

    spec = feature_map(name)
    x = validate_image(x, "x")
    ys = image_stack(ys, "ys")
    x4 = x.reshape(x.shape[:2] + (-1,))[None]
    if x4.shape[1:] != ys.shape[1:]:
        raise ValueError(f"ys must have the shape of x {x4.shape[1:]}, got {ys.shape[1:]}")
    if not spec.kernel:
        return relative_distances(map_features(name, x4, scattering), map_features(name, ys, scattering))
    from ntkviz.core.conv.architecture import Architecture
    from ntkviz.core.conv.gram import image_norms, rel_distances

    if not isinstance(architecture, Architecture):
        raise ValueError(f"map {name} needs an architecture, got {type(architecture).__name__}")
    col = KERNEL_MAPS.index(name)
    norms_x = image_norms(x, architecture)
    return np.array([rel_distances(norms_x, image_norms(y if x.ndim == 3 else y[..., 0], architecture),
                                   architecture)[col] for y in ys])
