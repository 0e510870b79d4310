"""``ntkviz export stability [options] --out FILE.{png,svg,csv} [--width PX]``.

The stability view "in the spirit of Fig. 1": relative CKN / NTK / pixel
distance against deformation amplitude. Options mirror the app's stability
panel. CSV is written straight from the Qt-free sweep
(:class:`ntkviz.jobs.StabilityRequest`, ``SweepResult.to_csv_rows()``:
amplitudes, means, spreads, levels, slopes); PNG/SVG are rendered by the panel
itself offscreen (:func:`ntkviz.gui.headless.render_panel`), so they match the app.
"""
from __future__ import annotations

from ntkviz.cli._common import float_list, output_path, positive_int, write_csv

SUFFIXES = (".png", ".svg", ".csv")
PANEL = "ntkviz.gui.panels.stability:QtStabilityPanel"


def register(sub) -> None:
    p = sub.add_parser(
        "stability", help="relative distance against deformation amplitude (stability view)",
        description="Relative feature distance ||Phi(L_tau x) - Phi(x)|| / ||Phi(x)|| of the CKN, "
                    "the convolutional NTK and raw pixels against the deformation amplitude "
                    "(log-log), in the spirit of Fig. 1 of Bietti & Mairal (not a reproduction). "
                    "Unset options take the app's defaults: smooth field, digits 0,100,200,300,400 "
                    "(labels 0-4), amplitudes 0.01..3 (6 values), 1 seed, M1, 5 references per label.")
    p.add_argument("--family", help="smooth, translation, rotation or infimnist")
    p.add_argument("--digits", metavar="LIST", help="bundled digit indices, comma-separated "
                                                   "(index = 100 * label + i)")
    p.add_argument("--amplitudes", type=float_list, metavar="MIN,MAX[,COUNT]",
                   help="log-spaced amplitude range (px, degrees or alpha) and count")
    p.add_argument("--seeds", type=positive_int, metavar="N",
                   help="deformations per digit and amplitude")
    p.add_argument("--first-seed", type=int, metavar="S", help="first random seed")
    p.add_argument("--arch", metavar="PRESET", help="architecture preset M1..M4")
    p.add_argument("--references", type=positive_int, metavar="N",
                   help="reference digits per label for the same-/any-label levels")
    add_output_options(p)
    p.set_defaults(func=run)


def add_output_options(p) -> None:
    """``--out FILE.{png,svg,csv}`` and ``--width PX`` (shared with ``export deform``)."""
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output file: .png, .svg (figure as in the app) or .csv (plotted data)")
    p.add_argument("--width", type=positive_int, default=None, metavar="PX",
                   help="PNG width in pixels")


def render_view(panel_path: str, state: dict, view: str, out, width, timeout_s: float) -> None:
    """PNG/SVG of ``view`` drawn by the panel ``module:Class`` offscreen (imports Qt)."""
    import importlib

    from ntkviz.gui.headless import render_panel

    module, _, name = panel_path.partition(":")
    render_panel(getattr(importlib.import_module(module), name), state, view, out, width,
                 timeout_s=timeout_s)


def state_from_args(args) -> dict:
    """The stability panel's state for the given command-line options (unset ones
    are left out: the panel's defaults apply)."""
    from ntkviz.cli import CliError

    given = {"family": args.family, "digits": args.digits, "seeds": args.seeds,
             "first_seed": args.first_seed, "architecture": args.arch,
             "reference_per_class": args.references}
    state = {k: v for k, v in given.items() if v is not None}
    if args.amplitudes is not None:
        amps = args.amplitudes
        if len(amps) not in (2, 3):
            raise CliError(f"--amplitudes must be MIN,MAX or MIN,MAX,COUNT; got {len(amps)} numbers")
        state.update(amplitude_min=amps[0], amplitude_max=amps[1])
        if len(amps) == 3:
            if not float(amps[2]).is_integer():
                raise CliError(f"--amplitudes COUNT must be an integer, got {amps[2]:g}")
            state["amplitude_count"] = int(amps[2])
    return state


def run(args) -> int:
    from ntkviz.jobs import StabilityRequest

    out = output_path(args.out, SUFFIXES)
    state = state_from_args(args)
    request = StabilityRequest.from_state(state)  # validates before any Qt is loaded
    if out.suffix.lower() == ".csv":
        header, rows = request.run().to_csv_rows()
        write_csv(out, header, rows)
    else:
        render_view(PANEL, state, "stability", out, args.width, timeout_s=1800.0)
    print(out)
    return 0
