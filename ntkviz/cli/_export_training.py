"""``ntkviz export training [options] --out FILE.{png,svg,csv,gif} [--width PX] [--frame N]``.

The options fill the lazy-training panel's model
(:class:`ntkviz.models.training.TrainingModel`), which validates every value
before anything is computed: the export draws exactly the parameters asked for,
or refuses them with a one-line message naming the option and its range. CSV
comes straight from the job (:class:`ntkviz.jobs.TrainRequest`): the metrics of
every frame, or the neurons / predictors at ``--frame``. PNG/SVG/GIF go through the
app's exporter registry (:func:`ntkviz.gui.export.export_view`, atomic writes) with the
panel offscreen: PNG/SVG at ``--frame``, GIF every frame at ``--fps`` (needs Pillow).
"""
from __future__ import annotations

import contextlib
import sys

from ntkviz import limits
from ntkviz.cli import CliError
from ntkviz.cli._common import output_path, write_csv
from ntkviz.cli._export import add_width_option, check_width

SUFFIXES = (".png", ".svg", ".csv", ".gif")
VIEWS = ("figure", "neurons", "predictor", "metrics", "neurons_2", "predictor_2", "metrics_2")
#: offscreen panel size for exports (the figure keeps the canvas's aspect ratio)
FIGURE_SIZE = (1600, 860)
#: model field -> the option that sets it (error messages name the option)
OPTIONS = {"alpha": "--alpha", "alpha2": "--compare-alpha", "width": "--width-m",
           "samples": "--samples", "teacher": "--teacher", "lr": "--lr", "steps": "--steps",
           "frames": "--frames", "seed": "--seed", "dim": "--dim", "init": "--init",
           "metrics": "--metrics", "frame": "--frame"}


def register(sub) -> None:
    a_lo, a_hi = limits.ALPHA_RANGE
    p = sub.add_parser(
        "training", help="lazy-training animation (the app's lazy-training panel)",
        description="Train a two-layer ReLU network at output scale α beside its linearisation "
                    "and kernel regression (Chizat, Oyallon & Bach 2019) and export a frame, the "
                    "metrics or the whole animation.")
    p.add_argument("--alpha", type=float, default=0.01,
                   help=f"output scale α = τ², in [{a_lo:g}, {a_hi:g}] (default 0.01)")
    p.add_argument("--compare-alpha", type=float, default=None, metavar="ALPHA2",
                   help=f"add a second run at this α, side by side, in [{a_lo:g}, {a_hi:g}]")
    p.add_argument("--width-m", type=int, default=20, metavar="M",
                   help="student width m, even, in [{}, {}] (default 20)".format(
                       *limits.TRAIN_WIDTH_RANGE))
    p.add_argument("--samples", type=int, default=15,
                   help="training inputs n, in [{}, {}] (default 15)".format(
                       *limits.TRAIN_SAMPLES_RANGE))
    p.add_argument("--teacher", type=int, default=3,
                   help="teacher neurons m0, in [{}, {}] (default 3)".format(*limits.TEACHER_RANGE))
    p.add_argument("--lr", type=float, default=0.005,
                   help="step size, the same for every α, in [1e-06, 1000] (default 0.005)")
    p.add_argument("--steps", type=int, default=10000,
                   help="gradient steps, in [{}, {}] (default 10000)".format(*limits.STEPS_RANGE))
    p.add_argument("--frames", type=int, default=120,
                   help="recorded frames after the first, in [{}, {}], log-spaced in time "
                        "(default 120)".format(*limits.FRAMES_RANGE))
    p.add_argument("--linear-time", action="store_true",
                   help="record frames evenly spaced in time instead of log-spaced")
    p.add_argument("--seed", type=int, default=0,
                   help="teacher, data and initialisation seed, in [{}, {}]".format(
                       *limits.SEED_RANGE))
    p.add_argument("--dim", type=int, default=2,
                   help="input dimension d, inputs on S^{{d-1}}, in [{}, {}] (default 2)".format(
                       *limits.TRAIN_DIM_RANGE))
    p.add_argument("--ntk-scaling", action="store_true", help="multiply the student by 1/sqrt(m)")
    p.add_argument("--init", default="symmetric",
                   help=f"initialisation: {' or '.join(limits.INITS)} (default symmetric)")
    p.add_argument("--metrics", default=None, metavar="NAMES",
                   help="metric curves drawn, comma-separated (default: train_loss, test_loss, "
                        "relative_displacement, gap, kernel_drift, flip_share)")
    p.add_argument("--view", default="figure",
                   help="PNG/SVG/GIF: the whole figure or one plot (figure, neurons, predictor, "
                        "metrics; with --compare-alpha also neurons_2, predictor_2, metrics_2); "
                        "CSV: figure and metrics give the metrics table, neurons/predictor the "
                        "frame's data")
    p.add_argument("--frame", type=int, default=-1, metavar="N",
                   help="frame for PNG/SVG/CSV: 0 = initialisation … frame count − 1, or -1 = "
                        "the last (default)")
    p.add_argument("--fps", type=int, default=15, help="GIF frame rate, in [1, 100] (default 15)")
    p.add_argument("--out", required=True, metavar="FILE", help="output .png, .svg, .csv or .gif")
    add_width_option(p, "PNG/GIF")
    p.set_defaults(func=run)


