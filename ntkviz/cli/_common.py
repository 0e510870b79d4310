"""Argument helpers shared by the command modules.

Everything here is light (standard library and :mod:`ntkviz.limits`), so that
building the parser loads neither numba, scipy nor Qt. Messages follow one
rule: the thing, what is wrong, the allowed range (``--depth must be in
[2, 50], got 99``).
"""
from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Sequence

from ntkviz._io import write_csv  # noqa: F401 - the one CSV writer, re-exported for the commands
from ntkviz.cli import CliError
from ntkviz.limits import (ACTIVATIONS, ARCCOS_KERNELS, BIAS_RANGE, DEFAULT_ACTIVATION, DEPTH_RANGE,
                           KERNEL_NAMES)


def _number(token: str) -> float:
    value = float(token)  # ValueError for text
    if not math.isfinite(value):
        raise ValueError(token)
    return value


def _list_type(kind: type, choices: Sequence[str] | None = None, check=None):
    """argparse ``type=`` over :func:`ntkviz._text.parse_list` (the one rule for lists: no
    empty entry, no value twice); ``check`` refuses a value out of range. argparse puts
    the option's name in front of the message."""
    from ntkviz._text import parse_list

    def parse(text: str) -> list:
        try:
            values = list(parse_list("list", text, kind, choices, allow_blank=False))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        for v in values:
            if check is not None:
                check(v)
        return values

    return parse


#: ``"0.1,0.5,1"`` -> finite floats (argparse ``type=``)
float_list = _list_type(float)


def int_list(lo: int, hi: int | None):
    """argparse ``type=`` for comma-separated distinct integers in ``[lo, hi]``."""
    return _list_type(int, check=lambda v: _int_in(str(v), lo, hi))


def choice_list(choices: Sequence[str]):
    """argparse ``type=`` for comma-separated distinct names among ``choices``."""
    return _list_type(str, tuple(choices))


