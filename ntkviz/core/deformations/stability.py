"""Stability sweep: CKN vs NTK feature distances of deformed digits (in the spirit of Fig. 1).

For every digit ``x``, amplitude ``a`` and seed, the digit is deformed by a
member of a deformation family and the relative distances
``||Phi(x') - Phi(x)|| / ||Phi(x)||`` of the CKN and of the convolutional NTK
are recorded, with the pixel-space ``||x' - x|| / ||x||`` beside them.
Reported per amplitude: the mean and the standard deviation over digits and
seeds; as reference levels, the mean distance of each digit to other digits
with the same label and to digits of any label; and the log-log slope of the
mean distance over the smallest amplitudes (about 1 for the CKN, Lipschitz,
and about 1/2 for the NTK, Hölder-1/2; Bietti & Mairal 2019, §4 and Prop. 12).

Families (``amplitude`` meaning):

* ``smooth``: smooth random field, largest component ``a`` px (length 4 px);
* ``translation``: shift by ``a`` px in a seeded random direction;
* ``rotation``: rotation by ``a`` degrees about the centre, sign alternating with the seed;
* ``infimnist``: Infinite-MNIST style first-order deformation with ``alpha = a``.

This is an independent computation, not the paper's data (whose values are unknown).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from ntkviz import limits as _limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz.core.conv.architecture import Architecture, check_architecture
from ntkviz.core.conv.gram import ImageBatch, image_stack
from ntkviz.core.deformations.deform import Deformation, deform_image, jacobian_sup_norm, tau_sup_norm

__all__ = ["FAMILIES", "SweepResult", "SweepProgress", "family_deformation", "stability_sweep",
           "fit_loglog_slope", "SMOOTH_LENGTH"]

FAMILIES = _limits.FAMILIES
#: correlation length (px) of the ``smooth`` family's fields
SMOOTH_LENGTH = 4.0


def family_deformation(family: str, amplitude: float, seed: int) -> Deformation:
    """The member of ``family`` at ``amplitude`` for ``seed`` (see the module docstring)."""
    check_choice("family", family, FAMILIES)
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
    return Deformation(infimnist_alpha=a, infimnist_seed=seed)


def fit_loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x over the points with x, y > 0 (NaN if < 2)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    ok = (x > 0) & (y > 0) & np.isfinite(y)
    if ok.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


@dataclass(frozen=True)
class SweepResult:
    """Result (or partial result: the first ``len(amplitudes)`` amplitudes) of a sweep.

    ``*_mean`` / ``*_std``: per amplitude, over digits and seeds. ``tau_sup`` and
    ``jacobian_sup``: mean ``||tau||_inf`` (px) and ``||grad tau||_inf`` per
    amplitude. Levels are NaN until computed (or when no such pair exists).
    ``*_slope``: log-log slope over the ``slope_points`` smallest amplitudes.
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

    CSV_HEADER = ("amplitude", "ckn_mean", "ckn_std", "ntk_mean", "ntk_std", "pixel_mean", "pixel_std",
                  "tau_sup_px", "jacobian_sup", "same_label_ckn", "same_label_ntk", "any_label_ckn",
                  "any_label_ntk", "ckn_slope", "ntk_slope")

    def to_csv_rows(self) -> tuple[list[str], list[list]]:
        """``(header, rows)``: one row per amplitude; levels and slopes repeated on every row.
        A value that does not exist is an empty cell, never NaN: the NTK columns of an
        architecture with exp layers (no NTK), a level without a pair of digits, a slope
        fitted to fewer than two amplitudes."""
        rows = []
        for k, a in enumerate(self.amplitudes):
            row = [a, self.ckn_mean[k], self.ckn_std[k], self.ntk_mean[k], self.ntk_std[k],
                   self.pixel_mean[k], self.pixel_std[k], self.tau_sup[k], self.jacobian_sup[k],
                   self.same_label_ckn, self.same_label_ntk, self.any_label_ckn,
                   self.any_label_ntk, self.ckn_slope, self.ntk_slope]
            rows.append(["" if math.isnan(v) else float(v) for v in row])
        return list(self.CSV_HEADER), rows

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


def _level(batch: ImageBatch, n: int, ref0: int, labels, ref_labels, same: bool) -> tuple[float, float]:
    """Mean relative distance of digits 0..n-1 to the references (from index ref0), same label or any."""
    pairs = [(d, ref0 + r) for d in range(n) for r in range(len(ref_labels))
             if (not same or labels[d] == ref_labels[r])
             and not np.array_equal(batch.patches[d], batch.patches[ref0 + r])]  # skip identical images
    if not pairs:
        return math.nan, math.nan
    ii, jj = np.array(pairs, np.int64).T
    kc, kn = batch.pair_chunk(ii, jj)
    rc = _rel(batch.self_ckn[ii], batch.self_ckn[jj], kc)
    rn = _rel(batch.self_ntk[ii], batch.self_ntk[jj], kn) if batch.ntk else np.full(len(ii), np.nan)
    return float(np.mean(rc)), float(np.mean(rn))


