"""The lazy-training figure: one row of plots per run and the legend, on one canvas."""
from __future__ import annotations

import contextlib
from typing import Callable

from PySide6 import QtCore, QtWidgets

from ntkviz.gui.panels.training._plots import LEGEND_GROUPS, RunView, fill_legend, make_legend

__all__ = ["TrainingFigure", "NARROW_PX"]

#: a figure narrower than this (logical pixels: a small window or export) has its legend
#: under the plots, in three columns, so that the plots keep their width — when it is tall
#: enough for that (200 px per row of plots left); else the legend stays beside them
NARROW_PX = 860


class TrainingFigure:
    """The plots of up to two runs (:class:`RunView`, one row each) and their shared legend
    in ``layout_item`` (a pyqtgraph ``GraphicsLayout``); ``metrics()`` gives the metric
    curves shown. The legend sits in a column beside the plots, or under them when the
    figure is narrow (:data:`NARROW_PX`); an export of one plot gets its own legend."""

    def __init__(self, layout_item, metrics: Callable[[], tuple], rows: int):
        self.layout_item = layout_item
        self.metrics = metrics
        self.views = [RunView(), RunView()]
        self.legend = make_legend()
        self.rows_shown = 0
        self.legend_below = False  # under the plots (narrow figure) or beside them
        self.arrange(rows)
        # an export lays the figure out at its own size: the legend moves with it
        layout_item.geometryChanged.connect(self.on_resized)

    def arrange(self, rows: int, force: bool = False) -> None:
        """Lay out one row of plots per run and the legend: in its own column, or in a
        row under the plots when the figure is narrower than :data:`NARROW_PX`."""
        if rows == self.rows_shown and not force:
            return
        lay = self.layout_item
        for view in self.views[: self.rows_shown]:
            for plot in view.plots():
                lay.removeItem(plot)
        if self.rows_shown:
            lay.removeItem(self.legend)
        for r, view in enumerate(self.views[:rows]):
            for c, plot in enumerate(view.plots()):
                lay.addItem(plot, row=r, col=c)
        self.rows_shown = rows
        self.legend_below = below = self.legend_fits_below()
        self.fill_legend()
        if below:
            lay.addItem(self.legend, row=rows, col=0, colspan=3)
            lay.layout.setAlignment(self.legend, QtCore.Qt.AlignmentFlag.AlignHCenter)
        else:
            lay.addItem(self.legend, row=0, col=3, rowspan=rows)
            lay.layout.setAlignment(self.legend, QtCore.Qt.AlignmentFlag.AlignTop)
        # a narrow figure gives its spare width to the metric plot (a label per decade)
        narrow = lay.geometry().width() < NARROW_PX
        for view in self.views:
            view.set_compact(narrow)
        for c, stretch in enumerate((3, 2, 4, 0) if narrow else (10, 10, 13, 0 if below else 1)):
            lay.layout.setColumnStretchFactor(c, stretch)
        for r in range(rows + 1):
            lay.layout.setRowStretchFactor(r, 0 if r == rows else 1)

    def legend_fits_below(self) -> bool:
        """Narrow figure, and room under the plots for the legend in three columns (its
        height estimated: about 21 px per row) leaving 200 px per row of plots and at least
        twice the legend's height to the plots (else the legend squeezes them: beside
        them it takes less of the figure)."""
        size = self.layout_item.geometry().size()
        legend_rows = 1 + max(4, 6, len(self.metrics()))
        legend_height = 21 * legend_rows + 20
        plots_height = size.height() - legend_height
        return (size.width() < NARROW_PX and plots_height / max(self.rows_shown, 1) >= 200
                and plots_height >= 2 * legend_height)

    def fill_legend(self) -> None:
        # beside the plots of a narrow figure: smaller text leaves the metric plot the
        # width of a label per decade of time
        narrow = self.layout_item.geometry().width() < NARROW_PX and not self.legend_below
        self.legend.opts["labelTextSize"] = "7pt" if narrow else "8pt"
        fill_legend(self.legend, self.views[0], self.metrics(),
                    columns=3 if self.legend_below else 1, compact=narrow)

    def on_resized(self) -> None:
        narrow = self.layout_item.geometry().width() < NARROW_PX
        if (self.legend_fits_below() != self.legend_below
                or narrow != self.views[0].compact):
            self.arrange(self.rows_shown, force=True)

    @contextlib.contextmanager
    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        """A plot exported alone (``neurons``, ``predictor``, ``metrics``, ``…_2``) gets
        its group of the figure's legend, off the data: in a column right of its plot
        area, or under it when the export is narrow (< 480 logical px) and tall enough
        (≥ 360, and four times the legend's height); a thumbnail (narrow and short, e.g. a
        plot's on-screen cell) has no room for one. The figure keeps its one shared legend."""
        from ntkviz.gui.export import export_geometry

        name, _, second = view.partition("_")
        if name not in LEGEND_GROUPS:
            yield
            return
        run = self.views[1 if second else 0]
        item = getattr(run, name)
        w, h, scale = export_geometry(item, width, height)
        legend = make_legend()
        fill_legend(legend, run, self.metrics(), groups=(name,))
        need = legend.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize)
        # under the plot only when it leaves the plot twice the legend's height
        beside, below = w / scale >= 480, h / scale >= max(360, 4 * need.height())
        if not (beside or below):
            legend.clear()
            yield
            return
        if beside:
            item.layout.addItem(legend, 2, 3)  # right of the view box (PlotItem grid: axes 0–2)
            item.layout.setAlignment(legend, QtCore.Qt.AlignmentFlag.AlignTop)
        else:
            item.layout.addItem(legend, 4, 1)  # under the bottom axis
            item.layout.setAlignment(legend, QtCore.Qt.AlignmentFlag.AlignHCenter)
        try:
            yield
        finally:
            item.layout.removeItem(legend)
            legend.clear()
            if legend.scene() is not None:
                legend.scene().removeItem(legend)
            # the figure's grid gave the plot room for the legend: lay it out again now
            QtWidgets.QApplication.sendPostedEvents(None, QtCore.QEvent.Type.LayoutRequest)
