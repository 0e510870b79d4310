"""Parameters of the deformation editor (Qt-free).

The editor deforms one digit ``x`` (a bundled MNIST digit, or the user's own
image resampled to 28×28) by a displacement field τ, ``L_τ x(u) = x(u − τ(u))``,
and compares the relative feature distances ``‖Φ(L_τ x) − Φ(x)‖ / ‖Φ(x)‖`` of a
convolutional kernel network (CKN) and of the convolutional NTK of an
architecture. :class:`DeformationModel` turns the parameters into a
:class:`ntkviz.jobs.DeformRequest`; the GUI view, sessions and
``ntkviz export deform`` all fill this one model, so its ranges (those of
:mod:`ntkviz.limits`) are the only ones. Importing this module loads neither
numba, scipy nor Qt.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Optional

from ntkviz import limits
from ntkviz.core.deformations.deform import Deformation  # a plain dataclass: loads no scipy
from ntkviz.models._base import ParamModel, check_choice, check_float, check_int

__all__ = ["DeformationParams", "DeformationModel", "DEFORMATION_FIELDS", "CUSTOM",
           "EVEN_PATCH_OFFSETS", "LayerSpec", "map_sizes"]

#: preset name meaning "the layers given in ``layers``"
CUSTOM = "custom"
#: offsets of an even patch side s: "reference" sums {−s/2, …, s/2 − 1} (s = 2: {−1, 0}, the
#: convention of the CKN reference code), "same" sums {−s/2 + 1, …, s/2} (s = 2: {0, 1},
#: neural-tangents' 'SAME' padding)
EVEN_PATCH_OFFSETS = ("reference", "same")
#: a layer as (patch side, subsampling, pooling, patch kernel, exp bandwidth σ, pool factor or None)
LayerSpec = tuple[int, int, str, str, float, Optional[int]]

#: (field, allowed range, integer) of the deformation, as in :class:`ntkviz.core.deformations.deform.Deformation`
DEFORMATION_FIELDS = (
    ("translate_x", limits.TRANSLATE_RANGE, False),
    ("translate_y", limits.TRANSLATE_RANGE, False),
    ("rotation_deg", limits.ROTATION_RANGE, False),
    ("scale", limits.SCALE_RANGE, False),
    ("shear", limits.SHEAR_RANGE, False),
    ("smooth_amplitude", limits.SMOOTH_AMPLITUDE_RANGE, False),
    ("smooth_length", limits.SMOOTH_LENGTH_RANGE, False),
    ("smooth_seed", limits.SEED_RANGE, True),
    ("infimnist_alpha", limits.INFIMNIST_ALPHA_RANGE, False),
    ("infimnist_seed", limits.SEED_RANGE, True),
)
_DIGIT_INDEX_RANGE = (0, limits.BUNDLED_PER_CLASS - 1)
_USER_SIDE = 28  # = ntkviz.core.deformations.digits.DIGIT_SIZE (not imported: that module loads numpy)


@dataclass(frozen=True)
class DeformationParams(Deformation):
    """Deformation-editor parameters: the fields of
    :class:`ntkviz.core.deformations.deform.Deformation`, then the digit and the architecture.

    Digit: the bundled MNIST digit ``index`` (0–99) of class ``label``, unless
    ``user_pixels`` holds the user's own image (28 rows of 28 grey values in [0, 1],
    light digit on dark, as :func:`ntkviz.core.deformations.digits.prepare_user_image` makes it;
    ``user_name`` is its file name, for the caption; its class is unknown).

    Deformation τ (conventions of :mod:`ntkviz.core.deformations.deform`; fields summed):
    ``translate_x``/``translate_y`` px (+ right / + down), ``rotation_deg``
    (counter-clockwise), ``scale`` (zoom about the centre), ``shear`` (px per row),
    a smooth random field (``smooth_amplitude`` px, ``smooth_length`` px,
    ``smooth_seed``) and an Infinite-MNIST style term (``infimnist_alpha``,
    ``infimnist_seed``).

    Architecture: the layers of ``preset`` (M1–M4) or, for ``preset = "custom"``,
    ``layers`` (one :data:`LayerSpec` per layer); ``patch_normalization`` ``"sum"``
    (the CKN reference code) or ``"mean"`` (the paper's 1/|S|); ``even_patch_offsets``
    ``"reference"`` (s = 2 sums offsets {−1, 0}) or ``"same"`` (neural-tangents 'SAME',
    {0, 1}).
    """

    label: int = 0
    index: int = 0
    user_name: str = ""
    user_pixels: Optional[tuple[tuple[float, ...], ...]] = None
    preset: str = "M1"
    layers: tuple[LayerSpec, ...] = ()
    patch_normalization: str = "sum"
    even_patch_offsets: str = "reference"

    def __post_init__(self):
        check_int("label", self.label, limits.DIGIT_LABEL_RANGE)
        check_int("index", self.index, _DIGIT_INDEX_RANGE)
        if not isinstance(self.user_name, str):
            raise ValueError(f"user_name must be a string, got {self.user_name!r}")
        if self.user_pixels is not None:
            _check_pixels(self.user_pixels)
        for name, bounds, integer in DEFORMATION_FIELDS:
            (check_int if integer else check_float)(name, getattr(self, name), bounds)
        choices = (*limits.ARCH_PRESETS, CUSTOM)
        check_choice("preset", self.preset, choices)
        check_choice("patch_normalization", self.patch_normalization, limits.PATCH_NORMALIZATIONS)
        check_choice("even_patch_offsets", self.even_patch_offsets, EVEN_PATCH_OFFSETS)
        if self.even_patch_offsets != "reference" and not offsets_supported():
            raise ValueError(f"even_patch_offsets {self.even_patch_offsets!r} is not available in "
                             "this version of the kernels; allowed: reference")
        if self.preset == CUSTOM:
            _check_layers(self.layers)
        elif self.layers:
            raise ValueError(f"layers must be empty unless preset is '{CUSTOM}' (preset "
                             f"{self.preset} has its own layers), got {len(self.layers)} layer(s)")

    # ------------------------------------------------------------- derived
    @property
    def is_user_image(self) -> bool:
        return self.user_pixels is not None

    def deformation_values(self) -> dict:
        """The fields of :class:`ntkviz.core.deformations.deform.Deformation`."""
        return {f.name: getattr(self, f.name) for f in fields(Deformation)}

    def deformation(self) -> Deformation:
        """The deformation alone (a plain :class:`ntkviz.core.deformations.deform.Deformation`)."""
        return Deformation(**self.deformation_values())

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
        extra = {"even_patch_offsets": self.even_patch_offsets} if offsets_supported() else {}
        return Architecture(layers, self.patch_normalization, **extra)

    def digit(self):
        """``(image (28, 28) float64 in [0, 1], label or None, caption)``."""
        import numpy as np

        if self.user_pixels is not None:
            name = self.user_name or "your image"
            return (np.array(self.user_pixels, dtype=np.float64), None,
                    f"{name} (class unknown)")
        from ntkviz.core.deformations.digits import digit_image

        return (digit_image(self.label, self.index), self.label,
                f"MNIST digit: class {self.label}, #{self.index} of the bundled subset")


def offsets_supported() -> bool:
    """Whether the kernels offer the even-patch offset convention (loads the numeric core)."""
    from ntkviz.core.conv.architecture import Architecture

    return "even_patch_offsets" in {f.name for f in fields(Architecture)}


def _check_pixels(pixels) -> None:
    if not isinstance(pixels, tuple) or len(pixels) != _USER_SIDE or any(
            not isinstance(row, tuple) or len(row) != _USER_SIDE for row in pixels):
        raise ValueError(f"user_pixels must be {_USER_SIDE} rows of {_USER_SIDE} grey values "
                         "(a prepared image)")
    bad = [v for row in pixels for v in row
           if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0]
    if bad:
        raise ValueError(f"user_pixels must be numbers in [0, 1], got {bad[0]!r}")
    if max(max(row) for row in pixels) < 1e-3:
        raise ValueError("user_pixels is blank (all values below 0.001): nothing to deform")


def _check_layers(layers) -> None:
    if not isinstance(layers, tuple) or not 1 <= len(layers) <= limits.MAX_LAYERS:
        n = len(layers) if isinstance(layers, tuple) else layers
        raise ValueError(f"layers must hold 1..{limits.MAX_LAYERS} layers for preset "
                         f"'{CUSTOM}', got {n!r}")
    for k, spec in enumerate(layers, 1):
        if not isinstance(spec, tuple) or len(spec) != 6:
            raise ValueError(f"layer {k} must be (patch, subsampling, pooling, kernel, sigma, "
                             f"poolfactor or null), got {spec!r}")
        npatch, sub, pooling, kernel, sigma, pf = spec
        check_int(f"layer {k} patch", npatch, limits.LAYER_INT_RANGE)
        check_int(f"layer {k} subsampling", sub, limits.LAYER_INT_RANGE)
        check_choice(f"layer {k} pooling", pooling, limits.POOLINGS)
        check_choice(f"layer {k} kernel", kernel, limits.PATCH_KERNELS)
        check_float(f"layer {k} sigma", sigma, limits.LAYER_SIGMA_RANGE)
        if pf is not None:
            check_int(f"layer {k} poolfactor", pf, limits.LAYER_INT_RANGE)
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
    """Model of the deformation editor (``ntkviz export deform`` fills the same one)."""

    Params = DeformationParams

    @classmethod
    def build_request(cls, params: DeformationParams):
        """The :class:`ntkviz.jobs.DeformRequest` of ``params`` (its response's
        ``csv_table("context")`` computes the context distances, cached)."""
        from ntkviz.jobs import DeformRequest

        image, label, _ = params.digit()
        return DeformRequest(image, params.deformation(), params.architecture(), label=label)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states worth looking at: the default, tiny and huge deformations,
        every term at its range's end, a custom 'SAME'-offset architecture."""
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
                                    "even_patch_offsets": "same" if offsets_supported()
                                    else "reference",
                                    "layers": [[2, 2, "gaussian", "relu", 1.0, None],
                                               [4, 3, "average", "relu", 1.0, None]]},
            "m4_exp": {"preset": "M4", "label": 8, "smooth_amplitude": 2.0},
        }
