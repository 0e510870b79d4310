"""``ntkviz lazy-sweep``: lazy ↔ rich sweeps over the output scale α and the width m, as a
table or as the sweep figure of the Lazy training tab.

``ntkviz lazy-sweep [--alphas A1,A2,...] [--widths M1,M2,...] [--scaling ntk|meanfield|none[,...]]
[--train all|last|first] [--dim D] [--samples N] [--teacher M0] [--noise SIGMA] [--ridge DELTA]
[--lr ETA] [--steps S] [--seeds K] [--seed S] [--init symmetric|centered] [--gap G]
[--view alpha|width|double-descent] [--width PX] --out FILE.csv|.png|.svg``.

``.csv``: one row per (alpha, width) of each scaling with the columns of
:data:`ntkviz.jobs.SWEEP_CSV_HEADER` — the mean over seeds of each measured quantity, then its
standard error (``_sem``), the finished runs, n, the ridge and the crossover α* of the width.
Empty cells where a quantity does not apply (the linearisation of the closed-form last layer,
κ_α when only the first layer trains) or fewer than two seeds finished (``_sem``). The
method: :class:`ntkviz.jobs.LazySweepSetRequest` (one :class:`ntkviz.jobs.LazySweepRequest` per
scaling). Ctrl+C writes the rows finished so far and exits 130.

``.png``/``.svg``: the same sweep drawn by the tab's sweep view, through the one export path
(:func:`ntkviz.cli._export.run_export` with the training panel's model: the options become its
``sweep_*`` and data fields); ``--view`` chooses the figure (default: the double descent for
``--train last`` over several widths, the width view for one α and several widths, else the
α-sweep).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from ntkviz.cli import CliError
from ntkviz.cli._common import float_in, int_in, output_path, write_csv
from ntkviz.limits import (ALPHA_RANGE, INITS, LR_RANGE, SEED_RANGE, STEPS_RANGE, TEACHER_RANGE,
                           TRAIN_DIM_RANGE, TRAIN_SAMPLES_RANGE, TRAIN_WIDTH_RANGE)

#: figure formats: the sweep view of the Lazy training tab
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")
#: --view -> the sweep figure (``sweep_plot`` of the training model)
VIEWS = {"alpha": "alpha", "width": "width", "double-descent": "double_descent"}


def register(sub) -> None:
    from ntkviz.limits import TRAIN_LAYERS as LAYERS, TRAIN_NOISE_RANGE as NOISE_RANGE
    from ntkviz.core.training.sweep import DEFAULT_ALPHAS, GAP_THRESHOLD, SCALINGS
    from ntkviz.limits import LAZY_SEEDS_RANGE, RIDGE_RANGE

    p = sub.add_parser(
        "lazy-sweep", help="lazy vs rich training: sweeps over the output scale α and the width m "
                           "(CSV, or the sweep figure as PNG/SVG)",
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
    p.add_argument("--scaling", default="ntk", metavar="NAMES",
                   help=f"output factor, {', '.join(SCALINGS)}: ntk 1/sqrt(m); meanfield 1/m with steps "
                        "lr*m (Chizat & Bach); none 1 (the paper's Fig. 1); several comma-separated: one "
                        "sweep each (default ntk)")
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
    p.add_argument("--view", default=None, choices=tuple(VIEWS),
                   help="figure of .png/.svg: alpha (against α), width (against m, per scaling) or "
                        "double-descent (test loss against m/n); default: double-descent with --train "
                        "last and several widths, width with one α and several widths, else alpha")
    from ntkviz.cli._export import add_size_options

    add_size_options(p)
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output: .csv (one row per (α, width)), .png or .svg (the tab's sweep figure)")
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


def _progress_bar(total: int):
    from tqdm import tqdm

    return tqdm(total=total, desc="lazy-sweep", unit="run", file=sys.stderr, dynamic_ncols=True,
                mininterval=0.5, bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total} runs "
                                            "[{elapsed}<{remaining}]")


def _plot(args, alphas, widths) -> str:
    """The sweep figure of a .png/.svg (``--view``, or chosen from the grid)."""
    if args.view is not None:
        return VIEWS[args.view]
    if args.train == "last" and len(widths) > 1:
        return "double_descent"
    return "width" if len(alphas) == 1 and len(widths) > 1 else "alpha"


def run(args) -> int:
    from ntkviz.cli._export import check_size

    alphas = _numbers("--alphas", args.alphas, float, *ALPHA_RANGE)
    widths = _numbers("--widths", args.widths, int, *TRAIN_WIDTH_RANGE)
    scalings = _scalings(args.scaling)
    if args.ridge is not None and args.train != "last":
        raise CliError(f"--ridge applies to --train last only (the closed-form last layer), "
                       f"got --train {args.train}")
    figure = Path(args.out).suffix.lower() in FIGURE_SUFFIXES
    out = output_path(args.out, (".csv", *FIGURE_SUFFIXES))
    try:
        check_size(args.width, args.height, args.dpi)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    given = [name for name in ("view", "width", "height", "dpi") if getattr(args, name) is not None]
    if not figure and given:
        raise CliError(f"--{given[0]} applies to a .png, .svg or .pdf figure, got --out {out.name}")
    from ntkviz.jobs import LazySweepSetRequest

    request = LazySweepSetRequest.of(
        scalings, alphas=alphas, widths=widths, layers=args.train, dim=args.dim, samples=args.samples,
        teacher=args.teacher, noise=args.noise, ridge=args.ridge, lr=args.lr, steps=args.steps,
        seeds=args.seeds, seed=args.seed, init=args.init, gap=args.gap)
    start = time.perf_counter()
    if figure:
        response = _write_figure(out, request, args, _plot(args, alphas, widths))
        wrote = f"wrote the {args.view or _plot(args, alphas, widths)} figure to {out}"
    else:
        response = _write_table(out, request)
        if response is None:
            return 130
        wrote = f"wrote {len(response.csv_table()[1])} rows to {out}"
    for note in response.notes:
        print(f"note: {note}", file=sys.stderr)
    stars = "; ".join(
        f"{sweep.request.scaling}: " * (len(scalings) > 1)
        + ", ".join(f"m = {m}: " + (f"{c.alpha:.3g}" if c.alpha == c.alpha else "none")
                    for m, c in ((m, sweep.crossover(i)) for i, m in enumerate(sweep.request.widths)))
        for sweep in response.responses)
    print(f"lazy-sweep: {request.run_count} runs ({len(alphas)} α × {len(widths)} width(s) × "
          f"{args.seeds} seed(s)" + (f" × {len(scalings)} scalings" if len(scalings) > 1 else "")
          + f") in {time.perf_counter() - start:.1f} s; α* ({args.gap:.0%} gap) {stars}; {wrote}",
          file=sys.stderr)
    return 0


def _scalings(text: str) -> tuple[str, ...]:
    from ntkviz._text import parse_list
    from ntkviz.core.training.sweep import SCALINGS

    try:
        return parse_list("--scaling", text, str, SCALINGS, allow_blank=False)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def _write_table(out: Path, request):
    """Run ``request`` with a progress bar and write its table; on Ctrl+C write the rows
    finished so far, say so and return None."""
    from ntkviz.jobs._run import run_to_end

    latest = {"response": None}
    bar = _progress_bar(request.run_count)

    def progress(item) -> None:
        latest["response"] = item.partial
        bar.update(round(item.fraction * request.run_count, 1) - bar.n)  # drawn at most every 0.5 s

    try:
        response = run_to_end(request.iterate(), on_item=progress)
    except KeyboardInterrupt:
        bar.close()
        partial = latest["response"]
        header, rows = ([], []) if partial is None else partial.csv_table()
        if rows:
            write_csv(out, header, rows)
        finished = 0 if partial is None else sum(int(r.runs().sum()) for r in partial.responses)
        print(f"ntkviz lazy-sweep: interrupted after {finished} of {request.run_count} runs; "
              + (f"wrote {len(rows)} rows to {out}" if rows else f"nothing written to {out}"),
              file=sys.stderr)
        return None
    finally:
        bar.close()
    write_csv(out, *response.csv_table())
    return response


def _write_figure(out: Path, request, args, plot: str):
    """Draw the sweep in the Lazy training tab's sweep view, offscreen, and write ``plot``'s
    figure: the one export path of every figure (the options become the model's fields)."""
    from ntkviz.cli._export import run_export
    from ntkviz.cli._export_training import PANEL_SIZE
    from ntkviz.models.training import SWEEP_VIEWS, TrainingModel

    sweep = request.sweeps[0]
    state = {**TrainingModel.export_state, "page": "sweep", "sweep_plot": plot,
             "sweep_alphas": list(sweep.alphas), "sweep_widths": list(sweep.widths),
             "sweep_scalings": list(request.scalings), "sweep_train": sweep.layers,
             "sweep_noise": sweep.noise, "sweep_ridge": sweep.ridge, "sweep_seeds": sweep.seeds,
             "sweep_init": args.init or "auto", "sweep_gap": sweep.gap, "dim": sweep.dim,
             "samples": sweep.samples, "teacher": sweep.teacher, "lr": sweep.lr, "steps": sweep.steps,
             "seed": sweep.seed}
    params = TrainingModel.parse(state)
    if TrainingModel.sweep_request(params) != request:  # the figure shows this very sweep
        raise AssertionError("the training model's sweep differs from the command's")
    bar = _progress_bar(request.run_count)
    drawn = {}

    def wait_for_sweep(panel) -> None:
        drawn["response"] = panel.wait_sweep(
            on_progress=lambda fraction: bar.update(round(fraction * request.run_count, 1) - bar.n))

    try:
        run_export(out, "training", params, SWEEP_VIEWS[plot], args.width, size=PANEL_SIZE,
                   prepare=wait_for_sweep, height=args.height, dpi=args.dpi)
    finally:
        bar.close()
    return drawn["response"]
