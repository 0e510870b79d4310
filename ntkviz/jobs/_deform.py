"""Jobs of the deformation editor and of the stability view (Qt-free).

Three frozen requests, each a complete snapshot of what a computation needs:

* :class:`DeformRequest` -> :class:`DeformResponse`: one deformation of one
  digit, with the read-outs of the editor (``||tau||_inf``, ``||grad tau||_inf``,
  CKN / NTK relative distances and their ratio, pixel distance). The digit's
  per-layer norms come from the core's cache (:func:`ntkviz.core.conv.gram.image_norms`),
  so a slider move costs one norms pass of the deformed digit plus one cross
  kernel. Its :meth:`DeformRequest.images` (-> :class:`DeformImages`) is the part
  without a kernel: the pictures and the pixel read-outs, drawn while the kernel
  distances are computed.
* :class:`ContextRequest` -> :class:`ContextResult` (``iterate()`` yields
  :class:`ContextProgress`): distances from the digit to the nearest and to the
  mean of same-label and other-label bundled digits (the "is this further than
  another 5?" yardstick). Results are cached per (digit, architecture, reference set).
* :class:`StabilityRequest` -> ``SweepResult`` (``iterate()`` yields the partial
  results of :func:`ntkviz.core.deformations.stability.stability_sweep` as they come).

Relative distances are ``||Phi(x) - Phi(y)|| / ||Phi(x)||`` with ``x`` the
undeformed digit. From an all-zero ``x`` (no features) the distance is ``inf``
to any ``y`` with features and 0 to another zero image; it is never NaN. With
the sum patch normalisation NTK distances below about 1e-4 are rounding noise
(the squared distance ``k(x,x) + k(y,y) - 2 k(x,y)`` cancels); such values are
flagged ``*_below_resolution`` and must be shown as "below numerical
resolution", not as data.
"""
from __future__ import annotations

import hashlib
import math
import threading
from dataclasses import dataclass, field, fields
from typing import Iterator

import numpy as np

from ntkviz.core._validate import check_choice, check_float, check_int, validate_image
from ntkviz.core.conv.architecture import Architecture
from ntkviz.core.conv.gram import _image_norms, _rel_distances
from ntkviz.core.deformations import deform as core_deform
from ntkviz.core.deformations.digits import DIGIT_SIZE, load_digits, prepare_user_image
from ntkviz.jobs._run import run_to_end

__all__ = [
    "NTK_RESOLUTION", "CKN_RESOLUTION", "DIGIT_SIZE",
    "DeformRequest", "DeformResponse", "DeformImages",
    "ContextRequest", "ContextProgress", "ContextResult",
    "StabilityRequest", "prepare_user_image",
    "DEFORM_VIEWS", "CONTEXT_CATEGORIES", "context_table", "deform_csv_table",
]

#: NTK relative distances below this are rounding noise (sum patch normalisation).
NTK_RESOLUTION = 1e-4
#: CKN relative distances below this are treated as rounding noise. kappa_1 has
#: slope 1 at c = 1, so the CKN kernels are accurate to ~1e-16 relative and the
#: cancellation in d^2 = (k_xx + k_yy - 2 k_xy) / k_xx leaves a noise floor of
#: d ~ 2e-8 (measured on MNIST digits with M1: d is proportional to a tiny
#: translation down to ~1e-7); at d = 1e-7 the noise is ~1 % of the value.
CKN_RESOLUTION = 1e-7


def _validated_architecture(arch) -> Architecture:
    """``arch.validated()``, the one check of a request's architecture."""
    if not isinstance(arch, Architecture):
        raise ValueError(f"architecture must be an Architecture, got {type(arch).__name__}")
    return arch.validated()


def _readonly(arr) -> np.ndarray:
    out = np.array(arr, dtype=np.float64, order="C", copy=True)
    out.setflags(write=False)
    return out


def _pixel_distance(x: np.ndarray, y: np.ndarray) -> float:
    """``||y - x|| / ||x||``; from a zero ``x``: 0 if ``y`` is zero too, else ``inf``."""
    nx = float(np.linalg.norm(x))
    d = float(np.linalg.norm(y - x))
    if nx > 0:
        return d / nx
    return 0.0 if d == 0 else float("inf")


# --------------------------------------------------------------------------- editor


