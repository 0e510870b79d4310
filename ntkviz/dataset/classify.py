"""One-vs-rest kernel ridge regression of labelled images with CKN, NTK, pixel and scattering kernels.

For a kernel ``k``, training images ``x_1..x_n`` with labels in classes
``c_1..c_C`` and targets ``Y`` (n, C) one-hot (1 for the class, 0 otherwise),
the predictor is ``f(x) = k(x, X) (K + lambda * (tr K / n) * I)^-1 Y`` and the
predicted class is ``argmax_c f_c(x)`` (one regression per class, "one vs
rest"). The ridge ``lambda`` is relative to the mean diagonal ``tr K / n``, so
one value means the same for kernels of any scale; ``"auto"`` picks it from
:data:`RIDGE_GRID` by k-fold cross-validation **on the training set only**
(largest lambda among the best mean fold accuracies).

Kernels:

* ``ckn``, ``ntk``: the exact convolutional kernels (:mod:`ntkviz.core.conv`),
  both from one pass of the conv engine, over tiles (:mod:`ntkviz.dataset`),
  optionally cached as Zarr stores and computed on a Dask cluster;
* ``pixels``: the Gaussian kernel on raw pixels ``exp(-|x - y|^2 / (2 h^2))`` with
  ``h`` the median distance between distinct training images (the baseline);
* ``scattering``: the same Gaussian kernel, median-distance bandwidth included, on the
  scattering coefficients ``S_J x`` (:func:`ntkviz.core.scattering.transform.scattering_transform`,
  default J = 2, L = 8, order 2, zero padding; all coefficients as one vector).

Training sets of the sizes asked are nested: the first ``n`` images of one
seeded permutation of the training file. ``--deform`` evaluates on deformed
copies of the test images made with :func:`ntkviz.core.deformations.deform.deform_image`
(the deformation editor's families: the amplitude is the family's parameter).

Uncertainty. Every accuracy comes with the number of test images ``n_test`` and its 95 %
Wilson interval (:func:`ntkviz.dataset._accuracy.wilson_interval`: the sampling of the test
set). :func:`classify_splits_iter` repeats the whole classification on ``K`` random
train/test splits (:func:`split_indices`); the mean over splits, its standard error and the
Student-t 95 % interval of the mean also hold the randomness of the training set. Each run
keeps its confusion matrices (true class against prediction).
"""
from __future__ import annotations

import hashlib
import math
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import numpy as np
from scipy import linalg

from ntkviz.core.conv.architecture import Architecture, architecture_to_dict
from ntkviz.dataset._names import DEFORM_FAMILIES, FEATURE_KERNELS, KERNELS, check_amplitude

__all__ = ["KERNELS", "DEFORM_FAMILIES", "RIDGE_GRID", "CSV_HEADER", "SPLIT_COLUMNS", "AccuracyRow",
           "ClassifyProgress", "ClassifyResult", "classify_iter", "classify_splits_iter", "split_indices",
           "deform_images", "pixel_gram", "median_bandwidth", "krr_scores", "krr_predict", "cv_ridge",
           "parse_deform", "train_permutation", "pool_images"]

#: candidate relative ridges for ``ridge="auto"``
RIDGE_GRID = tuple(10.0 ** e for e in range(-6, 2))
CV_FOLDS = 5
CSV_HEADER = ("kernel", "train_size", "deformation", "amplitude", "accuracy", "train_classes",
              "unseen_test_labels", "n_test", "accuracy_ci_low", "accuracy_ci_high")
#: the columns added when the classification is repeated over random splits
SPLIT_COLUMNS = ("split", "accuracy_sem")
#: tile side of the cached stores
CACHE_TILE = 256


def parse_deform(text: str) -> tuple[str, tuple[float, ...]]:
    """``"rotation:0,5,10"`` -> ``("rotation", (0.0, 5.0, 10.0))`` (``ValueError`` naming the problem)."""
    family, sep, values = text.partition(":")
    family = family.strip()
    if not sep or family not in DEFORM_FAMILIES:
        raise ValueError(f"--deform must be FAMILY:A1,A2,... with FAMILY one of "
                         f"{', '.join(DEFORM_FAMILIES)}, got {text!r}")
    from ntkviz._text import parse_list

    amps = parse_list("--deform amplitudes", values, float)
    if not amps:
        raise ValueError("--deform needs at least one amplitude, e.g. rotation:0,10,20")
    try:
        amps = tuple(check_amplitude(family, a) for a in amps)
    except ValueError as exc:
        raise ValueError(f"--deform {exc}") from None
    return family, amps


