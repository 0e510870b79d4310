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
