"""Stability sweep: feature distances of deformed digits against the amplitude (in the spirit of Fig. 1).

For every digit ``x``, amplitude ``a`` and seed, the digit is deformed by a
member of a deformation family and the relative distances
``||Phi(x') - Phi(x)|| / ||Phi(x)||`` of the chosen maps
(:mod:`ntkviz.core.deformations.maps`; by default the CKN and the convolutional NTK, with
the pixel-space ``||x' - x|| / ||x||`` beside them; also the scattering transform and the
Fourier modulus) are recorded.
Reported per amplitude: the mean and the standard deviation over digits and
seeds; as reference levels, the mean distance of each digit to other digits
with the same label and to digits of any label; and the log-log slope of the
mean distance over the smallest amplitudes (about 1 for the CKN, Lipschitz,
and about 1/2 for the NTK, Hölder-1/2; Bietti & Mairal 2019, §4 and Prop. 12;
about 1 for the scattering transform, Mallat 2012).

Families (``amplitude`` meaning):

* ``smooth``: smooth random field, largest component ``a`` px (length 4 px);
* ``translation``: shift by ``a`` px in a seeded random direction;
* ``rotation``: rotation by ``a`` degrees about the centre, sign alternating with the seed;
* ``infimnist``: Infinite-MNIST style first-order deformation with ``alpha = a``;
* ``noise`` (not a deformation: no ``tau``, whose sizes are then reported as 0): additive
  noise ``x + a ||x|| u`` in a seeded random direction ``u``, so ``||x' - x|| / ||x|| = a``
  (:mod:`~ntkviz.core.deformations.noise`); the CKN slope is about 1 and the NTK slope
  about 1/2 here too (smoothness of the feature maps).
* ``dilation``: ``tau(u) = a (u - centre)`` (``||grad tau||_inf = a``), ``a`` in (0, 0.95].

This is an independent computation, not the paper's data (whose values are unknown).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np

from ntkviz import limits as _limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz.core.conv.architecture import Architecture, check_architecture
from ntkviz.core.conv.gram import ImageBatch, image_stack
from ntkviz.core.deformations.deform import (Deformation, deform_image, dilation, jacobian_sup_norm,
                                             tau_sup_norm)
from ntkviz.core.deformations.maps import DEFAULT_MAPS, KERNEL_MAPS, _map_features, check_maps, relative_distances
from ntkviz.core.deformations.noise import additive_noise

__all__ = ["FAMILIES", "SWEEP_FAMILIES", "DEFORMATION_FAMILIES", "NOISE", "DILATION", "SweepResult",
           "SweepProgress", "MapCurve", "family_deformation", "stability_sweep", "fit_loglog_slope",
           "SMOOTH_LENGTH"]

FAMILIES = _limits.FAMILIES
#: the additive-noise family (``||x' - x|| / ||x||`` fixed; not a deformation)
NOISE = "noise"
#: the dilation tau(u) = s (u - centre), amplitude s = ||grad tau||_inf in (0, 0.95]
DILATION = "dilation"
#: the families :func:`family_deformation` makes: the view's four and the dilation
DEFORMATION_FAMILIES = FAMILIES + (DILATION,)
#: every family :func:`stability_sweep` takes: the deformations and additive noise
SWEEP_FAMILIES = DEFORMATION_FAMILIES + (NOISE,)
#: correlation length (px) of the ``smooth`` family's fields
SMOOTH_LENGTH = 4.0


def family_deformation(family: str, amplitude: float, seed: int) -> Deformation:
    """The member of ``family`` at ``amplitude`` for ``seed`` (see the module docstring)."""
    check_choice("family", family, DEFORMATION_FAMILIES)
    return _family_deformation(family, check_float("amplitude", amplitude, _limits.AMPLITUDE_RANGE),
                               check_int("seed", seed, _limits.SEED_RANGE))


def _family_deformation(family: str, a: float, seed: int) -> Deformation:
    """:func:`family_deformation` of checked arguments (no checks)."""
    if family == "smooth":
        return Deformation(smooth_amplitude=a, smooth_length=SMOOTH_LENGTH, smooth_seed=seed)
    if family == "translation":
        phi = 2 * math.pi * np.random.default_rng(seed).random()
        return Deformation(translate_x=a * math.cos(phi), translate_y=a * math.sin(phi))
    if family == "rotation":
        return Deformation(rotation_deg=a if seed % 2 == 0 else -a)
    if family == DILATION:
        return dilation(a)
    return Deformation(infimnist_alpha=a, infimnist_seed=seed)


def fit_loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x over the points with x, y > 0 (NaN if < 2)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    ok = (x > 0) & (y > 0) & np.isfinite(y)
    if ok.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


@dataclass(frozen=True, eq=False)
class MapCurve:
    """One map's part of a sweep: ``mean`` / ``std`` of the relative distance per amplitude,
    the log-log ``slope`` over the smallest amplitudes and the ``same_label`` / ``any_label``
    levels (NaN: not computed, or not defined)."""

    name: str
    mean: np.ndarray
    std: np.ndarray
    slope: float = math.nan
    same_label: float = math.nan
    any_label: float = math.nan


@dataclass(frozen=True)
class SweepResult:
    """Result (or partial result: the first ``len(amplitudes)`` amplitudes) of a sweep.

    ``*_mean`` / ``*_std``: per amplitude, over digits and seeds. ``tau_sup`` and
    ``jacobian_sup``: mean ``||tau||_inf`` (px) and ``||grad tau||_inf`` per
    amplitude. Levels are NaN until computed (or when no such pair exists).
    ``*_slope``: log-log slope over the ``slope_points`` smallest amplitudes.
    ``maps``: the maps swept; a default map left out (``ckn``, ``ntk``, ``pixels``) has NaN
    fields, the other maps (``scattering``, ``fourier``) are in ``curves``.
    :meth:`curve` gives any swept map's :class:`MapCurve`.
    """

    family: str
    amplitudes: np.ndarray
    ckn_mean: np.ndarray
    ckn_std: np.ndarray
    ntk_mean: np.ndarray
    ntk_std: np.ndarray
    pixel_mean: np.ndarray
    pixel_std: np.ndarray
    tau_sup: np.ndarray
    jacobian_sup: np.ndarray
    same_label_ckn: float = math.nan
    same_label_ntk: float = math.nan
    any_label_ckn: float = math.nan
    any_label_ntk: float = math.nan
    ckn_slope: float = math.nan
    ntk_slope: float = math.nan
    n_digits: int = 0
    n_seeds: int = 0
    slope_points: int = 3
    complete: bool = False
    maps: tuple = DEFAULT_MAPS
    curves: dict = field(default_factory=dict)

    CSV_HEADER = ("amplitude", "ckn_mean", "ckn_std", "ntk_mean", "ntk_std", "pixel_mean", "pixel_std",
                  "tau_sup_px", "jacobian_sup", "same_label_ckn", "same_label_ntk", "any_label_ckn",
                  "any_label_ntk", "ckn_slope", "ntk_slope")

    def curve(self, name: str) -> MapCurve:
        """The :class:`MapCurve` of a swept map (``ValueError`` for a map not swept)."""
        check_choice("map", name, self.maps)
        if name in self.curves:
            return self.curves[name]
        if name == "pixels":
            m = min(self.slope_points, len(self.amplitudes))
            slope = fit_loglog_slope(self.amplitudes[:m], self.pixel_mean[:m]) if m >= 2 else math.nan
            return MapCurve(name, self.pixel_mean, self.pixel_std, slope)
        return MapCurve(name, getattr(self, f"{name}_mean"), getattr(self, f"{name}_std"),
                        getattr(self, f"{name}_slope"), getattr(self, f"same_label_{name}"),
                        getattr(self, f"any_label_{name}"))

    def to_csv_rows(self) -> tuple[list[str], list[list]]:
        """``(header, rows)``: one row per amplitude; levels and slopes repeated on every row.
        For the default maps the columns are :data:`CSV_HEADER`; a default map left out of
        ``maps`` drops its columns, and every other map adds ``<map>_mean, <map>_std,
        <map>_slope, same_label_<map>, any_label_<map>`` (in ``maps`` order) at the end.
        A value that does not exist is an empty cell, never NaN: the NTK columns of an
        architecture with exp layers (no NTK), a level without a pair of digits, a slope
        fitted to fewer than two amplitudes."""
        kernel = [m for m in KERNEL_MAPS if m in self.maps]
        columns = [("amplitude", self.amplitudes)]
        for m in kernel + (["pixels"] if "pixels" in self.maps else []):
            key = "pixel" if m == "pixels" else m
            columns += [(f"{key}_mean", getattr(self, f"{key}_mean")), (f"{key}_std", getattr(self, f"{key}_std"))]
        columns += [("tau_sup_px", self.tau_sup), ("jacobian_sup", self.jacobian_sup)]
        columns += [(f"{level}_{m}", getattr(self, f"{level}_{m}")) for level in ("same_label", "any_label")
                    for m in kernel]
        columns += [(f"{m}_slope", getattr(self, f"{m}_slope")) for m in kernel]
        for m in self.maps:
            if m in self.curves:
                c = self.curves[m]
                columns += [(f"{m}_mean", c.mean), (f"{m}_std", c.std), (f"{m}_slope", c.slope),
                            (f"same_label_{m}", c.same_label), (f"any_label_{m}", c.any_label)]
        rows = []
        for k in range(len(self.amplitudes)):
            row = [v[k] if isinstance(v, np.ndarray) else v for _, v in columns]
            rows.append(["" if math.isnan(v) else float(v) for v in row])
        return [name for name, _ in columns], rows

    def csv_table(self, view: str = "stability") -> tuple[list[str], list[list[float]]]:
        """``(header, rows)`` of the stability view: :meth:`to_csv_rows`."""
        if view != "stability":
            raise ValueError(f"view must be stability, got {view!r}")
        return self.to_csv_rows()


@dataclass(frozen=True)
class SweepProgress:
    """One step of :func:`stability_sweep`: ``fraction`` in [0, 1] and the result so far."""

    fraction: float
    result: SweepResult
    message: str = ""


def _rel(kxx, kyy, kxy):
    d2 = np.maximum(kxx + kyy - 2.0 * kxy, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(kxx > 0, np.sqrt(d2) / np.sqrt(np.where(kxx > 0, kxx, 1.0)),
                        np.where(d2 == 0, 0.0, np.inf))


def _level_pairs(X: np.ndarray, R: np.ndarray, labels, ref_labels, same: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(digit, reference)`` index pairs of a level: every digit with every reference (of its
    label if ``same``), identical images skipped."""
    pairs = [(d, r) for d in range(len(X)) for r in range(len(ref_labels))
             if (not same or labels[d] == ref_labels[r]) and not np.array_equal(X[d], R[r])]
    return tuple(np.array(pairs, np.int64).reshape(-1, 2).T)


