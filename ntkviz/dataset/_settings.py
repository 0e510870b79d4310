"""The validated settings of a classification of the bundled digits (standard library only).

Shared by :class:`ntkviz.jobs.ClassifyRequest` (adds the cache folder) and the
panel's :class:`ntkviz.models.classification.ClassificationParams` (adds the
"use the cache" switch), so the ranges live in one place.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ntkviz import limits
from ntkviz._check import check_choice, check_int
from ntkviz._text import check_distinct
from ntkviz.dataset._names import ALL_KERNELS, DEFORM_FAMILIES, check_amplitude

__all__ = ["ClassifySettings", "BUNDLED_DIGITS"]

#: digits bundled with ntkviz (the training pool plus the test set)
BUNDLED_DIGITS = 1000


@dataclass(frozen=True)
class ClassifySettings:
    """What a classification of the bundled digits computes (validated here).

    architecture : preset name (M1..M4; M4 has no NTK).
    kernels : subset of ``("ckn", "ntk", "pixels", "scattering")``.
    train_sizes : nested training sizes, each in [2, 1000 - test_size].
    test_size : test digits, in [10, 500].
    ridge : relative ridge in (0, 1e6], or None for k-fold cross-validation.
    family, amplitudes : deformation of the test digits (``"none"`` or a family of
        :data:`ntkviz.dataset.classify.DEFORM_FAMILIES`; 1 to 20 amplitudes).
    seed : split, training order and CV folds.
    """

    architecture: str = "M1"
    kernels: tuple[str, ...] = ("ckn", "ntk", "pixels")
    train_sizes: tuple[int, ...] = (20, 40, 80)
    test_size: int = 50
    ridge: float | None = None
    family: str = "rotation"
    amplitudes: tuple[float, ...] = (0.0, 15.0, 30.0)
    seed: int = 0

    def __post_init__(self):
        check_choice("architecture", self.architecture, limits.ARCH_PRESETS)
        kernels = tuple(self.kernels)
        if not kernels or any(k not in ALL_KERNELS for k in kernels):
            raise ValueError(f"kernels must be names among {', '.join(ALL_KERNELS)}, got {list(kernels)}")
        check_distinct("kernels", kernels, "name")
        if self.architecture == "M4" and "ntk" in kernels:
            raise ValueError("kernels: M4 (exp patch kernel) has no NTK; choose ckn and/or pixels")
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
        object.__setattr__(self, "test_size", test_size)
        object.__setattr__(self, "kernels", kernels)
        object.__setattr__(self, "train_sizes", sizes)
        object.__setattr__(self, "amplitudes", tuple(float(a) for a in amps) if self.family != "none" else (0.0,))
