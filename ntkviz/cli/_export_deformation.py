"""``ntkviz export deformation``: what the editor's model options do not say.

An image view exported as PNG is 800 px wide unless ``--width`` says otherwise (the
on-screen view is small), and a figure of the context view computes the context
distances first (kept in the cache), so the panel draws them at once.
"""
from __future__ import annotations

__all__ = ["width", "before", "IMAGE_WIDTH"]

#: PNG width of an image view when --width is not given
IMAGE_WIDTH = 800


def width(args, view: str) -> int | None:
    """The default ``--width``: :data:`IMAGE_WIDTH` for a PNG of an image view."""
    return IMAGE_WIDTH if view != "context" and args.out.lower().endswith(".png") else None


def before(args, params, view: str) -> None:
    """A figure of the context view: compute the context distances first (cached)."""
    if view == "context" and not args.out.lower().endswith(".csv"):
        from ntkviz.models.deformation import DeformationModel

        DeformationModel.build_context_request(params)()
