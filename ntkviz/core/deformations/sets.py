"""One digit against sets of digits, CKN against NTK (Bietti & Mairal, NeurIPS 2019, Fig. 1).

A reference digit ``x`` (the paper's: a "5") is compared with the members ``x'`` of a few
sets, and for each feature map the mean and the standard error over the set of the
relative distance ``||Phi(x) - Phi(x')|| / ||Phi(x)||`` are reported (the paper's
curves are the averages). The paper's four sets (its Fig. 2, top to bottom):

* ``deform:3`` -- Infinite-MNIST deformations of ``x`` with ``α = 3``;
* ``deform+translate:1`` -- the same deformations with ``α = 1``, each followed by one of
  the generator's eight one-pixel moves or none;
* ``same`` -- other training digits with the label of ``x``;
* ``any`` -- training digits of any label.

Because ``α`` is fixed per set, the paper's x axis is not the deformation size. The
reading used here: **the x axis is an architecture parameter swept along the curves, the
last layer's pooling/subsampling scale, which drives the translation term
``||tau||_inf / sigma_n`` of both stability theorems** (sweep ``last-pooling``, the
default). Other sweeps (:data:`SWEEPS`): ``patch`` (every layer's patch size),
``layers`` (the depth) and ``amplitude`` (the ``α`` of the deformation sets, the base
architecture fixed: the stability view's classic axis). :func:`sweep_architecture` says
exactly which architecture each value means.

This module computes on images it is given; where the images come from (the user's
Infinite-MNIST data or, without it, ntkviz's own smooth fields:
:func:`own_field_deformations`) is the caller's choice (:mod:`ntkviz.jobs`).
"""
from __future__ import annotations

import dataclasses
import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from ntkviz import limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz.core.conv.architecture import Architecture, Layer
from ntkviz.core.conv.gram import ImageBatch
from ntkviz.core.deformations.deform import Deformation, deform_image
from ntkviz.core.deformations.infimnist import pixel_moves
from ntkviz.core.deformations.set_specs import DEFAULT_SETS, SET_KINDS, SetSpec, parse_sets
from ntkviz.core.deformations.stability import _rel

__all__ = ["SET_KINDS", "DEFAULT_SETS", "SWEEPS", "SWEEP_AXES", "MAPS", "SetSpec", "parse_sets",
           "sweep_architecture", "own_field_deformations", "reference_distances", "mean_sem",
           "SetsResult", "SetsProgress", "sets_sweep"]

#: the feature maps compared
MAPS = ("ckn", "ntk")
#: per sweep: (x-axis label, what the axis means; the figure and the command line say it)
SWEEP_AXES = {
    "last-pooling": (
        "last layer's pooling/subsampling factor",
        "an architecture parameter swept along the curves: the last layer's pooling/subsampling "
        "scale, which drives the translation term ‖τ‖∞/σₙ of both stability theorems (the sets "
        "are the same at every value)"),
    "patch": (
        "patch size (every layer)",
        "an architecture parameter swept along the curves: the patch size of every layer, "
        "which drives the deformation constants C_β of the stability theorems"),
    "layers": (
        "number of layers",
        "an architecture parameter swept along the curves: the depth n (the base's first "
        "layer repeated, then its last layer), which enters the theorems' constants"),
    "amplitude": (
        "deformation amplitude α",
        "the α of the deformation sets (the architecture fixed); the same-label and "
        "any-label sets do not depend on it"),
}
SWEEPS = limits.STABILITY_SWEEPS
assert tuple(SWEEP_AXES) == SWEEPS
#: the deformation sets use seeds (own fields) or moves (k mod 9) 1..n for member k
_FIRST_MEMBER = 1


# --------------------------------------------------------------------------- sweeps

def _sweep_value(sweep: str, value) -> float | int:
    if sweep == "amplitude":
        return check_float("amplitude", value, (0.0, limits.AMPLITUDE_RANGE[1]))
    return check_int(sweep, value, limits.LAYER_INT_RANGE)


