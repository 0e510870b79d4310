"""Jobs of the deformation editor and of the stability view (Qt-free).

Three frozen requests, each a complete snapshot of what a computation needs:

* :class:`DeformRequest` -> :class:`DeformResponse`: one deformation of one
  digit, with the read-outs of the editor (``||tau||_inf``, ``||grad tau||_inf``,
  CKN / NTK relative distances and their ratio, pixel distance). The digit's
  per-layer norms come from the core's cache (:func:`ntkviz.core.conv.gram.image_norms`),
  so a slider move costs one norms pass of the deformed digit plus one cross
  kernel. Its :meth:`DeformRequest.images` (-> :class:`DeformImages`) is the part
  without a kernel: the pictures and the read-outs of the explicit maps (pixels, the
  scattering transform and the Fourier modulus of
  :mod:`ntkviz.core.deformations.maps`; the features of the undeformed image are kept
  per image and scattering parameters), drawn while the kernel distances are computed.
  The image may be the Gabor probe (:mod:`ntkviz.core.deformations.probes`), whose
  deformation is then sampled exactly instead of warped bilinearly.
* :class:`ContextRequest` -> :class:`ContextResult` (``iterate()`` yields
  :class:`~ntkviz.jobs.Progress` items): distances from the digit to the nearest and
  to the mean of same-label and other-label bundled digits (the "is this further than
  another 5?" yardstick), for every map. Results are cached per (digit, architecture, reference set),
  in memory and, given a ``cache_dir``, on disk.
* :class:`StabilityRequest` -> ``SweepResult`` (``iterate()`` yields progress items
  with the partial results of :func:`ntkviz.core.deformations.stability.stability_sweep`
  as they come).

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
from typing import ClassVar, Generator

import numpy as np

from ntkviz import limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz.core import validate_image
from ntkviz.core.conv.architecture import Architecture, check_architecture
from ntkviz.core.conv.gram import image_norms, rel_distances
from ntkviz.core.deformations import deform as core_deform
from ntkviz.core.deformations.deform import Deformation, deform_image, jacobian_sup_norm, tau_sup_norm
from ntkviz.core.deformations.digits import DIGIT_SIZE, load_digits
from ntkviz.core.deformations.maps import DEFAULT_MAPS, _map_features, check_maps, relative_distances
from ntkviz.core.deformations.probes import OMEGA0_RANGE, deform_gabor, gabor_image
from ntkviz.dataset._names import check_family_amplitude
from ntkviz.jobs._run import Progress, run_to_end

__all__ = [
    "DeformRequest", "DeformResponse", "DeformImages",
    "ContextRequest", "ContextResult",
    "StabilityRequest",
    "CONTEXT_CATEGORIES", "context_table", "deform_csv_table",
]



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


#: the explicit maps the editor reads out beside the pixels (their features need no kernel)
EXPLICIT_MAPS = ("scattering", "fourier")
_FEATURES_LOCK = threading.Lock()
_FEATURES: dict = {}          # (map, digest, shape, scattering params) -> features (1, D)
_FEATURES_MAX = 32


def _scattering_params(params, shape: tuple, name: str = "scattering"):
    """``params`` (None: the default J = 2, L = 8, order 2, zero padding) checked to be
    :class:`~ntkviz.core.scattering.transform.ScatteringParams` that fit an image of ``shape``."""
    from ntkviz.core.scattering.transform import ScatteringParams

    params = ScatteringParams() if params is None else params
    if not isinstance(params, ScatteringParams):
        raise ValueError(f"{name} must be ScatteringParams, got {type(params).__name__}")
    params.grid(*shape[:2])
    return params


def _stack(images: np.ndarray) -> np.ndarray:
    """A checked float64 stack (N, H, W) or (N, H, W, C) as the maps' (N, H, W, C)."""
    return images if images.ndim == 4 else images[..., None]


