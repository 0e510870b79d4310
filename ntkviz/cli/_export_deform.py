"""``ntkviz export deform [options] --view VIEW --out FILE.{png,svg,csv} [--width PX]``.

One view of the deformation editor: ``original``, ``deformed``, ``difference``,
``displacement`` or ``context``. The options fill the editor's Qt-free model
(:class:`ntkviz.models.deformation.DeformationModel`), whose ranges are the
app's and the sessions': the figure draws exactly the values given, or the
command is refused naming the option and the allowed range. CSV comes straight
from the model's request; PNG/SVG are drawn by the editor panel offscreen
(image views are 800 px wide unless ``--width`` says otherwise).
"""
from __future__ import annotations

from ntkviz import limits
from ntkviz.cli._export_stability import add_output_options, export

__all__ = ["register", "run", "state_from_args"]

VIEWS = limits.DEFORM_VIEWS
#: PNG width of an image view when --width is not given (the on-screen view is small)
IMAGE_WIDTH = 800
#: (option, model field, type, help)
DEFORMATION_OPTIONS = (
    ("--translate-x", "translate_x", float, "shift right, px", limits.TRANSLATE_RANGE),
    ("--translate-y", "translate_y", float, "shift down, px", limits.TRANSLATE_RANGE),
    ("--rotation", "rotation_deg", float, "degrees, counter-clockwise", limits.ROTATION_RANGE),
    ("--scale", "scale", float, "zoom about the centre (1 = none)", limits.SCALE_RANGE),
    ("--shear", "shear", float, "horizontal shear factor", limits.SHEAR_RANGE),
    ("--smooth", "smooth_amplitude", float, "smooth random field amplitude, px",
     limits.SMOOTH_AMPLITUDE_RANGE),
    ("--smooth-length", "smooth_length", float, "smooth field correlation length, px",
     limits.SMOOTH_LENGTH_RANGE),
    ("--smooth-seed", "smooth_seed", int, "smooth field seed", limits.SEED_RANGE),
    ("--alpha", "infimnist_alpha", float, "Infinite-MNIST style alpha", limits.INFIMNIST_ALPHA_RANGE),
    ("--alpha-seed", "infimnist_seed", int, "Infinite-MNIST style seed", limits.SEED_RANGE),
)
OPTIONS = {field: opt for opt, field, *_ in DEFORMATION_OPTIONS}
OPTIONS.update(label="--label", index="--index", preset="--arch", user_pixels="--image",
               even_patch_offsets="--even-offsets")


def register(sub) -> None:
    p = sub.add_parser("deform", help="one view of the deformation editor",
                       description="A bundled digit (or your own image) under a deformation, as "
                                   "the app's deformation editor draws it.")
    p.add_argument("--label", type=int, default=None, help="class of the bundled digit, 0..9 (default 0)")
    p.add_argument("--index", type=int, default=None,
                   help=f"index within the class, 0..{limits.BUNDLED_PER_CLASS - 1} (default 0)")
    p.add_argument("--image", metavar="FILE",
                   help="your own image instead: .npy (H, W) array, or PNG/JPEG/BMP with Pillow "
                        "installed; any size (area-averaged to 28x28 like the app)")
    for opt, _, typ, text, (lo, hi) in DEFORMATION_OPTIONS:
        p.add_argument(opt, type=typ, default=None, help=f"{text}, {lo:g}..{hi:g}")
    p.add_argument("--arch", default=None, metavar="PRESET", help="architecture preset M1..M4")
    p.add_argument("--view", choices=VIEWS, default="deformed", help="view (default deformed)")
    add_output_options(p)
    p.set_defaults(func=run)


def state_from_args(args) -> dict:
    """The editor model's fields for the options given."""
    from ntkviz.cli import CliError

    state = {}
    if args.image:
        if args.label is not None or args.index is not None:
            raise CliError("--image replaces the bundled digit: give --image or --label/--index, "
                           "not both")
        from pathlib import Path

        from ntkviz.core.deformations.digits import load_user_image

        try:
            image, note = load_user_image(args.image)
        except ValueError as exc:
            raise CliError(f"--image {exc}") from None
        state.update(user_pixels=image.tolist(), user_name=Path(args.image).name)
    for name in ("label", "index"):
        if getattr(args, name) is not None:
            state[name] = getattr(args, name)
    for opt, field, *_ in DEFORMATION_OPTIONS:
        value = getattr(args, opt[2:].replace("-", "_"))
        if value is not None:
            state[field] = value
    if args.arch is not None:
        state["preset"] = args.arch
    return state


def _warm_context(params) -> None:
    """Compute the context distances first (cached), so the panel draws them at once."""
    from ntkviz.jobs import ContextRequest

    image, label, _ = params.digit()
    ContextRequest(image, label, params.architecture())()


def run(args) -> int:
    image_view = args.view != "context"
    width = args.width if args.width is not None else (
        IMAGE_WIDTH if image_view and args.out.lower().endswith(".png") else None)
    before = None if image_view or args.out.lower().endswith(".csv") else _warm_context
    return export(args, "deform", state_from_args(args), OPTIONS, args.view, width, before)
