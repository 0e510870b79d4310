"""``ntkviz.limits`` agrees with what the numeric core and the requests accept: each range's
ends are accepted and the values just outside refused, so the limits cannot drift."""
from __future__ import annotations

import math

import pytest

from ntkviz import limits as L


def test_names_match_the_core():
    from ntkviz.core import ACTIVATIONS
    from ntkviz.core.conv.architecture import MODES, PATCH_KERNELS, PATCH_NORMALIZATIONS, POOLINGS, PRESETS
    from ntkviz.core._validate import MAX_CHANNELS, MAX_IMAGE_SIDE
    from ntkviz.core.deformations.digits import load_digits
    from ntkviz.core.kernels.dotkernel import KERNEL_NAMES
    from ntkviz.core.deformations.stability import FAMILIES

    assert L.KERNEL_NAMES == KERNEL_NAMES and L.ACTIVATIONS == ACTIVATIONS
    assert set(L.ARCCOS_KERNELS) | set(L.DEEP_KERNELS) == set(KERNEL_NAMES)
    assert L.ARCH_PRESETS == tuple(PRESETS) and L.CONV_MODES == MODES
    assert L.POOLINGS == POOLINGS and L.PATCH_KERNELS == PATCH_KERNELS
    assert L.PATCH_NORMALIZATIONS == PATCH_NORMALIZATIONS
    assert L.FAMILIES == FAMILIES
    assert L.IMAGE_SIDE_RANGE[1] == MAX_IMAGE_SIDE and L.MAX_CHANNELS == MAX_CHANNELS
    labels = load_digits()[1]
    assert all((labels == k).sum() == L.BUNDLED_PER_CLASS for k in range(10))


def _refuses(make, value) -> bool:
    try:
        make(value)
    except ValueError:
        return True
    return False


def _beyond(x, direction):
    """The next value outside a range end (integers step by 1, floats by a relative nudge)."""
    if isinstance(x, int):
        return x + direction
    return x + direction * max(abs(x) * 1e-9, 1e-300)


def _check_range(make, rng):
    lo, hi = rng
    make(lo)
    make(hi)
    assert _refuses(make, _beyond(lo, -1)), f"{_beyond(lo, -1)} accepted below {rng}"
    assert _refuses(make, _beyond(hi, +1)), f"{_beyond(hi, +1)} accepted above {rng}"


def test_kernel_ranges():
    from ntkviz.core.kernels.dotkernel import KernelSpec

    _check_range(lambda d: KernelSpec("ntk", d).validated(), L.DEPTH_RANGE)
    _check_range(lambda b: KernelSpec("ntk", 2, b).validated(), L.BIAS_RANGE)


def test_request_ranges():
    from ntkviz.core.kernels.dotkernel import KernelSpec
    from ntkviz.jobs import KernelCurveRequest, SpectrumTableRequest

    spec = KernelSpec("ntk", 2)
    _check_range(lambda p: SpectrumTableRequest(spec, p, 1), L.DIM_RANGE)
    _check_range(lambda k: SpectrumTableRequest(spec, 3, k), L.KMAX_RANGE)
    _check_range(lambda n: KernelCurveRequest(specs=(spec,), n_points=n), L.CURVE_POINTS_RANGE)
    _check_range(lambda m: KernelCurveRequest(specs=(spec,), width=m, n_samples=1, n_overlay_points=3),
                 L.NET_WIDTH_RANGE)


@pytest.mark.parametrize("field,rng", [
    ("translate_x", L.TRANSLATE_RANGE), ("rotation_deg", L.ROTATION_RANGE), ("scale", L.SCALE_RANGE),
    ("shear", L.SHEAR_RANGE), ("smooth_amplitude", L.SMOOTH_AMPLITUDE_RANGE),
    ("smooth_length", L.SMOOTH_LENGTH_RANGE), ("infimnist_alpha", L.INFIMNIST_ALPHA_RANGE),
])
def test_deformation_ranges(field, rng):
    from ntkviz.core.deformations.deform import Deformation

    _check_range(lambda v: Deformation(**{field: v}).validated(), rng)


def test_training_ranges():
    from dataclasses import replace

    from ntkviz.core.training.dynamics import TrainConfig

    base = TrainConfig()
    _check_range(lambda a: replace(base, alpha=a).validated(), L.ALPHA_RANGE)
    _check_range(lambda n: replace(base, samples=n).validated(), L.TRAIN_SAMPLES_RANGE)
    _check_range(lambda s: replace(base, steps=s).validated(), L.STEPS_RANGE)
    _check_range(lambda d: replace(base, dim=d).validated(), L.TRAIN_DIM_RANGE)
    assert math.isfinite(L.LR_RANGE[1])


def test_map_and_scattering_ranges():
    from ntkviz.core.deformations.deform import DILATION_MAX, dilation
    from ntkviz.core.deformations.maps import DEFAULT_MAPS, MAPS
    from ntkviz.core.deformations.stability import SWEEP_FAMILIES
    from ntkviz.core.scattering.transform import ScatteringParams

    assert L.SWEEP_FAMILIES == SWEEP_FAMILIES and L.MAPS == MAPS and L.DEFAULT_MAPS == DEFAULT_MAPS
    assert L.DILATION_RANGE[1] == DILATION_MAX
    _check_range(dilation, L.DILATION_RANGE)
    _check_range(lambda j: ScatteringParams(J=j).validated(), L.SCATTERING_J_RANGE)
    _check_range(lambda n: ScatteringParams(L=n).validated(), L.SCATTERING_L_RANGE)
