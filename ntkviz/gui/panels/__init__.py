"""Panels (tabs) of the main window.

``PANELS`` lists ``(key, "module:Class")``; the main window imports each lazily
and builds one tab per entry, in this order. A panel author appends one line.
A panel that fails to import is skipped with a status-bar message, so one broken
panel never stops the app.
"""
from __future__ import annotations

import importlib

PANELS: list[tuple[str, str]] = [
    ("kernel", "ntkviz.gui.panels.kernel_curves:QtKernelCurvesPanel"),
    ("spectrum", "ntkviz.gui.panels.spectrum:QtSpectrumPanel"),
    ("deform", "ntkviz.gui.panels.deformation:QtDeformationPanel"),
    ("stability", "ntkviz.gui.panels.stability:QtStabilityPanel"),
    ("training", "ntkviz.gui.panels.training:QtTrainingPanel"),
]


def panel_class(key: str):
    """Import and return the panel class registered under ``key``."""
    for k, target in PANELS:
        if k == key:
            module, _, name = target.partition(":")
            return getattr(importlib.import_module(module), name)
    raise ValueError(f"panel must be one of {', '.join(k for k, _ in PANELS)}; got {key!r}")
