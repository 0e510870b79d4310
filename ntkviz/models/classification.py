"""Parameters of the classification panel (Qt-free).

Kernel ridge classification of the bundled digits with the CKN, the NTK, a pixel kernel
and a kernel on scattering coefficients (:class:`ntkviz.jobs.ClassifyRequest`): accuracy
against training size and against the amplitude of a deformation of the test digits, each
with its 95 % Wilson interval (or mean ± s.e. over random splits), and the confusion matrix
of one run. The run starts on demand (a Start button): it costs about ``pairs`` conv kernel
evaluations (~2.5 ms each for M1) the first time; the Gram matrices are then cached as Zarr
stores in ``$XDG_CACHE_HOME/ntkviz/classify`` (``use_cache``), so reruns cost nothing.

A second job, also on demand, draws the **spectrum & theory** views
(:class:`ntkviz.jobs.ClassifyTheoryRequest`): the spectra and label alignment of the pool's
Gram matrices, the predicted and measured learning curves and the Arora et al. certificate
with true and random labels; its Gram stores live in the same cache.

``page`` (display only) says which figures the tab shows — ``accuracy``, ``confusion`` or
``theory`` — and so which job an export of the model runs (:meth:`ClassificationModel.build_request`).
Importing this module loads neither numba, scipy nor Qt.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from pathlib import Path

from ntkviz import limits
from ntkviz._check import check_bool, check_choice
from ntkviz.dataset._names import ALL_KERNELS
from ntkviz.dataset._settings import ClassifySettings, TheorySettings, check_pool
from ntkviz.models._base import ParamModel
from ntkviz.models._options import Option, View, option

__all__ = ["ClassificationParams", "ClassificationModel", "default_cache_dir", "PAGES"]

#: the tab's pages: accuracy plots, the confusion matrix, spectrum & theory
PAGES = ("accuracy", "confusion", "theory")


def default_cache_dir(name: str = "classify") -> Path:
    """``$XDG_CACHE_HOME/ntkviz/<name>`` (``~/.cache/ntkviz/<name>``): the app's caches of
    computed results (``classify``: the panel's Gram stores)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ntkviz" / name


def _names(flag: str, text: str) -> tuple[str, ...]:
    from ntkviz.models.kernel_curves import parse_name_list

    return parse_name_list(flag, text, ALL_KERNELS)


def _numbers(kind):
    def parse(flag: str, text: str) -> tuple:
        from ntkviz._text import parse_list

        return parse_list(flag, text, kind)

    return parse


def _ridge(flag: str, text: str) -> float | None:
    """``auto`` (cross-validation) -> None, else a number."""
    if text.strip().lower() == "auto":
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{flag} must be a number or auto, got {text!r}") from None


@dataclass(frozen=True)
class ClassificationParams(TheorySettings, ClassifySettings):
    """The classification panel's parameters: :class:`ntkviz.dataset._settings.ClassifySettings`
    (architecture, kernels, train_sizes, test_size, ridge, family, amplitudes, seed, splits),
    :class:`ntkviz.dataset._settings.TheorySettings` (pool_size, theory_sizes, theory_ridge,
    draws, theory_seed, random_labels; ranges there, and ``pool_size <= 1000 - test_size``),
    plus ``use_cache`` (keep the Gram matrices on disk: :func:`default_cache_dir`) and the
    display fields ``page`` (one of :data:`PAGES`) and ``confusion_kernel`` (the kernel of the
    confusion view: one of ``kernels``, or ``""`` for the first)."""

    use_cache: bool = True
    page: str = "accuracy"
    confusion_kernel: str = option("", "--confusion-kernel", "kernel of the confusion view, one of "
                                   "--kernels (default the first)", metavar="NAME")

    #: the options of the inherited settings (``ntkviz export classification``)
    OPTIONS = {
        "architecture": Option("--architecture", "conv architecture of the CKN and NTK: "
                               f"{', '.join(limits.ARCH_PRESETS)} (default M1)"),
        "kernels": Option("--kernels", f"subset of {','.join(ALL_KERNELS)} (default ckn,ntk,pixels)",
                          metavar="LIST", text=_names),
        "train_sizes": Option("--train-sizes", "training sizes (default 20,40,80)", metavar="LIST",
                              text=_numbers(int)),
        "test_size": Option("--test-size", "test digits, 10..500 (default 50)"),
        "ridge": Option("--ridge", "relative ridge or auto (cross-validation; default)",
                        text=_ridge),
        "family": Option("--family", "deformation family or none (default rotation)"),
        "amplitudes": Option("--amplitudes", "amplitudes (default 0,15,30)", metavar="LIST",
                             text=_numbers(float)),
        "seed": Option("--seed", "split, training order and cross-validation folds (default 0)"),
        "splits": Option("--splits", "random train/test splits, 1..100: mean ± s.e. over them (default 1)"),
        "pool_size": Option("--pool-size", "spectrum & theory: labelled digits of the pool, 3..990 and "
                            "at most 1000 - test size (default 300)"),
        "theory_sizes": Option("--theory-sizes", "spectrum & theory: training sizes n below the pool size "
                               "(default 50,100,150,200)", metavar="LIST", text=_numbers(int)),
        "theory_ridge": Option("--theory-ridge", "spectrum & theory: ridge relative to the mean diagonal, "
                               ">= 0 (default 0: interpolation)"),
        "draws": Option("--draws", "spectrum & theory: random training subsets per n, 1..1000 (default 10)"),
        "theory_seed": Option("--theory-seed", "spectrum & theory: seed of the subsets and of the label "
                              "permutation (default 0)"),
        "random_labels": Option("--no-random-labels", "spectrum & theory: leave out the randomly "
                                "permuted labels", value=False),
        "use_cache": Option("--no-cache", "do not keep the Gram matrices on disk", value=False),
    }

    def __post_init__(self):
        ClassifySettings.__post_init__(self)
        TheorySettings.__post_init__(self)
        check_pool(self.pool_size, self.test_size)
        check_bool("use_cache", self.use_cache)
        check_choice("page", self.page, PAGES)
        if self.confusion_kernel and self.confusion_kernel not in self.kernels:
            raise ValueError(f"confusion_kernel must be one of the kernels chosen ({', '.join(self.kernels)}) "
                             f"or empty (the first), got {self.confusion_kernel!r}")

    def request(self, cache_dir):
        """The :class:`ntkviz.jobs.ClassifyRequest` of these parameters."""
        from ntkviz.jobs import ClassifyRequest

        settings = {f.name: getattr(self, f.name) for f in fields(ClassifySettings)}
        return ClassifyRequest(**settings, cache_dir=None if cache_dir is None else str(cache_dir))

    def theory_request(self, cache_dir):
        """The :class:`ntkviz.jobs.ClassifyTheoryRequest` of these parameters."""
        from ntkviz.jobs import ClassifyTheoryRequest

        settings = {f.name: getattr(self, f.name) for f in fields(TheorySettings)}
        return ClassifyTheoryRequest(**settings, architecture=self.architecture, kernels=self.kernels,
                                     test_size=self.test_size, seed=self.seed,
                                     cache_dir=None if cache_dir is None else str(cache_dir))

    @property
    def shown_confusion_kernel(self) -> str:
        """The kernel the confusion view shows."""
        return self.confusion_kernel or self.kernels[0]


def _page(page: str) -> dict:
    return {"shows": {"page": page}, "needs": {"page": page}}


class ClassificationModel(ParamModel):
    """Model of the classification panel (see the module docstring)."""

    Params = ClassificationParams
    display_only = frozenset({"page", "confusion_kernel"})
    #: fields that only the spectrum & theory job reads (the classification ignores them)
    theory_only = frozenset(f.name for f in fields(TheorySettings))
    views = (View("train_size", "accuracy against the training size (bars: 95 % Wilson interval; "
                                "with --splits, mean ± s.e. over the splits)", **_page("accuracy")),
             View("deformation", "accuracy against the deformation amplitude of the test digits",
                  **_page("accuracy")),
             View("confusion", "true digit against prediction of one kernel (--confusion-kernel) at the "
                               "largest training size", **_page("confusion")),
             View("spectrum", "eigenvalues λᵢ(K̃)/N of the pool's Gram matrices, with the sphere reference",
                  **_page("theory")),
             View("alignment", "share of the labels' energy on the top m eigenvectors", **_page("theory")),
             View("learning_curve", "held-out test MSE against n: predicted (eigenlearning) and measured",
                  **_page("theory")),
             View("certificate", "Arora et al. certificate √(2 YᵀH⁻¹Y / n) against n, true vs random labels",
                  **_page("theory")))

    @classmethod
    def build_request(cls, params: ClassificationParams):
        """The job of the page shown: the spectrum & theory for ``page == "theory"``, the
        classification otherwise (an export of a view runs the job that draws it)."""
        if params.page == "theory":
            return cls.theory_request(params)
        return cls.classify_request(params)

    @classmethod
    def cache_dir(cls, params: ClassificationParams):
        return default_cache_dir() if params.use_cache else None

    @classmethod
    def classify_request(cls, params: ClassificationParams):
        return params.request(cls.cache_dir(params))

    @classmethod
    def theory_request(cls, params: ClassificationParams):
        return params.theory_request(cls.cache_dir(params))

    @classmethod
    def computation(cls, params):
        """What the classification computes: ``params`` with the display fields and the fields
        of the spectrum & theory (a job of its own) at their defaults."""
        defaults = cls.Params()
        return replace(params, **{f: getattr(defaults, f) for f in cls.display_only | cls.theory_only})

    @classmethod
    def csv_table(cls, params, response, view: str):
        if view == "confusion":
            return response.csv_table(view, params.shown_confusion_kernel)
        return response.csv_table(view)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states: the default plus cheap extreme cases (pixels only where conv
        kernels would take minutes), for every page."""
        theory = {"page": "theory"}
        return {
            "default": {},
            "tiny": {"train_sizes": [2], "test_size": 10, "amplitudes": [0.0], "architecture": "M3",
                     "use_cache": False},
            "large_pixels": {"kernels": ["pixels"], "train_sizes": [10, 100, 500, 900], "test_size": 100},
            "huge_rotation": {"kernels": ["pixels"], "family": "rotation",
                              "amplitudes": [0.0, 45.0, 90.0, 180.0, 360.0]},
            "tiny_translation": {"kernels": ["pixels"], "family": "translation",
                                 "amplitudes": [0.0, 0.001, 0.01]},
            "fixed_ridge": {"kernels": ["pixels"], "ridge": 1e-6, "family": "none"},
            "m4_ckn": {"architecture": "M4", "kernels": ["ckn", "pixels"], "train_sizes": [10, 20],
                       "test_size": 20, "amplitudes": [0.0, 20.0]},
            "scattering": {"kernels": list(ALL_KERNELS)},
            "splits": {"kernels": ["pixels", "scattering"], "splits": 8, "train_sizes": [10, 20, 40, 80, 160]},
            "confusion": {"page": "confusion"},
            "confusion_scattering": {"page": "confusion", "kernels": ["pixels", "scattering"],
                                     "confusion_kernel": "scattering", "train_sizes": [200], "test_size": 200},
            "theory": theory,
            "theory_true_labels": {**theory, "random_labels": False},
            "theory_one_kernel": {**theory, "kernels": ["ntk"]},
            "theory_small_pool": {**theory, "architecture": "M3", "pool_size": 12, "theory_sizes": [2, 5, 11],
                                  "draws": 3, "use_cache": False},
            "theory_scattering": {**theory, "kernels": list(ALL_KERNELS)},
            "theory_ridge": {**theory, "kernels": ["pixels", "scattering"], "theory_ridge": 0.1, "draws": 30},
        }
