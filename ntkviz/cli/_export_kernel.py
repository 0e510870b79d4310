"""``ntkviz export kernel [options] --out FILE.{png,svg,csv} [--width PX]``.

Options mirror the kernel-curve panel. CSV is written straight from the
Qt-free request's response; PNG/SVG are rendered by the panel itself, offscreen
(:func:`ntkviz.gui.headless.render_panel`), so they match the app.
"""
from __future__ import annotations

from ntkviz.cli._common import output_path, positive_int, write_csv

SUFFIXES = (".png", ".svg", ".csv")


def add_kernel_choice(p) -> None:
    """The kernel-choice options shared by ``export kernel`` and ``export spectrum``."""
    p.add_argument("--kernels", default="ntk,arccos1", metavar="LIST",
                   help="comma-separated among arccos0 (κ0), arccos1 (κ1), ntk, nngp "
                        "(default: ntk,arccos1)")
    p.add_argument("--depth", type=int, default=2, metavar="L",
                   help="depth L (weight layers, 2..50) of NTK/NNGP (default 2)")
    p.add_argument("--depths", default="", metavar="LIST",
                   help="more NTK/NNGP depths to overlay, e.g. 3,5")
    p.add_argument("--activation", default="relu", help="activation of NTK/NNGP (default relu)")
    p.add_argument("--bias", type=float, default=0.0, metavar="BETA",
                   help="bias variance β >= 0 (default 0)")
    p.add_argument("--normalize", action="store_true",
                   help="divide each kernel by its value at u = 1 (the 1/L variant)")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output file: .png, .svg (figure as in the app) or .csv (plotted data)")
    p.add_argument("--width", type=positive_int, default=None, metavar="PX",
                   help="PNG width in pixels (default: 1100)")


def choice_state(args) -> dict:
    """Panel state entries for the kernel-choice options."""
    return {"kernels": [k.strip() for k in args.kernels.split(",") if k.strip()],
            "depth": args.depth, "extra_depths": args.depths, "activation": args.activation,
            "bias": args.bias, "normalize": args.normalize}


def export(args, state: dict, request_cls, panel_path: str) -> int:
    """Write ``args.out`` for a panel ``state``: CSV from ``request_cls.from_state``,
    PNG/SVG through the panel class at ``panel_path`` (``module:Class``)."""
    out = output_path(args.out, SUFFIXES)
    request = request_cls.from_state(state)  # validates before any Qt is loaded
    if out.suffix.lower() == ".csv":
        header, rows = request().csv_table(args.view)
        write_csv(out, header, rows)
    else:
        import importlib

        from ntkviz.gui.headless import render_panel

        module, _, name = panel_path.partition(":")
        render_panel(getattr(importlib.import_module(module), name), state, args.view, out,
                     args.width)
    print(out)
    return 0


def register(sub) -> None:
    p = sub.add_parser("kernel", help="kernel curves κ(u) (the app's kernel panel)",
                       description="Kernel curves κ(u) on [-1, 1], as drawn by the app's "
                                   "kernel-curve panel.")
    add_kernel_choice(p)
    p.add_argument("--view", choices=("curves", "near_one"), default="curves",
                   help="curves: κ(u) on [-1, 1]; near_one: 2κ(1) − 2κ(1 − ε) against ε = 1 − u "
                        "on log–log axes with the ε^½ and ε guides")
    p.add_argument("--derivative", action="store_true", help="plot κ'(u) instead of κ(u)")
    p.add_argument("--points", type=int, default=801, help="grid points on [-1, 1] (default 801)")
    p.add_argument("--net-width", type=int, default=None, metavar="M",
                   help="add the finite-width overlay: empirical kernels of width-M networks")
    p.add_argument("--seed", type=int, default=0, help="overlay random seed (default 0)")
    p.add_argument("--samples", type=int, default=4, help="overlay: number of networks (default 4)")
    p.set_defaults(func=run)


def run(args) -> int:
    state = {**choice_state(args), "derivative": args.derivative,
             "near_one": args.view == "near_one", "n_points": args.points,
             "overlay": args.net_width is not None, "width": args.net_width or 100,
             "seed": args.seed, "n_samples": args.samples}
    from ntkviz.jobs import KernelCurveRequest

    return export(args, state, KernelCurveRequest,
                  "ntkviz.gui.panels.kernel_curves:QtKernelCurvesPanel")
