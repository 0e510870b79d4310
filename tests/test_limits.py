"""``ntkviz.limits`` agrees with what the numeric core and the requests accept: each range's
ends are accepted and the values just outside refused, so the limits cannot drift; and the
one check family (``ntkviz._check``) says so in one message form."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz import limits as L


def test_names_match_the_core():
    from ntkviz.core import ACTIVATIONS
    from ntkviz.core.conv.architecture import MODES, PATCH_KERNELS, PATCH_NORMALIZATIONS, POOLINGS, PRESETS
    from ntkviz.core.deformations.digits import load_digits
    from ntkviz.core.kernels.dotkernel import KERNEL_NAMES
    from ntkviz.core.deformations.stability import FAMILIES

    assert L.KERNEL_NAMES == KERNEL_NAMES and L.ACTIVATIONS == ACTIVATIONS
    assert set(L.ARCCOS_KERNELS) | set(L.DEEP_KERNELS) == set(KERNEL_NAMES)
    assert L.ARCH_PRESETS == tuple(PRESETS) and L.CONV_MODES == MODES
    assert L.POOLINGS == POOLINGS and L.PATCH_KERNELS == PATCH_KERNELS
    assert L.PATCH_NORMALIZATIONS == PATCH_NORMALIZATIONS
    assert L.FAMILIES == FAMILIES
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

    _check_range(lambda d: KernelSpec("ntk", d), L.DEPTH_RANGE)
    _check_range(lambda b: KernelSpec("ntk", 2, b), L.BIAS_RANGE)


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

    _check_range(lambda v: Deformation(**{field: v}), rng)


def test_training_ranges():
    from dataclasses import replace

    from ntkviz.core.training.dynamics import TrainConfig

    base = TrainConfig()
    _check_range(lambda a: replace(base, alpha=a), L.ALPHA_RANGE)
    _check_range(lambda n: replace(base, samples=n), L.TRAIN_SAMPLES_RANGE)
    _check_range(lambda s: replace(base, steps=s), L.STEPS_RANGE)
    _check_range(lambda d: replace(base, dim=d), L.TRAIN_DIM_RANGE)
    _check_range(lambda r: replace(base, lr=r), L.LR_RANGE)
    _check_range(lambda t: replace(base, teacher=t), L.TEACHER_RANGE)
    _check_range(lambda f: replace(base, frames=f), L.FRAMES_RANGE)
    _check_range(lambda s: replace(base, noise=s), L.TRAIN_NOISE_RANGE)


def test_map_and_scattering_ranges():
    from ntkviz.core.deformations.deform import DILATION_MAX, dilation
    from ntkviz.core.deformations.maps import DEFAULT_MAPS, MAPS
    from ntkviz.core.deformations.stability import SWEEP_FAMILIES
    from ntkviz.core.scattering.transform import ScatteringParams

    assert L.SWEEP_FAMILIES == SWEEP_FAMILIES and L.MAPS == MAPS and L.DEFAULT_MAPS == DEFAULT_MAPS
    assert L.DILATION_RANGE[1] == DILATION_MAX
    _check_range(dilation, L.DILATION_RANGE)
    _check_range(lambda j: ScatteringParams(J=j), L.SCATTERING_J_RANGE)
    _check_range(lambda n: ScatteringParams(L=n), L.SCATTERING_L_RANGE)


def test_image_sizes():
    from ntkviz.core import validate_image

    _check_range(lambda n: validate_image(np.zeros((n, 3))), L.IMAGE_SIDE_RANGE)
    _check_range(lambda c: validate_image(np.zeros((3, 3, c))), (1, L.MAX_CHANNELS))


def test_layer_and_architecture_ranges():
    from ntkviz.core import Architecture, Layer

    for field in ("npatch", "subsampling", "poolfactor"):
        _check_range(lambda v, f=field: Layer(**{"npatch": 3, "subsampling": 2, f: v}), L.LAYER_INT_RANGE)
    _check_range(lambda s: Layer(3, 2, kernel="exp", sigma=s), L.LAYER_SIGMA_RANGE)
    _check_range(lambda n: Architecture((Layer(1, 1),) * n), (1, L.MAX_LAYERS))


def test_learning_ranges():
    from ntkviz.core import KernelSpec, Target
    from ntkviz.jobs import LearningMonteCarloRequest, LearningTheoryRequest

    spec, target = (KernelSpec("ntk"),), Target()
    _check_range(lambda p: LearningTheoryRequest(spec, target, dim=p), L.DIM_RANGE)
    _check_range(lambda k: LearningTheoryRequest(spec, target, kmax=k), L.LEARN_KMAX_RANGE)
    _check_range(lambda r: LearningTheoryRequest(spec, target, ridge=r), L.RIDGE_RANGE)
    _check_range(lambda s: LearningTheoryRequest(spec, target, noise=s), L.NOISE_RANGE)
    _check_range(lambda n: LearningTheoryRequest(spec, target, n_values=(n,)), L.LEARN_N_RANGE)
    _check_range(lambda n: LearningMonteCarloRequest(spec, target, n_values=(n,)), L.MC_N_RANGE)
    _check_range(lambda s: LearningMonteCarloRequest(spec, target, seeds=s), L.MC_SEEDS_RANGE)
    _check_range(lambda n: LearningMonteCarloRequest(spec, target, n_test=n), L.MC_TEST_RANGE)


@pytest.mark.parametrize("call, message", [
    (lambda c: c.check_int("depth", 99, (2, 50)), "depth must be in [2, 50], got 99"),
    (lambda c: c.check_int("depth", 2.5, (2, 50)), "depth must be an integer in [2, 50], got 2.5"),
    (lambda c: c.check_int("depth", True, (2, 50)), "depth must be an integer in [2, 50], got True"),
    (lambda c: c.check_int("chunk", 0, (1, None)), "chunk must be >= 1, got 0"),
    (lambda c: c.check_float("bias", -0.1, (0.0, 100.0)), "bias must be in [0, 100], got -0.1"),
    (lambda c: c.check_float("bias", math.nan, (0.0, 100.0)), "bias must be in [0, 100], got nan"),
    (lambda c: c.check_float("alpha", "3", (1e-4, 1e6)), "alpha must be a number in [0.0001, 1e+06], got '3'"),
    (lambda c: c.check_float("x", 10**400, (0.0, 1.0)), "x must be in [0, 1], got 1" + "0" * 20 + "…"),
    (lambda c: c.check_int("n", 10**5000, (0, 5)), "n must be in [0, 5], got about 10^5000"),
    (lambda c: c.check_bool("normalize", "yes"), "normalize must be true or false, got 'yes'"),
    (lambda c: c.check_choice("init", "zero", ("symmetric", "centered")),
     "init must be one of symmetric, centered, got 'zero'"),
])
def test_one_message_form(call, message):
    from ntkviz import _check

    with pytest.raises(ValueError) as info:
        call(_check)
    assert str(info.value) == message


def test_checks_return_the_normalised_value():
    from ntkviz import _check

    assert _check.check_int("n", np.int64(3), (1, 5)) == 3 and type(_check.check_int("n", 3.0, (1, 5))) is int
    assert type(_check.check_float("x", np.float32(0.5), (0.0, 1.0))) is float
    assert _check.check_float("x", 7, (0.0, None)) == 7.0
    assert _check.check_bool("b", np.bool_(True)) is True
    assert _check.check_choice("c", "a", ("a", "b")) == "a"


def test_the_check_module_is_light():
    """The check family is standard library only: the models and the CLI use it without
    loading NumPy."""
    import subprocess
    import sys

    code = "import sys, ntkviz._check; print(sorted(m for m in ('numpy', 'numba', 'PySide6') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stderr[-300:]
