"""``ntkviz export deform [options] --view VIEW --out FILE.{png,svg,csv} [--width PX]``.

One view of the deformation editor: ``original``, ``deformed``, ``difference``,
``displacement`` or ``context``. CSV is written straight from the Qt-free jobs
(:class:`ntkviz.jobs.DeformRequest`, and :class:`ntkviz.jobs.ContextRequest`
for ``context``); PNG/SVG are rendered by the editor panel itself offscreen
(:func:`ntkviz.gui.headless.render_panel`), so they match the app.
"""
from __future__ import annotations

from ntkviz.cli._common import output_path, write_csv
from ntkviz.cli._export_stability import add_output_options, render_view

SUFFIXES = (".png", ".svg", ".csv")
PANEL = "ntkviz.gui.panels.deformation:QtDeformationPanel"
VIEWS = ("original", "deformed", "difference", "displacement", "context")  # = jobs.DEFORM_VIEWS
#: (option, Deformation field, type, help)
DEFORMATION_OPTIONS = (
    ("--translate-x", "translate_x", float, "shift right, px"),
    ("--translate-y", "translate_y", float, "shift down, px"),
    ("--rotation", "rotation_deg", float, "degrees, counter-clockwise"),
    ("--scale", "scale", float, "zoom about the centre (1 = none)"),
    ("--shear", "shear", float, "horizontal shear factor"),
    ("--smooth", "smooth_amplitude", float, "smooth random field amplitude, px"),
    ("--smooth-length", "smooth_length", float, "smooth field correlation length, px"),
    ("--smooth-seed", "smooth_seed", int, "smooth field seed"),
    ("--alpha", "infimnist_alpha", float, "Infinite-MNIST style alpha"),
    ("--alpha-seed", "infimnist_seed", int, "Infinite-MNIST style seed"),
)


def register(sub) -> None:
    p = sub.add_parser("deform", help="one view of the deformation editor",
                       description="A bundled digit (or your .npy image) under a deformation, as "
                                   "the app's deformation editor draws it.")
    p.add_argument("--label", type=int, default=0, help="class of the bundled digit (default 0)")
    p.add_argument("--index", type=int, default=0, help="index within the class (default 0)")
    p.add_argument("--image", metavar="FILE.npy",
                   help="your own (H, W) image instead (resampled to 28x28 like the app)")
    for opt, _, typ, text in DEFORMATION_OPTIONS:
        p.add_argument(opt, type=typ, default=None, help=text)
    p.add_argument("--arch", default="M1", metavar="PRESET", help="architecture preset M1..M4")
    p.add_argument("--view", choices=VIEWS, default="deformed", help="view (default deformed)")
    add_output_options(p)
    p.set_defaults(func=run)


def state_from_args(args) -> dict:
    """The editor panel's session state for the command-line options."""
    if args.image:
        from pathlib import Path

        from ntkviz.core.digits import load_image_file
        from ntkviz.jobs import prepare_user_image

        image, _ = prepare_user_image(load_image_file(args.image), name=Path(args.image).name)
        digit = {"kind": "user", "name": Path(args.image).name, "pixels": image.tolist()}
    else:
        digit = {"kind": "bundled", "label": args.label, "index": args.index}
    deformation = {field: getattr(args, opt[2:].replace("-", "_"))
                   for opt, field, _, _ in DEFORMATION_OPTIONS
                   if getattr(args, opt[2:].replace("-", "_")) is not None}
    return {"digit": digit, "deformation": deformation, "preset": args.arch}


def run(args) -> int:
    from ntkviz.jobs import ContextRequest, DeformRequest, deform_csv_table, editor_inputs_from_state

    out = output_path(args.out, SUFFIXES)
    state = state_from_args(args)
    image, label, deformation, arch = editor_inputs_from_state(state)  # validates before Qt
    response = DeformRequest(image, deformation, arch)()
    context = None
    if args.view == "context":
        # computed here, it is also cached for the panel, which then draws it at once
        context = ContextRequest(image, label, arch, reference_norms=response.reference_norms).run()
    if out.suffix.lower() == ".csv":
        write_csv(out, *deform_csv_table(args.view, response, context))
    else:
        render_view(PANEL, state, args.view, out, args.width, timeout_s=600.0)
    print(out)
    return 0
