"""The validated settings of a classification of the bundled digits (standard library only).

:class:`ClassifySettings` is shared by :class:`ntkviz.jobs.ClassifyRequest` (adds the cache
folder) and the panel's :class:`ntkviz.models.classification.ClassificationParams` (adds the
"use the cache" switch and the display fields); :class:`TheorySettings` (the spectrum &
theory view's pool, sizes, ridge, draws, seed, random labels) by the panel's parameters and
:class:`ntkviz.jobs.ClassifyTheoryRequest`. So the ranges live in one place.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ntkviz import limits
from ntkviz._check import check_bool, check_choice, check_float, check_int
from ntkviz._text import check_distinct
from ntkviz.dataset._names import ALL_KERNELS, DEFORM_FAMILIES, check_amplitude

__all__ = ["ClassifySettings", "TheorySettings", "BUNDLED_DIGITS", "check_kernels", "check_pool"]

#: digits bundled with ntkviz (the training pool plus the test set)
BUNDLED_DIGITS = 1000


def check_kernels(architecture: str, kernels) -> tuple[str, ...]:
    """``kernels`` as a tuple after checking ``architecture`` (a preset) and the kernels: distinct
    names among ``ckn, ntk, pixels, scattering``, at least one, no NTK with M4."""
    check_choice("architecture", architecture, limits.ARCH_PRESETS)
    kernels = tuple(kernels)
    if not kernels or any(k not in ALL_KERNELS for k in kernels):
        raise ValueError(f"kernels must be names among {', '.join(ALL_KERNELS)}, got {list(kernels)}")
    check_distinct("kernels", kernels, "name")
    if architecture == "M4" and "ntk" in kernels:
        raise ValueError("kernels: M4 (exp patch kernel) has no NTK; choose ckn, pixels and/or scattering")
    return kernels


def check_pool(pool_size: int, test_size: int) -> None:
    """The theory pool and the test digits come from the same 1,000 bundled digits:
    ``pool_size <= 1000 - test_size``."""
    if pool_size > BUNDLED_DIGITS - test_size:
        raise ValueError(f"pool_size must be in [{limits.THEORY_POOL_RANGE[0]}, {BUNDLED_DIGITS - test_size}] "
                         f"(the digits not in the {test_size} test digits), got {pool_size}")


@dataclass(frozen=True)
class ClassifySettings:
    """What a classification of the bundled digits computes (validated here).

    architecture : preset name (M1..M4; M4 has no NTK).
    kernels : subset of ``("ckn", "ntk", "pixels", "scattering")`` (scattering: a Gaussian kernel
        on the scattering coefficients, J = 2, L = 8, median-distance bandwidth).
    train_sizes : nested training sizes, each in [2, 1000 - test_size].
    test_size : test digits, in [10, 500].
    ridge : relative ridge in (0, 1e6], or None for k-fold cross-validation.
    family, amplitudes : deformation of the test digits (``"none"`` or a family of
        :data:`ntkviz.dataset.classify.DEFORM_FAMILIES`; 1 to 20 amplitudes).
    seed : split, training order and CV folds.
    splits : random train/test splits, in [1, 100]: split 0 is the one of ``seed``, the
        others :func:`ntkviz.dataset.classify.split_indices` (mean ± s.e. over splits).
    """

    architecture: str = "M1"
    kernels: tuple[str, ...] = ("ckn", "ntk", "pixels")
    train_sizes: tuple[int, ...] = (20, 40, 80)
    test_size: int = 50
    ridge: float | None = None
    family: str = "rotation"
    amplitudes: tuple[float, ...] = (0.0, 15.0, 30.0)
    seed: int = 0
    splits: int = 1

    def __post_init__(self):
        kernels = check_kernels(self.architecture, self.kernels)
        test_size = check_int("test_size", self.test_size, limits.CLASSIFY_TEST_RANGE)
        sizes = tuple(self.train_sizes)
        if not 1 <= len(sizes) <= limits.CLASSIFY_SIZES_COUNT:
            raise ValueError(f"train_sizes must hold 1 to {limits.CLASSIFY_SIZES_COUNT} sizes, "
                             f"got {len(sizes)}")
        sizes = tuple(check_int("train_sizes", n, (2, BUNDLED_DIGITS - test_size)) for n in sizes)
        check_distinct("train_sizes", sizes, "size")
        if self.ridge is not None and (isinstance(self.ridge, bool) or not isinstance(self.ridge, (int, float))
                                       or not (math.isfinite(self.ridge) and 0 < self.ridge <= 1e6)):
            raise ValueError(f"ridge must be in (0, 1e6] or None (cross-validation), got {self.ridge!r}")
        if self.family != "none" and self.family not in DEFORM_FAMILIES:
            raise ValueError(f"family must be none or one of {', '.join(DEFORM_FAMILIES)}, got {self.family!r}")
        amps = tuple(self.amplitudes)
        if not 1 <= len(amps) <= limits.CLASSIFY_SIZES_COUNT:
            raise ValueError(f"amplitudes must hold 1 to {limits.CLASSIFY_SIZES_COUNT} values, "
                             f"got {len(amps)}")
        for a in amps:
            if isinstance(a, bool) or not isinstance(a, (int, float)) or not math.isfinite(a):
                raise ValueError(f"amplitudes must be finite numbers, got {a!r}")
            if self.family != "none":
                check_amplitude(self.family, a)
        check_distinct("amplitudes", amps, "amplitude")
        object.__setattr__(self, "seed", check_int("seed", self.seed, limits.SEED_RANGE))
        object.__setattr__(self, "splits", check_int("splits", self.splits, limits.CLASSIFY_SPLITS_RANGE))
        object.__setattr__(self, "test_size", test_size)
        object.__setattr__(self, "kernels", kernels)
        object.__setattr__(self, "train_sizes", sizes)
        object.__setattr__(self, "amplitudes", tuple(float(a) for a in amps) if self.family != "none" else (0.0,))


@dataclass(frozen=True)
class TheorySettings:
    """What the spectrum & theory view of the Classification tab computes (validated here).

    pool_size : labelled digits of the pool, in [3, 990] (the first ``pool_size`` of the
        training digits in the classification's seeded order; at most ``1000 - test_size``,
        checked with :func:`check_pool` where the test size is known).
    theory_sizes : training sizes n of the theory, 1 to 20 distinct integers in
        [1, pool_size - 1].
    theory_ridge : ridge δ >= 0 relative to the mean kernel diagonal (0: interpolation, the
        pseudo-inverse where the training Gram matrix is numerically singular).
    draws : random training subsets per n, in [1, 1000].
    theory_seed : seed of the subsets and of the label permutation.
    random_labels : also the certificate, prediction and measurement for a seeded
        permutation of the labels.
    """

    pool_size: int = 300
    theory_sizes: tuple[int, ...] = (50, 100, 150, 200)
    theory_ridge: float = 0.0
    draws: int = 10
    theory_seed: int = 0
    random_labels: bool = True

    def __post_init__(self):
        pool = check_int("pool_size", self.pool_size, limits.THEORY_POOL_RANGE)
        sizes = tuple(self.theory_sizes)
        if not 1 <= len(sizes) <= limits.THEORY_SIZES_COUNT:
            raise ValueError(f"theory_sizes must hold 1 to {limits.THEORY_SIZES_COUNT} sizes, got {len(sizes)}")
        sizes = tuple(check_int("theory_sizes", n, (1, pool - 1)) for n in sizes)
        check_distinct("theory_sizes", sizes, "size")
        object.__setattr__(self, "pool_size", pool)
        object.__setattr__(self, "theory_sizes", tuple(sorted(sizes)))
        object.__setattr__(self, "theory_ridge", check_float("theory_ridge", self.theory_ridge, limits.RIDGE_RANGE))
        object.__setattr__(self, "draws", check_int("draws", self.draws, limits.DATA_DRAWS_RANGE))
        object.__setattr__(self, "theory_seed", check_int("theory_seed", self.theory_seed, limits.SEED_RANGE))
        check_bool("random_labels", self.random_labels)
