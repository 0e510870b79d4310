"""The right side of the deformation editor: the four pictures, the read-outs, and the
context bar chart with the progress of its job. Pure drawing: it holds no parameters."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

from ntkviz.gui.panels.deformation._images import ContextPlot, ImageViews
from ntkviz.gui.panels.deformation._readouts import DeformationReadouts

__all__ = ["DeformationPictures", "CONTEXT_MIN_HEIGHT"]

#: smallest height (px) of the context bar chart
CONTEXT_MIN_HEIGHT = 240


class DeformationPictures(QtWidgets.QWidget):
    """``views`` (:class:`ImageViews`), ``readout_box`` (:class:`DeformationReadouts`),
    ``context`` (:class:`ContextPlot` in ``context_widget``) and ``context_progress``,
    stacked top to bottom; the context chart takes the spare height."""

    def __init__(self, categories, parent=None):
        super().__init__(parent)
        self.views = ImageViews()
        self.readout_box = DeformationReadouts()
        self.context_widget = pg.GraphicsLayoutWidget()
        self.context_widget.setMinimumHeight(CONTEXT_MIN_HEIGHT)
        self.context = ContextPlot(self.context_widget.ci, categories)
        self.context_progress = QtWidgets.QProgressBar()
        self.context_progress.setRange(0, 1000)
        self.context_progress.setFormat("context distances: %p%")
        self.context_progress.setVisible(False)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.views)
        lay.addWidget(self.readout_box)
        lay.addWidget(self.context_widget, 1)
        lay.addWidget(self.context_progress)

    def show_pictures(self, pictures) -> None:
        """The four pictures and the read-outs that need no kernel (a
        :class:`ntkviz.jobs._deform.DeformImages` or a response)."""
        self.views.draw(pictures)
        self.readout_box.show_pictures(pictures)