def _features(name: str, image: np.ndarray, scattering) -> np.ndarray:
    """Features ``(1, D)`` of one checked image under an explicit map, kept per image (the
    undeformed digit: computed once, not at every slider move)."""
    key = (name, _digest(image), image.shape, scattering if name == "scattering" else None)
    with _FEATURES_LOCK:
        hit = _FEATURES.get(key)
    if hit is None:
        hit = _map_features(name, _stack(image[None]), scattering)
        hit.setflags(write=False)
        with _FEATURES_LOCK:
            if len(_FEATURES) >= _FEATURES_MAX:
                _FEATURES.pop(next(iter(_FEATURES)))
            _FEATURES[key] = hit
    return hit


def _explicit_distances(x: np.ndarray, ys: np.ndarray, scattering) -> dict:
    """``{map: relative distances (N,)}`` from ``x`` to the stack ``ys`` for the explicit maps,
    the features of ``x`` from the cache (as :func:`~ntkviz.core.deformations.maps.map_distances`)."""
    stack = _stack(ys)
    return {name: relative_distances(_features(name, x, scattering),
                                     _map_features(name, stack, scattering))
            for name in EXPLICIT_MAPS}


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
    scattering_distance, fourier_distance : float
        The same relative distance between the scattering coefficients ``S_J`` (parameters
        ``scattering``) and between the Fourier moduli ``|x_hat|`` of ``x`` and ``L_tau x``.
    identical : bool
        ``L_tau x == x`` exactly; every distance is then exactly 0.
    deformation : Deformation
        The (validated) deformation shown.
    scattering : ScatteringParams
        Of the scattering distance.
    """

    original: np.ndarray
    deformed: np.ndarray
    difference: np.ndarray
    tau: np.ndarray
    tau_sup: float
    jacobian_sup: float
    pixel_distance: float
    scattering_distance: float
    fourier_distance: float
    identical: bool
    deformation: object
    scattering: object


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
        The images differ but the distance is under ``limits.CKN_RESOLUTION`` /
        ``limits.NTK_RESOLUTION`` (possibly exactly 0 after clamping a squared
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
    scattering : ScatteringParams or None
        Of the scattering read-out (None: J = 2, L = 8, order 2, zero padding); ``2^J`` at
        most the image's side.
    probe_omega0 : float or None
        The image is the Gabor probe :func:`~ntkviz.core.deformations.probes.gabor_image`
        of ``image``'s shape and wave number ``omega0`` (radians per px; ``image`` is
        replaced by it), deformed by exact sampling; None: ``image`` is warped bilinearly.
    """

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = False

    image: np.ndarray
    deformation: Deformation
    architecture: Architecture
    label: int | None = None
    reference_norms: object = field(default=None, repr=False)
    scattering: object = None
    probe_omega0: float | None = None
    _pictures: list = field(default_factory=list, init=False, repr=False, compare=False)
    _lock: object = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def __post_init__(self):
        image = validate_image(self.image, "image")
        if self.probe_omega0 is not None:
            omega0 = check_float("probe_omega0", self.probe_omega0, OMEGA0_RANGE)
            if image.ndim != 2:
                raise ValueError(f"image of the Gabor probe must have shape (H, W), got {image.shape}")
            object.__setattr__(self, "probe_omega0", omega0)
            image = gabor_image(image.shape, omega0)
        object.__setattr__(self, "image", _readonly(image))
        if self.label is not None:
            object.__setattr__(self, "label", check_int("label", self.label, limits.DIGIT_LABEL_RANGE))
        if not isinstance(self.deformation, Deformation):
            raise ValueError(f"deformation must be a Deformation, got {type(self.deformation).__name__}")
        check_architecture(self.architecture, "architecture")
        object.__setattr__(self, "scattering", _scattering_params(self.scattering, image.shape))

    def images(self) -> DeformImages:
        """The deformed digit, its displacement field and the read-outs of the explicit maps
        (pixels, scattering, Fourier modulus): everything of the response but the kernel
        distances. Computed once per request (the pictures' job and the kernel job share it)."""
        with self._lock:
            if not self._pictures:
                self._pictures.append(self._compute_images())
            return self._pictures[0]

    def _compute_images(self) -> DeformImages:
        x = self.image
        # the image was checked in __post_init__ and the deformation checks itself: no re-check
        if self.probe_omega0 is None:
            deformed, tau = deform_image(x, self.deformation, check_input=False)
        else:
            deformed, tau = deform_gabor(self.deformation, x.shape, self.probe_omega0)
        deformed = np.ascontiguousarray(deformed, dtype=np.float64)
        tau = np.asarray(tau)
        identical = bool(np.array_equal(deformed, x))
        explicit = {name: 0.0 for name in EXPLICIT_MAPS} if identical else \
            {name: float(d[0]) for name, d in _explicit_distances(x, deformed[None], self.scattering).items()}
        return DeformImages(
            original=x, deformed=deformed, difference=deformed - x, tau=tau,
            tau_sup=float(tau_sup_norm(tau)), jacobian_sup=float(jacobian_sup_norm(tau)),
            pixel_distance=_pixel_distance(x, deformed),
            scattering_distance=explicit["scattering"], fourier_distance=explicit["fourier"],
            identical=identical, deformation=self.deformation, scattering=self.scattering)

    def __call__(self) -> DeformResponse:
        x = self.image
        arch = self.architecture
        # the image was checked in __post_init__, the deformed one is made from it: no re-check
        ref = (self.reference_norms if self.reference_norms is not None
               else image_norms(x, arch, check_input=False))
        pictures = self.images()
        deformed, identical = pictures.deformed, pictures.identical
        if identical:
            ckn, ntk = 0.0, (0.0 if arch.supports_ntk else float("nan"))
        else:
            ckn, ntk = rel_distances(ref, image_norms(deformed, arch, check_input=False), arch)
        # rounding noise: tiny values, or a squared distance that cancelled to <= 0
        # (clamped to exactly 0) although the images differ
        ckn_low = not identical and ckn < limits.CKN_RESOLUTION
        ntk_low = not identical and bool(np.isfinite(ntk)) and ntk < limits.NTK_RESOLUTION
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

