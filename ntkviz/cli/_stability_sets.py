"""``ntkviz stability --view sets``: one digit against four sets, CKN and NTK (the paper's Fig. 1).

``ntkviz stability --view sets --reference-label 5 --sets deform:3,deform+translate:1,same,any
--sweep last-pooling:1,2,3,5 [--set-size 20] [--infimnist-data DIR] [--model M1] --out fig1.csv``
writes rows ``map,set,sweep,value,mean,sem,n``: per feature map (ckn, ntk), set and sweep
value, the mean and standard error over the set of ``||Phi(x) - Phi(x')|| / ||Phi(x)||``.
The default x axis reads the paper's figure as an architecture parameter swept along the
curves: the last layer's pooling/subsampling scale, which drives the translation term
``||tau||_inf / sigma_n`` of both stability theorems. ``--sweep amplitude:...`` sweeps the
deformation sets' α instead (the classic stability axis, in the same schema). The request
is :class:`ntkviz.jobs.StabilitySetsRequest`, as the app's view.
"""
from __future__ import annotations

import argparse
import sys

from ntkviz.cli import CliError
from ntkviz.cli._common import int_in, output_path, write_csv
from ntkviz.limits import AMPLITUDE_RANGE, DIGIT_LABEL_RANGE, LAYER_INT_RANGE, STABILITY_SET_SIZE_RANGE
from ntkviz.limits import STABILITY_SWEEPS as SWEEPS

#: options of the amplitude sweep, which --view sets does not take
_SWEEP_ONLY = ("digits", "family", "amplitudes", "seeds", "references")
#: options of --view sets, which the amplitude sweep does not take
_SETS_ONLY = ("reference_label", "reference_index", "sets", "set_size", "sweep", "infimnist_data")


def sweep_spec(text: str) -> tuple[str, tuple]:
    """``--sweep NAME:V1,V2,...`` -> ``(name, values)`` (argparse ``type=``): integers for
    the architecture sweeps, numbers in [0, 1000] for ``amplitude``."""
    name, sep, rest = text.partition(":")
    if name not in SWEEPS or not sep:
        raise argparse.ArgumentTypeError(f"expected NAME:V1,V2,... with NAME among {', '.join(SWEEPS)}, "
                                         f"got {text!r}")
    tokens = [t.strip() for t in rest.split(",")]
    if any(not t for t in tokens):
        raise argparse.ArgumentTypeError(f"expected comma-separated values after {name}:, got {rest!r}")
    values = []
    for t in tokens:
        try:
            v = float(t) if name == "amplitude" else int(t)
        except ValueError:
            kind = "numbers" if name == "amplitude" else "integers"
            raise argparse.ArgumentTypeError(f"{name} values must be {kind}, got {t!r}") from None
        lo, hi = (0, AMPLITUDE_RANGE[1]) if name == "amplitude" else LAYER_INT_RANGE
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{name} values must be in [{lo:g}, {hi:g}], got {t}")
        if v in values:
            raise argparse.ArgumentTypeError(f"lists {t} twice; give each value once")
        values.append(v)
    return name, tuple(values)


def add_sets_arguments(p) -> None:
    """The options of ``--view sets`` (after the amplitude sweep's, whose defaults it records)."""
    g = p.add_argument_group("one digit against sets (--view sets, the paper's Fig. 1)")
    g.add_argument("--view", choices=("sets",), default=None,
                   help="sets: one reference digit against four sets of digits, CKN and NTK, along "
                        "an architecture sweep (without --view: distance against deformation amplitude)")
    g.add_argument("--reference-label", type=int_in(*DIGIT_LABEL_RANGE), default=None, metavar="L",
                   help="label of the reference digit (default 5, as the paper)")
    g.add_argument("--reference-index", type=int_in(0, 10**6), default=None, metavar="I",
                   help="which digit of that label (default 0: the first)")
    g.add_argument("--sets", default=None, metavar="SET,...",
                   help="the sets (default deform:3,deform+translate:1,same,any): deform:α (Infinite-MNIST deformations), "
                        "deform+translate:α (each also moved by one pixel), same (digits of the reference's "
                        "label), any (digits of every label)")
    lo, hi = STABILITY_SET_SIZE_RANGE
    g.add_argument("--set-size", type=int_in(lo, hi), default=None, metavar="N",
                   help=f"digits per set in [{lo}, {hi}] (default 20)")
    g.add_argument("--sweep", type=sweep_spec, default=None, metavar="NAME:V1,V2,...",
                   help="the x axis (default last-pooling:1,2,3,5): last-pooling (the last layer's pooling/"
                        "subsampling factor, which drives the translation term ||tau||/sigma_n of the "
                        "stability theorems), patch (every layer's patch size), layers (depth), "
                        "amplitude (the deformation sets' α)")
    g.add_argument("--infimnist-data", default=None, metavar="DIR",
                   help="your Infinite-MNIST data folder: Bottou's deformations and MNIST training digits "
                        "(without it: bundled digits and ntkviz's own smooth fields, which the output says)")
    p.set_defaults(sweep_defaults={name: p.get_default(name) for name in _SWEEP_ONLY})


def refuse_sets_options(args) -> None:
    """Without ``--view``, the options of the sets view are refused (not ignored)."""
    for name in _SETS_ONLY:
        if getattr(args, name) is not None:
            raise CliError(f"--{name.replace('_', '-')} applies to --view sets only; add --view sets "
                           "or leave it out")


def run_sets(args) -> int:
    from ntkviz.cli._common import progress_line
    from ntkviz.cli._gram import load_model
    from ntkviz.jobs import StabilitySetsRequest, run_to_end

    for name, default in args.sweep_defaults.items():
        if getattr(args, name) != default:
            raise CliError(f"--{name} does not apply to --view sets (it sets the amplitude sweep); "
                           "use --sweep and --sets, or leave out --view")
    if args.out.lower().endswith((".png", ".svg")):
        raise CliError("--view sets writes .csv for now; its figure (.png/.svg) comes with the app's "
                       "sets view (use --out FILE.csv)")
    out = output_path(args.out, (".csv",))
    given = {name: getattr(args, name) for name in _SETS_ONLY if getattr(args, name) is not None}
    if "sweep" in given:
        given["sweep"], given["values"] = given["sweep"]
    request = StabilitySetsRequest(architecture=load_model(args.model), **given)  # the rest: its defaults
    result = run_to_end(request.iterate(), on_item=lambda item: progress_line("stability sets", item.fraction))
    progress_line("stability sets", 1.0, final=True)
    write_csv(out, *result.csv_table())
    print(f"stability sets: reference {result.reference_name} (label {result.reference_label}), "
          f"x axis: {result.axis_label} ({result.axis_reading}); {result.note or result.source}; "
          f"wrote {out}", file=sys.stderr)
    return 0
