"""The panels of ntkviz: each tab of the app is one declared :class:`PanelSpec`.

A panel is a Qt-free parameter model (``ntkviz/models/<name>.py``) and a Qt view
(``ntkviz/gui/panels/<name>.py``) that observes it. One line of :data:`PANELS`
declares it; everything else is read from that line and from the model:

* the main window's tab (and its View-menu entry, Ctrl+1 …) in this order, with
  ``title``; ``ntkviz gui --tab <key>``;
* the session entry ``panels.<key>`` (checked by the model);
* ``ntkviz export <key>``: its options come from the model's ``Params`` fields
  (:func:`ntkviz.models.options_of`), its ``--view`` from the model's ``views``;
* the figure gallery (the model's ``gallery_cases()``, every view).

This module imports only the standard library: the command line reads it without
loading Qt, numba or scipy. A spec names its classes as ``"package.module:Class"``
strings (resolved on first use, :func:`resolve`), so listing the panels imports
none of them.

Adding a panel temporarily (tests, plug-ins) goes through :func:`registered`, which
extends :data:`PANELS` for the duration of a ``with`` block.
"""
from __future__ import annotations

import importlib
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["PanelSpec", "PANELS", "specs", "keys", "spec", "resolve", "model_class",
           "view_class", "registered"]


@dataclass(frozen=True)
class PanelSpec:
    """One panel (tab) of the app.

    Parameters
    ----------
    key : str
        Short unique name: dispatcher key, session key, ``--tab`` name and
        ``ntkviz export <key>``.
    title : str
        The tab's text.
    model, view : str
        ``"package.module:Class"`` of the Qt-free model (a
        :class:`ntkviz.models.ParamModel` subclass) and of the Qt view (a
        :class:`ntkviz.gui.panels._base.QtPanel` subclass). A class object is accepted
        too (a panel defined in a script or a test).
    aliases : tuple of str
        Earlier names of the panel: accepted by ``--tab``, ``ntkviz export`` and in
        sessions, so files and commands of earlier versions keep working.
    export : str
        Optional ``"package.module"`` of command-line hooks for extras the model's
        options cannot say (an image file to read, GIF frames, …), see
        :mod:`ntkviz.cli._export`; ``""``: none.
    """

    key: str
    title: str
    model: object
    view: object
    aliases: tuple[str, ...] = ()
    export: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        """``key`` and its aliases."""
        return (self.key, *self.aliases)


#: every panel of the app, in tab order
PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("kernel", "Kernel curves", "ntkviz.models.kernel_curves:KernelCurvesModel",
              "ntkviz.gui.panels.kernel_curves:QtKernelCurvesPanel"),
    PanelSpec("spectrum", "Eigenvalue decay", "ntkviz.models.spectrum:SpectrumModel",
              "ntkviz.gui.panels.spectrum:QtSpectrumPanel"),
    PanelSpec("deformation", "Deformations", "ntkviz.models.deformation:DeformationModel",
              "ntkviz.gui.panels.deformation:QtDeformationPanel", aliases=("deform",),
              export="ntkviz.cli._export_deformation"),
    PanelSpec("stability", "Stability", "ntkviz.models.stability:StabilityModel",
              "ntkviz.gui.panels.stability:QtStabilityPanel", export="ntkviz.cli._export_stability"),
    PanelSpec("training", "Lazy training", "ntkviz.models.training:TrainingModel",
              "ntkviz.gui.panels.training:QtTrainingPanel", export="ntkviz.cli._export_training"),
    PanelSpec("classification", "Classification",
              "ntkviz.models.classification:ClassificationModel",
              "ntkviz.gui.panels.classification:QtClassificationPanel"),
    PanelSpec("learning", "Generalisation", "ntkviz.models.learning:LearningModel",
              "ntkviz.gui.panels.learning:QtLearningPanel"),
    PanelSpec("scattering", "Scattering", "ntkviz.models.scattering:ScatteringModel",
              "ntkviz.gui.panels.scattering:QtScatteringPanel"),
)


def specs() -> tuple[PanelSpec, ...]:
    """The panels now (:data:`PANELS`, with any added by :func:`registered`)."""
    return PANELS


def keys() -> list[str]:
    """The panel keys, in tab order."""
    return [s.key for s in specs()]


def spec(name: str) -> PanelSpec:
    """The panel called ``name`` (its key or an alias); ``ValueError`` naming the keys."""
    for s in specs():
        if name in s.names:
            return s
    raise ValueError(f"panel must be one of {', '.join(keys())}; got {name!r}")


def resolve(target):
    """The object named by ``"package.module:Name"`` (a class given as such is returned)."""
    if not isinstance(target, str):
        return target
    module, sep, name = target.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"target must look like 'package.module:Name', got {target!r}")
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def model_class(name: str):
    """The model class of panel ``name`` (imports no Qt)."""
    return resolve(spec(name).model)


def view_class(name: str):
    """The view class of panel ``name`` (imports Qt)."""
    return resolve(spec(name).view)


@contextmanager
def registered(*new: PanelSpec):
    """Within this block the panels ``new`` are part of :data:`PANELS` (after the
    others), e.g. a test's own panel::

        with registered(PanelSpec("dummy", "Dummy", "my_module:DummyModel",
                                  "my_module:QtDummyPanel")):
            main(["export", "dummy", "--out", "d.png"])

    A key or alias already taken is refused (``ValueError``)."""
    global PANELS
    taken = {n for s in PANELS for n in s.names}
    for s in new:
        if not isinstance(s, PanelSpec):
            raise TypeError(f"registered() takes PanelSpec objects, got {type(s).__name__}")
        clash = taken & set(s.names)
        if clash:
            raise ValueError(f"panel name {sorted(clash)[0]!r} is taken")
        taken |= set(s.names)
    before = PANELS
    PANELS = before + tuple(new)
    try:
        yield
    finally:
        PANELS = before
