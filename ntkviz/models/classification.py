"""Parameters of the classification panel (Qt-free).

Kernel ridge classification of the bundled digits with the CKN, the NTK and a
pixel kernel (:class:`ntkviz.jobs.ClassifyRequest`): accuracy against training
size and against the amplitude of a deformation of the test digits. The run
starts on demand (a Start button): it costs about ``pairs`` conv kernel
evaluations (~2.5 ms each for M1) the first time; the Gram matrices are then
cached as Zarr stores in ``$XDG_CACHE_HOME/ntkviz/classify`` (``use_cache``),
so reruns cost nothing. Importing this module loads neither numba, scipy nor Qt.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path

from ntkviz import limits
from ntkviz._check import check_bool
from ntkviz.dataset._settings import ClassifySettings
from ntkviz.models._base import ParamModel
from ntkviz.models._options import Option, View

__all__ = ["ClassificationParams", "ClassificationModel", "default_cache_dir"]


def default_cache_dir(name: str = "classify") -> Path:
    """``$XDG_CACHE_HOME/ntkviz/<name>`` (``~/.cache/ntkviz/<name>``): the app's caches of
    computed results (``classify``: the panel's Gram stores)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ntkviz" / name


def _names(flag: str, text: str) -> tuple[str, ...]:
    from ntkviz.models.kernel_curves import parse_name_list

    return parse_name_list(flag, text, ("ckn", "ntk", "pixels"))


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
class ClassificationParams(ClassifySettings):
    """The classification panel's parameters: :class:`ntkviz.dataset._settings.ClassifySettings`
    (architecture, kernels, train_sizes, test_size, ridge, family, amplitudes, seed; ranges
    there) plus ``use_cache``: keep the Gram matrices on disk (:func:`default_cache_dir`)."""

    use_cache: bool = True

    #: the options of the inherited settings (``ntkviz export classification``)
    OPTIONS = {
        "architecture": Option("--architecture", "conv architecture of the CKN and NTK: "
                               f"{', '.join(limits.ARCH_PRESETS)} (default M1)"),
        "kernels": Option("--kernels", "subset of ckn,ntk,pixels (default all)", metavar="LIST",
                          text=_names),
        "train_sizes": Option("--train-sizes", "training sizes (default 20,40,80)", metavar="LIST",
                              text=_numbers(int)),
        "test_size": Option("--test-size", "test digits, 10..500 (default 50)"),
        "ridge": Option("--ridge", "relative ridge or auto (cross-validation; default)",
                        text=_ridge),
        "family": Option("--family", "deformation family or none (default rotation)"),
        "amplitudes": Option("--amplitudes", "amplitudes (default 0,15,30)", metavar="LIST",
                             text=_numbers(float)),
        "seed": Option("--seed", "split, training order and cross-validation folds (default 0)"),
        "use_cache": Option("--no-cache", "do not keep the Gram matrices on disk", value=False),
    }

    def __post_init__(self):
        super().__post_init__()
        check_bool("use_cache", self.use_cache)

    def request(self, cache_dir):
        """The :class:`ntkviz.jobs.ClassifyRequest` of these parameters."""
        from ntkviz.jobs import ClassifyRequest

        settings = {f.name: getattr(self, f.name) for f in fields(ClassifySettings)}
        return ClassifyRequest(**settings, cache_dir=None if cache_dir is None else str(cache_dir))


class ClassificationModel(ParamModel):
    """Model of the classification panel (see the module docstring)."""

    Params = ClassificationParams
    display_only = frozenset()
    views = (View("train_size", "accuracy against the training size"),
             View("deformation", "accuracy against the deformation amplitude of the test digits"))

    @classmethod
    def build_request(cls, params: ClassificationParams):
        return params.request(default_cache_dir() if params.use_cache else None)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states: the default plus cheap extreme cases (pixels only where conv
        kernels would take minutes)."""
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
        }
