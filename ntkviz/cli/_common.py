"""Argument helpers shared by the command modules."""
from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import Iterable, Sequence

from ntkviz.cli import CliError


def float_list(text: str) -> list[float]:
    """Parse ``"0.1,0.5,1"`` into floats (argparse ``type=``)."""
    try:
        values = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}")
    if not values:
        raise argparse.ArgumentTypeError("expected at least one number")
    return values


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


def output_path(path: str, suffixes: Sequence[str]) -> Path:
    """Check an ``--out`` path's suffix and that its folder exists."""
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise CliError(f"--out must end in one of {', '.join(suffixes)}, got {p.name!r}")
    if not p.parent.exists():
        raise CliError(f"--out folder does not exist: {p.parent}")
    return p


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Write a CSV with full float64 precision (repr round-trips)."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        for row in rows:
            w.writerow([repr(float(v)) if isinstance(v, float) else v for v in row])


def int_in(lo: int, hi: int):
    """argparse ``type=`` for an integer in ``[lo, hi]``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be in [{lo}, {hi}], got {value}")
        return value

    return parse


def add_kernel_arguments(p: argparse.ArgumentParser) -> None:
    """The options that define one dot-product kernel (``KernelSpec``): --name --depth --bias
    --activation --normalize. Turn them back into a spec with :func:`kernel_spec`."""
    from ntkviz.core.activations import ACTIVATIONS
    from ntkviz.core.dotkernel import KERNEL_NAMES, MAX_BIAS

    p.add_argument("--name", required=True, choices=KERNEL_NAMES,
                   help="arccos0 (κ0), arccos1 (κ1), ntk or nngp (deep fully-connected)")
    p.add_argument("--depth", type=int, default=2, metavar="L",
                   help="number of weight layers L, 2..50 (arccos kernels: 2; default 2)")
    p.add_argument("--bias", type=float, default=0.0, metavar="B",
                   help=f"bias variance β in [0, {MAX_BIAS:g}] added at every layer (default 0)")
    p.add_argument("--activation", default="relu", choices=ACTIVATIONS,
                   help="activation, normalised by c_σ = 1/E[σ(z)²] (default relu)")
    p.add_argument("--normalize", action="store_true",
                   help="divide the kernel by its value at u = 1 (e.g. NTK/L)")


def kernel_spec(args):
    """The validated ``KernelSpec`` named by :func:`add_kernel_arguments`' options."""
    from ntkviz.core.dotkernel import KernelSpec

    return KernelSpec(args.name, args.depth, args.bias, args.activation, args.normalize).validated()
