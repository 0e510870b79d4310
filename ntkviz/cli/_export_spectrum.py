"""``ntkviz export spectrum [options] --out FILE.{png,svg,csv} [--width PX]``.

Options mirror the eigenvalue-decay panel; CSV straight from the request's
response, PNG/SVG rendered by the panel offscreen (same figure as the app).
"""
from __future__ import annotations

from ntkviz.cli._export_kernel import add_kernel_choice, choice_state, export


def register(sub) -> None:
    p = sub.add_parser("spectrum", help="Mercer eigenvalues μ_k (the app's spectrum panel)",
                       description="Mercer eigenvalues μ_k on S^{p-1} against k (log–log), as "
                                   "drawn by the app's eigenvalue-decay panel.")
    add_kernel_choice(p)
    p.add_argument("--dim", type=int, default=3, metavar="P", help="input dimension p (2..1000)")
    p.add_argument("--kmax", type=int, default=100, help="largest degree k (1..2000)")
    p.add_argument("--weighted", action="store_true", help="plot N(p, k) μ_k instead of μ_k")
    p.add_argument("--no-guides", action="store_true", help="omit the C k^exponent guide lines")
    p.add_argument("--view", choices=("spectrum", "slope"), default="spectrum",
                   help="spectrum: μ_k against k; slope: local log–log slope")
    p.set_defaults(func=run)


def run(args) -> int:
    state = {**choice_state(args), "dim": args.dim, "kmax": args.kmax,
             "weighted": args.weighted, "guides": not args.no_guides,
             "slope": args.view == "slope"}
    from ntkviz.jobs import SpectrumRequest

    return export(args, state, SpectrumRequest, "ntkviz.gui.panels.spectrum:QtSpectrumPanel")
