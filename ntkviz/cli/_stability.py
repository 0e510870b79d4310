"""``ntkviz stability``: the stability sweep on bundled digits, written as CSV
(``--view sets``: one digit against four sets of digits, :mod:`ntkviz.cli._stability_sets`).

``ntkviz stability --model M --digits N --family {smooth,translation,rotation,infimnist,noise,dilation}
--amplitudes A1,A2,... --seeds S --references K [--maps ckn,ntk,scattering,fourier,pixels]
[--scattering-j J --scattering-l L] --out FILE.csv``. Digit ``d``
(0..N-1) is the bundled digit number ``K + d // 10`` of label ``d % 10``, so the
swept digits are never among the references. The sweep is the stability view's
:class:`ntkviz.jobs.StabilityRequest`: the same-label and any-label levels use
the first ``K`` bundled digits of each label, exactly as in the app and
``ntkviz export stability``. ``--maps`` chooses the representations compared (default
ckn,ntk,pixels, the default CSV columns); every other map adds ``<map>_mean, <map>_std,
<map>_slope, same_label_<map>, any_label_<map>`` columns.
"""
from __future__ import annotations

import argparse

from ntkviz.cli import CliError
from ntkviz.cli._common import choice_list, float_list, int_in, output_path, positive_int, write_csv
from ntkviz.cli._gram import add_model_argument, load_model
from ntkviz.cli._scattering_args import add_scattering_arguments, scattering_params
from ntkviz.cli._stability_sets import add_sets_arguments, refuse_sets_options, run_sets
from ntkviz.limits import (AMPLITUDE_RANGE, BUNDLED_PER_CLASS, DEFAULT_MAPS, MAPS, REFERENCES_RANGE,
                           SWEEP_FAMILIES, SWEEP_SEEDS_RANGE)

#: at most this many references per label, so that every label keeps a digit to sweep
MAX_REFERENCES = min(REFERENCES_RANGE[1], BUNDLED_PER_CLASS - 1)


def amplitude_list(text: str) -> list[float]:
    """``--amplitudes``: strictly increasing numbers in (0, 1000] (argparse ``type=``)."""
    values = float_list(text)
    lo, hi = AMPLITUDE_RANGE
    for v in values:
        if not lo < v <= hi:
            raise argparse.ArgumentTypeError(f"must be in ({lo:g}, {hi:g}], got {v!r}")
    for a, b in zip(values, values[1:]):
        if not a < b:
            raise argparse.ArgumentTypeError(f"must be strictly increasing, got {a!r} then {b!r}")
    return values


def register(sub) -> None:
    p = sub.add_parser(
        "stability", help="CKN vs NTK (vs scattering, Fourier modulus) distances of deformed digits "
                          "against amplitude (CSV)",
        description="Mean and spread of the relative CKN, NTK and pixel distances (or of the maps chosen "
                    "with --maps: also the scattering transform and the Fourier modulus) between bundled MNIST "
                    "digits and their deformations, per amplitude, with same-label / any-label reference "
                    "levels and small-amplitude log-log slopes (in the spirit of Fig. 1 of Bietti & Mairal "
                    "2019; not the paper's data). The same computation as the app's stability view.")
    add_model_argument(p, default="M1")
    p.add_argument("--digits", type=positive_int, default=10, metavar="N",
                   help="number of digits, labels cycling 0..9, at most 10·(100 − K) (default 10: one "
                        "of each label)")
    p.add_argument("--family", default="smooth", choices=SWEEP_FAMILIES,
                   help="deformation family (amplitude in px, px, degrees, alpha; dilation: s in (0, 0.95], "
                        "tau(u) = s u) or additive noise (amplitude ||x' - x|| / ||x||)")
    p.add_argument("--amplitudes", type=amplitude_list, default=[0.01, 0.03, 0.1, 0.3, 1.0, 3.0],
                   metavar="A1,A2,...", help=f"strictly increasing amplitudes in (0, {AMPLITUDE_RANGE[1]:g}] "
                                             "(default 0.01,0.03,0.1,0.3,1,3)")
    p.add_argument("--seeds", type=int_in(*SWEEP_SEEDS_RANGE), default=1, metavar="S",
                   help=f"deformations per digit in [{SWEEP_SEEDS_RANGE[0]}, {SWEEP_SEEDS_RANGE[1]}] "
                        "(seeds 0..S-1; default 1)")
    p.add_argument("--references", type=int_in(1, MAX_REFERENCES), default=2, metavar="K",
                   help=f"reference digits per label for the levels (the first K of each label), "
                        f"in [1, {MAX_REFERENCES}] (default 2)")
    p.add_argument("--maps", type=choice_list(MAPS), default=list(DEFAULT_MAPS), metavar="M1,M2,...",
                   help=f"representations compared, among {','.join(MAPS)} (default {','.join(DEFAULT_MAPS)})")
    add_scattering_arguments(p, "--maps")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="output CSV")
    add_sets_arguments(p)
    p.set_defaults(func=run)


def swept_digits(n: int, references: int) -> tuple[int, ...]:
    """Bundled indices of the ``n`` swept digits: digit ``d`` is number ``references + d // 10``
    of label ``d % 10`` (after that label's reference digits)."""
    from ntkviz.core.deformations.digits import digit_indices

    largest = 10 * (BUNDLED_PER_CLASS - references)
    if n > largest:
        raise CliError(f"--digits must be at most {largest} with --references {references} "
                       f"(10 labels × {BUNDLED_PER_CLASS - references} digits after the references), got {n}")
    return tuple(int(digit_indices(d % 10)[references + d // 10]) for d in range(n))


def run(args) -> int:
    from ntkviz.cli._common import drive_progress
    from ntkviz.jobs import StabilityRequest

    if args.view == "sets":
        return run_sets(args)
    refuse_sets_options(args)
    from ntkviz.dataset._names import check_family_amplitude

    try:
        check_family_amplitude(args.family, max(args.amplitudes), "--amplitudes")
    except ValueError as exc:
        raise CliError(str(exc)) from None
    arch = load_model(args.model)
    out = output_path(args.out, (".csv",))
    scattering = scattering_params(args, "scattering" in args.maps, "--maps")
    request = StabilityRequest(family=args.family, digits=swept_digits(args.digits, args.references),
                               amplitudes=tuple(args.amplitudes), seeds=tuple(range(args.seeds)),
                               architecture=arch, reference_per_class=args.references,
                               maps=tuple(args.maps), scattering=scattering)
    result = drive_progress(request.iterate(), "stability")  # the tqdm bar of gram, classify
    write_csv(out, *result.to_csv_rows())
    return 0
