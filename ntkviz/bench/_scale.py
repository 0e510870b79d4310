"""Benchmarks of dataset-scale Gram matrices: ``python -m ntkviz.bench._scale [--images FILE]``.

* pairs/s/core of the same M1 NTK tiles computed in-process (numba threads) and
  through a local Dask cluster of single-threaded worker processes (goal: Dask
  >= 90 % of in-process);
* peak resident memory (``ru_maxrss`` of a child process) while a Zarr store
  of N images is filled tile by tile (256 x 256 tiles), against the N^2 * 8 bytes
  the whole matrix would take. The child uses a cheap one-layer architecture on
  4x4-average-pooled images (7x7) so that many tiles of a large N fit in a
  benchmark run; memory per tile does not depend on the image size.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from ntkviz.bench import Result, machine

__all__ = ["run", "main"]


def _digits(n: int, path: str | None = None) -> np.ndarray:
    if path:
        from ntkviz.dataset import load_dataset

        x = load_dataset(path).images
    else:
        from ntkviz.core.deformations.digits import load_digits

        x = load_digits()[0] / 255.0
    reps = -(-n // len(x))
    return np.ascontiguousarray(np.concatenate([x] * reps)[:n])


def _rate(a: np.ndarray, tile: int, client) -> float:
    import numba

    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.dataset import GramRun
    from ntkviz.dataset._gram import client_cores

    run_ = GramRun(a, None, PRESETS["M1"], ("ntk",), tile)
    t0 = time.perf_counter()
    for _ in run_.events(client):
        pass
    seconds = time.perf_counter() - t0
    cores = numba.get_num_threads() if client is None else client_cores(client)
    return run_.pairs_computed / seconds / cores


def dask_vs_local(repeats: int = 3, n: int = 48, tile: int = 8, workers: int = 2) -> list[Result]:
    """Median pairs/s/core of the same tiles in-process and on ``workers`` Dask processes."""
    from ntkviz.dataset import dask_client

    a = _digits(n)
    _rate(a[:4], 2, None)  # warm up numba
    local, dask = [], []
    with dask_client(workers=workers) as client:
        _rate(a[:4], 2, client)  # warm up the workers
        for _ in range(repeats):
            local.append(_rate(a, tile, None))
            dask.append(_rate(a, tile, client))
    lm, dm = statistics.median(local), statistics.median(dask)
    pairs = n * (n + 1) // 2
    return [Result(f"M1 NTK in-process, {pairs} pairs, tiles {tile}", lm, unit="pairs/s/core"),
            Result(f"M1 NTK Dask {workers} worker processes, same tiles", dm, unit="pairs/s/core",
                   note=f"{100 * dm / lm:.0f} % of in-process (goal >= 90 %)")]


def _rss_child(path: str | None, n: int, tiles: int, tile: int, model: str) -> None:
    from ntkviz.core.conv.architecture import PRESETS, Architecture, Layer
    from ntkviz.dataset import GramRun

    x = _digits(n, path)
    if model in PRESETS:  # the real thing: 28x28 digits
        arch = PRESETS[model]
    else:  # cheap: 7x7 average-pooled digits, one layer
        x = x.reshape(n, 7, 4, 7, 4).mean(axis=(2, 4))
        arch = Architecture((Layer(3, 2, "average", "relu"),))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with tempfile.TemporaryDirectory() as tmp:
        run_ = GramRun(x, None, arch, ("ntk",), tile, {"ntk": os.path.join(tmp, "K.zarr")})
        t0 = time.perf_counter()
        for _ in run_.events():
            if run_.tiles_computed >= tiles:
                break
        secs = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"{base / 1024:.1f} {peak / 1024:.1f} {run_.tiles_computed} {run_.tiles_total} "
              f"{run_.pairs_computed} {secs:.1f}")


def rss(path: str | None = None, n: int = 5000, tiles: int = 40, tile: int = 256,
        model: str = "cheap") -> list[Result]:
    """Peak RSS (MiB) of a child filling ``tiles`` tiles of an N-image store (``model``: a
    preset on the 28x28 digits, or "cheap": one layer on 7x7 pooled digits)."""
    out = subprocess.run([sys.executable, "-m", "ntkviz.bench._scale", "--rss-child", str(n), str(tiles),
                          str(tile), "--model", model] + (["--images", path] if path else []),
                         capture_output=True, text=True, check=True).stdout.split()
    base, peak, done, total, pairs, secs = out
    whole = n * n * 8 / 2**20
    return [Result(f"peak RSS, N={n}, {model}, tile {tile}: {done} of {total} tiles ({pairs} pairs, {secs} s)",
                   float(peak), unit="MiB",
                   note=f"after imports {float(base):.0f} MiB; the whole matrix would be {whole:.0f} MiB")]


def run(repeats: int = 3) -> list[Result]:
    return dask_vs_local(repeats) + rss()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m ntkviz.bench._scale", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--images", help="images for the memory benchmark (default: bundled digits repeated)")
    p.add_argument("--n", type=int, default=5000)
    p.add_argument("--tiles", type=int, default=40, help="tiles the memory benchmark fills")
    p.add_argument("--model", default="cheap", help="memory benchmark: M1..M4 on 28x28, or cheap (default)")
    p.add_argument("--skip-rate", action="store_true", help="only the memory benchmark")
    p.add_argument("--rss-child", nargs=3, type=int, metavar=("N", "TILES", "TILE"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.rss_child:
        _rss_child(args.images, *args.rss_child, args.model)
        return 0
    print(f"machine: {machine()}")
    rates = [] if args.skip_rate else dask_vs_local(args.repeats)
    for result in rates + rss(args.images, args.n, args.tiles, model=args.model):
        print("  " + result.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
