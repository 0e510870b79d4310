"""``ntkviz export deformation``: what the editor's model options do not say.

A figure of the context view computes the context distances first (kept in the
cache), so the panel draws them at once. (The image views' default size is declared
on the model's views.)
"""
from __future__ import annotations

__all__ = ["before"]


def before(args, params, view: str) -> None:
    """A figure of the context view: compute the context distances first (cached)."""
    if view == "context" and not args.out.lower().endswith(".csv"):
        from ntkviz.models.deformation import DeformationModel

        DeformationModel.build_context_request(params)()
