"""``ntkviz export stability``: what the Stability model's options do not say by themselves.

The tab has two figures (views ``stability``, distance against amplitude, and ``sets``, one
digit against sets: the paper's Fig. 1), each computed from its own fields
(:data:`ntkviz.models.stability.FIGURE_FIELDS`). An option of the other figure than the
one exported would be ignored, so it is refused (one line, exit code 2), and so is
``--fits`` for the sets figure along an architecture sweep (the bound forms are fitted
against the deformation amplitude; α is fixed there).
"""
from __future__ import annotations

from ntkviz.cli import CliError

__all__ = ["check"]


def check(args) -> None:
    """Refuse the options that do not apply to the view exported (see the module docstring)."""
    from ntkviz.models import options_of
    from ntkviz.models.stability import FIGURE_FIELDS, StabilityParams

    options = options_of(StabilityParams)
    sets = args.view == "sets"
    figure, other = ("sets", "amplitude") if sets else ("amplitude", "sets")
    for field in FIGURE_FIELDS[other]:
        if field in FIGURE_FIELDS[figure] or field not in options:
            continue
        if getattr(args, f"opt_{field}", None) is not None:
            flag = options[field].flag
            if sets:
                raise CliError(f"{flag} applies to the distance-against-amplitude figure (--view "
                               "stability) only; leave it out with --view sets")
            raise CliError(f"{flag} applies to --view sets only (one digit against sets); add "
                           "--view sets or leave it out")
    sweep = getattr(args, "opt_sweep", None)
    if sets and getattr(args, "opt_fits", None) and not (sweep or "").strip().startswith("amplitude"):
        raise CliError("--fits applies to --view sets with --sweep amplitude:… only (the bound forms are "
                       "fitted against the deformation amplitude; α is fixed along the other sweeps)")