@dataclass(frozen=True, eq=False)
class DeformImages:
    """The pictures and pixel read-outs of one deformation (no kernel: milliseconds).

    Attributes
    ----------
    original, deformed, difference : ndarray (H, W)
        ``x``, ``L_tau x`` and ``L_tau x - x``.
    tau : ndarray (2, H, W)
        Displacement field in pixels, components (down, right).
    tau_sup, jacobian_sup : float
        ``||tau||_inf`` (px) and ``||grad tau||_inf`` (dimensionless).
    pixel_distance : float
        ``||L_tau x - x|| / ||x||``.
    identical : bool
        ``L_tau x == x`` exactly; every distance is then exactly 0.
    deformation : Deformation
        The (validated) deformation shown.
    """

    original: np.ndarray
    deformed: np.ndarray
    difference: np.ndarray
    tau: np.ndarray
    tau_sup: float
    jacobian_sup: float
    pixel_distance: float
    identical: bool
    deformation: object


@dataclass(frozen=True, eq=False)
class DeformResponse(DeformImages):
    """Everything the deformation editor shows for one deformation: its
    :class:`DeformImages` and the kernel distances.

    Attributes
    ----------
    ckn_distance, ntk_distance : float
        Relative feature distances ``||Phi(L_tau x) - Phi(x)|| / ||Phi(x)||``;
        NTK is NaN if the architecture has no NTK.
    ratio : float
        ``ntk_distance / ckn_distance``; NaN when either is below resolution.
    ckn_below_resolution, ntk_below_resolution : bool
        The images differ but the distance is under :data:`CKN_RESOLUTION` /
        :data:`NTK_RESOLUTION` (possibly exactly 0 after clamping a squared
        distance that cancelled): rounding noise, not data.
    reference_norms : ImageNorms
        Norms of ``x`` used.
    label : int or None
        Class of ``x`` (None: unknown, a user image), for the context distances.
    """

    ckn_distance: float
    ntk_distance: float
    ratio: float
    ckn_below_resolution: bool
    ntk_below_resolution: bool
    reference_norms: object = field(repr=False)
    architecture: Architecture | None = None
    label: int | None = None

    def csv_table(self, view: str = "deformed") -> tuple[list[str], list[list]]:
        """``(header, rows)`` of an editor view (see :func:`deform_csv_table`); ``context``
        computes the context distances (cached) first."""
        context = None
        if view == "context":
            context = ContextRequest(self.original, self.label, self.architecture,
                                     reference_norms=self.reference_norms)()
        return deform_csv_table(view, self, context)


@dataclass(frozen=True, eq=False)
class DeformRequest:
    """One deformation of one digit under one architecture.

    Parameters
    ----------
    image : array (H, W)
        The reference digit ``x`` (copied, stored read-only).
    deformation : Deformation
    architecture : Architecture
    label : int or None
        Class of ``image`` (None: unknown), passed on to the response.
    reference_norms : ImageNorms or None
        :func:`ntkviz.core.conv.gram.image_norms` of ``image`` under ``architecture``;
        looked up (core cache) if None, and returned in the response.
    """

    image: np.ndarray
    deformation: core_deform.Deformation
    architecture: Architecture
    label: int | None = None
    reference_norms: object = field(default=None, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "image", _readonly(validate_image(self.image, "image")))
        if self.label is not None:
            object.__setattr__(self, "label", check_int("label", self.label, 0, 9))
        if not isinstance(self.deformation, core_deform.Deformation):
            raise ValueError(f"deformation must be a Deformation, got {type(self.deformation).__name__}")
        object.__setattr__(self, "deformation", self.deformation.validated())
        object.__setattr__(self, "architecture", _validated_architecture(self.architecture))

    def images(self) -> DeformImages:
        """The deformed digit, its displacement field and the pixel read-outs: everything
        of the response but the kernel distances."""
        x = self.image
        # image and deformation were validated in __post_init__: unchecked core calls
        deformed, tau = core_deform._deform_image(x, self.deformation)
        deformed = np.ascontiguousarray(deformed, dtype=np.float64)
        tau = np.asarray(tau)
        return DeformImages(
            original=x, deformed=deformed, difference=deformed - x, tau=tau,
            tau_sup=float(core_deform.tau_sup_norm(tau)),
            jacobian_sup=float(core_deform.jacobian_sup_norm(tau)),
            pixel_distance=_pixel_distance(x, deformed),
            identical=bool(np.array_equal(deformed, x)), deformation=self.deformation)

    def __call__(self) -> DeformResponse:
        x = self.image
        arch = self.architecture
        # image, deformation and architecture were validated in __post_init__: unchecked core calls
        ref = self.reference_norms if self.reference_norms is not None else _image_norms(x, arch)
        pictures = self.images()
        deformed, identical = pictures.deformed, pictures.identical
        if identical:
            ckn, ntk = 0.0, (0.0 if arch.supports_ntk else float("nan"))
        else:
            ckn, ntk = _rel_distances(ref, _image_norms(deformed, arch), arch)
        # rounding noise: tiny values, or a squared distance that cancelled to <= 0
        # (clamped to exactly 0) although the images differ
        ckn_low = not identical and ckn < CKN_RESOLUTION
        ntk_low = not identical and bool(np.isfinite(ntk)) and ntk < NTK_RESOLUTION
        ratio = float("nan")
        if not (ckn_low or ntk_low) and ckn > 0 and np.isfinite(ntk):
            ratio = ntk / ckn
        return DeformResponse(
            **{f.name: getattr(pictures, f.name) for f in fields(DeformImages)},
            ckn_distance=float(ckn), ntk_distance=float(ntk), ratio=float(ratio),
            ckn_below_resolution=bool(ckn_low), ntk_below_resolution=bool(ntk_low),
            reference_norms=ref, architecture=arch, label=self.label,
        )


