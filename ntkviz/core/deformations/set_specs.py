"""The sets a reference digit is compared with (Bietti & Mairal, NeurIPS 2019, Fig. 1), by name.

A set is named by a token: ``deform:α`` (deformations of the reference digit with
amplitude ``α``), ``deform+translate:α`` (the same, each followed by a one-pixel move),
``same`` (other digits of the reference's label) or ``any`` (digits of every label). The
paper's four sets are :data:`DEFAULT_SETS`. :class:`SetSpec` is one validated set and
:func:`parse_sets` reads a list of tokens.

Standard library only (the check family and the range table), so the parameter models
and the command line read and check set names without loading the numeric core; the
computation on the sets is :mod:`ntkviz.core.deformations.sets`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ntkviz import limits
from ntkviz._check import check_choice, check_float

__all__ = ["SET_KINDS", "DEFAULT_SETS", "SetSpec", "parse_sets"]

#: the kinds of sets: Infinite-MNIST deformations (with one-pixel moves), same label, any label
SET_KINDS = limits.STABILITY_SET_KINDS
#: the sets of the paper's Fig. 1
DEFAULT_SETS = ("deform:3", "deform+translate:1", "same", "any")


@dataclass(frozen=True)
class SetSpec:
    """One set: ``kind`` (:data:`SET_KINDS`) and, for the deformation kinds, ``alpha``."""

    kind: str
    alpha: float | None = None

    def __post_init__(self):
        check_choice("set", self.kind, SET_KINDS)
        if self.deforms:
            if self.alpha is None:
                raise ValueError(f"set {self.kind} needs its α, e.g. {self.kind}:3")
            object.__setattr__(self, "alpha", check_float(f"set {self.kind} α", self.alpha,
                                                          (0.0, limits.AMPLITUDE_RANGE[1])))
        elif self.alpha is not None:
            raise ValueError(f"set {self.kind} takes no α (got {self.kind}:{self.alpha:g})")

    @property
    def deforms(self) -> bool:
        """True for the deformation sets."""
        return self.kind.startswith("deform")

    @property
    def translates(self) -> bool:
        """True when each deformation is followed by a one-pixel move."""
        return self.kind == "deform+translate"

    @property
    def token(self) -> str:
        """The set's name in CSV files and on the command line (``deform:3``, ``same``)."""
        return self.kind if self.alpha is None else f"{self.kind}:{self.alpha:g}"

    def label(self, reference_label: int | None = None) -> str:
        """A legend text naming α and translate (``deformations, α = 3``)."""
        if self.kind == "deform":
            return f"deformations, α = {self.alpha:g}"
        if self.kind == "deform+translate":
            return f"translations + deformations, α = {self.alpha:g}"
        if self.kind == "same":
            return "digits of the same label" + ("" if reference_label is None else f" ({reference_label})")
        return "digits of any label"


def parse_sets(text: str | Sequence[str]) -> tuple[SetSpec, ...]:
    """``"deform:3,deform+translate:1,same,any"`` (or a list of such tokens) -> validated
    :class:`SetSpec` s; a set named twice is refused."""
    tokens = [str(t).strip() for t in (text.split(",") if isinstance(text, str) else text)]
    if not tokens or any(not t for t in tokens):
        raise ValueError(f"sets must be comma-separated names among {', '.join(SET_KINDS)} "
                         f"(deformation sets with :α), got {text!r}")
    specs = []
    for token in tokens:
        kind, sep, alpha = token.partition(":")
        if sep:
            try:
                value = float(alpha)
            except ValueError:
                raise ValueError(f"set {token!r}: α must be a number, got {alpha!r}") from None
        specs.append(SetSpec(kind, value if sep else None))
    names = [s.token for s in specs]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"sets list {name!r} twice; give each set once")
    return tuple(specs)
