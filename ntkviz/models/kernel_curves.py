"""Parameters of the kernel-curve panel (Qt-free).

:class:`KernelChoice` is the kernel choice shared with the eigenvalue-decay
panel (which kernels, depth, extra depths, activation, bias, normalisation);
:class:`KernelCurvesParams` adds the curve options and the finite-width
overlay; :class:`KernelCurvesModel` turns them into a
:class:`ntkviz.jobs.KernelCurveRequest`. Importing this module loads neither
numba, scipy nor Qt.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from ntkviz import limits
from ntkviz._check import check_bool, check_choice, check_float, check_int
from ntkviz._text import check_distinct, parse_list
from ntkviz.models._base import ParamModel
from ntkviz.models._options import Requires, View, option

__all__ = ["KernelChoice", "KernelCurvesParams", "KernelCurvesModel", "check_choice_fields",
           "choice_specs", "parse_int_list", "parse_name_list", "kernels_field"]


def parse_name_list(name: str, text: str, allowed: tuple) -> tuple[str, ...]:
    """``"ntk,arccos1"`` -> ``("ntk", "arccos1")``: :func:`ntkviz._text.parse_list` of names
    among ``allowed`` (empty entries, repeats and unknown names refused; any name when
    ``allowed`` is empty)."""
    return parse_list(name, text, str, tuple(allowed) or None, allow_blank=False)


def parse_int_list(name: str, text: str) -> tuple[int, ...]:
    """``"3, 5"`` -> ``(3, 5)``; ``""`` -> ``()``: :func:`ntkviz._text.parse_list` of
    integers (empty entries, repeats and non-integers refused). Ranges are checked by the
    parameters."""
    return parse_list(name, text, int)


def _names(flag: str, text: str) -> tuple[str, ...]:
    return parse_name_list(flag, text, limits.KERNEL_NAMES)


#: the options of the deep NTK/NNGP apply when one of them is drawn
DEEP_ONLY = Requires("kernels", limits.DEEP_KERNELS, "ntk and nngp only; --kernels is {kernels}")
_D_LO, _D_HI = limits.DEPTH_RANGE
_B_LO, _B_HI = limits.BIAS_RANGE


def kernels_field(default: tuple[str, ...]):
    """The ``kernels`` field with its option (a panel with other default kernels
    declares the field again with this)."""
    return option(default, "--kernels", "comma-separated among arccos0 (κ0), arccos1 (κ1), ntk, "
                  f"nngp (default: {','.join(default)})", metavar="LIST", text=_names)


@dataclass(frozen=True)
class KernelChoice:
    """Which dot-product kernels to draw.

    ``kernels`` among ``arccos0`` (κ0), ``arccos1`` (κ1), ``ntk``, ``nngp``. κ0 and κ1
    are single arc-cosine maps: depth, bias and activation do not apply to them. The
    deep NTK/NNGP get one curve per depth in ``(depth,) + extra_depths`` (number of
    weight layers L), with bias variance ``bias`` (β) added at every layer and the
    activation normalised by c_σ = 1/E[σ(z)²]. ``normalize`` divides each kernel by
    κ(1) (for ReLU, β = 0: NTK_L/L).
    """

    kernels: tuple[str, ...] = kernels_field(("ntk", "arccos1"))
    activation: str = option(limits.DEFAULT_ACTIVATION, "--activation",
                             f"activation of NTK/NNGP (default {limits.DEFAULT_ACTIVATION})",
                             choices=limits.ACTIVATIONS, requires=DEEP_ONLY)
    depth: int = option(2, "--depth", f"depth L (weight layers, {_D_LO}..{_D_HI}) of NTK/NNGP "
                        "(default 2)", metavar="L", requires=DEEP_ONLY)
    extra_depths: tuple[int, ...] = option((), "--depths", f"more NTK/NNGP depths to overlay, "
                                           f"e.g. 3,5 ({_D_LO}..{_D_HI})", metavar="LIST",
                                           text=parse_int_list, requires=DEEP_ONLY)
    bias: float = option(0.0, "--bias", f"bias variance β of NTK/NNGP, in [{_B_LO:g}, {_B_HI:g}] "
                         "(default 0)", metavar="BETA", requires=DEEP_ONLY)
    normalize: bool = option(False, "--normalize", "divide each kernel by its value at u = 1 "
                             "(the 1/L variant)", value=True)

    def __post_init__(self):
        check_choice_fields(self)


def check_choice_fields(p) -> None:
    """Validate the :class:`KernelChoice` fields of ``p`` (any dataclass holding them)."""
    if not isinstance(p.kernels, tuple) or not all(isinstance(k, str) for k in p.kernels):
        raise ValueError(f"kernels must be a list of names, got {p.kernels!r}")
    for k in p.kernels:
        if k not in limits.KERNEL_NAMES:
            raise ValueError(f"kernels must be among {', '.join(limits.KERNEL_NAMES)}; got {k!r}")
    check_distinct("kernels", p.kernels, "name")
    if not p.kernels:
        raise ValueError("kernels: choose at least one of κ0, κ1, NTK, NNGP")
    check_choice("activation", p.activation, limits.ACTIVATIONS)
    check_int("depth", p.depth, limits.DEPTH_RANGE)
    if not isinstance(p.extra_depths, tuple):
        raise ValueError(f"extra_depths must be a list of integers, got {p.extra_depths!r}")
    for d in p.extra_depths:
        check_int("extra_depths", d, limits.DEPTH_RANGE)
    check_distinct("extra_depths", p.extra_depths, "depth")
    check_float("bias", p.bias, limits.BIAS_RANGE)
    check_bool("normalize", p.normalize)
    n_curves = len(choice_specs(p))
    if n_curves > limits.MAX_CURVES:
        raise ValueError(f"at most {limits.MAX_CURVES} curves at once (kernels × depths), "
                         f"got {n_curves}")


def choice_specs(p) -> tuple[tuple, ...]:
    """``(name, depth, bias, activation, normalize)`` of every curve of a kernel choice,
    in drawing order: κ0, κ1, then NTK and NNGP at each depth (an extra depth equal
    to ``depth`` is drawn once). Qt- and numba-free."""
    out = []
    for name in limits.KERNEL_NAMES:
        if name not in p.kernels:
            continue
        if name in limits.ARCCOS_KERNELS:
            out.append((name, 2, 0.0, "relu", p.normalize))
        else:
            depths = dict.fromkeys((p.depth, *p.extra_depths))
            out.extend((name, d, float(p.bias), p.activation, p.normalize) for d in depths)
    return tuple(out)


def kernel_specs(p) -> tuple:
    """The ``ntkviz.core.KernelSpec`` tuple of a kernel choice."""
    from ntkviz.core import KernelSpec

    return tuple(KernelSpec(*fields_) for fields_ in choice_specs(p))


CHOICE_FIELDS = tuple(f.name for f in fields(KernelChoice))
_OVERLAY_ONLY = Requires("overlay", (True,), "the finite-width overlay only: add --net-width M")


@dataclass(frozen=True)
class KernelCurvesParams(KernelChoice):
    """Kernel-curve panel parameters.

    ``n_points`` equally spaced cosines u on [−1, 1]; ``derivative`` draws κ′(u)
    instead of κ(u); ``near_one`` shows the log–log view of 2κ(1) − 2κ(1 − ε)
    against ε = 1 − u (display only: always computed). The finite-width overlay
    (``overlay``) draws the empirical kernel of ``n_samples`` random networks of
    hidden width ``width`` (first seed ``seed``) against the first NTK/NNGP curve.
    """

    derivative: bool = option(False, "--derivative", "plot κ'(u) instead of κ(u)", value=True)
    near_one: bool = True
    n_points: int = option(801, "--points", "grid points on [-1, 1], {}..{} (default 801)".format(
        *limits.CURVE_POINTS_RANGE))
    overlay: bool = False
    width: int = option(100, "--net-width", "add the finite-width overlay: empirical kernels of "
                        "networks of hidden width M, {}..{}".format(*limits.NET_WIDTH_RANGE),
                        metavar="M", sets={"overlay": True})
    seed: int = option(0, "--seed", "overlay random seed, 0..2^32-1 (default 0)",
                       requires=_OVERLAY_ONLY)
    n_samples: int = option(4, "--samples", "overlay: number of networks, {}..{} (default 4)".format(
        *limits.NET_SAMPLES_RANGE), requires=_OVERLAY_ONLY)

    def __post_init__(self):
        super().__post_init__()
        check_bool("derivative", self.derivative)
        check_bool("near_one", self.near_one)
        check_bool("overlay", self.overlay)
        check_int("n_points", self.n_points, limits.CURVE_POINTS_RANGE)
        check_int("width", self.width, limits.NET_WIDTH_RANGE)
        check_int("seed", self.seed, limits.SEED_RANGE)
        check_int("n_samples", self.n_samples, limits.NET_SAMPLES_RANGE)
        if self.overlay and not {"ntk", "nngp"} & set(self.kernels):
            raise ValueError("overlay: the finite-width overlay needs an NTK or NNGP curve "
                             "among the kernels")


class KernelCurvesModel(ParamModel):
    """Model of the kernel-curve panel (``ntkviz export kernel`` fills the same one)."""

    Params = KernelCurvesParams
    display_only = frozenset({"near_one"})
    views = (View("curves", "κ(u) on [-1, 1]"),
             View("near_one", "2κ(1) − 2κ(1 − ε) against ε = 1 − u on log–log axes with the √ε "
                  "and ε guides", shows={"near_one": True}))

    @classmethod
    def build_request(cls, params: KernelCurvesParams):
        """The :class:`ntkviz.jobs.KernelCurveRequest` drawing ``params`` (the near-u = 1
        curves are always computed, so showing them needs no new computation)."""
        from ntkviz.jobs import KernelCurveRequest

        return KernelCurveRequest(
            specs=kernel_specs(params), n_points=params.n_points,
            derivative=params.derivative, near_one=True,
            width=params.width if params.overlay else None, seed=params.seed,
            n_samples=params.n_samples)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states worth looking at: the default and the extremes."""
        return {
            "default": {},
            "depth50_bias": {"kernels": ["ntk", "nngp"], "depth": 50, "bias": 10.0},
            "deep_tanh_normalized": {"kernels": ["ntk", "nngp"], "activation": "tanh",
                                     "depth": 2, "extra_depths": [5, 20], "normalize": True},
            "derivative_many": {"kernels": ["arccos0", "arccos1", "ntk", "nngp"],
                                "extra_depths": [3, 10], "derivative": True},
            "overlay_narrow": {"kernels": ["ntk"], "overlay": True, "width": 1, "n_samples": 8},
            "fine_grid_small_bias": {"n_points": 20001, "bias": 0.0004},
        }