def _int_in(text: str, lo: int, hi: int | None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < lo or (hi is not None and value > hi):
        raise argparse.ArgumentTypeError(f"must be {f'>= {lo}' if hi is None else f'in [{lo}, {hi}]'}, "
                                         f"got {value}")
    return value


def int_in(lo: int, hi: int):
    """argparse ``type=`` for an integer in ``[lo, hi]``."""
    return lambda text: _int_in(text, lo, hi)


def positive_int(text: str) -> int:
    """argparse ``type=`` for an integer >= 1."""
    return _int_in(text, 1, None)


def float_in(lo: float, hi: float):
    """argparse ``type=`` for a finite number in ``[lo, hi]``."""

    def parse(text: str) -> float:
        try:
            value = _number(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be in [{lo:g}, {hi:g}], got {value!r}")
        return value

    return parse


def output_path(path: str, suffixes: Sequence[str], inputs: Sequence[str] = (), option: str = "--out") -> Path:
    """Check an output path (``option``, ``--out`` by default): its suffix, that its folder
    exists and a file can be created in it (tried, not guessed from permissions: root, or
    a folder such as /proc, defeat those), that it is not a folder and not one of the
    ``inputs`` (a command never overwrites its input)."""
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise CliError(f"{option} must end in {' or '.join(suffixes)}, got {p.name!r}")
    parent = p.parent
    if not parent.is_dir():
        raise CliError(f"{option} folder {str(parent)!r} does not exist")
    if p.is_dir():
        raise CliError(f"{option} {str(p)!r} is a folder; give a file name ending in {' or '.join(suffixes)}")
    reason = unwritable_folder(parent)
    if reason:
        raise CliError(f"{option} folder {str(parent)!r} is not writable ({reason})")
    for given in inputs:
        if given is not None and p.exists() and Path(given).exists() and os.path.samefile(p, given):
            raise CliError(f"{option} {str(p)!r} is also an input; choose another output file")
    return p


def unwritable_folder(folder: Path) -> str | None:
    """Why no file can be created in ``folder`` (a temporary file is created and removed),
    or None when one can."""
    import tempfile

    if not os.access(folder, os.W_OK | os.X_OK):
        return "permission denied"
    try:
        fd, probe = tempfile.mkstemp(prefix=".ntkviz-write-test-", dir=folder)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    os.close(fd)
    os.unlink(probe)
    return None


def add_kernel_arguments(p: argparse.ArgumentParser) -> None:
    """The options that define one dot-product kernel (``KernelSpec``): --name --depth --bias
    --activation --normalize. Turn them back into a spec with :func:`kernel_spec`.

    --depth, --bias and --activation apply to ntk and nngp only; given with arccos0 or
    arccos1 they are refused (see :func:`kernel_spec`)."""
    lo, hi = DEPTH_RANGE
    p.add_argument("--name", required=True, choices=KERNEL_NAMES,
                   help="arccos0 (κ0), arccos1 (κ1), ntk or nngp (deep fully-connected)")
    p.add_argument("--depth", type=int_in(lo, hi), default=None, metavar="L",
                   help=f"ntk/nngp: number of weight layers L in [{lo}, {hi}] (default 2)")
    p.add_argument("--bias", type=float_in(*BIAS_RANGE), default=None, metavar="B",
                   help=f"ntk/nngp: bias variance β in [{BIAS_RANGE[0]:g}, {BIAS_RANGE[1]:g}] "
                        "added at every layer (default 0)")
    p.add_argument("--activation", default=None, choices=ACTIVATIONS,
                   help=f"ntk/nngp: activation, normalised by c_σ = 1/E[σ(z)²] "
                        f"(default {DEFAULT_ACTIVATION})")
    p.add_argument("--normalize", action="store_true",
                   help="divide the kernel by its value at u = 1 (e.g. NTK/L)")


def kernel_spec(args):
    """The ``KernelSpec`` (checked when built) named by :func:`add_kernel_arguments`' options.

    Options that do not apply (``--depth``, ``--bias``, ``--activation`` with an
    arc-cosine kernel) are refused rather than ignored."""
    from ntkviz.core.kernels.dotkernel import KernelSpec

    refuse_deep_options(args, [args.name])
    depth = 2 if args.depth is None else args.depth
    bias = 0.0 if args.bias is None else args.bias
    activation = DEFAULT_ACTIVATION if args.activation is None else args.activation
    return KernelSpec(args.name, depth, bias, activation, args.normalize)


def refuse_deep_options(args, kernels) -> None:
    """Refuse --depth, --bias and --activation (given, i.e. not None) when none of ``kernels``
    is a deep NTK/NNGP: the single arc-cosine maps have no depth, bias or activation."""
    if any(k not in ARCCOS_KERNELS for k in kernels):
        return
    for option in ("depth", "bias", "activation"):
        if getattr(args, option, None) is not None:
            raise CliError(f"--{option} applies to ntk and nngp only, not to {','.join(kernels)} (a single "
                           "arc-cosine map has no depth, bias or activation); leave it out")


#: the one look of a progress bar of a job that reports fractions and stages (tqdm):
#: ``stability: 40%|████      | [00:12<00:18, digit 3 of 10]``
STAGE_BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]"
_BARS: dict = {}


def stage_bar(label: str):
    """A tqdm bar on stderr for a job's fraction done (0..1, in thousandths) and its stage
    (``bar.set_postfix_str``): elapsed time and ETA, as ``gram``'s and ``classify``'s."""
    import sys

    from tqdm import tqdm

    return tqdm(total=1000, desc=label, file=sys.stderr, dynamic_ncols=True, mininterval=0.5,
                bar_format=STAGE_BAR_FORMAT)


def drive_progress(items, label: str):
    """Run an iterated job (``request.iterate()``: ``Progress`` items, then the response)
    to its end with a :func:`stage_bar` showing each item's fraction and message; returns
    the response."""
    from ntkviz.jobs._run import run_to_end

    bar = stage_bar(label)

    def show(item) -> None:
        bar.n = int(1000 * item.fraction)
        bar.set_postfix_str(getattr(item, "message", ""), refresh=False)
        bar.refresh()

    try:
        response = run_to_end(items, on_item=show)
        bar.n = 1000
        bar.set_postfix_str("", refresh=False)
        bar.refresh()
        return response
    finally:
        bar.close()


def progress_line(label: str, fraction: float, final: bool = False) -> None:
    """Progress of a job called ``label`` on stderr: one :func:`stage_bar` per label,
    closed (its line ended) when ``final``."""
    bar = _BARS.get(label)
    if bar is None:
        bar = _BARS[label] = stage_bar(label)
    bar.n = int(1000 * min(max(fraction, 0.0), 1.0))
    bar.refresh()
    if final:
        bar.close()
        del _BARS[label]
