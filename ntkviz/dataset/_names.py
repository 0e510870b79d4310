"""Names and ranges of the dataset tools (standard library only: no numpy, numba, scipy)."""
from __future__ import annotations

import math

from ntkviz import limits

__all__ = ["KERNELS", "ALL_KERNELS", "FEATURE_KERNELS", "DEFORM_FAMILIES", "FAMILY_RANGES", "check_amplitude",
           "check_family_amplitude"]

#: the kernels the classification panel draws
KERNELS = ("ckn", "ntk", "pixels")
#: every kernel a classification accepts: KERNELS and the Gaussian kernel on scattering coefficients
ALL_KERNELS = ("ckn", "ntk", "pixels", "scattering")
#: Gaussian kernels on explicit features (median-distance bandwidth): pixels, scattering coefficients
FEATURE_KERNELS = ("pixels", "scattering")
#: deformation family -> field of :class:`ntkviz.core.deformations.deform.Deformation` its amplitude sets
DEFORM_FAMILIES = {"rotation": "rotation_deg", "translation": "translate_x", "scale": "scale",
                   "shear": "shear", "smooth": "smooth_amplitude", "infimnist": "infimnist_alpha"}
#: family -> (allowed amplitude range, unit)
FAMILY_RANGES = {"rotation": (limits.ROTATION_RANGE, "degrees"),
                 "translation": (limits.TRANSLATE_RANGE, "px"),
                 "scale": (limits.SCALE_RANGE, "zoom factor"),
                 "shear": (limits.SHEAR_RANGE, "shear factor"),
                 "smooth": (limits.SMOOTH_AMPLITUDE_RANGE, "px"),
                 "infimnist": (limits.INFIMNIST_ALPHA_RANGE, "α"),
                 "dilation": (limits.DILATION_RANGE, "(s = ||∇τ||∞)"),
                 "noise": (limits.AMPLITUDE_RANGE, "(||x' - x|| / ||x||)")}


def check_amplitude(family: str, amplitude) -> float:
    """``amplitude`` as float if allowed for ``family``, else ``ValueError`` with the range."""
    (lo, hi), unit = FAMILY_RANGES[family]
    if isinstance(amplitude, bool) or not isinstance(amplitude, (int, float)) \
            or not (math.isfinite(amplitude) and lo <= amplitude <= hi):
        raise ValueError(f"{family} amplitude must be in [{lo:g}, {hi:g}] {unit}, got {amplitude!r}")
    return float(amplitude)


def check_family_amplitude(family: str, amplitude: float, name: str) -> None:
    """``ValueError("<name> must be at most <top> <unit> for the <family> family, got …")`` when
    a (positive) sweep amplitude is beyond what ``family`` allows (rotation: 360 degrees);
    ``name`` is what the user set (an option or a field), never the deformation's own field."""
    (_, hi), unit = FAMILY_RANGES[family]
    if amplitude > hi:
        raise ValueError(f"{name} must be at most {hi:g} {unit} for the {family} family, got {amplitude:g}")
