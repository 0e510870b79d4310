"""Parameters of the Scattering tab (Qt-free): the Morlet filter bank, the scattering
coefficients of one image and Mallat's Fourier-modulus counterexample.

The tab draws, for the scattering transform ``S_J`` of
:mod:`ntkviz.core.scattering` (``J`` scales, ``L`` orientations, orders up to ``order``,
``padding``):

* the wavelets ``psi_{j,theta}`` and the low-pass ``phi_J`` in space, their Fourier
  transforms on the frequency plane with the Littlewood-Paley sum, and that sum along the
  frequency axes with its frame bounds;
* the coefficients of the image ``x`` as images per (scale, orientation): order 1 tiled by
  (j, theta), order 2 of the scales (``j1``, ``j2``) tiled by (theta1, theta2);
* the counterexample: the Gabor probe (64 px, sigma = 8 px) dilated by ``tau(u) = s u`` for
  the wave numbers ``omega0s`` and the dilations s (``dilation_min`` .. ``dilation_max``,
  ``dilation_count`` log-spaced): the Fourier-modulus distance grows like ``omega0 s``, the
  scattering distance like ``s``.

:class:`ScatteringModel` turns the parameters into a :class:`ntkviz.jobs.ScatteringViewRequest`;
the GUI view, sessions and ``ntkviz export scattering`` fill this one model. Importing this
module loads neither numba, scipy nor Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from ntkviz import limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz.core.deformations.probes import GABOR_ANGLE_DEG, OMEGA0_RANGE  # numpy
from ntkviz.models._base import ParamModel
from ntkviz.models._options import Requires, View, option
from ntkviz.models._sources import (GABOR_PREFIX, SOURCES, checked_source, gabor_caption,
                                    gabor_option, radians_list)

__all__ = ["ScatteringTabParams", "ScatteringModel", "SOURCES", "PADDINGS", "PROBE_SIDE",
           "dilations", "image_shape", "max_j"]

#: = ntkviz.core.scattering.transform.PADDINGS (not imported: that module loads scipy)
PADDINGS = ("zero", "reflect", "periodic")
#: side (px) of the Gabor probe (= ntkviz.jobs._scattering.PROBE_SHAPE)
PROBE_SIDE = 64
_DIGIT_SIDE = 28
_DIGIT_INDEX_RANGE = (0, limits.BUNDLED_PER_CLASS - 1)
_OMEGA0S_MAX = 8
_DILATION_COUNT_RANGE = (2, 20)


def _image_option(flag: str, path: str) -> dict:
    """``--image FILE`` (any size: grey-scaled, padded to a square, area-averaged to at most
    ``SCATTERING_IMAGE_MAX`` px) or ``--image gabor:omega0=W``."""
    from pathlib import Path

    if path.startswith(GABOR_PREFIX):
        return {"source": "gabor", "gabor_omega0": gabor_option(flag, path[len(GABOR_PREFIX):])}
    from ntkviz.core.deformations.digits import load_user_image

    try:
        image, _note = load_user_image(path, max_side=limits.SCATTERING_IMAGE_MAX)
    except ValueError as exc:
        raise ValueError(f"{flag} {exc}") from None
    return {"source": "image", "user_pixels": image.tolist(), "user_name": Path(path).name}


def _dilations_option(flag: str, text: str) -> dict:
    """``MIN,MAX[,COUNT]`` -> ``dilation_min``, ``dilation_max`` (and ``dilation_count``)."""
    from ntkviz._text import parse_list

    values = parse_list(flag, text, float)
    if len(values) not in (2, 3):
        raise ValueError(f"{flag} must be MIN,MAX or MIN,MAX,COUNT, got {len(values)} numbers")
    out = {"dilation_min": values[0], "dilation_max": values[1]}
    if len(values) == 3:
        if not values[2].is_integer():
            raise ValueError(f"{flag} COUNT must be an integer, got {values[2]:g}")
        out["dilation_count"] = int(values[2])
    return out


_DIGIT_ONLY = Requires("source", ("digit",), "a bundled digit only: --image replaces it")


@dataclass(frozen=True)
class ScatteringTabParams:
    """Scattering-tab parameters.

    Transform: ``J`` (averaging and sampling at ``2^J`` px, at most the image's side;
    ``padding="periodic"`` needs sides that are multiples of ``2^J``), ``L`` orientations,
    highest ``order`` (0-2), ``padding`` (``zero``, ``reflect``, ``periodic``), as
    :class:`ntkviz.core.scattering.transform.ScatteringParams`.

    Image (``source``): ``"digit"``, the bundled digit ``index`` of class ``label``
    (28 × 28); ``"image"``, the user's image in ``user_pixels`` (rows of grey values in
    [0, 1], any size up to ``SCATTERING_IMAGE_MAX``; ``user_name`` its file); ``"gabor"``,
    the 64 × 64 Gabor probe (sigma = 8 px, wave vector at 22.5 deg) of wave number
    ``gabor_omega0`` (radians per px).

    Display only: ``j1``, ``j2`` (0 <= j1 < j2), the scales of the order-2 grid (it exists
    when ``order`` is 2 and ``j2 < J``).

    Counterexample: the probe's wave numbers ``omega0s`` (1-8 distinct values in
    (0, pi sqrt 2]) and ``dilation_count`` dilations s log-spaced from ``dilation_min`` to
    ``dilation_max`` (in (0, 0.95]); the distances against omega0 are at the largest s.
    """

    J: int = option(2, "--J", "averaging scale 2^J (px), J in {}..{} with 2^J at most the image "
                    "side (default 2)".format(*limits.SCATTERING_J_RANGE))
    L: int = option(8, "--L", "orientations in [0, pi), {}..{} (default 8)".format(
        *limits.SCATTERING_L_RANGE))
    order: int = option(2, "--order", "highest order of the coefficients, 0..2 (default 2)")
    padding: str = option("zero", "--padding", "zero (the image vanishes outside), reflect "
                          "(kymatio's) or periodic (default zero)", choices=PADDINGS)
    source: str = "digit"
    label: int = option(3, "--label", "class of the bundled digit, 0..9 (default 3)",
                        requires=_DIGIT_ONLY)
    index: int = option(0, "--index", f"index within the class, 0..{_DIGIT_INDEX_RANGE[1]} "
                        "(default 0)", requires=_DIGIT_ONLY)
    user_name: str = ""
    user_pixels: Optional[tuple[tuple[float, ...], ...]] = option(
        None, "--image", f"your own image: .npy (H, W) array or PNG/JPEG/BMP, any size (padded to "
        f"a square, area-averaged to at most {limits.SCATTERING_IMAGE_MAX} px); or gabor:omega0=W, "
        f"the {PROBE_SIDE}-px Gabor probe of wave number W (radians per px, e.g. pi/2)",
        metavar="FILE", text=_image_option)
    gabor_omega0: float = math.pi / 2
    j1: int = option(0, "--j1", "order-2 view: first scale j1 (default 0)")
    j2: int = option(1, "--j2", "order-2 view: second scale j2, j1 < j2 < J (default 1)")
    omega0s: tuple[float, ...] = option(
        (math.pi / 4, math.pi / 2, math.pi), "--omega0s", "counterexample: the probe's wave "
        f"numbers, radians per px in (0, {OMEGA0_RANGE[1]:.4g}], comma-separated (default "
        "pi/4,pi/2,pi)", metavar="LIST", text=radians_list)
    dilation_min: float = option(
        0.005, "--dilations", "counterexample: dilations s = ||grad tau||_inf, log-spaced, "
        "MIN,MAX[,COUNT] in (0, {:g}] (default 0.005,0.05,5)".format(limits.DILATION_RANGE[1]),
        metavar="MIN,MAX[,COUNT]", text=_dilations_option)
    dilation_max: float = 0.05
    dilation_count: int = 5

    def __post_init__(self):
        for name, bounds in (("J", limits.SCATTERING_J_RANGE), ("L", limits.SCATTERING_L_RANGE),
                             ("order", (0, 2))):
            check_int(name, getattr(self, name), bounds)
        check_choice("padding", self.padding, PADDINGS)
        check_int("label", self.label, limits.DIGIT_LABEL_RANGE)
        check_int("index", self.index, _DIGIT_INDEX_RANGE)
        if not isinstance(self.user_name, str):
            raise ValueError(f"user_name must be a string, got {self.user_name!r}")
        checked_source(self, OMEGA0_RANGE, max_side=limits.SCATTERING_IMAGE_MAX)
        self.scattering_params().grid(*image_shape(self))   # J (and padding) fit the image
        check_int("j1", self.j1, (0, limits.SCATTERING_J_RANGE[1] - 2))
        check_int("j2", self.j2, (1, limits.SCATTERING_J_RANGE[1] - 1))
        if self.j2 <= self.j1:
            raise ValueError(f"j2 must be > j1 = {self.j1}, got {self.j2}")
        if not isinstance(self.omega0s, tuple) or not 1 <= len(self.omega0s) <= _OMEGA0S_MAX:
            raise ValueError(f"omega0s must hold 1..{_OMEGA0S_MAX} wave numbers, got {self.omega0s!r}")
        lo, hi = OMEGA0_RANGE
        for w in self.omega0s:
            check_float("omega0s", w, OMEGA0_RANGE)
            if w <= lo:
                raise ValueError(f"omega0s must be in ({lo:g}, {hi:.4g}] (log axis), got {w!r}")
        if len(set(self.omega0s)) != len(self.omega0s):
            raise ValueError(f"omega0s must not repeat a value, got {list(self.omega0s)}")
        d_lo, d_hi = limits.DILATION_RANGE
        for name in ("dilation_min", "dilation_max"):
            value = check_float(name, getattr(self, name), limits.DILATION_RANGE)
            if value <= d_lo:
                raise ValueError(f"{name} must be in ({d_lo:g}, {d_hi:g}] (log axis), got {value!r}")
        if self.dilation_min >= self.dilation_max:
            raise ValueError(f"dilation_min must be < dilation_max (a slope needs two dilations), "
                             f"got {self.dilation_min:g} >= {self.dilation_max:g}")
        check_int("dilation_count", self.dilation_count, _DILATION_COUNT_RANGE)

    def scattering_params(self):
        """The :class:`~ntkviz.core.scattering.transform.ScatteringParams` (loads scipy)."""
        from ntkviz.core.scattering.transform import ScatteringParams

        return ScatteringParams(J=self.J, L=self.L, order=self.order, padding=self.padding)

    def caption(self) -> str:
        """What the image is, in one line (no computation)."""
        if self.source == "image":
            h, w = image_shape(self)
            return f"{self.user_name or 'your image'} ({w}×{h} px)"
        if self.source == "gabor":
            return gabor_caption(self.gabor_omega0, PROBE_SIDE, GABOR_ANGLE_DEG)
        return f"MNIST digit {self.label}, #{self.index}"

    def image(self):
        """The image ``(H, W)`` float64 the tab transforms."""
        import numpy as np

        if self.source == "image":
            return np.array(self.user_pixels, dtype=np.float64)
        if self.source == "gabor":
            from ntkviz.core.deformations.probes import gabor_image

            return gabor_image((PROBE_SIDE, PROBE_SIDE), self.gabor_omega0)
        from ntkviz.core.deformations.digits import digit_image

        return digit_image(self.label, self.index)


def image_shape(params: ScatteringTabParams) -> tuple[int, int]:
    """``(H, W)`` of the image of ``params`` (no computation)."""
    if params.source == "image":
        return len(params.user_pixels), len(params.user_pixels[0])
    side = PROBE_SIDE if params.source == "gabor" else _DIGIT_SIDE
    return side, side


def max_j(shape: tuple[int, int]) -> int:
    """The largest J whose ``2^J`` fits the smaller side of ``shape`` (and the J range)."""
    return max(1, min(limits.SCATTERING_J_RANGE[1], int(math.log2(min(shape)))))


def dilations(params: ScatteringTabParams) -> tuple[float, ...]:
    """``dilation_count`` dilations log-spaced from ``dilation_min`` to ``dilation_max``, ends exact."""
    n, lo, hi = params.dilation_count, params.dilation_min, params.dilation_max
    values = [lo * (hi / lo) ** (k / (n - 1)) for k in range(n)]
    values[0], values[-1] = lo, hi
    return tuple(values)


class _Order2View(View):
    """The order-2 grid exists for ``order == 2`` and ``j2 < J``."""

    def available(self, params) -> bool:
        return params.order == 2 and params.j2 < params.J


class ScatteringModel(ParamModel):
    """Model of the Scattering tab (``ntkviz export scattering`` fills the same one)."""

    Params = ScatteringTabParams
    display_only = frozenset({"j1", "j2"})
    views = (
        View("wavelets", "the Morlet wavelets and the low-pass filter in space (real parts)"),
        View("frequency", "the filters in the frequency plane: Littlewood-Paley sum and "
                          "half-maximum contours"),
        View("littlewood_paley", "the Littlewood-Paley sum along the frequency axes, with its "
                                 "frame bounds"),
        View("coefficients", "scattering coefficients of orders 0 and 1, per (scale, orientation)"),
        _Order2View("order2", "order-2 coefficients of the scales (j1, j2), per (θ1, θ2)"),
        View("dilation", "counterexample: Fourier-modulus and scattering distances against the "
                         "dilation s, per ω0"),
        View("omega0", "counterexample: the distances against ω0 at the largest s"),
    )

    @classmethod
    def build_request(cls, params: ScatteringTabParams):
        """The :class:`ntkviz.jobs.ScatteringViewRequest` of ``params``."""
        from ntkviz.jobs import ScatteringViewRequest

        return ScatteringViewRequest(params.image(), params.scattering_params(),
                                     omega0s=params.omega0s, dilations=dilations(params),
                                     caption=params.caption())

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """The default, J = 1 and 3, L = 4 and 16, orders 0 and 1, reflect and periodic
        padding, the probe at ω0 = π/4, π/2, π, and an odd-sized (33 × 37) user image."""
        cases = {
            "default": {},
            "J1": {"J": 1},
            "J3": {"J": 3, "j1": 1, "j2": 2},
            "L4": {"L": 4},
            "L16": {"L": 16},
            "order0": {"order": 0},
            "order1": {"order": 1},
            "reflect": {"padding": "reflect", "label": 7},
            "periodic_J2": {"padding": "periodic", "label": 5, "index": 4},
        }
        for name, w in (("probe_pi4", math.pi / 4), ("probe_pi2", math.pi / 2), ("probe_pi", math.pi)):
            cases[name] = {"source": "gabor", "gabor_omega0": w, "J": 3}
        cases["odd_user_image"] = {"source": "image", "user_name": "odd.npy",
                                   "user_pixels": _odd_image()}
        return cases


def _odd_image() -> list:
    """A bundled digit (class 2) framed to an odd 33 × 37 image (gallery)."""
    import numpy as np

    from ntkviz.core.deformations.digits import digit_image

    return np.pad(digit_image(2, 1), ((2, 3), (4, 5))).tolist()
