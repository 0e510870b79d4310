"""Deformation editor: drag sliders, watch CKN against NTK feature distances live.

The panel is a view of :class:`ntkviz.models.deformation.DeformationModel`, in
parts: the digit picker and the deformation controls (``_controls``), the
architecture editor (``_architecture``), the pictures (``_images``) and the
panel that puts them together (``_view``).
"""
from ntkviz.gui.panels.deformation._controls import DEFORMATION_CONTROLS
from ntkviz.gui.panels.deformation._images import arrow_segments, nice_ceil, nice_floor
from ntkviz.gui.panels.deformation._view import QtDeformationPanel

__all__ = ["QtDeformationPanel", "DEFORMATION_CONTROLS", "arrow_segments", "nice_ceil",
           "nice_floor"]
