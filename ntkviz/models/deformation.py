"""Parameters of the deformation editor (Qt-free).

The editor deforms one image ``x`` (a bundled MNIST digit, the user's own image
resampled to 28×28, or the Gabor probe of the Fourier-modulus counterexample) by a
displacement field τ, ``L_τ x(u) = x(u − τ(u))``, and compares the relative feature
distances ``‖Φ(L_τ x) − Φ(x)‖ / ‖Φ(x)‖`` of a convolutional kernel network (CKN), of
the convolutional NTK of an architecture, of the scattering transform, of the Fourier
modulus and of the pixels. :class:`DeformationModel` turns the parameters into a
:class:`ntkviz.jobs.DeformRequest`; the GUI view, sessions and
``ntkviz export deformation`` all fill this one model, so its ranges (those of
:mod:`ntkviz.limits`) are the only ones. Importing this module loads neither
numba, scipy nor Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Optional

from ntkviz import limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz.core.deformations.deform import DEFORMATION_FIELDS, Deformation  # numpy, no scipy
from ntkviz.core.deformations.maps import MAPS, check_maps  # numpy
from ntkviz.core.deformations.probes import GABOR_ANGLE_DEG, OMEGA0_RANGE  # numpy
from ntkviz.models._base import ParamModel
from ntkviz.models._options import Option, Requires, View, option
from ntkviz.models._sources import GABOR_PREFIX, SOURCES, checked_source, gabor_caption, gabor_option

__all__ = ["DeformationParams", "DeformationModel", "DEFORMATION_FIELDS", "CUSTOM",
           "LayerSpec", "map_sizes", "CONTEXT_FIELDS", "SOURCES", "GABOR_PREFIX", "EDITOR_J_MAX"]

#: preset name meaning "the layers given in ``layers``"
CUSTOM = "custom"
#: a layer as (patch side, subsampling, pooling, patch kernel, exp bandwidth σ, pool factor or None)
LayerSpec = tuple[int, int, str, str, float, Optional[int]]

_DIGIT_INDEX_RANGE = (0, limits.BUNDLED_PER_CLASS - 1)
_USER_SIDE = 28  # = ntkviz.core.deformations.digits.DIGIT_SIZE (not imported: that module loads numpy)
#: the fields that change the context distances (the digit and the architecture)
CONTEXT_FIELDS = ("label", "index", "user_pixels", "preset", "layers", "patch_normalization",
                  "even_patch_offsets", "source", "scattering_j", "scattering_l",
                  "initial_pooling_sigma")
#: the largest scattering J on the 28×28 image (2^J at most its side)
EDITOR_J_MAX = int(math.log2(_USER_SIDE))
#: reference digits per label of the context distances
CONTEXT_PER_CLASS = 30
#: export size (pixels) of the image views: the square picture beside its colour bar
_IMAGE_SIZE = (800, 600)


def _image_option(flag: str, path: str) -> dict:
    """``--image FILE``: the user's image prepared like the app's (area-averaged to 28×28);
    ``--image gabor:omega0=W``: the Gabor probe of wave number W (radians per px)."""
    from pathlib import Path

    if path.startswith(GABOR_PREFIX):
        return {"source": "gabor", "gabor_omega0": gabor_option(flag, path[len(GABOR_PREFIX):])}
    from ntkviz.core.deformations.digits import load_user_image

    try:
        image, _note = load_user_image(path)
    except ValueError as exc:
        raise ValueError(f"{flag} {exc}") from None
    return {"source": "image", "user_pixels": image.tolist(), "user_name": Path(path).name}


def _maps_option(flag: str, text: str) -> tuple[str, ...]:
    from ntkviz._text import parse_list

    return check_maps(parse_list(flag, text, str, choices=MAPS), flag)


#: bundled-digit options: not with --image
_BUNDLED_ONLY = Requires("source", ("digit",), "a bundled digit only: --image replaces it")


@dataclass(frozen=True)
class DeformationParams(Deformation):
    """Deformation-editor parameters: the fields of
    :class:`ntkviz.core.deformations.deform.Deformation`, then the digit and the architecture.

    Image ``x`` (``source``): ``"digit"``, the bundled MNIST digit ``index`` (0–99) of class
    ``label``; ``"image"``, the user's own image in ``user_pixels`` (28 rows of 28 grey
    values in [0, 1], light digit on dark, as
    :func:`ntkviz.core.deformations.digits.prepare_user_image` makes it; ``user_name`` is its
    file name, for the caption; its class is unknown; a session that gives ``user_pixels``
    without ``source`` means ``"image"``); ``"gabor"``, the Gabor probe
    :func:`ntkviz.core.deformations.probes.gabor_image` on 28×28 pixels (σ = 3.5 px, wave
    vector at 22.5°) with wave number ``gabor_omega0`` (radians per px), deformed by exact
    sampling (no interpolation).

    Deformation τ (conventions of :mod:`ntkviz.core.deformations.deform`; fields summed):
    ``translate_x``/``translate_y`` px (+ right / + down), ``rotation_deg``
    (counter-clockwise), ``scale`` (zoom about the centre), ``shear`` (px per row),
    a smooth random field (``smooth_amplitude`` px, ``smooth_length`` px,
    ``smooth_seed``) and an Infinite-MNIST style term (``infimnist_alpha``,
    ``infimnist_seed``); ``dilation`` s adds the dilation τ(u) = s (u − c) of the
    counterexample (composed with ``scale``: the content is magnified by
    ``scale / (1 − s)``, so ‖∇τ‖∞ = s when ``scale`` is 1).

    Maps: the scattering read-out uses J = ``scattering_j`` (1–4: 2^J at most 28) and
    L = ``scattering_l`` orientations (order 2, zero padding); ``maps`` (display only) are
    the maps whose read-outs and context bars are shown.

    Architecture: the layers of ``preset`` (M1–M4) or, for ``preset = "custom"``,
    ``layers`` (one :data:`LayerSpec` per layer); ``patch_normalization`` ``"sum"``
    (the CKN reference code) or ``"mean"`` (the paper's 1/|S|); ``even_patch_offsets``
    (``limits.EVEN_PATCH_OFFSETS``) ``"reference"`` (an even patch side s sums offsets
    {−s/2, …, s/2 − 1}, s = 2: {−1, 0}, the CKN reference code) or ``"same"``
    ({−s/2 + 1, …, s/2}, s = 2: {0, 1}, neural-tangents' 'SAME' padding);
    ``initial_pooling_sigma`` (σ₀, px) adds the stability theorems' initial anti-aliasing
    pooling A₀ (a Gaussian filter without subsampling before the first layer), None: no A₀.

    The deformation fields are checked by :class:`Deformation` itself
    (:data:`DEFORMATION_FIELDS`), the custom layers by the core's ``Layer``.
    """

    label: int = option(0, "--label", "class of the bundled digit, 0..9 (default 0)",
                        requires=_BUNDLED_ONLY)
    index: int = option(0, "--index", f"index within the class, 0..{limits.BUNDLED_PER_CLASS - 1} "
                        "(default 0)", requires=_BUNDLED_ONLY)
    user_name: str = ""
    user_pixels: Optional[tuple[tuple[float, ...], ...]] = option(
        None, "--image", "your own image instead: .npy (H, W) array, or PNG/JPEG/BMP with Pillow "
        "installed; any size (area-averaged to 28x28 like the app); or gabor:omega0=W, the Gabor "
        "probe of wave number W (radians per px, e.g. pi/2)", metavar="FILE",
        text=_image_option)
    source: str = "digit"
    gabor_omega0: float = math.pi / 2
    dilation: float = option(0.0, "--dilation", "dilation tau(u) = s (u - c), s = ||grad tau||_inf "
                             "in {:g}..{:g} (composed with --scale)".format(*limits.DILATION_RANGE),
                             metavar="S")
    scattering_j: int = option(2, "--scattering-j", f"scattering read-out: averaging scale 2^J, J in "
                               f"1..{EDITOR_J_MAX} (default 2)", metavar="J")
    scattering_l: int = option(8, "--scattering-l", "scattering read-out: orientations L in "
                               "{}..{} (default 8)".format(*limits.SCATTERING_L_RANGE), metavar="L")
    maps: tuple[str, ...] = option(MAPS, "--maps", f"maps shown in the read-outs and the context "
                                   f"view, comma-separated among {','.join(MAPS)} (default all)",
                                   metavar="LIST", text=_maps_option)
    preset: str = option("M1", "--arch", "architecture preset M1..M4", metavar="PRESET")
    layers: tuple[LayerSpec, ...] = ()
    patch_normalization: str = "sum"
    even_patch_offsets: str = option("reference", "--even-offsets", "offsets of even patch sides: "
                                     "reference ({-1, 0} for s = 2) or same ({0, 1})")
    initial_pooling_sigma: Optional[float] = option(
        None, "--sigma0", "initial anti-aliasing pooling A0: a Gaussian filter of this standard deviation "
        "(px, {:g}..{:g}) before the first layer (default: none)".format(*limits.INITIAL_POOLING_SIGMA_RANGE),
        metavar="PX")

    #: options of the deformation's fields (``ntkviz export deformation``)
    OPTIONS = {
        "translate_x": Option("--translate-x", "shift right, px, {:g}..{:g}".format(*limits.TRANSLATE_RANGE)),
        "translate_y": Option("--translate-y", "shift down, px, {:g}..{:g}".format(*limits.TRANSLATE_RANGE)),
        "rotation_deg": Option("--rotation", "degrees, counter-clockwise, {:g}..{:g}".format(
            *limits.ROTATION_RANGE)),
        "scale": Option("--scale", "zoom about the centre (1 = none), {:g}..{:g}".format(
            *limits.SCALE_RANGE)),
        "shear": Option("--shear", "horizontal shear factor, {:g}..{:g}".format(*limits.SHEAR_RANGE)),
        "smooth_amplitude": Option("--smooth", "smooth random field amplitude, px, {:g}..{:g}".format(
            *limits.SMOOTH_AMPLITUDE_RANGE)),
        "smooth_length": Option("--smooth-length", "smooth field correlation length, px, "
                                "{:g}..{:g}".format(*limits.SMOOTH_LENGTH_RANGE)),
        "smooth_seed": Option("--smooth-seed", "smooth field seed, {:g}..{:g}".format(
            *limits.SEED_RANGE)),
        "infimnist_alpha": Option("--alpha", "Infinite-MNIST style alpha, {:g}..{:g}".format(
            *limits.INFIMNIST_ALPHA_RANGE)),
        "infimnist_seed": Option("--alpha-seed", "Infinite-MNIST style seed, {:g}..{:g}".format(
            *limits.SEED_RANGE)),
    }

    def __post_init__(self):
        super().__post_init__()  # the deformation fields
        check_int("label", self.label, limits.DIGIT_LABEL_RANGE)
        check_int("index", self.index, _DIGIT_INDEX_RANGE)
        if not isinstance(self.user_name, str):
            raise ValueError(f"user_name must be a string, got {self.user_name!r}")
        checked_source(self, OMEGA0_RANGE, (_USER_SIDE, _USER_SIDE))
        object.__setattr__(self, "dilation", check_float("dilation", self.dilation,
                                                         limits.DILATION_RANGE))
        if self.scale / (1.0 - self.dilation) > limits.SCALE_RANGE[1]:
            raise ValueError(f"dilation must keep scale / (1 - dilation) <= {limits.SCALE_RANGE[1]:g} "
                             f"(the largest zoom), got scale {self.scale:g} and dilation "
                             f"{self.dilation:g}")
        check_int("scattering_j", self.scattering_j, (limits.SCATTERING_J_RANGE[0], EDITOR_J_MAX))
        check_int("scattering_l", self.scattering_l, limits.SCATTERING_L_RANGE)
        object.__setattr__(self, "maps", check_maps(self.maps))
        choices = (*limits.ARCH_PRESETS, CUSTOM)
        check_choice("preset", self.preset, choices)
        check_choice("patch_normalization", self.patch_normalization, limits.PATCH_NORMALIZATIONS)
        check_choice("even_patch_offsets", self.even_patch_offsets, limits.EVEN_PATCH_OFFSETS)
        if self.initial_pooling_sigma is not None:
            check_float("initial_pooling_sigma", self.initial_pooling_sigma, limits.INITIAL_POOLING_SIGMA_RANGE)
        if self.preset == CUSTOM:
            _check_layers(self.layers)
        elif self.layers:
            raise ValueError(f"layers must be empty unless preset is '{CUSTOM}' (preset "
                             f"{self.preset} has its own layers), got {len(self.layers)} layer(s)")

    # ------------------------------------------------------------- derived
    @property
    def is_user_image(self) -> bool:
        return self.source == "image"

    @property
    def is_probe(self) -> bool:
        """x is the Gabor probe (no class, no context distances)."""
        return self.source == "gabor"

    def deformation_values(self) -> dict:
        """The fields of :class:`ntkviz.core.deformations.deform.Deformation`, and ``dilation``
        (the values *Reset* restores)."""
        return {**{f.name: getattr(self, f.name) for f in fields(Deformation)}, "dilation": self.dilation}

    def deformation(self) -> Deformation:
        """The deformation alone (a plain :class:`ntkviz.core.deformations.deform.Deformation`):
        the dilation folded into the zoom, ``scale / (1 − dilation)``."""
        values = {f.name: getattr(self, f.name) for f in fields(Deformation)}
        if self.dilation:
            values["scale"] = self.scale / (1.0 - self.dilation)
        return Deformation(**values)

    def scattering_params(self):
        """The :class:`~ntkviz.core.scattering.transform.ScatteringParams` of the read-out."""
        from ntkviz.core.scattering.transform import ScatteringParams

        return ScatteringParams(J=self.scattering_j, L=self.scattering_l)

    def layer_specs(self) -> tuple[LayerSpec, ...]:
        """The architecture's layers (the preset's, or ``layers`` for custom)."""
        if self.preset == CUSTOM:
            return self.layers
        from ntkviz.core.conv.architecture import PRESETS

        return tuple(_spec(lay) for lay in PRESETS[self.preset].layers)

    def architecture(self):
        """The :class:`ntkviz.core.conv.architecture.Architecture` (loads the numeric core)."""
        from ntkviz.core.conv.architecture import Architecture, Layer

        layers = tuple(Layer(*spec) for spec in self.layer_specs())
        return Architecture(layers, self.patch_normalization, self.even_patch_offsets,
                            self.initial_pooling_sigma)

    def caption(self) -> str:
        """What x is, in one line (no computation)."""
        if self.source == "image":
            return f"{self.user_name or 'your image'} (class unknown)"
        if self.source == "gabor":
            return gabor_caption(self.gabor_omega0, _USER_SIDE, GABOR_ANGLE_DEG)
        return f"MNIST digit: class {self.label}, #{self.index} of the bundled subset"

    def digit(self):
        """``(image (28, 28) float64, label or None, caption)``: values in [0, 1], the Gabor
        probe's in [−1, 1]."""
        import numpy as np

        if self.source == "image":
            return np.array(self.user_pixels, dtype=np.float64), None, self.caption()
        if self.source == "gabor":
            from ntkviz.core.deformations.probes import gabor_image

            return gabor_image((_USER_SIDE, _USER_SIDE), self.gabor_omega0), None, self.caption()
        from ntkviz.core.deformations.digits import digit_image

        return digit_image(self.label, self.index), self.label, self.caption()


def _check_layers(layers) -> None:
    from ntkviz.core.conv.architecture import numbered_layer

    if not isinstance(layers, tuple) or not 1 <= len(layers) <= limits.MAX_LAYERS:
        n = len(layers) if isinstance(layers, tuple) else layers
        raise ValueError(f"layers must hold 1..{limits.MAX_LAYERS} layers for preset "
                         f"'{CUSTOM}', got {n!r}")
    for k, spec in enumerate(layers, 1):
        if not isinstance(spec, tuple) or len(spec) != 6:
            raise ValueError(f"layer {k} must be (patch, subsampling, pooling, kernel, sigma, "
                             f"poolfactor or null), got {spec!r}")
        numbered_layer(k, *spec)  # the core's Layer checks the fields
    _map_sizes(layers)


def _map_sizes(layers, side: int = _USER_SIDE) -> list[tuple[int, int]]:
    """``(input side, pooled side)`` per layer for a side × side image; refuses layers whose
    patch exceeds the map or whose pooling empties it (as
    :meth:`ntkviz.core.conv.architecture.Architecture.layer_sizes`)."""
    n, out = side, []
    for k, (npatch, sub, pooling, _, _, _) in enumerate(layers, 1):
        if npatch > n:
            raise ValueError(f"layer {k}: patch {npatch}×{npatch} is larger than its {n}×{n} "
                             "input map; use smaller patches or fewer layers")
        m = n // sub if pooling == "average" else n // sub - 1
        if m < 1:
            raise ValueError(f"layer {k}: {pooling} pooling with subsampling {sub} shrinks the "
                             f"{n}×{n} map to nothing; use fewer layers or smaller subsampling")
        out.append((n, m))
        n = m
    return out


def _spec(layer) -> LayerSpec:
    return (layer.npatch, layer.subsampling, layer.pooling, layer.kernel, float(layer.sigma),
            layer.poolfactor)


def map_sizes(params: DeformationParams) -> list[tuple[int, int]]:
    """``(input side, pooled side)`` per layer of ``params``' architecture on the 28×28 digit."""
    return _map_sizes(params.layer_specs())


class DeformationModel(ParamModel):
    """Model of the deformation editor (``ntkviz export deformation`` fills the same one).

    Two jobs: the deformation (:meth:`build_request`, at every change) and the context
    distances of the digit (:meth:`context_request`: built again only when a field of
    :data:`CONTEXT_FIELDS` changes; its results are kept on disk in the user's cache
    folder, ``$XDG_CACHE_HOME/ntkviz/context``; none for the Gabor probe, which is no
    digit)."""

    Params = DeformationParams
    display_only = frozenset({"maps"})
    views = (View("original", "the digit x", size=_IMAGE_SIZE),
             View("deformed", "L_τx (default)", size=_IMAGE_SIZE),
             View("difference", "L_τx − x", size=_IMAGE_SIZE),
             View("displacement", "τ (CSV: one row per pixel)", size=_IMAGE_SIZE),
             View("context", "distances to other digits (CSV: category, map, relative distance)"))
    #: the default view of ``ntkviz export deformation``
    default_view = "deformed"
    #: reference digits per label of the context distances
    context_per_class = CONTEXT_PER_CLASS

    def __init__(self, params=None):
        super().__init__(params)
        self._context = (None, None)  # (context field values, request)

    @classmethod
    def build_request(cls, params: DeformationParams):
        """The :class:`ntkviz.jobs.DeformRequest` of ``params``."""
        from ntkviz.jobs import DeformRequest

        image, label, _ = params.digit()
        return DeformRequest(image, params.deformation(), params.architecture(), label=label,
                             scattering=params.scattering_params(),
                             probe_omega0=params.gabor_omega0 if params.is_probe else None)

    @classmethod
    def build_context_request(cls, params: DeformationParams, per_class: int | None = None):
        """The :class:`ntkviz.jobs.ContextRequest` of the digit and architecture of
        ``params`` (``per_class`` references per label, default :attr:`context_per_class`;
        disk cache in ``$XDG_CACHE_HOME/ntkviz/context``); None for the Gabor probe."""
        from ntkviz.jobs import ContextRequest
        from ntkviz.models.classification import default_cache_dir

        if params.is_probe:
            return None
        image, label, _ = params.digit()
        return ContextRequest(image, label, params.architecture(),
                              per_class=per_class or cls.context_per_class,
                              cache_dir=str(default_cache_dir("context")),
                              scattering=params.scattering_params())

    def context_request(self):
        """The context request of the current parameters, the same object until a field of
        :data:`CONTEXT_FIELDS` (or :attr:`context_per_class`) changes: a slider move builds
        nothing. None for the Gabor probe."""
        key = (*(getattr(self.params, f) for f in CONTEXT_FIELDS), self.context_per_class)
        if self._context[0] != key:
            self._context = (key, self.build_context_request(self.params, self.context_per_class))
        return self._context[1]

    @classmethod
    def csv_table(cls, params: DeformationParams, response, view: str):
        """The view's table; ``context`` computes the context distances first (cached)."""
        from ntkviz.jobs import deform_csv_table

        request = cls.build_context_request(params) if view == "context" else None
        return deform_csv_table(view, response, request() if request is not None else None,
                                maps=params.maps)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states worth looking at: the default, tiny and huge deformations,
        every term at its range's end, a custom 'SAME'-offset architecture, the dilated Gabor
        probe at ω₀ = π/4 and π, two maps only."""
        return {
            "default": {"label": 3, "smooth_amplitude": 1.0},
            "tiny": {"label": 1, "translate_x": 1e-3, "rotation_deg": 1e-3},
            "huge": {"label": 5, "translate_x": 20.0, "rotation_deg": 180.0, "scale": 3.0,
                     "shear": 5.0, "smooth_amplitude": 40.0},
            "rotation_90": {"label": 1, "rotation_deg": 90.0},
            "range_ends": {"label": 7, "translate_y": limits.TRANSLATE_RANGE[1],
                           "scale": limits.SCALE_RANGE[0]},
            "infimnist_alpha_6": {"label": 2, "infimnist_alpha": 6.0},
            "custom_even_patches": {"preset": CUSTOM, "label": 9, "rotation_deg": 10.0,
                                    "even_patch_offsets": "same",
                                    "layers": [[2, 2, "gaussian", "relu", 1.0, None],
                                               [4, 3, "average", "relu", 1.0, None]]},
            "m4_exp": {"preset": "M4", "label": 8, "smooth_amplitude": 2.0},
            "probe_pi4_dilation": {"source": "gabor", "gabor_omega0": math.pi / 4, "dilation": 0.05},
            "probe_pi_dilation": {"source": "gabor", "gabor_omega0": math.pi, "dilation": 0.05},
            "scattering_fourier_only": {"label": 6, "translate_x": 1.0, "scattering_j": 3,
                                        "maps": ["scattering", "fourier"]},
        }
