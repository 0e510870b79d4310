"""Validation happens once, at the edge: a request validates its inputs in ``__post_init__``
and the core functions it then calls do not check them again.

Every argument check of the core (``check_int``/``check_float``/``check_choice``/
``check_cosines``, the image validators, ``KernelSpec.validated``,
``Architecture.validated``, ``Deformation.validated``) is wrapped with a counter keyed by
the quantity it checks; building and running one request must check each quantity once.
"""
from __future__ import annotations

import collections
import importlib
import sys

import pytest

CHECKS = ("check_int", "check_float", "check_choice", "check_cosines", "validate_image",
          "validate_images")
MODULES = ("ntkviz.jobs._curves", "ntkviz.jobs._deform", "ntkviz.core.spectra.mercer",
           "ntkviz.core.kernels.dotkernel", "ntkviz.core.conv.gram",
           "ntkviz.core.deformations.deform", "ntkviz.core.deformations.stability",
           "ntkviz.core.kernels.empirical")


@pytest.fixture
def counts(monkeypatch):
    """``Counter`` of validations by quantity (the ``name`` each check reports in errors)."""
    for name in MODULES:
        importlib.import_module(name)
    from ntkviz.core import _validate
    from ntkviz.core.conv.architecture import Architecture
    from ntkviz.core.deformations.deform import Deformation
    from ntkviz.core.kernels.dotkernel import KernelSpec

    seen = collections.Counter()

    def counting(func, key):
        def wrapper(*args, **kwargs):
            seen[key(args, kwargs)] += 1
            return func(*args, **kwargs)
        return wrapper

    for check in CHECKS:
        original = getattr(_validate, check)
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
    for cls, label in ((KernelSpec, "spec"), (Architecture, "architecture"), (Deformation, "deformation")):
        monkeypatch.setattr(cls, "validated", counting(cls.validated, lambda a, k, label=label: label))
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

    SpectrumRequest(specs=(KernelSpec("ntk", 3),), dim=5, kmax=40)()
    assert (counts["dim"], counts["kmax"], counts["spec"], counts["u"]) == (1, 1, 1, 0), dict(counts)


def test_kernel_curve_request(counts):
    from ntkviz.core.kernels.dotkernel import KernelSpec
    from ntkviz.jobs import KernelCurveRequest

    KernelCurveRequest(specs=(KernelSpec("ntk", 3), KernelSpec("nngp", 2)), n_points=51,
                       near_one=True, width=32, n_samples=2)()
    assert (counts["spec"], counts["u"], counts["width"], counts["seed"], counts["n_samples"]) == (2, 0, 1, 1, 1), \
        dict(counts)


def test_deform_request(counts):
    from ntkviz.core.deformations.deform import Deformation
    from ntkviz.jobs import DeformRequest

    DeformRequest(_digit(), Deformation(rotation_deg=10.0), _arch())()
    assert (counts["image"], counts["architecture"], counts["deformation"]) == (1, 1, 1), dict(counts)


def test_stability_request(counts):
    from ntkviz.jobs import StabilityRequest

    StabilityRequest("translation", (0, 1), (0.5, 1.0), (0,), _arch(), reference_per_class=1)()
    # the digits are bundled (not validated as input); each generated deformation once
    assert (counts["architecture"], counts["family"], counts["amplitudes"], counts["amplitude"],
            counts["seeds"], counts["image"], counts["deformation"]) == (1, 1, 2, 0, 1, 0, 4), dict(counts)
