"""``ntkviz infimnist``: Infinite-MNIST digits from the user's data folder, written as ``.npz``.

``ntkviz infimnist --data DIR --indexes 70000-70099[,A-B,I...] [--alpha A] [--translate]
--out FILE.npz`` writes ``images`` (N, H, W) uint8, ``labels`` (N,) uint8 and ``indexes``
(N,) int64, the format ``ntkviz gram`` and ``ntkviz classify`` read. Ranges are inclusive;
digit ``i >= n_test + n_train`` (70000 for MNIST) is a deformation of a training digit,
below that the MNIST digits themselves (test digits first). The generator is Bottou's
(:mod:`ntkviz.dataset.infimnist`); it reads the folder and never downloads anything.
"""
from __future__ import annotations

import argparse
import sys

from ntkviz.cli import CliError
from ntkviz.cli._common import float_in, output_path
from ntkviz.limits import INFIMNIST_ALPHA_RANGE, INFIMNIST_MAX_DIGITS
from ntkviz.limits import INFIMNIST_MAX_INDEX as MAX_INDEX

#: at least this many digits get a progress bar
_BAR_FROM = 20_000
_BLOCK = 8192


def index_ranges(text: str) -> list[tuple[int, int]]:
    """``--indexes``: comma-separated indexes ``I`` or inclusive ranges ``A-B`` (argparse ``type=``);
    ranges must not overlap and must hold at most the allowed number of digits in all."""
    ranges = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            raise argparse.ArgumentTypeError(f"expected comma-separated indexes or ranges A-B without "
                                             f"empty entries, got {text!r}")
        first, sep, last = token.partition("-")
        try:
            lo = int(first)
            hi = int(last) if sep else lo
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an index I or an inclusive range A-B of "
                                             f"non-negative integers, got {token!r}") from None
        for v in (lo, hi):
            if not 0 <= v <= MAX_INDEX:
                raise argparse.ArgumentTypeError(f"indexes must be in [0, {MAX_INDEX}], got {v}")
        if hi < lo:
            raise argparse.ArgumentTypeError(f"range {token!r} ends before it starts; write A-B with A <= B")
        ranges.append((lo, hi))
    ordered = sorted(ranges)
    for (a, b), (c, d) in zip(ordered, ordered[1:]):
        if c <= b:
            raise argparse.ArgumentTypeError(f"ranges {a}-{b} and {c}-{d} overlap; give each index once")
    total = sum(hi - lo + 1 for lo, hi in ranges)
    if total > INFIMNIST_MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"asks for {total} digits; at most {INFIMNIST_MAX_DIGITS} "
                                         "per file (split the ranges over several files)")
    return ranges


def register(sub) -> None:
    p = sub.add_parser(
        "infimnist", help="Infinite-MNIST digits from your data folder (Bottou's generator) -> .npz",
        description="Generate Infinite-MNIST digits (Loosli, Canu & Bottou 2007) exactly as Bottou's "
                    "generator does, from your copy of its data folder (the four MNIST IDX files, "
                    "fields_float_1522x28x28.bin and tangVec_float_60000x28x28.bin, plain or .gz); "
                    "nothing is downloaded. Indexes below 10000 are the MNIST test digits, 10000-69999 "
                    "the training digits, from 70000 on deformations of training digit "
                    "(i - 10000) mod 60000 (counts as read from your files). Output: .npz with images "
                    "(N, 28, 28) uint8, labels and indexes, readable by 'ntkviz gram' and 'ntkviz classify'.")
    p.add_argument("--data", required=True, metavar="DIR", help="the Infinite-MNIST data folder")
    p.add_argument("--indexes", required=True, type=index_ranges, metavar="A-B[,C-D,I...]",
                   help="digit indexes: single indexes and inclusive ranges, comma-separated "
                        f"(at most {INFIMNIST_MAX_DIGITS} digits)")
    lo, hi = INFIMNIST_ALPHA_RANGE
    p.add_argument("--alpha", type=float_in(lo, hi), default=1.0, metavar="A",
                   help=f"deformation scale α in [{lo:g}, {hi:g}] (default 1, the generator's; the "
                        "fields times the tangent vectors are scaled by ±α)")
    p.add_argument("--translate", action="store_true",
                   help="also move each deformed digit by one pixel (one of 8 moves or none, chosen "
                        "from the index), as mnist8m")
    p.add_argument("--out", required=True, metavar="FILE.npz", help="output .npz (written atomically)")
    p.set_defaults(func=run)


def run(args) -> int:
    import numpy as np

    from ntkviz._io import atomic_write
    from ntkviz.dataset.infimnist import DATA_FILES, InfiniteMNIST

    out = output_path(args.out, (".npz",),
                      [str(f) for name in DATA_FILES for f in (f"{args.data}/{name}", f"{args.data}/{name}.gz")])
    gen = InfiniteMNIST(args.data)
    indexes = np.concatenate([np.arange(lo, hi + 1, dtype=np.int64) for lo, hi in args.indexes])
    images = np.empty((len(indexes), *gen.shape), np.uint8)
    bar = None
    if len(indexes) >= _BAR_FROM:
        from tqdm import tqdm

        bar = tqdm(total=len(indexes), unit="digit", unit_scale=True, desc="infimnist", file=sys.stderr,
                   dynamic_ncols=True, mininterval=0.5)
    try:
        for start in range(0, len(indexes), _BLOCK):
            block = indexes[start:start + _BLOCK]
            images[start:start + len(block)] = gen.images(block, args.alpha, args.translate)
            if bar is not None:
                bar.update(len(block))
    finally:
        if bar is not None:
            bar.close()
    labels = gen.labels(indexes)
    atomic_write(out, lambda tmp: np.savez(tmp, images=images, labels=labels, indexes=indexes))
    deformed = int(np.count_nonzero(indexes >= gen.n_digits))
    print(f"infimnist: {len(indexes)} digits ({deformed} deformed, α = {args.alpha:g}, "
          f"{'with' if args.translate else 'without'} one-pixel moves) from {gen}; wrote {out}",
          file=sys.stderr)
    return 0
