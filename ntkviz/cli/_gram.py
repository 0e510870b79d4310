"""``ntkviz gram``: exact CKN / convolutional-NTK Gram matrix of an image set, over tiles.

``ntkviz gram --model {M1..M4|FILE.json} --images FILE [--images-b FILE] --mode {ckn,ntk}
--out K.zarr|K.npy [--tile-size 256] [--workers N | --scheduler ADDRESS]``.

Inputs: ``.npy`` (N, H, W[, C]), ``.npz`` (``images``), MNIST IDX
``*-images-idx3-ubyte[.gz]``; uint8 images are scaled by 1/255, other dtypes
used as stored. The matrix is a grid of tiles: with ``--out K.zarr`` each tile
is written atomically with its sha256 into a Zarr store (array ``gram``,
metadata in the group attribute ``ntkviz``), so rerunning the same command
after a crash or Ctrl+C computes only the missing tiles; a store made with
other inputs, architecture, mode, tile size or ntkviz version is refused.
``--out K.npy`` keeps the matrix in memory (small N). Conventions of the
kernels: :mod:`ntkviz.core.conv` (reference albietz/ckn_kernel HEAD).
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

from ntkviz.cli import CliError
from ntkviz.cli._common import positive_int
from ntkviz.limits import GRAM_TILE_RANGE


def register(sub) -> None:
    p = sub.add_parser(
        "gram", help="exact CKN / convolutional NTK Gram matrix of images, tiled (Zarr, Dask)",
        description="Exact infinite-width CKN or convolutional NTK Gram matrix (Bietti & Mairal 2019, "
                    "reference conventions of albietz/ckn_kernel HEAD) of an image set, or the cross "
                    "matrix against a second set, computed tile by tile into a resumable Zarr store. "
                    "Images: .npy (N,H,W[,C]), .npz with 'images', or MNIST *-images-idx3-ubyte[.gz]; "
                    "uint8 values are divided by 255, other dtypes are used as stored.")
    add_model_argument(p)
    p.add_argument("--images", required=True, metavar="FILE", help="images: .npy, .npz or MNIST IDX")
    p.add_argument("--images-b", metavar="FILE", help="second set: compute the (N, M) cross matrix")
    p.add_argument("--mode", required=True, choices=("ckn", "ntk"), help="ckn (last layer trained) or ntk")
    p.add_argument("--out", required=True, metavar="K.zarr|K.npy",
                   help="output: a Zarr store (tiled, resumable; read it with "
                        "zarr.open_group(path)['gram'][:]) or a .npy file (small N, not resumable)")
    p.add_argument("--tile-size", type=int, default=256, metavar="T",
                   help="tile side in images (default 256; one Zarr chunk per tile)")
    add_engine_arguments(p)
    p.set_defaults(func=run)


def add_model_argument(p, default: str | None = None) -> None:
    """``--model``: a conv architecture, read by :func:`load_model`; required unless a
    ``default`` preset is given."""
    p.add_argument("--model", required=default is None, default=default, metavar="M1..M4|FILE.json",
                   help="preset M1, M2, M3, M4 or a JSON file: a list of layer dicts (npatch, subsampling, "
                        "pooling, kernel, sigma, poolfactor) or {\"layers\": [...], \"patch_normalization\": ...}"
                        + ("" if default is None else f" (default {default})"))


def add_engine_arguments(p) -> None:
    eng = p.add_mutually_exclusive_group()
    eng.add_argument("--workers", type=positive_int, metavar="N",
                     help="start a local Dask cluster of N single-threaded worker processes "
                          "(default: compute in this process on all numba threads)")
    eng.add_argument("--scheduler", metavar="ADDRESS",
                     help="use an existing Dask cluster, e.g. tcp://HOST:8786 (started with "
                          "'dask scheduler' and 'dask worker tcp://HOST:8786')")


def check_engine_arguments(args) -> None:
    """Refuse a ``--scheduler`` address where no Dask scheduler answers (within seconds),
    before the command writes anything."""
    if getattr(args, "scheduler", None) is not None:
        from ntkviz.dataset._gram import check_scheduler

        check_scheduler(args.scheduler)


def load_model(spec: str):
    """A preset name or a JSON architecture file -> Architecture (errors name the file)."""
    from ntkviz.core.conv.architecture import PRESETS, architecture_from_dict

    if spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec)
    if path.suffix.lower() != ".json":
        raise CliError(f"--model must be one of {', '.join(PRESETS)} or a .json file, got {spec!r}")
    try:
        obj = json.loads(path.read_text())
    except OSError as exc:
        raise CliError(f"{path}: cannot read model file ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise CliError(f"{path}: invalid JSON (nested too deeply)") from None
    try:
        return architecture_from_dict(obj)
    except ValueError as exc:
        raise CliError(f"{path}: {exc}") from None


def check_output(out: str, inputs: list[str | None], suffixes=(".zarr", ".npy")) -> Path:
    """An output path: right suffix, writable existing folder, not one of the inputs."""
    p = Path(out)
    if p.suffix.lower() not in suffixes:
        raise CliError(f"--out must end in {' or '.join(suffixes)}, got {p.name!r}")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise CliError(f"--out folder does not exist: {parent}")
    resolved = p.resolve()
    for name in inputs:
        if name is not None and Path(name).resolve() == resolved:
            raise CliError(f"--out {p} is one of the inputs; refusing to overwrite an input")
    from ntkviz.cli._common import unwritable_folder

    if p.suffix.lower() == ".zarr" and p.is_dir():  # tiles are written inside the store
        reason = unwritable_folder(p)
        if reason:
            raise CliError(f"--out {p}: store is not writable ({reason})")
    else:  # a new store, or a file replaced through a temporary one beside it
        reason = unwritable_folder(parent)
        if reason:
            raise CliError(f"--out folder {parent} is not writable ({reason})")
    return p


def progress_bar(total: int, initial: int, label: str):
    """A tqdm bar on stderr counting kernel pairs (rate and ETA)."""
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="pair", unit_scale=True, desc=label, file=sys.stderr,
                dynamic_ncols=True, smoothing=0.1, mininterval=0.5)


def skip(bar, pairs: int) -> None:
    """Advance ``bar`` by ``pairs`` found already done (the tiles a resumed run skips)
    without counting them in its rate and ETA: they become part of the bar's start
    (``initial``), as if the bar had begun there."""
    bar.initial += pairs
    bar.n += pairs
    bar.last_print_n += pairs  # the next update's rate sees only the pairs computed since
    bar.refresh()


def drive(run, client, label: str) -> float:
    """Run a :class:`~ntkviz.dataset.GramRun` with a tqdm bar; returns the seconds spent.
    The rate counts computed pairs only (a resumed run's skipped tiles do not make it
    look thousands of times faster)."""
    bar = progress_bar(run.total_pairs, 0, label)
    start = time.perf_counter()
    try:
        for ev in run.events(client):
            skipped = run.skipped_pairs(ev) if ev.tile is not None else 0
            if skipped:
                skip(bar, skipped)
            if ev.pairs:
                bar.update(ev.pairs)
    finally:
        bar.close()
    return time.perf_counter() - start


def summary(label: str, run, seconds: float, client) -> str:
    """One line: pairs, tiles, seconds, pairs/s/core."""
    import numba

    from ntkviz.dataset._gram import client_cores, pairs_per_second_per_core

    cores = numba.get_num_threads() if client is None else client_cores(client)
    rate = pairs_per_second_per_core(run.pairs_computed, seconds, cores)
    rate_text = f"{rate:.1f} pairs/s/core" if run.pairs_computed else "nothing to compute"
    damaged = run.tiles_damaged
    repaired = f"; {damaged} damaged tile{'s' if damaged > 1 else ''} recomputed" if damaged else ""
    scaled = ""
    if run.scale != 1.0:  # a power of two: say which, and why the values are still exact
        power = -(math.frexp(run.scale)[1] - 1)
        scaled = (f"; images scaled by 2^{power} for the computation, exact since K(c x, c y) = "
                  f"c² K(x, y)")
    return (f"{label}: {run.pairs_computed} pairs in {run.tiles_computed} tile(s) "
            f"({run.tiles_skipped} of {run.tiles_total} already done{repaired}) in {seconds:.1f} s on "
            f"{cores} core(s): {rate_text}{scaled}")


def run(args) -> int:
    import numpy as np

    from ntkviz._io import atomic_write
    from ntkviz.dataset import GramRun, dask_client, load_dataset

    lo, hi = GRAM_TILE_RANGE
    if not lo <= args.tile_size <= hi:
        raise CliError(f"--tile-size must be in [{lo}, {hi}], got {args.tile_size}")
    arch = load_model(args.model)
    out = check_output(args.out, [args.images, args.images_b])
    a = load_dataset(args.images).images
    b = None if args.images_b is None else load_dataset(args.images_b).images
    try:
        arch.check_mode(args.mode)
    except ValueError as exc:
        raise CliError(f"--mode: {exc}") from None
    check_engine_arguments(args)
    zarr_out = out.suffix.lower() == ".zarr"
    run_ = GramRun(a, b, arch, (args.mode,), args.tile_size, {args.mode: out} if zarr_out else None)
    with dask_client(args.workers, args.scheduler) as client:
        seconds = drive(run_, client, "gram")
        line = summary("gram", run_, seconds, client)
    if not zarr_out:
        K = run_.matrix(args.mode)
        atomic_write(out, lambda tmp: np.save(tmp, K))
    print(f"{line}; wrote {out}", file=sys.stderr)
    return 0