def _kernel_level(batch: ImageBatch, ref0: int, pairs) -> tuple[float, float]:
    """Mean (CKN, NTK) relative distance over ``pairs`` of digits and references (from index ref0)."""
    ii, jj = pairs
    if not len(ii):
        return math.nan, math.nan
    jj = ref0 + jj
    kc, kn = batch.pair_chunk(ii, jj)
    rc = _rel(batch.self_ckn[ii], batch.self_ckn[jj], kc)
    rn = _rel(batch.self_ntk[ii], batch.self_ntk[jj], kn) if batch.ntk else np.full(len(ii), np.nan)
    return float(np.mean(rc)), float(np.mean(rn))


def stability_sweep(images, labels, arch: Architecture, family: str, amplitudes: Sequence[float],
                    seeds: int | Sequence[int], reference_images=None, reference_labels=None,
                    slope_points: int = 3, maps=DEFAULT_MAPS, scattering=None, *,
                    check_input: bool = True) -> Iterator[SweepProgress]:
    """Run the sweep; yields :class:`SweepProgress` after each amplitude and at the end.

    Parameters
    ----------
    images, labels : digits (N, H, W) or (N, H, W, C), values as given (MNIST /255), and their labels.
    arch : architecture of the ``ckn`` and ``ntk`` maps; the NTK columns are NaN when it has
        ``exp`` layers.
    family : one of :data:`SWEEP_FAMILIES`.
    amplitudes : increasing positive amplitudes (family units).
    seeds : number of seeds (0..S-1) or explicit seeds; digit ``d`` with seed
        ``s`` uses deformation seed ``1000 d + s``.
    reference_images, reference_labels : digits for the same-label / any-label
        levels (default: ``images`` themselves; identical images are skipped).
    slope_points : how many of the smallest amplitudes the slope fits use.
    maps : the maps compared (:data:`ntkviz.core.deformations.maps.MAPS`), default ckn, ntk, pixels.
    scattering : :class:`~ntkviz.core.scattering.transform.ScatteringParams` of the
        ``scattering`` map (default J = 2, L = 8, order 2, zero padding).
    check_input : bool
        ``False`` skips the argument checks, for a caller that checked them against the
        same ranges (``ntkviz.limits``) once already: then ``images`` and
        ``reference_images`` (both given) are float64 (N, H, W, C) stacks that fit ``arch``
        (and ``scattering``), ``amplitudes`` increasing and positive, ``seeds`` a list of
        seeds and ``maps`` distinct names of maps. Each generated deformation is a
        :class:`Deformation`, checked when built (a rotation family amplitude beyond 360° is
        refused there).

    Stop iterating to cancel; the last item has ``result.complete = True``.
    """
    arch = check_architecture(arch)
    if check_input:
        check_choice("family", family, SWEEP_FAMILIES)
        maps = check_maps(maps)
        X = image_stack(images, "images")
        labels = np.asarray(labels).ravel()
        if labels.shape[0] != X.shape[0]:
            raise ValueError(f"labels must have one entry per image ({X.shape[0]}), got {labels.shape[0]}")
        amps = np.asarray([check_float("amplitude", a, _limits.AMPLITUDE_RANGE) for a in amplitudes],
                          dtype=np.float64)
        if amps.size == 0 or np.any(amps <= 0) or np.any(np.diff(amps) <= 0):
            raise ValueError("amplitudes must be a non-empty increasing list of positive numbers")
        seed_list = (list(range(check_int("seeds", seeds, _limits.SWEEP_SEEDS_RANGE)))
                     if np.isscalar(seeds) else [check_int("seed", s, _limits.SEED_RANGE) for s in seeds])
        if not seed_list:
            raise ValueError("seeds must not be empty")
        slope_points = check_int("slope_points", slope_points, _limits.SLOPE_POINTS_RANGE)
        if reference_images is None:
            R, ref_labels = X, labels
        else:
            R = image_stack(reference_images, "reference_images")
            ref_labels = np.asarray(reference_labels).ravel()
            if R.shape[1:] != X.shape[1:] or ref_labels.shape[0] != R.shape[0]:
                raise ValueError("reference_images must match the images' shape and have one label each")
        arch.layer_sizes(X.shape[1], X.shape[2])
        if "scattering" in maps:
            from ntkviz.core.scattering.transform import ScatteringParams

            scattering = scattering or ScatteringParams()
            scattering.grid(X.shape[1], X.shape[2])
    else:
        X, labels, amps, seed_list = images, np.asarray(labels).ravel(), np.asarray(amplitudes), list(seeds)
        R, ref_labels = reference_images, np.asarray(reference_labels).ravel()
    return _sweep(X, labels, arch, family, amps, seed_list, R, ref_labels, slope_points, tuple(maps),
                  scattering)


