"""``ntkviz stability --view sets``: one digit against four sets, CKN and NTK (the paper's Fig. 1).

``ntkviz stability --view sets --reference-label 5 --sets deform:3,deform+translate:1,same,any
--sweep last-pooling:1,2,3,5 [--set-size 20] [--infimnist-data DIR] [--model M1] [--fits]
--out fig1.csv|fig1.png|fig1.svg``. The CSV has rows ``map,set,sweep,value,mean,sem,n``: per
feature map (ckn, ntk), set and sweep value, the mean and standard error over the set of
``‖Φ(x) − Φ(x′)‖ / ‖Φ(x)‖`` (with ``--fits``, along ``--sweep amplitude:…``, a ``fit``
column: the fitted bound form). A ``.png`` (``--width``) or ``.svg`` is the app's sets figure,
drawn by the Stability tab's panel through the one export path
(:func:`ntkviz.cli._export.run_export`), so ``--model`` is then a preset. The default x
axis reads the paper's figure as an architecture parameter swept along the curves: the
last layer's pooling/subsampling scale, which drives the translation term ``‖τ‖∞/σₙ`` of
both stability theorems. ``--sweep amplitude:...`` sweeps the deformation sets' α instead
(the classic stability axis, in the same schema). The request is
:class:`ntkviz.jobs.StabilitySetsRequest`, as the app's view.
"""
from __future__ import annotations

import argparse
import sys

from ntkviz.cli import CliError
from ntkviz.cli._common import int_in, output_path, write_csv
from ntkviz.limits import DIGIT_LABEL_RANGE, STABILITY_REFERENCE_INDEX_RANGE, STABILITY_SET_SIZE_RANGE

#: options of the amplitude sweep, which --view sets does not take
_SWEEP_ONLY = ("digits", "family", "amplitudes", "seeds", "references", "maps", "scattering_j",
               "scattering_l")
#: options of --view sets that go into its request
_REQUEST_OPTIONS = ("reference_label", "reference_index", "sets", "set_size", "sweep", "infimnist_data")
#: options of --view sets, which the amplitude sweep does not take
_SETS_ONLY = _REQUEST_OPTIONS + ("width", "fits")
#: what --view sets writes
SUFFIXES = (".csv", ".png", ".svg")


