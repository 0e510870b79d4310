"""Hover read-out: the exact value of the plotted point nearest to the mouse."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz.gui.plot_style import mark_transient, pen

__all__ = ["CurveHover"]


class CurveHover(QtCore.QObject):
    """Show the exact data point nearest to the mouse on ``plot_item``.

    Only named ``PlotDataItem``s are considered; the nearest point within
    ``radius_px`` screen pixels is marked and written to ``readout`` (a QLabel) as
    ``"<curve name>: x = …, y = …"`` using the *data* values (not log10 of them).
    """

    def __init__(self, plot_item: pg.PlotItem, readout: QtWidgets.QLabel, xname: str = "x",
                 yname: str = "y", radius_px: float = 25.0):
        super().__init__(plot_item)
        self.plot_item, self.readout = plot_item, readout
        self.xname, self.yname, self.radius_px = xname, yname, radius_px
        self.marker = pg.ScatterPlotItem(size=9, pen=pen("k", 1.0), brush=pg.mkBrush(None))
        self.marker.setZValue(1000)
        mark_transient(self.marker)  # never in exports
        plot_item.addItem(self.marker, ignoreBounds=True)
        self._proxy = pg.SignalProxy(plot_item.scene().sigMouseMoved, rateLimit=60,
                                     slot=self._on_moved)

    def nearest(self, scene_pos):
        """``(name, x, y, view_x, view_y)`` of the nearest point, or ``None``."""
        vb = self.plot_item.getViewBox()
        if not self.plot_item.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        pw, ph = vb.viewPixelSize()
        if not (pw > 0 and ph > 0):
            return None
        best = None
        for item in self.plot_item.listDataItems():
            if not item.isVisible() or not item.name() or item.xData is None:
                continue
            x, y = np.asarray(item.xData, float), np.asarray(item.yData, float)
            lx, ly = item.opts.get("logMode", (False, False))
            with np.errstate(divide="ignore", invalid="ignore"):
                vx = np.log10(x) if lx else x
                vy = np.log10(y) if ly else y
                d = np.hypot((vx - p.x()) / pw, (vy - p.y()) / ph)
            d[~np.isfinite(d)] = np.inf
            if d.size == 0:
                continue
            i = int(np.argmin(d))
            if d[i] <= self.radius_px and (best is None or d[i] < best[0]):
                best = (d[i], item.name(), x[i], y[i], vx[i], vy[i])
        return None if best is None else best[1:]

    def _on_moved(self, event) -> None:
        hit = self.nearest(event[0])
        if hit is None:
            self.marker.setData([], [])
            return
        name, x, y, vx, vy = hit
        self.marker.setData([vx], [vy])
        self.readout.setText(f"{name}:  {self.xname} = {x:.8g},  {self.yname} = {y:.10g}")
