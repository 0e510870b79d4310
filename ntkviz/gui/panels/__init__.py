"""Panels (tabs) of the main window.

``PANELS`` lists ``(key, "module:Class")``; the main window imports each lazily
and builds one tab per entry, in this order, each panel when its tab is first shown
(``TITLES`` gives the tab texts before that). A panel author appends one line to each.
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

#: tab titles, so the main window can show every tab before importing (and building)
#: the panels; each must equal its class's ``title`` (checked by the tests)
TITLES: dict[str, str] = {
    "kernel": "Kernel curves",
    "spectrum": "Eigenvalue decay",
    "deform": "Deformations",
    "stability": "Stability",
    "training": "Lazy training",
}


def panel_class(key: str):
    """Import and return the panel class registered under ``key``."""
    for k, target in PANELS:
        if k == key:
            module, _, name = target.partition(":")
            return getattr(importlib.import_module(module), name)
    raise ValueError(f"panel must be one of {', '.join(k for k, _ in PANELS)}; got {key!r}")
