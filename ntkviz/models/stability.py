"""Parameters of the Stability tab (Qt-free): two figures, each with its own job.

* **amplitude** (view ``stability``): a deformation family (or additive noise) swept over
  log-spaced amplitudes; the mean relative feature distance ``‖Φ(L_τ x) − Φ(x)‖ / ‖Φ(x)‖``
  of the chosen maps (CKN, convolutional NTK, scattering transform, Fourier modulus,
  pixels) against the amplitude, on log–log axes
  (:class:`ntkviz.jobs.StabilityRequest`);
* **sets** (view ``sets``, the paper's Fig. 1): one reference digit against four sets of
  digits (deformations with α = 3, translations and deformations with α = 1, digits of
  the same label, digits of any label), CKN and NTK side by side, mean ± standard error
  over each set, along a sweep whose default x axis is the last layer's
  pooling/subsampling factor (:class:`ntkviz.jobs.StabilitySetsRequest`).

``figure`` chooses the figure shown and ``fits`` overlays the stability theorems' bound
forms fitted to the measured points; both only change the drawing. Each figure depends
on its own fields (:data:`FIGURE_FIELDS`): a change of one figure's parameters leaves the
other's result drawn. :class:`StabilityModel` turns the parameters into either request;
the GUI view, sessions and ``ntkviz export stability`` fill this one model, so its ranges
are the only ones. Importing this module loads neither numba, scipy nor Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ntkviz import limits
from ntkviz._check import check_bool, check_choice, check_float, check_int
from ntkviz._text import check_distinct, parse_list
from ntkviz.core.deformations.set_specs import DEFAULT_SETS, parse_sets
from ntkviz.dataset._names import check_family_amplitude
from ntkviz.models._base import ParamModel
from ntkviz.models._options import Requires, View, option

__all__ = ["StabilityParams", "StabilityModel", "FAMILY_AXES", "FIGURES", "FIGURE_FIELDS",
           "SWEEP_VALUES", "family_defaults", "sweep_defaults", "parse_sweep", "check_sweep_values",
           "amplitudes",
           "sweep_cost"]

#: per family: (x-axis label, default smallest amplitude, default largest amplitude)
FAMILY_AXES = {
    "smooth": ("smooth-field amplitude (largest displacement, px)", 0.01, 3.0),
    "translation": ("translation (px)", 0.01, 3.0),
    "rotation": ("rotation (degrees)", 0.1, 30.0),
    "infimnist": ("Infinite-MNIST α", 0.01, 3.0),
    "dilation": ("dilation s = ‖∇τ‖∞, τ(u) = s·(u − centre)", 0.005, 0.5),
    "noise": ("additive noise ‖x′ − x‖ / ‖x‖ (random direction)", 0.001, 0.3),
}
assert tuple(FAMILY_AXES) == limits.SWEEP_FAMILIES
#: the figures of the tab: distance against amplitude, one digit against sets (Fig. 1)
FIGURES = ("amplitude", "sets")
#: the default values of each sweep of the sets figure
SWEEP_VALUES = {"last-pooling": (1.0, 2.0, 3.0, 5.0), "patch": (1.0, 3.0, 5.0), "layers": (1.0, 2.0, 3.0),
                "amplitude": (0.3, 1.0, 3.0)}
assert tuple(SWEEP_VALUES) == limits.STABILITY_SWEEPS
_N_BUNDLED = 10 * limits.BUNDLED_PER_CLASS
_A_LO, _A_HI = limits.AMPLITUDE_RANGE
_C_LO, _C_HI = limits.AMPLITUDE_COUNT_RANGE
_SETS_LO, _SETS_HI = limits.STABILITY_SET_COUNT_RANGE
#: options that apply to one figure only (``ntkviz export stability`` refuses them otherwise)
_SCATTERING_ONLY = Requires("maps", ("scattering",), "the scattering map only; --maps is {maps}")


def family_defaults(family: str) -> dict:
    """``{"amplitude_min": …, "amplitude_max": …}``: the default range of ``family``
    (empty for an unknown family, which the parameters then refuse by name)."""
    if family not in FAMILY_AXES:
        return {}
    _, lo, hi = FAMILY_AXES[family]
    return {"amplitude_min": lo, "amplitude_max": hi}


def sweep_defaults(sweep: str) -> dict:
    """``{"sweep_values": …}``: the default values of ``sweep`` (empty for an unknown sweep,
    which the parameters then refuse by name)."""
    return {"sweep_values": SWEEP_VALUES[sweep]} if sweep in SWEEP_VALUES else {}


def amplitude_option(flag: str, text: str) -> dict:
    """``MIN,MAX[,COUNT]`` -> the fields ``amplitude_min``, ``amplitude_max`` (and
    ``amplitude_count``); ranges are checked by the parameters."""
    values = parse_list(flag, text, float)
    if len(values) not in (2, 3):
        raise ValueError(f"{flag} must be MIN,MAX or MIN,MAX,COUNT, got {len(values)} numbers")
    out = {"amplitude_min": values[0], "amplitude_max": values[1]}
    if len(values) == 3:
        if not values[2].is_integer():
            raise ValueError(f"{flag} COUNT must be an integer, got {values[2]:g}")
        out["amplitude_count"] = int(values[2])
    return out


def parse_sweep(flag: str, text: str) -> dict:
    """``NAME`` or ``NAME:V1,V2,...`` -> the fields ``sweep`` and ``sweep_values`` (``NAME``
    alone: that sweep's default values, :data:`SWEEP_VALUES`). The names are
    ``limits.STABILITY_SWEEPS``; the values are checked by the parameters."""
    name, sep, rest = text.strip().partition(":")
    name = name.strip()
    if name not in limits.STABILITY_SWEEPS:
        raise ValueError(f"{flag} must be NAME or NAME:V1,V2,... with NAME among "
                         f"{', '.join(limits.STABILITY_SWEEPS)}, got {text!r}")
    if not sep:
        return {"sweep": name, **sweep_defaults(name)}
    kind = float if name == "amplitude" else int
    values = parse_list(f"{flag} {name}", rest, kind, allow_blank=False)
    return {"sweep": name, "sweep_values": check_sweep_values(f"{flag} {name} values", name, values)}


def check_sweep_values(name: str, sweep: str, values) -> tuple[float, ...]:
    """``values`` of ``sweep`` as floats: a non-empty list without repeats of integers in
    ``limits.LAYER_INT_RANGE`` (the architecture sweeps) or of α in [0, 1000]
    (``amplitude``); ``ValueError`` naming ``name`` otherwise."""
    if not isinstance(values, tuple) or not values:
        raise ValueError(f"{name} must be a non-empty list, got {values!r}")
    for v in values:
        if sweep == "amplitude":
            check_float(name, v, (0.0, limits.AMPLITUDE_RANGE[1]))
        else:
            check_int(name, v, limits.LAYER_INT_RANGE)
    check_distinct(name, values, "value")
    return tuple(float(v) for v in values)


def _digits(flag: str, text: str) -> tuple[int, ...]:
    return parse_list(flag, text, int)


def _names(flag: str, text: str) -> tuple[str, ...]:
    return parse_list(flag, text, str, allow_blank=False)


@dataclass(frozen=True)
class StabilityParams:
    """Parameters of the Stability tab.

    ``figure``: the figure shown, ``"amplitude"`` or ``"sets"`` (display only; each figure
    keeps its own result). ``fits``: overlay the stability theorems' bound forms, fitted by
    least squares to the measured points (display only). ``architecture``: the preset
    (M1–M4; M4's exp layers have no NTK) of both figures (the base architecture the sets
    figure's sweep modifies).

    Amplitude figure. ``digits``: indices into the bundled subset (label = index // 100).
    Each digit is deformed by a member of ``family`` at ``amplitude_count`` amplitudes
    log-spaced from ``amplitude_min`` to ``amplitude_max`` (px for smooth and translation,
    degrees for rotation, α for infimnist, s = ‖∇τ‖∞ for dilation, ‖x′ − x‖/‖x‖ for
    additive noise), with ``seeds`` random seeds from ``first_seed``; ``maps`` are the
    representations compared (``limits.MAPS``), the scattering transform with
    ``scattering_j`` and ``scattering_l``. The horizontal levels are the mean distances from
    the digits to the first ``reference_per_class`` bundled digits of their own label and
    of every label (a digit is never compared with itself).

    Sets figure (the paper's Fig. 1). The reference digit is digit ``reference_index`` of
    label ``reference_label``; ``sets`` are set names (``deform:α``,
    ``deform+translate:α``, ``same``, ``any``), each of ``set_size`` digits; ``sweep`` is
    the x axis (``limits.STABILITY_SWEEPS``) and ``sweep_values`` its values (integers for
    the architecture sweeps, α for ``amplitude``); ``infimnist_data`` is the user's
    Infinite-MNIST data folder (None: the bundled digits and ntkviz's own smooth fields).
    """

    figure: str = "amplitude"
    # ------------------------------------------------------------ the amplitude figure
    family: str = option("smooth", "--family", f"deformation family: {', '.join(limits.SWEEP_FAMILIES)} "
                         "(default smooth; noise: additive noise of relative size A)",
                         sets=family_defaults)
    digits: tuple[int, ...] = option((0, 100, 200, 300, 400, 500, 600, 700, 800, 900), "--digits",
                                     f"bundled digit indices 0..{_N_BUNDLED - 1}, comma-separated "
                                     "(index = 100 * label + i)", metavar="LIST", text=_digits)
    amplitude_min: float = option(
        0.01, "--amplitudes", f"log-spaced amplitude range in ({_A_LO:g}, {_A_HI:g}] (px, degrees, "
        f"alpha, s or relative noise) and count {_C_LO}..{_C_HI}; default: the family's range, 6 values",
        metavar="MIN,MAX[,COUNT]", text=amplitude_option,
        show=lambda p: f"{p.amplitude_min!r},{p.amplitude_max!r},{p.amplitude_count}")
    amplitude_max: float = 3.0
    amplitude_count: int = 6
    seeds: int = option(1, "--seeds", "deformations per digit and amplitude", metavar="N")
    first_seed: int = option(0, "--first-seed", "first random seed", metavar="S")
    architecture: str = option("M1", "--arch", "architecture preset M1..M4 (both figures)", metavar="PRESET")
    reference_per_class: int = option(5, "--references", "reference digits per label for the "
                                      "same-/any-label levels (1..100)", metavar="N")
    maps: tuple[str, ...] = option(limits.DEFAULT_MAPS, "--maps",
                                   f"representations compared, among {','.join(limits.MAPS)} (default "
                                   f"{','.join(limits.DEFAULT_MAPS)})", metavar="M1,M2,...", text=_names)
    scattering_j: int = option(2, "--scattering-j", "scattering map: averaging scale 2^J, J in "
                               "[{}, {}] (default 2)".format(*limits.SCATTERING_J_RANGE), metavar="J",
                               requires=_SCATTERING_ONLY)
    scattering_l: int = option(8, "--scattering-l", "scattering map: orientations in [{}, {}] "
                               "(default 8)".format(*limits.SCATTERING_L_RANGE), metavar="L",
                               requires=_SCATTERING_ONLY)
    # ------------------------------------------------------------ the sets figure (Fig. 1)
    reference_label: int = option(5, "--reference-label", "label of the reference digit (default 5, "
                                  "as the paper)", metavar="L")
    reference_index: int = option(0, "--reference-index", "which digit of that label (default 0: "
                                  "the first)", metavar="I")
    sets: tuple[str, ...] = option(DEFAULT_SETS, "--sets", "the sets (default deform:3,"
                                   "deform+translate:1,same,any): deform:α, deform+translate:α (each "
                                   "also moved by one pixel), same, any", metavar="SET,...", text=_names)
    set_size: int = option(20, "--set-size", "digits per set in [{}, {}] (default 20)".format(
        *limits.STABILITY_SET_SIZE_RANGE), metavar="N")
    sweep: str = option("last-pooling", "--sweep", "the x axis and its values (default "
                        "last-pooling:1,2,3,5): last-pooling, patch, layers (integers) or amplitude "
                        "(the deformation sets' α)", metavar="NAME:V1,V2,...", text=parse_sweep)
    sweep_values: tuple[float, ...] = SWEEP_VALUES["last-pooling"]
    infimnist_data: str | None = option(None, "--infimnist-data", "your Infinite-MNIST data folder "
                                        "(default: bundled digits and ntkviz's own smooth fields)",
                                        metavar="DIR")
    # ------------------------------------------------------------ display
    fits: bool = option(False, "--fits", "overlay the bound forms fitted by least squares to the "
                        "measured points (fits, not the theorems' constants)", value=True)

    def __post_init__(self):
        check_choice("figure", self.figure, FIGURES)
        check_bool("fits", self.fits)
        check_choice("architecture", self.architecture, limits.ARCH_PRESETS)
        self._check_amplitude_figure()
        self._check_sets_figure()

    def _check_amplitude_figure(self) -> None:
        check_choice("family", self.family, limits.SWEEP_FAMILIES)
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
        check_int("reference_per_class", self.reference_per_class, limits.REFERENCES_RANGE)
        alone = [d for d in self.digits if d % limits.BUNDLED_PER_CLASS < self.reference_per_class]
        if len(alone) == len(self.digits) and self.reference_per_class == 1:
            raise ValueError(
                f"reference_per_class must be >= 2 for digits {', '.join(map(str, alone))}: with 1 "
                "each digit is its label's only reference and a digit is not compared with "
                "itself, so there is no same-label level; got 1")
        if not isinstance(self.maps, tuple) or not self.maps:
            raise ValueError(f"maps must be a non-empty list among {', '.join(limits.MAPS)}, "
                             f"got {self.maps!r}")
        for m in self.maps:
            check_choice("maps", m, limits.MAPS)
        check_distinct("maps", self.maps, "map")
        check_int("scattering_j", self.scattering_j, limits.SCATTERING_J_RANGE)
        check_int("scattering_l", self.scattering_l, limits.SCATTERING_L_RANGE)
        if 2 ** self.scattering_j > 28:
            raise ValueError(f"scattering_j must be at most 4 for the 28×28 digits (2^J ≤ 28), "
                             f"got {self.scattering_j}")

    def _check_sets_figure(self) -> None:
        check_int("reference_label", self.reference_label, limits.DIGIT_LABEL_RANGE)
        check_int("reference_index", self.reference_index, limits.STABILITY_REFERENCE_INDEX_RANGE)
        if not isinstance(self.sets, tuple):
            raise ValueError(f"sets must be a list of set names, got {self.sets!r}")
        specs = parse_sets(self.sets)
        if not _SETS_LO <= len(specs) <= _SETS_HI:
            raise ValueError(f"sets must name {_SETS_LO} to {_SETS_HI} sets, got {len(specs)}")
        object.__setattr__(self, "sets", tuple(s.token for s in specs))  # "deform:3.0" reads deform:3
        check_int("set_size", self.set_size, limits.STABILITY_SET_SIZE_RANGE)
        check_choice("sweep", self.sweep, limits.STABILITY_SWEEPS)
        check_sweep_values(f"sweep_values ({self.sweep})", self.sweep, self.sweep_values)
        if self.infimnist_data is not None and (not isinstance(self.infimnist_data, str)
                                                or not self.infimnist_data.strip()):
            raise ValueError(f"infimnist_data must be a folder name or null, got {self.infimnist_data!r}")


#: the fields each figure is computed from (``figure`` and ``fits`` only change the drawing)
FIGURE_FIELDS = {
    "amplitude": ("family", "digits", "amplitude_min", "amplitude_max", "amplitude_count", "seeds",
                  "first_seed", "architecture", "reference_per_class", "maps", "scattering_j",
                  "scattering_l"),
    "sets": ("architecture", "reference_label", "reference_index", "sets", "set_size", "sweep",
             "sweep_values", "infimnist_data"),
}


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
    """Kernel evaluations of the amplitude sweep (deformed pairs plus reference pairs): a
    cost measure for deciding whether a sweep may start by itself."""
    n = len(params.digits)
    return n * params.seeds * params.amplitude_count + n * 10 * params.reference_per_class


class StabilityModel(ParamModel):
    """Model of the Stability tab (``ntkviz export stability`` fills the same one)."""

    Params = StabilityParams
    views = (View("stability", "relative distance against amplitude, log–log",
                  shows={"figure": "amplitude"}, needs={"figure": "amplitude"}),
             View("sets", "one digit against four sets, CKN and NTK side by side (the paper's Fig. 1)",
                  shows={"figure": "sets"}, needs={"figure": "sets"}))
    display_only = frozenset({"figure", "fits"})

    @classmethod
    def same_figure(cls, figure: str, a, b) -> bool:
        """Whether a result of ``figure`` computed for parameters ``a`` is one for ``b``
        (their :data:`FIGURE_FIELDS` of that figure are equal)."""
        return a is not None and b is not None and all(
            getattr(a, f) == getattr(b, f) for f in FIGURE_FIELDS[figure])

    @classmethod
    def build_request(cls, params: StabilityParams):
        """The request of the figure shown (``params.figure``): :meth:`figure_request`."""
        return cls.figure_request(params, params.figure)

    @classmethod
    def figure_request(cls, params: StabilityParams, figure: str):
        """The request of ``figure``: a :class:`ntkviz.jobs.StabilityRequest` (``iterate()``
        yields progress with partial results; calling it returns the ``SweepResult``) for
        ``"amplitude"``, a :class:`ntkviz.jobs.StabilitySetsRequest` (-> ``SetsResult``)
        for ``"sets"``."""
        from ntkviz.core.conv.architecture import PRESETS

        arch = PRESETS[params.architecture]
        if check_choice("figure", figure, FIGURES) == "sets":
            from ntkviz.jobs import StabilitySetsRequest

            values = tuple(v if params.sweep == "amplitude" else int(v) for v in params.sweep_values)
            return StabilitySetsRequest(reference_label=params.reference_label,
                                        reference_index=params.reference_index, sets=params.sets,
                                        set_size=params.set_size, sweep=params.sweep, values=values,
                                        architecture=arch, infimnist_data=params.infimnist_data)
        from ntkviz.jobs import StabilityRequest

        scattering = None
        if "scattering" in params.maps:
            from ntkviz.core.scattering.transform import ScatteringParams

            scattering = ScatteringParams(J=params.scattering_j, L=params.scattering_l)
        return StabilityRequest(family=params.family, digits=params.digits,
                                amplitudes=amplitudes(params),
                                seeds=tuple(range(params.first_seed,
                                                  params.first_seed + params.seeds)),
                                architecture=arch, reference_per_class=params.reference_per_class,
                                maps=params.maps, scattering=scattering)

    @classmethod
    def csv_table(cls, params: StabilityParams, response, view: str):
        """The plotted numbers: the response's table and, with ``fits`` on, the fitted bound
        forms (:func:`ntkviz.jobs._stability_fits.fit_columns`)."""
        header, rows = response.csv_table(view)
        if not params.fits:
            return header, rows
        from ntkviz.core.conv.architecture import PRESETS
        from ntkviz.jobs._stability_fits import fit_columns

        return fit_columns(response, PRESETS[params.architecture], header, rows)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states worth looking at: both figures' defaults, tiny and huge amplitudes,
        every family, the scattering and Fourier maps, an architecture without NTK, the
        sets figure along every sweep, one digit per set and the fitted bound forms."""
        sets = {"figure": "sets"}
        return {
            "default": {},
            "tiny_amplitudes": {"amplitude_min": 1e-4, "amplitude_max": 1e-2, "amplitude_count": 4},
            "huge_amplitudes": {"amplitude_min": 1.0, "amplitude_max": 500.0, "amplitude_count": 5},
            "rotation": {"family": "rotation", **family_defaults("rotation")},
            "infimnist": {"family": "infimnist", **family_defaults("infimnist")},
            "noise": {"family": "noise", **family_defaults("noise"), "fits": True},
            "dilation_maps": {"family": "dilation", **family_defaults("dilation"),
                              "maps": ["ckn", "ntk", "scattering", "fourier", "pixels"]},
            "fits": {"fits": True},
            "m4_no_ntk": {"architecture": "M4", "digits": [0, 100]},
            "sets_default": sets,
            "sets_amplitude_fits": {**sets, "sweep": "amplitude", "sweep_values": [0.3, 1.0, 3.0],
                                    "fits": True},
            "sets_layers": {**sets, "sweep": "layers", "sweep_values": [1, 2, 3]},
            "sets_patch": {**sets, "sweep": "patch", "sweep_values": [1, 3, 5]},
            "sets_m4": {**sets, "architecture": "M4"},
            "sets_one_digit": {**sets, "set_size": 1},
            "sets_last_pooling_1_to_6": {**sets, "sweep_values": [1, 2, 3, 4, 5, 6]},
        }