def _sweep(X: np.ndarray, labels: np.ndarray, arch: Architecture, family: str, amps: np.ndarray,
           seed_list: list[int], R: np.ndarray, ref_labels: np.ndarray, slope_points: int,
           maps: tuple = DEFAULT_MAPS, scattering=None) -> Iterator[SweepProgress]:
    """The generator of :func:`stability_sweep` (its arguments prepared there)."""
    kernel = any(m in maps for m in KERNEL_MAPS)
    ntk = arch.supports_ntk and "ntk" in maps
    explicit = [m for m in maps if m not in DEFAULT_MAPS]   # the maps reported in ``curves``
    n, n_amp, n_seed = X.shape[0], len(amps), len(seed_list)
    n_ref = R.shape[0]
    pix_norm = np.sqrt(np.sum(X ** 2, axis=(1, 2, 3)))

    stats = {k: np.full(n_amp, np.nan) for k in
             ("ckn_mean", "ckn_std", "ntk_mean", "ntk_std", "pixel_mean", "pixel_std", "tau_sup", "jacobian_sup")}
    extra = {m: {"mean": np.full(n_amp, np.nan), "std": np.full(n_amp, np.nan)} for m in explicit}
    levels: dict[str, float] = {}
    extra_levels = {m: (math.nan, math.nan) for m in explicit}

    def slope(mean: np.ndarray, m: int) -> float:
        return fit_loglog_slope(amps[:m], mean[:m]) if m >= 2 else math.nan

    def result(k_done: int, complete: bool = False) -> SweepResult:
        sl = slice(0, k_done)
        m = min(slope_points, k_done)
        fields = {k: v[sl].copy() for k, v in stats.items()}
        curves = {name: MapCurve(name, e["mean"][sl].copy(), e["std"][sl].copy(), slope(e["mean"], m),
                                 *extra_levels[name]) for name, e in extra.items()}
        return SweepResult(
            family=family, amplitudes=amps[sl].copy(), **fields, **levels,
            ckn_slope=slope(stats["ckn_mean"], m) if "ckn" in maps else math.nan,
            ntk_slope=slope(stats["ntk_mean"], m) if ntk else math.nan,
            n_digits=n, n_seeds=n_seed, slope_points=slope_points, complete=complete, maps=maps, curves=curves)

    # one stack: digits, their deformations (amplitude-major), references; norms computed as needed
    n_def = n * n_seed
    deformed = np.empty((n_amp * n_def,) + X.shape[1:])
    tau_sup = np.empty((n_amp, n_def))
    jac_sup = np.empty((n_amp, n_def))
    for k, a in enumerate(amps):
        for d in range(n):
            for si, s in enumerate(seed_list):
                if family == NOISE:
                    deformed[k * n_def + d * n_seed + si] = additive_noise(X[d], float(a), (1000 * d + s) % 2**32)
                    tau_sup[k, d * n_seed + si] = jac_sup[k, d * n_seed + si] = 0.0
                    continue
                deformation = _family_deformation(family, float(a), (1000 * d + s) % 2**32)
                y, tau = deform_image(X[d], deformation, check_input=False)
                deformed[k * n_def + d * n_seed + si] = y
                tau_sup[k, d * n_seed + si] = tau_sup_norm(tau)
                jac_sup[k, d * n_seed + si] = jacobian_sup_norm(tau)
    batch = ImageBatch(np.concatenate([X, deformed, R]), arch, ntk) if kernel else None
    features = {m: _map_features(m, X, scattering) for m in explicit}
    total = n + n_amp * 2 * n_def + n_ref + n * n_ref
    if batch is not None:
        batch.self_chunk(0, n)
    done = n
    ii = np.repeat(np.arange(n), n_seed)
    for k, a in enumerate(amps):
        first = n + k * n_def
        block = deformed[k * n_def:(k + 1) * n_def]
        dists = {}
        if batch is not None:
            batch.self_chunk(first, first + n_def)
            jj = first + np.arange(n_def)
            kc, kn = batch.pair_chunk(ii, jj)
            dists["ckn"] = _rel(batch.self_ckn[ii], batch.self_ckn[jj], kc)
            dists["ntk"] = _rel(batch.self_ntk[ii], batch.self_ntk[jj], kn) if ntk else np.full(len(ii), np.nan)
        if "pixels" in maps:
            dx = block - X[ii]
            dists["pixel"] = np.sqrt(np.sum(dx ** 2, axis=(1, 2, 3))) / np.where(pix_norm[ii] > 0, pix_norm[ii], 1.0)
        for name, v in dists.items():
            if name in maps or name == "pixel":
                stats[f"{name}_mean"][k] = np.mean(v)
                stats[f"{name}_std"][k] = np.std(v)
        for name in explicit:
            v = relative_distances(features[name][ii], _map_features(name, block, scattering))
            extra[name]["mean"][k] = np.mean(v)
            extra[name]["std"][k] = np.std(v)
        stats["tau_sup"][k] = np.mean(tau_sup[k])
        stats["jacobian_sup"][k] = np.mean(jac_sup[k])
        done += 2 * n_def
        yield SweepProgress(done / total, result(k + 1), f"amplitude {a:g} done")
    ref0 = n + n_amp * n_def
    pairs = {same: _level_pairs(X, R, labels, ref_labels, same) for same in (True, False)}
    if batch is not None:
        batch.self_chunk(ref0, ref0 + n_ref)
        same, anyl = _kernel_level(batch, ref0, pairs[True]), _kernel_level(batch, ref0, pairs[False])
        levels.update(same_label_ckn=same[0] if "ckn" in maps else math.nan,
                      same_label_ntk=same[1] if "ntk" in maps else math.nan,
                      any_label_ckn=anyl[0] if "ckn" in maps else math.nan,
                      any_label_ntk=anyl[1] if "ntk" in maps else math.nan)
    for name in explicit:
        ref_features = _map_features(name, R, scattering)
        extra_levels[name] = tuple(
            float(np.mean(relative_distances(features[name][i], ref_features[j]))) if len(i) else math.nan
            for i, j in (pairs[True], pairs[False]))
    yield SweepProgress(1.0, result(n_amp, complete=True), "reference levels done")
