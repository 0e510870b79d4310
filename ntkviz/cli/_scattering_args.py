"""The options of the scattering map, shared by ``ntkviz stability`` and ``ntkviz classify``.

``--scattering-j J`` and ``--scattering-l L`` set the scattering transform's scale ``2^J``
and orientations (defaults 2 and 8; order 2, zero padding); they apply only when the
scattering map is used and are refused otherwise, never ignored. Light: standard library
and :mod:`ntkviz.limits` at parser time.
"""
from __future__ import annotations

import argparse

from ntkviz.cli import CliError
from ntkviz.cli._common import int_in
from ntkviz.limits import SCATTERING_J_RANGE, SCATTERING_L_RANGE


def add_scattering_arguments(p: argparse.ArgumentParser, where: str) -> None:
    """Add ``--scattering-j`` and ``--scattering-l``; ``where`` names the option that selects
    the scattering map (for the help text)."""
    p.add_argument("--scattering-j", type=int_in(*SCATTERING_J_RANGE), default=None, metavar="J",
                   help=f"scattering map: averaging scale 2^J, J in [{SCATTERING_J_RANGE[0]}, "
                        f"{SCATTERING_J_RANGE[1]}] with 2^J at most the image side (default 2; needs "
                        f"scattering in {where})")
    p.add_argument("--scattering-l", type=int_in(*SCATTERING_L_RANGE), default=None, metavar="L",
                   help=f"scattering map: orientations in [{SCATTERING_L_RANGE[0]}, {SCATTERING_L_RANGE[1]}] "
                        f"(default 8; needs scattering in {where})")


def scattering_params(args, used: bool, where: str):
    """The ``ScatteringParams`` of the options when the scattering map is ``used`` (else None);
    ``CliError`` for an option given without it."""
    if not used:
        for option in ("scattering_j", "scattering_l"):
            if getattr(args, option) is not None:
                raise CliError(f"--{option.replace('_', '-')} applies to the scattering map only; "
                               f"add scattering to {where} or leave it out")
        return None
    from ntkviz.core.scattering.transform import ScatteringParams

    return ScatteringParams(J=2 if args.scattering_j is None else args.scattering_j,
                            L=8 if args.scattering_l is None else args.scattering_l)
