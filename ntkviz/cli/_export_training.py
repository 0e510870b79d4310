"""``ntkviz export training``: what the lazy-training model's options do not say.

GIF output (every frame, ``--fps``, needs Pillow), the offscreen panel's size (a wide
figure), a layout painted twice before writing, and a warning when a run stopped early
(divergence) or before the frame asked for.
"""
from __future__ import annotations

import sys

from ntkviz.cli import CliError
from ntkviz.cli._export import SUFFIXES as EXPORT_SUFFIXES

__all__ = ["SUFFIXES", "PANEL_SIZE", "add_arguments", "check", "prepare", "after"]

#: every export format, and GIF
SUFFIXES = (*EXPORT_SUFFIXES, ".gif")
#: offscreen panel size for exports (the figure keeps the canvas's aspect ratio)
PANEL_SIZE = (1600, 860)
FPS_RANGE = (1, 100)


def add_arguments(p) -> None:
    p.add_argument("--fps", type=int, default=15,
                   help="GIF frame rate, in [{}, {}] (default 15)".format(*FPS_RANGE))


def check(args) -> None:
    lo, hi = FPS_RANGE
    if not lo <= args.fps <= hi:
        raise ValueError(f"--fps must be in [{lo}, {hi}], got {args.fps}")
    if args.out.lower().endswith(".gif"):
        try:
            import PIL  # noqa: F401
        except ImportError:
            raise CliError("GIF export needs Pillow: pip install 'ntkviz[gif]'") from None


def prepare(panel, args) -> None:
    """The GIF's frame time, the sweep finished (a sweep view), and the canvas painted twice,
    as a window does: an axis sizes itself to its widest tick label while painting, and the
    layout follows on the next pass (an export made before that cut "0.0001" to ".0001")."""
    from PySide6 import QtWidgets

    panel.player.fps = args.fps
    canvases = [panel.canvas]
    if _sweep_view(args):
        panel.wait_sweep()
        panel.sweep.redraw()
        canvases.append(panel.sweep.stack.currentWidget())
    for _ in range(2):
        for canvas in canvases:
            canvas.grab()
        QtWidgets.QApplication.processEvents()


def _sweep_view(args) -> bool:
    from ntkviz.models.training import SWEEP_VIEWS

    return args.view in SWEEP_VIEWS.values()


def after(args, params, response) -> None:
    """Say so when a run stopped early (divergence) or before the frame asked for (the single
    run's views)."""
    if _sweep_view(args):
        return
    if response.diverged:
        print(f"ntkviz export training: warning: {response.message}", file=sys.stderr)
    if params.frame >= response.frame_count:
        print(f"ntkviz export training: warning: the run stopped after "
              f"{response.frame_count} frames; frame {params.frame} shows its last frame",
              file=sys.stderr)
