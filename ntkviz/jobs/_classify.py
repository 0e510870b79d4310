"""The classification job (Qt-free): accuracy of CKN, NTK, pixel and scattering kernels on bundled digits.

:class:`ClassifyRequest` splits the bundled 1,000 MNIST digits
(:func:`ntkviz.core.deformations.digits.load_digits`, uint8 / 255) by a seeded permutation
into a test set (its last ``test_size`` digits) and a training pool (the rest),
then runs :func:`ntkviz.dataset.classify.classify_iter`: one-vs-rest kernel
ridge regression for each kernel, nested training size and deformation
amplitude of the test digits. ``iterate()`` yields :class:`~ntkviz.jobs.Progress`
items (``partial``: a :class:`ClassifyResponse` of the rows so far), cancellable
between items, and returns the :class:`ClassifyResponse`; calling the request
returns it too. Conv Gram matrices are cached as Zarr stores in
``cache_dir`` when given, so a rerun (or a changed ridge) costs nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Generator

from ntkviz.dataset._settings import BUNDLED_DIGITS, ClassifySettings
from ntkviz.jobs._run import Progress, run_to_end

__all__ = ["ClassifyRequest", "ClassifyResponse", "CLASSIFY_VIEWS", "BUNDLED_DIGITS"]

#: the views of the classification panel: accuracy vs training size (clean or first
#: amplitude) and accuracy vs deformation amplitude (largest training size)
CLASSIFY_VIEWS = ("train_size", "deformation")


@dataclass(frozen=True)
class ClassifyResponse:
    """The finished rows plus the request's sizes and amplitudes (for the two views)."""

    result: object  # ntkviz.dataset.classify.ClassifyResult
    train_sizes: tuple[int, ...]
    amplitudes: tuple[float, ...]
    family: str
    kernels: tuple[str, ...]

    def series(self, view: str) -> dict[str, tuple[list[float], list[float]]]:
        """``{kernel: (x, accuracy)}`` of ``view`` (see :data:`CLASSIFY_VIEWS`)."""
        return view_series(self.result.rows, view, self.train_sizes, self.amplitudes, self.kernels)

    def csv_table(self, view: str = "train_size") -> tuple[list[str], list[list]]:
        """Exactly the points of ``view``: ``kernel,train_size,deformation,amplitude,accuracy``."""
        return view_table(self.result.rows, view, self.train_sizes, self.amplitudes)


def _view_rows(rows, view: str, sizes, amps) -> list[tuple]:
    if view not in CLASSIFY_VIEWS:
        raise ValueError(f"view must be one of {', '.join(CLASSIFY_VIEWS)}; got {view!r}")
    if view == "train_size":
        return [r for r in rows if r[3] == amps[0]]
    return [r for r in rows if r[1] == max(sizes)]


def view_table(rows, view: str, sizes, amps) -> tuple[list[str], list[list]]:
    from ntkviz.dataset.classify import CSV_HEADER

    return list(CSV_HEADER), [list(r) for r in _view_rows(rows, view, sizes, amps)]


def view_series(rows, view: str, sizes, amps, kernels) -> dict:
    col = 1 if view == "train_size" else 3
    out = {}
    picked = _view_rows(rows, view, sizes, amps)
    for k in kernels:
        pts = sorted((float(r[col]), float(r[4])) for r in picked if r[0] == k)
        out[k] = ([p[0] for p in pts], [p[1] for p in pts])
    return out


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
        return n * (n + 1) // 2 + n * self.test_size * len(self.amplitudes)

    def iterate(self) -> Generator[Progress, None, ClassifyResponse]:
        """Progress items (``partial``: the rows so far, once there are any); returns the
        response."""
        import numpy as np

        from ntkviz.core.conv.architecture import PRESETS
        from ntkviz.core.deformations.digits import load_digits
        from ntkviz.dataset.classify import classify_iter

        images, labels = load_digits()
        order = np.random.default_rng(self.seed).permutation(len(labels))
        test, pool = order[-self.test_size:], order[:-self.test_size]
        x = images.astype(np.float64) / 255.0
        item = None
        for item in classify_iter(x[pool], labels[pool].astype(np.int64), x[test],
                                  labels[test].astype(np.int64), PRESETS[self.architecture], self.kernels,
                                  self.train_sizes, self.ridge, self.family, self.amplitudes,
                                  self.cache_dir, None, self.seed):
            if not item.final:
                yield Progress(item.fraction, item.stage,
                               self.respond_partial(item.result) if item.result.rows else None)
        return self.respond_partial(item.result)

    def respond_partial(self, result) -> ClassifyResponse:
        """A :class:`ClassifyResponse` of (possibly partial) ``result`` rows of this request."""
        return ClassifyResponse(result, tuple(sorted(set(self.train_sizes))), self.amplitudes,
                                self.family, self.kernels)

    def __call__(self) -> ClassifyResponse:
        return run_to_end(self.iterate())