def sweep_architecture(base: Architecture, sweep: str, value, image_shape=(28, 28)) -> Architecture:
    """The architecture of one sweep value, from the validated ``base`` (preset M1 by default).

    * ``last-pooling``: the last layer's subsampling and Gaussian/average pooling factor
      set to ``value`` (its ``poolfactor`` cleared, so the filter scale follows);
    * ``patch``: every layer's patch side set to ``value``;
    * ``layers``: ``value - 1`` copies of the base's first layer, then the base's last
      layer with its subsampling lowered, if needed, to the largest that leaves its
      pooled map at least 1 x 1 (``layers: 2`` on M1 is M1);
    * ``amplitude``: ``base`` itself.

    Raises ``ValueError`` naming the sweep value when the result does not fit images of
    ``image_shape``.
    """
    check_choice("sweep", sweep, SWEEPS)
    value = _sweep_value(sweep, value)
    layers = list(base.layers)
    if sweep == "last-pooling":
        layers[-1] = dataclasses.replace(layers[-1], subsampling=value, poolfactor=None)
    elif sweep == "patch":
        layers = [dataclasses.replace(lay, npatch=value) for lay in layers]
    elif sweep == "layers":
        layers = [layers[0]] * (value - 1) + [_fitting_last(layers, value, image_shape)]
    try:
        arch = dataclasses.replace(base, layers=tuple(layers))
        arch.layer_sizes(*image_shape[:2])
    except ValueError as exc:
        raise ValueError(f"{sweep} {value:g}: {exc}") from None
    return arch


def _fitting_last(layers: list[Layer], value: int, image_shape) -> Layer:
    """The base's last layer with the largest subsampling (<= its own) that still leaves a
    pooled map when it follows ``value - 1`` copies of the first layer."""
    h, w = image_shape[:2]
    for _ in range(value - 1):
        h, w = layers[0].pooled_size(h), layers[0].pooled_size(w)
    last = layers[-1]
    for sub in range(last.subsampling, 0, -1):
        cand = dataclasses.replace(last, subsampling=sub,
                                   poolfactor=None if last.poolfactor is None else min(last.poolfactor, sub))
        if min(h, w) >= 1 and cand.pooled_size(h) >= 1 and cand.pooled_size(w) >= 1:
            return cand
    return last  # does not fit: the caller's size check says why


# --------------------------------------------------------------------------- sets and distances

def own_field_deformations(image: np.ndarray, alpha: float, translate: bool, count: int) -> np.ndarray:
    """``count`` deformations of ``image`` (H, W) in [0, 1] made with ntkviz's own smooth fields
    (no Infinite-MNIST data): member ``k = 1..count`` is the Infinite-MNIST style first-order
    deformation ``x + α (F1 dx/du1 - F2 dx/du2)`` of :class:`~ntkviz.core.deformations.deform.Deformation`
    with fields of seed ``k`` (clipped to [0, 1]), followed, with ``translate``, by the
    generator's one-pixel move ``k mod 9`` (:func:`~ntkviz.core.deformations.infimnist.pixel_moves`).
    """
    x = np.asarray(image, dtype=np.float64)
    members = np.stack([deform_image(x, Deformation(infimnist_alpha=alpha, infimnist_seed=k),
                                     check_input=False)[0]
                        for k in range(_FIRST_MEMBER, _FIRST_MEMBER + count)])
    if translate:
        members = pixel_moves(members, np.arange(_FIRST_MEMBER, _FIRST_MEMBER + count) % 9)
    return members


_CACHE_LOCK = threading.Lock()
_DISTANCES: "OrderedDict[tuple, tuple[np.ndarray, np.ndarray]]" = OrderedDict()
_CACHE_ITEMS = 512


def _digest(arr: np.ndarray) -> str:
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    return hashlib.sha1(repr(arr.shape).encode() + arr.tobytes()).hexdigest()