def stability_sweep(images, labels, arch: Architecture, family: str, amplitudes: Sequence[float],
                    seeds: int | Sequence[int], reference_images=None, reference_labels=None,
                    slope_points: int = 3, *, check_input: bool = True) -> Iterator[SweepProgress]:
    """Run the sweep; yields :class:`SweepProgress` after each amplitude and at the end.

    Parameters
    ----------
    images, labels : digits (N, H, W) or (N, H, W, C), values as given (MNIST /255), and their labels.
    arch : architecture; the NTK columns are NaN when it has ``exp`` layers.
    family : one of :data:`FAMILIES`.
    amplitudes : increasing positive amplitudes (family units).
    seeds : number of seeds (0..S-1) or explicit seeds; digit ``d`` with seed
        ``s`` uses deformation seed ``1000 d + s``.
    reference_images, reference_labels : digits for the same-label / any-label
        levels (default: ``images`` themselves; identical images are skipped).
    slope_points : how many of the smallest amplitudes the slope fits use.
    check_input : bool
        ``False`` skips the argument checks, for a caller that checked them against the
        same ranges (``ntkviz.limits``) once already: then ``images`` and
        ``reference_images`` (both given) are float64 (N, H, W, C) stacks that fit ``arch``,
        ``amplitudes`` increasing and positive and ``seeds`` a list of seeds. Each generated
        deformation is a :class:`Deformation`, checked when built (a rotation family
        amplitude beyond 360° is refused there).

    Stop iterating to cancel; the last item has ``result.complete = True``.
    """
    arch = check_architecture(arch)
    if check_input:
        check_choice("family", family, FAMILIES)
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
    else:
        X, labels, amps, seed_list = images, np.asarray(labels).ravel(), np.asarray(amplitudes), list(seeds)
        R, ref_labels = reference_images, np.asarray(reference_labels).ravel()
    return _sweep(X, labels, arch, family, amps, seed_list, R, ref_labels, slope_points)


def _sweep(X: np.ndarray, labels: np.ndarray, arch: Architecture, family: str, amps: np.ndarray,
           seed_list: list[int], R: np.ndarray, ref_labels: np.ndarray, slope_points: int
           ) -> Iterator[SweepProgress]:
    """The generator of :func:`stability_sweep` (its arguments prepared there)."""
    ntk = arch.supports_ntk
    n, n_amp, n_seed = X.shape[0], len(amps), len(seed_list)
    n_ref = R.shape[0]
    pix_norm = np.sqrt(np.sum(X ** 2, axis=(1, 2, 3)))

    stats = {k: np.full(n_amp, np.nan) for k in
             ("ckn_mean", "ckn_std", "ntk_mean", "ntk_std", "pixel_mean", "pixel_std", "tau_sup", "jacobian_sup")}
    levels: dict[str, float] = {}

    def result(k_done: int, complete: bool = False) -> SweepResult:
        sl = slice(0, k_done)
        m = min(slope_points, k_done)
        fields = {k: v[sl].copy() for k, v in stats.items()}
        return SweepResult(
            family=family, amplitudes=amps[sl].copy(), **fields, **levels,
            ckn_slope=fit_loglog_slope(amps[:m], stats["ckn_mean"][:m]) if m >= 2 else math.nan,
            ntk_slope=fit_loglog_slope(amps[:m], stats["ntk_mean"][:m]) if m >= 2 and ntk else math.nan,
            n_digits=n, n_seeds=n_seed, slope_points=slope_points, complete=complete)

    # one stack: digits, their deformations (amplitude-major), references; norms computed as needed
    n_def = n * n_seed
    deformed = np.empty((n_amp * n_def,) + X.shape[1:])
    tau_sup = np.empty((n_amp, n_def))
    jac_sup = np.empty((n_amp, n_def))
    for k, a in enumerate(amps):
        for d in range(n):
            for si, s in enumerate(seed_list):
                deformation = _family_deformation(family, float(a), (1000 * d + s) % 2**32)
                y, tau = deform_image(X[d], deformation, check_input=False)
                deformed[k * n_def + d * n_seed + si] = y
                tau_sup[k, d * n_seed + si] = tau_sup_norm(tau)
                jac_sup[k, d * n_seed + si] = jacobian_sup_norm(tau)
    batch = ImageBatch(np.concatenate([X, deformed, R]), arch, ntk)
    total = n + n_amp * 2 * n_def + n_ref + n * n_ref
    batch.self_chunk(0, n)
    done = n
    ii = np.repeat(np.arange(n), n_seed)
    for k, a in enumerate(amps):
        first = n + k * n_def
        batch.self_chunk(first, first + n_def)
        jj = first + np.arange(n_def)
        kc, kn = batch.pair_chunk(ii, jj)
        rc = _rel(batch.self_ckn[ii], batch.self_ckn[jj], kc)
        rn = _rel(batch.self_ntk[ii], batch.self_ntk[jj], kn) if ntk else np.full(len(ii), np.nan)
        dx = deformed[k * n_def:(k + 1) * n_def] - X[ii]
        rp = np.sqrt(np.sum(dx ** 2, axis=(1, 2, 3))) / np.where(pix_norm[ii] > 0, pix_norm[ii], 1.0)
        for name, v in (("ckn", rc), ("ntk", rn), ("pixel", rp)):
            stats[f"{name}_mean"][k] = np.mean(v)
            stats[f"{name}_std"][k] = np.std(v)
        stats["tau_sup"][k] = np.mean(tau_sup[k])
        stats["jacobian_sup"][k] = np.mean(jac_sup[k])
        done += 2 * n_def
        yield SweepProgress(done / total, result(k + 1), f"amplitude {a:g} done")
    ref0 = n + n_amp * n_def
    batch.self_chunk(ref0, ref0 + n_ref)
    same = _level(batch, n, ref0, labels, ref_labels, True)
    anyl = _level(batch, n, ref0, labels, ref_labels, False)
    levels.update(same_label_ckn=same[0], same_label_ntk=same[1], any_label_ckn=anyl[0], any_label_ntk=anyl[1])
    yield SweepProgress(1.0, result(n_amp, complete=True), "reference levels done")
