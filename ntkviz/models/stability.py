"""Parameters of the stability view (Qt-free).

The view sweeps a deformation family over log-spaced amplitudes and plots the
mean relative feature distance ``‖Φ(L_τ x) − Φ(x)‖ / ‖Φ(x)‖`` of the CKN, the
convolutional NTK and raw pixels against the amplitude, on log–log axes.
:class:`StabilityModel` turns the parameters into a
:class:`ntkviz.jobs.StabilityRequest`; the GUI view, sessions and
``ntkviz export stability`` fill this one model, so its ranges are the only
ones. Importing this module loads neither numba, scipy nor Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ntkviz import limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz._text import check_distinct
from ntkviz.dataset._names import check_family_amplitude
from ntkviz.models._base import ParamModel
from ntkviz.models._options import View, option

__all__ = ["StabilityParams", "StabilityModel", "FAMILY_AXES", "family_defaults", "amplitudes",
           "sweep_cost"]

#: per family: (x-axis label, default smallest amplitude, default largest amplitude)
FAMILY_AXES = {
    "smooth": ("smooth-field amplitude (largest displacement, px)", 0.01, 3.0),
    "translation": ("translation (px)", 0.01, 3.0),
    "rotation": ("rotation (degrees)", 0.1, 30.0),
    "infimnist": ("Infinite-MNIST α", 0.01, 3.0),
}
_N_BUNDLED = 10 * limits.BUNDLED_PER_CLASS
_A_LO, _A_HI = limits.AMPLITUDE_RANGE
_C_LO, _C_HI = limits.AMPLITUDE_COUNT_RANGE


def family_defaults(family: str) -> dict:
    """``{"amplitude_min": …, "amplitude_max": …}``: the default range of ``family``
    (empty for an unknown family, which the parameters then refuse by name)."""
    if family not in FAMILY_AXES:
        return {}
    _, lo, hi = FAMILY_AXES[family]
    return {"amplitude_min": lo, "amplitude_max": hi}


def amplitude_option(flag: str, text: str) -> dict:
    """``MIN,MAX[,COUNT]`` -> the fields ``amplitude_min``, ``amplitude_max`` (and
    ``amplitude_count``); ranges are checked by the parameters."""
    from ntkviz._text import parse_list

    values = parse_list(flag, text, float)
    if len(values) not in (2, 3):
        raise ValueError(f"{flag} must be MIN,MAX or MIN,MAX,COUNT, got {len(values)} numbers")
    out = {"amplitude_min": values[0], "amplitude_max": values[1]}
    if len(values) == 3:
        if not values[2].is_integer():
            raise ValueError(f"{flag} COUNT must be an integer, got {values[2]:g}")
        out["amplitude_count"] = int(values[2])
    return out


def _digits(flag: str, text: str) -> tuple[int, ...]:
    from ntkviz._text import parse_list

    return parse_list(flag, text, int)


@dataclass(frozen=True)
class StabilityParams:
    """Stability-sweep parameters.

    ``digits``: indices into the bundled subset (label = index // 100). Each digit is
    deformed by a member of ``family`` at ``amplitude_count`` amplitudes log-spaced
    from ``amplitude_min`` to ``amplitude_max`` (px for smooth and translation,
    degrees for rotation, α for infimnist), with ``seeds`` random seeds from
    ``first_seed``. ``architecture`` is a preset (M1–M4; M4's exp layers have no
    NTK). The horizontal levels are the mean distances from the digits to the first
    ``reference_per_class`` bundled digits of their own label and of every label
    (a digit is never compared with itself).
    """

    family: str = option("smooth", "--family", f"deformation family: {', '.join(limits.FAMILIES)} "
                         "(default smooth)", sets=family_defaults)
    digits: tuple[int, ...] = option((0, 100, 200, 300, 400, 500, 600, 700, 800, 900), "--digits",
                                     f"bundled digit indices 0..{_N_BUNDLED - 1}, comma-separated "
                                     "(index = 100 * label + i)", metavar="LIST", text=_digits)
    amplitude_min: float = option(
        0.01, "--amplitudes", f"log-spaced amplitude range in ({_A_LO:g}, {_A_HI:g}] (px, degrees "
        f"or alpha) and count {_C_LO}..{_C_HI}; default: the family's range, 6 values",
        metavar="MIN,MAX[,COUNT]", text=amplitude_option,
        show=lambda p: f"{p.amplitude_min!r},{p.amplitude_max!r},{p.amplitude_count}")
    amplitude_max: float = 3.0
    amplitude_count: int = 6
    seeds: int = option(1, "--seeds", "deformations per digit and amplitude", metavar="N")
    first_seed: int = option(0, "--first-seed", "first random seed", metavar="S")
    architecture: str = option("M1", "--arch", "architecture preset M1..M4", metavar="PRESET")
    reference_per_class: int = option(5, "--references", "reference digits per label for the "
                                      "same-/any-label levels (1..100)", metavar="N")

    def __post_init__(self):
        check_choice("family", self.family, limits.FAMILIES)
        if not isinstance(self.digits, tuple) or not self.digits:
            raise ValueError(f"digits must be a non-empty list of bundled indices in "
                             f"[0, {_N_BUNDLED - 1}], got {self.digits!r}")
        for d in self.digits:
            check_int("digits", d, (0, _N_BUNDLED - 1))
        check_distinct("digits", self.digits, "digit")
        lo, hi = limits.AMPLITUDE_RANGE
        for name in ("amplitude_min", "amplitude_max"):
            value = getattr(self, name)
            check_float(name, value, (lo, hi))
            if value <= lo:
                raise ValueError(f"{name} must be in ({lo:g}, {hi:g}] (log axis), got {value!r}")
        check_family_amplitude(self.family, self.amplitude_max, "amplitude_max")
        if self.amplitude_min > self.amplitude_max:
            raise ValueError(f"amplitude_min must be <= amplitude_max, got "
                             f"{self.amplitude_min:g} > {self.amplitude_max:g}")
        check_int("amplitude_count", self.amplitude_count, limits.AMPLITUDE_COUNT_RANGE)
        if self.amplitude_min == self.amplitude_max and self.amplitude_count > 1:
            raise ValueError(f"amplitude_count must be 1 when amplitude_min = amplitude_max "
                             f"= {self.amplitude_min:g}, got {self.amplitude_count}")
        check_int("seeds", self.seeds, limits.SWEEP_SEEDS_RANGE)
        check_int("first_seed", self.first_seed, (0, limits.SEED_RANGE[1] - limits.SWEEP_SEEDS_RANGE[1]))
        check_choice("architecture", self.architecture, limits.ARCH_PRESETS)
        check_int("reference_per_class", self.reference_per_class, limits.REFERENCES_RANGE)
        alone = [d for d in self.digits if d % limits.BUNDLED_PER_CLASS < self.reference_per_class]
        if len(alone) == len(self.digits) and self.reference_per_class == 1:
            raise ValueError(
                f"reference_per_class must be >= 2 for digits {', '.join(map(str, alone))}: with 1 "
                "each digit is its label's only reference and a digit is not compared with "
                "itself, so there is no same-label level; got 1")


def amplitudes(params: StabilityParams) -> tuple[float, ...]:
    """The swept amplitudes: ``amplitude_count`` values log-spaced (geometric) from
    ``amplitude_min`` to ``amplitude_max``, ends exact."""
    n, lo, hi = params.amplitude_count, params.amplitude_min, params.amplitude_max
    if n == 1:
        return (lo,)
    ratio = math.log(hi / lo)
    values = [lo * math.exp(ratio * k / (n - 1)) for k in range(n)]
    values[0], values[-1] = lo, hi
    return tuple(values)


def sweep_cost(params: StabilityParams) -> int:
    """Kernel evaluations of the sweep (deformed pairs plus reference pairs): a cost
    measure for deciding whether a sweep may start by itself."""
    n = len(params.digits)
    return n * params.seeds * params.amplitude_count + n * 10 * params.reference_per_class


class StabilityModel(ParamModel):
    """Model of the stability view (``ntkviz export stability`` fills the same one)."""

    Params = StabilityParams
    views = (View("stability", "relative distance against amplitude, log–log"),)

    @classmethod
    def build_request(cls, params: StabilityParams):
        """The :class:`ntkviz.jobs.StabilityRequest` of ``params`` (``iterate()`` yields
        progress with partial results; calling it returns the final ``SweepResult``)."""
        from ntkviz.core.conv.architecture import PRESETS
        from ntkviz.jobs import StabilityRequest

        return StabilityRequest(family=params.family, digits=params.digits,
                                amplitudes=amplitudes(params),
                                seeds=tuple(range(params.first_seed,
                                                  params.first_seed + params.seeds)),
                                architecture=PRESETS[params.architecture],
                                reference_per_class=params.reference_per_class)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states worth looking at: the default, tiny and huge amplitudes, every
        family, an architecture without NTK."""
        return {
            "default": {},
            "tiny_amplitudes": {"amplitude_min": 1e-4, "amplitude_max": 1e-2, "amplitude_count": 4},
            "huge_amplitudes": {"amplitude_min": 1.0, "amplitude_max": 500.0, "amplitude_count": 5},
            "rotation": {"family": "rotation", **family_defaults("rotation")},
            "infimnist": {"family": "infimnist", **family_defaults("infimnist")},
            "m4_no_ntk": {"architecture": "M4", "digits": [0, 100]},
        }
