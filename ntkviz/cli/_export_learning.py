"""``ntkviz export learning [options] --out FILE.{png,svg,csv} [--view V] [--width PX]``.

The options fill the Generalisation panel's model
(:class:`ntkviz.models.generalisation.GeneralisationModel`), which validates every value
before anything is computed. Views: ``curve`` (test MSE vs n, theory), ``learnability``
(L_k at ``--n``) and ``view`` (the lower-right plot chosen by ``--show``: fit, gp,
partial_sums or approximation). CSV comes straight from the job; PNG/SVG draw the panel
offscreen. δ (``--ridge``) is not multiplied by n.
"""
from __future__ import annotations

from pathlib import Path

from ntkviz.cli._export import add_output_options

VIEWS = ("curve", "learnability", "view")
SHOW = ("fit", "gp", "partial_sums", "approximation")


def register(sub) -> None:
    p = sub.add_parser("learning", help="generalisation of kernel ridge regression on the sphere",
                       description="The app's Generalisation panel: learning curve, learnabilities, "
                                   "fit / GP samples / partial sums / approximation error.")
    p.add_argument("--kernels", default=None, help="comma-separated subset of arccos0,arccos1,ntk,nngp")
    p.add_argument("--depth", type=int, default=None)
    p.add_argument("--bias", type=float, default=None)
    p.add_argument("--activation", default=None)
    p.add_argument("--dim", type=int, default=None, help="input dimension p in [2, 1000]")
    p.add_argument("--target", default=None, help="k:c,... | harmonic:K | ridge:T | step:T | abs")
    p.add_argument("--ridge", type=float, default=None, help="ridge δ in [0, 1e6] (not multiplied by n)")
    p.add_argument("--noise", type=float, default=None, help="label noise σ in [0, 1000]")
    p.add_argument("--n", type=int, default=None, help="current sample size in [1, 100000]")
    p.add_argument("--kmax", type=int, default=None, help="spectrum degree in [10, 2000]")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--show", default=None, choices=SHOW, help="what the 'view' plot shows (default fit)")
    add_output_options(p, VIEWS, "curve")
    p.set_defaults(func=run)


def run(args) -> int:
    from ntkviz.cli._export import check_suffix, run_export

    check_suffix(args.out)
    state = {}
    if args.kernels is not None:
        state["kernels"] = [k.strip() for k in args.kernels.split(",") if k.strip()]
    for key in ("depth", "bias", "activation", "dim", "target", "ridge", "noise", "n", "kmax", "seed"):
        value = getattr(args, key)
        if value is not None:
            state[key] = value
    if args.show is not None:
        state["view"] = args.show
    view = args.view
    if view == "view" and Path(args.out).suffix.lower() == ".csv":
        view = args.show or "fit"
    run_export(args.out, "learning", state, view, args.width)
    return 0