# --------------------------------------------------------------------------- editor state, tables

#: exportable views of the deformation editor
DEFORM_VIEWS = ("original", "deformed", "difference", "displacement", "context")
#: rows of the context table: the deformation itself, then the ContextResult levels
CONTEXT_CATEGORIES = ("deformation", "nearest_same", "mean_same", "nearest_other", "mean_other")


def context_table(response: "DeformResponse | None", context: "ContextResult | None") -> dict:
    """``{category: {map: value}}`` for :data:`CONTEXT_CATEGORIES` and maps ckn, ntk,
    pixel: the deformation's own distances and the context levels (NaN = unknown)."""
    maps = ContextResult.MAPS
    values = {cat: {m: float("nan") for m in maps} for cat in CONTEXT_CATEGORIES}
    if response is not None:
        values["deformation"] = {"ckn": response.ckn_distance, "ntk": response.ntk_distance,
                                 "pixel": response.pixel_distance}
    if context is not None:
        for cat in CONTEXT_CATEGORIES[1:]:
            for m in maps:
                values[cat][m] = context.levels[m][cat]
    return values


def deform_csv_table(view: str, response: "DeformResponse", context: "ContextResult | None" = None
                     ) -> tuple[list[str], list[list]]:
    """``(header, rows)`` of an editor view: images one row per pixel (``row, col, value``),
    ``displacement`` as ``row, col, tau_down_px, tau_right_px``, ``context`` as
    ``category, map, relative_distance`` (``inf`` from an all-zero digit; rows that do not
    exist are left out: same-label rows for a digit of unknown class, NTK rows for an
    architecture without NTK)."""
    check_choice("view", view, DEFORM_VIEWS)
    if view == "context":
        rows = [[cat, m, v] for cat, row in context_table(response, context).items()
                for m, v in row.items() if not math.isnan(v)]
        return ["category", "map", "relative_distance"], rows
    h, w = response.original.shape[:2]
    r, c = (a.ravel().tolist() for a in np.mgrid[0:h, 0:w])
    if view == "displacement":
        return (["row", "col", "tau_down_px", "tau_right_px"],
                [list(t) for t in zip(r, c, response.tau[0].ravel().tolist(),
                                      response.tau[1].ravel().tolist())])
    return ["row", "col", "value"], [list(t) for t in zip(r, c, getattr(response, view).ravel().tolist())]


# --------------------------------------------------------------------------- context


@dataclass(frozen=True)
class ContextResult:
    """Distances from one digit to bundled digits (relative to ``||Phi(x)||``).

    For each feature map ``m`` in ("ckn", "ntk", "pixel") the dict
    ``levels[m]`` holds ``nearest_same``, ``mean_same``, ``nearest_other``,
    ``mean_other`` (NaN when there is no label or the map is unavailable; ``inf``
    from an all-zero digit).
    "mean" is the mean of the distances (as in the paper's Fig. 1), "nearest"
    their minimum. The digit itself (an exact copy) is excluded.
    """

    label: int | None
    n_same: int
    n_other: int
    levels: dict

    LEVELS = ("nearest_same", "mean_same", "nearest_other", "mean_other")
    MAPS = ("ckn", "ntk", "pixel")


