"""``ntkviz export spectrum [options] --out FILE.{png,svg,csv} [--width PX]``.

The options fill the eigenvalue-decay panel's Qt-free model
(:class:`ntkviz.models.spectrum.SpectrumModel`); CSV straight from its request,
PNG/SVG drawn by the panel offscreen from the same values (the app's figure).
"""
from __future__ import annotations

from ntkviz import limits
from ntkviz.cli._export_kernel import add_kernel_choice, choice_state, export_model

__all__ = ["register", "run"]


def register(sub) -> None:
    from ntkviz.limits import SPECTRUM_KMAX_RANGE

    p_lo, p_hi = limits.DIM_RANGE
    k_lo, k_hi = SPECTRUM_KMAX_RANGE
    p = sub.add_parser("spectrum", help="Mercer eigenvalues μ_k (the app's spectrum panel)",
                       description="Mercer eigenvalues μ_k on S^{p-1} against k (log–log), as "
                                   "drawn by the app's eigenvalue-decay panel.")
    add_kernel_choice(p)
    p.add_argument("--dim", type=int, default=None, metavar="P",
                   help=f"input dimension p, {p_lo}..{p_hi} (default 3)")
    p.add_argument("--kmax", type=int, default=None,
                   help=f"largest degree k, {k_lo}..{k_hi} (default 100)")
    p.add_argument("--weighted", action="store_true", help="plot N(p, k) μ_k instead of μ_k")
    p.add_argument("--no-guides", action="store_true", help="omit the C k^exponent guide lines")
    p.add_argument("--view", choices=("spectrum", "slope"), default="spectrum",
                   help="spectrum: μ_k against k; slope: local log–log slope")
    p.set_defaults(func=run)


def run(args) -> int:
    state = {**choice_state(args), "weighted": bool(args.weighted),
             "guides": not args.no_guides, "slope": args.view == "slope"}
    for field, value in (("dim", args.dim), ("kmax", args.kmax)):
        if value is not None:
            state[field] = value
    return export_model(args, "spectrum", state)
