"""The classification job (Qt-free): accuracy of CKN, NTK, pixel and scattering kernels on bundled digits.

:class:`ClassifyRequest` splits the bundled 1,000 MNIST digits
(:func:`ntkviz.core.deformations.digits.load_digits`, uint8 / 255) by a seeded permutation
into a test set (its last ``test_size`` digits) and a training pool (the rest),
then runs :func:`ntkviz.dataset.classify.classify_iter`: one-vs-rest kernel
ridge regression for each kernel, nested training size and deformation
amplitude of the test digits; every accuracy with its 95 % Wilson interval, and with
``splits > 1`` the whole run repeated on other random splits (mean ± standard error).
``iterate()`` yields :class:`~ntkviz.jobs.Progress` items (``partial``: a :class:`ClassifyResponse` of the rows so far), cancellable
between items, and returns the :class:`ClassifyResponse`; calling the request
returns it too. Conv Gram matrices are cached as Zarr stores in
``cache_dir`` when given, so a rerun (or a changed ridge) costs nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Generator

from ntkviz.dataset._settings import BUNDLED_DIGITS, ClassifySettings
from ntkviz.jobs._run import Progress, run_to_end

__all__ = ["ClassifyRequest", "ClassifyResponse", "AccuracySeries", "CLASSIFY_VIEWS", "CONFUSION_COLUMNS",
           "BUNDLED_DIGITS"]

#: the views of the classification panel that its classification draws: accuracy vs training
#: size (clean or first amplitude), accuracy vs deformation amplitude (largest training size),
#: the confusion matrix of one kernel (largest training size, first amplitude, split 0)
CLASSIFY_VIEWS = ("train_size", "deformation", "confusion")
#: the columns of the confusion view's table
CONFUSION_COLUMNS = ("kernel", "train_size", "deformation", "amplitude", "n_test", "true_label",
                     "predicted_label", "count")


@dataclass(frozen=True)
class AccuracySeries:
    """The points of one kernel in one view: ``x`` (training size or amplitude), ``accuracy``
    and the ends ``low``, ``high`` of its error bar — the 95 % Wilson interval of one split,
    or mean ± standard error over ``splits`` splits (``splits`` done so far)."""

    x: tuple
    accuracy: tuple
    low: tuple
    high: tuple
    splits: int = 1


@dataclass(frozen=True)
class ClassifyResponse:
    """The finished rows plus the request's sizes, amplitudes and splits (for the views)."""

    result: object  # ntkviz.dataset.classify.ClassifyResult
    train_sizes: tuple[int, ...]
    amplitudes: tuple[float, ...]
    family: str
    kernels: tuple[str, ...]
    splits: int = 1

    @property
    def splits_done(self) -> int:
        """Splits whose rows are all in (a partial response may hold fewer than asked)."""
        per_split = len(self.kernels) * len(self.train_sizes) * len(self.amplitudes)
        counts: dict = {}
        for r in self.result.rows:
            counts[r.split] = counts.get(r.split, 0) + 1
        return sum(1 for c in counts.values() if c == per_split)

    @property
    def n_test(self) -> int:
        return int(self.result.tests)

    def series(self, view: str) -> dict[str, AccuracySeries]:
        """``{kernel: AccuracySeries}`` of ``view`` (``train_size`` or ``deformation``): one
        split's accuracies with their Wilson intervals, or with several splits the mean over
        the splits done with ± one standard error."""
        _check_view(view)
        col = "train_size" if view == "train_size" else "amplitude"
        several = self.splits > 1
        rows = self.result.mean_rows() if several else self.result.rows
        out = {}
        for k in self.kernels:
            pts = sorted((float(getattr(r, col)), r) for r in _view_rows(rows, view, self.train_sizes,
                                                                         self.amplitudes) if r.kernel == k)
            x = tuple(p[0] for p in pts)
            acc = tuple(float(r.accuracy) for _, r in pts)
            if several:
                sem = tuple(0.0 if r.accuracy_sem is None else float(r.accuracy_sem) for _, r in pts)
                low = tuple(a - e for a, e in zip(acc, sem))
                high = tuple(a + e for a, e in zip(acc, sem))
            else:
                low = tuple(float(r.accuracy_ci_low) for _, r in pts)
                high = tuple(float(r.accuracy_ci_high) for _, r in pts)
            out[k] = AccuracySeries(x, acc, low, high, self.splits_done if several else 1)
        return out

    def confusion(self, kernel: str | None = None):
        """``(matrix, classes, train_size, amplitude)`` of the confusion view: ``kernel``
        (default: the first) at the largest training size and the first amplitude, split 0;
        None while that run is not done."""
        kernel = kernel or self.kernels[0]
        n, amp = max(self.train_sizes), self.amplitudes[0]
        matrix = self.result.confusion.get((0, kernel, n, amp))
        return None if matrix is None else (matrix, self.result.classes, n, amp)

    def csv_table(self, view: str = "train_size", confusion_kernel: str | None = None
                  ) -> tuple[list[str], list[list]]:
        """Exactly the numbers of ``view``: for ``train_size`` and ``deformation`` the rows of
        :data:`ntkviz.dataset.classify.CSV_HEADER` (with several splits: every split's and the
        means, columns ``split``, ``accuracy_sem`` added); for ``confusion`` one row per (true,
        predicted) pair of :data:`CONFUSION_COLUMNS`."""
        _check_view(view)
        if view == "confusion":
            kernel = confusion_kernel or self.kernels[0]
            found = self.confusion(kernel)
            rows = []
            if found is not None:
                matrix, classes, n, amp = found
                rows = [[kernel, n, self.family, amp, self.n_test, int(ci), int(cj), int(matrix[i, j])]
                        for i, ci in enumerate(classes) for j, cj in enumerate(classes)]
            return list(CONFUSION_COLUMNS), rows
        header = self.result.header()
        rows = _view_rows(self.result.table_rows(), view, self.train_sizes, self.amplitudes)
        return header, [list(r)[: len(header)] for r in rows]


