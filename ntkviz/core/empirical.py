"""Placeholder: filled in by the issue that owns this module."""
__all__: list[str] = []
