"""``ntkviz kernel``: a dot-product kernel curve κ(u) and κ'(u) as CSV.

Example::

    ntkviz kernel --name ntk --depth 3 --grid 201 --out ntk3.csv
    ntkviz kernel --name nngp --activation tanh --bias 0.1 --u 0,0.5,1 --out k.csv

Columns ``u,value,derivative`` at full float64 precision (``inf``/``-inf``
where the derivative is infinite). Conventions: ``ntkviz.core.dotkernel``.
"""
from __future__ import annotations

import re

import numpy as np

from ntkviz.cli._common import add_kernel_arguments, float_list, int_in, kernel_spec, output_path, write_csv

#: largest accepted --grid
MAX_GRID = 1_000_000


def register(sub) -> None:
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
    where.add_argument("--grid", type=int_in(2, MAX_GRID), metavar="N",
                       help=f"N equally spaced cosines from -1 to 1 (2..{MAX_GRID})")
    where.add_argument("--u", type=float_list, metavar="U1,U2,...",
                       help="comma-separated cosines in [-1, 1], e.g. --u=-1,0,0.5")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="output CSV file")
    # let "--u -1,0.5" pass as a value (argparse otherwise takes "-1,0.5" for an option;
    # "--u=-1,0.5" always works)
    p._negative_number_matcher = re.compile(r"^-\d*\.?\d+([eE][-+]?\d+)?(,.*)?$")
    p.set_defaults(func=run)


def run(args) -> int:
    from ntkviz.core._validate import check_cosines
    from ntkviz.core.dotkernel import evaluate_kernel

    spec = kernel_spec(args)
    path = output_path(args.out, (".csv",))
    u = np.linspace(-1.0, 1.0, args.grid) if args.grid else check_cosines(args.u, "--u")
    value, deriv = evaluate_kernel(spec, u)
    write_csv(path, ["u", "value", "derivative"],
              ([float(a), float(b), float(c)] for a, b, c in zip(u, value, deriv)))
    return 0
