"""``ntkviz gram-spectrum``: eigenvalues of a Gram matrix and how the labels sit on them.

``ntkviz gram-spectrum --gram K.zarr|K.npy [--labels FILE] --out spec.csv`` writes
``index,eigenvalue,trustworthy,cumulative_alignment``: m = 1..N, ``λ_m / N`` (descending;
estimates of the kernel operator's eigenvalues), whether ``λ_m`` is above the numerical
floor ``N ε λ_max``, and the share of the centred one-hot labels' energy on the top m
eigenvectors (blank without ``--labels``). One summary line on stdout: N, ``tr K / N``, the
trusted count and the kernel–target alignment ``⟨K, YYᵀ⟩_F / (‖K‖_F ‖YYᵀ‖_F)`` (centred Y).
Method: :class:`ntkviz.jobs.GramSpectrumRequest`.
"""
from __future__ import annotations

import sys

from ntkviz.cli import CliError
from ntkviz.cli._common import output_path

#: figures of these tools come with the app's view; the command line writes CSV
FIGURE_SUFFIXES = (".png", ".svg")


def register(sub) -> None:
    p = sub.add_parser(
        "gram-spectrum", help="eigenvalues of a Gram matrix, their trust flags and the labels' alignment (CSV)",
        description="Eigendecomposition (float64 LAPACK eigh) of a Gram matrix from 'ntkviz gram' (a Zarr "
                    "store, every tile present) or a .npy file: eigenvalues divided by N (estimates of the "
                    "kernel operator's eigenvalues), flagged untrusted below N*eps*lambda_max, and the "
                    "cumulative alignment of the centred one-hot labels. Memory: about 3 x 8 N^2 bytes; "
                    "N <= 20000.")
    add_gram_arguments(p, labels_required=False)
    p.add_argument("--out", required=True, metavar="spec.csv", help="output CSV")
    p.set_defaults(func=run)


def add_gram_arguments(p, labels_required: bool) -> None:
    """``--gram`` and ``--labels``, shared with ``data-theory``."""
    p.add_argument("--gram", required=True, metavar="K.zarr|K.npy",
                   help="the Gram matrix: a store written by 'ntkviz gram --out K.zarr' or a square .npy")
    p.add_argument("--labels", required=labels_required, metavar="FILE",
                   help="integer class labels in the Gram matrix's order: a .npy array, the .npz images "
                        "file given to 'ntkviz gram' (with its 'labels') or an MNIST "
                        "*-labels-idx1-ubyte[.gz] file")


def csv_output(path: str, inputs) -> object:
    """``--out`` as a CSV path; PNG/SVG are refused with the reason."""
    from pathlib import Path

    if Path(path).suffix.lower() in FIGURE_SUFFIXES:
        raise CliError(f"--out {Path(path).name}: figures (PNG, SVG) come with the app's Spectrum & theory "
                       "view; the command line writes .csv")
    return output_path(path, (".csv",), inputs)


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

    out = csv_output(args.out, [args.gram, args.labels])
    response = drive(GramSpectrumRequest(args.gram, args.labels), "gram-spectrum")
    write_csv(out, *response.csv_table())
    print(f"gram-spectrum: {response.summary()}; wrote {out}")
    return 0
