"""Helpers of the bad-input / fault suite (fixtures: conftest.py).

Every case runs ``ntkviz.cli.main(argv)`` in-process (cheap) unless it needs its
own process (resource limits, environment, concurrency). A refused case must
exit with code 2, print exactly one line on stderr naming the thing, never a
traceback, and leave any existing output file untouched (no fragment beside it).
"""
from __future__ import annotations

import csv
import math
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

SENTINEL = "an existing file the user wants to keep\n"


def run_cli(argv, capsys) -> tuple[int, str, str]:
    """``main(argv)`` in-process: (exit code, stdout, stderr)."""
    from ntkviz.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse errors exit directly
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def error_line(err: str) -> str:
    """The single error line of ``err`` (progress lines end in \\r and are dropped)."""
    lines = [ln for ln in err.replace("\r", "\n").splitlines() if ln.strip() and "%" not in ln]
    assert "Traceback" not in err, err
    assert len(lines) == 1, f"expected one error line, got {lines!r}"
    return lines[0]


def leftovers(folder: Path) -> list[str]:
    """Temporary fragments an interrupted atomic write would leave (``.name.*.part*``)."""
    return sorted(p.name for p in folder.iterdir() if ".part" in p.name)


def csv_numbers(path: Path) -> np.ndarray:
    """Every numeric cell of a CSV (text cells skipped) as a flat float array; exact integers
    too large for float64 count as the largest finite float."""
    values = []
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    for row in rows[1:]:
        for cell in row:
            try:  # an exact integer beyond float64 is a finite number, not inf
                n = int(cell)
                values.append(float(n) if abs(n) < 2 ** 1000 else (1.7e308 if n > 0 else -1.7e308))
                continue
            except ValueError:
                pass
            try:
                values.append(float(cell))
            except ValueError:
                pass
    return np.asarray(values, dtype=np.float64)


def assert_finite_csv(path: Path) -> None:
    values = csv_numbers(path)
    assert values.size, f"{path.name} holds no numbers"
    bad = int(np.count_nonzero(~np.isfinite(values)))
    assert bad == 0, f"{path.name}: {bad} NaN/inf values"


def check_kept(folder: Path) -> None:
    for name in ("kept.csv", "kept.npy", "kept.png", "kept.gif", "kept.svg"):
        assert (folder / name).read_text() == SENTINEL, f"{name} was changed"
    assert leftovers(folder) == []


def is_finite_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