def state_from_args(args) -> dict:
    """The panel session state the options describe (validated by :func:`params_from_args`)."""
    state = {"alpha": args.alpha, "compare": args.compare_alpha is not None,
             "width": args.width_m, "samples": args.samples, "teacher": args.teacher,
             "lr": args.lr, "steps": args.steps, "frames": args.frames, "seed": args.seed,
             "dim": args.dim, "ntk_scaling": args.ntk_scaling, "log_time": not args.linear_time,
             "init": args.init, "frame": args.frame, "autoplay": False}
    if args.compare_alpha is not None:
        state["alpha2"] = args.compare_alpha
    if args.metrics is not None:
        names = [t.strip() for t in args.metrics.split(",")]
        if any(not t for t in names):
            raise CliError(f"--metrics must be names separated by single commas, got "
                           f"{args.metrics!r}")
        state["metrics"] = names
    return state


def params_from_args(args):
    """The model's parameters for the options; ``CliError`` naming the option if invalid."""
    from ntkviz.models.training import TrainingModel

    try:
        return TrainingModel.parse(state_from_args(args))
    except ValueError as exc:
        raise CliError(_option_message(str(exc))) from None


def _option_message(message: str) -> str:
    """``"width must be …"`` -> ``"--width-m must be …"``."""
    field, sep, rest = message.partition(" ")
    return f"{OPTIONS[field]} {rest}" if sep and field in OPTIONS else message


def run(args) -> int:
    out = output_path(args.out, SUFFIXES)
    params = params_from_args(args)  # validates before any numba or Qt is loaded
    if args.view not in VIEWS or (args.view.endswith("_2") and not params.compare):
        allowed = VIEWS if params.compare else VIEWS[:4]
        raise CliError(f"--view must be one of {', '.join(allowed)}, got {args.view!r}")
    try:
        check_width(args.width)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if not 1 <= args.fps <= 100:
        raise CliError(f"--fps must be in [1, 100], got {args.fps}")
    if out.suffix.lower() == ".csv":  # from the job, at --frame: no Qt
        from ntkviz.models.training import TrainingModel

        response = TrainingModel.build_request(params)()
        write_csv(out, *response.csv_table(args.view, params.frame))
        _warn(response, params.frame)
        print(out)
        return 0
    if out.suffix.lower() == ".gif":
        try:
            import PIL  # noqa: F401
        except ImportError:
            raise CliError("GIF export needs Pillow: pip install 'ntkviz[gif]'") from None
    from ntkviz.gui.export import export_view

    with _panel(params) as panel:
        panel.player.fps = args.fps  # the GIF's frame time
        export_view(panel, args.view, out, args.width)
    print(out)
    return 0


@contextlib.contextmanager
def _panel(params):
    """The panel offscreen with ``params``, computed, at a wide figure-friendly size."""
    from ntkviz.gui.headless import build_panel
    from ntkviz.gui.panels.training import QtTrainingPanel
    from ntkviz.models.training import TrainingModel

    panel = build_panel(QtTrainingPanel, TrainingModel(params).to_session(), size=FIGURE_SIZE)
    try:
        _settle_layout(panel)
        yield panel
        _warn(panel.response, params.frame)
    finally:
        panel.dispatcher.shutdown()
        panel.close()
        panel.deleteLater()


def _settle_layout(panel) -> None:
    """Paint the canvas twice, as a window does: an axis sizes itself to its widest tick
    label while painting, and the layout follows on the next pass (an export made before
    that cut "0.0001" to ".0001")."""
    from PySide6 import QtWidgets

    for _ in range(2):
        panel.canvas.grab()
        QtWidgets.QApplication.processEvents()


def _warn(response, frame: int) -> None:
    """Say so when a run stopped early (divergence) or before the frame asked for."""
    if response.diverged:
        print(f"ntkviz export training: warning: {response.message}", file=sys.stderr)
    if frame >= response.frame_count:
        print(f"ntkviz export training: warning: the run stopped after "
              f"{response.frame_count} frames; frame {frame} shows its last frame",
              file=sys.stderr)