#: rows of the context table: the deformation itself, then the ContextResult levels
CONTEXT_CATEGORIES = ("deformation", "nearest_same", "mean_same", "nearest_other", "mean_other")


def context_table(response: "DeformResponse | None", context: "ContextResult | None") -> dict:
    """``{category: {map: value}}`` for :data:`CONTEXT_CATEGORIES` and the maps of
    :attr:`ContextResult.MAPS`: the deformation's own distances and the context levels
    (NaN = unknown)."""
    maps = ContextResult.MAPS
    values = {cat: {m: float("nan") for m in maps} for cat in CONTEXT_CATEGORIES}
    if response is not None:
        values["deformation"] = {"ckn": response.ckn_distance, "ntk": response.ntk_distance,
                                 "scattering": response.scattering_distance,
                                 "fourier": response.fourier_distance,
                                 "pixel": response.pixel_distance}
    if context is not None:
        for cat in CONTEXT_CATEGORIES[1:]:
            for m in maps:
                values[cat][m] = context.levels[m][cat]
    return values


def deform_csv_table(view: str, response: "DeformResponse", context: "ContextResult | None" = None,
                     maps=None) -> tuple[list[str], list[list]]:
    """``(header, rows)`` of an editor view: images one row per pixel (``row, col, value``),
    ``displacement`` as ``row, col, tau_down_px, tau_right_px``, ``context`` as
    ``category, map, relative_distance`` (``inf`` from an all-zero digit; rows that do not
    exist are left out: same-label rows for a digit of unknown class, NTK rows for an
    architecture without NTK, the levels of the Gabor probe). ``maps``: the names of
    :data:`ntkviz.core.deformations.maps.MAPS` whose context rows are written (default all;
    ``pixels`` is the rows' ``pixel``)."""
    if view == "context":
        keep = None if maps is None else {"pixel" if m == "pixels" else m for m in check_maps(maps)}
        rows = [[cat, m, v] for cat, row in context_table(response, context).items()
                for m, v in row.items() if not math.isnan(v) and (keep is None or m in keep)]
        return ["category", "map", "relative_distance"], rows
    h, w = response.original.shape[:2]
    r, c = (a.ravel().tolist() for a in np.mgrid[0:h, 0:w])
    if view == "displacement":
        return (["row", "col", "tau_down_px", "tau_right_px"],
                [list(t) for t in zip(r, c, response.tau[0].ravel().tolist(),
                                      response.tau[1].ravel().tolist())])
    check_choice("view", view, ("original", "deformed", "difference"))
    return ["row", "col", "value"], [list(t) for t in zip(r, c, getattr(response, view).ravel().tolist())]


