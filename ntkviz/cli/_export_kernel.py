"""``ntkviz export kernel [options] --out FILE.{png,svg,csv} [--width PX]``.

The options fill the kernel-curve panel's Qt-free model
(:class:`ntkviz.models.kernel_curves.KernelCurvesModel`), which validates every
value before anything is computed, so the export draws exactly the parameters
asked for or refuses them with a one-line message naming the option and its
range. CSV comes straight from the model's request; PNG/SVG are drawn by the
panel itself, offscreen, from the same model values.
"""
from __future__ import annotations

from ntkviz import limits
from ntkviz.cli import CliError
from ntkviz.cli._common import output_path
from ntkviz.cli._export import add_width_option

__all__ = ["add_kernel_choice", "choice_state", "export_model", "register", "run"]

SUFFIXES = (".png", ".svg", ".csv")
#: model field -> the option that sets it (messages name the option)
OPTIONS = {"kernels": "--kernels", "depth": "--depth", "extra_depths": "--depths",
           "activation": "--activation", "bias": "--bias", "n_points": "--points",
           "width": "--net-width", "seed": "--seed", "n_samples": "--samples", "dim": "--dim",
           "kmax": "--kmax", "overlay": "--net-width"}
#: options of the deep NTK/NNGP only (refused when no such kernel is chosen)
DEEP_OPTIONS = (("depth", "--depth"), ("depths", "--depths"), ("activation", "--activation"),
                ("bias", "--bias"))


def add_kernel_choice(p) -> None:
    """The kernel-choice options shared by ``export kernel`` and ``export spectrum``."""
    d_lo, d_hi = limits.DEPTH_RANGE
    b_lo, b_hi = limits.BIAS_RANGE
    p.add_argument("--kernels", default="ntk,arccos1", metavar="LIST",
                   help="comma-separated among arccos0 (κ0), arccos1 (κ1), ntk, nngp "
                        "(default: ntk,arccos1)")
    p.add_argument("--depth", type=int, default=None, metavar="L",
                   help=f"depth L (weight layers, {d_lo}..{d_hi}) of NTK/NNGP (default 2)")
    p.add_argument("--depths", default=None, metavar="LIST",
                   help=f"more NTK/NNGP depths to overlay, e.g. 3,5 ({d_lo}..{d_hi})")
    p.add_argument("--activation", default=None, choices=limits.ACTIVATIONS,
                   help=f"activation of NTK/NNGP (default {limits.DEFAULT_ACTIVATION})")
    p.add_argument("--bias", type=float, default=None, metavar="BETA",
                   help=f"bias variance β of NTK/NNGP, in [{b_lo:g}, {b_hi:g}] (default 0)")
    p.add_argument("--normalize", action="store_true",
                   help="divide each kernel by its value at u = 1 (the 1/L variant)")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output file: .png, .svg (figure as in the app) or .csv (plotted data)")
    add_width_option(p)


def choice_state(args) -> dict:
    """Model fields for the kernel-choice options (only those given, so the model's
    defaults apply to the rest). Refuses empty list entries and options that do not
    apply to the chosen kernels."""
    from ntkviz.models.kernel_curves import parse_int_list, parse_name_list

    try:
        kernels = parse_name_list("--kernels", args.kernels, limits.KERNEL_NAMES)
        depths = None if args.depths is None else parse_int_list("--depths", args.depths)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    state = {"kernels": list(kernels), "normalize": bool(args.normalize)}
    if not set(kernels) & set(limits.DEEP_KERNELS):
        for dest, option in DEEP_OPTIONS:
            if getattr(args, dest) is not None:
                raise CliError(f"{option} applies to ntk and nngp only; --kernels is "
                               f"{args.kernels}")
    for field, value in (("depth", args.depth), ("extra_depths", depths),
                         ("activation", args.activation), ("bias", args.bias)):
        if value is not None:
            state[field] = list(value) if isinstance(value, tuple) else value
    return state


def export_model(args, key: str, state: dict) -> int:
    """Validate ``state`` with panel ``key``'s model (a refusal names the option), then
    write ``args.out`` through the one export path (:func:`ntkviz.cli._export.run_export`):
    CSV from the model's request, PNG/SVG drawn by the panel from the same values."""
    from ntkviz.cli._export import registry, run_export

    model_cls = registry().model_class(key)
    try:
        params = model_cls.parse(state)
    except ValueError as exc:
        message = str(exc)
        field = message.split(" ", 1)[0].split("[", 1)[0].rstrip(":")
        option = OPTIONS.get(field)
        raise CliError(f"{option}: {message}" if option else message) from None
    out = output_path(args.out, SUFFIXES)
    run_export(out, key, model_cls(params).to_session(), args.view, args.width)
    print(out)
    return 0


def register(sub) -> None:
    p_lo, p_hi = limits.CURVE_POINTS_RANGE
    m_lo, m_hi = limits.NET_WIDTH_RANGE
    s_lo, s_hi = limits.NET_SAMPLES_RANGE
    p = sub.add_parser("kernel", help="kernel curves κ(u) (the app's kernel panel)",
                       description="Kernel curves κ(u) on [-1, 1], as drawn by the app's "
                                   "kernel-curve panel.")
    add_kernel_choice(p)
    p.add_argument("--view", choices=("curves", "near_one"), default="curves",
                   help="curves: κ(u) on [-1, 1]; near_one: 2κ(1) − 2κ(1 − ε) against ε = 1 − u "
                        "on log–log axes with the ε^½ and ε guides")
    p.add_argument("--derivative", action="store_true", help="plot κ'(u) instead of κ(u)")
    p.add_argument("--points", type=int, default=None,
                   help=f"grid points on [-1, 1], {p_lo}..{p_hi} (default 801)")
    p.add_argument("--net-width", type=int, default=None, metavar="M",
                   help=f"add the finite-width overlay: empirical kernels of networks of "
                        f"hidden width M, {m_lo}..{m_hi}")
    p.add_argument("--seed", type=int, default=None,
                   help="overlay random seed, 0..2^32-1 (default 0)")
    p.add_argument("--samples", type=int, default=None,
                   help=f"overlay: number of networks, {s_lo}..{s_hi} (default 4)")
    p.set_defaults(func=run)


def run(args) -> int:
    state = {**choice_state(args), "derivative": bool(args.derivative),
             "near_one": args.view == "near_one", "overlay": args.net_width is not None}
    if args.net_width is None:
        for option, value in (("--seed", args.seed), ("--samples", args.samples)):
            if value is not None:
                raise CliError(f"{option} applies to the finite-width overlay only: "
                               f"add --net-width M")
    for field, value in (("n_points", args.points), ("width", args.net_width),
                         ("seed", args.seed), ("n_samples", args.samples)):
        if value is not None:
            state[field] = value
    return export_model(args, "kernel", state)