@dataclass(frozen=True)
class ContextProgress:
    """One yield of :class:`ContextRequest`: ``fraction`` done, ``result`` at the end."""

    fraction: float
    result: ContextResult | None = None


_CACHE_LOCK = threading.Lock()
_CONTEXT_CACHE: dict = {}     # (digest, label, arch, per_class) -> ContextResult
_CACHE_MAX = 64


def _digest(image: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(image).tobytes()).hexdigest()


def _reference_digits(per_class: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``per_class`` bundled digits of each label, float64 in [0, 1]."""
    images, labels = load_digits()
    idx = np.concatenate([np.flatnonzero(labels == k)[:per_class] for k in range(10)])
    return images[idx].astype(np.float64) / 255.0, labels[idx].astype(int)


@dataclass(frozen=True, eq=False)
class ContextRequest:
    """Distances from a digit to the nearest / mean same-label and other-label digits.

    Parameters
    ----------
    image : array (H, W)
        The digit ``x``.
    label : int or None
        Its class; None for a user image of unknown class (then every bundled
        digit counts as "other").
    architecture : Architecture
    per_class : int
        Reference digits per label: the first ``per_class`` of each class in the
        bundled subset (deterministic).
    reference_norms : ImageNorms or None
        Cached norms of ``image``.

    Calling the request returns the :class:`ContextResult`; :meth:`iterate` yields
    :class:`ContextProgress` items (cancellable between yields), the last one
    carrying the result. Results and the reference digits' norms are cached per
    architecture, so a second call returns at once.
    """

    image: np.ndarray
    label: int | None
    architecture: Architecture
    per_class: int = 30
    reference_norms: object = field(default=None, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "image", _readonly(validate_image(self.image, "image")))
        if self.label is not None:
            object.__setattr__(self, "label", check_int("label", self.label, 0, 9))
        object.__setattr__(self, "per_class", check_int("per_class", self.per_class, 1, 500))
        object.__setattr__(self, "architecture", _validated_architecture(self.architecture))

    @property
    def cache_key(self) -> tuple:
        return (_digest(self.image), self.label, self.architecture, self.per_class)

    def cached(self) -> ContextResult | None:
        """The cached result, or None."""
        with _CACHE_LOCK:
            return _CONTEXT_CACHE.get(self.cache_key)

    def __call__(self) -> ContextResult:
        """Run to the end and return the result."""
        return run_to_end(self.iterate()).result

    run = __call__

    def iterate(self) -> Iterator[ContextProgress]:
        """Progress items; the last carries the result."""
        hit = self.cached()
        if hit is not None:
            yield ContextProgress(1.0, hit)
            return
        arch = self.architecture
        x = self.image
        refs, ref_labels = _reference_digits(self.per_class)
        n = len(refs)
        steps = 2 * n + 1
        done = 0
        norms_x = self.reference_norms if self.reference_norms is not None else _image_norms(x, arch)
        done += 1
        ref_norms = []
        for i in range(n):  # core's norm cache keeps them (also across a cancelled run)
            ref_norms.append(_image_norms(refs[i], arch))
            done += 1
            if i % 10 == 9:
                yield ContextProgress(done / steps)
        done = n + 1
        dist = {m: np.full(n, np.nan) for m in ContextResult.MAPS}
        for i in range(n):
            if np.array_equal(refs[i], x):
                continue  # the digit itself
            dist["ckn"][i], dist["ntk"][i] = _rel_distances(norms_x, ref_norms[i], arch)
            dist["pixel"][i] = _pixel_distance(x, refs[i])
            done += 1
            if i % 10 == 9:
                yield ContextProgress(min(done / steps, 0.999))
        keep = ~np.isnan(dist["pixel"])
        same = keep & (ref_labels == self.label) if self.label is not None else np.zeros(n, bool)
        other = keep & ~same
        levels = {}
        for m, d in dist.items():
            def stat(mask, fn):
                vals = d[mask]  # inf (from a zero digit) is a value; NaN (no NTK) is not
                return float(fn(vals)) if vals.size and not np.any(np.isnan(vals)) else float("nan")
            levels[m] = {"nearest_same": stat(same, np.min), "mean_same": stat(same, np.mean),
                         "nearest_other": stat(other, np.min), "mean_other": stat(other, np.mean)}
        result = ContextResult(label=self.label, n_same=int(same.sum()), n_other=int(other.sum()),
                               levels=levels)
        with _CACHE_LOCK:
            if len(_CONTEXT_CACHE) >= _CACHE_MAX:
                _CONTEXT_CACHE.pop(next(iter(_CONTEXT_CACHE)))
            _CONTEXT_CACHE[self.cache_key] = result
        yield ContextProgress(1.0, result)


# --------------------------------------------------------------------------- stability


@dataclass(frozen=True)
class StabilityRequest:
    """A stability sweep (the "in the spirit of Fig. 1" view of Bietti & Mairal 2019).

    Parameters
    ----------
    family : str
        One of :data:`ntkviz.core.deformations.stability.FAMILIES`.
    digits : tuple of int
        Indices into the bundled subset (:func:`ntkviz.core.deformations.digits.load_digits`).
    amplitudes : tuple of float
        Deformation amplitudes (> 0, the x-axis; the unit depends on the family).
    seeds : tuple of int
        Random seeds of the deformations, averaged over.
    architecture : Architecture
    reference_per_class : int
        Reference digits per label for the same-label / any-label levels (the
        first ones of each class in the bundled subset).

    Calling the request returns the final ``SweepResult``; :meth:`iterate`
    yields the ``SweepProgress`` items of
    :func:`ntkviz.core.deformations.stability.stability_sweep` (partial results included).
    """

    family: str
    digits: tuple
    amplitudes: tuple
    seeds: tuple
    architecture: Architecture
    reference_per_class: int = 5

    def __post_init__(self):
        from ntkviz.core.deformations.stability import FAMILIES

        check_choice("family", self.family, FAMILIES)
        n_digits = len(load_digits()[1])
        digits = tuple(check_int("digits", d, 0, n_digits - 1) for d in self.digits)
        # the sweep's own ranges (amplitudes <= 1e3, seeds <= 2^31): it is not checked again
        amps = tuple(check_float("amplitudes", a, 0.0, 1e3) for a in self.amplitudes)
        seeds = tuple(check_int("seeds", s, 0, 2**31) for s in self.seeds)
        for name, val in (("digits", digits), ("amplitudes", amps), ("seeds", seeds)):
            if not val:
                raise ValueError(f"{name} must not be empty")
        if any(a <= 0 for a in amps):
            raise ValueError("amplitudes must be > 0 (log-log axis)")
        if len(set(amps)) < len(amps):
            raise ValueError("amplitudes must be a non-empty increasing list of positive numbers")
        object.__setattr__(self, "digits", digits)
        object.__setattr__(self, "amplitudes", tuple(sorted(amps)))
        object.__setattr__(self, "seeds", seeds)
        object.__setattr__(self, "reference_per_class",
                           check_int("reference_per_class", self.reference_per_class, 1, 500))
        object.__setattr__(self, "architecture", _validated_architecture(self.architecture))

    def images(self) -> tuple[np.ndarray, np.ndarray]:
        images, labels = load_digits()
        idx = np.asarray(self.digits)
        return images[idx].astype(np.float64) / 255.0, labels[idx].astype(int)

    def __call__(self):
        """Run the sweep to the end and return its ``SweepResult``."""
        return run_to_end(self.iterate()).result

    run = __call__

    def iterate(self):
        """The sweep's ``SweepProgress`` items (cancellable between them)."""
        from ntkviz.core.deformations.stability import _stability_sweep

        images, labels = self.images()
        refs, ref_labels = _reference_digits(self.reference_per_class)
        self.architecture._layer_sizes(images.shape[1], images.shape[2])  # the model fits the digits
        # every argument was checked in __post_init__ (bundled digits, validated architecture)
        return _stability_sweep(np.ascontiguousarray(images[..., None]), np.asarray(labels), self.architecture, self.family,
                                np.asarray(self.amplitudes, dtype=np.float64), list(self.seeds),
                                np.ascontiguousarray(refs[..., None], dtype=np.float64),
                                np.asarray(ref_labels).ravel(), 3)