# --------------------------------------------------------------------------- context


@dataclass(frozen=True)
class ContextResult:
    """Distances from one digit to bundled digits (relative to ``||Phi(x)||``).

    For each feature map ``m`` in :attr:`MAPS` (the CKN, the NTK, the scattering
    transform, the Fourier modulus and the pixels) the dict
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
    MAPS = ("ckn", "ntk", "scattering", "fourier", "pixel")


_CACHE_LOCK = threading.Lock()
_CONTEXT_CACHE: dict = {}     # (digest, label, arch, per_class, scattering) -> ContextResult
_CACHE_MAX = 64
_REFERENCE_FEATURES: dict = {}  # (map, per_class, scattering) -> features of the reference digits


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
    scattering : ScatteringParams or None
        Of the scattering map (None: J = 2, L = 8, order 2, zero padding).

    cache_dir : str or None
        A folder for the results on disk (one small JSON file each, named by a hash of
        the digit, its label, the architecture, ``per_class``, the scattering parameters,
        the ntkviz version and the conv engine's sources): a result computed once is read
        back in later sessions. None: memory only.

    Calling the request returns the :class:`ContextResult`; :meth:`iterate` yields
    :class:`~ntkviz.jobs.Progress` items (cancellable between yields) and returns the
    result. Results, the reference digits' norms (per architecture) and their scattering
    and Fourier features (per scattering parameters) are cached, so a second call returns
    at once.
    """

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = True

    image: np.ndarray
    label: int | None
    architecture: Architecture
    per_class: int = 30
    reference_norms: object = field(default=None, repr=False)
    cache_dir: str | None = None
    scattering: object = None

    def __post_init__(self):
        object.__setattr__(self, "image", _readonly(validate_image(self.image, "image")))
        if self.label is not None:
            object.__setattr__(self, "label", check_int("label", self.label, limits.DIGIT_LABEL_RANGE))
        object.__setattr__(self, "per_class", check_int("per_class", self.per_class,
                                                        limits.REFERENCES_RANGE))
        check_architecture(self.architecture, "architecture")
        object.__setattr__(self, "scattering", _scattering_params(self.scattering, self.image.shape))

    @property
    def cache_key(self) -> tuple:
        return (_digest(self.image), self.label, self.architecture, self.per_class, self.scattering)

    def cached(self) -> ContextResult | None:
        """The cached result (memory, then the ``cache_dir`` on disk), or None."""
        with _CACHE_LOCK:
            hit = _CONTEXT_CACHE.get(self.cache_key)
        if hit is None and self.cache_dir is not None:
            hit = _read_context(self._file())
            if hit is not None:
                self._remember(hit)
        return hit

    def _file(self):
        """The result's file in ``cache_dir``."""
        import json
        from pathlib import Path

        from ntkviz import __version__
        from ntkviz.core.conv.architecture import architecture_to_dict
        from ntkviz.dataset._gram import engine_fingerprint

        sp = self.scattering
        key = json.dumps([_digest(self.image), self.label, architecture_to_dict(self.architecture),
                          self.per_class, [sp.J, sp.L, sp.order, sp.padding], __version__,
                          engine_fingerprint()], sort_keys=True)
        return Path(self.cache_dir) / f"context-{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"

    def _remember(self, result: ContextResult) -> None:
        with _CACHE_LOCK:
            if len(_CONTEXT_CACHE) >= _CACHE_MAX:
                _CONTEXT_CACHE.pop(next(iter(_CONTEXT_CACHE)))
            _CONTEXT_CACHE[self.cache_key] = result

    def __call__(self) -> ContextResult:
        """Run to the end and return the result."""
        return run_to_end(self.iterate())

    def iterate(self) -> Generator[Progress, None, ContextResult]:
        """Progress items; returns the result."""
        hit = self.cached()
        if hit is not None:
            return hit
        arch = self.architecture
        x = self.image
        refs, ref_labels = _reference_digits(self.per_class)
        n = len(refs)
        blocks = _blocks_of(n, 25)
        steps = 2 * n + 1 + len(blocks)
        done = 0
        norms_x = (self.reference_norms if self.reference_norms is not None
                   else image_norms(x, arch, check_input=False))
        done += 1
        ref_norms = []
        for i in range(n):  # core's norm cache keeps them (also across a cancelled run)
            ref_norms.append(image_norms(refs[i], arch, check_input=False))  # bundled digits
            done += 1
            if i % 10 == 9:
                yield Progress(done / steps, "reference norms")
        # the explicit maps' features of the references: per scattering parameters, in blocks
        key = (self.per_class, self.scattering)
        with _CACHE_LOCK:
            features = _REFERENCE_FEATURES.get(key)
        if features is None:
            parts = {m: [] for m in EXPLICIT_MAPS}
            for block in blocks:
                for m in EXPLICIT_MAPS:
                    parts[m].append(_map_features(m, _stack(refs[block]), self.scattering))
                done += 1
                yield Progress(done / steps, "scattering and Fourier features")
            features = {m: np.concatenate(parts[m]) for m in EXPLICIT_MAPS}
            with _CACHE_LOCK:
                if len(_REFERENCE_FEATURES) >= 8:
                    _REFERENCE_FEATURES.pop(next(iter(_REFERENCE_FEATURES)))
                _REFERENCE_FEATURES[key] = features
        done = n + 1 + len(blocks)
        dist = {m: np.full(n, np.nan) for m in ContextResult.MAPS}
        for m in EXPLICIT_MAPS:
            dist[m] = relative_distances(_features(m, x, self.scattering), features[m])
        for i in range(n):
            if np.array_equal(refs[i], x):
                for m in EXPLICIT_MAPS:
                    dist[m][i] = np.nan
                continue  # the digit itself
            dist["ckn"][i], dist["ntk"][i] = rel_distances(norms_x, ref_norms[i], arch)
            dist["pixel"][i] = _pixel_distance(x, refs[i])
            done += 1
            if i % 10 == 9:
                yield Progress(min(done / steps, 0.999), "distances")
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
        self._remember(result)
        if self.cache_dir is not None:
            _write_context(self._file(), result)
        return result


