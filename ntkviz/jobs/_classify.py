"""The classification job (Qt-free): accuracy of CKN, NTK and pixel kernels on bundled digits.

:class:`ClassifyRequest` splits the bundled 1,000 MNIST digits
(:func:`ntkviz.core.digits.load_digits`, uint8 / 255) by a seeded permutation
into a test set (its last ``test_size`` digits) and a training pool (the rest),
then runs :func:`ntkviz.dataset.classify.classify_iter`: one-vs-rest kernel
ridge regression for each kernel, nested training size and deformation
amplitude of the test digits. ``iterate()`` yields
:class:`ntkviz.dataset.classify.ClassifyProgress` items (``fraction``; partial
rows), cancellable between items, and returns a :class:`ClassifyResponse`
(the generator's return value); calling the request returns it too. Conv Gram matrices are cached as Zarr stores in
``cache_dir`` when given, so a rerun (or a changed ridge) costs nothing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

__all__ = ["ClassifyRequest", "ClassifyResponse", "CLASSIFY_VIEWS", "BUNDLED_DIGITS"]

#: the views of the classification panel: accuracy vs training size (clean or first
#: amplitude) and accuracy vs deformation amplitude (largest training size)
CLASSIFY_VIEWS = ("train_size", "deformation")
BUNDLED_DIGITS = 1000


@dataclass(frozen=True)
class ClassifyResponse:
    """The finished rows plus the request's sizes and amplitudes (for the two views)."""

    result: object  # ntkviz.dataset.classify.ClassifyResult
    train_sizes: tuple[int, ...]
    amplitudes: tuple[float, ...]
    family: str
    kernels: tuple[str, ...]

    @property
    def fraction(self) -> float:
        return 1.0

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
class ClassifyRequest:
    """Classification of the bundled digits (see the module docstring).

    architecture : preset name (M1..M4; M4 has no NTK).
    kernels : subset of ``("ckn", "ntk", "pixels")``.
    train_sizes : nested training sizes, each in [2, 1000 - test_size].
    test_size : test digits, in [10, 500].
    ridge : relative ridge in (0, 1e6], or None for k-fold cross-validation.
    family, amplitudes : deformation of the test digits (``"none"`` or a family of
        :data:`ntkviz.dataset.classify.DEFORM_FAMILIES`; 1 to 20 amplitudes).
    seed : split, training order and CV folds; cache_dir : Zarr cache folder or None.
    """

    architecture: str = "M1"
    kernels: tuple[str, ...] = ("ckn", "ntk", "pixels")
    train_sizes: tuple[int, ...] = (25, 50, 100)
    test_size: int = 100
    ridge: float | None = None
    family: str = "rotation"
    amplitudes: tuple[float, ...] = (0.0, 10.0, 20.0)
    seed: int = 0
    cache_dir: str | None = None

    def __post_init__(self):
        from ntkviz import limits
        from ntkviz.dataset._names import DEFORM_FAMILIES, KERNELS, check_amplitude

        if self.architecture not in limits.ARCH_PRESETS:
            raise ValueError(f"architecture must be one of {', '.join(limits.ARCH_PRESETS)}, "
                             f"got {self.architecture!r}")
        kernels = tuple(self.kernels)
        if not kernels or any(k not in KERNELS for k in kernels) or len(set(kernels)) != len(kernels):
            raise ValueError(f"kernels must be distinct names among {', '.join(KERNELS)}, got {list(kernels)}")
        if self.architecture == "M4" and "ntk" in kernels:
            raise ValueError("kernels: M4 (exp patch kernel) has no NTK; choose ckn and/or pixels")
        _int("test_size", self.test_size, 10, 500)
        top = BUNDLED_DIGITS - self.test_size
        sizes = tuple(self.train_sizes)
        if not 1 <= len(sizes) <= 20:
            raise ValueError(f"train_sizes must hold 1 to 20 sizes, got {len(sizes)}")
        for n in sizes:
            _int("train_sizes", n, 2, top)
        if self.ridge is not None and (isinstance(self.ridge, bool) or not isinstance(self.ridge, (int, float))
                                       or not (math.isfinite(self.ridge) and 0 < self.ridge <= 1e6)):
            raise ValueError(f"ridge must be in (0, 1e6] or None (cross-validation), got {self.ridge!r}")
        if self.family != "none" and self.family not in DEFORM_FAMILIES:
            raise ValueError(f"family must be none or one of {', '.join(DEFORM_FAMILIES)}, got {self.family!r}")
        amps = tuple(self.amplitudes)
        if not 1 <= len(amps) <= 20:
            raise ValueError(f"amplitudes must hold 1 to 20 values, got {len(amps)}")
        for a in amps:
            if isinstance(a, bool) or not isinstance(a, (int, float)) or not math.isfinite(a):
                raise ValueError(f"amplitudes must be finite numbers, got {a!r}")
            if self.family != "none":
                check_amplitude(self.family, a)
        _int("seed", self.seed, *limits.SEED_RANGE)
        object.__setattr__(self, "kernels", kernels)
        object.__setattr__(self, "train_sizes", tuple(int(n) for n in sizes))
        object.__setattr__(self, "amplitudes", tuple(float(a) for a in amps) if self.family != "none" else (0.0,))

    def pairs(self) -> int:
        """Conv kernel pairs a run without cache computes (for the progress text)."""
        if not any(k in ("ckn", "ntk") for k in self.kernels):
            return 0
        n = max(self.train_sizes)
        return n * (n + 1) // 2 + n * self.test_size * len(self.amplitudes)

    def iterate(self) -> Iterator:
        import numpy as np

        from ntkviz.core.cntk import PRESETS
        from ntkviz.core.digits import load_digits
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
            yield item
        return self.respond_partial(item.result)

    def respond_partial(self, result) -> ClassifyResponse:
        """A :class:`ClassifyResponse` of (possibly partial) ``result`` rows of this request."""
        return ClassifyResponse(result, tuple(sorted(set(self.train_sizes))), self.amplitudes,
                                self.family, self.kernels)

    def __call__(self) -> ClassifyResponse:
        gen = self.iterate()
        while True:
            try:
                next(gen)
            except StopIteration as stop:
                return stop.value


def _int(name: str, value, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
