"""``ntkviz learn``: learning curves of kernel ridge regression on the sphere as CSV.

Example::

    ntkviz learn --kernels ntk,arccos1 --dim 3 --target 1:1,2:1,4:1,7:1 --ridge 1e-3 \
        --noise 0 --n 100,200,500,1000 --seeds 10 --seed 0 --out curve.csv

One row per (kernel, n): ``kernel,n,theory_test_mse,empirical_test_mse,empirical_sem,
effective_ridge,theory_train_mse,empirical_train_mse,e0,tail_dof_bound,theory_trustworthy,
empirical_ci95``
(``kernel`` as given in ``--kernels``; ``theory_trustworthy`` is false where the spectrum's
truncation at ``--kmax`` may matter: tail_dof_bound > 1e-3 n — raise --kmax). Estimator ``f̂ = K(x, X)(K(X, X) + δ I)⁻¹ y`` with δ = ``--ridge`` **not**
multiplied by n; labels ``y = f + σ ε``; test MSE against a fresh noisy label (includes σ²).
Theory: eigenlearning (:class:`ntkviz.jobs.LearningTheoryRequest`); empirical: mean and
standard error over ``--seeds`` Monte-Carlo runs (blank with ``--no-empirical`` and for
n > 20000, refused for Monte-Carlo because the solve would take minutes).
Every run draws its own training and test points, so the standard error includes the test-set
sampling; ``empirical_ci95`` is the half-width of the 95 % Student-t interval (t · SEM) that the
app draws as the error bar.

``--target``: degree components ``k:c,k:c`` (c · P_k(⟨x, z_k⟩)), or ``harmonic:K``,
``ridge:T`` (max(0, ⟨x,z⟩ - T)), ``step:T`` (sign(⟨x,z⟩ - T)), ``abs`` (|⟨x,z⟩|).
"""
from __future__ import annotations

import math
import sys

from ntkviz.cli import CliError
from ntkviz.cli._common import (float_in, int_in, output_path, progress_line,
                                write_csv)
from ntkviz import limits
from ntkviz.limits import (ACTIVATIONS, ARCCOS_KERNELS, BIAS_RANGE, DEFAULT_ACTIVATION, DEPTH_RANGE, DIM_RANGE,
                           KERNEL_NAMES)

MC_MAX_N = 20_000
HEADER = ["kernel", "n", "theory_test_mse", "empirical_test_mse", "empirical_sem", "effective_ridge",
          "theory_train_mse", "empirical_train_mse", "e0", "tail_dof_bound", "theory_trustworthy",
          "empirical_ci95"]


def parse_target(text: str, kmax: int = limits.LEARN_KMAX_RANGE[1]):
    """A :class:`ntkviz.core.learning.Target` from ``k:c,...``, ``harmonic:K``, ``ridge:T``,
    ``step:T`` or ``abs`` (the panel's parser: one line naming --target otherwise)."""
    from ntkviz.core.learning import Target
    from ntkviz.models.learning import parse_target_text

    try:
        return Target(**parse_target_text(text, kmax))
    except ValueError as exc:
        raise CliError(f"--{exc}") from None


def _n_list(text: str) -> list[int]:
    from ntkviz._text import parse_list

    lo, hi = limits.LEARN_N_RANGE
    try:
        values = parse_list("--n", text, int, allow_blank=False)
    except ValueError as exc:
        raise CliError(f"{exc} (each in [{lo}, {hi}])") from None
    for value in values:
        if not lo <= value <= hi:
            raise CliError(f"--n must be integers in [{lo}, {hi}], got {value}")
    return list(values)