def _blocks_of(n: int, size: int) -> list[slice]:
    """``range(n)`` cut into slices of ``size`` items (the last may be shorter)."""
    return [slice(a, min(a + size, n)) for a in range(0, n, size)]


def _write_context(path, result: ContextResult) -> None:
    """Keep ``result`` in ``path`` (JSON; a folder that cannot be written keeps nothing)."""
    import json

    from ntkviz._io import write_text_atomic

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps({"label": result.label, "n_same": result.n_same,
                                            "n_other": result.n_other, "levels": result.levels}))
    except OSError:
        pass


def _read_context(path) -> ContextResult | None:
    """The result kept in ``path``, or None (missing, unreadable or not a result)."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        levels = {m: {lv: float(data["levels"][m][lv]) for lv in ContextResult.LEVELS}
                  for m in ContextResult.MAPS}
        label = data["label"]
        return ContextResult(label=None if label is None else int(label), n_same=int(data["n_same"]),
                             n_other=int(data["n_other"]), levels=levels)
    except (OSError, ValueError, KeyError, TypeError):
        return None


# --------------------------------------------------------------------------- stability


@dataclass(frozen=True)
class StabilityRequest:
    """A stability sweep (the "in the spirit of Fig. 1" view of Bietti & Mairal 2019).

    Parameters
    ----------
    family : str
        One of :data:`ntkviz.core.deformations.stability.SWEEP_FAMILIES` (the deformation
        families and additive ``noise``).
    digits : tuple of int
        Indices into the bundled subset (:func:`ntkviz.core.deformations.digits.load_digits`).
    amplitudes : tuple of float
        Deformation amplitudes (> 0, the x-axis; the unit depends on the family).
    seeds : tuple of int
        Random seeds of the deformations, averaged over.
    architecture : Architecture
        Of the ``ckn`` and ``ntk`` maps.
    reference_per_class : int
        Reference digits per label for the same-label / any-label levels (the
        first ones of each class in the bundled subset).
    maps : tuple of str
        The maps compared (:data:`ntkviz.core.deformations.maps.MAPS`); default ckn, ntk, pixels.
    scattering : ScatteringParams or None
        Parameters of the ``scattering`` map (None: J = 2, L = 8, order 2, zero padding).

    Calling the request returns the final ``SweepResult``; :meth:`iterate` yields a
    :class:`~ntkviz.jobs.Progress` item per amplitude done (``partial``: the
    ``SweepResult`` so far) and returns the final one.
    """

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    family: str
    digits: tuple
    amplitudes: tuple
    seeds: tuple
    architecture: Architecture
    reference_per_class: int = 5
    maps: tuple = DEFAULT_MAPS
    scattering: object = None

    def __post_init__(self):
        check_choice("family", self.family, limits.SWEEP_FAMILIES)
        n_digits = len(load_digits()[1])
        digits = tuple(check_int("digits", d, (0, n_digits - 1)) for d in self.digits)
        # the sweep's own ranges: it is not checked again
        amps = tuple(check_float("amplitudes", a, limits.AMPLITUDE_RANGE) for a in self.amplitudes)
        seeds = tuple(check_int("seeds", s, limits.SEED_RANGE) for s in self.seeds)
        for name, val in (("digits", digits), ("amplitudes", amps), ("seeds", seeds)):
            if not val:
                raise ValueError(f"{name} must not be empty")
        if any(a <= 0 for a in amps):
            raise ValueError("amplitudes must be > 0 (log-log axis)")
        if len(set(amps)) < len(amps):
            raise ValueError("amplitudes must be a non-empty increasing list of positive numbers")
        check_family_amplitude(self.family, max(amps), "amplitudes")
        object.__setattr__(self, "maps", check_maps(self.maps))
        if "scattering" in self.maps:
            from ntkviz.core.scattering.transform import ScatteringParams

            params = ScatteringParams() if self.scattering is None else self.scattering
            if not isinstance(params, ScatteringParams):
                raise ValueError(f"scattering must be ScatteringParams, got {type(params).__name__}")
            params.grid(DIGIT_SIZE, DIGIT_SIZE)              # the bundled digits
            object.__setattr__(self, "scattering", params)
        object.__setattr__(self, "digits", digits)
        object.__setattr__(self, "amplitudes", tuple(sorted(amps)))
        object.__setattr__(self, "seeds", seeds)
        object.__setattr__(self, "reference_per_class",
                           check_int("reference_per_class", self.reference_per_class,
                                     limits.REFERENCES_RANGE))
        check_architecture(self.architecture, "architecture")

    def images(self) -> tuple[np.ndarray, np.ndarray]:
        images, labels = load_digits()
        idx = np.asarray(self.digits)
        return images[idx].astype(np.float64) / 255.0, labels[idx].astype(int)

    def __call__(self):
        """Run the sweep to the end and return its ``SweepResult``."""
        return run_to_end(self.iterate())

    def iterate(self):
        """Progress after each amplitude (cancellable between them), the partial
        ``SweepResult`` in each; returns the final one."""
        from ntkviz.core.deformations.stability import stability_sweep

        images, labels = self.images()
        refs, ref_labels = _reference_digits(self.reference_per_class)
        self.architecture.layer_sizes(images.shape[1], images.shape[2])  # the model fits the digits
        # every argument was checked in __post_init__ (bundled digits, an Architecture)
        sweep = stability_sweep(np.ascontiguousarray(images[..., None]), np.asarray(labels),
                                self.architecture, self.family,
                                np.asarray(self.amplitudes, dtype=np.float64), list(self.seeds),
                                np.ascontiguousarray(refs[..., None], dtype=np.float64),
                                np.asarray(ref_labels).ravel(), 3, self.maps, self.scattering,
                                check_input=False)
        result = None
        for item in sweep:
            result = item.result
            if not result.complete:
                yield Progress(item.fraction, item.message, result)
        return result

