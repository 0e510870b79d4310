"""``ntkviz lazy-sweep``: lazy ↔ rich sweeps over the output scale α and the width m, as CSV.

``ntkviz lazy-sweep [--alphas A1,A2,...] [--widths M1,M2,...] [--scaling ntk|meanfield|none]
[--train all|last|first] [--dim D] [--samples N] [--teacher M0] [--noise SIGMA] [--ridge DELTA]
[--lr ETA] [--steps S] [--seeds K] [--seed S] [--init symmetric|centered] [--gap G]
--out FILE.csv``: one row per (alpha, width) with the columns of
:data:`ntkviz.jobs.SWEEP_CSV_HEADER` — the mean over seeds of each measured quantity, then its
standard error (``_sem``), the finished runs, n, the ridge and the crossover α* of the width.
Empty cells where a quantity does not apply (the linearisation of the closed-form last layer,
κ_α when only the first layer trains) or fewer than two seeds finished (``_sem``). The
method: :class:`ntkviz.jobs.LazySweepRequest`. Ctrl+C writes the rows finished so far and
exits 130.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from ntkviz.cli import CliError
from ntkviz.cli._common import float_in, int_in, output_path, write_csv
from ntkviz.limits import (ALPHA_RANGE, INITS, LR_RANGE, SEED_RANGE, STEPS_RANGE, TEACHER_RANGE,
                           TRAIN_DIM_RANGE, TRAIN_SAMPLES_RANGE, TRAIN_WIDTH_RANGE)

#: figure formats that come with the sweep view of the Lazy training tab
FIGURE_SUFFIXES = (".png", ".svg")


def register(sub) -> None:
    from ntkviz.limits import TRAIN_LAYERS as LAYERS, TRAIN_NOISE_RANGE as NOISE_RANGE
    from ntkviz.core.training.sweep import DEFAULT_ALPHAS, GAP_THRESHOLD, SCALINGS
    from ntkviz.limits import LAZY_SEEDS_RANGE, RIDGE_RANGE

    p = sub.add_parser(
        "lazy-sweep", help="lazy vs rich training: sweeps over the output scale α and the width m (CSV)",
        description="Train a two-layer ReLU student on a teacher (inputs on the sphere S^(d-1)) at every "
                    "output scale α and width m, on several seeds, to the time t = lr*steps with the same "
                    "step for every α, and write per (α, m) the mean and standard error over seeds of the "
                    "test loss of the net, of its linearisation and of the infinite-width kernel, the "
                    "train loss, ||w - w0||/||w0||, the kernel drift, the share of flipped ReLU patterns "
                    "and the laziness kappa_alpha at initialisation (Chizat, Oyallon & Bach 2019), with "
                    "the crossover alpha* where net and linearisation separate.")
    lo, hi = ALPHA_RANGE
    p.add_argument("--alphas", default=",".join(f"{a:g}" for a in DEFAULT_ALPHAS), metavar="A1,A2,...",
                   help=f"distinct output scales α in [{lo:g}, {hi:g}] (default: 13 values, 1e-2 to 1e4)")
    lo, hi = TRAIN_WIDTH_RANGE
    p.add_argument("--widths", default="20", metavar="M1,M2,...",
                   help=f"distinct widths m in [{lo}, {hi}], even with --init symmetric (default 20)")
    p.add_argument("--scaling", default="ntk", choices=SCALINGS,
                   help="output factor: ntk 1/sqrt(m); meanfield 1/m with steps lr*m (Chizat & Bach); "
                        "none 1 (the paper's Fig. 1) (default ntk)")
    p.add_argument("--train", default="all", choices=LAYERS,
                   help="trained layers: all, last (random features: first layer frozen) or first "
                        "(default all)")
    p.add_argument("--dim", type=int_in(*TRAIN_DIM_RANGE), default=2, metavar="D",
                   help=f"input dimension d in [{TRAIN_DIM_RANGE[0]}, {TRAIN_DIM_RANGE[1]}], inputs on "
                        "S^(d-1) (default 2: the circle)")
    p.add_argument("--samples", type=int_in(*TRAIN_SAMPLES_RANGE), default=15, metavar="N",
                   help=f"training inputs n in [{TRAIN_SAMPLES_RANGE[0]}, {TRAIN_SAMPLES_RANGE[1]}] "
                        "(default 15)")
    p.add_argument("--teacher", type=int_in(*TEACHER_RANGE), default=3, metavar="M0",
                   help=f"teacher neurons in [{TEACHER_RANGE[0]}, {TEACHER_RANGE[1]}] (default 3)")
    p.add_argument("--noise", type=float_in(*NOISE_RANGE), default=0.0, metavar="SIGMA",
                   help="std of the Gaussian noise on the training targets (test loss against the "
                        "noiseless teacher; default 0)")
    p.add_argument("--ridge", type=float_in(*RIDGE_RANGE), default=None, metavar="DELTA",
                   help="with --train last: solve the last layer in closed form, min ||Phi v - y||^2 + "
                        "DELTA ||v||^2 (0: minimum-norm least squares) instead of gradient descent")
    p.add_argument("--lr", type=float_in(*LR_RANGE), default=0.005, metavar="ETA",
                   help="step size, the same for every α (small α needs about lr <= α/2; default 0.005)")
    p.add_argument("--steps", type=int_in(*STEPS_RANGE), default=10000, metavar="S",
                   help="gradient steps: every run stops at t = lr*steps (default 10000)")
    p.add_argument("--seeds", type=int_in(*LAZY_SEEDS_RANGE), default=3, metavar="K",
                   help=f"runs per point in [{LAZY_SEEDS_RANGE[0]}, {LAZY_SEEDS_RANGE[1]}], each with its "
                        "own teacher, data and initialisation (default 3)")
    p.add_argument("--seed", type=int_in(*SEED_RANGE), default=0, metavar="S",
                   help="first seed; runs use seed, seed+1, ... (default 0)")
    p.add_argument("--init", default=None, choices=INITS,
                   help="initialisation (default: centered with --train last, m independent random "
                        "features; symmetric otherwise, f(w0) = 0 in pairs)")
    p.add_argument("--gap", type=float_in(1e-6, 10.0), default=GAP_THRESHOLD, metavar="G",
                   help="relative gap |L_net - L_lin|/L_lin of the test losses that defines alpha* "
                        f"(default {GAP_THRESHOLD:g})")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="output CSV")
    p.set_defaults(func=run)


def _numbers(option: str, text: str, kind: type, lo, hi) -> tuple:
    from ntkviz._text import parse_list

    try:
        values = parse_list(option, text, kind)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if not values:
        raise CliError(f"{option} needs at least one value")
    for v in values:
        if not lo <= v <= hi:
            raise CliError(f"{option} must be in [{lo:g}, {hi:g}], got {v:g}")
    if len(set(values)) != len(values):
        raise CliError(f"{option} lists a value twice: {text!r}")
    return values


def _check_out(path: str) -> Path:
    suffix = Path(path).suffix.lower()
    if suffix in FIGURE_SUFFIXES:
        raise CliError(f"--out {Path(path).name!r}: the sweep's figures come with the sweep view of the "
                       "Lazy training tab; write a .csv table for now")
    return output_path(path, (".csv",))


def run(args) -> int:
    alphas = _numbers("--alphas", args.alphas, float, *ALPHA_RANGE)
    widths = _numbers("--widths", args.widths, int, *TRAIN_WIDTH_RANGE)
    if args.ridge is not None and args.train != "last":
        raise CliError(f"--ridge applies to --train last only (the closed-form last layer), "
                       f"got --train {args.train}")
    out = _check_out(args.out)
    from tqdm import tqdm

    from ntkviz.jobs import LazySweepRequest
    from ntkviz.jobs._run import run_to_end

    request = LazySweepRequest(alphas=alphas, widths=widths, scaling=args.scaling, layers=args.train,
                               dim=args.dim, samples=args.samples, teacher=args.teacher,
                               noise=args.noise, ridge=args.ridge, lr=args.lr, steps=args.steps,
                               seeds=args.seeds, seed=args.seed, init=args.init, gap=args.gap)
    latest = {"response": None}
    bar = tqdm(total=request.run_count, desc="lazy-sweep", unit="run", file=sys.stderr,
               dynamic_ncols=True, mininterval=0.5,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total} runs "
                          "[{elapsed}<{remaining}]")

    def progress(item) -> None:
        latest["response"] = item.partial
        bar.update(round(item.fraction * request.run_count, 1) - bar.n)  # drawn at most every 0.5 s

    start = time.perf_counter()
    try:
        response = run_to_end(request.iterate(), on_item=progress)
    except KeyboardInterrupt:
        bar.close()
        partial = latest["response"]
        header, rows = ([], []) if partial is None else partial.csv_table()
        if rows:
            write_csv(out, header, rows)
        finished = 0 if partial is None else int(partial.runs().sum())
        print(f"ntkviz lazy-sweep: interrupted after {finished} of {request.run_count} runs; "
              + (f"wrote {len(rows)} rows to {out}" if rows else f"nothing written to {out}"),
              file=sys.stderr)
        return 130
    finally:
        bar.close()
    header, rows = response.csv_table()
    write_csv(out, header, rows)
    for note in response.notes:
        print(f"note: {note}", file=sys.stderr)
    stars = ", ".join(f"m = {m}: " + (f"{c.alpha:.3g}" if c.alpha == c.alpha else "none")
                      for m, c in ((m, response.crossover(i)) for i, m in enumerate(request.widths)))
    print(f"lazy-sweep: {request.run_count} runs ({len(alphas)} α × {len(widths)} width(s) × "
          f"{args.seeds} seed(s)) in {time.perf_counter() - start:.1f} s; α* ({args.gap:.0%} gap) "
          f"{stars}; wrote {len(rows)} rows to {out}", file=sys.stderr)
    return 0