def reference_distances(reference: np.ndarray, images: np.ndarray, arch: Architecture
                        ) -> tuple[np.ndarray, np.ndarray]:
    """``(ckn, ntk)``: the relative distances ``||Phi(x) - Phi(x'_k)|| / ||Phi(x)||`` from
    ``reference`` (H, W) to each of ``images`` (N, H, W), both float, for the validated
    ``arch`` (NTK all NaN without NTK support; ``inf`` from an all-zero reference).

    One parallel batch (norm passes, then the N pairs); the results are cached by
    architecture and image contents (a small cache of 512 sets), so sweeping back over a
    value, or another sweep through the same architecture, costs nothing.
    """
    x = np.ascontiguousarray(reference, dtype=np.float64)
    ys = np.ascontiguousarray(images, dtype=np.float64)
    key = (arch, _digest(x), _digest(ys))
    with _CACHE_LOCK:
        hit = _DISTANCES.get(key)
        if hit is not None:
            _DISTANCES.move_to_end(key)
            return hit
    stack = np.concatenate([x[None], ys])[..., None]
    batch = ImageBatch(np.ascontiguousarray(stack), arch, arch.supports_ntk)
    batch.self_chunk(0, len(stack))
    jj = np.arange(1, len(stack), dtype=np.int64)
    kc, kn = batch.pair_chunk(np.zeros(len(jj), np.int64), jj)
    ckn = _rel(batch.self_ckn[0], batch.self_ckn[jj], kc)
    ntk = (_rel(batch.self_ntk[0], batch.self_ntk[jj], kn) if arch.supports_ntk
           else np.full(len(jj), np.nan))
    for arr in (ckn, ntk):
        arr.setflags(write=False)
    with _CACHE_LOCK:
        _DISTANCES[key] = (ckn, ntk)
        while len(_DISTANCES) > _CACHE_ITEMS:
            _DISTANCES.popitem(last=False)
    return ckn, ntk


