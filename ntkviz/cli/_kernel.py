"""``ntkviz kernel``: a dot-product kernel curve κ(u) and κ'(u) as CSV.

Example::

    ntkviz kernel --name ntk --depth 3 --grid 201 --out ntk3.csv
    ntkviz kernel --name nngp --activation tanh --bias 0.1 --u 0,0.5,1 --out k.csv

Columns ``u,value,derivative`` at full float64 precision (``inf``/``-inf``
where the derivative is infinite), computed by
:class:`ntkviz.jobs.KernelTableRequest`. Conventions: ``ntkviz.core.kernels.dotkernel``.
"""
from __future__ import annotations

import argparse

from ntkviz.cli._common import add_kernel_arguments, float_list, int_in, kernel_spec, output_path, write_csv
from ntkviz.limits import KERNEL_GRID_RANGE

#: how far outside [-1, 1] a cosine may be and still count as rounding (= core's slack)
COSINE_SLACK = 1e-12


def cosine_list(text: str) -> list[float]:
    """``--u`` values: comma-separated cosines in [-1, 1] (argparse ``type=``)."""
    values = float_list(text)
    for v in values:
        if not -1.0 - COSINE_SLACK <= v <= 1.0 + COSINE_SLACK:
            raise argparse.ArgumentTypeError(f"must be cosines in [-1, 1], got {v!r}")
    return values


def register(sub) -> None:
    lo, hi = KERNEL_GRID_RANGE
    p = sub.add_parser(
        "kernel",
        help="write a kernel curve u,value,derivative as CSV",
        description="Evaluate a dot-product kernel κ(u) on the sphere and its derivative "
        "κ'(u), and write the columns u,value,derivative to a CSV file. "
        "Paper normalisation (Bietti & Mairal 2019): the deep ReLU NTK has value L at u = 1; "
        "--normalize divides by the value at u = 1.",
    )
    add_kernel_arguments(p)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--grid", type=int_in(lo, hi), metavar="N",
                       help=f"N equally spaced cosines from -1 to 1 (N in [{lo}, {hi}])")
    where.add_argument("--u", type=cosine_list, metavar="U1,U2,...",
                       help="comma-separated cosines in [-1, 1], e.g. --u=-1,0,0.5")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="output CSV file")
    p.set_defaults(func=run)


def run(args) -> int:
    from ntkviz.jobs import KernelTableRequest

    spec = kernel_spec(args)
    path = output_path(args.out, (".csv",))
    request = (KernelTableRequest.grid(spec, args.grid) if args.grid
               else KernelTableRequest(spec, args.u))
    write_csv(path, *request().csv_table())
    return 0