def register(sub) -> None:
    p = sub.add_parser(
        "learn",
        help="learning curves of kernel ridge regression on the sphere (theory and Monte-Carlo) as CSV",
        description="Test error of kernel ridge regression f = K(x,X)(K(X,X) + ridge I)^-1 y on n "
        "uniform points of the sphere S^(p-1) (ridge not multiplied by n): the eigenlearning "
        "prediction from the Mercer spectrum and Monte-Carlo mean +- standard error over seeds.",
    )
    p.add_argument("--kernels", required=True, metavar="K1,K2",
                   help=f"comma-separated kernel names from {', '.join(KERNEL_NAMES)}")
    lo, hi = DEPTH_RANGE
    p.add_argument("--depth", type=int_in(lo, hi), default=None, metavar="L",
                   help=f"ntk/nngp: weight layers L in [{lo}, {hi}] (default 2)")
    p.add_argument("--bias", type=float_in(*BIAS_RANGE), default=None, metavar="B",
                   help="ntk/nngp: bias variance (default 0)")
    p.add_argument("--activation", default=None, choices=ACTIVATIONS, help="ntk/nngp activation (default relu)")
    p.add_argument("--normalize", action="store_true", help="ntk/nngp: divide by κ(1)")
    p.add_argument("--dim", required=True, type=int_in(*DIM_RANGE), metavar="P",
                   help=f"input dimension p in [{DIM_RANGE[0]}, {DIM_RANGE[1]}]")
    p.add_argument("--target", default="1:1,2:1,4:1,7:1", metavar="SPEC",
                   help="k:c,... | harmonic:K | ridge:T | step:T | abs (default 1:1,2:1,4:1,7:1)")
    p.add_argument("--ridge", type=float_in(*limits.RIDGE_RANGE), default=1e-3, metavar="DELTA",
                   help="ridge δ in [{:g}, {:g}], not multiplied by n (default 1e-3)"
                   .format(*limits.RIDGE_RANGE))
    p.add_argument("--noise", type=float_in(*limits.NOISE_RANGE), default=0.0, metavar="SIGMA",
                   help="label noise σ in [{:g}, {:g}] (default 0)".format(*limits.NOISE_RANGE))
    p.add_argument("--n", required=True, metavar="N1,N2",
                   help="sample sizes, each in [{}, {}]".format(*limits.LEARN_N_RANGE))
    p.add_argument("--seeds", type=int_in(*limits.MC_SEEDS_RANGE), default=10,
                   help="Monte-Carlo runs per n in [{}, {}]".format(*limits.MC_SEEDS_RANGE))
    p.add_argument("--seed", type=int_in(*limits.MC_SEED_RANGE), default=0,
                   help="seed (target directions, samples)")
    p.add_argument("--n-test", type=int_in(*limits.MC_TEST_RANGE), default=2000,
                   help="test points per run")
    p.add_argument("--kmax", type=int_in(*limits.LEARN_KMAX_RANGE), default=1000,
                   help="highest degree of the spectrum in [{}, {}] (the tail above is analytic)"
                   .format(*limits.LEARN_KMAX_RANGE))
    p.add_argument("--no-empirical", action="store_true", help="theory only (skip Monte-Carlo)")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="output CSV file")
    p.set_defaults(func=run)


def kernel_specs(args) -> tuple[list[str], list]:
    """(names as given, KernelSpecs) of ``--kernels`` and the shared kernel options;
    --depth, --bias and --activation are refused when no kernel is ntk or nngp."""
    from ntkviz._text import parse_list
    from ntkviz.cli._common import refuse_deep_options
    from ntkviz.core.kernels.dotkernel import KernelSpec

    try:
        names = list(parse_list("--kernels", args.kernels, str, KERNEL_NAMES, allow_blank=False))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    refuse_deep_options(args, names)
    depth = 2 if args.depth is None else args.depth
    bias = 0.0 if args.bias is None else args.bias
    activation = DEFAULT_ACTIVATION if args.activation is None else args.activation
    specs = [KernelSpec(name) if name in ARCCOS_KERNELS
             else KernelSpec(name, depth, bias, activation, args.normalize) for name in names]
    return names, specs


def run(args) -> int:
    from ntkviz.jobs import LearningMonteCarloRequest, LearningTheoryRequest

    names, specs = kernel_specs(args)
    target = parse_target(args.target, args.kmax)
    ns = _n_list(args.n)
    path = output_path(args.out, (".csv",))
    common = dict(kernels=tuple(specs), target=target, dim=args.dim, ridge=args.ridge, noise=args.noise,
                  kmax=args.kmax, labels=tuple(names))
    theory = LearningTheoryRequest(n_values=tuple(ns), **common)()
    mc_ns = [n for n in ns if n <= MC_MAX_N]
    mc = None
    if not args.no_empirical:
        if len(mc_ns) < len(ns):
            print(f"ntkviz learn: Monte-Carlo skipped for n > {MC_MAX_N} (an n x n solve that large "
                  "takes minutes); theory written for every n", file=sys.stderr)
        if mc_ns:
            req = LearningMonteCarloRequest(n_values=tuple(mc_ns), seeds=args.seeds, seed=args.seed,
                                            n_test=args.n_test, **common)
            from ntkviz.jobs._run import run_to_end

            mc = run_to_end(req.iterate(), on_item=lambda item: progress_line(
                "Monte-Carlo", item.fraction) if sys.stderr.isatty() else None)
    rows = []
    mean = sem = train = half = None
    if mc is not None:
        mean, sem = mc.mean_sem()
        half = mc.mean_ci()[1]
        import numpy as np
        with np.errstate(all="ignore"):
            train = np.nanmean(mc.train_mse, axis=2)
    for i, (name, th) in enumerate(zip(names, theory.theories)):
        for j, n in enumerate(ns):
            emp = ["", "", "", ""]
            if mc is not None and n in mc_ns:
                jj = mc_ns.index(n)
                emp = [_cell(v[i, jj]) for v in (mean, sem, train, half)]
            rows.append([name, n, float(th.test_mse[j]), emp[0], emp[1], float(th.effective_ridge[j]),
                         float(th.train_mse[j]), emp[2], float(th.e0[j]), float(th.tail_dof_bound[j]),
                         bool(th.trustworthy[j]), emp[3]])
    write_csv(path, HEADER, rows)
    return 0


def _cell(value) -> object:
    value = float(value)
    return value if math.isfinite(value) else ""
