"""``ntkviz gram``: exact CKN / convolutional-NTK Gram matrix of images in a .npy file.

``ntkviz gram --model {M1,M2,M3,M4|FILE.json} --images FILE.npy [--images-b FILE.npy]
--mode {ckn,ntk} --out K.npy``. Images are (N, H, W) or (N, H, W, C), float
values used as given (scale MNIST uint8 by 1/255 first). Conventions: the
reference albietz/ckn_kernel HEAD (see ``ntkviz.core.cntk``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ntkviz.cli import CliError
from ntkviz.cli._common import output_path


def register(sub) -> None:
    p = sub.add_parser(
        "gram", help="exact CKN / convolutional NTK Gram matrix of images (.npy)",
        description="Exact infinite-width CKN or convolutional NTK Gram matrix (Bietti & Mairal 2019, "
                    "reference conventions of albietz/ckn_kernel HEAD) of the images in a .npy file, "
                    "or the cross matrix against a second file.")
    p.add_argument("--model", required=True, metavar="M1..M4|FILE.json",
                   help="preset M1, M2, M3, M4 or a JSON file: a list of layer dicts (npatch, subsampling, "
                        "pooling, kernel, sigma, poolfactor) or {\"layers\": [...], \"patch_normalization\": ...}")
    p.add_argument("--images", required=True, metavar="FILE.npy", help="images (N, H, W) or (N, H, W, C)")
    p.add_argument("--images-b", metavar="FILE.npy", help="second set: compute the (N, M) cross matrix")
    p.add_argument("--mode", required=True, choices=("ckn", "ntk"), help="ckn (last layer trained) or ntk")
    p.add_argument("--out", required=True, metavar="K.npy", help="output matrix (.npy, float64)")
    p.set_defaults(func=run)


def load_model(spec: str):
    """A preset name or a JSON architecture file -> Architecture (errors name the file)."""
    from ntkviz.core.cntk import PRESETS, architecture_from_dict

    if spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec)
    if path.suffix.lower() != ".json":
        raise CliError(f"--model must be one of {', '.join(PRESETS)} or a .json file, got {spec!r}")
    try:
        obj = json.loads(path.read_text())
    except OSError as exc:
        raise CliError(f"{path}: cannot read model file ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    try:
        return architecture_from_dict(obj)
    except ValueError as exc:
        raise CliError(f"{path}: {exc}") from None


def progress_line(label: str, fraction: float, final: bool = False) -> None:
    """A self-overwriting progress line on stderr."""
    sys.stderr.write(f"\r{label}: {100 * fraction:5.1f} %".ljust(60) + ("\n" if final else ""))
    sys.stderr.flush()


def run(args) -> int:
    import numpy as np

    from ntkviz.core.cntk import gram_iter
    from ntkviz.core.digits import load_image_file

    arch = load_model(args.model)
    out = output_path(args.out, (".npy",))
    images = load_image_file(args.images, stack=True)
    images_b = None if args.images_b is None else load_image_file(args.images_b, stack=True)
    arch.check_mode(args.mode)
    try:
        arch.layer_sizes(images.shape[1], images.shape[2])
    except ValueError as exc:
        raise CliError(f"--model does not fit {images.shape[1]}x{images.shape[2]} images: {exc}") from None
    item = None
    for item in gram_iter(images, arch, args.mode, images_b):
        progress_line("gram", item.fraction, final=item.matrix is not None)
    np.save(out, item.matrix)
    return 0
