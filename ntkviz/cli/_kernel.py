"""``ntkviz kernel``: a dot-product kernel curve κ(u) and κ'(u) as CSV.

Example::

    ntkviz kernel --name ntk --depth 3 --grid 201 --out ntk3.csv
    ntkviz kernel --name nngp --activation tanh --bias 0.1 --u 0,0.5,1 --out k.csv

Columns ``u,value,derivative`` at full float64 precision (``inf``/``-inf``
where the derivative is infinite). Conventions: ``ntkviz.core.dotkernel``.
"""
from __future__ import annotations

import argparse
import re

import numpy as np

from ntkviz.cli._common import float_list, output_path, write_csv

#: largest accepted --grid
MAX_GRID = 1_000_000


def grid_size(text: str) -> int:
    """argparse type for --grid: an integer in [2, MAX_GRID]."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    if not 2 <= value <= MAX_GRID:
        raise argparse.ArgumentTypeError(f"must be in [2, {MAX_GRID}], got {value}")
    return value


def register(sub) -> None:
    from ntkviz.core.activations import ACTIVATIONS
    from ntkviz.core.dotkernel import KERNEL_NAMES, MAX_BIAS

    p = sub.add_parser(
        "kernel",
        help="write a kernel curve u,value,derivative as CSV",
        description="Evaluate a dot-product kernel κ(u) on the sphere and its derivative "
        "κ'(u), and write the columns u,value,derivative to a CSV file. "
        "Paper normalisation (Bietti & Mairal 2019): the deep ReLU NTK has value L at u = 1; "
        "--normalize divides by the value at u = 1.",
    )
    p.add_argument("--name", required=True, choices=KERNEL_NAMES,
                   help="arccos0 (κ0), arccos1 (κ1), ntk or nngp (deep fully-connected)")
    p.add_argument("--depth", type=int, default=2, metavar="L",
                   help="number of weight layers L, 2..50 (arccos kernels: 2; default 2)")
    p.add_argument("--bias", type=float, default=0.0, metavar="B",
                   help=f"bias variance β in [0, {MAX_BIAS:g}] added at every layer (default 0)")
    p.add_argument("--activation", default="relu", choices=ACTIVATIONS,
                   help="activation, normalised by c_σ = 1/E[σ(z)²] (default relu)")
    p.add_argument("--normalize", action="store_true", help="divide by the value at u = 1 (e.g. NTK/L)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--grid", type=grid_size, metavar="N",
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
    from ntkviz.core.dotkernel import KernelSpec, evaluate_kernel

    spec = KernelSpec(args.name, args.depth, args.bias, args.activation, args.normalize).validated()
    path = output_path(args.out, (".csv",))
    u = np.linspace(-1.0, 1.0, args.grid) if args.grid else check_cosines(args.u, "--u")
    value, deriv = evaluate_kernel(spec, u)
    write_csv(path, ["u", "value", "derivative"],
              ([float(a), float(b), float(c)] for a, b, c in zip(u, value, deriv)))
    return 0
