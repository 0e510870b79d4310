"""``ntkviz gram-spectrum``: eigenvalues of a Gram matrix and how the labels sit on them.

``ntkviz gram-spectrum --gram K.zarr|K.npy [--labels FILE] --out spec.csv`` writes
``index,eigenvalue,trustworthy,cumulative_alignment``: m = 1..N, ``λ_m / N`` (descending;
estimates of the kernel operator's eigenvalues), whether ``λ_m`` is above the numerical
floor ``N ε λ_max``, and the share of the centred one-hot labels' energy on the top m
eigenvectors (blank without ``--labels``). One summary line on stdout: N, ``tr K / N``, the
trusted count and the kernel–target alignment ``⟨K, YYᵀ⟩_F / (‖K‖_F ‖YYᵀ‖_F)`` (centred Y).
``--out spec.png|.svg`` draws the figure of the Classification tab's spectrum & theory view
instead (``--view spectrum`` or ``alignment``, ``--width PX``), through the app's exporters.
Method: :class:`ntkviz.jobs.GramSpectrumRequest`.
"""
from __future__ import annotations

import sys

from ntkviz.cli import CliError
from ntkviz.cli._common import output_path

#: what --out may be: the table, or the figure of the app's spectrum & theory view
SUFFIXES = (".csv", ".png", ".svg", ".pdf")
#: the views of each command's figure (the first is the default)
VIEWS = {"gram-spectrum": ("spectrum", "alignment"),
         "data-theory": ("certificate", "learning_curve", "spectrum", "alignment")}
#: on-screen size of the figure before it is written (sets its aspect ratio)
FIGURE_SIZE = (760, 560)


def register(sub) -> None:
    p = sub.add_parser(
        "gram-spectrum", help="eigenvalues of a Gram matrix, their trust flags and the labels' alignment (CSV)",
        description="Eigendecomposition (float64 LAPACK eigh) of a Gram matrix from 'ntkviz gram' (a Zarr "
                    "store, every tile present) or a .npy file: eigenvalues divided by N (estimates of the "
                    "kernel operator's eigenvalues), flagged untrusted below N*eps*lambda_max, and the "
                    "cumulative alignment of the centred one-hot labels. Memory: about 3 x 8 N^2 bytes; "
                    "N <= 20000.")
    add_gram_arguments(p, labels_required=False)
    add_figure_arguments(p, "gram-spectrum")
    p.add_argument("--out", required=True, metavar="spec.csv|.png|.svg",
                   help="output: CSV table, or the figure (PNG, SVG) of the view --view")
    p.set_defaults(func=run)


def add_figure_arguments(p, command: str) -> None:
    """``--view``, ``--width``, ``--height`` and ``--dpi`` of a figure written by
    ``--out x.png|.svg|.pdf``."""
    from ntkviz.cli._export import add_size_options

    views = VIEWS[command]
    p.add_argument("--view", choices=views, default=None,
                   help=f"the figure written by --out .png/.svg/.pdf (default {views[0]})")
    add_size_options(p)


def add_gram_arguments(p, labels_required: bool) -> None:
    """``--gram`` and ``--labels``, shared with ``data-theory``."""
    p.add_argument("--gram", required=True, metavar="K.zarr|K.npy",
                   help="the Gram matrix: a store written by 'ntkviz gram --out K.zarr' or a square .npy")
    p.add_argument("--labels", required=labels_required, metavar="FILE",
                   help="integer class labels in the Gram matrix's order: a .npy array, the .npz images "
                        "file given to 'ntkviz gram' (with its 'labels') or an MNIST "
                        "*-labels-idx1-ubyte[.gz] file")


def output(args, command: str):
    """``(--out path, view or None for a CSV)``; ``--view`` and the size options only with a
    figure."""
    from pathlib import Path

    from ntkviz.cli._export import check_size

    out = output_path(args.out, SUFFIXES, [args.gram, args.labels])
    figure = Path(out).suffix.lower() != ".csv"
    if not figure:
        for flag, value in (("--view", args.view), ("--width", args.width), ("--height", args.height),
                            ("--dpi", args.dpi)):
            if value is not None:
                raise CliError(f"{flag} applies to a figure (--out .png, .svg or .pdf), not to {Path(out).name}")
        return out, None
    try:
        check_size(args.width, args.height, args.dpi)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return out, args.view or VIEWS[command][0]


def write_figure(out, view: str, args, draw) -> None:
    """Draw ``view`` of the spectrum & theory figure with ``draw(plots)`` (a
    :class:`~ntkviz.gui.panels._theory_figure.TheoryPlots`) offscreen and write it with the
    app's exporters (:func:`ntkviz.gui.export.export_plot`) at ``args.width`` ×
    ``args.height`` pixels and ``args.dpi``."""
    from ntkviz.gui.export import export_plot
    from ntkviz.gui.headless import ensure_app, rendering
    from ntkviz.gui.panels._theory_figure import TheoryPlots

    app = ensure_app()
    with rendering():
        plots = TheoryPlots()
        widget = plots.widgets[view]
        widget.resize(*FIGURE_SIZE)
        widget.show()
        app.processEvents()
        draw(plots)
        app.processEvents()
        try:
            export_plot(plots.plots[view], out, args.width, args.height, args.dpi)
        finally:
            widget.hide()  # not close(): pyqtgraph's close() clears the scene behind its items
            del widget, plots


def drive(request, label: str):
    """Run ``request.iterate()`` to its end with a tqdm bar (fraction and stage) on stderr."""
    from tqdm import tqdm

    from ntkviz.jobs._run import run_to_end

    bar = tqdm(total=1000, desc=label, file=sys.stderr, dynamic_ncols=True, mininterval=0.5,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}] {postfix}")

    def show(item) -> None:
        bar.n = int(1000 * item.fraction)
        bar.set_postfix_str(item.message, refresh=False)
        bar.refresh()

    try:
        return run_to_end(request.iterate(), on_item=show)
    finally:
        bar.close()


def run(args) -> int:
    from ntkviz._io import write_csv
    from ntkviz.jobs import GramSpectrumRequest

    out, view = output(args, "gram-spectrum")
    response = drive(GramSpectrumRequest(args.gram, args.labels, name=kernel_name(args.gram)), "gram-spectrum")
    if view is None:
        write_csv(out, *response.csv_table())
    else:
        from ntkviz.gui.panels._theory_figure import spectrum_series

        write_figure(out, view, args, lambda plots: plots.draw_spectra([spectrum_series(response)]))
    print(f"gram-spectrum: {response.summary()}; wrote {out}")
    return 0


def kernel_name(path: str) -> str:
    """The kernel's name in a figure: the file's stem (``ntk.zarr`` draws as the NTK)."""
    from pathlib import Path

    return Path(path).stem
