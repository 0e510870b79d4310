"""``ntkviz data-theory``: generalisation theory against measurement on a labelled data pool.

``ntkviz data-theory --gram K.zarr|K.npy --labels FILE --n 50,100,200 [--random-labels]
[--ridge δ] [--draws K] [--seed S] --out FILE.csv`` writes one row per (n, labels):
``n,labels,certificate,lambda_min,predicted_test_mse,measured_test_mse,measured_test_mse_sem,
measured_accuracy,certificate_sem,measured_accuracy_sem,predicted_pool_mse,effective_ridge,
inverse,pinv_draws``. The Gram matrix is the pool (N points), normalised to mean diagonal 1;
KRR with ridge δ (relative to the mean diagonal) on ``--draws`` random subsets of n points,
tested on the other N - n; the eigenlearning prediction from the pool's spectrum; the
certificate ``√(2 YᵀH⁻¹Y / n)`` of Arora et al. (2019) with ``H = (K̃_SS + δ I)/2`` (mean
diagonal ½), Y the centred one-hot labels summed over classes; ``inverse`` says whether a
pseudo-inverse replaced a numerically singular H. ``--out FILE.png|.svg`` draws the figure of
the Classification tab's spectrum & theory view instead (``--view certificate``, the default,
``learning_curve``, ``spectrum`` or ``alignment``; ``--width PX``). Method:
:class:`ntkviz.jobs.DataTheoryRequest`.
"""
from __future__ import annotations

import sys

from ntkviz.cli import CliError
from ntkviz.cli._common import float_in, int_in
from ntkviz.cli._gram_spectrum import (add_figure_arguments, add_gram_arguments, drive, kernel_name, output,
                                      write_figure)
from ntkviz.limits import SEED_RANGE


def register(sub) -> None:
    p = sub.add_parser(
        "data-theory", help="certificate, predicted and measured test error of KRR on a labelled pool (CSV)",
        description="On the pool of a Gram matrix (N labelled points): for each training size n < N, the "
                    "eigenlearning prediction of the held-out test MSE from the pool's spectrum, the measured "
                    "test MSE and accuracy of kernel ridge regression on random subsets (mean and standard "
                    "error over draws), and the Arora et al. (2019) certificate sqrt(2 Y^T H^-1 Y / n) with "
                    "lambda_min(H), for the true labels and optionally a seeded permutation of them.")
    add_gram_arguments(p, labels_required=True)
    p.add_argument("--n", required=True, metavar="N1,N2,...",
                   help="training sizes, distinct integers in [1, N - 1]")
    p.add_argument("--random-labels", action="store_true",
                   help="also rows for randomly permuted labels (the same subsets)")
    lo, hi = 0.0, 1e6
    p.add_argument("--ridge", type=float_in(lo, hi), default=0.0, metavar="DELTA",
                   help="ridge relative to the mean kernel diagonal, in [0, 1e6] (default 0: interpolation, "
                        "a pseudo-inverse where H is numerically singular)")
    p.add_argument("--draws", type=int_in(1, 1000), default=10, metavar="K",
                   help="random training subsets per n, in [1, 1000] (default 10)")
    p.add_argument("--seed", type=int_in(*SEED_RANGE), default=0, metavar="S",
                   help="seed of the subsets and of the label permutation (default 0)")
    add_figure_arguments(p, "data-theory")
    p.add_argument("--out", required=True, metavar="FILE.csv|.png|.svg",
                   help="output: CSV table, or the figure (PNG, SVG) of the view --view")
    p.set_defaults(func=run)


def _sizes(text: str) -> tuple[int, ...]:
    from ntkviz._text import parse_list

    try:
        sizes = parse_list("--n", text, int, allow_blank=False)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    for n in sizes:
        if n < 1:
            raise CliError(f"--n must be integers in [1, N - 1], got {n}")
    return sizes


def run(args) -> int:
    from ntkviz._io import write_csv
    from ntkviz.jobs import DataTheoryRequest

    out, view = output(args, "data-theory")
    sizes = _sizes(args.n)
    try:
        request = DataTheoryRequest(args.gram, args.labels, sizes, ridge=args.ridge, draws=args.draws,
                                    seed=args.seed, random_labels=args.random_labels, name=kernel_name(args.gram))
        response = drive(request, "data-theory")
    except ValueError as exc:
        text = str(exc)
        raise CliError("--" + text if text.startswith("n ") else text) from None
    if view is None:
        write_csv(out, *response.csv_table())
    else:
        write_figure(out, view, args, lambda plots: plots.draw({response.name: response}))
    print(f"data-theory: {response.summary()}; wrote {out}", file=sys.stderr)
    return 0
