"""Panels (tabs) of the main window: the one registry.

Adding a panel
--------------
Write a model (``ntkviz/models/<name>.py``: a ``ParamModel`` subclass), a view
(``ntkviz/gui/panels/<name>.py``: a ``QtPanel`` subclass whose ``model_cls`` is
that model) and append ONE line to :data:`PANELS`::

    ("<key>", "<tab title>", "ntkviz.gui.panels.<name>:<ViewClass>"),

Nothing else: the main window builds one tab per line, in this order (each
panel when its tab is first shown; the titles here label the tabs before that),
the View menu, sessions, ``--tab``, the gallery and ``ntkviz export <key>`` all
read this list. The view's module ``ntkviz.gui.panels.<name>`` pairs with the
model's module ``ntkviz.models.<name>`` (same ``<name>``), so the command line
finds the model without importing Qt. A panel that fails to import is skipped
with a message, so one broken panel never stops the app.

This file imports nothing but :mod:`importlib` (the command line reads it
without loading Qt, see :func:`ntkviz.cli._export.registry`): keep it so.
"""
from __future__ import annotations

import importlib

__all__ = ["PANELS", "TITLES", "panel_class", "model_class", "resolve", "keys"]

#: (key, tab title, view class as "module:Class"); key: short unique name used by
#: sessions, ``--tab`` and ``ntkviz export <key>``; the title must equal the class's
PANELS: list[tuple[str, str, str]] = [
    ("kernel", "Kernel curves", "ntkviz.gui.panels.kernel_curves:QtKernelCurvesPanel"),
    ("spectrum", "Eigenvalue decay", "ntkviz.gui.panels.spectrum:QtSpectrumPanel"),
    ("deform", "Deformations", "ntkviz.gui.panels.deformation:QtDeformationPanel"),
    ("stability", "Stability", "ntkviz.gui.panels.stability:QtStabilityPanel"),
    ("training", "Lazy training", "ntkviz.gui.panels.training:QtTrainingPanel"),
    ("classification", "Classification", "ntkviz.gui.panels.classification:QtClassificationPanel"),
    ("learning", "Generalisation", "ntkviz.gui.panels.generalisation:QtGeneralisationPanel"),
]

#: key -> tab title (available without importing any panel)
TITLES: dict[str, str] = {key: title for key, title, _ in PANELS}


def keys() -> list[str]:
    """The registered panel keys, in tab order."""
    return [key for key, _, _ in PANELS]


def resolve(target: str):
    """The object named by ``"package.module:Name"`` (the one resolver of ntkviz)."""
    module, sep, name = target.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"target must look like 'package.module:Name', got {target!r}")
    return getattr(importlib.import_module(module), name)


def _target(key: str) -> str:
    for k, _, target in PANELS:
        if k == key:
            return target
    raise ValueError(f"panel must be one of {', '.join(keys())}; got {key!r}")


def panel_class(key: str):
    """Import and return the view class registered under ``key``."""
    return resolve(_target(key))


def model_class(key: str):
    """The model class of panel ``key``, found without importing Qt: the one
    ``ParamModel`` subclass defined in ``ntkviz.models.<name>`` for the view module
    ``ntkviz.gui.panels.<name>``. ``None`` if there is none (a panel without a model),
    after checking the view's ``model_cls`` (which imports Qt)."""
    view_module = _target(key).partition(":")[0]
    name = view_module.rsplit(".", 1)[-1]
    try:
        module = importlib.import_module(f"ntkviz.models.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"ntkviz.models.{name}":
            raise
        module = None
    if module is not None:
        from ntkviz.models import ParamModel

        found = [obj for obj in vars(module).values()
                 if isinstance(obj, type) and issubclass(obj, ParamModel)
                 and obj is not ParamModel and obj.__module__.startswith(module.__name__)
                 and getattr(obj, "Params", None) is not None]
        if len(found) == 1:
            return found[0]
    return getattr(panel_class(key), "model_cls", None)