def _check_view(view: str) -> None:
    if view not in CLASSIFY_VIEWS:
        raise ValueError(f"view must be one of {', '.join(CLASSIFY_VIEWS)}; got {view!r}")


def _view_rows(rows, view: str, sizes, amps) -> list:
    if view == "train_size":
        return [r for r in rows if r.amplitude == amps[0]]
    return [r for r in rows if r.train_size == max(sizes)]


@dataclass(frozen=True)
class ClassifyRequest(ClassifySettings):
    """Classification of the bundled digits (see the module docstring): the validated
    :class:`ntkviz.dataset._settings.ClassifySettings` plus ``cache_dir``, the folder of
    the cached Zarr Gram stores (None: keep nothing on disk)."""

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    cache_dir: str | None = None

    def pairs(self) -> int:
        """Conv kernel pairs a run without cache computes (for the progress text)."""
        if not any(k in ("ckn", "ntk") for k in self.kernels):
            return 0
        n = max(self.train_sizes)
        return (n * (n + 1) // 2 + n * self.test_size * len(self.amplitudes)) * self.splits

    def iterate(self) -> Generator[Progress, None, ClassifyResponse]:
        """Progress items (``partial``: the rows so far, once there are any); returns the
        response."""
        from ntkviz.core.conv.architecture import PRESETS
        from ntkviz.dataset.classify import classify_splits_iter

        item = None
        for item in classify_splits_iter(self.split_sets, self.splits, arch=PRESETS[self.architecture],
                                         kernels=self.kernels, train_sizes=self.train_sizes, ridge=self.ridge,
                                         family=self.family, amplitudes=self.amplitudes,
                                         cache_dir=self.cache_dir, seed=self.seed):
            if not item.final:
                yield Progress(item.fraction, item.stage,
                               self.respond_partial(item.result) if item.result.rows else None)
        return self.respond_partial(item.result)

    def split_sets(self, split: int):
        """``(train images, train labels, test images, test labels)`` of random split ``split``
        of the bundled digits (:func:`bundled_split`)."""
        return bundled_split(self.test_size, self.seed, split)

    def respond_partial(self, result) -> ClassifyResponse:
        """A :class:`ClassifyResponse` of (possibly partial) ``result`` rows of this request."""
        return ClassifyResponse(result, tuple(sorted(set(self.train_sizes))), self.amplitudes,
                                self.family, self.kernels, self.splits)

    def __call__(self) -> ClassifyResponse:
        return run_to_end(self.iterate())


def bundled_split(test_size: int, seed: int, split: int = 0):
    """Random split ``split`` of the 1,000 bundled digits (uint8 / 255, float64) into a training
    pool and ``test_size`` test digits (:func:`ntkviz.dataset.classify.split_indices`):
    ``(train images, train labels, test images, test labels)``, labels int64."""
    import numpy as np

    from ntkviz.core.deformations.digits import load_digits
    from ntkviz.dataset.classify import split_indices

    images, labels = load_digits()
    pool, test = split_indices(len(labels), test_size, seed, split)
    x = images.astype(np.float64) / 255.0
    y = labels.astype(np.int64)
    return x[pool], y[pool], x[test], y[test]
