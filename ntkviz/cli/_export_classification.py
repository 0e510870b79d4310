"""``ntkviz export classification [options] --out FILE.{png,svg,csv} [--view V] [--width PX]``.

The options fill the classification panel's model
(:class:`ntkviz.models.classification.ClassificationModel`), which validates every
value before anything is computed. CSV comes straight from the job
(:class:`ntkviz.jobs.ClassifyRequest`): the rows plotted in the view; PNG/SVG draw
the panel offscreen. Gram matrices are cached like the app's (``--no-cache`` keeps
nothing on disk).
"""
from __future__ import annotations

from ntkviz import limits
from ntkviz.cli import CliError
from ntkviz.cli._common import choice_list, float_list, int_list
from ntkviz.cli._export import add_output_options

VIEWS = ("train_size", "deformation")


def register(sub) -> None:
    from ntkviz.dataset._names import KERNELS

    p = sub.add_parser("classification", help="classification accuracy of CKN, NTK, pixels (bundled digits)",
                       description="Kernel ridge classification of the bundled digits (the app's "
                                   "Classification panel): accuracy vs training size or vs deformation.")
    p.add_argument("--architecture", default="M1", choices=limits.ARCH_PRESETS)
    p.add_argument("--kernels", type=choice_list(KERNELS), default=None,
                   help="subset of ckn,ntk,pixels (default all)")
    p.add_argument("--train-sizes", type=int_list(1, None), default=None,
                   help="training sizes (default 20,40,80)")
    p.add_argument("--test-size", type=int, default=None, help="test digits, 10..500 (default 50)")
    p.add_argument("--ridge", default="auto", help="relative ridge or auto (cross-validation; default)")
    p.add_argument("--family", default=None, help="deformation family or none (default rotation)")
    p.add_argument("--amplitudes", type=float_list, default=None, help="amplitudes (default 0,15,30)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--no-cache", action="store_true", help="do not keep the Gram matrices on disk")
    add_output_options(p, VIEWS, "train_size")
    p.set_defaults(func=run)


def run(args) -> int:
    from ntkviz.cli._export import check_suffix, run_export

    check_suffix(args.out)
    state = {"architecture": args.architecture, "use_cache": not args.no_cache}
    for key, value in (("kernels", args.kernels), ("train_sizes", args.train_sizes),
                       ("test_size", args.test_size), ("family", args.family),
                       ("amplitudes", args.amplitudes), ("seed", args.seed)):
        if value is not None:
            state[key] = value
    if args.ridge != "auto":
        try:
            state["ridge"] = float(args.ridge)
        except ValueError:
            raise CliError(f"--ridge must be a number or auto, got {args.ridge!r}") from None
    run_export(args.out, "classification", state, args.view, args.width)
    return 0
