"""``ntkviz classify``: kernel ridge classification accuracy of CKN, NTK, pixel and scattering kernels.

``ntkviz classify --train TRAIN --test TEST --model M1 --kernels ckn,ntk,pixels[,scattering]
--train-sizes 100,300,1000 [--ridge VALUE|auto] [--deform rotation:0,5,10,20] [--splits K]
[--scattering-j J --scattering-l L]
[--workers N | --scheduler ADDRESS] [--cache DIR] --out results.csv`` writes
``kernel,train_size,deformation,amplitude,accuracy,train_classes,unseen_test_labels,n_test,
accuracy_ci_low,accuracy_ci_high`` (accuracy in [0, 1]; the labels in the training set of that
size and the test images whose label it never saw, warned about in one line when not 0; the
number of test images and the 95 % Wilson interval of the accuracy). ``--splits K`` repeats
the classification on K splits — split 0 is the files' own, splits 1..K−1 divide the union of
both files at random into sets of the same sizes — and adds the columns ``split,accuracy_sem``
and, per kernel, size and amplitude, a row ``split = mean`` (mean, standard error and
Student-t 95 % interval over the splits, clipped to [0, 1]).
Method: :mod:`ntkviz.dataset.classify` (one-vs-rest kernel ridge regression).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from ntkviz.cli import CliError
from ntkviz.cli._common import int_in, output_path
from ntkviz.cli._gram import add_engine_arguments, add_model_argument, check_engine_arguments, load_model
from ntkviz.cli._scattering_args import add_scattering_arguments, scattering_params
from ntkviz.limits import CLASSIFY_SPLITS_RANGE, SEED_RANGE


def register(sub) -> None:
    from ntkviz.dataset._names import ALL_KERNELS, DEFORM_FAMILIES, KERNELS

    p = sub.add_parser(
        "classify", help="kernel ridge classification accuracy: CKN vs NTK vs pixels (clean, deformed)",
        description="One-vs-rest kernel ridge regression on labelled images with the exact CKN and "
                    "convolutional NTK (one pass of the conv engine gives both) and a Gaussian kernel on "
                    "pixels (median-distance bandwidth), or on the scattering coefficients (kernel scattering); "
                    "writes the test accuracy per kernel, training "
                    "size and deformation amplitude to a CSV. Data: .npz with 'images' and 'labels' or "
                    "MNIST *-images-idx3-ubyte[.gz] with its labels file beside it; uint8 is divided by "
                    "255.")
    p.add_argument("--train", required=True, metavar="FILE", help="labelled training images")
    p.add_argument("--test", required=True, metavar="FILE", help="labelled test images")
    add_model_argument(p)
    p.add_argument("--kernels", default=",".join(KERNELS), metavar="LIST",
                   help=f"comma-separated subset of {','.join(ALL_KERNELS)} (default {','.join(KERNELS)})")
    p.add_argument("--train-sizes", default="100", metavar="N1,N2,...",
                   help="training set sizes (nested subsets of one seeded permutation; default 100)")
    p.add_argument("--ridge", default="auto", metavar="VALUE|auto",
                   help="ridge relative to the mean kernel diagonal, or auto: k-fold cross-validation "
                        "on the training set only (default)")
    p.add_argument("--deform", metavar="FAMILY:A1,A2,...",
                   help=f"evaluate on deformed test images; FAMILY one of {', '.join(DEFORM_FAMILIES)} "
                        "(amplitude = degrees, px, scale factor, shear, px, α)")
    p.add_argument("--cache", metavar="DIR", help="keep the conv Gram matrices as Zarr stores in DIR "
                                                  "(reused by later runs with the same inputs)")
    p.add_argument("--seed", type=int_in(*SEED_RANGE), default=0,
                   help=f"seed of the training permutation and CV folds, in [{SEED_RANGE[0]}, {SEED_RANGE[1]}]")
    lo, hi = CLASSIFY_SPLITS_RANGE
    p.add_argument("--splits", type=int_in(lo, hi), default=1, metavar="K",
                   help=f"random train/test splits, in [{lo}, {hi}] (default 1: the files' own): split 0 is the "
                        "files' own, the others divide the union of both files at random into sets of the same "
                        "sizes; adds the columns split,accuracy_sem and the mean over the splits")
    add_scattering_arguments(p, "--kernels")
    add_engine_arguments(p)
    p.add_argument("--out", required=True, metavar="results.csv", help="output CSV")
    p.set_defaults(func=run)


def _kernels(text: str) -> tuple[str, ...]:
    from ntkviz._text import parse_list
    from ntkviz.dataset._names import ALL_KERNELS

    try:
        return parse_list("--kernels", text, str, ALL_KERNELS, allow_blank=False)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def _sizes(text: str, n_train: int) -> tuple[int, ...]:
    from ntkviz._text import parse_list

    if n_train < 2:
        raise CliError(f"--train holds {n_train} image(s): too small a training set, kernel ridge "
                       "classification needs at least 2 images")
    try:
        sizes = parse_list("--train-sizes", text, int, allow_blank=False)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    for n in sizes:
        if not 2 <= n <= n_train:
            raise CliError(f"--train-sizes must be in [2, {n_train}] (the training set size), got {n}")
    return sizes


def _ridge(text: str) -> float | None:
    if text == "auto":
        return None
    try:
        value = float(text)
    except ValueError:
        raise CliError(f"--ridge must be a number > 0 or 'auto', got {text!r}") from None
    if not 0 < value <= 1e6:
        raise CliError(f"--ridge must be in (0, 1e6] or 'auto', got {text!r}")
    return value


def run(args) -> int:
    from ntkviz._io import write_csv
    from ntkviz.dataset import dask_client, load_dataset
    from ntkviz.dataset.classify import classify_splits_iter, parse_deform

    arch = load_model(args.model)
    kernels = _kernels(args.kernels)
    scattering = scattering_params(args, "scattering" in kernels, "--kernels")
    ridge = _ridge(args.ridge)
    out = output_path(args.out, (".csv",), [args.train, args.test])
    family, amps = ("none", (0.0,)) if args.deform is None else parse_deform(args.deform)
    train, test = load_dataset(args.train), load_dataset(args.test)
    ytr, yte = train.require_labels("--train"), test.require_labels("--test")
    if train.images.shape[1:] != test.images.shape[1:]:
        raise CliError(f"--test images have shape {test.images.shape[1:]}, --train images "
                       f"{train.images.shape[1:]}; both must have the same image size")
    sizes = _sizes(args.train_sizes, len(train))
    if scattering is not None:
        try:
            scattering.grid(*train.images.shape[1:3])
        except ValueError as exc:
            raise CliError(f"--kernels scattering: {exc}") from None
    for k in kernels:
        if k in ("ckn", "ntk"):
            try:
                arch.check_mode(k)
            except ValueError as exc:
                raise CliError(f"--kernels {k}: {exc}") from None
    check_engine_arguments(args)
    if args.cache is not None:
        cache = Path(args.cache)
        if cache.exists() and not cache.is_dir():
            raise CliError(f"--cache {cache}: exists and is not a folder")
        cache.mkdir(parents=True, exist_ok=True)
    from tqdm import tqdm

    start = time.perf_counter()
    with dask_client(args.workers, args.scheduler) as client:
        bar = tqdm(total=1000, desc="classify", file=sys.stderr, dynamic_ncols=True, mininterval=0.5,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]")
        try:
            item = None
            for item in classify_splits_iter(_split_sets(train.images, ytr, test.images, yte, args.seed),
                                             args.splits, arch=arch, kernels=kernels, train_sizes=sizes,
                                             ridge=ridge, family=family, amplitudes=amps, cache_dir=args.cache,
                                             client=client, seed=args.seed, scattering=scattering):
                bar.n = int(1000 * item.fraction)
                bar.set_postfix_str(item.stage, refresh=False)
                bar.refresh()
        finally:
            bar.close()
    result = item.result
    write_csv(out, *result.csv_table())
    note = result.coverage_warning()
    if note:
        print(f"ntkviz classify: warning: {note}", file=sys.stderr)
    print(f"classify: {len(result.table_rows())} rows in {time.perf_counter() - start:.1f} s; "
          f"{_summary(result, max(sizes), amps[0], family)}; wrote {out}", file=sys.stderr)
    return 0


def _split_sets(train_images, train_labels, test_images, test_labels, seed: int):
    """Split s of ``--splits``: 0 the files' own; others a random division of their union
    (:func:`ntkviz.dataset.classify.split_indices`) into sets of the same sizes."""
    import numpy as np

    from ntkviz.dataset.classify import split_indices

    def sets(split: int):
        if split == 0:
            return train_images, train_labels, test_images, test_labels
        images = np.concatenate([train_images, test_images])
        labels = np.concatenate([train_labels, test_labels])
        tr, te = split_indices(len(labels), len(test_labels), seed, split)
        return images[tr], labels[tr], images[te], labels[te]

    return sets


def _summary(result, n: int, amplitude: float, family: str) -> str:
    """The accuracies at the largest size and first amplitude, with their 95 % intervals."""
    several = result.splits > 1
    rows = [r for r in (result.mean_rows() if several else result.rows)
            if r.train_size == n and r.amplitude == amplitude]
    parts = ", ".join(f"{r.kernel} {r.accuracy:.3f}" + (f" ± {r.accuracy_sem:.3f} (s.e.)" if several else "")
                      + f" [{r.accuracy_ci_low:.3f}, {r.accuracy_ci_high:.3f}]" for r in rows)
    what = (f"mean over {result.splits} splits, [95 % t-interval]" if several
            else "[95 % Wilson interval]")
    return f"n={n}, {family} {amplitude:g}, n_test={result.tests}, {what}: {parts}"