def sweep_spec(text: str) -> tuple[str, tuple]:
    """``--sweep NAME[:V1,V2,...]`` -> ``(name, values)`` (argparse ``type=``): integers for
    the architecture sweeps, numbers in [0, 1000] for ``amplitude`` (the model's reader,
    :func:`ntkviz.models.stability.parse_sweep`)."""
    from ntkviz.models.stability import parse_sweep

    try:
        fields = parse_sweep("--sweep", text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    name = fields["sweep"]
    return name, tuple(v if name == "amplitude" else int(v) for v in fields["sweep_values"])


def add_sets_arguments(p) -> None:
    """The options of ``--view sets`` (after the amplitude sweep's, whose defaults it records)."""
    g = p.add_argument_group("one digit against sets (--view sets, the paper's Fig. 1)")
    g.add_argument("--view", choices=("sets",), default=None,
                   help="sets: one reference digit against four sets of digits, CKN and NTK, along "
                        "an architecture sweep (without --view: distance against deformation amplitude)")
    g.add_argument("--reference-label", type=int_in(*DIGIT_LABEL_RANGE), default=None, metavar="L",
                   help="label of the reference digit (default 5, as the paper)")
    g.add_argument("--reference-index", type=int_in(*STABILITY_REFERENCE_INDEX_RANGE), default=None,
                   metavar="I",
                   help="which digit of that label (default 0: the first)")
    g.add_argument("--sets", default=None, metavar="SET,...",
                   help="the sets (default deform:3,deform+translate:1,same,any): deform:α (Infinite-MNIST deformations), "
                        "deform+translate:α (each also moved by one pixel), same (digits of the reference's "
                        "label), any (digits of every label)")
    lo, hi = STABILITY_SET_SIZE_RANGE
    g.add_argument("--set-size", type=int_in(lo, hi), default=None, metavar="N",
                   help=f"digits per set in [{lo}, {hi}] (default 20)")
    g.add_argument("--sweep", type=sweep_spec, default=None, metavar="NAME[:V1,V2,...]",
                   help="the x axis (default last-pooling:1,2,3,5): last-pooling (the last layer's pooling/"
                        "subsampling factor, which drives the translation term ‖τ‖∞/σₙ of the "
                        "stability theorems), patch (every layer's patch size), layers (depth), "
                        "amplitude (the deformation sets' α); NAME alone: its default values")
    g.add_argument("--infimnist-data", default=None, metavar="DIR",
                   help="your Infinite-MNIST data folder: Bottou's deformations and MNIST training digits "
                        "(without it: bundled digits and ntkviz's own smooth fields, which the output says)")
    g.add_argument("--fits", action="store_const", const=True, default=None,
                   help="with --sweep amplitude:…: the stability theorems' bound forms fitted by least "
                        "squares to the deformation sets' points (a fit column in the CSV, dashed curves "
                        "in the figure; fits, not the theorems' constants)")
    g.add_argument("--width", type=int, default=None, metavar="PX",
                   help="width of a .png figure in pixels (default: the app's on-screen size)")
    p.set_defaults(sweep_defaults={name: p.get_default(name) for name in _SWEEP_ONLY})


def refuse_sets_options(args) -> None:
    """Without ``--view``, the options of the sets view are refused (not ignored)."""
    for name in _SETS_ONLY:
        if getattr(args, name) is not None:
            raise CliError(f"--{name.replace('_', '-')} applies to --view sets only; add --view sets "
                           "or leave it out")


def run_sets(args) -> int:
    """``--view sets``: the CSV from the request (any ``--model``), a figure through the
    Stability tab's panel (:func:`figure_params`, :func:`ntkviz.cli._export.run_export`)."""
    from ntkviz.cli._common import progress_line
    from ntkviz.cli._gram import load_model
    from ntkviz.jobs import StabilitySetsRequest, run_to_end

    for name, default in args.sweep_defaults.items():
        if getattr(args, name) != default:
            raise CliError(f"--{name.replace('_', '-')} does not apply to --view sets (it sets the amplitude "
                           "sweep); use --sweep and --sets, or leave out --view")
    out = output_path(args.out, SUFFIXES)
    if args.width is not None and out.suffix.lower() != ".png":
        raise CliError(f"--width applies to a .png figure only, got --out {out.name}")
    sweep = args.sweep[0] if args.sweep is not None else "last-pooling"
    if args.fits and sweep != "amplitude":
        raise CliError(f"--fits applies to --sweep amplitude:… only (the bound forms are fitted against "
                       f"the deformation amplitude; α is fixed along {sweep})")
    arch = load_model(args.model)
    if out.suffix.lower() != ".csv":
        from ntkviz.cli._export import run_export

        result = run_export(out, "stability", figure_params(args), "sets", args.width)
    else:
        given = {name: getattr(args, name) for name in _REQUEST_OPTIONS if getattr(args, name) is not None}
        if "sweep" in given:
            given["sweep"], given["values"] = given["sweep"]
        request = StabilitySetsRequest(architecture=arch, **given)  # the rest: its defaults
        result = run_to_end(request.iterate(),
                            on_item=lambda item: progress_line("stability sets", item.fraction))
        progress_line("stability sets", 1.0, final=True)
        header, rows = result.csv_table()
        if args.fits:
            from ntkviz.jobs._stability_fits import fit_columns

            header, rows = fit_columns(result, request.architecture, header, rows)
        write_csv(out, header, rows)
    print(f"stability sets: reference {result.reference_name} (label {result.reference_label}), "
          f"x axis: {result.axis_label} ({result.axis_reading}); {result.note or result.source}; "
          f"wrote {out}", file=sys.stderr)
    return 0


def figure_params(args):
    """The Stability tab's parameters (sets figure) of the options: ``ValueError`` naming the
    option for a value the tab's model refuses; ``--model`` must be a preset (the tab's
    architecture)."""
    from ntkviz._text import parse_list
    from ntkviz.limits import ARCH_PRESETS
    from ntkviz.models.stability import StabilityModel

    if args.model not in ARCH_PRESETS:
        raise CliError(f"--model must be a preset {', '.join(ARCH_PRESETS)} for a figure (.png/.svg): "
                       f"the app's Stability tab draws it; a JSON architecture writes .csv only, "
                       f"got {args.model!r}")
    state = {"figure": "sets", "architecture": args.model, "fits": bool(args.fits)}
    for name in ("reference_label", "reference_index", "set_size", "infimnist_data"):
        if getattr(args, name) is not None:
            state[name] = getattr(args, name)
    if args.sets is not None:
        state["sets"] = list(parse_list("--sets", args.sets, str, allow_blank=False))
    if args.sweep is not None:
        state["sweep"], state["sweep_values"] = args.sweep[0], list(args.sweep[1])
    try:
        return StabilityModel.parse(state)
    except ValueError as exc:
        raise CliError(str(exc)) from None
