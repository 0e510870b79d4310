"""``ntkviz stability``: the stability sweep on bundled digits, written as CSV.

``ntkviz stability --model M --digits N --family {smooth,translation,rotation,infimnist}
--amplitudes A1,A2,... --seeds S --out FILE.csv``. Digit ``d`` (0..N-1) is the
bundled digit number ``d // 10`` of label ``d % 10``; the same-label and
any-label levels use ``--references`` digits per label (the last ones of
each class in the bundle, never among the swept digits).
"""
from __future__ import annotations

from ntkviz.cli import CliError
from ntkviz.cli._common import float_list, output_path, positive_int, write_csv


def register(sub) -> None:
    p = sub.add_parser(
        "stability", help="CKN vs NTK distances of deformed digits against amplitude (CSV)",
        description="Mean and spread of the relative CKN, NTK and pixel distances between bundled MNIST "
                    "digits and their deformations, per amplitude, with same-label / any-label reference "
                    "levels and small-amplitude log-log slopes (in the spirit of Fig. 1 of Bietti & Mairal "
                    "2019; not the paper's data).")
    p.add_argument("--model", default="M1", metavar="M1..M4|FILE.json", help="architecture (default M1)")
    p.add_argument("--digits", type=positive_int, default=5, metavar="N",
                   help="number of digits, labels cycling 0..9 (default 5)")
    p.add_argument("--family", default="smooth", choices=("smooth", "translation", "rotation", "infimnist"),
                   help="deformation family (amplitude in px, px, degrees, alpha)")
    p.add_argument("--amplitudes", type=float_list, default=[0.01, 0.03, 0.1, 0.3, 1.0, 3.0],
                   metavar="A1,A2,...", help="increasing amplitudes (default 0.01,0.03,0.1,0.3,1,3)")
    p.add_argument("--seeds", type=positive_int, default=1, metavar="S", help="deformations per digit (default 1)")
    p.add_argument("--references", type=positive_int, default=2, metavar="K",
                   help="reference digits per label for the levels (default 2)")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="output CSV")
    p.set_defaults(func=run)


def run(args) -> int:
    import numpy as np

    from ntkviz.cli._gram import load_model, progress_line
    from ntkviz.core.digits import digit_indices, load_digits
    from ntkviz.core.stability import stability_sweep

    arch = load_model(args.model)
    out = output_path(args.out, (".csv",))
    images, labels = load_digits()
    per_class = min(len(digit_indices(k)) for k in range(10))
    n_refs = args.references
    if args.digits > 10 * (per_class - n_refs):
        raise CliError(f"--digits must be at most {10 * (per_class - n_refs)} with --references {n_refs}")
    if n_refs >= per_class:
        raise CliError(f"--references must be below {per_class}")
    idx = [digit_indices(d % 10)[d // 10] for d in range(args.digits)]
    ref = [digit_indices(k)[per_class - 1 - r] for k in range(10) for r in range(n_refs)]
    X = images[idx].astype(np.float64) / 255.0
    R = images[ref].astype(np.float64) / 255.0
    item = None
    for item in stability_sweep(X, labels[idx], arch, args.family, args.amplitudes, args.seeds, R, labels[ref]):
        progress_line(f"stability ({item.message})", item.fraction, final=item.result.complete)
    header, rows = item.result.to_csv_rows()
    write_csv(out, header, rows)
    return 0
