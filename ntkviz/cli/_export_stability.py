"""``ntkviz export stability [options] --out FILE.{png,svg,csv} [--width PX]``.

The stability view "in the spirit of Fig. 1": relative CKN / NTK / pixel
distance against deformation amplitude. The options fill the view's Qt-free
model (:class:`ntkviz.models.stability.StabilityModel`), whose ranges are the
app's and the sessions'; the shared export runner
(:func:`ntkviz.cli._export.run_export`) writes the CSV straight from its
request (``SweepResult.to_csv_rows()``: amplitudes, means, spreads, levels,
slopes) and PNG/SVG drawn by the panel itself offscreen, from the same values.
"""
from __future__ import annotations

from ntkviz import limits
from ntkviz.cli._common import float_list, positive_int
from ntkviz.cli._export import add_width_option

__all__ = ["register", "run", "state_from_args", "add_output_options", "export"]

SUFFIXES = (".png", ".svg", ".csv")
#: model field -> command-line option (messages name the option the user typed)
OPTIONS = {"family": "--family", "digits": "--digits", "amplitude_min": "--amplitudes",
           "amplitude_max": "--amplitudes", "amplitude_count": "--amplitudes",
           "seeds": "--seeds", "first_seed": "--first-seed", "architecture": "--arch",
           "reference_per_class": "--references"}


def register(sub) -> None:
    a_lo, a_hi = limits.AMPLITUDE_RANGE
    c_lo, c_hi = limits.AMPLITUDE_COUNT_RANGE
    p = sub.add_parser(
        "stability", help="relative distance against deformation amplitude (stability view)",
        description="Relative feature distance ||Phi(L_tau x) - Phi(x)|| / ||Phi(x)|| of the CKN, "
                    "the convolutional NTK and raw pixels against the deformation amplitude "
                    "(log-log), in the spirit of Fig. 1 of Bietti & Mairal (not a reproduction). "
                    "Unset options take the app's defaults: smooth field, digits 0,100,200,300,400 "
                    "(labels 0-4), amplitudes 0.01..3 (6 values), 1 seed, M1, 5 references per label.")
    p.add_argument("--family", help=f"deformation family: {', '.join(limits.FAMILIES)} (default smooth)")
    p.add_argument("--digits", metavar="LIST", help="bundled digit indices 0..999, comma-separated "
                                                   "(index = 100 * label + i)")
    p.add_argument("--amplitudes", type=float_list, metavar="MIN,MAX[,COUNT]",
                   help=f"log-spaced amplitude range in ({a_lo:g}, {a_hi:g}] (px, degrees or alpha) "
                        f"and count {c_lo}..{c_hi}; default: the family's range, 6 values")
    p.add_argument("--seeds", type=positive_int, metavar="N",
                   help="deformations per digit and amplitude")
    p.add_argument("--first-seed", type=int, metavar="S", help="first random seed")
    p.add_argument("--arch", metavar="PRESET", help="architecture preset M1..M4")
    p.add_argument("--references", type=positive_int, metavar="N",
                   help="reference digits per label for the same-/any-label levels (1..100)")
    add_output_options(p)
    p.set_defaults(func=run)


def add_output_options(p) -> None:
    """``--out FILE.{png,svg,csv}`` and ``--width PX`` (shared with ``export deform``)."""
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output file: .png, .svg (figure as in the app) or .csv (plotted data)")
    add_width_option(p)


def state_from_args(args) -> dict:
    """The stability model's fields for the options given (the model's defaults, and the
    family's amplitude range, apply to the rest)."""
    from ntkviz.cli import CliError
    from ntkviz.models.kernel_curves import parse_int_list
    from ntkviz.models.stability import family_defaults

    state = {k: v for k, v in (("family", args.family), ("seeds", args.seeds),
                               ("first_seed", args.first_seed), ("architecture", args.arch),
                               ("reference_per_class", args.references)) if v is not None}
    if args.digits is not None:
        try:
            state["digits"] = list(parse_int_list("--digits", args.digits))
        except ValueError as exc:
            raise CliError(str(exc)) from None
    if args.amplitudes is None:
        state.update(family_defaults(state.get("family", "smooth")))
    else:
        amps = args.amplitudes
        if len(amps) not in (2, 3):
            raise CliError(f"--amplitudes must be MIN,MAX or MIN,MAX,COUNT, got {len(amps)} numbers")
        state.update(amplitude_min=amps[0], amplitude_max=amps[1])
        if len(amps) == 3:
            if not float(amps[2]).is_integer():
                raise CliError(f"--amplitudes COUNT must be an integer, got {amps[2]:g}")
            state["amplitude_count"] = int(amps[2])
    return state


def export(args, key: str, state: dict, options: dict, view: str, width=None,
           before=None) -> int:
    """Validate ``state`` with panel ``key``'s model (a bad field is named by its option),
    call ``before(params)`` if given, then write ``args.out`` with the shared runner."""
    from pathlib import Path

    from ntkviz.cli import CliError
    from ntkviz.cli._export import run_export, validated_params

    out = Path(args.out)
    if out.suffix.lower() not in SUFFIXES:
        raise CliError(f"--out must end in one of {', '.join(SUFFIXES)}, got {out.name!r}")
    try:
        _, params = validated_params(key, state)
    except ValueError as exc:
        message = str(exc)
        field = message.split(" ", 1)[0].split("[", 1)[0].rstrip(":")
        raise CliError(f"{options[field]}: {message}" if field in options else message) from None
    if before is not None:
        before(params)
    try:
        run_export(out, key, state, view, width, timeout_s=1800.0)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    print(out)
    return 0


def run(args) -> int:
    return export(args, "stability", state_from_args(args), OPTIONS, "stability", args.width)