def _deformation(family: str, amplitude: float, seed: int = 0):
    from ntkviz.core.deformations.deform import Deformation

    fields = {DEFORM_FAMILIES[family]: amplitude}
    if family == "smooth":
        fields["smooth_seed"] = seed
    if family == "infimnist":
        fields["infimnist_seed"] = seed
    try:
        return Deformation(**fields)
    except ValueError as exc:
        raise ValueError(f"--deform {family}: {exc}") from None


def _is_identity(family: str, amplitude: float) -> bool:
    return family == "none" or amplitude == (1.0 if family == "scale" else 0.0)


def deform_images(images: np.ndarray, family: str, amplitude: float, seed: int = 0) -> np.ndarray:
    """Deformed copies of ``images`` (N, H, W[, C]); the identity returns the images unchanged.
    Random families (smooth field, Infinite-MNIST) use seed ``seed + index``."""
    from ntkviz.core.deformations.deform import deform_image

    if _is_identity(family, amplitude):
        return images
    out = np.empty_like(images)
    for k, img in enumerate(images):
        out[k] = deform_image(img, _deformation(family, amplitude, seed + k))[0]
    return out


def median_bandwidth(images: np.ndarray) -> float:
    """Median Euclidean distance between distinct images (1.0 if all coincide)."""
    x = images.reshape(len(images), -1)
    d2 = _sq_dists(x, x)
    iu = np.triu_indices(len(x), 1)
    med = float(np.median(np.sqrt(d2[iu]))) if iu[0].size else 0.0
    return med if med > 0 else 1.0


