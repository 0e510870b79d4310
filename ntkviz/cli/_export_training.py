"""``ntkviz export training [options] --out FILE.{png,svg,csv,gif} [--width PX] [--frame N]``.

Options mirror the lazy-training panel. CSV comes straight from the job
(:class:`ntkviz.jobs.TrainRequest`): the metrics of every frame, or the neurons /
predictors at ``--frame``. PNG/SVG are the panel's figure at ``--frame`` rendered
offscreen; GIF animates every frame (needs Pillow: ``pip install ntkviz[gif]``).
"""
from __future__ import annotations

import contextlib

from ntkviz.cli import CliError
from ntkviz.cli._common import output_path, positive_int, write_csv

SUFFIXES = (".png", ".svg", ".csv", ".gif")
VIEWS = ("figure", "neurons", "predictor", "metrics")
PANEL = "ntkviz.gui.panels.training:QtTrainingPanel"
#: offscreen panel size for exports (the figure keeps the canvas's aspect ratio)
FIGURE_SIZE = (1600, 860)


def register(sub) -> None:
    p = sub.add_parser(
        "training", help="lazy-training animation (the app's lazy-training panel)",
        description="Train a two-layer ReLU network at output scale α beside its linearisation "
                    "and kernel regression (Chizat, Oyallon & Bach 2019) and export a frame, the "
                    "metrics or the whole animation.")
    p.add_argument("--alpha", type=float, default=0.01, help="output scale α = τ² (default 0.01)")
    p.add_argument("--compare-alpha", type=float, default=None, metavar="ALPHA2",
                   help="add a second run at this α, side by side")
    p.add_argument("--width-m", type=positive_int, default=20, metavar="M",
                   help="student width m, even (default 20)")
    p.add_argument("--samples", type=positive_int, default=15, help="training inputs n (default 15)")
    p.add_argument("--teacher", type=positive_int, default=3, help="teacher neurons m0 (default 3)")
    p.add_argument("--lr", type=float, default=0.005, help="step size, the same for every α")
    p.add_argument("--steps", type=positive_int, default=10000, help="gradient steps (default 10000)")
    p.add_argument("--frames", type=positive_int, default=120,
                   help="recorded frames after the first, log-spaced in time (default 120)")
    p.add_argument("--seed", type=int, default=0, help="teacher, data and initialisation seed")
    p.add_argument("--dim", type=int, default=2, help="input dimension d, inputs on S^{d-1}")
    p.add_argument("--ntk-scaling", action="store_true", help="multiply the student by 1/sqrt(m)")
    p.add_argument("--init", choices=("symmetric", "centered"), default="symmetric")
    p.add_argument("--view", choices=VIEWS, default="figure",
                   help="PNG/SVG: the whole figure or one plot (first run); CSV: figure and "
                        "metrics give the metrics table, neurons/predictor the frame's data")
    p.add_argument("--frame", type=int, default=-1, metavar="N",
                   help="frame index for PNG/SVG/CSV (0 = initialisation, -1 = last, default)")
    p.add_argument("--fps", type=positive_int, default=15, help="GIF frame rate (default 15)")
    p.add_argument("--out", required=True, metavar="FILE", help="output .png, .svg, .csv or .gif")
    p.add_argument("--width", type=positive_int, default=None, metavar="PX",
                   help="PNG/GIF width in pixels")
    p.set_defaults(func=run)


def state_from_args(args) -> dict:
    return {"alpha": args.alpha, "compare_alpha": args.compare_alpha, "width": args.width_m,
            "samples": args.samples, "teacher": args.teacher, "lr": args.lr, "steps": args.steps,
            "frames": args.frames, "seed": args.seed, "dim": args.dim,
            "ntk_scaling": args.ntk_scaling, "init": args.init, "frame": args.frame,
            "autoplay": False}


def run(args) -> int:
    out = output_path(args.out, SUFFIXES)
    state = state_from_args(args)
    from ntkviz.jobs import TrainRequest

    request = TrainRequest.from_state(state)  # validates before any Qt is loaded
    _check_frame(args.frame, len(request.configs()[0].frame_steps()))
    suffix = out.suffix.lower()
    if suffix == ".csv":
        response = request()
        view = "metrics" if args.view == "figure" else args.view
        write_csv(out, *response.csv_table(view, args.frame))
        _warn(response)
    elif suffix == ".gif":
        write_gif(state, out, args.width, args.fps, args.view)
    else:
        from ntkviz.gui.export import export_plot

        with _panel(state) as panel:
            export_plot(panel.plot_items()[args.view], out, args.width)
    print(out)
    return 0


@contextlib.contextmanager
def _panel(state: dict):
    """The panel offscreen with ``state``, computed, at a wide figure-friendly size."""
    import importlib

    from ntkviz.gui.headless import build_panel

    module, _, name = PANEL.partition(":")
    panel = build_panel(getattr(importlib.import_module(module), name), state, size=FIGURE_SIZE)
    try:
        yield panel
        _warn(panel._data)
    finally:
        panel.dispatcher.shutdown()
        panel.close()
        panel.deleteLater()


def _check_frame(frame: int, count: int) -> None:
    """``count`` recorded frames (a diverging run stops earlier: then its last frame is used)."""
    if not -count <= frame < count:
        raise CliError(f"--frame must be in [{-count}, {count - 1}] for these options, got {frame}")


def _warn(response) -> None:
    if response.diverged:
        import sys

        print(f"ntkviz export training: warning: {response.message}", file=sys.stderr)


def write_gif(state: dict, out, width: int | None, fps: int, view: str = "figure") -> None:
    """Render every frame of the panel offscreen into an animated GIF at ``fps``."""
    try:
        from PIL import Image
    except ImportError:
        raise CliError("GIF export needs Pillow: pip install 'ntkviz[gif]'") from None
    from ntkviz.gui.export import render_image

    images = []
    with _panel(state) as panel:
        item = panel.plot_items()[view]
        for index in range(panel.frame_count()):
            panel.show_frame(index)
            qimage = render_image(item, width)
            images.append(_to_pil(qimage, Image).convert("P", palette=Image.Palette.ADAPTIVE))
    if not images:
        raise CliError("no frames to animate")
    images[0].save(out, save_all=True, append_images=images[1:], duration=round(1000 / fps),
                   loop=0, optimize=False)


def _to_pil(qimage, Image):
    """QImage (any format) -> PIL RGB image."""
    from PySide6.QtGui import QImage

    img = qimage.convertToFormat(QImage.Format.Format_RGBA8888)
    data = bytes(img.constBits())[: img.bytesPerLine() * img.height()]
    return Image.frombuffer("RGBA", (img.width(), img.height()), data, "raw", "RGBA",
                            img.bytesPerLine(), 1).convert("RGB")