def mean_sem(values: np.ndarray) -> tuple[float, float, int]:
    """``(mean, standard error, n)``: the standard error is ``std(ddof=1) / sqrt(n)`` (NaN
    for fewer than two values); NaN values (a map that does not exist) give NaN."""
    v = np.asarray(values, dtype=np.float64)
    n = int(v.size)
    if n == 0 or np.any(np.isnan(v)):
        return math.nan, math.nan, n
    sem = float(np.std(v, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return float(np.mean(v)), sem, n


# --------------------------------------------------------------------------- the sweep

@dataclass(frozen=True, eq=False)
class SetsResult:
    """Means and standard errors of the relative distances, per map, set and sweep value.

    ``mean[m]``, ``sem[m]`` (``m`` in :data:`MAPS`) and ``count`` are (sets, values)
    arrays, NaN (count 0) where not computed yet; ``architectures`` holds the label of each
    value's architecture. ``complete`` is True once every cell is done.

    What a figure needs besides the numbers (filled by :class:`ntkviz.jobs.StabilitySetsRequest`;
    empty from :func:`sets_sweep` alone): ``reference`` (H, W) the reference digit in [0, 1]
    and ``reference_name`` where it comes from; ``examples``, per set, its first images
    (k, H, W) in [0, 1] (the example strip of the paper's Fig. 2); ``own_fields``, True
    when the deformation sets were made with ntkviz's own smooth fields instead of the
    user's Infinite-MNIST data; ``source``, the digits' source; ``note``, what the figure
    must say about the data (empty with the user's Infinite-MNIST data).
    """

    sweep: str
    values: tuple
    sets: tuple[SetSpec, ...]
    mean: dict
    sem: dict
    count: np.ndarray
    architectures: tuple[str, ...]
    reference_label: int | None = None
    complete: bool = False
    reference: np.ndarray | None = None
    reference_name: str = ""
    examples: tuple = ()
    own_fields: bool = False
    source: str = ""
    note: str = ""

    CSV_HEADER = ("map", "set", "sweep", "value", "mean", "sem", "n")

    @property
    def axis_label(self) -> str:
        """The x axis's name."""
        return SWEEP_AXES[self.sweep][0]

    @property
    def axis_reading(self) -> str:
        """What the x axis means (the figure and the README say it)."""
        return SWEEP_AXES[self.sweep][1]

    def set_names(self) -> list[str]:
        """The ``set`` column: the sets' tokens (without α for the amplitude sweep, whose
        value column is the α)."""
        return [s.kind if self.sweep == "amplitude" else s.token for s in self.sets]

    def to_csv_rows(self) -> tuple[list[str], list[list]]:
        """``(header, rows)``: ``map,set,sweep,value,mean,sem,n``, one row per map, set and
        computed value; a value that does not exist (the NTK of an ``exp`` architecture, the
        standard error of a single digit) is an empty cell."""
        rows = []
        for m in MAPS:
            for s, name in enumerate(self.set_names()):
                for v, value in enumerate(self.values):
                    if self.count[s, v] == 0:
                        continue
                    cells = [self.mean[m][s, v], self.sem[m][s, v]]
                    rows.append([m, name, self.sweep, value,
                                 *("" if math.isnan(c) else float(c) for c in cells), int(self.count[s, v])])
        return list(self.CSV_HEADER), rows

    def csv_table(self, view: str = "sets") -> tuple[list[str], list[list]]:
        """``(header, rows)`` of the sets view (the only view): :meth:`to_csv_rows`."""
        check_choice("view", view, ("sets",))
        return self.to_csv_rows()


@dataclass(frozen=True)
class SetsProgress:
    """One step of :func:`sets_sweep`: ``fraction`` in [0, 1], the result so far, a message."""

    fraction: float
    result: SetsResult
    message: str = ""


def sets_sweep(reference: np.ndarray, sets: Sequence[SetSpec],
               images_of: Callable[[SetSpec, float | None], np.ndarray], base: Architecture,
               sweep: str, values: Sequence, reference_label: int | None = None
               ) -> Iterator[SetsProgress]:
    """Compute the sets' distance statistics along a sweep; yields after every (value, set).

    Parameters
    ----------
    reference : (H, W) float image ``x`` (MNIST: uint8 / 255).
    sets : the validated :class:`SetSpec` s.
    images_of : ``images_of(spec, alpha)`` returns the set's images (N, H, W), float,
        ``alpha`` the deformation sets' α (the spec's own, or the value of the amplitude
        sweep) and None for the others; called once per set and α.
    base : the validated base architecture; :func:`sweep_architecture` makes each value's.
    sweep, values : one of :data:`SWEEPS` and its values (integers for the architecture
        sweeps, α in [0, 1000] for ``amplitude``).

    Stop iterating to cancel; the last item's result has ``complete = True``. Every
    architecture is built (and refused with the value named) before anything is computed.
    """
    check_choice("sweep", sweep, SWEEPS)
    values = tuple(_sweep_value(sweep, v) for v in values)
    if not values:
        raise ValueError("the sweep needs at least one value")
    if len(set(values)) < len(values):
        raise ValueError(f"{sweep} values must not repeat, got {', '.join(f'{v:g}' for v in values)}")
    if not all(isinstance(s, SetSpec) for s in sets):
        raise ValueError("sets must be SetSpec values (see parse_sets)")
    sets = tuple(sets)
    if not sets:
        raise ValueError("at least one set is needed")
    x = np.asarray(reference, dtype=np.float64)
    archs = [sweep_architecture(base, sweep, v, x.shape) for v in values]
    n_sets, n_values = len(sets), len(values)
    mean = {m: np.full((n_sets, n_values), np.nan) for m in MAPS}
    sem = {m: np.full((n_sets, n_values), np.nan) for m in MAPS}
    count = np.zeros((n_sets, n_values), np.int64)
    images: dict = {}

    def result(complete: bool) -> SetsResult:
        return SetsResult(sweep, values, sets, {m: a.copy() for m, a in mean.items()},
                          {m: a.copy() for m, a in sem.items()}, count.copy(),
                          tuple(a.label for a in archs), reference_label, complete)

    total = n_sets * n_values
    for v, (value, arch) in enumerate(zip(values, archs)):
        for s, spec in enumerate(sets):
            alpha = (value if sweep == "amplitude" else spec.alpha) if spec.deforms else None
            key = (spec.kind, alpha)
            if key not in images:
                images[key] = np.asarray(images_of(spec, alpha), dtype=np.float64)
            d = reference_distances(x, images[key], arch)
            for m, dist in zip(MAPS, d):
                mean[m][s, v], sem[m][s, v], count[s, v] = mean_sem(dist)
            done = v * n_sets + s + 1
            yield SetsProgress(done / total, result(done == total),
                               f"{SWEEP_AXES[sweep][0]} {value:g}: {spec.token} done")