def _sq_dists(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    d2 = (x * x).sum(1)[:, None] + (y * y).sum(1)[None, :] - 2.0 * x @ y.T
    return np.maximum(d2, 0.0)


def pixel_gram(a: np.ndarray, b: np.ndarray, bandwidth: float) -> np.ndarray:
    """Gaussian kernel ``exp(-|a_i - b_j|^2 / (2 h^2))`` on flattened rows (raw pixels, or the
    scattering coefficients of the ``scattering`` kernel), (len(a), len(b))."""
    x, y = a.reshape(len(a), -1), b.reshape(len(b), -1)
    return np.exp(-_sq_dists(x, y) / (2.0 * bandwidth ** 2))


def _features(kernel: str, images: np.ndarray, scattering=None) -> np.ndarray:
    """Rows of a Gaussian feature kernel: the images (``pixels``) or their scattering coefficients."""
    if kernel == "pixels":
        return images
    from ntkviz.core.deformations.maps import map_features

    return map_features("scattering", images, scattering)


def _targets(labels: np.ndarray, classes: np.ndarray) -> np.ndarray:
    return (labels[:, None] == classes[None, :]).astype(np.float64)


def krr_scores(K: np.ndarray, Y: np.ndarray, K_cross: np.ndarray, ridge: float) -> np.ndarray:
    """``K_cross (K + ridge (tr K / n) I)^-1 Y``: one-vs-rest scores (n_test, classes)."""
    n = K.shape[0]
    scale = np.trace(K) / n if n else 1.0
    A = K + ridge * (scale if scale > 0 else 1.0) * np.eye(n)
    alpha = linalg.solve(A, Y, assume_a="pos", check_finite=False)
    return K_cross @ alpha


def krr_predict(K: np.ndarray, labels: np.ndarray, K_cross: np.ndarray, ridge: float) -> np.ndarray:
    """Predicted labels of the test rows of ``K_cross`` (n_test, n_train)."""
    classes = np.unique(labels)
    return classes[np.argmax(krr_scores(K, _targets(labels, classes), K_cross, ridge), axis=1)]


def cv_ridge(K: np.ndarray, labels: np.ndarray, grid=RIDGE_GRID, folds: int = CV_FOLDS,
             seed: int = 0) -> float:
    """The relative ridge of ``grid`` with the best mean k-fold accuracy on the training set
    (largest such ridge on ties). Folds: a seeded permutation cut into ``folds`` parts."""
    n = len(labels)
    folds = max(2, min(folds, n))
    order = np.random.default_rng(seed).permutation(n)
    parts = np.array_split(order, folds)
    scores = np.zeros(len(grid))
    for part in parts:
        fit = np.setdiff1d(order, part)
        if fit.size == 0 or part.size == 0:
            continue
        for g, lam in enumerate(grid):
            pred = krr_predict(K[np.ix_(fit, fit)], labels[fit], K[np.ix_(part, fit)], lam)
            scores[g] += np.count_nonzero(pred == labels[part])
    best = np.flatnonzero(scores == scores.max())
    return float(grid[best[-1]])


def train_permutation(n: int, seed: int) -> np.ndarray:
    """The seeded order in which training images are taken (nested training sets)."""
    return np.random.default_rng(seed).permutation(n)


def pool_images(images: np.ndarray, labels: np.ndarray, size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``size`` training images (and labels) in the order of
    :func:`train_permutation` ``(len(images), seed)``: the nested training sets of a
    classification are prefixes of it, so a pool of this size holds them."""
    order = train_permutation(len(images), seed)[:size]
    return np.ascontiguousarray(images[order]), np.asarray(labels)[order]


def split_indices(total: int, tests: int, seed: int, split: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(train, test)`` indices of random split number ``split`` of ``total`` images into
    ``total - tests`` training and ``tests`` test images: the last ``tests`` of the
    permutation ``default_rng(seed)`` for split 0, of ``default_rng([seed, split])`` for
    the others (independent streams)."""
    rng = np.random.default_rng(seed if split == 0 else [seed, split])
    order = rng.permutation(total)
    return order[:-tests], order[-tests:]


class AccuracyRow(NamedTuple):
    """One accuracy: the columns of :data:`CSV_HEADER` plus ``split`` (the split number, or
    ``"mean"`` for the mean over splits) and ``accuracy_sem`` (its standard error over splits,
    None on a row of one split). ``train_classes`` and ``unseen_test_labels`` are None on a
    mean row; its interval is the Student-t 95 % interval of the mean, clipped to [0, 1]."""

    kernel: str
    train_size: int
    deformation: str
    amplitude: float
    accuracy: float
    train_classes: int | None
    unseen_test_labels: int | None
    n_test: int
    accuracy_ci_low: float
    accuracy_ci_high: float
    split: int | str = 0
    accuracy_sem: float | None = None


@dataclass(frozen=True)
class ClassifyResult:
    """The accuracies of one classification (:class:`AccuracyRow` per split, kernel,
    training size and amplitude), the ridge used per ``(kernel, train_size)`` (of split 0),
    and the confusion matrices ``confusion[(split, kernel, train_size, amplitude)]`` over
    ``classes`` (rows: true class, columns: prediction).

    ``train_classes`` counts the labels of the training set of that size and
    ``unseen_test_labels`` the test images whose label it never saw: the classifier
    predicts only labels it was trained on, so those are always wrong (a one-class
    training set predicts that class for every image)."""

    rows: tuple[AccuracyRow, ...]
    ridges: dict = field(default_factory=dict)
    tests: int = 0  #: test images per row (n_test)
    splits: int = 1  #: random splits asked (rows may hold fewer while a run is partial)
    classes: tuple = ()
    confusion: dict = field(default_factory=dict)

    def mean_rows(self) -> list[AccuracyRow]:
        """With several splits: per (kernel, training size, amplitude) the mean accuracy over
        the splits done, its standard error and Student-t 95 % interval, clipped to [0, 1]
        where an accuracy lies (split ``"mean"``); else nothing."""
        from ntkviz.dataset._accuracy import mean_sem, t_interval

        if self.splits < 2:
            return []
        groups: dict = {}
        for r in self.rows:
            groups.setdefault((r.kernel, r.train_size, r.deformation, r.amplitude), []).append(r)
        out = []
        for (k, n, family, amp), rows in groups.items():
            acc = [r.accuracy for r in rows]
            mean, sem = mean_sem(acc)
            lo, hi = t_interval(acc)
            lo, hi = max(lo, 0.0), min(hi, 1.0)  # NaN (one split done) stays NaN
            out.append(AccuracyRow(k, n, family, amp, mean, None, None, rows[0].n_test, lo, hi, "mean",
                                   sem if math.isfinite(sem) else None))
        return out

    def table_rows(self) -> list[AccuracyRow]:
        """Every row: one per split, then the means over splits (several splits only)."""
        return list(self.rows) + self.mean_rows()

    def header(self) -> list[str]:
        """:data:`CSV_HEADER`, plus :data:`SPLIT_COLUMNS` with several splits."""
        return list(CSV_HEADER) + (list(SPLIT_COLUMNS) if self.splits > 1 else [])

    def csv_table(self) -> tuple[list[str], list[list]]:
        width = len(self.header())
        return self.header(), [list(r)[:width] for r in self.table_rows()]

    def coverage_warning(self) -> str | None:
        """One line on training sets that cannot classify every test image (one class, or
        test labels they never saw), or None."""
        rows = sorted({(r.train_size, r.train_classes, r.unseen_test_labels) for r in self.rows})
        if not any(classes < 2 or unseen for _, classes, unseen in rows):
            return None
        parts = []
        one = [str(n) for n, classes, _ in rows if classes < 2]
        if one:
            parts.append(f"the training set{'s' if len(one) > 1 else ''} of n = {', '.join(one)} "
                         f"{'have' if len(one) > 1 else 'has'} a single class (every test image is predicted "
                         "as it)")
        n, _, unseen = max(rows, key=lambda r: (r[2], -r[0]))
        if unseen:
            parts.append(f"{unseen} of {self.tests} test images have a label never seen in the training set of "
                         f"n = {n} (always counted wrong)")
        return "; ".join(parts) + " (columns train_classes, unseen_test_labels)"

@dataclass(frozen=True)
class ClassifyProgress:
    """One step of :func:`classify_iter`: ``fraction`` in [0, 1], a ``stage`` text, the
    rows so far (``result``) and, on the last item, ``final=True``."""

    fraction: float
    stage: str
    result: ClassifyResult
    final: bool = False


def _cache_paths(cache_dir, arch: Architecture, a: np.ndarray, b: np.ndarray | None, kinds) -> dict | None:
    if cache_dir is None:
        return None
    from ntkviz import __version__
    from ntkviz.dataset._gram import engine_fingerprint
    from ntkviz.dataset._load import images_hash

    Path(cache_dir).mkdir(parents=True, exist_ok=True)
    # the name holds everything a store's metadata is checked against, so a cache made by
    # another version or conv engine is never reused (nor refused): it gets a new file
    key = json.dumps([architecture_to_dict(arch), __version__, engine_fingerprint()], sort_keys=True)
    h = hashlib.sha256(key.encode()).hexdigest()[:12]
    tag = images_hash(a)[:16] + ("" if b is None else "-" + images_hash(b)[:16])
    return {k: Path(cache_dir) / f"{k}-{h}-{tag}.zarr" for k in kinds}


def conv_gram_run(a: np.ndarray, b: np.ndarray | None, arch: Architecture, kinds, cache_dir):
    """The tiled :class:`~ntkviz.dataset._gram.GramRun` of the conv Gram matrices ``kinds``
    (``"ckn"``, ``"ntk"``) of images ``a`` (or ``a`` x ``b``), kept as Zarr stores in
    ``cache_dir`` (named by the architecture, inputs, version and engine: a rerun with the
    same images reads them) or in memory (``cache_dir`` None)."""
    from ntkviz.dataset._gram import GramRun

    return GramRun(a, b, arch, kinds, CACHE_TILE if cache_dir else 64,
                   _cache_paths(cache_dir, arch, a, b, kinds))


def feature_gram(kernel: str, images: np.ndarray, scattering=None) -> np.ndarray:
    """The Gram matrix of a Gaussian feature kernel (``pixels``, ``scattering``) on
    ``images``, with the median distance between them as bandwidth."""
    rows = _features(kernel, images, scattering)
    return pixel_gram(rows, rows, median_bandwidth(rows))


def classify_iter(train_images, train_labels, test_images, test_labels, arch: Architecture,
                  kernels=KERNELS, train_sizes=(100,), ridge: float | None = None,
                  family: str = "none", amplitudes=(0.0,), cache_dir=None, client=None,
                  seed: int = 0, scattering=None, split: int = 0, classes=None) -> Iterator[ClassifyProgress]:
    """Accuracy of each kernel for each training size (nested subsets) and each
    deformation amplitude of the test images. ``ridge=None`` means "auto" (CV).
    ``scattering``: :class:`~ntkviz.core.scattering.transform.ScatteringParams` of the
    ``scattering`` kernel (None: the defaults). ``split`` tags the rows and confusion
    matrices; ``classes`` (sorted) index the confusion matrices (default: every label of
    the training and test images).

    Inputs are validated by the caller (the CLI, :class:`ntkviz.jobs.ClassifyRequest`):
    images float64 of one shape, integer labels of matching lengths, sizes
    ``<= len(train)``. Yields :class:`ClassifyProgress`; the conv Gram matrices
    are computed tile by tile (cached in ``cache_dir`` when given).
    """
    from ntkviz.dataset._accuracy import confusion_matrix, wilson_interval

    sizes = tuple(sorted(set(int(n) for n in train_sizes)))
    conv = tuple(k for k in kernels if k in ("ckn", "ntk"))
    xtr, ytr = pool_images(train_images, train_labels, sizes[-1], seed)
    tests = [(a, deform_images(test_images, family, a, seed)) for a in amplitudes]
    test_labels = np.asarray(test_labels)
    if classes is None:
        classes = np.union1d(np.unique(train_labels), np.unique(test_labels))
    classes = np.asarray(classes)
    runs = []
    if conv:
        runs.append(conv_gram_run(xtr, None, arch, conv, cache_dir))
        for _, xte in tests:
            runs.append(conv_gram_run(xtr, xte, arch, conv, cache_dir))
    total = sum(r.total_pairs for r in runs) or 1
    done = 0
    rows: list[AccuracyRow] = []
    ridges: dict = {}
    confusion: dict = {}
    n_test = len(test_labels)

    coverage = {}  # n -> (labels of the first n training images, test images with another label)
    for n in sizes:
        seen = np.unique(ytr[:n])
        coverage[n] = (int(seen.size), int(np.count_nonzero(~np.isin(test_labels, seen))))

    def progress(stage: str, final: bool = False) -> ClassifyProgress:
        return ClassifyProgress(min(done / total, 1.0) if not final else 1.0, stage,
                                ClassifyResult(tuple(rows), dict(ridges), n_test, 1,
                                               tuple(int(c) for c in classes), dict(confusion)), final)

    yield progress("training Gram matrix")
    mats = {}
    if conv:
        for ev in runs[0].events(client):
            done += ev.pairs + runs[0].skipped_pairs(ev) if ev.tile is not None else ev.pairs
            yield progress("training Gram matrix")
        mats = {k: runs[0].matrix(k) for k in conv}
    features = tuple(k for k in kernels if k in FEATURE_KERNELS)
    if "scattering" in features:
        yield progress("scattering coefficients")
    rows_tr = {k: _features(k, xtr, scattering) for k in features}
    band = {(k, n): median_bandwidth(rows_tr[k][:n]) for k in features for n in sizes}
    for k in features:
        mats[k] = {n: pixel_gram(rows_tr[k][:n], rows_tr[k][:n], band[(k, n)]) for n in sizes}
    for n in sizes:
        for k in kernels:
            K = mats[k][n] if k in features else mats[k][:n, :n]
            ridges[(k, n)] = ridge if ridge is not None else cv_ridge(K, ytr[:n], seed=seed)
    for t, (amp, xte) in enumerate(tests):
        stage = "test" if family == "none" else f"test, {family} {amp:g}"
        cross = {}
        if conv:
            run = runs[1 + t]
            for ev in run.events(client):
                done += ev.pairs + run.skipped_pairs(ev) if ev.tile is not None else ev.pairs
                yield progress(f"cross Gram matrix ({stage})")
            cross = {k: run.matrix(k) for k in conv}
        rows_te = {k: _features(k, xte, scattering) for k in features}
        for k in kernels:
            for n in sizes:
                if k in features:
                    K, Kx = mats[k][n], pixel_gram(rows_te[k], rows_tr[k][:n], band[(k, n)])
                else:
                    K, Kx = mats[k][:n, :n], cross[k][:n].T
                pred = krr_predict(K, ytr[:n], Kx, ridges[(k, n)])
                correct = int(np.count_nonzero(pred == test_labels))
                low, high = wilson_interval(correct, n_test)
                rows.append(AccuracyRow(k, n, family, float(amp), correct / n_test, *coverage[n], n_test,
                                        low, high, split))
                confusion[(split, k, n, float(amp))] = confusion_matrix(test_labels, pred, classes)
        yield progress(stage)
    yield progress("done", final=True)


def classify_splits_iter(split_sets: Callable[[int], tuple], splits: int = 1, **options) -> Iterator[ClassifyProgress]:
    """:func:`classify_iter` on ``splits`` train/test splits, one after the other: split s
    classifies ``split_sets(s) = (train_images, train_labels, test_images, test_labels)``
    (every split the same sizes) with the other ``options`` of :func:`classify_iter`.
    Progress items carry the rows of the splits done so far (their mean rows:
    :meth:`ClassifyResult.mean_rows`); the last one has ``final=True``."""
    rows: list = []
    confusion: dict = {}
    ridges: dict = {}
    tests, classes = 0, ()
    item = None
    for s in range(splits):
        xtr, ytr, xte, yte = split_sets(s)
        if s == 0:
            classes = np.union1d(np.unique(ytr), np.unique(yte))
        for item in classify_iter(xtr, ytr, xte, yte, classes=classes, split=s, **options):
            part = item.result
            if s == 0:
                ridges, tests = part.ridges, part.tests
            result = ClassifyResult(tuple(rows) + part.rows, dict(ridges), tests, splits, part.classes,
                                    {**confusion, **part.confusion})
            stage = item.stage if splits == 1 else f"split {s + 1}/{splits}: {item.stage}"
            last = item.final and s == splits - 1
            yield ClassifyProgress((s + item.fraction) / splits, stage, result, last)
        rows += item.result.rows
        confusion.update(item.result.confusion)
