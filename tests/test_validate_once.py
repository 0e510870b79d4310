"""Validation happens once, at the edge: a value (``KernelSpec``, ``Layer``, ``Architecture``,
``Deformation``, ``TrainConfig``) checks itself when it is built and is never checked again;
a request validates its own inputs in ``__post_init__`` and the core functions it then calls
do not check them again.

Every argument check (the one family ``check_int``/``check_float``/``check_bool``/
``check_choice``, the array checks ``check_cosines`` and the image validators) is wrapped
with a counter keyed by the quantity it checks, and so is each value's construction
(``__post_init__``); building and running one request must check each quantity once.
"""
from __future__ import annotations

import collections
import importlib
import sys

import pytest

CHECKS = {"ntkviz._check": ("check_int", "check_float", "check_bool", "check_choice"),
          "ntkviz.core._validate": ("check_cosines", "validate_image", "validate_images")}
MODULES = ("ntkviz.jobs._curves", "ntkviz.jobs._deform", "ntkviz.jobs._tables",
           "ntkviz.core.spectra.harmonics", "ntkviz.core.spectra.mercer",
           "ntkviz.core.kernels.deep", "ntkviz.core.kernels.activations",
           "ntkviz.core.kernels.dotkernel", "ntkviz.core.kernels.empirical",
           "ntkviz.core.conv.architecture", "ntkviz.core.conv.gram",
           "ntkviz.core.deformations.deform", "ntkviz.core.deformations.digits",
           "ntkviz.core.deformations.stability")


@pytest.fixture
def counts(monkeypatch):
    """``Counter`` of validations by quantity (the ``name`` each check reports in errors; a
    value's construction counts under ``spec``, ``layer``, ``architecture``, ``deformation``)."""
    for name in MODULES:
        importlib.import_module(name)
    from ntkviz.core.conv.architecture import Architecture, Layer
    from ntkviz.core.deformations.deform import Deformation
    from ntkviz.core.kernels.dotkernel import KernelSpec

    seen = collections.Counter()

    def counting(func, key):
        def wrapper(*args, **kwargs):
            seen[key(args, kwargs)] += 1
            return func(*args, **kwargs)
        return wrapper

    for module, checks in CHECKS.items():
        for check in checks:
            original = getattr(importlib.import_module(module), check)
            if check.startswith("validate_image"):
                default = "image" if check == "validate_image" else "images"
                key = lambda a, k, d=default: a[1] if len(a) > 1 else k.get("name", d)  # noqa: E731
            elif check == "check_cosines":
                key = lambda a, k: "u"  # noqa: E731
            else:
                key = lambda a, k: a[0]  # noqa: E731
            wrapped = counting(original, key)
            for mod in list(sys.modules.values()):
                if getattr(mod, "__name__", "").startswith("ntkviz") and getattr(mod, check, None) is original:
                    monkeypatch.setattr(mod, check, wrapped)
    for cls, label in ((KernelSpec, "spec"), (Layer, "layer"), (Architecture, "architecture"),
                       (Deformation, "deformation")):
        monkeypatch.setattr(cls, "__post_init__", counting(cls.__post_init__, lambda a, k, label=label: label))
    return seen


def _arch():
    from ntkviz.core.conv.architecture import PRESETS

    return PRESETS["M1"]


def _digit():
    from ntkviz.core.deformations.digits import digit_image

    return digit_image(3, 0)


def test_spectrum_request(counts):
    from ntkviz.core.kernels.dotkernel import KernelSpec
    from ntkviz.jobs import SpectrumRequest

    spec = KernelSpec("ntk", 3)
    response = SpectrumRequest(specs=(spec,), dim=5, kmax=40)()
    assert (counts["dim"], counts["kmax"], counts["spec"], counts["u"]) == (1, 1, 1, 0), dict(counts)
    assert response.series[0].spec is spec  # the value itself: no checked copy


def test_kernel_curve_request(counts):
    from ntkviz.core.kernels.dotkernel import KernelSpec
    from ntkviz.jobs import KernelCurveRequest

    specs = (KernelSpec("ntk", 3), KernelSpec("nngp", 2))
    response = KernelCurveRequest(specs=specs, n_points=51, near_one=True, width=32, n_samples=2)()
    assert (counts["spec"], counts["u"], counts["width"], counts["seed"], counts["n_samples"]) == (2, 0, 1, 1, 1), \
        dict(counts)
    assert all(c.spec is s for c, s in zip(response.curves, specs))


def test_deform_request(counts):
    from ntkviz.core.deformations.deform import Deformation
    from ntkviz.jobs import DeformRequest

    arch = _arch()
    DeformRequest(_digit(), Deformation(rotation_deg=10.0), arch)()
    # the deformation is built (and so checked) here, the architecture at import: never again
    assert (counts["image"], counts["architecture"], counts["layer"], counts["deformation"]) == (1, 0, 0, 1), \
        dict(counts)


def test_stability_request(counts):
    from ntkviz.jobs import StabilityRequest

    StabilityRequest("translation", (0, 1), (0.5, 1.0), (0,), _arch(), reference_per_class=1)()
    # the digits are bundled (not validated as input); each generated deformation once
    assert (counts["architecture"], counts["family"], counts["amplitudes"], counts["amplitude"],
            counts["seeds"], counts["image"], counts["deformation"]) == (0, 1, 2, 0, 1, 0, 4), dict(counts)


def test_values_check_themselves_once():
    """A value is checked when built; the functions that take one do not check it again (a
    bad value cannot be built, so there is nothing left to check)."""
    from dataclasses import replace

    from ntkviz.core import Architecture, Deformation, KernelSpec, Layer, TrainConfig

    for make, words in ((lambda: KernelSpec("ntk", 51), "depth must be in [2, 50], got 51"),
                        (lambda: Layer(0, 2), "npatch must be in [1, 99], got 0"),
                        (lambda: Architecture(()), "at least one layer"),
                        (lambda: Deformation(scale=0.0), "scale must be in [0.05, 20], got 0.0"),
                        (lambda: replace(TrainConfig(), width=7), "width must be even")):
        with pytest.raises(ValueError) as info:
            make()
        assert words in str(info.value)
    for cls in (KernelSpec, Layer, Architecture, Deformation, TrainConfig):
        assert not hasattr(cls, "validated"), f"{cls.__name__}.validated: a value is valid by construction"
